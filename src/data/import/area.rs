//! One area of an import: the `Draft` a reader fills from a row, and `check`,
//! which applies every rule to it and, when all hold, gives the `Area` to write.
//!
//! Readers own presence and type (a missing column, a score that is not a
//! number); they report those themselves and leave the field `None`. `check`
//! owns the values and how they fit together: weights summing to 1,
//! truth_score, and a history that ends on truth_score.

use super::history::{self, DraftPoint};
use super::rules::{self, Invalid, keep};
use crate::data::boundary::Boundary;
use crate::domain::{dimension_position, round2};

/// How far the weights of an area may be from summing to 1.
pub const WEIGHT_SLACK: f64 = 0.01;

/// One row of an import file as a reader saw it: `draft` is None when the row
/// could not be read at all (bad JSON, a wrong number of CSV fields).
#[derive(Debug)]
pub struct Row {
    pub line: u64,
    pub draft: Option<Draft>,
    pub problems: Vec<String>,
}

/// Where a row's bytes lie in the file, for reading it again.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Span {
    pub start: u64,
    pub len: u64,
}

impl Span {
    /// For a row that is never read again (it could not be read at all).
    pub const NONE: Span = Span { start: 0, len: 0 };
}

#[derive(Debug, Default, Clone)]
pub struct Draft {
    pub id: Option<String>,
    pub name: Option<String>,
    pub province: Option<String>,
    pub municipality: Option<String>,
    /// Other names as the file gives them (CSV: `;`-separated; JSON Lines: an array).
    pub other_names: Vec<String>,
    pub lat: Option<f64>,
    pub lng: Option<f64>,
    pub updated_at: Option<String>,
    pub truth_score: Option<f64>,
    pub dimensions: Vec<DraftDimension>,
    pub history: Vec<DraftPoint>,
    /// The boundary, read and checked by the reader (data/boundary/); None
    /// when the row has none.
    pub boundary: Option<Boundary>,
}

#[derive(Debug, Clone)]
pub struct DraftDimension {
    pub name: String,
    pub score: Option<f64>,
    pub weight: Option<f64>,
    pub sources: Vec<String>,
}

