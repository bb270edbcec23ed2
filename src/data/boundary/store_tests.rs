//! Tests of store.rs: what is written is what `geometry_json` reads back,
//! at every tolerance.

use super::*;
use crate::data::boundary::from_wkt;
use crate::data::identity::Source;
use crate::data::load;
use crate::data::seed::Place;

fn place(id: &str, lat: f64, lng: f64) -> Place {
    Place {
        id: id.into(),
        name: id.into(),
        province_slug: "gauteng".into(),
        province: "Gauteng".into(),
        municipality: "Test".into(),
        lat,
        lng,
        other_names: vec![],
    }
}

fn scratch(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("boundary-store-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir.join("areas.db")
}

/// A square with a bumpy edge (simplified from 50 m on), a MultiPolygon,
/// and an area without a boundary.
fn fixture(path: &std::path::Path) -> Vec<Option<Boundary>> {
    let boundaries = vec![
        from_wkt("POLYGON ((28 -26, 28.005 -25.9998, 28.01 -26, 28.01 -25.99, 28 -25.99, 28 -26))")
            .unwrap(),
        from_wkt("MULTIPOLYGON (((29 -26, 29 -25.99, 29.01 -25.99, 29.01 -26, 29 -26)))").unwrap(),
        None,
    ];
    let places = [
        place("a", -25.995, 28.005),
        place("b", -25.995, 29.005),
        place("c", -25.0, 28.0),
    ];
    load::create_database(path, true, &Source::unhashed("test"), |w| {
        for (p, b) in places.iter().zip(&boundaries) {
            w.add_place(p, 1, 20_000, b.as_ref())?;
        }
        Ok(())
    })
    .unwrap();
    boundaries
}

#[test]
fn what_is_written_is_read_back_full_and_simplified() {
    let path = scratch("read-back");
    let boundaries = fixture(&path);
    let conn = Connection::open(&path).unwrap();
    let tolerances = std::iter::once(None).chain(SIMPLIFY_TOLERANCES_M.map(Some));
    for tolerance in tolerances.chain([Some(33)]) {
        for (no, b) in (1..).zip(&boundaries) {
            let text = geometry_json(&conn, no, tolerance).unwrap();
            let Some(b) = b else {
                assert_eq!(text, None);
                continue;
            };
            let read: serde_json::Value = serde_json::from_str(&text.unwrap()).unwrap();
            let read = crate::data::boundary::from_geojson(&read).unwrap().unwrap();
            let simplified = matches!(tolerance, Some(50 | 250 | 1000)) && no == 1;
            assert_eq!(
                read.vertices() < b.vertices(),
                simplified,
                "{no} at {tolerance:?}"
            );
            if !simplified {
                assert_eq!(
                    read, *b,
                    "{no} at {tolerance:?}: as written, RFC 7946's orientation"
                );
            }
        }
    }
    let kinds: Vec<String> = conn
        .prepare("SELECT geometry ->> '$.type' FROM area_boundaries ORDER BY area_no")
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .collect::<rusqlite::Result<_>>()
        .unwrap();
    assert_eq!(kinds, ["Polygon", "MultiPolygon"], "served as they came");
    let (m2, vertices, boxes): (f64, i64, i64) = conn
        .query_row(
            "SELECT area_m2, vertices, (SELECT count(*) FROM area_boundary_boxes)
             FROM area_boundaries WHERE area_no = 2",
            [],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
        )
        .unwrap();
    // 0.01° square at 26° S: about 1,112 m by 1,000 m.
    assert!((m2 - 1.112e6).abs() < 0.01e6, "{m2}");
    assert_eq!((vertices, boxes), (5, 2));
}
