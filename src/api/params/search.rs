//! Search Areas' query parameters (docs/api.md, "Search Areas"), parsed into a
//! `SearchParams` or refused with 400: the words of q, the circle, the
//! viewport, the score floor, the province and the page.

use crate::api::contract::*;
use crate::api::params::{FeatureGeometry, format_param, geometry_params, province_param, take};
use crate::api::query::{self, Query};
use crate::error::ApiError;
use crate::search::index::geo::Circle;
use crate::search::shape::bbox::BBox;

#[derive(Debug, PartialEq)]
pub struct SearchParams {
    /// The words of q, each at least one letter or digit long.
    pub words: Vec<String>,
    pub circle: Option<Circle>,
    pub min_score: Option<f64>,
    /// A map viewport the areas must lie in.
    pub bbox: Option<BBox>,
    /// The slug of the province the areas must lie in.
    pub province: Option<&'static str>,
    pub limit: i64,
    pub offset: i64,
    /// `format=`, which a format's own path never takes.
    pub format: Option<Format>,
    pub matching: Matching,
    /// `geometry=` and `simplify=`, which only the GeoJSON path takes.
    pub geometry: FeatureGeometry,
}

/// Search's parameters at its JSON path or at a format's own path, as `list`'s.
pub fn search(mut q: Query, path_format: Option<Format>) -> Result<SearchParams, ApiError> {
    let known = params_at(SEARCH_PATHS, path_format);
    let [
        text,
        lat,
        lng,
        radius,
        bbox,
        min_score,
        province,
        limit,
        offset,
        matching,
        format,
    ] = SEARCH_PARAMS.map(|name| take(&mut q, name, known));
    let [geometry, simplify] = GEOJSON_PARAMS.map(|name| take(&mut q, name, known));
    q.finish(known)?;
    let geometry = geometry_params(geometry, simplify)?;
    let words = match &text {
        None => Vec::new(),
        Some(t) => search_words(t)?,
    };
    let circle = search_circle(lat, lng, radius)?;
    let bbox = bbox.map(|b| search_bbox(&b)).transpose()?;
    let min_score = min_score
        .map(|v| query::number("min_score", &v, MIN_SCORE))
        .transpose()?;
    let province = province_param(province)?;
    let limit = limit
        .map(|v| query::integer("limit", &v, SEARCH_LIMIT_MIN, SEARCH_LIMIT_MAX))
        .transpose()?
        .unwrap_or(SEARCH_LIMIT_DEFAULT);
    let offset = offset
        .map(|v| query::integer("offset", &v, OFFSET_MIN, OFFSET_MAX))
        .transpose()?
        .unwrap_or(OFFSET_DEFAULT);
    let format = format_param(format, &LIST_FORMATS)?;
    let matching = matching
        .map(|v| query::one_of("match", &v, &MATCHINGS))
        .transpose()?
        .unwrap_or(MATCHING_DEFAULT);
    if text.is_none()
        && circle.is_none()
        && bbox.is_none()
        && min_score.is_none()
        && province.is_none()
    {
        return Err(ApiError::invalid(
            "q",
            "give at least one of q, lat and lng, bbox, min_score, or province",
        ));
    }
    Ok(SearchParams {
        words,
        circle,
        min_score,
        bbox,
        province,
        limit,
        offset,
        format,
        matching,
        geometry,
    })
}

/// A viewport: exactly four numbers, west, south, east and north edges,
/// each within range, south at most north. West may exceed east: the box
/// then crosses the antimeridian.
fn search_bbox(value: &str) -> Result<BBox, ApiError> {
    let refuse = |why: &str| {
        ApiError::invalid(
            "bbox",
            format!("bbox must be minLng,minLat,maxLng,maxLat in degrees: {why}"),
        )
    };
    let given = value.split(',').count();
    if given != BBOX_NUMBERS {
        return Err(refuse(&format!("{BBOX_NUMBERS} numbers, not {given}")));
    }
    let parts = value.split(',');
    let mut numbers = [0.0; BBOX_NUMBERS];
    for (i, (part, bounds)) in parts.zip([LNG, LAT, LNG, LAT]).enumerate() {
        numbers[i] = query::parse_number(part)
            .filter(|n| bounds.contains(*n))
            .ok_or_else(|| refuse(&format!("'{part}' is not a number {}", bounds.describe())))?;
    }
    let [min_lng, min_lat, max_lng, max_lat] = numbers;
    if min_lat > max_lat {
        return Err(refuse("minLat is greater than maxLat"));
    }
    Ok(BBox {
        min_lng,
        min_lat,
        max_lng,
        max_lat,
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
