//! An area's boundary: a Polygon or MultiPolygon in WGS84, positions as
//! [lng, lat] (RFC 7946), as an import reads it from WKT or GeoJSON and the
//! dataset keeps it. `read_cell` tells the two apart in a CSV cell,
//! `from_geojson` takes a JSON Lines member or a feature's geometry.
//!
//! Every rule a boundary must meet is checked here, each failure a
//! `BoundaryError` of its own kind (their messages state the rules). The checks
//! that need the rings as written (closure, ring length) run on the input;
//! geo-types closes an open ring silently, so they cannot run after it.
//! OGC validity is validity.rs. How boundaries are stored in the dataset
//! file and read back is store.rs (their simplified forms simplify.rs), and
//! the area at a point locate.rs. A boundary that passes is kept in RFC 7946's orientation:
//! exteriors counter-clockwise, holes clockwise.

use geo::orient::{Direction, Orient};
use geo::{
    BoundingRect, ClosestPoint, Contains, Coord, InteriorPoint, LineString, MultiPolygon, Polygon,
};
use geojson::{GeometryValue, Position};
use thiserror::Error;

use crate::search::index::geo::haversine_km;

/// Positions an area's boundary may hold, all rings counted. About 3.2 MB as
/// GeoJSON text, well within an import row's cap (docs/import.md, "Limits").
pub const VERTICES_PER_AREA_MAX: usize = 100_000;

/// How far a centre may lie outside its boundary, in kilometres: a point
/// placed on a coastline's outer edge, or a boundary simplified by its
/// publisher, is not an error; a swapped or foreign centre is.
pub const CENTRE_SLACK_KM: f64 = 2.0;

/// A value this far beyond a longitude's or latitude's range is taken for a
/// projected coordinate in metres, not a typing slip.
const LOOKS_PROJECTED: f64 = 1_000.0;

/// The names a GeoJSON `crs` member may give: WGS84 in lng, lat order.
const WGS84_NAMES: [&str; 4] = [
    "urn:ogc:def:crs:OGC:1.3:CRS84",
    "urn:ogc:def:crs:OGC::CRS84",
    "urn:ogc:def:crs:EPSG::4326",
    "EPSG:4326",
];

/// Why a boundary was refused, as an import reports it for its row or feature.
#[derive(Debug, Error, PartialEq)]
pub enum BoundaryError {
    #[error("boundary is not WKT or GeoJSON: {0}")]
    Unreadable(String),
    #[error("boundary is a {0}; it must be a Polygon or a MultiPolygon")]
    NotAPolygon(String),
    #[error(
        "boundary's crs is {0}; only CRS84 or EPSG:4326 is read: reproject with `ogr2ogr -t_srs EPSG:4326`"
    )]
    OtherCrs(String),
    #[error(
        "boundary's ring {ring} of polygon {polygon} has {positions} positions; a ring needs at least 4"
    )]
    ShortRing {
        polygon: usize,
        ring: usize,
        positions: usize,
    },
    #[error(
        "boundary's ring {ring} of polygon {polygon} is not closed: its last position must equal its first"
    )]
    OpenRing { polygon: usize, ring: usize },
    #[error(
        "boundary's positions look like metres ({x}, {y}), not degrees: reproject to EPSG:4326 with `ogr2ogr -t_srs EPSG:4326`"
    )]
    Projected { x: f64, y: f64 },
    #[error(
        "boundary's position ({x}, {y}) is out of range: [lng, lat] with lng in -180..180 and lat in -90..90"
    )]
    OutOfRange { x: f64, y: f64 },
    #[error(
        "boundary's polygon {polygon} spans more than 180 degrees of longitude; boundaries that cross the antimeridian are not read"
    )]
    Antimeridian { polygon: usize },
    #[error("boundary has {0} positions; at most {VERTICES_PER_AREA_MAX} are read per area")]
    TooManyVertices(usize),
    #[error("boundary is not valid (OGC): {0}")]
    Invalid(String),
    #[error(
        "the centre ({lat}, {lng}) is {km:.1} km outside the boundary; at most {CENTRE_SLACK_KM} km is allowed (are lat and lng swapped?)"
    )]
    CentreOutside { lat: f64, lng: f64, km: f64 },
}

