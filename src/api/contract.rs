//! The numbers and words of the query-parameter contract, each stated once:
//! every bound, default and accepted word of every endpoint's parameters
//! (docs/api.md, "Parameters" and each endpoint's table). `params.rs` parses with
//! these and nothing else.
//!
//! The OpenAPI document (app/openapi/, `area-scoring openapi`) is built
//! from these values, so a value changed here changes the document.
//! The vocabulary that is not only about parameters (provinces, dimensions,
//! plans) stays in `domain`; the request size limits stay in `error`, beside
//! the errors that name them; the bounds of an area's texts and other names
//! stay with the import's rules, which enforce them; the tiers and typo
//! bounds of forgiving search stay in search/query/tier.rs, beside the search
//! that keeps them. All are re-exported here
//! so that one module lists every value of the parameters' contract.

pub use crate::data::import::rules::{MAX_OTHER_NAMES, MAX_TEXT};
use crate::data::recent_history::KEPT_DAYS;
pub use crate::domain::{DIMENSIONS, Granularity, GroupBy, MEASURES, Order, PROVINCES, Plan, Sort};
pub use crate::error::{MAX_HEADER_BYTES, MAX_TARGET_BYTES};

pub use crate::api::format::{Format, Geometry};
use crate::api::query::Bounds;
pub use crate::data::boundary::SIMPLIFY_TOLERANCES_M;
pub use crate::search::query::tier::{
    FORGIVING_WORDS_MAX, MATCH_TIERS, MatchTier, Matching, SPLIT_PART_MIN, TYPO_ONE_FROM,
    TYPO_TWO_FROM,
};

// ---- List Areas: GET /v1/areas (docs/api.md, "List Areas") ----

/// The parameters List Areas takes; any other is 400. `format` is last in
/// each endpoint's list, since its format's own paths take all but it
/// (`params_at`).
pub const LIST_PARAMS: [&str; 7] = [
    "province", "limit", "offset", "sort", "order", "ids", "format",
];
/// `ids=` asks for areas by id, in the order given: at most this many.
pub const LIST_IDS_MAX: usize = 100;
/// What `ids=` answers in place of paging, which it refuses: the order is
/// the caller's, and every area asked for is on the one page.
pub const LIST_IDS_REFUSE: [&str; 4] = ["limit", "offset", "sort", "order"];
// The areas of ids are one page, which List's page bounds must hold.
const _: () = assert!(LIST_IDS_MAX as i64 <= LIST_LIMIT_MAX);
pub const LIST_LIMIT_MIN: i64 = 1;
pub const LIST_LIMIT_MAX: i64 = 100;
pub const LIST_LIMIT_DEFAULT: i64 = 20;
pub const OFFSET_MIN: i64 = 0;
/// No upper bound but the integer's own: an offset past the end is an empty page.
pub const OFFSET_MAX: i64 = i64::MAX;
pub const OFFSET_DEFAULT: i64 = 0;
pub const SORTS: [(&str, Sort); 3] = [
    ("name", Sort::Name),
    ("truth_score", Sort::TruthScore),
    ("updated_at", Sort::UpdatedAt),
];
pub const SORT_DEFAULT: Sort = Sort::Name;
pub const ORDERS: [(&str, Order); 2] = [("asc", Order::Asc), ("desc", Order::Desc)];
pub const ORDER_DEFAULT: Order = Order::Asc;
/// The representations of List and Search; JSON is the default. JSON is
/// answered at the endpoint's path (where `format=` or Accept may still ask
/// for another), each other at a path of its own: `/v1/areas.csv`.
pub const LIST_FORMATS: [Format; 3] = [Format::Json, Format::GeoJson, Format::Csv];
/// List's parameters at `/v1/areas.geojson`: all but `format`, and the
/// GeoJSON paths' own (`GEOJSON_PARAMS`).
pub const LIST_GEOJSON_PARAMS: [&str; 8] = at_geojson_path(LIST_PARAMS);

// ---- Boundaries in GeoJSON (docs/api.md, "Representations") ----

/// The parameters every GeoJSON path takes besides its endpoint's: each
/// feature's geometry, and the boundary's simplification.
pub const GEOJSON_PARAMS: [&str; 2] = ["geometry", "simplify"];
/// What a feature's geometry is: the area's centre, or its boundary (null
/// for an area without one).
pub const GEOMETRIES: [(&str, Geometry); 2] =
    [("point", Geometry::Point), ("boundary", Geometry::Boundary)];
pub const GEOMETRY_DEFAULT: Geometry = Geometry::Point;

// ---- Get Area: GET /v1/areas/{area_id} (docs/api.md, "Get Area") ----

