//! Each endpoint's query parameters, parsed into typed values or refused with 400.
//!
//! Parse, don't validate: once a handler holds a `ListParams` or `SearchParams`,
//! every bound in docs/api.md has already been checked. The names, bounds,
//! defaults and words come from `contract`; each parser takes exactly its
//! endpoint's list of names there, so what it accepts is what the OpenAPI
//! document is checked to describe.

use crate::api::contract::*;
use crate::api::query::{self, Query};
use crate::error::ApiError;

// Search's parameters are the most, so they have a file of their own;
// the statistics' are an endpoint apart.
mod search;
mod stats;

pub use crate::domain::Granularity;
pub use search::{SearchParams, search};
pub use stats::{StatsParams, stats};

#[derive(Debug, PartialEq)]
pub struct ListParams {
    pub province: Option<&'static str>,
    /// `ids=`: the areas asked for, in the order given, distinct; paging
    /// and sorting are then refused, and limit is their count.
    pub ids: Option<Vec<String>>,
    pub limit: i64,
    pub offset: i64,
    pub sort: Sort,
    pub order: Order,
    /// `format=`, which a format's own path never takes.
    pub format: Option<Format>,
    /// `geometry=` and `simplify=`, which only the GeoJSON path takes.
    pub geometry: FeatureGeometry,
}

/// Each GeoJSON feature's geometry: the centre, or the boundary, in full or
/// simplified at one of `SIMPLIFY_TOLERANCES_M`.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub enum FeatureGeometry {
    #[default]
    Point,
    Boundary {
        simplify_m: Option<u32>,
    },
}

/// `geometry=` and `simplify=`; simplify alone is refused, since a Point has
/// nothing to simplify.
pub fn geometry_params(
    geometry: Option<String>,
    simplify: Option<String>,
) -> Result<FeatureGeometry, ApiError> {
    let geometry = geometry
        .map(|v| query::one_of("geometry", &v, &GEOMETRIES))
        .transpose()?
        .unwrap_or(GEOMETRY_DEFAULT);
    let tolerances: Vec<String> = SIMPLIFY_TOLERANCES_M.iter().map(u32::to_string).collect();
    let simplify_m = simplify
        .map(|v| {
            SIMPLIFY_TOLERANCES_M
                .iter()
                .copied()
                .find(|t| t.to_string() == v)
                .ok_or_else(|| {
                    let words: Vec<&str> = tolerances.iter().map(String::as_str).collect();
                    ApiError::not_one_of(
                        "simplify",
                        format!(
                            "simplify must be one of {} (metres), not '{v}'",
                            words.join(", ")
                        ),
                        &words,
                    )
                })
        })
        .transpose()?;
    match (geometry, simplify_m) {
        (Geometry::Boundary, simplify_m) => Ok(FeatureGeometry::Boundary { simplify_m }),
        (Geometry::Point, None) => Ok(FeatureGeometry::Point),
        (Geometry::Point, Some(_)) => Err(ApiError::invalid(
            "simplify",
            "simplify applies to boundaries: give it with geometry=boundary",
        )),
    }
}

/// List's parameters at its JSON path (`path_format` None) or at a format's
/// own path, where `format=` is an unknown parameter like any other.
pub fn list(mut q: Query, path_format: Option<Format>) -> Result<ListParams, ApiError> {
    let known = params_at(LIST_PATHS, path_format);
    let [province, limit, offset, sort, order, ids, format] =
        LIST_PARAMS.map(|name| take(&mut q, name, known));
    let [geometry, simplify] = GEOJSON_PARAMS.map(|name| take(&mut q, name, known));
    let province = province_param(province)?;
    let ids = ids.map(|v| id_list(&v)).transpose()?;
    if ids.is_some() {
        let paging = [&limit, &offset, &sort, &order];
        if let Some((name, _)) = LIST_IDS_REFUSE
            .iter()
            .zip(paging)
            .find(|(_, v)| v.is_some())
        {
            return Err(ApiError::invalid(
                name,
                format!(
                    "{name} does not apply with ids: the areas come in the order of ids, all on one page"
                ),
            ));
        }
    }
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
    let format = format_param(format, &LIST_FORMATS)?;
    let geometry = geometry_params(geometry, simplify)?;
    q.finish(known)?;
    Ok(ListParams {
        province,
        limit: match &ids {
            Some(ids) => ids.len() as i64,
            None => limit.unwrap_or(LIST_LIMIT_DEFAULT),
        },
        ids,
        offset: offset.unwrap_or(OFFSET_DEFAULT),
        sort: sort.unwrap_or(SORT_DEFAULT),
        order: order.unwrap_or(ORDER_DEFAULT),
        format,
        geometry,
    })
}

