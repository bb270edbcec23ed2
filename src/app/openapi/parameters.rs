//! Each operation's query parameters, in the order the route table lists
//! them (`Route::params`), with their bounds, defaults and words from
//! `api::contract`; and the path and header parameters operations share.

use serde_json::{Value, json};

use super::{number, patterns, reference};
use crate::api::contract::*;
use crate::api::query::Bounds;
use crate::api::router::Route;

const NUMBER_NOTE: &str = " Written as JSON writes numbers (-33.9249, 5, 1e-05, 2.5E1), also with a bare point (.5, 2.); a leading '+', nan and inf are 400.";
const INTEGER_NOTE: &str = " Plain decimal digits with an optional leading '-'.";

/// The query parameters of `route`, in its order.
pub fn of(route: &Route) -> Vec<Value> {
    let table = match route {
        Route::SearchAreas(_) => search(),
        Route::ExportAreas(_) => joined(
            json!({"province": province(false), "format": format(&EXPORT_FORMATS, "ndjson is one JSON object a line.")}),
            geometry(),
        ),
        Route::AreaAt => at(),
        Route::AreaStats(_) => stats(),
        Route::CompareAreas => joined(others(), json!({"include": compare_include()})),
        Route::ListAreas(_) => joined(joined(others(), geometry()), list_ids()),
        _ => joined(others(), geometry()),
    };
    let one = |name: &&str| {
        let [schema, description] = [0, 1].map(|i| table[*name][i].clone());
        assert!(
            schema.is_object(),
            "the document describes {name} of {route:?}"
        );
        // Compare cannot go without ids, nor the area at a point without its point.
        let required = (*name == "ids" && *route == Route::CompareAreas)
            || (*route == Route::AreaAt && *name != "radius" && *name != "include");
        let mut parameter = json!({"name": name, "in": "query", "required": required, "description": description, "schema": schema});
        if *name == "format" {
            parameter["deprecated"] = json!(true);
        }
        parameter
    };
    route.params().iter().map(one).collect()
}

/// The parameters of List Areas, Get Area, Compare Areas and Get Area
/// History: `[schema, description]` by name.
fn others() -> Value {
    let periods: Vec<&str> = PERIODS.iter().map(|(w, _)| *w).collect();
    let days: Vec<String> = PERIODS.iter().map(|(_, d)| d.to_string()).collect();
    let (last, days) = days.split_last().expect("periods");
    let mut reversed = INCLUDES;
    reversed.reverse();
    json!({
        "province": province(false),
        "limit": limit(LIST_LIMIT_MIN, LIST_LIMIT_MAX, LIST_LIMIT_DEFAULT, 50),
        "offset": offset(),
        "sort": words(&SORTS, SORT_DEFAULT, "Sort key."),
        "order": words(&ORDERS, ORDER_DEFAULT, "Sort direction."),
        "format": format(&LIST_FORMATS, "Every representation carries X-Total-Count and Link."),
        "include": [
            {"type": "string", "pattern": patterns::include(), "examples": [reversed.join(",")]},
            format!("Comma-separated extras, in any order, each at most once: {}. history needs the {} plan or above (else 403); boundary is the area's boundary as a GeoJSON Polygon or MultiPolygon, or null for an area without one; rank is its standing nationally and in its province (position, count, percentile rank) in the truth_score and each dimension it has.", INCLUDES.join(", "), HISTORY_PLAN.name()),
        ],
        "ids": [
            {"type": "string", "pattern": patterns::ids(), "examples": ["cape-town,stellenbosch"]},
            format!("{COMPARE_IDS_MIN} to {COMPARE_IDS_MAX} distinct area ids, comma-separated, taken as given (no empty item, no item twice; whitespace and case are not folded). Unknown ids answer 404 area_not_found naming every one of them."),
        ],
        "dimensions": [
            {"type": "string", "pattern": patterns::dimension_list(), "examples": ["safety,market"]},
            format!("Dimension names to compare, comma-separated, each at most once ({}); they limit both areas[].dimensions and winner.by_dimension. Default: all {}.", DIMENSIONS.join(", "), DIMENSIONS.len()),
        ],
        "period": [{"type": "string", "enum": periods, "default": PERIOD_DEFAULT.0}, format!("Window: the last {} or {last} days.", days.join(", "))],
        "granularity": words(&GRANULARITIES, GRANULARITY_DEFAULT, "daily points, or weekly / monthly means."),
    })
}

