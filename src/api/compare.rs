//! Compare Areas (`GET /v1/areas/compare`): 2 to 5 areas side by side, and the
//! winner overall and per dimension. A winner has the highest score; among
//! areas that share it the lowest id wins, whatever the order of `ids`, and
//! `ties` names them all in the order of `ids`.

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
    pub ties: Ties,
}

/// The areas that share each winning score, in the order of `ids`: the
/// winner alone where nothing ties.
#[derive(Debug, Serialize)]
pub struct Ties {
    pub overall: Vec<String>,
    pub by_dimension: DimensionMap<Vec<String>>,
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
    let overall = best(areas.iter().map(|a| Some(a.truth_score)), &areas).expect("2 or more areas");
    let by_dimension: Vec<(&'static str, Best)> = wanted
        .iter()
        .filter_map(|dim| {
            let scores = areas.iter().map(|a| {
                a.dimensions
                    .0
                    .iter()
                    .find(|(n, _)| n == dim)
                    .map(|(_, s)| *s)
            });
            best(scores, &areas).map(|b| (*dim, b))
        })
        .collect();
    let winner = Winner {
        overall: overall.winner.clone(),
        by_dimension: DimensionMap(
            by_dimension
                .iter()
                .map(|(dim, b)| (*dim, b.winner.clone()))
                .collect(),
        ),
        ties: Ties {
            overall: overall.tied,
            by_dimension: DimensionMap(
                by_dimension
                    .into_iter()
                    .map(|(dim, b)| (dim, b.tied))
                    .collect(),
            ),
        },
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

/// The winner of one score and the areas that share it.
struct Best {
    winner: String,
    tied: Vec<String>,
}

/// The areas of the highest score, in the order given, and the lowest id
/// among them, which wins. Areas without the score take no part; None when
/// none has it.
fn best(scores: impl Iterator<Item = Option<f64>>, areas: &[ComparedArea]) -> Option<Best> {
    let scores: Vec<Option<f64>> = scores.collect();
    let top = scores.iter().flatten().copied().reduce(f64::max)?;
    let tied: Vec<String> = scores
        .iter()
        .zip(areas)
        .filter(|(s, _)| **s == Some(top))
        .map(|(_, a)| a.id.clone())
        .collect();
    let winner = tied
        .iter()
        .min()
        .expect("the top score is an area's")
        .clone();
    Some(Best { winner, tied })
}
