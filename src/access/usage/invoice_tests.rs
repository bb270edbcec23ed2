//! Tests of usage/invoice.rs: a month's totals with a plan change inside
//! it, a zone's day boundary, keys with no usage, and an unknown key.
use super::*;

fn key(id: &str, created: &str, plans: &[(&str, Option<&str>)]) -> KeyRow {
    KeyRow {
        id: id.into(),
        plan: plans.last().map_or("free", |p| p.0).into(),
        label: format!("{id} label"),
        created_at: created.into(),
        revoked_at: None,
        plans: plans
            .iter()
            .map(|(plan, since)| PlanSince {
                plan: plan.to_string(),
                since: since.map(String::from),
            })
            .collect(),
    }
}

fn row(key_id: &str, period: &str, ok: u64, server_errors: u64) -> UsageRow {
    UsageRow {
        key_id: key_id.into(),
        period: period.into(),
        counts: Counts {
            ok,
            server_errors,
            ..Counts::default()
        },
    }
}

fn november(zone: Zone) -> Period {
    let (from, to) = dates::parse_month("2026-11").unwrap();
    Period { from, to, zone }
}

#[test]
fn a_month_adds_up_each_key_with_the_plans_it_had() {
    let keys = [
        key(
            "key_a",
            "2026-10-02T08:00:00Z",
            &[
                ("free", Some("2026-10-02T08:00:00Z")),
                ("growth", Some("2026-11-15T10:00:00Z")),
            ],
        ),
        key(
            "key_idle",
            "2026-11-20T08:00:00Z",
            &[("starter", Some("2026-11-20T08:00:00Z"))],
        ),
        key("key_old", "2025-01-01T00:00:00Z", &[]),
        key(
            "key_later",
            "2026-12-03T00:00:00Z",
            &[("free", Some("2026-12-03T00:00:00Z"))],
        ),
    ];
    let rows = [
        row("key_a", "2026-10-31T23", 100, 0),
        row("key_a", "2026-11-01T00", 3, 1),
        row("key_a", "2026-11-16T12", 4, 0),
        row("key_a", "2026-12-01T00", 100, 0),
        row("key_old", "2026-11-02", 7, 0),
    ];
    let lines = totals(&keys, &rows, &november(Zone::utc()), None);
    let ids: Vec<&str> = lines.iter().map(|l| l.key_id.as_str()).collect();
    assert_eq!(
        ids,
        ["key_a", "key_idle", "key_old"],
        "made after the month: not listed"
    );
    assert_eq!(lines[0].counts.values(), [7, 0, 0, 1]);
    let plans: Vec<&str> = lines[0].plans.iter().map(|p| p.plan.as_str()).collect();
    assert_eq!(plans, ["free", "growth"]);
    assert_eq!(
        plans_cell(&lines[0].plans, &Zone::utc()),
        "free, growth from 2026-11-15"
    );
    assert_eq!(lines[1].counts, Counts::default(), "no usage: zeros");
    assert_eq!(plans_cell(&lines[1].plans, &Zone::utc()), "starter");
    assert_eq!(lines[2].counts.ok, 7, "a whole day kept from before hours");
    assert_eq!(
        lines[2].plans,
        [PlanSince {
            plan: "free".into(),
            since: None
        }]
    );
}

#[test]
fn south_african_days_take_the_late_utc_hours_of_the_day_before() {
    let keys = [key("key_a", "2026-10-02T08:00:00Z", &[])];
    // 23:30 UTC on 31 October is 01:30 SAST on 1 November: in November.
    // 22:00 UTC on 30 November is 00:00 SAST on 1 December: not.
    let rows = [
        row("key_a", "2026-10-31T23", 5, 0),
        row("key_a", "2026-11-30T21", 1, 0),
        row("key_a", "2026-11-30T22", 50, 0),
    ];
    let sast = Zone::named("Africa/Johannesburg").unwrap();
    let lines = totals(&keys, &rows, &november(sast.clone()), None);
    assert_eq!(lines[0].counts.ok, 6);
    let lines = totals(&keys, &rows, &november(Zone::utc()), None);
    assert_eq!(lines[0].counts.ok, 51);
    let by_day: Vec<(String, u64)> = days(&rows, &november(sast))
        .into_iter()
        .map(|d| (d.day, d.counts.ok))
        .collect();
    assert_eq!(
        by_day,
        [("2026-11-01".to_string(), 5), ("2026-11-30".to_string(), 1)]
    );
}

#[test]
fn one_key_is_kept_and_an_unknown_one_refused() {
    let keys = [
        key("key_a", "2026-10-02T08:00:00Z", &[]),
        key("key_b", "2026-10-02T08:00:00Z", &[]),
    ];
    let lines = totals(&keys, &[], &november(Zone::utc()), Some("key_b"));
    assert_eq!(lines.len(), 1);
    assert_eq!(lines[0].key_id, "key_b");
    assert!(check_key(&keys, Some("key_b")).is_ok());
    let why = check_key(&keys, Some("key_typo")).unwrap_err();
    assert!(
        matches!(&why, AccessError::UnknownKey(id) if id == "key_typo"),
        "{why}"
    );
    assert!(why.to_string().contains("'key_typo'"), "{why}");
}
