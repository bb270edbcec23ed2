//! An area's standing (`include=rank` on Get Area, Compare and the area at a
//! point): for the truth_score and each dimension it has, its position, the
//! areas that have the measure, and its percentile rank, nationally and in
//! its province, from the dataset's score counts (data/stats/standings.rs).

use rusqlite::Connection;
use serde::Serialize;

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
/// when None), in `MEASURES` order.
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
    let province = held
        .first()
        .and_then(|(_, _, slug)| slug.as_deref())
        .and_then(Scope::province);
    let mut out = Vec::new();
    for (m, name) in MEASURES.iter().enumerate() {
        if wanted.is_some_and(|w| !w.contains(name)) {
            continue;
        }
        let Some((_, score, _)) = held.iter().find(|(n, ..)| n == name) else {
            continue;
        };
        let score = hundredths(*score);
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
