//! The command line, driven as a user drives it: the built binary run with
//! `std::process::Command`. init and --force, keys create/list/revoke (and a
//! running server seeing a revocation), serve on port 0 and on bad files,
//! usage errors, --help everywhere, and AREA_DB for every subcommand.

mod common;

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use common::bin::{Served, command, ok, run, text};
use common::{assert_error, scratch_dir};

/// A database made by `init`, shared by the tests that only add keys to it.
fn shared_db() -> &'static Path {
    static DB: OnceLock<PathBuf> = OnceLock::new();
    DB.get_or_init(|| {
        let db = scratch_dir("cli").join("areas.db");
        ok(&["init", "--db", db.to_str().unwrap()]);
        db
    })
}

fn create_key(db: &Path, plan: &str, label: &str) -> String {
    let stdout = ok(&[
        "keys",
        "create",
        "--db",
        db.to_str().unwrap(),
        "--plan",
        plan,
        "--label",
        label,
    ]);
    // The key and nothing else: one line, one token.
    let key = stdout.strip_suffix('\n').unwrap_or(&stdout);
    assert!(
        !key.is_empty() && !key.contains(char::is_whitespace),
        "stdout is only the key: {stdout:?}"
    );
    key.to_string()
}

/// Serves `db` and requires that `key` is still accepted.
fn assert_key_works(db: &str, dir: &Path, key: &str, why: &str) {
    let server = Served::start(&["--db", db], &[], dir);
    assert_eq!(server.get("/v1/areas?limit=1", key).status, 200, "{why}");
}

/// Sets the file's schema version, as an older or newer build would have.
fn set_schema_version(db: &Path, version: i64) {
    rusqlite::Connection::open(db)
        .unwrap()
        .execute_batch(&format!("PRAGMA user_version = {version}"))
        .unwrap();
}

#[test]
fn init_refuses_an_existing_file_and_force_replaces_it_keeping_keys() {
    let dir = scratch_dir("cli-init");
    let db = dir.join("areas.db");
    let path = db.to_str().unwrap();
    ok(&["init", "--db", path]);
    let key = create_key(&db, "growth", "kept");
    let before = std::fs::read(&db).unwrap();
    let out = run(&["init", "--db", path], &[], &dir);
    assert_eq!(out.status.code(), Some(1), "an existing file is refused");
    let err = text(&out.stderr);
    assert!(
        err.contains("--force") && err.contains(path),
        "a clear message: {err}"
    );
    assert_eq!(
        std::fs::read(&db).unwrap(),
        before,
        "the refused file is untouched"
    );
    ok(&["init", "--db", path, "--force"]);
    assert_key_works(path, &dir, &key, "the key survived --force");
}

/// A file from an older build (schema version 1) is refused by serve with a
/// message naming the way out, and that way out keeps the API keys.
#[test]
fn an_older_schema_is_refused_and_rewriting_it_keeps_the_keys() {
    let dir = scratch_dir("cli-upgrade");
    let db = dir.join("areas.db");
    let path = db.to_str().unwrap();
    ok(&["init", "--db", path]);
    let key = create_key(&db, "growth", "from-v1");
    set_schema_version(&db, 1);
    let out = run(&["serve", "--db", path, "--addr", "127.0.0.1:0"], &[], &dir);
    assert_eq!(out.status.code(), Some(1), "an old file is refused");
    let err = text(&out.stderr);
    assert!(
        err.contains("schema version 1") && err.contains("import") && err.contains("init --force"),
        "the message says what to do: {err}"
    );
    ok(&["init", "--db", path, "--force"]);
    assert_key_works(
        path,
        &dir,
        &key,
        "the key survived init --force over a version-1 file",
    );
    // import takes the same way out.
    set_schema_version(&db, 1);
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let example = root.join("seed/example-import.jsonl");
    ok(&["import", "--db", path, example.to_str().unwrap()]);
    assert_key_works(
        path,
        &dir,
        &key,
        "the key survived import over a version-1 file",
    );
    // A newer schema than this build knows: its keys cannot be read, so the
    // file is refused and left exactly as it was.
    set_schema_version(&db, 99);
    let before = std::fs::read(&db).unwrap();
    let out = run(&["init", "--db", path, "--force"], &[], &dir);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    assert!(
        text(&out.stderr).contains("API keys"),
        "{}",
        text(&out.stderr)
    );
    assert_eq!(std::fs::read(&db).unwrap(), before, "untouched");
}

