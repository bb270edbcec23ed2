//! `keys usage` as an invoice, against the real binary (docs/operations.md,
//! "Keys"): requests spent through a server counted as ok, client errors,
//! rate limited and server errors; each key's month with its label and the
//! plans it had, keys with no usage listed with zeros, an unknown key
//! refused; a month cut at South African midnight; the per-day form.
//! Days the clock cannot reach are written into the files as a server and
//! `keys set` write them.

use std::path::{Path, PathBuf};
use std::process::Output;
use std::time::Duration;

use crate::common::bin::{Served, ok, run, text};
use crate::common::{keys_path, scratch_dir};
use rusqlite::Connection;
use serde_json::Value;

/// A dataset of a few generated areas, made by `init`.
fn dataset(name: &str) -> PathBuf {
    let db = scratch_dir(name).join("areas.db");
    ok(&["init", "--synthetic", "5", "--db", db.to_str().unwrap()]);
    db
}

fn cli(db: &Path, args: &[&str]) -> Output {
    let mut all = args.to_vec();
    all.extend(["--db", db.to_str().unwrap()]);
    run(&all, &[], Path::new("/"))
}

fn cli_ok(db: &Path, args: &[&str]) -> String {
    let out = cli(db, args);
    assert!(out.status.success(), "{args:?}: {}", text(&out.stderr));
    text(&out.stdout)
}

/// `keys create --format json`: the new key's (id, key).
fn create(db: &Path, plan: &str, label: &str) -> (String, String) {
    let args = [
        "keys",
        "create",
        "--new-keys-file",
        "--plan",
        plan,
        "--label",
        label,
        "--format",
        "json",
    ];
    let made: Value = serde_json::from_str(&cli_ok(db, &args)).unwrap();
    let field = |f: &str| made[f].as_str().unwrap().to_string();
    (field("key_id"), field("key"))
}

fn json(db: &Path, args: &[&str]) -> Vec<Value> {
    let mut all = vec!["keys", "usage", "--format", "json"];
    all.extend_from_slice(args);
    let out = cli_ok(db, &all);
    serde_json::from_str::<Value>(&out)
        .unwrap()
        .as_array()
        .unwrap()
        .clone()
}

fn line<'a>(lines: &'a [Value], id: &str) -> &'a Value {
    lines
        .iter()
        .find(|l| l["key_id"] == id)
        .unwrap_or_else(|| panic!("{id} listed: {lines:?}"))
}

fn counts(line: &Value) -> [u64; 4] {
    ["ok", "client_errors", "rate_limited", "server_errors"].map(|f| line[f].as_u64().unwrap())
}

/// This month as `YYYY-MM`, in UTC.
fn this_month() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs() as i64;
    let (y, m, _) = area_scoring::dates::to_civil(secs.div_euclid(86_400));
    format!("{y:04}-{m:02}")
}

