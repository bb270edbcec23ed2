//! The command line, driven as a user drives it: the built binary run with
//! `std::process::Command` (docs/operations.md "Configuration", "Keys"). keys
//! create/list/revoke (and a running server seeing a revocation), their
//! JSON and CSV forms, usage
//! errors, --help everywhere, and AREA_DB for every subcommand. init, schema
//! versions and serve on bad files: tests/cli_init.rs.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::time::Duration;

use crate::common::bin::{Served, create_key, ok, run, text};
use crate::common::wait::until;
use crate::common::{assert_error, scratch_dir};

/// A database made by `init`, shared by the tests that only add keys to it.
fn shared_db() -> &'static Path {
    static DB: OnceLock<PathBuf> = OnceLock::new();
    DB.get_or_init(|| {
        let db = scratch_dir("cli").join("areas.db");
        ok(&["init", "--db", db.to_str().unwrap()]);
        db
    })
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
    // The running server refuses the revoked key (docs/operations.md "Keys": on the next
    // request; the wait is generous).
    let reply = until(
        Duration::from_secs(8),
        || server.get("/v1/areas?limit=1", growth),
        |r| r.status != 200,
    );
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

/// The top-level help and each command's help say one thing: every flag and
/// variable `serve --help` names is in the top-level `serve` synopsis and
/// environment list, and `import --help` sends the reader to the page that
/// holds the file format.
#[test]
fn the_top_level_help_names_every_serve_flag_and_import_points_to_its_page() {
    let words = |help: &str, prefix: &str| -> Vec<String> {
        help.split(|c: char| !(c.is_ascii_alphanumeric() || c == '-' || c == '_'))
            .filter(|w| w.starts_with(prefix) && w.len() > prefix.len())
            .map(str::to_string)
            .collect()
    };
    let top = text(&run(&["--help"], &[], Path::new("/")).stdout);
    let serve = text(&run(&["serve", "--help"], &[], Path::new("/")).stdout);
    let synopsis: String = top
        .lines()
        .skip_while(|l| !l.starts_with("  serve "))
        .take_while(|l| !l.starts_with("  keys "))
        .collect();
    assert!(words(&serve, "--").contains(&"--trusted-front".to_string()));
    for flag in words(&serve, "--") {
        assert!(
            words(&synopsis, "--").contains(&flag),
            "{flag} in: {synopsis}"
        );
    }
    for variable in words(&serve, "AREA_") {
        assert!(
            words(&top, "AREA_").contains(&variable),
            "{variable} in: {top}"
        );
    }
    let import = text(&run(&["import", "--help"], &[], Path::new("/")).stdout);
    assert!(import.contains("docs/import.md"), "{import}");
    let page = Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/import.md");
    assert!(page.is_file(), "docs/import.md exists");
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
    let key = env_ok(&[
        "keys",
        "create",
        "--plan",
        "free",
        "--label",
        "env",
        "--new-keys-file",
    ])
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
    // The keys file sits beside AREA_DB's dataset: none is there.
    let elsewhere = dir.join("elsewhere").join("nowhere.db");
    let out = run(&["keys", "list"], &[("AREA_DB", elsewhere.as_path())], &dir);
    assert_eq!(
        out.status.code(),
        Some(1),
        "AREA_DB is read by keys list too"
    );
    assert!(
        text(&out.stderr).contains("keys create"),
        "{}",
        text(&out.stderr)
    );
    assert!(
        !elsewhere.with_file_name("keys.db").exists(),
        "listing creates no keys file"
    );
}

#[test]
fn version_prints_the_name_and_version() {
    for flag in ["--version", "-V"] {
        let out = run(&[flag], &[], Path::new("/"));
        assert!(out.status.success(), "{flag}");
        assert_eq!(
            text(&out.stdout).trim(),
            format!("area-scoring {}", env!("CARGO_PKG_VERSION")),
            "{flag}"
        );
    }
}

/// A label with a newline would print a forged line into `keys list`.
#[test]
fn a_label_with_a_control_character_is_refused_and_no_key_is_made() {
    // A database of its own: the other tests add keys to the shared one.
    let path = scratch_dir("cli-label").join("areas.db");
    let db = path.to_str().unwrap();
    ok(&["init", "--db", db]);
    // init makes no keys file: a first key asks for it.
    ok(&[
        "keys",
        "create",
        "--db",
        db,
        "--plan",
        "starter",
        "--new-keys-file",
    ]);
    let before = ok(&["keys", "list", "--db", db]);
    for label in ["two\nlines", "tab\there", "bell\u{7}"] {
        let out = run(
            &[
                "keys", "create", "--db", db, "--plan", "free", "--label", label,
            ],
            &[],
            Path::new("/"),
        );
        assert_eq!(out.status.code(), Some(1), "{label:?}");
        assert!(
            text(&out.stderr).contains("control characters"),
            "{label:?}"
        );
        assert!(out.stdout.is_empty(), "no key is printed");
    }
    let after = ok(&["keys", "list", "--db", db]);
    let labels = |list: &str| list.lines().filter(|l| l.contains("\tfree\t")).count();
    assert_eq!(labels(&after), labels(&before), "no key was made");
    let fine = run(
        &[
            "keys",
            "create",
            "--db",
            db,
            "--plan",
            "free",
            "--label",
            "Ünïcode ok",
        ],
        &[],
        Path::new("/"),
    );
    assert!(fine.status.success(), "{}", text(&fine.stderr));
}

