//! Times the typo walk (search/words/typo_walk.rs) over a dataset's vocabulary,
//! for bench/PROFILE.md: each word of a file, one a line, walked in both
//! modes at the bound its length gives (one typo from 5 letters, two from 9).
//!
//!     cargo run --release --example typo_walk_time -- AREAS.db WORDS.txt

use std::time::Instant;

use area_scoring::api::contract::{TYPO_ONE_FROM, TYPO_TWO_FROM};
use area_scoring::search::words::typo_walk::{Mode, near};
use area_scoring::search::words::vocabulary::Vocabulary;
use rusqlite::{Connection, OpenFlags};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let [_, db, words] = args.as_slice() else {
        return Err("usage: typo_walk_time AREAS.db WORDS.txt".into());
    };
    let conn = Connection::open_with_flags(db, OpenFlags::SQLITE_OPEN_READ_ONLY)?;
    let v = Vocabulary::read(&conn)?;
    println!("{} words, {} KiB in memory", v.len(), v.heap_bytes() / 1024);
    let words = std::fs::read_to_string(words)?;
    let bands = [
        (TYPO_ONE_FROM, TYPO_TWO_FROM, 1),
        (TYPO_TWO_FROM, usize::MAX, 2),
    ];
    for mode in [Mode::Whole, Mode::Prefix] {
        for (shortest, longer_than, most) in bands {
            let (mut walks, mut micros, mut worst) = (0, 0.0, 0.0f64);
            for word in words
                .lines()
                .filter(|w| (shortest..longer_than).contains(&w.len()))
            {
                let started = Instant::now();
                std::hint::black_box(near(&v, word.as_bytes(), most, mode));
                let took = started.elapsed().as_secs_f64() * 1e6;
                walks += 1;
                micros += took;
                worst = worst.max(took);
            }
            let mean = micros / f64::from(walks.max(1));
            println!(
                "{mode:?}, {most} edits: {walks} walks, mean {mean:.1} us, worst {worst:.1} us"
            );
        }
    }
    Ok(())
}
