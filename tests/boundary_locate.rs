//! The area at a point (`Dataset::locate`) against a brute force written
//! here: every boundary tested for the point by ray casting with an exact
//! on-edge test, closed polygons, the holding ones smallest first (geodesic
//! area, then id); else the nearest boundary within 250 m; else the nearest
//! centre of an area without a boundary. Every field must be equal, `also`
//! included. Over the seed's cells (random points, every place's centre,
//! every vertex and edge midpoint, just outside the coast, Lesotho, the sea)
//! and over a fixture of holes, MultiPolygon parts, overlaps, shared edges
//! and areas without a boundary; and a file of layout 7, refused until
//! `upgrade` makes it servable.

use std::path::Path;
use std::sync::Arc;

use area_scoring::data::boundary::{Boundary, Located, LocatedBy, NEAR_BOUNDARY_KM, from_wkt};
use area_scoring::data::dataset::{Dataset, Pools, Store};
use area_scoring::data::db::PoolSize;
use area_scoring::data::identity::Source;
use area_scoring::data::load;
use area_scoring::data::seed::{self, Place};
use geo::GeodesicArea;

use crate::common::calc::{haversine_km, round2};
use crate::common::rng::Rng;

/// One area as the brute force sees it.
struct Known {
    area_no: i64,
    lat: f64,
    lng: f64,
    boundary: Option<Boundary>,
    area_m2: f64,
    /// The boundary's rings as (lng, lat), and its box (min lng, min lat,
    /// max lng, max lat): a point outside the box grown by 0.01° (over a
    /// kilometre) is neither held nor near, and its rings are not walked.
    rings: Vec<Vec<Vec<(f64, f64)>>>,
    bbox: [f64; 4],
}

impl Known {
    fn new(area_no: i64, lat: f64, lng: f64, boundary: Option<Boundary>) -> Known {
        let rings = boundary.as_ref().map(rings_of).unwrap_or_default();
        let mut bbox = [
            f64::INFINITY,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::NEG_INFINITY,
        ];
        for &(x, y) in rings.iter().flatten().flatten() {
            bbox = [
                bbox[0].min(x),
                bbox[1].min(y),
                bbox[2].max(x),
                bbox[3].max(y),
            ];
        }
        Known {
            area_no,
            lat,
            lng,
            area_m2: boundary
                .as_ref()
                .map_or(0.0, |b| b.shape().geodesic_area_unsigned()),
            boundary,
            rings,
            bbox,
        }
    }

    fn far(&self, (x, y): (f64, f64)) -> bool {
        let m = 0.01;
        x < self.bbox[0] - m || y < self.bbox[1] - m || x > self.bbox[2] + m || y > self.bbox[3] + m
    }
}

/// A point's coordinate as an exact integer multiple of 2^-52: every
/// coordinate used here is at least 1 in magnitude (or 0), so it is one,
/// and the orientation below is exact in i128.
fn exact(x: f64) -> i128 {
    let scaled = x * 2f64.powi(52);
    assert!(
        scaled.fract() == 0.0 && scaled.abs() < 2f64.powi(62),
        "{x} is not exact"
    );
    scaled as i128
}

/// The sign of the cross product (b - a) × (p - a), exactly.
fn orient(a: (f64, f64), b: (f64, f64), p: (f64, f64)) -> i32 {
    let (ax, ay, bx, by, px, py) = (
        exact(a.0),
        exact(a.1),
        exact(b.0),
        exact(b.1),
        exact(p.0),
        exact(p.1),
    );
    ((bx - ax) * (py - ay) - (by - ay) * (px - ax)).signum() as i32
}

enum Side {
    Inside,
    OnEdge,
    Outside,
}

/// Ray casting to +x, edges half-open in y, after an exact on-edge test.
fn ring_side(ring: &[(f64, f64)], p: (f64, f64)) -> Side {
    let mut inside = false;
    for w in ring.windows(2) {
        let (a, b) = (w[0], w[1]);
        let o = orient(a, b, p);
        let between = |v: f64, s: f64, t: f64| s.min(t) <= v && v <= s.max(t);
        if o == 0 && between(p.0, a.0, b.0) && between(p.1, a.1, b.1) {
            return Side::OnEdge;
        }
        // Upward edges with p to their left, downward with p to their
        // right: those the ray crosses.
        let upward = a.1 <= p.1 && p.1 < b.1 && o > 0;
        let downward = b.1 <= p.1 && p.1 < a.1 && o < 0;
        if upward || downward {
            inside = !inside;
        }
    }
    if inside { Side::Inside } else { Side::Outside }
}