/// An area that passed every rule, ready for `load::AreaWriter`.
#[derive(Debug, Clone, PartialEq)]
pub struct Area {
    pub id: String,
    pub name: String,
    pub province_slug: &'static str,
    pub province: &'static str,
    pub municipality: String,
    pub other_names: Vec<String>,
    pub lat: f64,
    pub lng: f64,
    pub truth_score: f64,
    pub updated_at: String,
    /// In the order of `domain::DIMENSIONS`.
    pub dimensions: Vec<Dimension>,
    /// One score per day from `first_day` to updated_at's date, the last equal to truth_score.
    pub history: Vec<f64>,
    pub first_day: i64,
    /// How many of the file's scores had more than 2 decimals and were rounded.
    pub rounded: usize,
    pub boundary: Option<Boundary>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Dimension {
    pub name: &'static str,
    pub score: f64,
    pub weight: f64,
    pub sources: Vec<String>,
}

/// Applies every rule to `d`. `now` is the Unix time of the import (the
/// default updated_at, and the limit on how far in the future a date may be).
pub fn check(d: &Draft, now: i64) -> Result<Area, Vec<String>> {
    let mut problems = Vec::new();
    let p = &mut problems;
    let id = d.id.as_deref().and_then(|v| keep(p, rules::slug(v)));
    let name = d
        .name
        .as_deref()
        .and_then(|v| keep(p, rules::text("name", v)));
    let province = d
        .province
        .as_deref()
        .and_then(|v| keep(p, rules::province(v)));
    let municipality = d
        .municipality
        .as_deref()
        .and_then(|v| keep(p, rules::text("municipality", v)));
    let other_names = keep(p, rules::other_names(&d.other_names, name.as_deref()));
    let lat = d
        .lat
        .and_then(|v| keep(p, rules::coordinate("lat", v, 90.0)));
    let lng = d
        .lng
        .and_then(|v| keep(p, rules::coordinate("lng", v, 180.0)));
    let centre = centre(d, lat, lng, p);
    let dimensions = keep_all(p, dimensions(&d.dimensions));
    let truth = dimensions
        .as_ref()
        .and_then(|dims| keep(p, truth_score(dims, d.truth_score)));
    // The points are checked whatever the dimensions hold; only the end needs truth_score.
    let points = keep_all(p, history::points(&d.history, d.updated_at.as_deref(), now));
    let history = match (points, truth) {
        (Some(points), Some(t)) => keep(p, history::end_on_truth(points, t)),
        _ => None,
    };
    let area = Some(()).and_then(|()| {
        let (province_slug, province) = province?;
        let (updated_at, first_day, history) = history?;
        Some(Area {
            id: id?,
            name: name?,
            province_slug,
            province,
            municipality: municipality?,
            other_names: other_names?,
            lat: centre?.0,
            lng: centre?.1,
            truth_score: truth?,
            updated_at,
            dimensions: dimensions?,
            history,
            first_day,
            rounded: rounded_scores(d),
            boundary: d.boundary.clone(),
        })
    });
    match area {
        Some(area) if problems.is_empty() => Ok(area),
        _ => Err(problems),
    }
}

/// The area's centre as (lat, lng). Without a boundary it is the row's
/// lat and lng, which the reader requires. With one, lat and lng may be
/// left out together, and the centre is then a point inside the boundary;
/// when given they must lie within `CENTRE_SLACK_KM` of it, which is how a
/// swapped pair or a centre of another place is caught. `lat` and `lng` are
/// the values that passed their range rule, `d`'s what the row gave.
fn centre(
    d: &Draft,
    lat: Option<f64>,
    lng: Option<f64>,
    problems: &mut Vec<String>,
) -> Option<(f64, f64)> {
    let Some(boundary) = &d.boundary else {
        return lat.zip(lng);
    };
    match (d.lat, d.lng) {
        (None, None) => Some(boundary.centre()),
        (Some(_), None) | (None, Some(_)) => {
            let (given, missing) = match d.lat {
                Some(_) => ("lat", "lng"),
                None => ("lng", "lat"),
            };
            problems.push(format!(
                "{given} is given without {missing}: give both, or neither to take a point inside the boundary"
            ));
            None
        }
        (Some(_), Some(_)) => {
            let (lat, lng) = lat.zip(lng)?;
            match boundary.check_centre(lat, lng) {
                Ok(()) => Some((lat, lng)),
                Err(e) => {
                    problems.push(e.to_string());
                    None
                }
            }
        }
    }
}

/// The dimensions, each with a known name, a score, a weight and sources;
/// their weights summing to 1 within `WEIGHT_SLACK`.
fn dimensions(drafts: &[DraftDimension]) -> Result<Vec<Dimension>, Vec<String>> {
    let mut problems = Vec::new();
    let mut out: Vec<Dimension> = Vec::new();
    for d in drafts {
        match one_dimension(d) {
            Ok(dim) if out.iter().any(|o| o.name == dim.name) => {
                problems.push(format!("dimension {} is given twice", dim.name))
            }
            Ok(dim) => out.push(dim),
            Err(e) => problems.extend(e),
        }
    }
    if drafts.is_empty() {
        problems.push("no dimensions: give at least one of safety, infrastructure, service_delivery, market, amenities, environment, sentiment".into());
    }
    problems.extend(weight_sum(drafts));
    if !problems.is_empty() {
        return Err(problems);
    }
    out.sort_by_key(|d| dimension_position(d.name));
    Ok(out)
}

/// The weights must sum to 1; checked whenever every weight is readable and
/// in range, whatever else is wrong, since a partial sum would blame the wrong thing.
fn weight_sum(drafts: &[DraftDimension]) -> Option<String> {
    let weights: Option<Vec<f64>> = drafts
        .iter()
        .map(|d| d.weight.filter(|w| rules::weight("", *w).is_ok()))
        .collect();
    let sum: f64 = weights?.iter().sum();
    (!drafts.is_empty() && (sum - 1.0).abs() > WEIGHT_SLACK + 1e-9).then(|| {
        format!(
            "the dimension weights sum to {}, not 1 (within {WEIGHT_SLACK})",
            round(sum, 6)
        )
    })
}

fn one_dimension(d: &DraftDimension) -> Result<Dimension, Vec<String>> {
    let name = rules::dimension(&d.name).map_err(|e| vec![e.to_string()])?;
    let mut problems = Vec::new();
    let p = &mut problems;
    let score = d
        .score
        .and_then(|v| keep(p, rules::score(&format!("{name} score"), v)));
    let weight = d
        .weight
        .and_then(|v| keep(p, rules::weight(&format!("{name} weight"), v)));
    let field = format!("{name} sources");
    let sources: Vec<String> = d
        .sources
        .iter()
        .filter_map(|s| keep(p, rules::source(&field, s)))
        .collect();
    if d.sources.is_empty() {
        problems.push(format!("{name} needs at least one source identifier"));
    }
    for (i, s) in d.sources.iter().enumerate() {
        if d.sources[..i].contains(s) {
            problems.push(format!("{name} names source '{s}' twice"));
        }
    }
    match (score, weight) {
        (Some(score), Some(weight)) if problems.is_empty() => Ok(Dimension {
            name,
            score,
            weight,
            sources,
        }),
        _ => Err(problems),
    }
}

/// truth_score: the weighted sum of the dimensions rounded to 2 decimals by
/// `round2`, the one rule of the API. A given truth_score is a check: it must
/// be that value.
fn truth_score(dims: &[Dimension], given: Option<f64>) -> Result<f64, Invalid> {
    // Summed in DIMENSIONS order, as the seed does, so equal inputs round alike.
    let exact: f64 = dims.iter().map(|d| d.score * d.weight).sum();
    let computed = round2(exact);
    if computed > 10.0 {
        return Err(Invalid::TruthAboveTen(computed));
    }
    match given {
        Some(given) if rules::score("truth_score", given)? != computed => {
            Err(Invalid::TruthNotSum {
                given,
                exact: round(exact, 4),
                computed,
            })
        }
        _ => Ok(computed),
    }
}

/// How many of the draft's scores (dimensions, history, truth_score) the
/// rules round, for the import's summary.
fn rounded_scores(d: &Draft) -> usize {
    let dimensions = d.dimensions.iter().map(|x| x.score);
    let history = d.history.iter().map(|p| p.score);
    dimensions
        .chain(history)
        .chain([d.truth_score])
        .flatten()
        .filter(|v| rules::needs_rounding(*v))
        .count()
}

fn keep_all<T>(problems: &mut Vec<String>, r: Result<T, Vec<String>>) -> Option<T> {
    r.map_err(|e| problems.extend(e)).ok()
}

/// How a weight sum or an unrounded weighted sum is shown in a message; the
/// values stored are rounded by `round2` alone.
fn round(x: f64, decimals: i32) -> f64 {
    let scale = 10f64.powi(decimals);
    (x * scale).round() / scale
}

#[cfg(test)]
#[path = "area_tests.rs"]
mod tests;
