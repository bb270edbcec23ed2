//! The area at a point (docs/api.md, "The area at a point"): the boundary
//! that holds it, else a boundary just beside it, else the nearest centre
//! among the areas without a boundary.
//!
//! - **Containment.** Polygons are closed: a point on an edge or a vertex
//!   is inside. Each ring is judged by georust's winding number, whose
//!   orientation test is exact (the `robust` crate's), so a point on a shared
//!   edge is inside both neighbours every time, never neither. Among the
//!   boundaries that hold the point, the answer is the smallest by geodesic
//!   area (stored at write time), then the lower area_no (id order); the
//!   others follow in `also` in the same order.
//! - **Near a boundary.** Else the nearest boundary within
//!   `NEAR_BOUNDARY_KM`, by the great-circle distance to its nearest point
//!   (found in a local projection where a degree of longitude is shortened
//!   by the cosine of the point's latitude), ties to the lower area_no.
//! - **Nearest centre.** Else the nearest centre within the radius among
//!   the areas without a boundary, as search measures it (haversine, ties to
//!   the lower area_no).
//!
//! Candidates come from the file's grid of boundary cells (cells.rs), then
//! its boxes, each grown by `NEAR_BOUNDARY_KM`; only their boundaries are
//! read and parsed. The areas
//! without a boundary are known at open (`Unbounded`): none (a synthetic
//! million), all (a file without boundaries: search's own index serves), or
//! some (an index of their own, its size theirs).

use geo::coordinate_position::{CoordPos, coord_pos_relative_to_ring};
use geo::{Coord, LineString, MultiPolygon, Polygon};
use rusqlite::Connection;
use serde::Serialize;

use crate::data::boundary::cells;
use crate::data::dataset::Dataset;
use crate::data::error::DataError;
use crate::domain::round2;
use crate::search::index::AreaIndex;
use crate::search::index::geo::{Circle, Disc, haversine_km};

/// How far outside every boundary a point may lie and still be answered
/// by the nearest boundary, in kilometres: a geocoded address on a coast
/// or a road that a boundary follows.
pub const NEAR_BOUNDARY_KM: f64 = 0.25;

/// How an area was found at a point, as `located.by` says it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum LocatedBy {
    Boundary,
    NearBoundary,
    Nearest,
}

impl LocatedBy {
    pub fn as_str(self) -> &'static str {
        match self {
            LocatedBy::Boundary => "boundary",
            LocatedBy::NearBoundary => "near_boundary",
            LocatedBy::Nearest => "nearest",
        }
    }
}

/// The area at a point.
#[derive(Debug, Clone, PartialEq)]
pub struct Located {
    pub area_no: i64,
    pub by: LocatedBy,
    /// 0 inside a boundary; else to the boundary or the centre, rounded to
    /// 10 m as search's distances are.
    pub distance_km: f64,
    /// The other boundaries holding the point, smallest geodesic area
    /// first, then lower area_no; empty unless `by` is `Boundary`.
    pub also: Vec<i64>,
}

/// The areas without a boundary, whose centres answer a point that no
/// boundary is near.
pub enum Unbounded {
    /// Every area has a boundary.
    None,
    /// No area has one: search's index of every area serves.
    All,
    /// Some have one: an index of those without.
    Some(Box<AreaIndex>),
}

/// How many areas have a boundary, and which: the boxes hold one row a
/// boundary and a few bytes each, where area_boundaries' rows hold the
/// geometry (counting them would read every page of it).
const BOUNDARY_COUNT: &str = "SELECT count(*) FROM area_boundary_boxes";
const BOUNDED_AREAS: &str = "SELECT area_no FROM area_boundary_boxes";

