//! What gzip costs the server per answer, measured by bench/gzip.sh: each
//! FILE (an answer's body as the server sent it) compressed again and again
//! by the server's own code (src/app/gzip.rs: the worker's compressor, reset
//! per answer, at its level), and once more at the level kept files get.
//!
//! Usage: gzip_cost FILE... Prints a tab-separated line per file: its name,
//! its bytes, the gzip bytes, and the µs one compression took (the median of
//! nine rounds of at least 20 ms each).

use std::time::{Duration, Instant};

use area_scoring::app::gzip::gzip;

/// The least time one round compresses for, so a round is not all timer.
const ROUND: Duration = Duration::from_millis(20);
const ROUNDS: usize = 9;

fn main() {
    println!("file\tbytes\tgzip_bytes\tgzip_us");
    for path in std::env::args().skip(1) {
        let body = std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
        let zipped = gzip(&body).expect("gzip");
        let mut rounds: Vec<f64> = (0..ROUNDS)
            .map(|_| {
                let (started, mut n) = (Instant::now(), 0u32);
                while started.elapsed() < ROUND {
                    std::hint::black_box(gzip(std::hint::black_box(&body)));
                    n += 1;
                }
                started.elapsed().as_secs_f64() * 1e6 / f64::from(n)
            })
            .collect();
        rounds.sort_by(f64::total_cmp);
        let name = path.rsplit('/').next().unwrap_or(&path);
        println!(
            "{name}\t{}\t{}\t{:.1}",
            body.len(),
            zipped.len(),
            rounds[ROUNDS / 2]
        );
    }
}
