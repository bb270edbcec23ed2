//! Search by map viewport (`bbox=minLng,minLat,maxLng,maxLat`): for many
//! boxes drawn with a fixed seed, edges exactly on area centres, the served
//! areas are those brute force finds with their centre inside (edges
//! included), best truth_score first, ties by id; boxes combine with q, a
//! circle and min_score; every malformed box is 400 naming bbox; and a box
//! across the antimeridian, on imported areas on both sides of it.

// The import helpers this file does not use.
#[allow(dead_code)]
use crate::common::import_files as support;

use std::fs;

use crate::common::pages::walk_by_offset;
use crate::common::reference::{Area, BBox, Criteria, seed_areas};
use crate::common::rng::Rng;
use crate::common::{assert_invalid, encode, scratch_dir, spawn_app};
use area_scoring::domain::Plan;
use serde_json::Value;

/// A box and the ids it must hold because they lie on its edges or corners.
fn random_box(rng: &mut Rng, areas: &[Area]) -> (BBox, Vec<String>) {
    let a = &areas[rng.below(areas.len())];
    let b = &areas[rng.below(areas.len())];
    match rng.below(4) {
        // Two areas at opposite corners.
        0 => (
            [
                a.lng.min(b.lng),
                a.lat.min(b.lat),
                a.lng.max(b.lng),
                a.lat.max(b.lat),
            ],
            vec![a.id().into(), b.id().into()],
        ),
        // One area on the west edge, one on the north edge.
        1 => {
            let (w, s) = (rng.unit() * 2.0, rng.unit() * 2.0);
            let north = a.lat.max(b.lat);
            let east = a.lng + 0.1 + w;
            let inside = [a, b].iter().all(|x| x.lng >= a.lng && x.lng <= east);
            let must = if inside {
                vec![a.id().into(), b.id().into()]
            } else {
                vec![a.id().into()]
            };
            ([a.lng, a.lat.min(b.lat) - s, east, north], must)
        }
        // A point: exactly one area's centre.
        2 => ([a.lng, a.lat, a.lng, a.lat], vec![a.id().into()]),
        // Anywhere over the country, any size.
        _ => {
            let (west, south) = (16.0 + rng.unit() * 16.0, -35.0 + rng.unit() * 12.0);
            let box_ = [
                west,
                south,
                west + rng.unit() * 4.0,
                south + rng.unit() * 4.0,
            ];
            (box_, Vec::new())
        }
    }
}

#[test]
fn a_box_holds_exactly_the_centres_inside_it_best_score_first() {
    let app = spawn_app();
    let areas = seed_areas(app);
    let mut rng = Rng(0x5eed_b0c5);
    let (mut on_edges, mut with_many) = (0, 0);
    for _ in 0..48 {
        let (bbox, must) = random_box(&mut rng, areas);
        let c = Criteria::default().bbox(bbox);
        let base = format!("/v1/areas/search?{}", c.query());
        let walk = walk_by_offset(app, &base, 50);
        let got = walk.ids();
        c.assert_matches(&base, &got, areas);
        for id in &must {
            assert!(got.contains(&id.as_str()), "{base}: {id} lies on an edge");
        }
        assert!(walk.items.iter().all(|a| a.get("distance_km").is_none()));
        on_edges += must.len();
        with_many += (got.len() > 50) as usize;
    }
    assert!(
        on_edges > 30 && with_many > 3,
        "edges and long results exercised"
    );
    // The box of the whole world holds every area; one just east of an
    // area's centre does not hold it.
    let all = walk_by_offset(app, "/v1/areas/search?bbox=-180,-90,180,90", 50);
    assert_eq!(all.total as usize, areas.len());
    let a = &areas[0];
    let past = a.lng + 1e-6;
    let target = format!(
        "/v1/areas/search?bbox={past},{},{},{}&limit=50",
        a.lat,
        past + 1.0,
        a.lat
    );
    assert!(
        !crate::common::ids(&app.ok(&target)).contains(&a.id()),
        "{target}"
    );
}

