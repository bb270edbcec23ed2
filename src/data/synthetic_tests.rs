//! Tests of synthetic.rs.
use super::*;

fn places() -> Vec<Place> {
    seed::read_places(seed::SEED_CSV).unwrap()
}

fn per_province(areas: &[Generated], places: &[Place]) -> HashMap<String, usize> {
    let mut counts = HashMap::new();
    for a in areas {
        *counts
            .entry(places[a.place].province_slug.clone())
            .or_insert(0) += 1;
    }
    counts
}

#[test]
fn weights_sum_to_one() {
    let sum: f64 = PROVINCE_WEIGHTS.iter().map(|(_, w)| w).sum();
    assert!((sum - 1.0).abs() < 1e-12);
}

#[test]
fn counts_add_up_for_any_n() {
    for n in [0, 1, 8, 9, 10, 17, 1000, 99_999, 100_000] {
        assert_eq!(province_counts(n).iter().sum::<usize>(), n, "{n}");
    }
}

#[test]
fn makes_exactly_n_areas_with_unique_sorted_ids() {
    let places = places();
    for n in [1, 9, 1000, 20_000] {
        let areas = generate(&places, n).unwrap();
        assert_eq!(areas.len(), n);
        assert!(areas.windows(2).all(|w| w[0].id < w[1].id), "n = {n}");
    }
}

#[test]
fn is_deterministic() {
    let places = places();
    assert_eq!(
        generate(&places, 5000).unwrap(),
        generate(&places, 5000).unwrap()
    );
}

#[test]
fn every_province_is_present_and_gauteng_is_densest() {
    let places = places();
    for n in [9, 1000, 100_000] {
        let counts = per_province(&generate(&places, n).unwrap(), &places);
        assert_eq!(counts.len(), 9, "n = {n}: {counts:?}");
        let gauteng = counts["gauteng"];
        assert!(counts.values().all(|&c| c <= gauteng), "{counts:?}");
        if n >= 1000 {
            assert!(counts.values().filter(|&&c| c == gauteng).count() == 1);
        }
    }
}

#[test]
fn copies_stay_near_their_place_and_are_named_after_it() {
    let places = places();
    for a in generate(&places, 3000).unwrap() {
        let p = &places[a.place];
        let km = crate::search::index::geo::haversine_km(p.lat, p.lng, a.lat, a.lng);
        // Crowded places' copies are pushed out past their neighbours'.
        assert!(km <= 4.0 * SPREAD_KM, "{} is {km} km away", a.id);
        assert!(a.name.starts_with(&p.name) && a.id.starts_with(&p.id));
        assert!(a.name.rsplit(' ').next().unwrap().parse::<usize>().is_ok());
    }
}

#[test]
fn every_copy_lies_in_south_africa_as_an_import_requires() {
    use crate::data::import::region::SOUTH_AFRICA;
    let places = places();
    for a in generate(&places, 20_000).unwrap() {
        assert_eq!(SOUTH_AFRICA.problem(a.lat, a.lng), None, "{}", a.id);
    }
}

#[test]
fn every_copy_has_a_cell_of_its_own_that_holds_its_centre() {
    let places = places();
    for n in [9, 1000, 50_000] {
        let areas = generate(&places, n).unwrap();
        let mut cells: Vec<[i64; 4]> = areas
            .iter()
            .map(|a| a.cell.map(|x| (x * 1e5).round() as i64))
            .collect();
        for a in &areas {
            let [x0, y0, x1, y1] = a.cell;
            assert!(
                x0 < a.lng && a.lng < x1 && y0 < a.lat && a.lat < y1,
                "{}",
                a.id
            );
            let b = Boundary::rectangle(a.cell);
            assert!(b.holds(a.lat, a.lng));
            assert_eq!(
                crate::data::boundary::validity::first_problem(b.shape()),
                None
            );
        }
        // Cells of one grid: two that are not the same do not overlap.
        cells.sort_unstable();
        assert!(cells.windows(2).all(|w| w[0] != w[1]), "n = {n}");
        let side = cells[0][2] - cells[0][0];
        assert!(
            cells
                .iter()
                .all(|c| c[2] - c[0] == side && c[3] - c[1] == side)
        );
        assert!(cells.iter().all(|c| c[0] % side == 0 && c[1] % side == 0));
    }
}

#[test]
fn a_million_copies_have_cells_of_about_150_m() {
    assert_eq!(cell_deg(1), CELL_DEG_MAX);
    let most = province_counts(1_000_000)[0].div_ceil(62);
    let side_m = cell_deg(most) * KM_PER_DEGREE * 1000.0;
    assert!((100.0..200.0).contains(&side_m), "{side_m}");
}

#[test]
fn the_rings_around_a_cell_visit_each_cell_once_nearest_first() {
    let mut cursor = Cursor::default();
    let mut seen = std::collections::HashSet::new();
    for ring in 0..6 {
        for _ in 0..(8 * ring).max(1) {
            let (dr, dc) = cursor.offset();
            assert_eq!(dr.abs().max(dc.abs()), ring, "({dr}, {dc})");
            assert!(seen.insert((dr, dc)), "({dr}, {dc}) twice");
            cursor.advance();
        }
    }
    assert_eq!(seen.len(), 11 * 11);
}