impl Unbounded {
    /// Read once when a dataset opens, beside its index of every area.
    pub fn read(conn: &Connection, index: &AreaIndex) -> rusqlite::Result<Unbounded> {
        let count: i64 = conn.query_row(BOUNDARY_COUNT, [], |r| r.get(0))?;
        let areas = index.area_count();
        if count == 0 {
            return Ok(Unbounded::All);
        }
        if count as usize >= areas {
            return Ok(Unbounded::None);
        }
        let top = (0..areas).map(|i| index.at(i).area_no).max().unwrap_or(0) as usize;
        let mut bounded = vec![0u64; top / 64 + 1];
        let mut stmt = conn.prepare(BOUNDED_AREAS)?;
        let mut rows = stmt.query([])?;
        while let Some(r) = rows.next()? {
            let no: i64 = r.get(0)?;
            if let Some(word) = usize::try_from(no)
                .ok()
                .and_then(|n| bounded.get_mut(n / 64))
            {
                *word |= 1 << (no % 64);
            }
        }
        let is_bounded = |no: u32| bounded[no as usize / 64] & (1 << (no % 64)) != 0;
        let without = (0..areas)
            .map(|i| index.at(i))
            .filter(|e| !is_bounded(e.area_no))
            .map(|e| (e.area_no, e.lat, e.lng, e.truth_score))
            .collect();
        Ok(Unbounded::Some(Box::new(AreaIndex::new(
            without,
            Vec::new(),
        ))))
    }

    /// The nearest centre within the circle, if any.
    fn nearest<'a>(&'a self, all: &'a AreaIndex, circle: Circle) -> Option<(i64, f64)> {
        let index = match self {
            Unbounded::None => return None,
            Unbounded::All => all,
            Unbounded::Some(index) => index,
        };
        if circle.radius_km.is_nan() || circle.radius_km < 0.0 {
            return None;
        }
        let disc = Disc::new(circle);
        let hit = index.nearest_hits(&disc, 0.0, 1, None).into_iter().next()?;
        Some((hit.area_no, hit.distance_km))
    }
}

/// The statement that reads a point's candidate boundaries, for the grid
/// levels the file files boundaries at (cells.rs): those filed under the
/// point's cell at each level whose boxes meet the point's box grown by
/// `NEAR_BOUNDARY_KM`. One arm a level, each an index seek, joined by UNION
/// ALL, where `cell IN (...)` would build a temporary index each time; a
/// file's boundaries are mostly of a size, so they take a level or two.
#[derive(Debug, Default)]
pub struct Candidates {
    /// The levels with boundaries, finest first; none without boundaries.
    levels: Vec<usize>,
    sql: String,
}

/// Whether any boundary is filed at a level (?1 to ?2, its cell numbers).
const LEVEL_USED: &str = "SELECT 1 FROM area_boundary_cells WHERE cell >= ?1 AND cell < ?2 LIMIT 1";

impl Candidates {
    /// Read once when a dataset opens: a seek a level.
    pub fn read(conn: &Connection) -> rusqlite::Result<Candidates> {
        use rusqlite::OptionalExtension;
        let mut used = conn.prepare(LEVEL_USED)?;
        let mut levels = Vec::new();
        for level in 0..cells::LEVELS {
            let (from, to) = cells::level_range(level);
            if used.query_row([from, to], |_| Ok(())).optional()?.is_some() {
                levels.push(level);
            }
        }
        let arm = |i: usize| {
            format!(
                "SELECT b.area_no, b.area_m2, b.geometry
                 FROM area_boundary_cells c
                 JOIN area_boundary_boxes x ON x.area_no = c.area_no
                 JOIN area_boundaries b ON b.area_no = c.area_no
                 WHERE c.cell = ?{} AND x.min_lng <= ?2 AND x.max_lng >= ?1
                   AND x.min_lat <= ?4 AND x.max_lat >= ?3",
                5 + i
            )
        };
        let sql = (0..levels.len())
            .map(arm)
            .collect::<Vec<_>>()
            .join(" UNION ALL ");
        Ok(Candidates { levels, sql })
    }
}

impl Dataset {
    /// The area at (lat, lng), by the rules of this module's note; None when
    /// no boundary holds or is near the point and no centre of an area
    /// without a boundary lies within `radius_km`.
    pub fn locate(
        &self,
        conn: &Connection,
        lat: f64,
        lng: f64,
        radius_km: f64,
    ) -> Result<Option<Located>, DataError> {
        if !self.candidates.levels.is_empty()
            && let Some(found) = by_boundary(conn, &self.candidates, lat, lng)?
        {
            return Ok(Some(found));
        }
        let circle = Circle {
            lat,
            lng,
            radius_km,
        };
        Ok(self
            .unbounded
            .nearest(&self.index, circle)
            .map(|(area_no, km)| Located {
                area_no,
                by: LocatedBy::Nearest,
                distance_km: round2(km),
                also: Vec::new(),
            }))
    }
}

