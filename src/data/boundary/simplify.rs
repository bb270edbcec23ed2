//! A boundary's simplified forms, one a tolerance of
//! `SIMPLIFY_TOLERANCES_M`, computed when the file is written.
//!
//! Each ring is simplified by Ramer–Douglas–Peucker (georust's
//! `SimplifyIdx`), which keeps a subset of the ring's own positions, in a
//! local projection where a degree of longitude is shortened by the cosine
//! of the polygon's latitude, so that the tolerance is metres in every
//! direction. A polygon whose simplified form is not valid (validity.rs) or
//! has a ring of fewer than 4 positions keeps its form at the next finer
//! tolerance (at the finest, its full form); a whole boundary whose parts
//! come to overlap does the same. Each polygon is simplified alone, so two
//! neighbours' shared edge may be simplified differently on each side:
//! slivers and overlaps between neighbours are possible, never within one
//! boundary.

use geo::{BoundingRect, Coord, LineString, MultiPolygon, Polygon, SimplifyIdx};

use crate::data::boundary::store::SIMPLIFY_TOLERANCES_M;
use crate::data::boundary::{Boundary, validity};

/// Metres in a degree of latitude on the mean Earth (and of longitude at the equator).
const METRES_PER_DEGREE: f64 = 6_371_008.8 * std::f64::consts::PI / 180.0;

/// The forms that differ from the full boundary, by tolerance, finest first.
pub fn simplified_forms(boundary: &Boundary) -> Vec<(u32, Boundary)> {
    let full = boundary.shape();
    let mut finer: MultiPolygon<f64> = full.clone();
    let mut out = Vec::new();
    for tolerance in SIMPLIFY_TOLERANCES_M {
        let polygons = full
            .iter()
            .zip(finer.iter())
            .map(|(p, kept)| simplified_polygon(p, tolerance).unwrap_or_else(|| kept.clone()))
            .collect();
        let form = MultiPolygon::new(polygons);
        // The finer form is valid already: only a changed one is checked.
        let form = match form == finer || validity::first_problem(&form).is_none() {
            true => form,
            false => finer.clone(),
        };
        if form != *full {
            out.push((
                tolerance,
                Boundary {
                    shape: form.clone(),
                    multi: boundary.multi,
                },
            ));
        }
        finer = form;
    }
    out
}

/// One polygon simplified at `tolerance_m`, or None when the result would
/// not be valid or a ring would be too short.
fn simplified_polygon(polygon: &Polygon<f64>, tolerance_m: u32) -> Option<Polygon<f64>> {
    let rect = polygon.bounding_rect()?;
    let cos = rect.center().y.to_radians().cos().max(1e-6);
    let epsilon = f64::from(tolerance_m) / METRES_PER_DEGREE;
    let ring = |r: &LineString<f64>| -> Option<LineString<f64>> {
        let projected: LineString<f64> =
            r.0.iter()
                .map(|c| Coord {
                    x: c.x * cos,
                    y: c.y,
                })
                .collect();
        let kept: Vec<Coord<f64>> = projected
            .simplify_idx(epsilon)
            .into_iter()
            .map(|i| r.0[i])
            .collect();
        (kept.len() >= 4).then(|| LineString::from(kept))
    };
    let exterior = ring(polygon.exterior())?;
    let interiors = polygon
        .interiors()
        .iter()
        .map(ring)
        .collect::<Option<Vec<_>>>()?;
    let simplified = Polygon::new(exterior, interiors);
    let alone = MultiPolygon::new(vec![simplified]);
    match validity::first_problem(&alone) {
        None => alone.0.into_iter().next(),
        Some(_) => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::boundary::from_wkt;

    fn boundary(wkt: &str) -> Boundary {
        from_wkt(wkt).unwrap().unwrap()
    }

    #[test]
    fn a_square_is_left_alone_and_a_wiggly_edge_is_straightened() {
        // About 1.1 km a side: no tolerance can drop a corner and keep a ring.
        let square = boundary("POLYGON ((28 -26, 28.01 -26, 28.01 -25.99, 28 -25.99, 28 -26))");
        assert!(simplified_forms(&square).is_empty());
        // A bump of about 20 m in the south edge: gone from 50 m on, kept at 10 m.
        let bumpy = boundary(
            "POLYGON ((28 -26, 28.005 -25.9998, 28.01 -26, 28.01 -25.99, 28 -25.99, 28 -26))",
        );
        let forms = simplified_forms(&bumpy);
        let tolerances: Vec<u32> = forms.iter().map(|f| f.0).collect();
        assert_eq!(tolerances, [50, 250, 1000]);
        for (_, form) in &forms {
            assert_eq!(form.vertices(), 5);
            assert!(validity::first_problem(form.shape()).is_none());
        }
    }

    #[test]
    fn a_hole_too_small_to_keep_leaves_its_polygon_at_the_finer_form() {
        // A hole of about 30 m: at 50 m and beyond it would fall below 4
        // positions, so the polygon keeps its full form and no row differs.
        let holed = boundary(
            "POLYGON ((28 -26, 28.01 -26, 28.01 -25.99, 28 -25.99, 28 -26), \
             (28.005 -25.995, 28.0052 -25.9952, 28.0054 -25.995, 28.005 -25.995))",
        );
        for (_, form) in simplified_forms(&holed) {
            assert_eq!(form.shape().0[0].interiors().len(), 1);
        }
    }

    #[test]
    fn a_multipolygon_stays_a_multipolygon() {
        let two = boundary(
            "MULTIPOLYGON (((28 -26, 28.005 -25.9998, 28.01 -26, 28.01 -25.99, 28 -25.99, 28 -26)), \
             ((29 -26, 29.01 -26, 29.01 -25.99, 29 -25.99, 29 -26)))",
        );
        let forms = simplified_forms(&two);
        assert!(!forms.is_empty());
        for (_, form) in forms {
            assert_eq!(form.shape().0.len(), 2);
            assert_eq!(form.to_geojson()["type"], "MultiPolygon");
        }
    }
}
