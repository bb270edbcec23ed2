//! Each endpoint's query parameters, parsed into typed values or refused with 400.
//!
//! Parse, don't validate: once a handler holds a `ListParams` or `SearchParams`,
//! every bound in the spec and the README has already been checked.

use crate::api::query::{self, Bounds, Query};
use crate::domain::{DIMENSIONS, Order, PROVINCES, Sort};
use crate::error::ApiError;
use crate::search::bbox::BBox;
use crate::search::geo::Circle;

#[derive(Debug, PartialEq)]
pub struct ListParams {
    pub province: Option<&'static str>,
    pub limit: i64,
    pub offset: i64,
    pub sort: Sort,
    pub order: Order,
}

pub fn list(mut q: Query) -> Result<ListParams, ApiError> {
    let province = match q.take("province") {
        None => None,
        Some(v) => Some(query::one_of(
            "province",
            &v,
            &PROVINCES.map(|(slug, _)| (slug, slug)),
        )?),
    };
    let limit = q
        .take("limit")
        .map(|v| query::integer("limit", &v, 1, 100))
        .transpose()?;
    let offset = q
        .take("offset")
        .map(|v| query::integer("offset", &v, 0, i64::MAX))
        .transpose()?;
    let sorts = [
        ("name", Sort::Name),
        ("truth_score", Sort::TruthScore),
        ("updated_at", Sort::UpdatedAt),
    ];
    let sort = q
        .take("sort")
        .map(|v| query::one_of("sort", &v, &sorts))
        .transpose()?;
    let orders = [("asc", Order::Asc), ("desc", Order::Desc)];
    let order = q
        .take("order")
        .map(|v| query::one_of("order", &v, &orders))
        .transpose()?;
    q.finish(&["province", "limit", "offset", "sort", "order"])?;
    Ok(ListParams {
        province,
        limit: limit.unwrap_or(20),
        offset: offset.unwrap_or(0),
        sort: sort.unwrap_or(Sort::Name),
        order: order.unwrap_or(Order::Asc),
    })
}

#[derive(Debug, PartialEq, Default)]
pub struct AreaParams {
    pub history: bool,
    pub nearby: bool,
}

pub fn area(mut q: Query) -> Result<AreaParams, ApiError> {
    let include = q.take("include");
    q.finish(&["include"])?;
    let mut params = AreaParams::default();
    if let Some(value) = include {
        for item in query::list("include", &value)? {
            match item {
                "history" => params.history = true,
                "nearby" => params.nearby = true,
                other => {
                    return Err(ApiError::invalid(
                        "include",
                        format!("include may list history and nearby, not '{other}'"),
                    ));
                }
            }
        }
    }
    Ok(params)
}

#[derive(Debug, PartialEq)]
pub struct SearchParams {
    /// The words of q, each at least one letter or digit long.
    pub words: Vec<String>,
    pub circle: Option<Circle>,
    pub min_score: Option<f64>,
    /// A map viewport the areas must lie in.
    pub bbox: Option<BBox>,
    pub limit: i64,
    pub offset: i64,
}

pub fn search(mut q: Query) -> Result<SearchParams, ApiError> {
    let text = q.take("q");
    let lat = q.take("lat");
    let lng = q.take("lng");
    let radius = q.take("radius");
    let min_score = q.take("min_score");
    let limit = q.take("limit");
    q.finish(&["q", "lat", "lng", "radius", "min_score", "limit"])?;

    let words = match &text {
        None => Vec::new(),
        Some(t) => search_words(t)?,
    };
    let circle = match (lat, lng) {
        (Some(lat), Some(lng)) => Some(Circle {
            lat: query::number(
                "lat",
                &lat,
                Bounds {
                    min: -90.0,
                    min_exclusive: false,
                    max: 90.0,
                },
            )?,
            lng: query::number(
                "lng",
                &lng,
                Bounds {
                    min: -180.0,
                    min_exclusive: false,
                    max: 180.0,
                },
            )?,
            radius_km: match radius {
                None => 10.0,
                Some(r) => query::number(
                    "radius",
                    &r,
                    Bounds {
                        min: 0.0,
                        min_exclusive: true,
                        max: 50.0,
                    },
                )?,
            },
        }),
        (Some(_), None) => {
            return Err(ApiError::invalid(
                "lng",
                "lat and lng must be given together",
            ));
        }
        (None, Some(_)) => {
            return Err(ApiError::invalid(
                "lat",
                "lat and lng must be given together",
            ));
        }
        (None, None) if radius.is_some() => {
            return Err(ApiError::invalid("radius", "radius needs lat and lng"));
        }
        (None, None) => None,
    };
    let min_score = min_score
        .map(|v| {
            query::number(
                "min_score",
                &v,
                Bounds {
                    min: 0.0,
                    min_exclusive: false,
                    max: 10.0,
                },
            )
        })
        .transpose()?;
    let limit = limit
        .map(|v| query::integer("limit", &v, 1, 50))
        .transpose()?
        .unwrap_or(10);
    if text.is_none() && circle.is_none() && min_score.is_none() {
        return Err(ApiError::invalid(
            "q",
            "give at least one of q, lat and lng, or min_score",
        ));
    }
    Ok(SearchParams {
        words,
        circle,
        min_score,
        bbox: None,
        limit,
        offset: 0,
    })
}

