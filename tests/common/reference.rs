//! Brute-force Search (docs/api.md "Search Areas", viewports and provinces included): the
//! matches of a set of criteria over every area and their documented order,
//! worked out from the list form of each area and its centre, without the
//! server's index. `Criteria` also writes the criteria as a query string.

use std::sync::OnceLock;

use serde_json::Value;

use super::calc::{by_relevance, haversine_km, text_matches};
use super::{TestApp, assert_nearest_first, encode, seed_places};

/// An area as the reference sees it: its list form, its centre and its
/// province's slug.
#[derive(Debug, Clone)]
pub struct Area {
    pub item: Value,
    pub lat: f64,
    pub lng: f64,
    pub province_slug: String,
}

impl Area {
    pub fn id(&self) -> &str {
        self.item["id"].as_str().unwrap()
    }

    pub fn score(&self) -> f64 {
        self.item["truth_score"].as_f64().unwrap()
    }
}

/// Every area of the seeded app: List Areas' list form with the centre and
/// the province slug that seed/za-areas.csv gives it.
pub fn seed_areas(app: &'static TestApp) -> &'static [Area] {
    static AREAS: OnceLock<Vec<Area>> = OnceLock::new();
    AREAS.get_or_init(|| {
        let places = seed_places();
        app.listed()
            .iter()
            .map(|item| {
                let place = places
                    .iter()
                    .find(|p| item["id"] == p.id.as_str())
                    .expect("every listed area is a seed place");
                Area {
                    item: item.clone(),
                    lat: place.lat,
                    lng: place.lng,
                    province_slug: place.province_slug.clone(),
                }
            })
            .collect()
    })
}

/// minLng, minLat, maxLng, maxLat.
pub type BBox = [f64; 4];

/// Whether a centre lies in a box, edges included; a box whose minLng is
/// greater than its maxLng crosses the antimeridian.
pub fn in_box(b: &BBox, lat: f64, lng: f64) -> bool {
    let [west, south, east, north] = *b;
    let lng_in = if west > east {
        lng >= west || lng <= east
    } else {
        west <= lng && lng <= east
    };
    lng_in && south <= lat && lat <= north
}

/// The criteria of one search.
#[derive(Debug, Clone, Default)]
pub struct Criteria {
    pub q: Option<String>,
    /// lat, lng and the radius (None: the default, 10 km).
    pub near: Option<(f64, f64, Option<f64>)>,
    pub bbox: Option<BBox>,
    pub min_score: Option<f64>,
    /// A province's slug.
    pub province: Option<String>,
}

impl Criteria {
    pub fn q(mut self, q: &str) -> Self {
        self.q = Some(q.into());
        self
    }

    pub fn near(mut self, lat: f64, lng: f64, radius: Option<f64>) -> Self {
        self.near = Some((lat, lng, radius));
        self
    }

    pub fn bbox(mut self, b: BBox) -> Self {
        self.bbox = Some(b);
        self
    }

    pub fn min_score(mut self, m: f64) -> Self {
        self.min_score = Some(m);
        self
    }

    pub fn province(mut self, slug: &str) -> Self {
        self.province = Some(slug.into());
        self
    }

    pub fn radius(&self) -> f64 {
        self.near.and_then(|n| n.2).unwrap_or(10.0)
    }

    /// The criteria as query parameters, numbers in Rust's shortest
    /// round-trip notation so the server reads the very same values.
    pub fn query(&self) -> String {
        let mut parts = Vec::new();
        // Strict matching: the reference here is text_matches (calc.rs);
        // forgiving search has its own (forgiving.rs, tests/search_forgiving.rs).
        if let Some(q) = &self.q {
            parts.push(format!("q={}&match=exact", encode(q)));
        }
        if let Some((lat, lng, radius)) = self.near {
            parts.push(format!("lat={lat}&lng={lng}"));
            if let Some(r) = radius {
                parts.push(format!("radius={r}"));
            }
        }
        if let Some([a, b, c, d]) = self.bbox {
            parts.push(format!("bbox={a},{b},{c},{d}"));
        }
        if let Some(m) = self.min_score {
            parts.push(format!("min_score={m}"));
        }
        if let Some(slug) = &self.province {
            parts.push(format!("province={}", encode(slug)));
        }
        parts.join("&")
    }

    /// The distance from the centre of the circle, when there is one.
    fn distance(&self, a: &Area) -> Option<f64> {
        self.near
            .map(|(lat, lng, _)| haversine_km(lat, lng, a.lat, a.lng))
    }

    /// Every criterion but the circle.
    fn admits_without_circle(&self, a: &Area) -> bool {
        self.q
            .as_deref()
            .is_none_or(|q| text_matches(&a.item, q, false))
            && self.bbox.is_none_or(|b| in_box(&b, a.lat, a.lng))
            && self.min_score.is_none_or(|m| a.score() >= m)
            && self.province.as_ref().is_none_or(|p| *p == a.province_slug)
    }

    /// The ids of every match in the documented order: relevance with q,
    /// else distance with lat/lng, else truth_score descending; ties by id.
    pub fn expected<'a>(&self, areas: &'a [Area]) -> Vec<&'a str> {
        let r = self.radius();
        let mut found: Vec<(&Area, f64)> = areas
            .iter()
            .filter(|a| self.admits_without_circle(a))
            .map(|a| (a, self.distance(a).unwrap_or(0.0)))
            .filter(|(_, d)| *d <= r)
            .collect();
        if let Some(q) = &self.q {
            return by_relevance(found.iter().map(|(a, _)| &a.item).collect(), q);
        }
        if self.near.is_some() {
            found.sort_by(|x, y| x.1.total_cmp(&y.1).then(x.0.id().cmp(y.0.id())));
        } else {
            found.sort_by(|x, y| {
                y.0.score()
                    .total_cmp(&x.0.score())
                    .then(x.0.id().cmp(y.0.id()))
            });
        }
        found.iter().map(|(a, _)| a.id()).collect()
    }

    /// Checks `got`, every match as served in order, against brute force.
    /// Where a circle decides, a difference is tolerated only where floating
    /// point could fairly decide either way (see `assert_nearest_first`).
    pub fn assert_matches(&self, what: &str, got: &[&str], areas: &[Area]) {
        let want = self.expected(areas);
        if got == want {
            return;
        }
        let Some(_) = self.near else {
            panic!("{what}: served {got:?}\nbrute force {want:?}");
        };
        let all: Vec<(f64, &str)> = areas
            .iter()
            .filter(|a| self.admits_without_circle(a))
            .map(|a| (self.distance(a).unwrap(), a.id()))
            .collect();
        if self.q.is_none() {
            assert_nearest_first(what, got, &all, usize::MAX, self.radius());
        } else {
            let on_edge = all.iter().any(|(d, _)| (d - self.radius()).abs() < 1e-9);
            assert!(on_edge, "{what}: served {got:?}\nbrute force {want:?}");
        }
    }
}