/// A checked boundary in RFC 7946's orientation. `multi` keeps whether it was
/// written as a MultiPolygon, so that it is served as it came.
#[derive(Debug, Clone, PartialEq)]
pub struct Boundary {
    shape: MultiPolygon<f64>,
    multi: bool,
}

/// The rings of each polygon as written, positions as [x, y]: what the
/// checks that geo-types would hide run on.
type Rings = Vec<Vec<Vec<[f64; 2]>>>;

/// A CSV cell: None when it is empty or says none (`null`, `EMPTY`), GeoJSON
/// geometry text when it opens with `{`, WKT otherwise.
pub fn read_cell(cell: &str) -> Result<Option<Boundary>, BoundaryError> {
    let text = cell.trim();
    if text.is_empty() || text.eq_ignore_ascii_case("null") {
        return Ok(None);
    }
    if text.starts_with('{') {
        let value: serde_json::Value =
            serde_json::from_str(text).map_err(|e| BoundaryError::Unreadable(e.to_string()))?;
        return from_geojson(&value);
    }
    from_wkt(text)
}

/// WKT text: a POLYGON or MULTIPOLYGON, Z and M values dropped.
pub fn from_wkt(text: &str) -> Result<Option<Boundary>, BoundaryError> {
    let wkt: wkt::Wkt<f64> = text
        .parse()
        .map_err(|e: &str| BoundaryError::Unreadable(e.into()))?;
    let ring = |r: &wkt::types::LineString<f64>| -> Vec<[f64; 2]> {
        r.coords().iter().map(|c| [c.x, c.y]).collect()
    };
    let polygon = |p: &wkt::types::Polygon<f64>| p.rings().iter().map(ring).collect::<Vec<_>>();
    let (rings, multi) = match &wkt {
        wkt::Wkt::Polygon(p) => (vec![polygon(p)], false),
        wkt::Wkt::MultiPolygon(m) => (m.polygons().iter().map(polygon).collect(), true),
        other => return Err(BoundaryError::NotAPolygon(wkt_kind(other).into())),
    };
    from_rings(rings, multi)
}

/// A GeoJSON geometry object; None for JSON null or an empty geometry.
pub fn from_geojson(value: &serde_json::Value) -> Result<Option<Boundary>, BoundaryError> {
    if value.is_null() {
        return Ok(None);
    }
    if let Some(crs) = value.get("crs") {
        check_crs(crs)?;
    }
    let geometry: geojson::Geometry = serde_json::from_value(value.clone())
        .map_err(|e| BoundaryError::Unreadable(e.to_string()))?;
    if let Some(short) = short_position(&geometry.value) {
        return Err(BoundaryError::Unreadable(format!(
            "a position has {short} number(s); it needs [lng, lat]"
        )));
    }
    let position = |p: &Position| -> [f64; 2] { [p.as_slice()[0], p.as_slice()[1]] };
    let polygon = |p: &Vec<Vec<Position>>| -> Vec<Vec<[f64; 2]>> {
        p.iter().map(|r| r.iter().map(position).collect()).collect()
    };
    let (rings, multi) = match &geometry.value {
        GeometryValue::Polygon { coordinates } => (vec![polygon(coordinates)], false),
        GeometryValue::MultiPolygon { coordinates } => {
            (coordinates.iter().map(polygon).collect(), true)
        }
        other => return Err(BoundaryError::NotAPolygon(other.type_name().into())),
    };
    from_rings(rings, multi)
}

