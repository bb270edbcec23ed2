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

/// Writes the standing as JSON, as serde would write it (the test below
/// holds the two together): Get Area and the area at a point append it to
/// the stored detail, and writing it by hand is a good part of its cost
/// saved (bench/PROFILE.md, "Scores in context").
pub fn write_json(out: &mut Vec<u8>, rank: &DimensionMap<MeasureRank>) {
    use std::io::Write;
    let place = |out: &mut Vec<u8>, p: &Place| {
        let tenths = (p.percentile * 10.0).round() as u64;
        // Writing to a Vec cannot fail.
        let _ = write!(
            out,
            "{{\"position\":{},\"of\":{},\"percentile\":{}.{}}}",
            p.position,
            p.of,
            tenths / 10,
            tenths % 10
        );
    };
    out.push(b'{');
    for (i, (name, m)) in rank.0.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        let _ = write!(out, "\"{name}\":{{\"national\":");
        place(out, &m.national);
        out.extend_from_slice(b",\"province\":");
        match &m.province {
            Some(p) => place(out, p),
            None => out.extend_from_slice(b"null"),
        }
        out.push(b'}');
    }
    out.push(b'}');
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_standing_is_written_as_serde_writes_it() {
        let place = |position, of, tenths: u64| Place {
            position,
            of,
            percentile: tenths as f64 / 10.0,
        };
        let rank = DimensionMap(vec![
            (
                "truth_score",
                MeasureRank {
                    national: place(1, 938, 999),
                    province: Some(place(62, 62, 5)),
                },
            ),
            (
                "safety",
                MeasureRank {
                    national: place(500, 1_000_000, 1000),
                    province: None,
                },
            ),
            (
                "market",
                MeasureRank {
                    national: place(3, 3, 0),
                    province: Some(place(1, 1, 500)),
                },
            ),
        ]);
        let mut hand = Vec::new();
        write_json(&mut hand, &rank);
        assert_eq!(
            String::from_utf8(hand).unwrap(),
            serde_json::to_string(&rank).unwrap()
        );
    }
}
