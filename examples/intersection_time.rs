//! Times the two ways of seeking ranks in a sorted list (search/matches/seek.rs),
//! stepping and galloping, for bench/PROFILE.md ("Intersections"): a list of
//! random ranks below a million sought in one several times longer, as a
//! full name's rare word meets a heavy one at a million areas.
//!
//!     cargo run --release --example intersection_time

use std::time::Instant;

use area_scoring::search::matches::seek::Seek;

/// Sorted random ranks below a million, each once.
fn ranks(n: usize, seed: &mut u64) -> Vec<u32> {
    let mut v: Vec<u32> = (0..n)
        .map(|_| {
            *seed ^= *seed << 13;
            *seed ^= *seed >> 7;
            *seed ^= *seed << 17;
            (*seed % 1_000_000) as u32
        })
        .collect();
    v.sort_unstable();
    v.dedup();
    v
}

/// Mean µs to find which of `short` `long` holds, seeking as if for
/// `sought` ranks (1 gallops; a huge number steps).
fn time(short: &[u32], long: &[u32], sought: usize) -> f64 {
    const ROUNDS: u32 = 2000;
    let started = Instant::now();
    for _ in 0..ROUNDS {
        let mut seek = Seek::new(long, sought);
        let found = short.iter().filter(|&&r| seek.holds(r)).count();
        std::hint::black_box(found);
    }
    started.elapsed().as_secs_f64() * 1e6 / f64::from(ROUNDS)
}

fn main() {
    let mut seed = 12345;
    println!("| sought | list | galloping µs | stepping µs |\n|---:|---:|---:|---:|");
    for (short, long) in [
        (952, 4840),
        (500, 3871),
        (1000, 8000),
        (1000, 16000),
        (1000, 32000),
        (1000, 100_000),
    ] {
        let (a, b) = (ranks(short, &mut seed), ranks(long, &mut seed));
        let (gallop, step) = (time(&a, &b, 1), time(&a, &b, usize::MAX / 64));
        println!("| {short} | {long} | {gallop:.1} | {step:.1} |");
    }
}
