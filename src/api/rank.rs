//! An area's standing (`include=rank` on Get Area, Compare and the area at a
//! point): for the truth_score and each dimension it has, its position, the
//! areas that have the measure, and its percentile rank, nationally and in
//! its province, from the dataset's score counts (data/stats/standings.rs).

use std::collections::BTreeMap;

use rusqlite::Connection;
use serde::{Deserialize, Serialize};

use super::DimensionMap;
use crate::data::stats::standings::{Scope, Standings};
use crate::data::stats::summary::hundredths;
use crate::domain::MEASURES;
use crate::error::{ApiError, ApiResult};

#[derive(Debug, Clone, Copy, Serialize, PartialEq)]
pub struct Place {
    /// 1 + the number of areas with a higher score.
    pub position: u64,
    /// The areas that have the measure.
    pub of: u64,
    /// 100 × (lower + equal / 2) / of, to one decimal.
    pub percentile: f64,
}

#[derive(Debug, Clone, Copy, Serialize, PartialEq)]
pub struct MeasureRank {
    pub national: Place,
    pub province: Option<Place>,
}

/// An area's scores with its province: the truth_score first.
const SCORES: &str = "
    SELECT 'truth_score', truth_score, province_slug FROM areas WHERE area_no = ?1
    UNION ALL
    SELECT dimension, score, NULL FROM area_dimensions WHERE area_no = ?1";

/// The standing of area `no` in each measure it has among `wanted` (all
/// when None), in `MEASURES` order, its scores read from the file.
pub fn of_area(
    conn: &Connection,
    standings: &Standings,
    no: i64,
    wanted: Option<&[&str]>,
) -> ApiResult<DimensionMap<MeasureRank>> {
    let mut stmt = conn.prepare_cached(SCORES)?;
    let held: Vec<(String, f64, Option<String>)> = stmt
        .query_map([no], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?
        .collect::<rusqlite::Result<_>>()?;
    let province = held.first().and_then(|(_, _, slug)| slug.as_deref());
    let scores: Vec<(&str, f64)> = held.iter().map(|(n, s, _)| (n.as_str(), *s)).collect();
    places(standings, no, (province, &scores), wanted)
}

/// The scores and province an area's stored detail form holds
/// (data/stored.rs, `AreaDetail`); the rest of the body is skipped.
#[derive(Deserialize)]
struct DetailScores {
    province_slug: String,
    truth_score: f64,
    dimensions: BTreeMap<String, DimensionScore>,
}

#[derive(Deserialize)]
struct DimensionScore {
    score: f64,
}

/// The standing of area `no` in every measure it has, its scores read from
/// its detail form `body`, which Get Area and the area at a point hold
/// already: reading the area's dimension rows again cost more than the rest
/// of the standing together at a million areas (bench/PROFILE.md).
pub fn of_detail(
    standings: &Standings,
    no: i64,
    body: &[u8],
) -> ApiResult<DimensionMap<MeasureRank>> {
    let detail: DetailScores = serde_json::from_slice(body).map_err(|e| {
        log::error!("the stored detail of area {no} cannot be read: {e}");
        ApiError::Internal
    })?;
    let scores: Vec<(&str, f64)> = std::iter::once(("truth_score", detail.truth_score))
        .chain(detail.dimensions.iter().map(|(n, d)| (n.as_str(), d.score)))
        .collect();
    places(standings, no, (Some(&detail.province_slug), &scores), None)
}

/// The places of the `scores` an area has (measure name and score), in its
/// province (a slug) and nationally, for the measures among `wanted`.
fn places(
    standings: &Standings,
    no: i64,
    (province, scores): (Option<&str>, &[(&str, f64)]),
    wanted: Option<&[&str]>,
) -> ApiResult<DimensionMap<MeasureRank>> {
    let province = province.and_then(Scope::province);
    let mut out = Vec::new();
    for (m, name) in MEASURES.iter().enumerate() {
        if wanted.is_some_and(|w| !w.contains(name)) {
            continue;
        }
        let Some(&(_, score)) = scores.iter().find(|(n, _)| n == name) else {
            continue;
        };
        let score = hundredths(score);
        let place = |scope| {
            standings.of(scope, m, score).map(|s| Place {
                position: s.position(),
                of: s.of,
                percentile: s.percentile_tenths() as f64 / 10.0,
            })
        };
        let national = place(Scope::Nation).ok_or_else(|| {
            log::error!("area {no}'s {name} is missing from the score counts");
            ApiError::Internal
        })?;
        out.push((
            *name,
            MeasureRank {
                national,
                province: province.and_then(place),
            },
        ));
    }
    Ok(DimensionMap(out))
}