#[test]
fn keys_are_created_listed_without_the_key_and_revoked() {
    let db = shared_db();
    let path = db.to_str().unwrap();
    let keys: Vec<(&str, String)> = ["free", "starter", "growth", "enterprise"]
        .iter()
        .map(|p| (*p, create_key(db, p, &format!("list-{p}"))))
        .collect();
    let listing = ok(&["keys", "list", "--db", path]);
    let line_of = |listing: &str, label: &str| -> Vec<String> {
        let line = listing
            .lines()
            .find(|l| l.split_whitespace().nth(2) == Some(label));
        line.unwrap_or_else(|| panic!("a line for {label}: {listing}"))
            .split_whitespace()
            .map(str::to_string)
            .collect()
    };
    let looks_like_a_time = |t: &str| {
        t.len() >= 10 && t.as_bytes()[4] == b'-' && t[..4].bytes().all(|b| b.is_ascii_digit())
    };
    for (plan, key) in &keys {
        assert!(!listing.contains(key.as_str()), "never the key: {listing}");
        let fields = line_of(&listing, &format!("list-{plan}"));
        assert!(
            fields.len() >= 4 && fields[1] == *plan,
            "id, plan, label, created: {fields:?}"
        );
        assert!(looks_like_a_time(&fields[3]), "created time: {fields:?}");
        assert!(
            !fields.get(4).is_some_and(|t| looks_like_a_time(t)),
            "not revoked yet: {fields:?}"
        );
    }
    // Revoke the growth key by the id that the listing shows first.
    let id = line_of(&listing, "list-growth")[0].clone();
    let server = Served::start(&["--db", path], &[], Path::new("/"));
    let growth = &keys[2].1;
    assert_eq!(server.get("/v1/areas?limit=1", growth).status, 200);
    ok(&["keys", "revoke", "--db", path, &id]);
    let fields = line_of(&ok(&["keys", "list", "--db", path]), "list-growth");
    assert!(
        fields.get(4).is_some_and(|t| looks_like_a_time(t)),
        "revoked time shown: {fields:?}"
    );
    // The running server refuses the revoked key (issue 4 allows up to 5 s).
    let deadline = Instant::now() + Duration::from_secs(8);
    let mut reply = server.get("/v1/areas?limit=1", growth);
    while reply.status == 200 && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(200));
        reply = server.get("/v1/areas?limit=1", growth);
    }
    assert_error(&reply, 401, "invalid_api_key", None);
    assert_eq!(
        server.get("/v1/areas?limit=1", &keys[3].1).status,
        200,
        "other keys still work"
    );
    // Revoking an unknown id is an error that says so.
    let out = run(
        &["keys", "revoke", "--db", path, "key_doesnotexist"],
        &[],
        Path::new("/"),
    );
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out.stderr).contains("key_doesnotexist") && out.stdout.is_empty(),
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn serve_refuses_a_missing_or_foreign_file_with_exit_1_and_no_panic() {
    let dir = scratch_dir("cli-bad-db");
    let text_file = dir.join("notes.txt");
    std::fs::write(&text_file, "not a database at all\n").unwrap();
    let foreign = dir.join("other.sqlite");
    rusqlite::Connection::open(&foreign)
        .unwrap()
        .execute_batch("CREATE TABLE t (x)")
        .unwrap();
    for db in [dir.join("missing.db"), text_file, foreign] {
        let mut child = command(
            &[
                "serve",
                "--addr",
                "127.0.0.1:0",
                "--db",
                db.to_str().unwrap(),
            ],
            &[],
            &dir,
        )
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
        let deadline = Instant::now() + Duration::from_secs(20);
        while child.try_wait().unwrap().is_none() {
            if Instant::now() > deadline {
                let _ = child.kill();
                panic!("serve kept running on {}", db.display());
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        let out = child.wait_with_output().unwrap();
        let err = text(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{}: {err}", db.display());
        assert!(err.contains(db.to_str().unwrap()), "names the file: {err}");
        assert!(
            !err.contains("panicked") && !err.contains("RUST_BACKTRACE"),
            "no panic: {err}"
        );
    }
}

#[test]
fn usage_errors_exit_2_with_usage_on_stderr() {
    let db = shared_db().to_str().unwrap();
    for args in [
        vec![],
        vec!["bogus"],
        vec!["serve", "--bogus"],
        vec!["serve", "--db"],
        vec!["serve", "--db", db, "--addr"],
        vec!["init", "--db"],
        vec!["init", "--colour"],
        vec!["keys"],
        vec!["keys", "create", "--db", db, "--plan"],
        vec!["keys", "list", "--db", db, "--plan", "free"],
        vec!["keys", "revoke", "--db", db],
    ] {
        let out = run(&args, &[], Path::new("/"));
        let err = text(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(
            err.to_lowercase().contains("usage"),
            "{args:?}: usage on stderr: {err}"
        );
        assert!(out.stdout.is_empty(), "{args:?}: nothing on stdout");
    }
}

#[test]
fn help_works_for_every_subcommand() {
    for args in [
        vec!["--help"],
        vec!["init", "--help"],
        vec!["serve", "--help"],
        vec!["keys", "--help"],
        vec!["keys", "create", "--help"],
        vec!["keys", "list", "--help"],
        vec!["keys", "revoke", "--help"],
    ] {
        let out = run(&args, &[], Path::new("/"));
        let help = text(&out.stdout);
        assert!(out.status.success(), "{args:?}");
        assert!(help.to_lowercase().contains("usage"), "{args:?}: {help}");
        // The text is about the command asked for.
        let topic = if args.len() > 1 {
            args[args.len() - 2]
        } else {
            "area-scoring"
        };
        assert!(help.contains(topic), "{args:?} is described: {help}");
    }
}

#[test]
fn area_db_applies_to_every_subcommand_and_a_flag_beats_it() {
    let dir = scratch_dir("cli-env");
    let db = dir.join("from-env.db");
    let env = [("AREA_DB", db.as_path())];
    let env_ok = |args: &[&str]| {
        let out = run(args, &env, &dir);
        assert!(out.status.success(), "{args:?}: {}", text(&out.stderr));
        text(&out.stdout)
    };
    env_ok(&["init"]);
    assert!(db.is_file(), "init wrote AREA_DB");
    assert!(!dir.join("data").exists(), "and not the default path");
    let key = env_ok(&["keys", "create", "--plan", "free", "--label", "env"])
        .trim()
        .to_string();
    let id = env_ok(&["keys", "list"])
        .lines()
        .find(|l| l.contains("env"))
        .expect("listed")
        .split_whitespace()
        .next()
        .unwrap()
        .to_string();
    let server = Served::start(&[], &env, &dir);
    assert_eq!(
        server.get("/v1/areas?limit=1", &key).status,
        200,
        "serve read AREA_DB"
    );
    env_ok(&["keys", "revoke", &id]);
    // A flag beats the variable: with AREA_DB pointing nowhere, --db still works.
    let nowhere = dir.join("nowhere.db");
    let out = run(
        &["keys", "list", "--db", db.to_str().unwrap()],
        &[("AREA_DB", nowhere.as_path())],
        &dir,
    );
    assert!(
        out.status.success() && text(&out.stdout).contains(&id),
        "{}",
        text(&out.stderr)
    );
    let out = run(&["keys", "list"], &[("AREA_DB", nowhere.as_path())], &dir);
    assert_eq!(
        out.status.code(),
        Some(1),
        "AREA_DB is read by keys list too"
    );
}