fn rings_of(b: &Boundary) -> Vec<Vec<Vec<(f64, f64)>>> {
    b.shape()
        .iter()
        .map(|p| {
            std::iter::once(p.exterior())
                .chain(p.interiors())
                .map(|r| r.0.iter().map(|c| (c.x, c.y)).collect())
                .collect()
        })
        .collect()
}

/// The closed boundary holds the point: on any edge, or inside a shell and
/// inside none of its holes.
fn brute_holds(k: &Known, p: (f64, f64)) -> bool {
    k.rings.iter().any(|rings| match ring_side(&rings[0], p) {
        Side::Outside => false,
        Side::OnEdge => true,
        Side::Inside => rings[1..].iter().all(|h| match ring_side(h, p) {
            Side::Inside => false,
            Side::OnEdge | Side::Outside => true,
        }),
    })
}

/// Distance to the nearest point of any edge, that point found in a plane
/// where longitude is scaled by the cosine of the point's latitude.
fn brute_distance_km(area: &Known, lat: f64, lng: f64) -> f64 {
    let k = lat.to_radians().cos();
    let mut best = (f64::INFINITY, 0.0, 0.0);
    for rings in &area.rings {
        for ring in rings {
            for w in ring.windows(2) {
                let (a, c) = (w[0], w[1]);
                let (ux, uy) = ((c.0 - a.0) * k, c.1 - a.1);
                let (vx, vy) = ((lng - a.0) * k, lat - a.1);
                let len2 = ux * ux + uy * uy;
                let t = if len2 > 0.0 {
                    ((vx * ux + vy * uy) / len2).clamp(0.0, 1.0)
                } else {
                    0.0
                };
                let d2 = (vx - t * ux).powi(2) + (vy - t * uy).powi(2);
                if d2 < best.0 {
                    best = (d2, a.1 + t * (c.1 - a.1), a.0 + t * (c.0 - a.0));
                }
            }
        }
    }
    haversine_km(lat, lng, best.1, best.2)
}

fn brute_locate(known: &[Known], lat: f64, lng: f64, radius_km: f64) -> Option<Located> {
    let mut holding: Vec<&Known> = known
        .iter()
        .filter(|k| k.boundary.is_some() && !k.far((lng, lat)) && brute_holds(k, (lng, lat)))
        .collect();
    holding.sort_by(|a, b| {
        a.area_m2
            .total_cmp(&b.area_m2)
            .then(a.area_no.cmp(&b.area_no))
    });
    if let Some(first) = holding.first() {
        return Some(Located {
            area_no: first.area_no,
            by: LocatedBy::Boundary,
            distance_km: 0.0,
            also: holding[1..].iter().map(|k| k.area_no).collect(),
        });
    }
    let near = known
        .iter()
        .filter(|k| k.boundary.is_some() && !k.far((lng, lat)))
        .map(|k| (brute_distance_km(k, lat, lng), k.area_no))
        .filter(|(d, _)| *d <= NEAR_BOUNDARY_KM)
        .min_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
    if let Some((d, area_no)) = near {
        return Some(Located {
            area_no,
            by: LocatedBy::NearBoundary,
            distance_km: round2(d),
            also: vec![],
        });
    }
    known
        .iter()
        .filter(|k| k.boundary.is_none())
        .map(|k| (haversine_km(lat, lng, k.lat, k.lng), k.area_no))
        .filter(|(d, _)| *d <= radius_km)
        .min_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)))
        .map(|(d, area_no)| Located {
            area_no,
            by: LocatedBy::Nearest,
            distance_km: round2(d),
            also: vec![],
        })
}

fn open(db: &Path) -> Arc<Dataset> {
    let pools = Pools {
        requests: PoolSize::for_requests(1),
        exports: PoolSize::for_exports(1),
    };
    Store::open(db, pools)
        .expect("the dataset opens")
        .current()
        .unwrap()
}

