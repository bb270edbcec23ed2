//! `import` reads its file as a stream (docs/import.md, "Memory"): the real
//! binary imports files larger than its memory bound, CSV and JSON Lines,
//! with a peak resident memory (VmHWM, from /proc) within 256 MiB. The
//! files are mostly what the formats skip (CSV comment lines, blank JSON
//! Lines), so the import is quick while the file alone would break the
//! bound if held. The peak at 400,000 and 1,000,000 real rows is
//! measured by bench/build_memory.sh. The same bound holds for a file
//! refused for its rows (docs/import.md, "The rules"): a 100 MB field or
//! line, a quoted field open to the end, a gigabyte without a line break, and
//! for an input that is not a regular file, each refused without a change.
#![cfg(target_os = "linux")]

mod common;

use std::fs::{self, File};
use std::io::{BufWriter, Read, Write};
use std::path::Path;
use std::process::Stdio;
use std::time::{Duration, Instant};

use common::bin::{command, text, wait_with_peak_kib};
use common::{fresh_db, scratch_dir};

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

/// Runs `import` and returns its peak resident memory in KiB, read until it exits.
fn import_peak_kib(db: &Path, file: &Path) -> u64 {
    let child = spawn_import(db, file);
    let (status, err, peak) = wait_with_peak_kib(child);
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

/// The size of the big field or line of a refused file.
const BIG: usize = 100_000_000;
const HEADER: &str = "id,name,province,municipality,lat,lng,safety,safety_weight,safety_sources";

fn csv_row(i: u32) -> String {
    format!("area-{i},Area {i},gauteng,M,-26.2,28.0,6.5,1,saps\n")
}

fn jsonl_row(i: u32) -> String {
    format!(
        r#"{{"id":"area-{i}","name":"Area {i}","province":"gauteng","municipality":"M","lat":-26.2,"lng":28.0,"dimensions":{{"safety":{{"score":6.5,"weight":1,"sources":["saps"]}}}}}}"#
    ) + "\n"
}

/// Writes `head`, `fill` bytes of `x`, then `tail`.
fn write_big(path: &Path, head: &str, fill: usize, tail: &str) {
    let mut out = BufWriter::new(File::create(path).unwrap());
    out.write_all(head.as_bytes()).unwrap();
    let chunk = vec![b'x'; 1 << 20];
    let mut left = fill;
    while left > 0 {
        let n = left.min(chunk.len());
        out.write_all(&chunk[..n]).unwrap();
        left -= n;
    }
    out.write_all(tail.as_bytes()).unwrap();
    out.flush().unwrap();
}

/// A file of `len` bytes, all zero, that takes no disk (sparse).
fn sparse(path: &Path, len: u64) {
    File::create(path).unwrap().set_len(len).unwrap();
}

/// Runs `import`, which must fail with exit 1 within a minute (a FIFO's
/// open would wait for ever), and returns its stderr and peak resident
/// memory in KiB, from the kernel's account of the ended process (wait4),
/// which no sampling can miss however soon it ends. It is an upper bound:
/// Linux counts in it the peak of this test process, which spawned it.
// The child is reaped by wait4, which gives its peak; std's wait cannot.
#[allow(clippy::zombie_processes)]
fn refused_peak_kib(db: &Path, file: &Path) -> (String, u64) {
    let child = spawn_import(db, file);
    let pid = child.id() as libc::pid_t;
    let deadline = Instant::now() + Duration::from_secs(60);
    let (mut status, mut usage) = (0, unsafe { std::mem::zeroed::<libc::rusage>() });
    loop {
        // SAFETY: wait4 writes only into the two locals it is given.
        let ended = unsafe { libc::wait4(pid, &mut status, libc::WNOHANG, &mut usage) };
        assert!(ended >= 0, "wait4: {}", std::io::Error::last_os_error());
        if ended == pid {
            break;
        }
        if Instant::now() > deadline {
            // SAFETY: the child is ours and has not been reaped.
            unsafe { libc::kill(pid, libc::SIGKILL) };
            panic!("import of {} did not end within a minute", file.display());
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    let mut err = String::new();
    child.stderr.unwrap().read_to_string(&mut err).unwrap();
    assert!(
        libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 1,
        "{}: exit status {status}: {err}",
        file.display()
    );
    (err, usage.ru_maxrss as u64)
}

#[test]
fn rows_past_the_cap_and_inputs_that_are_no_file_are_refused_within_the_bound() {
    let dir = scratch_dir("import-refused");
    let db = fresh_db("import-refused-db");
    let before = fs::read(&db).unwrap();
    let unchanged = "nothing was imported and the database is unchanged";
    let not_a_file = "is not a regular file (a pipe, a socket or a device); import reads the file twice, so decompress or copy it to a file first";
    type Make = Box<dyn Fn(&Path)>;
    let cases: Vec<(&str, Make, Vec<String>)> = vec![
        (
            "field.csv",
            Box::new(|p| {
                let head = format!("{HEADER}\n{}area-2,", csv_row(1));
                write_big(p, &head, BIG, &format!(",gauteng,M,1,2,6.5,1,saps\n{}", csv_row(3)));
            }),
            vec![
                "has 1 problem on 1 line".into(),
                format!("line 3: this row is {} bytes, more than the 16777216 bytes (16 MiB) a row may hold", BIG + 33),
                unchanged.into(),
            ],
        ),
        (
            "line.jsonl",
            Box::new(|p| {
                write_big(p, &format!("{}{{\"id\":\"", jsonl_row(1)), BIG, &format!("\"}}\n{}", jsonl_row(3)));
            }),
            vec![
                "has 1 problem on 1 line".into(),
                format!("line 2: this row is {} bytes, more than the 16777216 bytes (16 MiB) a row may hold", BIG + 9),
                unchanged.into(),
            ],
        ),
        (
            "open-quote.csv",
            Box::new(|p| write_big(p, &format!("{HEADER}\n{}area-2,\"", csv_row(1)), BIG, "")),
            vec![
                "has 1 problem on 1 line".into(),
                "line 3: a quoted field opened in this row is not closed before the end of the file".into(),
                unchanged.into(),
            ],
        ),
        (
            "no-line-break.jsonl",
            Box::new(|p| sparse(p, 1 << 30)),
            vec!["line 1: this row is 1073741824 bytes, more than the 16777216 bytes".into(), unchanged.into()],
        ),
        (
            "no-line-break.csv",
            Box::new(|p| sparse(p, 1 << 30)),
            vec!["line 1: the header is more than 16777216 bytes (16 MiB), the most a row may hold".into(), unchanged.into()],
        ),
        (
            "fifo.jsonl",
            Box::new(|p| {
                let path = std::ffi::CString::new(p.to_str().unwrap()).unwrap();
                // SAFETY: mkfifo reads the NUL-terminated path it is given.
                assert_eq!(unsafe { libc::mkfifo(path.as_ptr(), 0o600) }, 0);
            }),
            vec![not_a_file.into()],
        ),
        (
            "zero-device.jsonl",
            Box::new(|p| std::os::unix::fs::symlink("/dev/zero", p).unwrap()),
            vec![not_a_file.into()],
        ),
    ];
    for (name, make, expected) in cases {
        let file = dir.join(name);
        make(&file);
        let (err, peak) = refused_peak_kib(&db, &file);
        eprintln!("{name}: refused, peak {} MiB", peak / 1024);
        for words in &expected {
            assert!(
                err.contains(words.as_str()),
                "{name}: {words:?} missing from:\n{err}"
            );
        }
        assert!(peak > 0, "{name}: the peak was read");
        assert!(
            peak <= BOUND_KIB,
            "{name}: peak {peak} KiB, bound {BOUND_KIB} KiB"
        );
        assert!(
            fs::read(&db).unwrap() == before,
            "{name}: the database changed"
        );
        fs::remove_file(&file).unwrap();
    }
}

/// `import --db DB FILE`, its stderr piped.
fn spawn_import(db: &Path, file: &Path) -> std::process::Child {
    let args = [
        "import",
        "--db",
        db.to_str().unwrap(),
        file.to_str().unwrap(),
    ];
    command(&args, &[], Path::new("/"))
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}