/// Requests through the server are counted where an operator bills them,
/// and a plan change shows on the month's line beside the key's label.
#[test]
fn a_month_invoice_counts_each_kind_of_answer_and_the_plans_a_key_had() {
    let db = dataset("invoice-month");
    let (busy, key) = create(&db, "free", "Acme, Sandton");
    let (idle, _) = create(&db, "starter", "");
    // A low limit, so that 429s come quickly.
    cli_ok(&db, &["plans", "set", "free", "--rpm", "4"]);
    let mut served = Served::spawn(&db, &[]);
    let mut seen = [0u64; 4];
    for target in [
        "/v1/areas?limit=1",
        "/v1/areas/no-such-area",
        "/v1/areas/_panic",
        "/v1/areas?limit=1",
        "/v1/areas?limit=1",
        "/v1/areas?limit=1",
    ] {
        let status = served.get(target, &key).status;
        seen[match status {
            200..=399 => 0,
            429 => 2,
            500.. => 3,
            _ => 1,
        }] += 1;
    }
    assert!(
        seen.iter().all(|n| *n > 0),
        "every kind of answer: {seen:?}"
    );
    cli_ok(&db, &["keys", "set", &busy, "--plan", "growth"]);
    // Stopped, the server writes what it counted.
    served.signal("TERM");
    assert!(served.wait_exit(Duration::from_secs(10)).is_some());

    let month = this_month();
    let lines = json(&db, &["--month", &month]);
    assert_eq!(lines.len(), 2, "both keys, the idle one too: {lines:?}");
    let line_of_busy = line(&lines, &busy);
    assert_eq!(counts(line_of_busy), seen, "{line_of_busy}");
    assert_eq!(line_of_busy["label"], "Acme, Sandton");
    let plans: Vec<&str> = line_of_busy["plans"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["plan"].as_str().unwrap())
        .collect();
    assert_eq!(plans, ["free", "growth"], "{line_of_busy}");
    assert!(
        line_of_busy["plans"][1]["since"]
            .as_str()
            .unwrap()
            .ends_with('Z')
    );
    assert_eq!(counts(line(&lines, &idle)), [0; 4], "listed with zeros");

    let csv = cli_ok(
        &db,
        &["keys", "usage", "--month", &month, "--format", "csv"],
    );
    let mut rows = csv.lines();
    assert_eq!(
        rows.next(),
        Some("key_id,label,plans,revoked_at,ok,client_errors,rate_limited,server_errors")
    );
    let [ok, client, limited, server] = seen;
    let today = &line_of_busy["plans"][1]["since"].as_str().unwrap()[..10];
    // Keys made in the same second are listed in the order of their ids.
    let mut rows: Vec<&str> = rows.collect();
    rows.sort();
    let mut want = [
        format!(
            "{busy},\"Acme, Sandton\",\"free, growth from {today}\",,{ok},{client},{limited},{server}"
        ),
        format!("{idle},,starter,,0,0,0,0"),
    ];
    want.sort();
    assert_eq!(rows, want);
    let table = cli_ok(&db, &["keys", "usage", "--month", &month]);
    assert!(
        table.contains(&format!("{idle}\t-\tstarter\t-\t0\t0\t0\t0")),
        "{table}"
    );

    // --from and --to take months as whole months.
    assert_eq!(json(&db, &["--from", &month, "--to", &month]), lines);
    // One key, by --key; per day with --by day.
    assert_eq!(json(&db, &["--month", &month, "--key", &idle]).len(), 1);
    let days = json(&db, &["--month", &month, "--by", "day", "--key", &busy]);
    assert_eq!(days.len(), 1, "{days:?}");
    assert_eq!(counts(&days[0]), seen);
    assert!(days[0]["day"].as_str().unwrap().starts_with(&month));

    // A revoked key says so on the invoice, and takes no other plan.
    assert!(line(&lines, &idle)["revoked_at"].is_null());
    let revoked = cli(&db, &["keys", "revoke", &idle]);
    assert!(revoked.status.success(), "{}", text(&revoked.stderr));
    let again = cli(&db, &["keys", "revoke", &idle]);
    assert!(
        text(&again.stderr).contains("was already revoked at 20"),
        "{}",
        text(&again.stderr)
    );
    let moved = cli(&db, &["keys", "set", &idle, "--plan", "growth"]);
    assert_eq!(moved.status.code(), Some(1));
    assert!(
        text(&moved.stderr).contains("was revoked at"),
        "{}",
        text(&moved.stderr)
    );
    let after = json(&db, &["--month", &month]);
    assert!(
        line(&after, &idle)["revoked_at"]
            .as_str()
            .unwrap()
            .ends_with('Z')
    );
    assert_eq!(line(&after, &idle)["plans"][0]["plan"], "starter");
}

#[test]
fn an_unknown_key_is_an_error_not_an_empty_invoice() {
    let db = dataset("invoice-unknown");
    create(&db, "free", "");
    for by in ["key", "day"] {
        let out = cli(
            &db,
            &["keys", "usage", "--key", "key_0000000typo", "--by", by],
        );
        assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
        assert!(out.stdout.is_empty(), "nothing printed");
        let said = text(&out.stderr);
        assert!(said.contains("'key_0000000typo'"), "names the key: {said}");
    }
}

/// Usage written as a server writes it (hours in the usage file, and a day
/// as builds that counted per day wrote it, its errors not told apart) and
/// a plan change as `keys set` records it, in a month the test's clock is not in.
fn past_november(db: &Path) -> String {
    let (id, _) = create(db, "free", "Acme");
    let keys = Connection::open(keys_path(db)).unwrap();
    keys.execute_batch(&format!(
        "UPDATE api_keys SET created_at = '2026-10-02T08:00:00Z', plan = 'growth' WHERE id = '{id}';
         UPDATE plan_history SET since = '2026-10-02T08:00:00Z' WHERE key_id = '{id}';
         INSERT INTO plan_history (key_id, plan, since) VALUES ('{id}', 'growth', '2026-11-15T10:30:00Z');"
    ))
    .unwrap();
    drop(keys);
    let usage = Connection::open(keys_path(db).with_file_name("keys-usage.db")).unwrap();
    usage
        .execute_batch(&format!(
            "CREATE TABLE IF NOT EXISTS usage_hours (key_id TEXT NOT NULL, hour TEXT NOT NULL,
                 ok INTEGER NOT NULL DEFAULT 0, client_errors INTEGER NOT NULL DEFAULT 0,
                 rate_limited INTEGER NOT NULL DEFAULT 0, server_errors INTEGER NOT NULL DEFAULT 0,
                 PRIMARY KEY (key_id, hour)) WITHOUT ROWID;
             INSERT INTO usage_hours VALUES
                 ('{id}', '2026-10-31T23', 5, 0, 0, 0),
                 ('{id}', '2026-11-10T12', 10, 2, 1, 3),
                 ('{id}', '2026-11-20T12', 20, 0, 0, 0),
                 ('{id}', '2026-11-30T23', 7, 0, 0, 0);
             CREATE TABLE IF NOT EXISTS usage (key_id TEXT NOT NULL, day TEXT NOT NULL,
                 ok INTEGER NOT NULL DEFAULT 0, errors INTEGER NOT NULL DEFAULT 0,
                 rate_limited INTEGER NOT NULL DEFAULT 0, PRIMARY KEY (key_id, day)) WITHOUT ROWID;
             INSERT INTO usage VALUES ('{id}', '2026-11-05', 1, 1, 0);"
        ))
        .unwrap();
    id
}

