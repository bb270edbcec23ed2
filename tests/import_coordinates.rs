//! `area-scoring import` end to end on where the areas lie (docs/import.md,
//! "Coordinates"): a point outside the dataset's region refuses its row,
//! naming the slip it looks like (lat and lng swapped, a lost minus sign);
//! `--region` sets another box; a point far from its province imports with a
//! warning naming the province and the distance; the seed's own places
//! raise none.

// The import helpers this file does not use.
#[allow(dead_code)]
use crate::common::import_files as support;

use std::fs;
use std::path::{Path, PathBuf};

use rusqlite::Connection;

use crate::common::scratch_dir;
use support::*;

const HEADER: &str = "id,name,province,municipality,lat,lng,safety,safety_weight,safety_sources";

/// A CSV file in `dir` of rows "id,province,lat,lng", each with a score.
fn areas_file(dir: &Path, name: &str, rows: &[&str]) -> PathBuf {
    let file = dir.join(name);
    let rows: Vec<String> = rows
        .iter()
        .map(|r| {
            let (id, rest) = r.split_once(',').unwrap();
            let (province, point) = rest.split_once(',').unwrap();
            format!("{id},{id},{province},Municipality,{point},6.5,1,saps")
        })
        .collect();
    fs::write(&file, format!("{HEADER}\n{}\n", rows.join("\n"))).unwrap();
    file
}

/// The seed's database in `dir`, and its bytes.
fn seeded(dir: &Path) -> (PathBuf, Vec<u8>) {
    let db = dir.join("areas.db");
    assert_ok(&cli(&["init", "--db", db.to_str().unwrap()]));
    let bytes = fs::read(&db).unwrap();
    (db, bytes)
}

#[test]
fn a_swapped_pair_is_refused_with_its_line_and_changes_nothing() {
    let dir = scratch_dir("coords-swapped");
    let (db, before) = seeded(&dir);
    let file = areas_file(
        &dir,
        "swapped.csv",
        &[
            "sandton,gauteng,-26.1076,28.0567",
            "benoni,gauteng,27.93,-26.23",
        ],
    );
    let text = assert_fails(&import(&db, &file));
    let want = "line 3 (benoni): lat 27.93 and lng -26.23 lie outside South Africa's box \
                (lng 16 to 33.1, lat -35.1 to -21.8); lat and lng look swapped";
    assert!(text.contains(want), "{text}");
    assert!(text.contains("has 1 problem on 1 line"), "{text}");
    assert!(!text.contains("line 2 "), "{text}");
    assert_eq!(fs::read(&db).unwrap(), before, "the dataset is unchanged");
    assert!(!dir.join("areas.db.previous").exists(), "nothing was kept");
}

#[test]
fn a_lost_minus_sign_is_named_and_a_point_in_the_atlantic_is_only_outside() {
    let dir = scratch_dir("coords-sign");
    let db = dir.join("areas.db");
    let file = areas_file(
        &dir,
        "slips.csv",
        &[
            "cairo-by-mistake,gauteng,26.09,28.11",
            "ocean,western-cape,-30.5,5.2",
        ],
    );
    let text = assert_fails(&import(&db, &file));
    let sign = "line 2 (cairo-by-mistake): lat 26.09 and lng 28.11 lie outside South Africa's box \
                (lng 16 to 33.1, lat -35.1 to -21.8); lat looks like it lost its minus sign (-26.09 lies inside)";
    assert!(text.contains(sign), "{text}");
    let ocean = text.lines().find(|l| l.contains("line 3 (ocean)")).unwrap();
    assert!(
        ocean.contains("lat -30.5 and lng 5.2 lie outside"),
        "{ocean}"
    );
    assert!(
        !ocean.contains("look"),
        "no slip would put it inside: {ocean}"
    );
    assert!(
        ocean.contains("--region MIN_LNG,MIN_LAT,MAX_LNG,MAX_LAT"),
        "{ocean}"
    );
    assert!(!db.exists(), "nothing was imported");
}

