//! Search Areas paging: for text, circle, viewport, score and province
//! searches and their combinations, walking every page by `offset` and again by following
//! the Link header's rel="next" visits every match exactly once, in the
//! documented order, as brute force over every area finds them; `total` is
//! their count; pages past the end are empty; `offset` is 0 or more.

use std::collections::BTreeSet;

use crate::common::pages::{walk_by_links, walk_by_offset};
use crate::common::reference::{Criteria, seed_areas};
use crate::common::{assert_invalid, data, ids, spawn_app};

/// Johannesburg, Cape Town and Durban centres.
const JHB: (f64, f64) = (-26.2041, 28.0473);
const CPT: (f64, f64) = (-33.9249, 18.4241);
const DBN: (f64, f64) = (-29.8587, 31.0218);
/// Roughly Gauteng, and roughly the whole country.
const GAUTENG: [f64; 4] = [27.0, -27.0, 29.0, -25.0];
const COUNTRY: [f64; 4] = [16.0, -35.0, 33.0, -22.0];

fn searches() -> Vec<Criteria> {
    let c = Criteria::default;
    vec![
        c().q("cape"),
        c().q("town"),
        c().q("port eliz"),
        c().q("n"),
        c().q("mandela"),
        c().q("west coast"),
        c().q("zzzznothing"),
        c().near(JHB.0, JHB.1, Some(25.0)),
        c().near(CPT.0, CPT.1, Some(50.0)),
        c().near(DBN.0, DBN.1, None),
        c().near(-34.0, 10.0, Some(50.0)),
        c().min_score(0.0),
        c().min_score(7.5),
        c().min_score(9.0),
        c().bbox(GAUTENG),
        c().bbox(COUNTRY),
        c().bbox(COUNTRY).min_score(6.5),
        c().q("cape").min_score(5.0),
        c().q("n").bbox(GAUTENG),
        c().near(JHB.0, JHB.1, Some(50.0)).min_score(6.0),
        c().near(JHB.0, JHB.1, Some(50.0))
            .bbox([27.9, -26.5, 28.5, -25.9]),
        c().q("s").near(CPT.0, CPT.1, Some(50.0)),
        c().q("e")
            .near(JHB.0, JHB.1, Some(40.0))
            .bbox(GAUTENG)
            .min_score(4.0),
        c().province("gauteng"),
        c().province("western-cape").min_score(7.0),
        c().province("limpopo").q("mak"),
        c().province("north-west").q("n"),
        c().province("gauteng").near(JHB.0, JHB.1, Some(50.0)),
        c().province("mpumalanga").bbox(COUNTRY).min_score(5.0),
        c().province("free-state")
            .q("e")
            .near(-29.0, 26.0, Some(50.0))
            .bbox(COUNTRY)
            .min_score(3.0),
    ]
}

/// A limit that makes several pages of `count` matches, never dividing it.
fn small_limit(count: usize) -> u64 {
    let mut limit = (count / 6).clamp(3, 50) as u64;
    while count > 0 && (count as u64).is_multiple_of(limit) && limit < 50 {
        limit += 1;
    }
    limit
}

#[test]
fn every_page_of_every_search_covers_each_match_once_in_order() {
    let app = spawn_app();
    let areas = seed_areas(app);
    let mut several_pages = 0;
    for c in searches() {
        let base = format!("/v1/areas/search?{}", c.query());
        let want = c.expected(areas);
        let limit = small_limit(want.len());

        let by_offset = walk_by_offset(app, &base, limit);
        let got = by_offset.ids();
        let unique: BTreeSet<&str> = got.iter().copied().collect();
        assert_eq!(unique.len(), got.len(), "{base}: an area repeated");
        assert_eq!(
            by_offset.total,
            got.len() as u64,
            "{base}: total is the count"
        );
        c.assert_matches(&base, &got, areas);
        several_pages += (by_offset.pages > 2) as usize;

        let link_limit = (limit + 4).min(50);
        let first = format!("{base}&limit={link_limit}");
        let by_links = walk_by_links(app, &first, want.len() + 2);
        assert_eq!(by_links.ids(), got, "{first}: following rel=next");
        assert_eq!(by_links.total, by_offset.total, "{first}");

        // One page as large as allowed is the start of the same walk.
        let big = app.ok(&format!("{base}&limit=50"));
        assert_eq!(ids(&big), got[..got.len().min(50)], "{base}&limit=50");
        for item in &by_offset.items {
            let listed = areas.iter().find(|a| a.item["id"] == item["id"]).unwrap();
            let mut list_form = item.clone();
            let distance = list_form.as_object_mut().unwrap().remove("distance_km");
            let matched = list_form.as_object_mut().unwrap().remove("match");
            assert_eq!(list_form, listed.item, "{base}: the list form");
            // Strict matching: every item found exactly (docs/api.md, "Search Areas").
            assert_eq!(
                matched.map(|m| m["tier"].clone()),
                c.q.as_ref().map(|_| "exact".into()),
                "{base}"
            );
            assert_eq!(distance.is_some(), c.near.is_some(), "{base}: distance_km");
        }
    }
    assert!(several_pages >= 15, "most searches span several pages");
}