/// List's `ids`, which stands for its paging.
fn list_ids() -> Value {
    let refused = LIST_IDS_REFUSE.join(", ");
    json!({"ids": [
        {"type": "string", "pattern": patterns::list_ids(), "examples": ["cape-town,stellenbosch"]},
        format!("1 to {LIST_IDS_MAX} distinct area ids, comma-separated, taken as given (no empty item, no item twice: else 400): the areas answered in the order given, all on one page. Ids no area has (malformed ones too), and those province leaves out, are listed in missing (CSV: the X-Missing-Ids header), not refused. {refused} are 400 with ids; province still filters."),
    ]})
}

/// The members of `first`, then those of `then`.
fn joined(mut first: Value, then: Value) -> Value {
    if let (Some(a), Value::Object(b)) = (first.as_object_mut(), then) {
        a.extend(b);
    }
    first
}

/// The GeoJSON paths' own parameters.
fn geometry() -> Value {
    let tolerances: Vec<u32> = SIMPLIFY_TOLERANCES_M.to_vec();
    let mut geometry = words(
        &GEOMETRIES,
        GEOMETRY_DEFAULT,
        "Each feature's geometry: point, the area's centre; boundary, its boundary as a MultiPolygon (a Polygon as one part), or null for an area without one (RFC 7946, 3.2).",
    );
    // The example goes with simplify's, which needs it.
    geometry[0]["examples"] = json!([word_of(&GEOMETRIES, Geometry::Boundary)]);
    json!({
        "geometry": geometry,
        "simplify": [
            {"type": "integer", "enum": tolerances, "examples": [tolerances[1]]},
            format!("With geometry=boundary only (else 400): the boundary simplified with a tolerance of this many metres, each ring kept valid, as the dataset computed it when it was written. Each boundary is simplified alone, so neighbours may show slivers between them. Without it, the boundary in full."),
        ],
    })
}

/// Compare's `include`: rank alone.
fn compare_include() -> Value {
    json!([
        {"type": "string", "enum": COMPARE_INCLUDES},
        "rank: each area's standing nationally and in its province (its position, the count and its percentile rank) in the truth_score and each dimension compared that it has. Without it the answer is unchanged.",
    ])
}

/// Area statistics' parameters: `[schema, description]` by name.
fn stats() -> Value {
    let one = format!("(?:{})", MEASURES.join("|"));
    let mut group_by = words(
        &GROUP_BYS,
        GroupBy::Province,
        "Groups: every province (all nine, empty ones with count 0), or every municipality of a province (paged, keyed by name and province). Without it, every area is one group.",
    );
    group_by[0].as_object_mut().map(|s| s.remove("default"));
    let mut stats_offset = offset()[0].clone();
    if let Some(schema) = stats_offset.as_object_mut() {
        schema.remove("default");
    }
    json!({
        "group_by": group_by,
        "measures": [
            {"type": "string", "pattern": format!("^{one}(?:,{one}){{0,{}}}$", MEASURES.len() - 1), "default": MEASURES_DEFAULT, "examples": ["truth_score,safety"]},
            format!("Comma-separated measures, each at most once, in the order the answer gives them: {}. An unknown name is 400 naming the known ones.", MEASURES.join(", ")),
        ],
        "province": [province(false)[0].clone(), "Only the areas of this province (filter slug, as List Areas takes it)."],
        // No schema default: a generated client sends each default it is
        // given, and limit beside another grouping is refused.
        "limit": [{"type": "integer", "minimum": STATS_LIMIT_MIN, "maximum": STATS_LIMIT_MAX, "examples": [50]}, format!("With group_by=municipality only (else 400): groups a page, {STATS_LIMIT_MIN} to {STATS_LIMIT_MAX}, {STATS_LIMIT_DEFAULT} when not given.{INTEGER_NOTE}")],
        "offset": [stats_offset, format!("With group_by=municipality only (else 400): groups to skip, 0 when not given; past the end, an empty page.{INTEGER_NOTE}")],
    })
}