#[test]
fn a_region_set_by_the_operator_takes_a_point_outside_south_africa() {
    let dir = scratch_dir("coords-region");
    let db = dir.join("areas.db");
    let file = areas_file(
        &dir,
        "namibia.csv",
        &["luderitz,northern-cape,-26.65,15.16"],
    );
    assert_fails(&import(&db, &file));
    let (db_arg, file_arg) = (db.to_str().unwrap(), file.to_str().unwrap());
    let region = [
        "import",
        "--db",
        db_arg,
        "--region",
        "10,-36,34,-16",
        file_arg,
    ];
    assert_ok(&cli(&region));
    let lng: f64 = Connection::open(&db)
        .unwrap()
        .query_row("SELECT lng FROM areas WHERE id = 'luderitz'", [], |r| {
            r.get(0)
        })
        .unwrap();
    assert_eq!(lng, 15.16);
    // The dataset records its region: `info` names it, and the next import
    // of the same kind of file is checked against it without the flag.
    let info = cli(&["info", db_arg]);
    assert!(
        String::from_utf8_lossy(&info.stdout).contains("region:    10,-36,34,-16"),
        "{}",
        String::from_utf8_lossy(&info.stdout)
    );
    let next = areas_file(
        &dir,
        "namibia-2.csv",
        &[
            "luderitz,northern-cape,-26.65,15.16",
            "oranjemund,northern-cape,-28.55,16.43",
        ],
    );
    assert_ok(&import(&db, &next));
    let far = areas_file(&dir, "far.csv", &["lusaka,northern-cape,-15.42,28.28"]);
    let refused = import(&db, &far);
    assert_fails(&refused);
    assert!(
        stderr(&refused).contains("the dataset's region"),
        "{}",
        stderr(&refused)
    );
    let upside_down = cli(&[
        "import",
        "--db",
        db_arg,
        "--region",
        "10,-36,34,-40",
        file_arg,
    ]);
    let refused = stderr(&upside_down);
    assert!(
        !upside_down.status.success() && refused.contains("each minimum below its maximum"),
        "{refused}"
    );
}

#[test]
fn a_johannesburg_suburb_tagged_western_cape_imports_with_a_warning() {
    let dir = scratch_dir("coords-province");
    let db = dir.join("areas.db");
    let file = areas_file(
        &dir,
        "suburb.csv",
        &[
            "claremont,western-cape,-33.98,18.47",
            "sandton,western-cape,-26.1076,28.0567",
        ],
    );
    let out = import(&db, &file);
    assert_ok(&out);
    let text = stderr(&out);
    assert!(text.starts_with("created "), "{text}");
    let want = "\n1 warning (not problems: the rows are taken as given):\n  warning: line 3 (sandton): \
                lat -26.1076 and lng 28.0567 lie 656 km outside the box of western-cape (more than the 50 km allowed)";
    assert!(text.contains(want), "{text}");
    assert_eq!(text.matches("warning: ").count(), 1, "{text}");
    let province: String = Connection::open(&db)
        .unwrap()
        .query_row(
            "SELECT province_slug FROM areas WHERE id = 'sandton'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(province, "western-cape", "taken as given");
}

#[test]
fn many_warnings_print_the_first_twenty_and_a_count() {
    let dir = scratch_dir("coords-many");
    let db = dir.join("areas.db");
    let rows: Vec<String> = (0..25)
        .map(|i| format!("far-{i:02},western-cape,-26.2,28.04"))
        .collect();
    let rows: Vec<&str> = rows.iter().map(String::as_str).collect();
    let out = import(&db, &areas_file(&dir, "far.csv", &rows));
    assert_ok(&out);
    let text = stderr(&out);
    assert!(text.contains("\n25 warnings (not problems"), "{text}");
    assert_eq!(text.matches("  warning: line ").count(), 20, "{text}");
    assert!(
        text.contains("  warning: line 2 (far-00): ")
            && text.contains("  warning: line 21 (far-19): "),
        "{text}"
    );
    assert!(text.ends_with("\n  ... and 5 more warnings\n"), "{text}");
}

#[test]
fn the_seed_places_import_without_a_warning() {
    let dir = scratch_dir("coords-seed");
    let db = dir.join("areas.db");
    let seed = fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("seed/za-areas.csv"))
        .unwrap();
    let csv = dir.join("seed-places.csv");
    let mut out = format!("{HEADER}\n");
    for line in seed.lines().skip(1) {
        // id,name,province_slug,province,municipality,lat,lng; names may hold quoted commas.
        let f = csv_fields(line);
        let (id, slug, lat, lng) = (&f[0], &f[2], &f[5], &f[6]);
        out.push_str(&format!("{id},{id},{slug},M,{lat},{lng},6.5,1,saps\n"));
    }
    fs::write(&csv, out).unwrap();
    let done = import(&db, &csv);
    assert_ok(&done);
    let text = stderr(&done);
    assert!(
        text.starts_with("created ") && text.contains(" with 938 areas"),
        "{text}"
    );
    assert!(!text.contains("warning"), "{text}");
}

/// The fields of one CSV line, quotes removed.
fn csv_fields(line: &str) -> Vec<String> {
    let (mut fields, mut field, mut quoted) = (Vec::new(), String::new(), false);
    for c in line.chars() {
        match c {
            '"' => quoted = !quoted,
            ',' if !quoted => fields.push(std::mem::take(&mut field)),
            c => field.push(c),
        }
    }
    fields.push(field);
    fields
}