#[test]
fn a_page_past_the_end_is_empty_and_keeps_the_total() {
    let app = spawn_app();
    for c in searches() {
        let base = format!("/v1/areas/search?{}", c.query());
        let total = app.ok(&format!("{base}&limit=1"))["total"]
            .as_u64()
            .unwrap();
        for offset in [total, total + 1, total + 1000, i64::MAX as u64] {
            let target = format!("{base}&limit=5&offset={offset}");
            let reply = app.get(&target);
            assert_eq!(reply.status, 200, "{target}: {}", reply.text());
            let page = reply.json();
            assert!(data(&page).is_empty(), "{target}: {page}");
            assert_eq!(page["total"].as_u64(), Some(total), "{target}");
            assert_eq!(page["offset"].as_u64(), Some(offset), "{target}");
            assert_eq!(
                reply.header("X-Total-Count"),
                Some(total.to_string().as_str())
            );
        }
    }
}

#[test]
fn offset_is_an_integer_of_zero_or_more() {
    let app = spawn_app();
    let base = "/v1/areas/search?min_score=5&limit=3";
    let zero = app.ok(&format!("{base}&offset=0"));
    assert_eq!(zero, app.ok(base), "offset defaults to 0");
    assert_eq!(zero["offset"], 0);
    let one = app.ok(&format!("{base}&offset=1"));
    assert_eq!(ids(&one)[..2], ids(&zero)[1..], "offset=1 starts one later");
    for bad in [
        "-1", "1.5", "1.0", "1e1", "+1", "", "one", " 1", "0x1", "-0.5",
    ] {
        let target = format!("{base}&offset={}", crate::common::encode(bad));
        assert_invalid(&app.get(&target), &["offset"]);
    }
    assert_invalid(&app.get(&format!("{base}&offset=1&offset=2")), &["offset"]);
}

/// Exponent notation is a number like any other: the same search as the
/// decimal spelling, for every numeric parameter of Search.
#[test]
fn numbers_in_exponent_notation_mean_what_their_decimals_mean() {
    let app = spawn_app();
    let pairs = [
        (
            "lat=-2.62041E1&lng=28.0473e0&radius=2.5E1&min_score=5e-1",
            "lat=-26.2041&lng=28.0473&radius=25&min_score=0.5",
        ),
        (
            "bbox=2.7e1,-2.7E1,29e0,-25e%2B0&min_score=6.5e0",
            "bbox=27,-27,29,-25&min_score=6.5",
        ),
        ("min_score=1e-05", "min_score=0.00001"),
        ("min_score=0.75e1", "min_score=7.5"),
    ];
    for (exponent, decimal) in pairs {
        let with = app.ok(&format!("/v1/areas/search?{exponent}&limit=50"));
        let without = app.ok(&format!("/v1/areas/search?{decimal}&limit=50"));
        assert_eq!(with, without, "{exponent}");
        assert!(!data(&with).is_empty(), "{exponent} finds something");
    }
    for (param, bad) in [
        ("min_score", "nan"),
        ("min_score", "inf"),
        ("min_score", "-inf"),
        ("min_score", "infinity"),
        ("min_score", "%2B5"),
        ("min_score", "1e"),
        ("min_score", "e1"),
        ("min_score", "1e%2B"),
        ("min_score", "2e1"),
        ("radius", "NaN"),
        ("radius", "%2B1e1"),
        ("lat", "-9.1e1"),
    ] {
        let rest = match param {
            "radius" => "&lat=-26&lng=28",
            "lat" => "&lng=28",
            _ => "",
        };
        let target = format!("/v1/areas/search?{param}={bad}{rest}");
        assert_invalid(&app.get(&target), &[param]);
    }
}
