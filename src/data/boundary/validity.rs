//! OGC validity of a boundary, as GEOS's `IsValid` judges it in these cases: no ring crosses or touches itself,
//! each hole lies inside its shell, holes neither overlap nor share an edge,
//! and a MultiPolygon's parts neither overlap nor share an edge. Rings may
//! touch one another at single points.
//!
//! The checks are georust's `Validation`, but for one: it finds a ring's
//! self-intersections by comparing every pair of its edges, which takes over
//! a minute for a ring of the 100,000 positions an area may hold (bench/
//! PROFILE.md, "Boundary validity"). Here they come from georust's sweep
//! (`sweep::Intersections`), which compares only edges whose x ranges
//! overlap. The relations of rings and of parts are georust's `Relate`,
//! as `Validation` computes them, with a bounding-box test first.

use geo::algorithm::sweep::{Cross, Intersections};
use geo::coordinate_position::CoordPos;
use geo::dimensions::Dimensions;
use geo::{BoundingRect, Intersects, Line, LineIntersection, LineString, MultiPolygon, Polygon};
use geo::{PreparedGeometry, Relate};

/// The first way a shape is not valid, as the import prints it; None when
/// it is valid. Polygons and rings are counted from 1, the shell first.
pub fn first_problem(shape: &MultiPolygon<f64>) -> Option<String> {
    for (p, polygon) in shape.iter().enumerate() {
        let rings = std::iter::once(polygon.exterior()).chain(polygon.interiors());
        for (r, ring) in rings.enumerate() {
            if crosses_itself(ring) {
                return Some(format!(
                    "ring {} of polygon {} crosses itself",
                    r + 1,
                    p + 1
                ));
            }
        }
        if let Some(problem) = holes_problem(polygon) {
            return Some(format!("polygon {}: {problem}", p + 1));
        }
    }
    parts_problem(shape)
}

/// An edge of a ring and its place in it.
#[derive(Debug, Clone, Copy)]
struct Edge {
    line: Line<f64>,
    at: usize,
}

impl Cross for Edge {
    type Scalar = f64;
    fn line(&self) -> Line<f64> {
        self.line
    }
}

/// Whether two edges of a ring meet anywhere but at the vertex that joins
/// neighbours. Edges of no length (a position repeated) are passed over:
/// repeated positions are valid.
fn crosses_itself(ring: &LineString<f64>) -> bool {
    let edges: Vec<Edge> = ring
        .lines()
        .filter(|l| l.start != l.end)
        .enumerate()
        .map(|(at, line)| Edge { line, at })
        .collect();
    let last = edges.len().saturating_sub(1);
    Intersections::from_iter(edges).any(|(a, b, meet)| {
        let (low, high) = (a.at.min(b.at), a.at.max(b.at));
        let neighbours = high == low + 1 || (low == 0 && high == last);
        let at_shared_vertex = match meet {
            LineIntersection::SinglePoint { intersection, .. } => {
                [a.line.start, a.line.end].contains(&intersection)
                    && [b.line.start, b.line.end].contains(&intersection)
            }
            LineIntersection::Collinear { .. } => false,
        };
        !(neighbours && at_shared_vertex)
    })
}

/// Each hole inside the shell, touching it at points at most; no two holes
/// overlapping or sharing an edge.
fn holes_problem(polygon: &Polygon<f64>) -> Option<String> {
    if polygon.interiors().is_empty() {
        return None;
    }
    let shell = Polygon::new(polygon.exterior().clone(), vec![]);
    let shell = PreparedGeometry::from(&shell);
    let holes: Vec<Polygon<f64>> = polygon
        .interiors()
        .iter()
        .map(|r| Polygon::new(r.clone(), vec![]))
        .collect();
    for (h, hole) in holes.iter().enumerate() {
        let m = shell.relate(hole);
        if !m.is_contains() {
            return Some(format!("hole {} is not inside the shell", h + 1));
        }
        if m.get(CoordPos::OnBoundary, CoordPos::OnBoundary) == Dimensions::OneDimensional {
            return Some(format!("hole {} shares an edge with the shell", h + 1));
        }
    }
    pairs_problem(&holes, "holes")
}

/// No two parts of a MultiPolygon overlapping or sharing an edge.
fn parts_problem(shape: &MultiPolygon<f64>) -> Option<String> {
    let shells: Vec<Polygon<f64>> = shape.iter().cloned().collect();
    pairs_problem(&shells, "polygons")
}

/// The first pair of `shapes` whose interiors overlap or whose boundaries
/// share an edge, named by their places among `what`.
fn pairs_problem(shapes: &[Polygon<f64>], what: &str) -> Option<String> {
    let rects: Vec<_> = shapes.iter().map(|s| s.bounding_rect()).collect();
    for i in 0..shapes.len() {
        for j in i + 1..shapes.len() {
            let (Some(a), Some(b)) = (rects[i], rects[j]) else {
                continue;
            };
            if !a.intersects(&b) {
                continue;
            }
            let m = shapes[i].relate(&shapes[j]);
            if m.get(CoordPos::Inside, CoordPos::Inside) == Dimensions::TwoDimensional {
                return Some(format!("{what} {} and {} overlap", i + 1, j + 1));
            }
            if m.get(CoordPos::OnBoundary, CoordPos::OnBoundary) == Dimensions::OneDimensional {
                return Some(format!("{what} {} and {} share an edge", i + 1, j + 1));
            }
        }
    }
    None
}
