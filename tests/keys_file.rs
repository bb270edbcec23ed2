//! The keys file against the real binary (docs/operations.md "Keys"): made
//! only where it is named, and named by every command that uses it; keys
//! moved out of a dataset file made before the keys file existed, copies
//! merged, plans and keys changed from the command line, the modes of every
//! file holding keys or usage, and backups. Timed behaviour (two servers, a revoke within a
//! second, usage across signals): tests/wall_clock/keys_shared.rs.

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use crate::common::bin::{Served, ok, run, text};
use crate::common::{keys_path, scratch_dir};
use rusqlite::Connection;

/// A dataset file written by the build before the keys file (schema 2), with
/// its keys in it: `init --synthetic 4 --history-days 2`, three keys created
/// with `keys create`, one revoked with `keys revoke`, and the starter plan's
/// limit set to 900 and growth's lifted with SQL, as operators did then.
const FIXTURE: &str = "tests/fixtures/dataset-v2-with-keys.db";
/// Its keys, as `keys create` printed them.
const GROWTH_KEY: &str = "ask_f40353c1897c7f28249ae7e10f073d8afbc6cdc7e892833b";
const FREE_KEY: &str = "ask_3dd147190eaab1158ac773e2bb13503aaf653a0ec50e59fa";
const REVOKED_KEY: &str = "ask_c5ba75a6f6ff33b5e3473232a3d4833ea003635c2a6681ea";
const GROWTH_ID: &str = "key_bdd341bab8a2";
const REVOKED_ID: &str = "key_16078f04edf5";

fn fixture_copy(name: &str) -> PathBuf {
    let db = scratch_dir(name).join("areas.db");
    fs::copy(Path::new(env!("CARGO_MANIFEST_DIR")).join(FIXTURE), &db).unwrap();
    db
}

/// A dataset of `areas` generated areas, made by `init`, in a folder of its own.
fn small_dataset(name: &str, areas: usize) -> PathBuf {
    let db = scratch_dir(name).join("areas.db");
    let areas = areas.to_string();
    ok(&[
        "init",
        "--synthetic",
        &areas,
        "--history-days",
        "2",
        "--db",
        db.to_str().unwrap(),
    ]);
    db
}

fn keys_cmd(db: &Path, args: &[&str]) -> std::process::Output {
    let mut all = args.to_vec();
    all.extend(["--db", db.to_str().unwrap()]);
    run(&all, &[], Path::new("/"))
}

/// `keys list`'s lines after its header, split at tabs.
fn listed(db: &Path) -> Vec<Vec<String>> {
    let out = keys_cmd(db, &["keys", "list"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    let mut lines = stdout.lines();
    assert_eq!(
        lines.next(),
        Some("key_id\tplan\tlabel\tcreated_at\trevoked_at\tlast_used\trequests_30d"),
        "the header first"
    );
    lines
        .map(|l| l.split('\t').map(String::from).collect())
        .collect()
}

fn row<'a>(rows: &'a [Vec<String>], id: &str) -> &'a [String] {
    rows.iter()
        .find(|r| r[0] == id)
        .unwrap_or_else(|| panic!("{id} listed: {rows:?}"))
}

fn mode(path: &Path) -> u32 {
    fs::metadata(path).unwrap().permissions().mode() & 0o777
}

fn key_tables(db: &Path) -> (i64, i64) {
    let conn = Connection::open(db).unwrap();
    let tables = conn
        .query_row(
            "SELECT count(*) FROM sqlite_schema WHERE name IN ('api_keys', 'plans')",
            [],
            |r| r.get(0),
        )
        .unwrap();
    let version = conn
        .query_row("PRAGMA user_version", [], |r| r.get(0))
        .unwrap();
    (tables, version)
}