#[test]
fn a_box_combines_with_q_a_circle_and_min_score() {
    let app = spawn_app();
    let areas = seed_areas(app);
    let gauteng = [27.0, -27.0, 29.0, -25.0];
    let cape = [17.8, -34.5, 19.5, -33.3];
    let c = Criteria::default;
    let cases = [
        c().bbox(gauteng).min_score(6.0),
        c().bbox(cape).min_score(0.0),
        c().bbox(cape).min_score(10.0),
        c().bbox(gauteng).q("e"),
        c().bbox(cape).q("cape town"),
        c().bbox(gauteng).near(-26.2041, 28.0473, Some(50.0)),
        c().bbox([28.0, -26.5, 28.3, -26.0])
            .near(-26.2041, 28.0473, Some(50.0)),
        c().bbox(cape).near(-26.2041, 28.0473, Some(50.0)),
        c().bbox(gauteng)
            .near(-26.2041, 28.0473, None)
            .min_score(5.0),
        c().bbox(cape)
            .q("a")
            .near(-33.9249, 18.4241, Some(30.0))
            .min_score(4.0),
    ];
    let mut nonempty = 0;
    for c in cases {
        let base = format!("/v1/areas/search?{}", c.query());
        let walk = walk_by_offset(app, &base, 17);
        c.assert_matches(&base, &walk.ids(), areas);
        let without_box = Criteria {
            bbox: None,
            ..c.clone()
        };
        assert!(
            walk.items.len() <= without_box.expected(areas).len(),
            "{base}: AND"
        );
        nonempty += (!walk.items.is_empty()) as usize;
    }
    assert!(nonempty >= 7, "most combinations find areas");
}

/// Not four numbers, a number out of range or not a number, south above
/// north: each is refused.
const BAD_BOXES: &str = "|16|16,-35,33|16,-35,33,-22,1|16,-35,33,|,16,-35,33|16,,33,-22|a,b,c,d|\
    16;-35;33;-22|16 -35 33 -22|181,-35,33,-22|16,-35,180.0001,-22|-180.5,-35,33,-22|\
    16,-91,33,-22|16,-35,33,90.5|16,-22,33,-35|0,1,1,0.9999|nan,-35,33,-22|16,inf,33,-22|\
    16,-35,-inf,-22|+16,-35,33,-22| 16,-35,33,-22|16,-35,33,-22 |0x10,-35,33,-22|\
    1e3,-35,33,-22|16,-35,33,-2.2e1x";

#[test]
fn a_malformed_box_is_400_naming_bbox() {
    let app = spawn_app();
    for bad in BAD_BOXES.split('|') {
        let target = format!("/v1/areas/search?bbox={}", encode(bad));
        assert_invalid(&app.get(&target), &["bbox"]);
        let with_q = format!("/v1/areas/search?q=cape&min_score=1&bbox={}", encode(bad));
        assert_invalid(&app.get(&with_q), &["bbox"]);
    }
    let twice = "/v1/areas/search?bbox=16,-35,33,-22&bbox=16,-35,33,-22";
    assert_invalid(&app.get(twice), &["bbox"]);
    // Exponents are numbers; equal edges are a line or a point, not an error.
    for good in [
        "1.6e1,-3.5E1,3.3e1,-2.2e1",
        "20,-30,20,-30",
        "-180,-90,180,90",
        "180,0,-180,0",
    ] {
        let reply = app.get(&format!("/v1/areas/search?bbox={good}"));
        assert_eq!(reply.status, 200, "{good}: {}", reply.text());
    }
}

/// Areas on both sides of the antimeridian, at the poles' side of it and far
/// from it: (id, lat, lng, score).
const DATELINE: [(&str, f64, f64, f64); 9] = [
    ("east-179-9", 0.0, 179.9, 6.0),
    ("west-179-9", 0.0, -179.9, 6.0),
    ("east-180", 0.5, 180.0, 7.0),
    ("west-180", -0.5, -180.0, 5.0),
    ("far-east", 0.0, 170.0, 8.0),
    ("far-west", 0.0, -170.0, 8.0),
    ("greenwich", 0.0, 0.0, 9.0),
    ("north-179-95", 60.0, 179.95, 4.0),
    ("south-west", -10.0, -179.99, 3.0),
];

