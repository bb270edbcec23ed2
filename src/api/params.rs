//! Each endpoint's query parameters, parsed into typed values or refused with 400.
//!
//! Parse, don't validate: once a handler holds a `ListParams` or `SearchParams`,
//! every bound in the README has already been checked. The names, bounds,
//! defaults and words come from `contract`; each parser takes exactly its
//! endpoint's list of names there, so what it accepts is what the OpenAPI
//! document is checked to describe.

use crate::api::contract::*;
use crate::api::query::{self, Query};
use crate::error::ApiError;
use crate::search::bbox::BBox;
use crate::search::geo::Circle;

pub use crate::domain::Granularity;

#[derive(Debug, PartialEq)]
pub struct ListParams {
    pub province: Option<&'static str>,
    pub limit: i64,
    pub offset: i64,
    pub sort: Sort,
    pub order: Order,
}

pub fn list(mut q: Query) -> Result<ListParams, ApiError> {
    let [province, limit, offset, sort, order] = LIST_PARAMS.map(|name| q.take(name));
    let slugs = PROVINCES.map(|(slug, _)| (slug, slug));
    let province = province
        .map(|v| query::one_of("province", &v, &slugs))
        .transpose()?;
    let limit = limit
        .map(|v| query::integer("limit", &v, LIST_LIMIT_MIN, LIST_LIMIT_MAX))
        .transpose()?;
    let offset = offset
        .map(|v| query::integer("offset", &v, OFFSET_MIN, OFFSET_MAX))
        .transpose()?;
    let sort = sort
        .map(|v| query::one_of("sort", &v, &SORTS))
        .transpose()?;
    let order = order
        .map(|v| query::one_of("order", &v, &ORDERS))
        .transpose()?;
    q.finish(&LIST_PARAMS)?;
    Ok(ListParams {
        province,
        limit: limit.unwrap_or(LIST_LIMIT_DEFAULT),
        offset: offset.unwrap_or(OFFSET_DEFAULT),
        sort: sort.unwrap_or(SORT_DEFAULT),
        order: order.unwrap_or(ORDER_DEFAULT),
    })
}

#[derive(Debug, PartialEq, Default)]
pub struct AreaParams {
    pub history: bool,
    pub nearby: bool,
}

pub fn area(mut q: Query) -> Result<AreaParams, ApiError> {
    let [include] = AREA_PARAMS.map(|name| q.take(name));
    q.finish(&AREA_PARAMS)?;
    let mut params = AreaParams::default();
    if let Some(value) = include {
        for item in query::list("include", &value)? {
            match item {
                INCLUDE_HISTORY => params.history = true,
                INCLUDE_NEARBY => params.nearby = true,
                other => {
                    return Err(ApiError::invalid(
                        "include",
                        format!("include may list {}, not '{other}'", INCLUDES.join(" and ")),
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
    let [text, lat, lng, radius, min_score, limit] = SEARCH_PARAMS.map(|name| q.take(name));
    q.finish(&SEARCH_PARAMS)?;
    let words = match &text {
        None => Vec::new(),
        Some(t) => search_words(t)?,
    };
    let circle = search_circle(lat, lng, radius)?;
    let min_score = min_score
        .map(|v| query::number("min_score", &v, MIN_SCORE))
        .transpose()?;
    let limit = limit
        .map(|v| query::integer("limit", &v, SEARCH_LIMIT_MIN, SEARCH_LIMIT_MAX))
        .transpose()?
        .unwrap_or(SEARCH_LIMIT_DEFAULT);
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

/// The circle of a geo search: lat and lng come together, radius only with them.
fn search_circle(
    lat: Option<String>,
    lng: Option<String>,
    radius: Option<String>,
) -> Result<Option<Circle>, ApiError> {
    const TOGETHER: &str = "lat and lng must be given together";
    match (lat, lng) {
        (Some(lat), Some(lng)) => Ok(Some(Circle {
            lat: query::number("lat", &lat, LAT)?,
            lng: query::number("lng", &lng, LNG)?,
            radius_km: radius
                .map(|r| query::number("radius", &r, RADIUS_KM))
                .transpose()?
                .unwrap_or(RADIUS_KM_DEFAULT),
        })),
        (Some(_), None) => Err(ApiError::invalid("lng", TOGETHER)),
        (None, Some(_)) => Err(ApiError::invalid("lat", TOGETHER)),
        (None, None) if radius.is_some() => {
            Err(ApiError::invalid("radius", "radius needs lat and lng"))
        }
        (None, None) => Ok(None),
    }
}

/// Splits q into the words the full-text index matches: runs of letters, digits
/// and combining marks. Everything else separates words, so no character of q
/// can reach the index as query syntax.
fn search_words(text: &str) -> Result<Vec<String>, ApiError> {
    let chars = text.chars().count();
    if !(Q_CHARS_MIN..=Q_CHARS_MAX).contains(&chars) {
        return Err(ApiError::invalid(
            "q",
            format!("q must be {Q_CHARS_MIN} to {Q_CHARS_MAX} characters long"),
        ));
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
    let [ids, dimensions] = COMPARE_PARAMS.map(|name| q.take(name));
    q.finish(&COMPARE_PARAMS)?;
    let ids = ids.ok_or_else(|| {
        ApiError::invalid(
            "ids",
            format!(
                "ids is required: {COMPARE_IDS_MIN} to {COMPARE_IDS_MAX} comma-separated area ids"
            ),
        )
    })?;
    let ids = query::list("ids", &ids)?;
    if !(COMPARE_IDS_MIN..=COMPARE_IDS_MAX).contains(&ids.len()) {
        return Err(ApiError::invalid(
            "ids",
            format!("ids must list {COMPARE_IDS_MIN} to {COMPARE_IDS_MAX} distinct area ids"),
        ));
    }
    Ok(CompareParams {
        ids: ids.into_iter().map(str::to_string).collect(),
        dimensions: dimensions.map(|v| dimension_list(&v)).transpose()?,
    })
}

/// The dimensions named in `value`, in the order given, each a known one.
fn dimension_list(value: &str) -> Result<Vec<&'static str>, ApiError> {
    query::list("dimensions", value)?
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
        .collect()
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct HistoryParams {
    /// The period's word as given (one of `PERIODS`) and its length in days.
    pub period: (&'static str, i64),
    pub granularity: Granularity,
}

pub const DEFAULT_HISTORY: HistoryParams = HistoryParams {
    period: PERIOD_DEFAULT,
    granularity: GRANULARITY_DEFAULT,
};

pub fn history(mut q: Query) -> Result<HistoryParams, ApiError> {
    let [period, granularity] = HISTORY_PARAMS.map(|name| q.take(name));
    q.finish(&HISTORY_PARAMS)?;
    let period = period
        .map(|v| query::one_of("period", &v, &PERIODS.map(|p| (p.0, p))))
        .transpose()?
        .unwrap_or(DEFAULT_HISTORY.period);
    let granularity = granularity
        .map(|v| query::one_of("granularity", &v, &GRANULARITIES))
        .transpose()?
        .unwrap_or(DEFAULT_HISTORY.granularity);
    Ok(HistoryParams {
        period,
        granularity,
    })
}

/// Endpoints that take no parameters still refuse unknown ones.
pub fn none(q: Query) -> Result<(), ApiError> {
    q.finish(&[])
}