/// Compares every point; returns how many were compared and how many of
/// each kind of answer came out.
fn compare(dataset: &Dataset, known: &[Known], points: &[(f64, f64)], radius: f64) -> [usize; 4] {
    let conn = dataset.pool.get().unwrap();
    let mut kinds = [0usize; 4];
    for &(lat, lng) in points {
        let got = dataset.locate(&conn, lat, lng, radius).unwrap();
        let want = brute_locate(known, lat, lng, radius);
        assert_eq!(got, want, "at ({lat}, {lng})");
        kinds[match &got {
            Some(l) if l.by == LocatedBy::Boundary => 0,
            Some(l) if l.by == LocatedBy::NearBoundary => 1,
            Some(_) => 2,
            None => 3,
        }] += 1;
    }
    kinds
}

fn seed_known() -> Vec<Known> {
    let mut places = seed::seed_places().unwrap();
    places.sort_by(|a, b| a.id.cmp(&b.id));
    let mut boundaries = seed::seed_boundaries().unwrap();
    places
        .iter()
        .enumerate()
        .map(|(i, p)| Known::new(i as i64 + 1, p.lat, p.lng, boundaries.remove(&p.id)))
        .collect()
}

/// Points of every kind over the seed's cells, by what they test.
fn seed_points(known: &[Known]) -> Vec<(&'static str, Vec<(f64, f64)>)> {
    let mut rng = Rng(0x5eed_b0da);
    let random: Vec<(f64, f64)> = (0..3000)
        .map(|_| (-35.0 + 13.0 * rng.unit(), 16.0 + 17.0 * rng.unit()))
        .collect();
    let centres = known.iter().map(|k| (k.lat, k.lng)).collect();
    let mut vertices = Vec::new();
    let mut midpoints = Vec::new();
    let mut beside = Vec::new();
    for k in known {
        for rings in &k.rings {
            for ring in rings {
                for w in ring.windows(2) {
                    vertices.push((w[0].1, w[0].0));
                    midpoints.push(((w[0].1 + w[1].1) / 2.0, (w[0].0 + w[1].0) / 2.0));
                    // 100 to 400 m off the vertex in a random direction:
                    // on the coast and the borders, outside every cell.
                    let (d, a) = (
                        0.001 + 0.003 * rng.unit(),
                        std::f64::consts::TAU * rng.unit(),
                    );
                    beside.push((w[0].1 + d * a.sin(), w[0].0 + d * a.cos()));
                }
            }
        }
    }
    vec![
        ("random", random),
        ("centres", centres),
        ("vertices", vertices),
        ("midpoints", midpoints),
        ("beside", beside),
    ]
}

/// How many boundaries the dataset's file holds.
fn boundaries_in(dataset: &Dataset) -> i64 {
    let conn = dataset.pool.get().unwrap();
    conn.query_row("SELECT count(*) FROM area_boundary_boxes", [], |r| r.get(0))
        .unwrap()
}

#[test]
fn the_seed_cells_answer_as_brute_force_does() {
    let dir = crate::common::scratch_dir("boundary-locate-seed");
    let db = dir.join("areas.db");
    load::init(&db, true).unwrap();
    let dataset = open(&db);
    let known = seed_known();
    assert_eq!(boundaries_in(&dataset), known.len() as i64);
    let mut report = Vec::new();
    for (what, points) in seed_points(&known) {
        let kinds = compare(&dataset, &known, &points, 10.0);
        report.push(format!("{what}: {} {kinds:?}", points.len()));
        // A midpoint in f64 lies a rounding off its edge as often as on
        // it: both sides judge it the same, exactly; a vertex is on it.
        if what == "vertices" {
            assert_eq!(kinds[0], points.len(), "every vertex is in a cell");
        }
    }
    eprintln!(
        "compared (boundary, near, nearest, none): {}",
        report.join("; ")
    );
    let conn = dataset.pool.get().unwrap();
    let at = |lat, lng| dataset.locate(&conn, lat, lng, 50.0).unwrap();
    // Some places' own centres lie off the coast or past a border the cells are clipped to.
    let centres = &report[1];
    assert!(centres.starts_with("centres: 938 [9"), "{centres}");
    // Maseru and Lesotho's middle, and far at sea: no area.
    assert_eq!(at(-29.6, 28.25), None, "Lesotho");
    assert_eq!(at(-29.3167, 27.4833), None, "Maseru");
    assert_eq!(at(-37.0, 20.0), None, "the sea");
    // A point inside any seed cell answers that cell's place: each
    // boundary's interior point.
    for k in &known {
        let (lat, lng) = k.boundary.as_ref().unwrap().centre();
        let got = at(lat, lng).unwrap();
        assert_eq!((got.area_no, got.by), (k.area_no, LocatedBy::Boundary));
    }
}

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