#[test]
fn a_box_across_the_antimeridian_holds_both_sides_of_it() {
    let dir = scratch_dir("viewport-dateline");
    let (db_path, file) = (dir.join("areas.db"), dir.join("dateline.csv"));
    let mut csv = String::from(
        "id,name,province,municipality,lat,lng,updated_at,safety,safety_weight,safety_sources,market,market_weight,market_sources,history\n",
    );
    for (id, lat, lng, score) in DATELINE {
        csv += &format!(
            "{id},{id},gauteng,Nowhere,{lat},{lng},2026-11-01,{score},0.5,survey,{score},0.5,deeds,\n"
        );
    }
    fs::write(&file, csv).unwrap();
    // Points around the whole world: the dataset's region is the world's box.
    let (db_arg, file_arg) = (db_path.to_str().unwrap(), file.to_str().unwrap());
    let world = [
        "import",
        "--db",
        db_arg,
        "--region",
        "-180,-90,180,90",
        file_arg,
    ];
    support::assert_ok(&support::cli(&world));
    let (_, key) = crate::common::new_key(&db_path, Plan::Growth);
    let running = support::start_server(&db_path);
    let get = |target: &str| {
        let (status, body) = support::get(running.addr(), target, &key);
        assert_eq!(status, 200, "{target}: {body}");
        body
    };
    let listed = get("/v1/areas?limit=100");
    let areas: Vec<Area> = DATELINE
        .iter()
        .map(|(id, lat, lng, _)| Area {
            item: listed["data"]
                .as_array()
                .unwrap()
                .iter()
                .find(|a| a["id"] == *id)
                .unwrap()
                .clone(),
            lat: *lat,
            lng: *lng,
            province_slug: "gauteng".into(),
        })
        .collect();
    let c = Criteria::default;
    let cases: [(Criteria, &[&str]); 8] = [
        (
            c().bbox([179.0, -10.0, -179.0, 10.0]),
            &[
                "east-180",
                "east-179-9",
                "west-179-9",
                "west-180",
                "south-west",
            ],
        ),
        (
            c().bbox([179.9, -1.0, -179.9, 1.0]),
            &["east-180", "east-179-9", "west-179-9", "west-180"],
        ),
        (
            c().bbox([-179.95, -90.0, 179.95, 90.0]),
            &[
                "greenwich",
                "far-east",
                "far-west",
                "east-179-9",
                "west-179-9",
                "north-179-95",
            ],
        ),
        (
            c().bbox([170.0, -90.0, -170.0, 90.0]),
            &[
                "far-east",
                "far-west",
                "east-180",
                "east-179-9",
                "west-179-9",
                "west-180",
                "north-179-95",
                "south-west",
            ],
        ),
        (
            c().bbox([180.0, -90.0, -180.0, 90.0]),
            &["east-180", "west-180"],
        ),
        (
            c().bbox([179.0, -10.0, -179.0, 10.0]).min_score(6.0),
            &["east-180", "east-179-9", "west-179-9"],
        ),
        (
            c().bbox([179.0, -10.0, -179.0, 10.0]).q("west"),
            &["west-180", "south-west", "west-179-9"],
        ),
        (
            c().bbox([179.0, -10.0, -179.0, 10.0])
                .near(0.0, 179.95, Some(50.0)),
            &["east-179-9", "west-179-9"],
        ),
    ];
    for (c, want) in cases {
        let target = format!("/v1/areas/search?{}&limit=50", c.query());
        let page = get(&target);
        let got: Vec<&str> = page["data"]
            .as_array()
            .unwrap()
            .iter()
            .map(|a| a["id"].as_str().unwrap())
            .collect();
        assert_eq!(got, want, "{target}");
        assert_eq!(page["total"], Value::from(want.len()), "{target}");
        c.assert_matches(&target, &got, &areas);
    }
    running.shutdown();
}