/// A script takes the new key and its id from stdout as JSON, never from
/// stderr, and the key works.
#[test]
fn keys_create_format_json_prints_the_id_and_a_working_key() {
    let path = scratch_dir("cli-json").join("areas.db");
    let db = path.to_str().unwrap();
    ok(&["init", "--db", db]);
    let stdout = ok(&[
        "keys",
        "create",
        "--db",
        db,
        "--new-keys-file",
        "--plan",
        "starter",
        "--label",
        "Acme, \"Pty\"",
        "--format",
        "json",
    ]);
    assert_eq!(stdout.lines().count(), 1, "one line: {stdout}");
    let created: serde_json::Value = serde_json::from_str(&stdout).expect("JSON");
    let fields: Vec<&str> = created
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(fields.len(), 4, "{created}");
    let (id, key) = (
        created["key_id"].as_str().unwrap(),
        created["key"].as_str().unwrap(),
    );
    assert!(
        id.starts_with("key_") && key.starts_with("ask_"),
        "{created}"
    );
    assert_eq!(created["plan"], "starter");
    assert_eq!(created["label"], "Acme, \"Pty\"");
    let server = Served::start(&["--db", db], &[], Path::new("/"));
    let me = server.get("/v1/key", key);
    assert_eq!(me.status, 200, "{}", me.text());
    assert_eq!(me.json()["key_id"], id);
    assert_eq!(me.json()["plan"], "starter");
    let bad = run(
        &[
            "keys", "create", "--db", db, "--plan", "free", "--format", "xml",
        ],
        &[],
        Path::new("/"),
    );
    assert_eq!(bad.status.code(), Some(2));
    assert!(text(&bad.stderr).contains("--format must be key or json"));
}

/// `keys list` has a header in every form; CSV quotes what needs it, and
/// JSON gives nulls where the table shows `-`.
#[test]
fn keys_list_prints_a_header_and_reads_as_csv_and_json() {
    let path = scratch_dir("cli-list-forms").join("areas.db");
    let db = path.to_str().unwrap();
    ok(&["init", "--db", db]);
    let label = "Acme, \"Pty\" Ltd";
    create_key(&path, "growth", label);
    create_key(&path, "free", "");
    let columns = [
        "key_id",
        "plan",
        "label",
        "created_at",
        "revoked_at",
        "last_used",
        "requests_30d",
    ];
    let table = ok(&["keys", "list", "--db", db]);
    let lines: Vec<&str> = table.lines().collect();
    assert_eq!(lines[0], columns.join("\t"), "{table}");
    assert_eq!(lines.len(), 3, "{table}");
    // Made in the same second, the two keys may come in either order.
    let line = |plan: &str| -> Vec<&str> {
        let cells = lines[1..].iter().map(|l| l.split('\t').collect::<Vec<_>>());
        cells.clone().find(|c| c[1] == plan).expect("listed")
    };
    let growth = line("growth");
    assert_eq!((growth[2], growth[4]), (label, "-"));
    let free = line("free");
    assert_eq!((free[2], free[6]), ("-", "0"), "no label, no requests");
    let id = growth[0];
    ok(&["keys", "revoke", "--db", db, id]);

    let csv_text = ok(&["keys", "list", "--db", db, "--format", "csv"]);
    let mut reader = csv::Reader::from_reader(csv_text.as_bytes());
    assert_eq!(
        reader.headers().unwrap(),
        &csv::StringRecord::from(columns.to_vec())
    );
    let rows: Vec<csv::StringRecord> = reader.records().map(Result::unwrap).collect();
    assert_eq!(rows.len(), 2, "{csv_text}");
    let (revoked, other) = match &rows[0][0] == id {
        true => (&rows[0], &rows[1]),
        false => (&rows[1], &rows[0]),
    };
    assert_eq!((&revoked[0], &revoked[2]), (id, label), "{csv_text}");
    assert!(revoked[4].ends_with('Z'), "revoked: {csv_text}");
    assert_eq!((&other[2], &other[4], &other[5]), ("", "", ""));

    let json_text = ok(&["keys", "list", "--db", db, "--format", "json"]);
    let listed: serde_json::Value = serde_json::from_str(&json_text).expect("JSON");
    let listed = listed.as_array().expect("an array");
    assert_eq!(listed.len(), 2);
    for row in listed {
        let mut names: Vec<&str> = row
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        names.sort();
        let mut expected = columns.to_vec();
        expected.sort();
        assert_eq!(names, expected, "{row}");
    }
    let (revoked, other) = match listed[0]["key_id"] == id {
        true => (&listed[0], &listed[1]),
        false => (&listed[1], &listed[0]),
    };
    assert_eq!(revoked["label"], label);
    assert!(revoked["revoked_at"].as_str().unwrap().ends_with('Z'));
    assert!(other["revoked_at"].is_null() && other["last_used"].is_null());
    assert_eq!(other["requests_30d"], 0);
}