/// A GeoJSON `crs` member (GeoJSON 2008's named form, which QGIS and ogr2ogr
/// still write): refused unless it names WGS84 in lng, lat order.
pub fn check_crs(crs: &serde_json::Value) -> Result<(), BoundaryError> {
    let name = crs
        .pointer("/properties/name")
        .and_then(|n| n.as_str())
        .unwrap_or("");
    if WGS84_NAMES.iter().any(|w| w.eq_ignore_ascii_case(name)) {
        return Ok(());
    }
    Err(BoundaryError::OtherCrs(if name.is_empty() {
        crs.to_string()
    } else {
        name.to_string()
    }))
}

/// The length of a polygon's position that holds fewer than two numbers.
fn short_position(value: &GeometryValue) -> Option<usize> {
    let polygons: Vec<&Vec<Vec<Position>>> = match value {
        GeometryValue::Polygon { coordinates } => vec![coordinates],
        GeometryValue::MultiPolygon { coordinates } => coordinates.iter().collect(),
        _ => return None,
    };
    polygons
        .into_iter()
        .flatten()
        .flatten()
        .map(Position::len)
        .find(|&n| n < 2)
}

fn wkt_kind(w: &wkt::Wkt<f64>) -> &'static str {
    match w {
        wkt::Wkt::Point(_) => "Point",
        wkt::Wkt::LineString(_) => "LineString",
        wkt::Wkt::Polygon(_) => "Polygon",
        wkt::Wkt::MultiPoint(_) => "MultiPoint",
        wkt::Wkt::MultiLineString(_) => "MultiLineString",
        wkt::Wkt::MultiPolygon(_) => "MultiPolygon",
        wkt::Wkt::GeometryCollection(_) => "GeometryCollection",
    }
}

/// Every check, in the order a reader fixes them: the rings as written, then
/// the positions, then the shape as a whole. An empty geometry is none.
fn from_rings(rings: Rings, multi: bool) -> Result<Option<Boundary>, BoundaryError> {
    let rings: Rings = rings.into_iter().filter(|p| !p.is_empty()).collect();
    if rings.is_empty() {
        return Ok(None);
    }
    let vertices: usize = rings.iter().flatten().map(Vec::len).sum();
    if vertices > VERTICES_PER_AREA_MAX {
        return Err(BoundaryError::TooManyVertices(vertices));
    }
    for (p, polygon) in rings.iter().enumerate() {
        for (r, ring) in polygon.iter().enumerate() {
            check_ring(p + 1, r + 1, ring)?;
        }
    }
    let polygons: Vec<Polygon<f64>> = rings.iter().map(|r| to_polygon(r)).collect();
    for (p, polygon) in polygons.iter().enumerate() {
        let rect = polygon
            .bounding_rect()
            .expect("a checked ring has positions");
        if rect.width() > 180.0 {
            return Err(BoundaryError::Antimeridian { polygon: p + 1 });
        }
    }
    let shape = MultiPolygon::new(polygons);
    if let Some(problem) = validity::first_problem(&shape) {
        return Err(BoundaryError::Invalid(problem));
    }
    Ok(Some(Boundary {
        shape: shape.orient(Direction::Default),
        multi,
    }))
}

/// A ring's length and closure, then each position's range. Ring and
/// polygon are counted from 1, as a reader counts them.
fn check_ring(polygon: usize, ring: usize, positions: &[[f64; 2]]) -> Result<(), BoundaryError> {
    if positions.len() < 4 {
        return Err(BoundaryError::ShortRing {
            polygon,
            ring,
            positions: positions.len(),
        });
    }
    if positions.first() != positions.last() {
        return Err(BoundaryError::OpenRing { polygon, ring });
    }
    for &[x, y] in positions {
        if x.abs() <= 180.0 && y.abs() <= 90.0 {
            continue;
        }
        if x.abs() > LOOKS_PROJECTED || y.abs() > LOOKS_PROJECTED {
            return Err(BoundaryError::Projected { x, y });
        }
        return Err(BoundaryError::OutOfRange { x, y });
    }
    Ok(())
}