/// Splits q into the words the full-text index matches: runs of letters, digits
/// and combining marks. Everything else separates words, so no character of q
/// can reach the index as query syntax.
fn search_words(text: &str) -> Result<Vec<String>, ApiError> {
    let chars = text.chars().count();
    if !(1..=200).contains(&chars) {
        return Err(ApiError::invalid("q", "q must be 1 to 200 characters long"));
    }
    let is_word_char = |c: char| c.is_alphanumeric() || ('\u{300}'..='\u{36f}').contains(&c);
    let words: Vec<String> = text
        .split(|c: char| !is_word_char(c))
        .filter(|w| w.chars().any(char::is_alphanumeric))
        .map(str::to_string)
        .collect();
    if words.is_empty() {
        return Err(ApiError::invalid(
            "q",
            "q must contain at least one letter or digit",
        ));
    }
    Ok(words)
}

#[derive(Debug, PartialEq)]
pub struct CompareParams {
    pub ids: Vec<String>,
    /// The dimensions to compare, in the order given; None means all of them.
    pub dimensions: Option<Vec<&'static str>>,
}

pub fn compare(mut q: Query) -> Result<CompareParams, ApiError> {
    let ids = q.take("ids");
    let dimensions = q.take("dimensions");
    q.finish(&["ids", "dimensions"])?;
    let ids = ids.ok_or_else(|| {
        ApiError::invalid("ids", "ids is required: 2 to 5 comma-separated area ids")
    })?;
    let ids = query::list("ids", &ids)?;
    if !(2..=5).contains(&ids.len()) {
        return Err(ApiError::invalid(
            "ids",
            "ids must list 2 to 5 distinct area ids",
        ));
    }
    let dimensions = match dimensions {
        None => None,
        Some(v) => Some(
            query::list("dimensions", &v)?
                .into_iter()
                .map(|d| {
                    DIMENSIONS
                        .iter()
                        .copied()
                        .find(|known| *known == d)
                        .ok_or_else(|| {
                            ApiError::invalid(
                                "dimensions",
                                format!(
                                    "unknown dimension '{d}': known are {}",
                                    DIMENSIONS.join(", ")
                                ),
                            )
                        })
                })
                .collect::<Result<Vec<_>, _>>()?,
        ),
    };
    Ok(CompareParams {
        ids: ids.into_iter().map(str::to_string).collect(),
        dimensions,
    })
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Granularity {
    Daily,
    Weekly,
    Monthly,
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct HistoryParams {
    /// The period's label as given (7d, 30d, 90d, 1y) and its length in days.
    pub period: (&'static str, i64),
    pub granularity: Granularity,
}

pub const DEFAULT_HISTORY: HistoryParams = HistoryParams {
    period: ("30d", 30),
    granularity: Granularity::Daily,
};

pub fn history(mut q: Query) -> Result<HistoryParams, ApiError> {
    let period = q.take("period");
    let granularity = q.take("granularity");
    q.finish(&["period", "granularity"])?;
    let periods = [("7d", 7), ("30d", 30), ("90d", 90), ("1y", 365)];
    let granularities = [
        ("daily", Granularity::Daily),
        ("weekly", Granularity::Weekly),
        ("monthly", Granularity::Monthly),
    ];
    let period = match period {
        None => DEFAULT_HISTORY.period,
        Some(v) => {
            let days = query::one_of("period", &v, &periods)?;
            *periods
                .iter()
                .find(|(_, d)| *d == days)
                .expect("found above")
        }
    };
    let granularity = granularity
        .map(|v| query::one_of("granularity", &v, &granularities))
        .transpose()?
        .unwrap_or(Granularity::Daily);
    Ok(HistoryParams {
        period,
        granularity,
    })
}

/// Endpoints that take no parameters still refuse unknown ones.
pub fn none(q: Query) -> Result<(), ApiError> {
    q.finish(&[])
}