/// The boundary that holds the point, or the nearest within `NEAR_BOUNDARY_KM`.
fn by_boundary(
    conn: &Connection,
    candidates: &Candidates,
    lat: f64,
    lng: f64,
) -> Result<Option<Located>, DataError> {
    let (grow_lat, grow_lng) = cells::reach(lat);
    let mut stmt = conn.prepare_cached(&candidates.sql)?;
    let grown = [
        lng - grow_lng,
        lng + grow_lng,
        lat - grow_lat,
        lat + grow_lat,
    ];
    for (i, v) in grown.into_iter().enumerate() {
        stmt.raw_bind_parameter(1 + i, v)?;
    }
    let cells = cells::of_point(lat, lng);
    for (i, &level) in candidates.levels.iter().enumerate() {
        stmt.raw_bind_parameter(5 + i, cells[level])?;
    }
    let mut rows = stmt.raw_query();
    let point = Coord { x: lng, y: lat };
    let mut holding: Vec<(f64, i64)> = Vec::new();
    let mut near: Option<(f64, i64)> = None;
    while let Some(r) = rows.next()? {
        let area_no: i64 = r.get(0)?;
        let area_m2: f64 = r.get(1)?;
        let text: String = r.get(2)?;
        let Some(shape) = parse_geometry(&text) else {
            log::error!("area {area_no}'s stored boundary cannot be read; passed over");
            continue;
        };
        if holds(&shape, point) {
            holding.push((area_m2, area_no));
        } else if holding.is_empty() {
            let km = distance_km(&shape, lat, lng);
            if km <= NEAR_BOUNDARY_KM && near.is_none_or(|best| (km, area_no) < best) {
                near = Some((km, area_no));
            }
        }
    }
    holding.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
    if let Some(&(_, area_no)) = holding.first() {
        return Ok(Some(Located {
            area_no,
            by: LocatedBy::Boundary,
            distance_km: 0.0,
            also: holding[1..].iter().map(|h| h.1).collect(),
        }));
    }
    Ok(near.map(|(km, area_no)| Located {
        area_no,
        by: LocatedBy::NearBoundary,
        distance_km: round2(km),
        also: Vec::new(),
    }))
}

/// Whether the closed shape holds the point: on an edge or a vertex is
/// inside; inside a hole (not on its edge) is outside. Judged polygon by
/// polygon, since OGC's rule for a MultiPolygon's boundary (mod 2) would
/// put a vertex two parts share outside both.
pub fn holds(shape: &MultiPolygon<f64>, point: Coord<f64>) -> bool {
    shape.iter().any(|p| polygon_holds(p, point))
}

fn polygon_holds(polygon: &Polygon<f64>, point: Coord<f64>) -> bool {
    match coord_pos_relative_to_ring(point, polygon.exterior()) {
        CoordPos::Outside => false,
        CoordPos::OnBoundary => true,
        CoordPos::Inside => polygon
            .interiors()
            .iter()
            .all(|hole| coord_pos_relative_to_ring(point, hole) != CoordPos::Inside),
    }
}

/// The great-circle distance in km from a point to the nearest point of
/// the shape's rings, that point found in a projection local to the point.
pub fn distance_km(shape: &MultiPolygon<f64>, lat: f64, lng: f64) -> f64 {
    let cos = lat.to_radians().cos().max(1e-6);
    let (px, py) = (lng * cos, lat);
    let mut best: Option<(f64, Coord<f64>)> = None;
    let rings = shape
        .iter()
        .flat_map(|p| std::iter::once(p.exterior()).chain(p.interiors()));
    for ring in rings {
        for line in ring.lines() {
            let (ax, ay) = (line.start.x * cos, line.start.y);
            let (bx, by) = (line.end.x * cos, line.end.y);
            let (dx, dy) = (bx - ax, by - ay);
            let len2 = dx * dx + dy * dy;
            let t = match len2 > 0.0 {
                true => (((px - ax) * dx + (py - ay) * dy) / len2).clamp(0.0, 1.0),
                false => 0.0,
            };
            let (cx, cy) = (ax + t * dx, ay + t * dy);
            let d2 = (px - cx).powi(2) + (py - cy).powi(2);
            if best.is_none_or(|(b, _)| d2 < b) {
                let at = Coord {
                    x: line.start.x + t * (line.end.x - line.start.x),
                    y: line.start.y + t * (line.end.y - line.start.y),
                };
                best = Some((d2, at));
            }
        }
    }
    best.map_or(f64::INFINITY, |(_, c)| haversine_km(lat, lng, c.y, c.x))
}