pub const AREA_PARAMS: [&str; 1] = ["include"];
pub const INCLUDE_HISTORY: &str = "history";
pub const INCLUDE_NEARBY: &str = "nearby";
pub const INCLUDE_BOUNDARY: &str = "boundary";
/// The area's standing by measure, nationally and in its province.
pub const INCLUDE_RANK: &str = "rank";
/// The extras `include` may list, each at most once, in any order.
pub const INCLUDES: [&str; 4] = [
    INCLUDE_HISTORY,
    INCLUDE_NEARBY,
    INCLUDE_BOUNDARY,
    INCLUDE_RANK,
];

// ---- The area at a point: GET /v1/areas/at (docs/api.md, "The area at a point") ----

/// lat and lng are required; radius (Search's bounds and default) reaches
/// the areas without a boundary; include is Get Area's.
pub const AT_PARAMS: [&str; 4] = ["lat", "lng", "radius", "include"];
pub use crate::data::boundary::NEAR_BOUNDARY_KM;

// ---- Search Areas: GET /v1/areas/search (docs/api.md, "Search Areas") ----

pub const SEARCH_PARAMS: [&str; 11] = [
    "q",
    "lat",
    "lng",
    "radius",
    "bbox",
    "min_score",
    "province",
    "limit",
    "offset",
    "match",
    "format",
];
/// Search's parameters at `/v1/areas/search.geojson`, as `LIST_GEOJSON_PARAMS`.
pub const SEARCH_GEOJSON_PARAMS: [&str; 12] = at_geojson_path(SEARCH_PARAMS);
/// How q's words match (`match=`): forgiving typos, joined and split words
/// and other names, or exactly as a prefix of a word (docs/api.md, "Search Areas").
pub const MATCHINGS: [(&str, Matching); 2] = [
    ("forgiving", Matching::Forgiving),
    ("exact", Matching::Exact),
];
pub const MATCHING_DEFAULT: Matching = Matching::Forgiving;
/// bbox is minLng,minLat,maxLng,maxLat: GeoJSON's order, in degrees.
pub const BBOX_NUMBERS: usize = 4;
/// Length of q in characters, not bytes.
pub const Q_CHARS_MIN: usize = 1;
pub const Q_CHARS_MAX: usize = 200;
pub const LAT: Bounds = Bounds {
    min: -90.0,
    min_exclusive: false,
    max: 90.0,
};
pub const LNG: Bounds = Bounds {
    min: -180.0,
    min_exclusive: false,
    max: 180.0,
};
/// A circle of radius zero holds nothing, so zero is refused.
pub const RADIUS_KM: Bounds = Bounds {
    min: 0.0,
    min_exclusive: true,
    max: 50.0,
};
pub const RADIUS_KM_DEFAULT: f64 = 10.0;
pub const MIN_SCORE: Bounds = Bounds {
    min: 0.0,
    min_exclusive: false,
    max: 10.0,
};
pub const SEARCH_LIMIT_MIN: i64 = 1;
pub const SEARCH_LIMIT_MAX: i64 = 50;
pub const SEARCH_LIMIT_DEFAULT: i64 = 10;

// ---- Plans (docs/api.md, "Authentication and plans") ----

/// History (the endpoint, and Get Area's include=history) needs this plan.
pub const HISTORY_PLAN: Plan = Plan::Growth;
/// The whole-dataset export needs this plan: the bulk data is what the
/// higher plans pay for.
pub const EXPORT_PLAN: Plan = Plan::Growth;

// ---- Export Areas: GET /v1/areas/export (docs/api.md, "Export Areas") ----

pub const EXPORT_PARAMS: [&str; 2] = ["province", "format"];
/// The export's parameters at `/v1/areas/export.geojson`, as `LIST_GEOJSON_PARAMS`.
pub const EXPORT_GEOJSON_PARAMS: [&str; 3] = at_geojson_path(EXPORT_PARAMS);