/// The area at a point's parameters: `[schema, description]` by name.
fn at() -> Value {
    let (lat, lng, radius) = (LAT, LNG, RADIUS_KM);
    let mut include = others()["include"].clone();
    include[1] = json!(format!(
        "As Get Area's: {}",
        include[1].as_str().unwrap_or_default()
    ));
    json!({
        "lat": bounded(lat, -26.1076, &format!("Latitude of the point in degrees, {} to {}.", lat.min, lat.max)),
        "lng": bounded(lng, 28.0567, &format!("Longitude of the point in degrees, {} to {}.", lng.min, lng.max)),
        "radius": bounded(radius, 5.0, &format!("How far, in km, the centre of an area without a boundary may be from the point: greater than {} and at most {}; {RADIUS_KM_DEFAULT} without it. Boundaries are judged first and take no radius.", radius.min, radius.max)),
        "include": include,
    })
}

/// Search Areas' parameters: `[schema, description]` by name.
fn search() -> Value {
    let (lat, lng, radius, score) = (LAT, LNG, RADIUS_KM, MIN_SCORE);
    json!({
        "q": [
            {"type": "string", "minLength": Q_CHARS_MIN, "maxLength": Q_CHARS_MAX, "pattern": patterns::alphanumeric(), "examples": ["cape town"]},
            format!("Text: {Q_CHARS_MIN} to {Q_CHARS_MAX} characters holding at least one letter or digit: a character with the Unicode Alphabetic or Numeric property (Rust's char::is_alphanumeric), which besides letters and digits takes in letter-like symbols such as \u{24b6} and combining vowel signs. Its words (runs of letters and digits) are matched as prefixes, all of them, over name, municipality and province, folding case and diacritics; by default also through an area's other names and with typos (see match). Any character may appear and is taken as text, never as query syntax."),
        ],
        "lat": bounded(lat, -33.9249, &format!("Latitude of the centre in degrees, {} to {}; needs lng.", lat.min, lat.max)),
        "lng": bounded(lng, 18.4241, &format!("Longitude of the centre in degrees, {} to {}; needs lat.", lng.min, lng.max)),
        "radius": bounded(radius, 5.0, &format!("Radius in km, greater than {} and at most {}; {RADIUS_KM_DEFAULT} when lat and lng are given without it. Needs lat and lng. An area is in when its haversine distance (Earth radius 6371.0088 km) is at most radius.", radius.min, radius.max)),
        "bbox": [
            {"type": "string", "pattern": patterns::bbox(), "examples": ["18.3,-34.2,18.7,-33.7"]},
            format!("A map viewport: minLng,minLat,maxLng,maxLat ({BBOX_NUMBERS} comma-separated numbers, GeoJSON's order, in degrees; longitudes {} to {}, latitudes {} to {}). An area is in when its centre lies in the box, edges included. minLng greater than maxLng is a box that crosses the antimeridian; minLat greater than maxLat, a value out of range, or other than exactly {BBOX_NUMBERS} numbers is 400 with param bbox. Each number is written as for lat and lng.", lng.min, lng.max, lat.min, lat.max),
        ],
        "min_score": bounded(score, 5.0, &format!("Minimum truth_score, {} to {}.", score.min, score.max)),
        "province": province(true),
        "limit": limit(SEARCH_LIMIT_MIN, SEARCH_LIMIT_MAX, SEARCH_LIMIT_DEFAULT, 5),
        "offset": offset(),
        "format": format(&LIST_FORMATS, "CSV and GeoJSON carry distance_km too when lat and lng are given; GeoJSON carries match too when q is given (CSV keeps its columns)."),
        "match": words(&MATCHINGS, MATCHING_DEFAULT, &forgiving()),
        "geometry": geometry()["geometry"],
        "simplify": geometry()["simplify"],
    })
}

fn province(search: bool) -> Value {
    let slugs: Vec<&str> = PROVINCES.iter().map(|(slug, _)| *slug).collect();
    let description = if search {
        "Only areas of this province: the filter slugs List Areas takes. Combines with every other criterion; any other value is 400 with param province."
    } else {
        "Only areas of this province (filter slug)."
    };
    json!([{"type": "string", "enum": slugs, "examples": ["western-cape"]}, description])
}

fn limit(min: i64, max: i64, default: i64, example: i64) -> Value {
    json!([{"type": "integer", "minimum": min, "maximum": max, "default": default, "examples": [example]}, format!("Page size, {min} to {max}.{INTEGER_NOTE}")])
}