#[test]
fn the_first_command_moves_an_old_datasets_keys_into_the_keys_file() {
    let db = fixture_copy("migrate-first");
    assert_eq!(key_tables(&db), (2, 2), "the fixture holds its keys");
    // Nothing named and no keys file: the keys stay where they are.
    let unnamed = keys_cmd(&db, &["keys", "list"]);
    assert_eq!(unnamed.status.code(), Some(1), "{}", text(&unnamed.stderr));
    assert!(!keys_path(&db).exists());
    assert_eq!(key_tables(&db), (2, 2), "nothing moved");
    let keys = keys_path(&db);
    let out = keys_cmd(&db, &["keys", "list", "--keys", keys.to_str().unwrap()]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(
        text(&out.stderr).contains("moved 3 API keys"),
        "{}",
        text(&out.stderr)
    );
    let rows = listed(&db);
    assert_eq!(rows.len(), 3, "{rows:?}");
    let growth = row(&rows, GROWTH_ID);
    assert_eq!(
        (growth[1].as_str(), growth[2].as_str()),
        ("growth", "Acme (Pty) Ltd")
    );
    assert_eq!(growth[4], "-", "not revoked");
    let revoked = row(&rows, REVOKED_ID);
    assert_eq!(
        (revoked[1].as_str(), revoked[4].as_str()),
        ("enterprise", "2026-11-23T17:33:36Z")
    );
    let plans = ok(&["plans", "list", "--db", db.to_str().unwrap()]);
    assert!(
        plans.contains("starter\t900") && plans.contains("growth\tunlimited"),
        "{plans}"
    );
    assert!(plans.contains("free\t60"), "{plans}");
    assert_eq!(key_tables(&db), (0, 3), "the dataset now holds areas only");
    assert_eq!(mode(&keys_path(&db)), 0o600);
    // Moved once: the next command has nothing to move.
    let again = keys_cmd(&db, &["keys", "list"]);
    assert!(
        !text(&again.stderr).contains("moved"),
        "{}",
        text(&again.stderr)
    );
    // The areas-only file is of a layout the server no longer opens; once
    // upgraded, the keys work as they did: the revoked one does not.
    ok(&["upgrade", db.to_str().unwrap()]);
    let server = Served::spawn(&db, &[]);
    assert_eq!(server.get("/v1/areas", GROWTH_KEY).status, 200);
    assert_eq!(server.get("/v1/areas", FREE_KEY).status, 200);
    assert_eq!(server.get("/v1/areas", REVOKED_KEY).status, 401);
    // A file of an older schema has no other names: Get Area says so once
    // it is upgraded, and search still forgives typos.
    let area = server.get("/v1/areas/aberdeen-north-1", GROWTH_KEY);
    assert_eq!(
        area.json()["other_names"],
        serde_json::json!([]),
        "{}",
        area.text()
    );
    let typo = server.get("/v1/areas/search?q=aberdeeen%20north&limit=1", GROWTH_KEY);
    assert_eq!(
        typo.json()["data"][0]["id"],
        "aberdeen-north-1",
        "{}",
        typo.text()
    );
    assert_eq!(typo.json()["data"][0]["match"]["tier"], "one_typo");
    let me = server.get("/v1/key", GROWTH_KEY).json();
    assert_eq!(
        (me["key_id"].as_str(), me["plan"].as_str()),
        (Some(GROWTH_ID), Some("growth"))
    );
    assert!(
        me["rate_limit"]["requests_per_minute"].is_null(),
        "growth was lifted: {me}"
    );
}

#[test]
fn serve_moves_them_too_as_the_first_command_after_an_upgrade() {
    let db = fixture_copy("migrate-serve");
    let path = db.to_str().unwrap();
    // The keys move first; the areas-only file left is of a layout too old
    // to serve, and the refusal names the way on.
    let out = run(
        &["serve", "--db", path, "--addr", "127.0.0.1:0"],
        &[],
        Path::new("/"),
    );
    let said = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{said}");
    assert!(
        said.contains(&format!("area-scoring upgrade {path}")),
        "{said}"
    );
    assert_eq!(key_tables(&db), (0, 3), "the keys moved out");
    ok(&["upgrade", path]);
    let server = Served::spawn(&db, &[]);
    assert_eq!(server.get("/v1/areas", GROWTH_KEY).status, 200);
    assert_eq!(server.get("/v1/areas", REVOKED_KEY).status, 401);
}

/// `upgrade` refuses a file that still holds keys, naming `keys migrate`.
#[test]
fn upgrade_refuses_a_dataset_that_still_holds_keys() {
    let db = fixture_copy("migrate-upgrade");
    let path = db.to_str().unwrap();
    let out = run(&["upgrade", path], &[], Path::new("/"));
    let said = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{said}");
    assert!(
        said.contains(&format!("area-scoring keys migrate {path}")),
        "{said}"
    );
    assert_eq!(key_tables(&db), (2, 2), "nothing changed");
}

#[test]
fn init_force_over_an_old_dataset_keeps_its_keys() {
    let db = fixture_copy("migrate-init");
    let out = keys_cmd(&db, &["init", "--force"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(
        text(&out.stderr).contains("moved 3 API keys"),
        "{}",
        text(&out.stderr)
    );
    let server = Served::spawn(&db, &[]);
    assert_eq!(server.get("/v1/areas", GROWTH_KEY).json()["total"], 938);
}

/// Replica copies each with revocations of their own: the union, where a key
/// revoked in any copy stays revoked.
#[test]
fn keys_migrate_merges_copies_by_key_id() {
    let db = fixture_copy("migrate-merge");
    let copy = db.with_file_name("replica-2.db");
    fs::copy(&db, &copy).unwrap();
    let replica = Connection::open(&copy).unwrap();
    replica
        .execute_batch(&format!(
            "UPDATE api_keys SET revoked_at = '2026-11-23T18:00:00Z' WHERE id = '{GROWTH_ID}';
             UPDATE api_keys SET revoked_at = '2026-11-24T00:00:00Z' WHERE id = '{REVOKED_ID}';
             UPDATE plans SET requests_per_minute = 1200 WHERE name = 'starter';
             INSERT INTO api_keys VALUES ('key_0000000000aa', randomblob(32), 'starter', 'replica only', '2026-11-23T18:01:00Z', NULL);"
        ))
        .unwrap();
    drop(replica);
    // The dataset itself first: its keys are moved out before the merge
    // starts, so it holds none by then, which is said and passed over.
    let out = keys_cmd(
        &db,
        &[
            "keys",
            "migrate",
            "--new-keys-file",
            db.to_str().unwrap(),
            copy.to_str().unwrap(),
        ],
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    let said = text(&out.stderr);
    assert!(
        said.contains("holds no API keys (moved out already"),
        "{said}"
    );
    assert!(said.contains("4 keys, 1 new, 1 revoked by it"), "{said}");
    assert!(said.contains("starter differ"), "{said}");
    let rows = listed(&db);
    assert_eq!(rows.len(), 4);
    assert_eq!(
        row(&rows, GROWTH_ID)[4],
        "2026-11-23T18:00:00Z",
        "revoked in the copy"
    );
    assert_eq!(
        row(&rows, REVOKED_ID)[4],
        "2026-11-23T17:33:36Z",
        "the earliest revocation"
    );
    assert_eq!(row(&rows, "key_0000000000aa")[2], "replica only");
    let plans = ok(&["plans", "list", "--db", db.to_str().unwrap()]);
    assert!(
        plans.contains("starter\t900"),
        "the keys file's limit stays: {plans}"
    );
    // Merging again changes nothing; the copy itself is never changed.
    let again = keys_cmd(&db, &["keys", "migrate", copy.to_str().unwrap()]);
    assert!(
        text(&again.stderr).contains("0 new, 0 revoked"),
        "{}",
        text(&again.stderr)
    );
    assert_eq!(key_tables(&copy), (2, 2));
    let missing = keys_cmd(&db, &["keys", "migrate", "/no/such.db"]);
    assert_eq!(missing.status.code(), Some(1));
}

#[test]
fn plans_and_keys_change_from_the_command_line() {
    let db = small_dataset("plans-cli", 5);
    let path = db.to_str().unwrap();
    ok(&[
        "plans",
        "set",
        "starter",
        "--rpm",
        "7",
        "--db",
        path,
        "--new-keys-file",
    ]);
    ok(&[
        "plans",
        "set",
        "enterprise",
        "--rpm",
        "unlimited",
        "--db",
        path,
    ]);
    let plans = ok(&["plans", "list", "--db", path]);
    assert_eq!(
        plans,
        "free\t60\nstarter\t7\ngrowth\t3000\nenterprise\tunlimited\n"
    );
    for bad in [
        &["plans", "set", "starter", "--rpm", "0"][..],
        &["plans", "set", "gold", "--rpm", "5"],
    ] {
        assert_eq!(keys_cmd(&db, bad).status.code(), Some(2), "{bad:?}");
    }
    let key = crate::common::bin::create_key(&db, "free", "Acme");
    let id = listed(&db)[0][0].clone();
    let moved = keys_cmd(
        &db,
        &[
            "keys", "set", &id, "--plan", "starter", "--label", "Acme Ltd",
        ],
    );
    assert!(moved.status.success());
    let said = text(&moved.stderr);
    assert!(
        said.contains("label \"Acme\" → \"Acme Ltd\", plan free → starter"),
        "it says what changed: {said}"
    );
    let same = keys_cmd(&db, &["keys", "set", &id, "--plan", "starter"]);
    assert!(text(&same.stderr).contains("nothing changed"));
    let rows = listed(&db);
    assert_eq!(
        (rows[0][1].as_str(), rows[0][2].as_str()),
        ("starter", "Acme Ltd")
    );
    let forged = keys_cmd(
        &db,
        &["keys", "set", &id, "--label", "x\nkey_forged\tenterprise"],
    );
    assert_eq!(forged.status.code(), Some(1));
    assert!(text(&forged.stderr).contains("control characters"));
    assert_eq!(listed(&db)[0][2], "Acme Ltd", "unchanged");
    let unknown = keys_cmd(&db, &["keys", "set", "key_nope", "--plan", "growth"]);
    assert_eq!(unknown.status.code(), Some(1));
    // The same key, now on starter with 7 a minute.
    let server = Served::spawn(&db, &[]);
    let me = server.get("/v1/key", &key);
    assert_eq!(me.status, 200);
    assert_eq!(me.json()["plan"], "starter");
    assert_eq!(me.json()["rate_limit"]["requests_per_minute"], 7);
    assert_eq!(me.header("X-RateLimit-Limit"), Some("7"));
}

#[test]
fn every_file_holding_keys_or_usage_is_private() {
    let db = small_dataset("modes", 5);
    let path = db.to_str().unwrap();
    let keys = keys_path(&db);
    crate::common::bin::create_key(&db, "free", "first");
    assert_eq!(mode(&keys), 0o600, "made by keys create");
    // A write in progress: SQLite's journal beside the keys file.
    let writer = Connection::open(&keys).unwrap();
    writer
        .execute_batch(
            "BEGIN IMMEDIATE; UPDATE plans SET requests_per_minute = 61 WHERE name = 'free';",
        )
        .unwrap();
    let journal = keys.with_file_name("keys.db-journal");
    assert_eq!(mode(&journal), 0o600, "the journal");
    writer.execute_batch("ROLLBACK").unwrap();
    drop(writer);
    let key = crate::common::bin::create_key(&db, "growth", "t");
    let mut server = Served::spawn(&db, &[]);
    assert_eq!(server.get("/v1/areas", &key).status, 200);
    server.signal("TERM");
    server
        .wait_exit(std::time::Duration::from_secs(10))
        .expect("stops");
    let usage = keys.with_file_name("keys-usage.db");
    assert_eq!(mode(&usage), 0o600, "the usage file");
    assert_eq!(mode(&keys), 0o600);
    // A backup keeps each source's mode.
    let dir = db.with_file_name("backup");
    ok(&["backup", dir.to_str().unwrap(), "--db", path]);
    assert_eq!(mode(&dir.join("keys.db")), 0o600);
    assert_eq!(mode(&dir.join("keys-usage.db")), 0o600);
    assert_eq!(mode(&dir.join("areas.db")), mode(&db));
}

#[test]
fn a_backup_is_a_working_copy_of_all_three_files() {
    let db = small_dataset("backup", 30);
    let path = db.to_str().unwrap();
    let key = crate::common::bin::create_key(&db, "growth", "before the backup");
    let dir = db.with_file_name("copies");
    ok(&["backup", dir.to_str().unwrap(), "--db", path]);
    // Changes after the backup are not in it.
    crate::common::bin::create_key(&db, "free", "after the backup");
    let copy = dir.join("areas.db");
    let rows = listed(&copy);
    assert_eq!(rows.len(), 1, "{rows:?}");
    assert_eq!(rows[0][2], "before the backup");
    let server = Served::spawn(&copy, &[]);
    assert_eq!(server.get("/v1/areas", &key).json()["total"], 30);
    let nowhere = keys_cmd(&db, &["backup", "/proc/no-such-dir/x"]);
    assert_eq!(nowhere.status.code(), Some(1));
    // A second backup into the same folder replaces nothing of the first.
    let first = std::fs::read(dir.join("keys.db")).unwrap();
    let again = keys_cmd(&db, &["backup", dir.to_str().unwrap()]);
    let said = crate::common::bin::text(&again.stderr);
    assert_eq!(again.status.code(), Some(1), "{said}");
    assert!(
        said.contains("already holds a backup (keys.db); nothing was copied"),
        "{said}"
    );
    assert_eq!(std::fs::read(dir.join("keys.db")).unwrap(), first);
    let file = keys_cmd(&db, &["backup", path]);
    assert!(crate::common::bin::text(&file.stderr).contains("is not a folder"));
}

#[test]
fn two_commands_making_one_new_keys_file_at_once_both_succeed() {
    let dir = scratch_dir("keys-race");
    for round in 0..8 {
        let keys = dir.join(format!("keys-{round}.db"));
        let keys = keys.to_str().unwrap();
        let args = ["keys", "create", "--plan", "free", "--keys", keys];
        // Both started before either is waited for.
        let children: Vec<_> = (0..2)
            .map(|_| {
                crate::common::bin::command(&args, &[], Path::new("/"))
                    .stdout(std::process::Stdio::piped())
                    .stderr(std::process::Stdio::piped())
                    .spawn()
                    .expect("start")
            })
            .collect();
        for child in children {
            let out = child.wait_with_output().unwrap();
            assert!(out.status.success(), "round {round}: {}", text(&out.stderr));
        }
    }
}

#[test]
fn a_keys_file_readable_by_others_is_made_private() {
    let db = small_dataset("keys-mode", 3);
    let keys = keys_path(&db);
    crate::common::bin::create_key(&db, "free", "first");
    fs::set_permissions(&keys, fs::Permissions::from_mode(0o644)).unwrap();
    let out = keys_cmd(&db, &["keys", "create", "--plan", "free"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(
        text(&out.stderr).contains("was readable by others"),
        "{}",
        text(&out.stderr)
    );
    assert_eq!(mode(&keys), 0o600);
    // An empty file made by hand gets the schema, privately.
    let touched = db.with_file_name("touched.db");
    fs::write(&touched, b"").unwrap();
    fs::set_permissions(&touched, fs::Permissions::from_mode(0o644)).unwrap();
    let out = run(
        &[
            "keys",
            "create",
            "--plan",
            "free",
            "--keys",
            touched.to_str().unwrap(),
        ],
        &[],
        Path::new("/"),
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(
        text(&out.stderr).contains("created the keys file"),
        "{}",
        text(&out.stderr)
    );
    assert_eq!(mode(&touched), 0o600);
}

/// The answer to a Get Area with `key`, from the running server.
fn get_area(server: &Served, key: &str) -> u16 {
    server.get("/v1/areas/aberdeen", key).status
}

#[test]
fn a_key_works_on_its_first_request_without_waiting() {
    let db = crate::common::fresh_db("first-request");
    let server = Served::spawn(&db, &[]);
    for round in 0..10 {
        let key = crate::common::bin::create_key(&db, "growth", "first request");
        let status = get_area(&server, &key);
        assert_eq!(status, 200, "round {round}: the new key's first request");
    }
}

#[test]
fn a_client_past_its_keyless_budget_gets_a_new_key_served_once_it_is_read() {
    let db = crate::common::fresh_db("first-request-budget");
    let server = Served::spawn(&db, &[]);
    let guessed = "ask_000000000000000000000000000000000000000000000000";
    // The address's budget for requests without a valid key, spent.
    let spent = (0..1000).find(|_| get_area(&server, guessed) == 429);
    assert!(spent.is_some(), "guessing keys meets 429 within 1000 tries");
    let key = crate::common::bin::create_key(&db, "growth", "first request");
    // A key the server does not hold yet costs a keyless token before the
    // server looks for it, so this client may meet 429 until the poll has
    // read the key (docs/api.md, "Rate limits"); never 401, and served after.
    let first = get_area(&server, &key);
    assert!(
        [200, 429].contains(&first),
        "the new key's first request: {first}"
    );
    let served = crate::common::wait::within(std::time::Duration::from_secs(3), || {
        (get_area(&server, &key) == 200).then_some(())
    });
    assert!(served.is_some(), "the new key is served once read");
    assert_eq!(get_area(&server, &key), 200, "and again");
    assert_eq!(get_area(&server, guessed), 429, "guessing is still refused");
}

/// The files in `dir`, by name.
fn files_in(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// A key written into a new file beside the dataset would be read by no
/// server pointed at another keys file: without one named, no key command
/// makes it, and each says in one line where it looked and how to name one.
#[test]
fn a_key_command_without_a_keys_file_makes_none_and_says_where_it_looked() {
    let db = small_dataset("unnamed-keys", 3);
    let dir = db.parent().unwrap().to_path_buf();
    let before = files_in(&dir);
    let keys = keys_path(&db);
    for args in [
        &["keys", "create", "--plan", "growth"][..],
        &["keys", "list"],
        &["keys", "list", "--format", "json"],
        &["keys", "revoke", "key_000000000000"],
        &["keys", "set", "key_000000000000", "--label", "x"],
        &["keys", "usage"],
        &["keys", "migrate", db.to_str().unwrap()],
        &["plans", "list"],
        &["plans", "set", "free", "--rpm", "5"],
    ] {
        let out = keys_cmd(&db, args);
        let said = text(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {said}");
        assert!(out.stdout.is_empty(), "{args:?}: no key, no listing");
        assert_eq!(said.lines().count(), 1, "{args:?}: one line: {said}");
        for named in [
            keys.to_str().unwrap(),
            "--keys PATH",
            "AREA_KEYS",
            "--new-keys-file",
        ] {
            assert!(said.contains(named), "{args:?} names {named}: {said}");
        }
        assert_eq!(files_in(&dir), before, "{args:?}: no file made");
    }
    // Asked for, the keys file beside the dataset is made, said, and served.
    let out = keys_cmd(
        &db,
        &["keys", "create", "--plan", "growth", "--new-keys-file"],
    );
    let said = text(&out.stderr);
    assert!(out.status.success(), "{said}");
    assert!(
        said.contains(&format!("created the keys file {}", keys.display())),
        "{said}"
    );
    assert!(
        said.contains(&format!("on the growth plan in {}", keys.display())),
        "{said}"
    );
    let key = text(&out.stdout).trim().to_string();
    let server = Served::spawn(&db, &[]);
    assert_eq!(server.get("/v1/key", &key).status, 200);
    // Once there, it is used without the flag.
    let again = keys_cmd(&db, &["keys", "create", "--plan", "free"]);
    assert!(again.status.success(), "{}", text(&again.stderr));
    assert_eq!(listed(&db).len(), 2);
    // The flag makes a keys file beside a dataset only.
    let nowhere = dir.join("no-such-folder").join("areas.db");
    let out = keys_cmd(
        &nowhere,
        &["keys", "create", "--plan", "free", "--new-keys-file"],
    );
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out.stderr).contains("there is none at"),
        "{}",
        text(&out.stderr)
    );
    assert!(!nowhere.parent().unwrap().exists(), "no folder made");
}

/// `--keys` and `AREA_KEYS` name the keys file: a key command makes it
/// there, never beside the dataset, every command names it on stderr, and
/// a server given the same path serves the key.
#[test]
fn keys_and_area_keys_name_the_file_every_command_uses_and_says() {
    let db = small_dataset("named-keys", 3);
    let dir = db.parent().unwrap().to_path_buf();
    let flagged = dir.join("by-flag").join("keys.db");
    let flag = flagged.to_str().unwrap();
    let out = keys_cmd(&db, &["keys", "create", "--plan", "growth", "--keys", flag]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let key = text(&out.stdout).trim().to_string();
    assert!(flagged.is_file(), "made where --keys says");
    assert!(!keys_path(&db).exists(), "and not beside the dataset");
    let by_env = dir.join("by-env.db");
    let env = [("AREA_KEYS", by_env.as_path())];
    let db_arg = db.to_str().unwrap();
    let with_env = |args: &[&str]| {
        let mut all = args.to_vec();
        all.extend(["--db", db_arg]);
        let out = run(&all, &env, Path::new("/"));
        assert!(out.status.success(), "{args:?}: {}", text(&out.stderr));
        (text(&out.stdout), text(&out.stderr))
    };
    let (_, said) = with_env(&["keys", "create", "--plan", "free", "--label", "env"]);
    assert!(by_env.is_file(), "made where AREA_KEYS says: {said}");
    assert!(!keys_path(&db).exists());
    let (list, _) = with_env(&["keys", "list"]);
    let id = list.lines().nth(1).unwrap().split('\t').next().unwrap();
    let shown = by_env.display().to_string();
    for args in [
        &["keys", "list"][..],
        &["keys", "set", id, "--label", "renamed"],
        &["keys", "usage"],
        &["plans", "list"],
        &["plans", "set", "free", "--rpm", "30"],
        &["keys", "revoke", id],
    ] {
        let (_, said) = with_env(args);
        assert!(said.contains(&shown), "{args:?} names the file: {said}");
    }
    // A flag beats the variable.
    let out = run(
        &["keys", "list", "--db", db_arg, "--keys", flag],
        &env,
        Path::new("/"),
    );
    assert!(text(&out.stderr).contains(flag), "{}", text(&out.stderr));
    // A named file that is missing is made by a command that writes only.
    let missing = dir.join("missing.db");
    let out = keys_cmd(&db, &["keys", "list", "--keys", missing.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    assert!(!missing.exists());
    let server = Served::spawn(&db, &["--keys", flag]);
    assert_eq!(server.get("/v1/key", &key).status, 200);
}