/// List's `ids=`: 1 to `LIST_IDS_MAX` distinct items, counted before they
/// are read; each is taken as given, so one that is no area's id is missing
/// from the answer, not refused.
fn id_list(value: &str) -> Result<Vec<String>, ApiError> {
    if value.split(',').nth(LIST_IDS_MAX).is_some() {
        return Err(ApiError::invalid(
            "ids",
            format!("ids may list at most {LIST_IDS_MAX} area ids"),
        ));
    }
    Ok(query::list("ids", value, LIST_IDS_MAX)?
        .into_iter()
        .map(str::to_string)
        .collect())
}

/// The value of `name` if the path takes it (`known`); one it does not take
/// is left for `Query::finish` to refuse.
fn take(q: &mut Query, name: &str, known: &[&str]) -> Option<String> {
    if known.contains(&name) {
        q.take(name)
    } else {
        None
    }
}

/// `format=`, one of the representations an endpoint offers.
pub fn format_param(value: Option<String>, offered: &[Format]) -> Result<Option<Format>, ApiError> {
    let words: Vec<(&str, Format)> = offered.iter().map(|f| (f.name(), *f)).collect();
    value
        .map(|v| query::one_of("format", &v, &words))
        .transpose()
}

#[derive(Debug, PartialEq)]
pub struct ExportParams {
    pub province: Option<&'static str>,
    /// `format=`, which a format's own path never takes.
    pub format: Option<Format>,
    /// `geometry=` and `simplify=`, which only the GeoJSON path takes.
    pub geometry: FeatureGeometry,
}

/// Export's parameters at its JSON path or at a format's own path, as `list`'s.
pub fn export(mut q: Query, path_format: Option<Format>) -> Result<ExportParams, ApiError> {
    let known = params_at(EXPORT_PATHS, path_format);
    let [province, format] = EXPORT_PARAMS.map(|name| take(&mut q, name, known));
    let [geometry, simplify] = GEOJSON_PARAMS.map(|name| take(&mut q, name, known));
    let province = province_param(province)?;
    let format = format_param(format, &EXPORT_FORMATS)?;
    let geometry = geometry_params(geometry, simplify)?;
    q.finish(known)?;
    Ok(ExportParams {
        province,
        format,
        geometry,
    })
}

pub fn province_param(value: Option<String>) -> Result<Option<&'static str>, ApiError> {
    let slugs = PROVINCES.map(|(slug, _)| (slug, slug));
    value
        .map(|v| query::one_of("province", &v, &slugs))
        .transpose()
}

#[derive(Debug, PartialEq, Default)]
pub struct AreaParams {
    pub history: bool,
    pub nearby: bool,
    pub boundary: bool,
    pub rank: bool,
}

pub fn area(mut q: Query) -> Result<AreaParams, ApiError> {
    let [include] = AREA_PARAMS.map(|name| q.take(name));
    q.finish(&AREA_PARAMS)?;
    include_param(include)
}

/// `include=`, Get Area's and the area at a point's.
fn include_param(include: Option<String>) -> Result<AreaParams, ApiError> {
    let mut params = AreaParams::default();
    if let Some(value) = include {
        for item in query::list("include", &value, INCLUDES.len())? {
            match item {
                INCLUDE_HISTORY => params.history = true,
                INCLUDE_NEARBY => params.nearby = true,
                INCLUDE_BOUNDARY => params.boundary = true,
                INCLUDE_RANK => params.rank = true,
                other => {
                    return Err(ApiError::not_one_of(
                        "include",
                        format!("include may list {}, not '{other}'", INCLUDES.join(", ")),
                        &INCLUDES,
                    ));
                }
            }
        }
    }
    Ok(params)
}

