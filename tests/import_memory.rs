//! `import` reads its file as a stream (docs/import.md, "Memory"): the real
//! binary imports files larger than its memory bound, CSV and JSON Lines,
//! with a peak resident memory (VmHWM, from /proc) within 256 MiB. The
//! files are mostly what the formats skip (CSV comment lines, blank JSON
//! Lines), so the import is quick while the file alone would break the
//! bound if held. The peak at 400,000 and 1,000,000 real rows is
//! measured by bench/build_memory.sh.
#![cfg(target_os = "linux")]

mod common;

use std::fs::{self, File};
use std::io::{BufWriter, Write};
use std::path::Path;
use std::process::Stdio;
use std::time::Duration;

use common::bin::{command, text};
use common::scratch_dir;

/// The bound, in KiB as /proc gives it (load::BUILD_MEMORY_MIB).
const BOUND_KIB: u64 = area_scoring::data::load::BUILD_MEMORY_MIB * 1024;
/// The size of each file: beyond the bound.
const FILE_BYTES: u64 = 280 * 1024 * 1024;
const ROWS: u64 = 20_000;

/// Skipped text after each row, `lead` and blank space, enough to make each
/// row FILE_BYTES / ROWS bytes.
fn padding(lead: &str) -> String {
    format!("{lead}{}", " ".repeat((FILE_BYTES / ROWS) as usize))
}

fn write_csv(path: &Path) {
    let mut out = BufWriter::new(File::create(path).unwrap());
    writeln!(
        out,
        "id,name,province,municipality,lat,lng,safety,safety_weight,safety_sources"
    )
    .unwrap();
    let pad = padding("#");
    for i in 0..ROWS {
        writeln!(
            out,
            "area-{i},Area {i},gauteng,M,-26.2,28.0,6.5,1,saps\n{pad}"
        )
        .unwrap();
    }
    out.flush().unwrap();
}

fn write_jsonl(path: &Path) {
    let mut out = BufWriter::new(File::create(path).unwrap());
    let pad = padding("");
    for i in 0..ROWS {
        writeln!(
            out,
            r#"{{"id":"area-{i}","name":"Area {i}","province":"gauteng","municipality":"M","lat":-26.2,"lng":28.0,"dimensions":{{"safety":{{"score":6.5,"weight":1,"sources":["saps"]}}}}}}
{pad}"#
        )
        .unwrap();
    }
    out.flush().unwrap();
}

/// The process's peak resident memory so far, in KiB.
fn vm_hwm_kib(pid: u32) -> Option<u64> {
    let status = fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// Runs `import` and returns its peak resident memory in KiB, read until it exits.
fn import_peak_kib(db: &Path, file: &Path) -> u64 {
    let mut child = command(
        &[
            "import",
            "--db",
            db.to_str().unwrap(),
            file.to_str().unwrap(),
        ],
        &[],
        Path::new("/"),
    )
    .stdout(Stdio::null())
    .stderr(Stdio::piped())
    .spawn()
    .unwrap();
    let mut peak = 0;
    let status = loop {
        // Read before asking whether it ended: a process that has ended has no memory to read.
        if let Some(kib) = vm_hwm_kib(child.id()) {
            peak = peak.max(kib);
        }
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let mut err = String::new();
    std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut err).unwrap();
    assert!(status.success(), "import failed: {}", text(err.as_bytes()));
    assert!(err.contains(&format!("{ROWS} areas")), "{err}");
    peak
}

#[test]
fn a_file_larger_than_the_bound_imports_within_it() {
    let dir = scratch_dir("import-memory");
    let db = dir.join("areas.db");
    for (name, write) in [
        ("big.csv", write_csv as fn(&Path)),
        ("big.jsonl", write_jsonl),
    ] {
        let file = dir.join(name);
        write(&file);
        assert!(fs::metadata(&file).unwrap().len() >= FILE_BYTES);
        let peak = import_peak_kib(&db, &file);
        eprintln!(
            "{name}: {} MiB file, peak {} MiB",
            FILE_BYTES >> 20,
            peak / 1024
        );
        assert!(peak > 0, "VmHWM was read");
        assert!(
            peak <= BOUND_KIB,
            "{name}: peak {peak} KiB, bound {BOUND_KIB} KiB"
        );
        fs::remove_file(&file).unwrap();
    }
}
