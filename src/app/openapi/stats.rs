//! The document's parts of the statistics and the standings: Area
//! statistics' schemas and 200s, and the `rank` member that include=rank
//! adds to an area (docs/api.md, "Area statistics").

use serde_json::{Map, Value, json};

use super::headers::{self, CACHE, COMMON, RATE};
use super::{number, reference};
use crate::api::contract::*;
use crate::api::stats::CSV_COLUMNS;

/// What every number of the statistics is, said once.
const HUNDREDTHS: &str = "In score points, computed exactly in hundredths and rounded half away from zero to 2 decimals; null when the group has no area with the measure.";

fn stat(description: &str) -> Value {
    let (min, max) = (number(MIN_SCORE.min), number(MIN_SCORE.max));
    json!({"type": ["number", "null"], "minimum": min, "maximum": max, "description": format!("{description} {HUNDREDTHS}")})
}

/// An object keyed by measure, each member `value`; only those asked for.
fn by_measure(value: Value, description: &str) -> Value {
    let properties: Map<String, Value> = MEASURES
        .iter()
        .map(|m| (m.to_string(), value.clone()))
        .collect();
    json!({"type": "object", "description": description, "properties": properties, "additionalProperties": false})
}

pub fn schemas() -> Value {
    let groupings: Vec<Value> = GROUP_BYS
        .iter()
        .map(|(w, _)| json!(w))
        .chain([Value::Null])
        .collect();
    let mut measure = Map::new();
    measure.insert("count".into(), json!({"type": "integer", "minimum": 0, "description": "The group's areas that have the measure (an area without a dimension is not counted for it)."}));
    measure.insert("mean".into(), stat("The mean."));
    measure.insert("min".into(), stat("The lowest score."));
    measure.insert("max".into(), stat("The highest score."));
    for (name, percent) in crate::data::stats::summary::QUANTILES {
        measure.insert(name.into(), stat(&format!("The {percent}th percentile by linear interpolation between the closest ranks (Hyndman and Fan's type 7, numpy's default).")));
    }
    let place = json!({"type": "object", "additionalProperties": false, "required": ["position", "of", "percentile"], "properties": {
        "position": {"type": "integer", "minimum": 1, "description": "1 + the number of areas of the scope with a higher score: tied areas share a position."},
        "of": {"type": "integer", "minimum": 1, "description": "The areas of the scope that have the measure."},
        "percentile": {"type": "number", "minimum": 0, "maximum": 100, "description": "The percentile rank 100 × (L + E/2) / N, to one decimal (half away from zero): L the areas with a lower score, E those with an equal one (the area itself included), N = of. 'In the Nth percentile', not 'better than N%'."},
    }});
    json!({
        "MeasureStats": {"type": "object", "additionalProperties": false, "required": measure.keys().collect::<Vec<_>>(), "properties": measure, "description": "One measure of one group."},
        "StatsGroup": {"type": "object", "additionalProperties": false, "required": ["group", "measures"], "properties": {
            "group": {"type": ["string", "null"], "description": "The province's slug (group_by=province), the municipality's name (group_by=municipality), or null when nothing groups."},
            "province": {"type": "string", "description": "group_by=municipality only: the municipality's province, by slug. Groups are keyed by both, since two provinces may hold municipalities of one name."},
            "measures": by_measure(reference("schemas", "MeasureStats"), "The measures asked for, in the order given."),
        }},
        "AreaStats": {"type": "object", "additionalProperties": false, "required": ["group_by", "data"], "properties": {
            "group_by": {"enum": groupings, "description": "The grouping asked for, or null."},
            "data": {"type": "array", "items": reference("schemas", "StatsGroup"), "description": "Groups in name order: one for every area (or the province given), every province by slug (empty ones with count 0), or a page of municipality groups by name, then province slug."},
            "total": {"type": "integer", "minimum": 0, "description": "group_by=municipality only: the municipality groups (of the province, if given)."},
            "limit": {"type": "integer", "minimum": STATS_LIMIT_MIN, "maximum": STATS_LIMIT_MAX, "description": "group_by=municipality only: page size in effect."},
            "offset": {"type": "integer", "minimum": OFFSET_MIN, "description": "group_by=municipality only: offset in effect."},
        }},
        "Standing": place,
        "MeasureRank": {"type": "object", "additionalProperties": false, "required": ["national", "province"], "properties": {
            "national": reference("schemas", "Standing"),
            "province": {"anyOf": [reference("schemas", "Standing"), {"type": "null"}], "description": "Among the areas of the area's province."},
        }},
    })
}

/// The `rank` member of an area with include=rank.
pub fn rank_member(which: &str) -> Value {
    by_measure(
        reference("schemas", "MeasureRank"),
        &format!(
            "Only with include=rank: the area's standing nationally and in its province, for the truth_score and each dimension {which}, in that order."
        ),
    )
}

/// The statistics' 200 in `format` (JSON or CSV), with the paging headers
/// a municipality grouping adds.
pub fn ok(format: Format) -> Value {
    let example = json!({"group_by": "province", "data": [{"group": "gauteng", "measures": {"truth_score": {"count": 62, "mean": 6.01, "min": 3.1, "max": 8.27, "p10": 4.4, "p25": 5.2, "p50": 6.0, "p75": 6.9, "p90": 7.5}}}]});
    let header = CSV_COLUMNS.join(",");
    let media = match format {
        Format::Csv => {
            json!({"schema": {"type": "string", "pattern": format!("^{header}\r\n"), "description": format!("RFC 4180 CSV in UTF-8 with CRLF line ends: a header row {header}, then one row per group and measure; an empty cell where JSON has null (province is empty but for municipality groups).")}, "example": format!("{header}\r\ngauteng,,truth_score,62,6.01,3.1,8.27,4.4,5.2,6,6.9,7.5\r\n")})
        }
        _ => json!({"schema": reference("schemas", "AreaStats"), "example": example}),
    };
    let names = [&COMMON[..], &CACHE[..], &["Content-Encoding"]].concat();
    let optional = [&RATE[..], &["Link", "X-Total-Count"]].concat();
    json!({
        "description": "The statistics (synthetic scores in the seed data). Link and X-Total-Count come with group_by=municipality, as List's.",
        "headers": headers::set(&names, &optional),
        "content": {format.media_type(): media},
    })
}