/// The area at a point's parameters: the point, how far to look for an
/// area without a boundary, and Get Area's extras.
#[derive(Debug, PartialEq)]
pub struct AtParams {
    pub lat: f64,
    pub lng: f64,
    pub radius_km: f64,
    pub include: AreaParams,
}

pub fn at(mut q: Query) -> Result<AtParams, ApiError> {
    let [lat, lng, radius, include] = AT_PARAMS.map(|name| q.take(name));
    q.finish(&AT_PARAMS)?;
    let required = |name: &str, value: Option<String>, bounds| {
        let value = value.ok_or_else(|| {
            ApiError::invalid(
                name,
                format!("{name} is required: the point's {name} in degrees"),
            )
        })?;
        query::number(name, &value, bounds)
    };
    let lat = required("lat", lat, LAT)?;
    let lng = required("lng", lng, LNG)?;
    let radius_km = radius
        .map(|v| query::number("radius", &v, RADIUS_KM))
        .transpose()?
        .unwrap_or(RADIUS_KM_DEFAULT);
    Ok(AtParams {
        lat,
        lng,
        radius_km,
        include: include_param(include)?,
    })
}

#[derive(Debug, PartialEq)]
pub struct CompareParams {
    pub ids: Vec<String>,
    /// The dimensions to compare, in the order given; None means all of them.
    pub dimensions: Option<Vec<&'static str>>,
    /// `include=rank`: each area's standing.
    pub rank: bool,
}

pub fn compare(mut q: Query) -> Result<CompareParams, ApiError> {
    let [ids, dimensions, include] = COMPARE_PARAMS.map(|name| q.take(name));
    q.finish(&COMPARE_PARAMS)?;
    let ids = ids.ok_or_else(|| {
        ApiError::invalid(
            "ids",
            format!(
                "ids is required: {COMPARE_IDS_MIN} to {COMPARE_IDS_MAX} comma-separated area ids"
            ),
        )
    })?;
    let count_refused = || {
        ApiError::invalid(
            "ids",
            format!("ids must list {COMPARE_IDS_MIN} to {COMPARE_IDS_MAX} distinct area ids"),
        )
    };
    // Counted before the list is read, as `query::list` counts its items.
    if ids.split(',').nth(COMPARE_IDS_MAX).is_some() {
        return Err(count_refused());
    }
    let ids = query::list("ids", &ids, COMPARE_IDS_MAX)?;
    if ids.len() < COMPARE_IDS_MIN {
        return Err(count_refused());
    }
    Ok(CompareParams {
        ids: ids.into_iter().map(str::to_string).collect(),
        dimensions: dimensions.map(|v| dimension_list(&v)).transpose()?,
        rank: include.map(|v| compare_include(&v)).transpose()?.is_some(),
    })
}

/// Compare's `include=`: `rank`, the only extra it takes.
fn compare_include(value: &str) -> Result<(), ApiError> {
    for item in query::list("include", value, COMPARE_INCLUDES.len())? {
        if !COMPARE_INCLUDES.contains(&item) {
            return Err(ApiError::not_one_of(
                "include",
                format!(
                    "include may list {}, not '{item}'",
                    COMPARE_INCLUDES.join(", ")
                ),
                &COMPARE_INCLUDES,
            ));
        }
    }
    Ok(())
}

/// The dimensions named in `value`, in the order given, each a known one.
fn dimension_list(value: &str) -> Result<Vec<&'static str>, ApiError> {
    query::list("dimensions", value, DIMENSIONS.len())?
        .into_iter()
        .map(|d| {
            DIMENSIONS
                .iter()
                .copied()
                .find(|known| *known == d)
                .ok_or_else(|| {
                    ApiError::not_one_of(
                        "dimensions",
                        format!(
                            "unknown dimension '{d}': known are {}",
                            DIMENSIONS.join(", ")
                        ),
                        &DIMENSIONS,
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