/// Holes (one holding a smaller area), MultiPolygon parts touching at a
/// vertex, overlaps, shared edges, and areas without a boundary, in id order.
fn fixture() -> Vec<(Place, Option<Boundary>)> {
    let b = |wkt: &str| from_wkt(wkt).unwrap();
    vec![
        // A 1° square with a hole, and an island inside the hole.
        (
            place("a-holed", -26.5, 27.25),
            b(
                "POLYGON ((27 -27, 28 -27, 28 -26, 27 -26, 27 -27), (27.25 -26.75, 27.75 -26.75, 27.75 -26.25, 27.25 -26.25, 27.25 -26.75))",
            ),
        ),
        (
            place("b-island", -26.5, 27.5),
            b("POLYGON ((27.4 -26.6, 27.6 -26.6, 27.6 -26.4, 27.4 -26.4, 27.4 -26.6))"),
        ),
        // Two parts touching at (29, -26), east of the holed square, sharing its edge x = 28.
        (
            place("c-parts", -26.5, 28.5),
            b(
                "MULTIPOLYGON (((28 -27, 29 -27, 29 -26, 28 -26, 28 -27)), ((29 -26, 30 -26, 30 -25, 29 -25, 29 -26)))",
            ),
        ),
        // Overlapping the first part and the holed square: smaller than both.
        (
            place("d-overlap", -26.5, 28.0),
            b("POLYGON ((27.8 -26.8, 28.2 -26.8, 28.2 -26.2, 27.8 -26.2, 27.8 -26.8))"),
        ),
        // The same square as d: equal areas, so the lower id first.
        (
            place("e-twin", -26.5, 28.0),
            b("POLYGON ((27.8 -26.8, 28.2 -26.8, 28.2 -26.2, 27.8 -26.2, 27.8 -26.8))"),
        ),
        // No boundary: centres for the nearest rule.
        (place("f-centre", -24.0, 28.0), None),
        (place("g-centre", -24.0, 28.5), None),
        (place("h-centre", -24.3, 28.25), None),
    ]
}

#[test]
fn a_fixture_of_holes_parts_overlaps_and_shared_edges_answers_as_brute_force_does() {
    let dir = crate::common::scratch_dir("boundary-locate-fixture");
    let db = dir.join("areas.db");
    let areas = fixture();
    load::create_database(&db, true, &Source::unhashed("fixture"), |w| {
        for (p, boundary) in &areas {
            w.add_place(p, 1, 20_000, boundary.as_ref())?;
        }
        Ok(())
    })
    .unwrap();
    let known: Vec<Known> = areas
        .into_iter()
        .enumerate()
        .map(|(i, (p, boundary))| Known::new(i as i64 + 1, p.lat, p.lng, boundary))
        .collect();
    let dataset = open(&db);
    let mut rng = Rng(0xf1c5);
    let mut points: Vec<(f64, f64)> = (0..4000)
        .map(|_| (-27.2 + 3.4 * rng.unit(), 26.8 + 3.4 * rng.unit()))
        .collect();
    // On every vertex and edge, in and beside every hole and part, and on a grid of 0.05°
    // that meets the edges and vertices exactly.
    for i in 0..=80 {
        for j in 0..=80 {
            points.push((-27.1 + 0.05 * i as f64, 26.9 + 0.05 * j as f64));
        }
    }
    let exact_points = [
        (-26.0, 29.0),      // where the parts touch
        (-26.5, 28.0),      // the shared edge, inside d and e too
        (-27.0, 28.0),      // a vertex of a and c
        (-26.75, 27.5),     // a hole's edge
        (-26.3, 27.3),      // inside the hole
        (-26.5, 27.5),      // the island
        (-26.6, 27.4),      // the island's vertex
        (-26.001, 30.0005), // just beside a part
        (-27.002, 27.5),    // just outside the south edge, 220 m
        (-27.003, 27.5),    // 330 m: no boundary near, and no centre within 10 km
        (-24.0, 28.25),     // between two centres, equally far: the lower id
        (-24.02, 28.2),
    ];
    points.extend(exact_points);
    let kinds = compare(&dataset, &known, &points, 10.0);
    let kinds_50 = compare(&dataset, &known, &points, 50.0);
    eprintln!(
        "fixture: {} points, radius 10 {kinds:?}, radius 50 {kinds_50:?}",
        points.len()
    );
    assert!(
        kinds.iter().all(|&k| k > 0),
        "{kinds:?}: every kind of answer met"
    );
    let conn = dataset.pool.get().unwrap();
    let at = |lat, lng| dataset.locate(&conn, lat, lng, 10.0).unwrap().unwrap();
    let on_shared = at(-26.5, 28.0);
    assert_eq!(
        (on_shared.area_no, on_shared.also.clone()),
        (4, vec![5, 1, 3])
    );
    assert_eq!(at(-26.0, 29.0).area_no, 3, "a vertex two parts share");
    assert_eq!(at(-26.5, 27.5).area_no, 2, "the island in the hole");
    let near = at(-27.002, 27.5);
    assert_eq!(
        (near.area_no, near.by, near.distance_km),
        (1, LocatedBy::NearBoundary, 0.22)
    );
    let tie = dataset.locate(&conn, -24.0, 28.25, 50.0).unwrap().unwrap();
    assert_eq!((tie.area_no, tie.by), (6, LocatedBy::Nearest));
}

