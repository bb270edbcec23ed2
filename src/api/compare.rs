//! Compare Areas (`GET /v1/areas/compare`): 2 to 5 areas side by side, and the
//! winner overall and per dimension. A winner has the highest score; a tie goes
//! to the area listed first in `ids`.

use rusqlite::{Connection, OptionalExtension};
use serde::Serialize;

use super::DimensionMap;
use crate::api::params::CompareParams;
use crate::api::rank::{self, MeasureRank};
use crate::data::dataset::Dataset;
use crate::domain::{DIMENSIONS, MEASURES};
use crate::error::{ApiError, ApiResult};

#[derive(Debug, Serialize)]
pub struct ComparedArea {
    pub id: String,
    pub name: String,
    pub truth_score: f64,
    pub dimensions: DimensionMap<f64>,
    /// With include=rank: the standing in the truth_score and the dimensions compared.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rank: Option<DimensionMap<MeasureRank>>,
}

#[derive(Debug, Serialize)]
pub struct Winner {
    pub overall: String,
    pub by_dimension: DimensionMap<String>,
}

#[derive(Debug, Serialize)]
pub struct Comparison {
    pub areas: Vec<ComparedArea>,
    pub winner: Winner,
}

const AREA: &str = "SELECT area_no, id, name, truth_score FROM areas WHERE id = ?1";
const SCORES: &str = "SELECT dimension, score FROM area_dimensions WHERE area_no = ?1";

pub fn compare(conn: &Connection, dataset: &Dataset, p: &CompareParams) -> ApiResult<Comparison> {
    let wanted: Vec<&'static str> = p.dimensions.clone().unwrap_or_else(|| DIMENSIONS.to_vec());
    let mut areas = Vec::new();
    let mut unknown = Vec::new();
    for id in &p.ids {
        let row = conn
            .prepare_cached(AREA)?
            .query_row([id], |r| {
                Ok((r.get::<_, i64>(0)?, r.get(1)?, r.get(2)?, r.get(3)?))
            })
            .optional()?;
        match row {
            None => unknown.push(id.clone()),
            Some((no, id, name, truth_score)) => {
                let dimensions = scores(conn, no, &wanted)?;
                let measures: Vec<&str> = std::iter::once(MEASURES[0])
                    .chain(wanted.iter().copied())
                    .collect();
                let rank = p
                    .rank
                    .then(|| rank::of_area(conn, &dataset.standings, no, Some(&measures)))
                    .transpose()?;
                areas.push(ComparedArea {
                    id,
                    name,
                    truth_score,
                    dimensions,
                    rank,
                });
            }
        }
    }
    if !unknown.is_empty() {
        return Err(ApiError::AreaNotFound { ids: unknown });
    }
    let winner = Winner {
        overall: best(areas.iter().map(|a| Some(a.truth_score)), &areas).expect("2 or more areas"),
        by_dimension: DimensionMap(
            wanted
                .iter()
                .filter_map(|dim| {
                    let scores = areas.iter().map(|a| {
                        a.dimensions
                            .0
                            .iter()
                            .find(|(n, _)| n == dim)
                            .map(|(_, s)| *s)
                    });
                    best(scores, &areas).map(|id| (*dim, id))
                })
                .collect(),
        ),
    };
    Ok(Comparison { areas, winner })
}

/// The scores of the wanted dimensions, in the order wanted.
fn scores(conn: &Connection, no: i64, wanted: &[&'static str]) -> ApiResult<DimensionMap<f64>> {
    let mut stmt = conn.prepare_cached(SCORES)?;
    let have = stmt
        .query_map([no], |r| Ok((r.get::<_, String>(0)?, r.get::<_, f64>(1)?)))?
        .collect::<Result<Vec<_>, _>>()?;
    Ok(DimensionMap(
        wanted
            .iter()
            .filter_map(|w| have.iter().find(|(n, _)| n == w).map(|(_, s)| (*w, *s)))
            .collect(),
    ))
}

/// The id of the highest score; the first listed wins a tie. Areas without the
/// score take no part; None when none has it.
fn best(scores: impl Iterator<Item = Option<f64>>, areas: &[ComparedArea]) -> Option<String> {
    let mut top: Option<(usize, f64)> = None;
    for (i, score) in scores.enumerate() {
        if let Some(s) = score
            && top.is_none_or(|(_, t)| s > t)
        {
            top = Some((i, s));
        }
    }
    top.map(|(i, _)| areas[i].id.clone())
}