/// 23:30 UTC on 31 October is 01:30 on 1 November in Johannesburg, and
/// 23:30 UTC on 30 November is already December there.
#[test]
fn a_south_african_month_begins_and_ends_at_its_own_midnight() {
    let db = dataset("invoice-zone");
    let id = past_november(&db);
    let utc = json(&db, &["--month", "2026-11"]);
    assert_eq!(counts(line(&utc, &id)), [38, 3, 1, 3]);
    let sast = json(&db, &["--month", "2026-11", "--tz", "Africa/Johannesburg"]);
    assert_eq!(counts(line(&sast, &id)), [36, 3, 1, 3]);
    let plans = &line(&sast, &id)["plans"];
    assert_eq!(plans[0]["plan"], "free");
    assert_eq!(plans[1]["plan"], "growth");
    assert_eq!(plans[1]["since"], "2026-11-15T10:30:00Z");
    let csv = cli_ok(
        &db,
        &["keys", "usage", "--month", "2026-11", "--format", "csv"],
    );
    assert!(
        csv.contains(&format!(
            "{id},Acme,\"free, growth from 2026-11-15\",,38,3,1,3"
        )),
        "{csv}"
    );
    let days = json(
        &db,
        &[
            "--month",
            "2026-12",
            "--tz",
            "Africa/Johannesburg",
            "--by",
            "day",
        ],
    );
    let days: Vec<(&str, u64)> = days
        .iter()
        .map(|d| (d["day"].as_str().unwrap(), d["ok"].as_u64().unwrap()))
        .collect();
    assert!(days.contains(&("2026-12-01", 7)), "{days:?}");
    // October in UTC: the late hour and the plan held then alone.
    let october = json(&db, &["--month", "2026-10"]);
    assert_eq!(counts(line(&october, &id)), [5, 0, 0, 0]);
    assert_eq!(line(&october, &id)["plans"].as_array().unwrap().len(), 1);
    let out = cli(
        &db,
        &[
            "keys",
            "usage",
            "--month",
            "2026-11",
            "--tz",
            "Africa/Johannesburg",
        ],
    );
    assert!(
        text(&out.stderr).contains("2026-11-01 to 2026-11-30 (days in Africa/Johannesburg)"),
        "stderr names the days: {}",
        text(&out.stderr)
    );
}

#[test]
fn a_zone_must_be_known_and_a_whole_number_of_hours_from_utc() {
    let db = dataset("invoice-zone-shape");
    create(&db, "free", "");
    let out = cli(&db, &["keys", "usage", "--tz", "Africa/Joburg"]);
    assert_eq!(out.status.code(), Some(2), "a usage error");
    assert!(
        text(&out.stderr).contains("'Africa/Joburg'"),
        "{}",
        text(&out.stderr)
    );
    let out = cli(
        &db,
        &[
            "keys",
            "usage",
            "--month",
            "2026-11",
            "--tz",
            "Asia/Kolkata",
        ],
    );
    assert_eq!(out.status.code(), Some(1));
    let said = text(&out.stderr);
    assert!(
        said.contains("UTC+05:30") && said.contains("whole number of hours"),
        "{said}"
    );
    assert!(out.stdout.is_empty());
    let out = cli(
        &db,
        &[
            "keys",
            "usage",
            "--month",
            "2026-11",
            "--from",
            "2026-11-02",
        ],
    );
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
}

/// A dataset file written by the build before the keys file, with its keys
/// in it (tests/keys_file.rs says how it was made); one of them, on growth.
const FIXTURE: &str = "tests/fixtures/dataset-v2-with-keys.db";
const GROWTH_ID: &str = "key_bdd341bab8a2";

/// Keys made before plans were recorded show the plan they have now, from
/// no known time, until a change records it and the new one.
#[test]
fn a_key_from_before_plans_were_recorded_shows_its_plan_then_its_change() {
    let dir = scratch_dir("invoice-old-keys");
    let db = dir.join("areas.db");
    std::fs::copy(Path::new(env!("CARGO_MANIFEST_DIR")).join(FIXTURE), &db).unwrap();
    let keys = dir.join("keys.db");
    let keys = keys.to_str().unwrap();
    let plans = |db: &Path| {
        let lines = json(db, &["--key", GROWTH_ID, "--keys", keys]);
        assert_eq!(lines.len(), 1, "{lines:?}");
        lines[0]["plans"].clone()
    };
    assert_eq!(
        plans(&db),
        serde_json::json!([{"plan": "growth", "since": null}])
    );
    cli_ok(
        &db,
        &[
            "keys",
            "set",
            GROWTH_ID,
            "--plan",
            "enterprise",
            "--keys",
            keys,
        ],
    );
    let after = plans(&db);
    assert_eq!(
        after[0],
        serde_json::json!({"plan": "growth", "since": null})
    );
    assert_eq!(after[1]["plan"], "enterprise");
    assert!(after[1]["since"].is_string(), "{after}");
}