fn offset() -> Value {
    json!([
        {"type": "integer", "minimum": OFFSET_MIN, "maximum": OFFSET_MAX, "default": OFFSET_DEFAULT, "examples": [20]},
        format!("Areas to skip, {OFFSET_MIN} or more; an offset past the end gives an empty page.{INTEGER_NOTE}"),
    ])
}

fn words<T: PartialEq + Copy>(table: &[(&'static str, T)], default: T, description: &str) -> Value {
    let all: Vec<&str> = table.iter().map(|(w, _)| *w).collect();
    json!([{"type": "string", "enum": all, "default": word_of(table, default)}, description])
}

/// `format=`, which only the JSON path of List, Search and Export takes:
/// kept for the clients written before each format had a path of its own,
/// and deprecated, since this operation's 200 describes JSON alone.
fn format(offered: &[Format], note: &str) -> Value {
    let names: Vec<&str> = offered.iter().map(|f| f.name()).collect();
    let each: Vec<String> = offered
        .iter()
        .map(|f| format!("{} ({})", f.name(), f.media_type()))
        .collect();
    json!([
        {"type": "string", "enum": names, "default": names[0], "examples": [names[0]]},
        format!("The representation: {}. Wins over Accept; without it, Accept chooses (an Accept naming none of them gets JSON). Deprecated: each format but JSON has a path of its own (this path with the format's extension, such as .csv), whose operation describes its answer; a format other than json answers here as there. {note}", each.join(", ")),
    ])
}

/// A number parameter of `bounds`: no schema `default`, since generated
/// clients send a default on every call (and radius without lat and lng is 400).
fn bounded(bounds: Bounds, example: f64, description: &str) -> Value {
    let lower = if bounds.min_exclusive {
        "exclusiveMinimum"
    } else {
        "minimum"
    };
    let mut schema = json!({"type": "number"});
    schema[lower] = number(bounds.min);
    schema["maximum"] = number(bounds.max);
    schema["examples"] = json!([number(example)]);
    json!([schema, format!("{description}{NUMBER_NOTE}")])
}

fn forgiving() -> String {
    format!(
        "How the words of q match. forgiving: after the areas every word matches exactly or as a prefix come, in tiers, those found through an other name (Get Area's other_names), then with one typo (a word of {TYPO_ONE_FROM} letters or more one edit away: a letter added, dropped, changed, or two neighbours swapped) or two words joined or one split (each part at least {SPLIT_PART_MIN} letters), then with two typos (a word of {TYPO_TWO_FROM} letters or more). An area's tier is that of its weakest word; every word but the last must match a whole word to count a typo, the last matches as a prefix. A word of under {TYPO_ONE_FROM} letters gets no typo of its own, and a q of more than {FORGIVING_WORDS_MAX} words matches exactly. exact: the first tier only. Each item of a search with q says how it matched (match). Other criteria bind every tier alike; without q, match changes nothing."
    )
}

/// The parameters operations share, by component name.
pub fn shared() -> Value {
    json!({
        "AreaId": {
            "name": "area_id",
            "in": "path",
            "required": true,
            "description": "The area's id (slug). Any other text answers 404 area_not_found.",
            "schema": {"type": "string", "minLength": 1, "description": "An area id such as cape-town.", "examples": ["cape-town"]},
        },
        "IfNoneMatch": {
            "name": "If-None-Match",
            "in": "header",
            "required": false,
            "description": "ETags from earlier answers (comma-separated, W/ prefixes ignored) or `*`: when one is current the answer is 304 with no body.",
            "schema": {"type": "string"},
        },
        "AcceptEncoding": {
            "name": "Accept-Encoding",
            "in": "header",
            "required": false,
            "description": "Content codings you take, with q-values (RFC 9110): gzip (or x-gzip) with q above 0, and not below identity's where identity is named, gets a gzip body once it is long enough (see Content-Encoding). Anything else, or none, gets the body as it is: never 406.",
            "schema": {"type": "string"},
        },
        "XRequestId": {
            "name": "X-Request-Id",
            "in": "header",
            "required": false,
            "description": "Your id for the request. Echoed back when it is 1 to 64 letters, digits, '-', '_' or '.'; otherwise ignored and a new id is made.",
            "schema": {"type": "string"},
        },
    })
}

/// The request headers every keyed operation takes.
pub fn request_headers() -> Vec<Value> {
    ["IfNoneMatch", "AcceptEncoding", "XRequestId"]
        .iter()
        .map(|n| reference("parameters", n))
        .collect()
}