fn to_polygon(rings: &[Vec<[f64; 2]>]) -> Polygon<f64> {
    let line = |r: &Vec<[f64; 2]>| {
        LineString::from(r.iter().map(|&[x, y]| Coord { x, y }).collect::<Vec<_>>())
    };
    let mut rings = rings.iter().map(line);
    let exterior = rings.next().expect("a polygon has a ring");
    Polygon::new(exterior, rings.collect())
}

impl Boundary {
    /// The rectangle [min lng, min lat, max lng, max lat] (min below max),
    /// a Polygon: valid as built, so not checked again (synthetic areas'
    /// cells, a million of them).
    pub fn rectangle([x0, y0, x1, y1]: [f64; 4]) -> Boundary {
        let ring = LineString::from(vec![(x0, y0), (x1, y0), (x1, y1), (x0, y1), (x0, y0)]);
        Boundary {
            shape: MultiPolygon::new(vec![Polygon::new(ring, vec![])]),
            multi: false,
        }
    }

    /// The shape, in RFC 7946's orientation.
    pub fn shape(&self) -> &MultiPolygon<f64> {
        &self.shape
    }

    /// Positions, all rings counted, closing positions included.
    pub fn vertices(&self) -> usize {
        self.shape
            .iter()
            .map(|p| p.exterior().0.len() + p.interiors().iter().map(|r| r.0.len()).sum::<usize>())
            .sum()
    }

    /// Whether a point lies inside or on the edge (the closed polygon).
    pub fn holds(&self, lat: f64, lng: f64) -> bool {
        use geo::Intersects;
        self.shape.intersects(&geo::Point::new(lng, lat))
    }

    /// The centre an area without lat and lng is given: a point inside the
    /// boundary (georust's interior point: on the largest part, away from
    /// its edges), as (lat, lng).
    pub fn centre(&self) -> (f64, f64) {
        let p = self
            .shape
            .interior_point()
            .expect("a checked boundary has an area");
        (p.y(), p.x())
    }

    /// The great-circle distance from a point to the boundary, in km: 0 inside.
    pub fn distance_km(&self, lat: f64, lng: f64) -> f64 {
        let point = geo::Point::new(lng, lat);
        if self.shape.contains(&point) {
            return 0.0;
        }
        match self.shape.closest_point(&point) {
            geo::Closest::Intersection(_) => 0.0,
            geo::Closest::SinglePoint(c) => haversine_km(lat, lng, c.y(), c.x()),
            geo::Closest::Indeterminate => f64::INFINITY,
        }
    }

    /// Refuses a centre more than `CENTRE_SLACK_KM` outside the boundary.
    pub fn check_centre(&self, lat: f64, lng: f64) -> Result<(), BoundaryError> {
        let km = self.distance_km(lat, lng);
        if km <= CENTRE_SLACK_KM {
            return Ok(());
        }
        Err(BoundaryError::CentreOutside { lat, lng, km })
    }

    /// As a GeoJSON geometry object, of the kind it was written as.
    pub fn to_geojson(&self) -> serde_json::Value {
        let ring =
            |r: &LineString<f64>| -> Vec<[f64; 2]> { r.0.iter().map(|c| [c.x, c.y]).collect() };
        let polygon = |p: &Polygon<f64>| -> Vec<Vec<[f64; 2]>> {
            std::iter::once(p.exterior())
                .chain(p.interiors())
                .map(ring)
                .collect()
        };
        match (self.multi, self.shape.0.as_slice()) {
            (false, [only]) => serde_json::json!({"type": "Polygon", "coordinates": polygon(only)}),
            (_, parts) => serde_json::json!({
                "type": "MultiPolygon",
                "coordinates": parts.iter().map(polygon).collect::<Vec<_>>(),
            }),
        }
    }
}

pub mod cells;
pub mod locate;
pub mod simplify;
pub mod store;
pub mod validity;

pub use locate::{Located, LocatedBy, NEAR_BOUNDARY_KM};
pub use store::{SIMPLIFY_TOLERANCES_M, geometry_json, page_geometries_json};

#[cfg(test)]
mod tests;