#[test]
fn a_file_of_layout_7_is_refused_until_upgraded() {
    let dir = crate::common::scratch_dir("boundary-locate-layout-7");
    let db = dir.join("areas.db");
    crate::common::db::small_db(&db, 40);
    let layout_7 = dir.join("seven.db");
    std::fs::copy(&db, &layout_7).unwrap();
    crate::common::sql(
        &layout_7,
        "DROP TABLE area_boundaries; DROP TABLE area_boundary_simplified;
         DROP TABLE area_boundary_boxes; DROP TABLE area_boundary_cells;
         PRAGMA user_version = 7;",
    );
    let pools = Pools {
        requests: PoolSize::for_requests(1),
        exports: PoolSize::for_exports(1),
    };
    let refused = Store::open(&layout_7, pools)
        .err()
        .expect("a layout-7 file is refused");
    let said = refused.to_string();
    let path = layout_7.to_str().unwrap();
    assert!(
        said.contains(&format!("area-scoring upgrade {path}")),
        "{said}"
    );
    let served =
        crate::common::bin::run(&["serve", "--db", path, "--addr", "127.0.0.1:0"], &[], &dir);
    assert_eq!(served.status.code(), Some(1), "serve refuses it too");
    let current = open(&db);
    let current_conn = current.pool.get().unwrap();
    let upgraded = crate::common::bin::run(&["upgrade", layout_7.to_str().unwrap()], &[], &dir);
    assert!(
        upgraded.status.success(),
        "{}",
        crate::common::bin::text(&upgraded.stderr)
    );
    let again = open(&layout_7);
    let conn = again.pool.get().unwrap();
    let mut rng = Rng(7);
    for _ in 0..300 {
        let (lat, lng) = (-35.0 + 13.0 * rng.unit(), 16.0 + 17.0 * rng.unit());
        let want = current.locate(&current_conn, lat, lng, 50.0).unwrap();
        assert_eq!(again.locate(&conn, lat, lng, 50.0).unwrap(), want);
    }
}

#[test]
fn upgrade_keeps_the_boundaries_a_file_holds() {
    let dir = crate::common::scratch_dir("boundary-locate-upgrade");
    let db = dir.join("areas.db");
    load::init(&db, true).unwrap();
    let older = dir.join("older.db");
    std::fs::copy(&db, &older).unwrap();
    crate::common::sql(&older, "PRAGMA user_version = 7;");
    let upgraded = crate::common::bin::run(&["upgrade", older.to_str().unwrap()], &[], &dir);
    assert!(
        upgraded.status.success(),
        "{}",
        crate::common::bin::text(&upgraded.stderr)
    );
    let (current, again) = (open(&db), open(&older));
    assert_eq!(boundaries_in(&again), 938);
    let (a, b) = (current.pool.get().unwrap(), again.pool.get().unwrap());
    let mut rng = Rng(8);
    for _ in 0..500 {
        let (lat, lng) = (-35.0 + 13.0 * rng.unit(), 16.0 + 17.0 * rng.unit());
        assert_eq!(
            again.locate(&b, lat, lng, 50.0).unwrap(),
            current.locate(&a, lat, lng, 50.0).unwrap()
        );
    }
    for no in [1, 500, 938] {
        for tolerance in [None, Some(250)] {
            use area_scoring::data::boundary::geometry_json;
            assert_eq!(
                geometry_json(&b, no, tolerance).unwrap(),
                geometry_json(&a, no, tolerance).unwrap()
            );
        }
    }
}
