//! The index read off the seed's file, in one pass over a covering index
//! that holds the province and in two over a file whose index holds none:
//! each area's province as the areas table says it, in both.

use rusqlite::Connection;

use super::*;

/// Each area's (area_no, province slug), straight from the areas table.
fn slugs(conn: &Connection) -> Vec<(i64, String)> {
    let mut stmt = conn
        .prepare("SELECT area_no, province_slug FROM areas")
        .unwrap();
    stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
        .unwrap()
        .collect::<rusqlite::Result<_>>()
        .unwrap()
}

/// Asserts that each area is in its own province and in no other.
fn assert_provinces(index: &AreaIndex, slugs: &[(i64, String)]) {
    assert_eq!(index.area_count(), slugs.len());
    for (area_no, slug) in slugs {
        let at = index.position_of(*area_no).expect("every area is indexed");
        for (province, _) in PROVINCES {
            let holds = index.province(province).unwrap().holds(at);
            assert_eq!(
                holds,
                province == slug,
                "area {area_no} of {slug}, in {province}"
            );
        }
    }
}

#[test]
fn provinces_read_with_the_positions_or_apart_are_the_areas_own() {
    let dir = std::env::temp_dir().join(format!("area-scoring-index-read-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("seed.db");
    crate::data::load::init(&path, true).unwrap();
    let conn = Connection::open(&path).unwrap();
    let slugs = slugs(&conn);
    assert!(holds_provinces(&conn).unwrap());
    assert_provinces(&AreaIndex::load(&conn).unwrap(), &slugs);

    conn.execute_batch(
        "DROP INDEX areas_by_position;
         CREATE INDEX areas_by_position ON areas (lat, lng, truth_score);",
    )
    .unwrap();
    assert!(!holds_provinces(&conn).unwrap());
    assert_provinces(&AreaIndex::load(&conn).unwrap(), &slugs);
    drop(conn);
    std::fs::remove_dir_all(dir).unwrap();
}