/// Rings as GeoJSON positions.
type Rings = Vec<Vec<[f64; 2]>>;

/// A stored geometry's shape. The file's own text opens with its type
/// (store.rs writes it so), read here without a JSON tree; any other
/// GeoJSON geometry is read through the import's reader.
pub fn parse_geometry(text: &str) -> Option<MultiPolygon<f64>> {
    use serde::Deserialize;
    const POLYGON: &str = r#"{"type":"Polygon","coordinates":"#;
    const MULTI: &str = r#"{"type":"MultiPolygon","coordinates":"#;
    let polygon = |rings: Rings| -> Option<Polygon<f64>> {
        let mut rings = rings.into_iter().map(|r| {
            LineString::from(
                r.into_iter()
                    .map(|[x, y]| Coord { x, y })
                    .collect::<Vec<_>>(),
            )
        });
        Some(Polygon::new(rings.next()?, rings.collect()))
    };
    if let Some(rest) = text.strip_prefix(POLYGON) {
        let mut de = serde_json::Deserializer::from_str(rest);
        let rings = Rings::deserialize(&mut de).ok()?;
        return Some(MultiPolygon::new(vec![polygon(rings)?]));
    }
    if let Some(rest) = text.strip_prefix(MULTI) {
        let mut de = serde_json::Deserializer::from_str(rest);
        let parts = Vec::<Rings>::deserialize(&mut de).ok()?;
        return parts
            .into_iter()
            .map(polygon)
            .collect::<Option<Vec<_>>>()
            .map(MultiPolygon::new);
    }
    let value: serde_json::Value = serde_json::from_str(text).ok()?;
    let boundary = super::from_geojson(&value).ok()??;
    Some(boundary.shape)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn located_by_says_its_word_as_json_does() {
        for by in [
            LocatedBy::Boundary,
            LocatedBy::NearBoundary,
            LocatedBy::Nearest,
        ] {
            let json = serde_json::to_value(by).unwrap();
            assert_eq!(json, by.as_str());
        }
    }

    #[test]
    fn a_stored_geometry_is_read_whichever_way_it_is_written() {
        let fast =
            r#"{"type":"Polygon","coordinates":[[[28,-26],[28.1,-26],[28.1,-25.9],[28,-26]]]}"#;
        let spaced = r#"{ "coordinates": [[[28,-26],[28.1,-26],[28.1,-25.9],[28,-26]]], "type": "Polygon" }"#;
        let shape = parse_geometry(fast).unwrap();
        assert_eq!(parse_geometry(spaced), Some(shape.clone()));
        assert!(holds(&shape, Coord { x: 28.05, y: -26.0 }), "on an edge");
        assert!(!holds(&shape, Coord { x: 28.0, y: -25.95 }));
        assert_eq!(
            parse_geometry("{\"type\":\"Polygon\",\"coordinates\":[[["),
            None
        );
    }

    #[test]
    fn the_distance_to_a_boundary_is_to_its_nearest_edge() {
        let shape = parse_geometry(
            r#"{"type":"Polygon","coordinates":[[[28,-26],[28.1,-26],[28.1,-25.9],[28,-25.9],[28,-26]]]}"#,
        )
        .unwrap();
        // 0.002° south of the south edge: 222 m, as haversine says of the two points.
        let km = distance_km(&shape, -26.002, 28.05);
        assert!(
            (km - haversine_km(-26.002, 28.05, -26.0, 28.05)).abs() < 1e-9,
            "{km}"
        );
    }
}