/// An endpoint's parameters `all` (`format` last) at its GeoJSON path: all
/// but `format`, then `GEOJSON_PARAMS`. `M` is one more than `N`.
const fn at_geojson_path<const N: usize, const M: usize>(
    all: [&'static str; N],
) -> [&'static str; M] {
    assert!(M == N - 1 + GEOJSON_PARAMS.len());
    let mut out = [""; M];
    let mut i = 0;
    while i < N - 1 {
        out[i] = all[i];
        i += 1;
    }
    let mut j = 0;
    while j < GEOJSON_PARAMS.len() {
        out[N - 1 + j] = GEOJSON_PARAMS[j];
        j += 1;
    }
    out
}
/// The export's representations, JSON first (the default), each other at a
/// path of its own as List's are (`/v1/areas/export.ndjson`).
pub const EXPORT_FORMATS: [Format; 4] =
    [Format::Json, Format::NdJson, Format::Csv, Format::GeoJson];

// ---- Area statistics: GET /v1/areas/stats (docs/api.md, "Area statistics") ----

/// The same at `/v1/areas/stats.csv`, which sets its format by its path alone.
pub const STATS_PARAMS: [&str; 5] = ["group_by", "measures", "province", "limit", "offset"];
pub const GROUP_BYS: [(&str, GroupBy); 2] = [
    ("province", GroupBy::Province),
    ("municipality", GroupBy::Municipality),
];
/// The measures when `measures` is not given: the truth_score alone.
pub const MEASURES_DEFAULT: &str = MEASURES[0];
/// Municipality groups come in pages; an operator may import 50,000 wards.
pub const STATS_LIMIT_MIN: i64 = 1;
pub const STATS_LIMIT_MAX: i64 = 1000;
pub const STATS_LIMIT_DEFAULT: i64 = 100;
pub const STATS_FORMATS: [Format; 2] = [Format::Json, Format::Csv];

// ---- Compare Areas: GET /v1/areas/compare (docs/api.md, "Compare Areas") ----

/// `include` takes `rank` alone here (`COMPARE_INCLUDES`).
pub const COMPARE_PARAMS: [&str; 3] = ["ids", "dimensions", "include"];
pub const COMPARE_INCLUDES: [&str; 1] = [INCLUDE_RANK];
pub const COMPARE_IDS_MIN: usize = 2;
pub const COMPARE_IDS_MAX: usize = 5;

// ---- Get Area History: GET /v1/areas/{area_id}/history (docs/api.md, "Get Area History") ----

pub const HISTORY_PARAMS: [&str; 2] = ["period", "granularity"];
/// Each period's word and its length in days. The longest is the year a
/// dataset packs for each area when it is written (data/recent_history.rs).
pub const PERIODS: [(&str, i64); 4] = [("7d", 7), ("30d", 30), ("90d", 90), ("1y", KEPT_DAYS)];
/// 30 days: also the history that Get Area's include=history returns.
pub const PERIOD_DEFAULT: (&str, i64) = PERIODS[1];
pub const GRANULARITIES: [(&str, Granularity); 3] = [
    ("daily", Granularity::Daily),
    ("weekly", Granularity::Weekly),
    ("monthly", Granularity::Monthly),
];
pub const GRANULARITY_DEFAULT: Granularity = Granularity::Daily;

/// The parameters an endpoint of parameters `all` takes at one of its paths:
/// all of them at the JSON path, all but `format` at a format's own path
/// (`path_format`), which sets the format itself, and at the GeoJSON path
/// `geojson`: those and `GEOJSON_PARAMS`.
pub fn params_at(
    (all, geojson): (&'static [&'static str], &'static [&'static str]),
    path_format: Option<Format>,
) -> &'static [&'static str] {
    match path_format {
        None => all,
        Some(Format::GeoJson) => geojson,
        Some(_) => &all[..all.len() - 1],
    }
}

/// List's parameters and those of its GeoJSON path, for `params_at`.
pub const LIST_PATHS: (&[&str], &[&str]) = (&LIST_PARAMS, &LIST_GEOJSON_PARAMS);
pub const SEARCH_PATHS: (&[&str], &[&str]) = (&SEARCH_PARAMS, &SEARCH_GEOJSON_PARAMS);
pub const EXPORT_PATHS: (&[&str], &[&str]) = (&EXPORT_PARAMS, &EXPORT_GEOJSON_PARAMS);

/// The formats of `offered` that have a path of their own: all but JSON,
/// whose path is the endpoint's.
pub fn format_paths(offered: &[Format]) -> impl Iterator<Item = Format> + '_ {
    offered.iter().copied().filter(|f| *f != Format::Json)
}

/// The word of `value` in a table of words, for messages and for the
/// document's defaults.
pub fn word_of<T: PartialEq>(choices: &[(&'static str, T)], value: T) -> &'static str {
    choices
        .iter()
        .find(|(_, v)| *v == value)
        .map(|(word, _)| *word)
        .expect("every value of a contract table has a word")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_format_path_takes_every_parameter_but_format() {
        for paths in [LIST_PATHS, SEARCH_PATHS, EXPORT_PATHS] {
            let all = paths.0;
            assert_eq!(params_at(paths, None), all);
            let at_path = params_at(paths, Some(Format::Csv));
            assert_eq!(at_path, &all[..all.len() - 1]);
            assert_eq!(all.last(), Some(&"format"), "{all:?}");
            assert!(!at_path.contains(&"format"), "{all:?}");
        }
    }

    #[test]
    fn a_geojson_path_takes_the_others_and_the_geometry() {
        for paths in [LIST_PATHS, SEARCH_PATHS, EXPORT_PATHS] {
            let others = params_at(paths, Some(Format::Csv));
            let geojson = params_at(paths, Some(Format::GeoJson));
            assert_eq!(geojson, [others, &GEOJSON_PARAMS].concat(), "{others:?}");
        }
    }
}
