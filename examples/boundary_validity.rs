//! Times OGC validity of one ring of N positions two ways, for bench/PROFILE.md
//! ("Boundary validity"): georust's `Validation`, which compares every pair of
//! a ring's edges, and src/data/boundary/validity.rs, which finds crossings by
//! georust's sweep. The two alternate, three rounds each, and the median is
//! printed. `Validation` is left out above 10,000 positions unless `--all` is
//! given (at 100,000 it takes over a minute a round).
//!
//!     cargo run --release --example boundary_validity [-- --all]

use std::time::{Duration, Instant};

use area_scoring::data::boundary::validity;
use geo::{Coord, LineString, MultiPolygon, Polygon, Validation};

/// A circle of `n` positions around a South African centre, closed.
fn circle(n: usize) -> MultiPolygon<f64> {
    let mut ring: Vec<Coord> = (0..n)
        .map(|i| {
            let t = i as f64 / n as f64 * std::f64::consts::TAU;
            Coord {
                x: 25.0 + t.cos(),
                y: -29.0 + t.sin(),
            }
        })
        .collect();
    ring.push(ring[0]);
    MultiPolygon::new(vec![Polygon::new(LineString::from(ring), vec![])])
}

fn timed(check: impl Fn() -> bool) -> Duration {
    let start = Instant::now();
    assert!(check(), "the circle is valid");
    start.elapsed()
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn main() {
    let all = std::env::args().any(|a| a == "--all");
    println!("positions  georust Validation  sweep (validity.rs)");
    for n in [1_000, 10_000, 100_000] {
        let shape = circle(n);
        let with_georust = all || n <= 10_000;
        let (mut georust, mut sweep) = (Vec::new(), Vec::new());
        for _ in 0..3 {
            if with_georust {
                georust.push(timed(|| shape.is_valid()));
            }
            sweep.push(timed(|| validity::first_problem(&shape).is_none()));
        }
        let georust = if with_georust {
            format!("{:?}", median(georust))
        } else {
            "-".into()
        };
        println!("{n:>9}  {georust:>18}  {:?}", median(sweep));
    }
}
