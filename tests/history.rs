//! Get Area History and include=history: plan access, periods ending on the
//! latest day with the last point equal to truth_score, weekly and monthly
//! means (dated Mondays and 1sts) derived here from the daily points, change
//! and trend, and the parameter rules.

use std::collections::BTreeMap;

use crate::common::calc::{date_of, day_number, has_two_decimals_at_most, round2, weekday};
use crate::common::{Plan, TestApp, assert_error, assert_invalid, key_set, points, spawn_app};
use serde_json::Value;

const PERIODS: [(&str, usize); 4] = [("7d", 7), ("30d", 30), ("90d", 90), ("1y", 365)];

/// Every 20th area: a spread of ids, provinces and score shapes.
fn sample(app: &TestApp) -> Vec<&str> {
    app.listed()
        .iter()
        .step_by(20)
        .map(|a| a["id"].as_str().unwrap())
        .collect()
}

#[test]
fn history_needs_growth_or_above_on_the_endpoint_and_in_include() {
    let app = spawn_app();
    for plan in Plan::ALL {
        let allowed = plan >= Plan::Growth;
        for target in [
            "/v1/areas/aberdeen/history",
            "/v1/areas/aberdeen?include=history",
            "/v1/areas/aberdeen?include=nearby,history",
        ] {
            let reply = app.get_as(plan, target);
            if allowed {
                assert_eq!(reply.status, 200, "{plan:?} {target}");
            } else {
                let param = target.contains("include").then_some("include");
                let msg = assert_error(&reply, 403, "plan_upgrade_required", param);
                assert!(msg.contains("growth"), "names the plan needed: {msg}");
                assert_eq!(reply.json()["error"]["required_plan"], "growth");
            }
        }
        // Everything else is open to every plan.
        let reply = app.get_as(plan, "/v1/areas/aberdeen?include=nearby");
        assert_eq!(reply.status, 200, "{plan:?}");
    }
    // include=history is the default history: 30 days, daily.
    let default = app.ok("/v1/areas/aberdeen/history");
    assert_eq!(
        app.ok("/v1/areas/aberdeen?include=history")["history"],
        default["history"]
    );
    assert_eq!(
        default,
        app.ok("/v1/areas/aberdeen/history?period=30d&granularity=daily")
    );
}

#[test]
fn daily_periods_end_on_the_latest_day_at_truth_score() {
    let app = spawn_app();
    // Every area: its latest point is its truth_score, on its updated_at day.
    // 7d ends on the same day as every other period (checked below for a sample).
    let listed = app.listed();
    let changes: Vec<f64> = std::thread::scope(|s| {
        let threads: Vec<_> = listed
            .chunks(listed.len().div_ceil(4))
            .map(|chunk| {
                s.spawn(move || {
                    chunk
                        .iter()
                        .map(|area| {
                            let id = area["id"].as_str().unwrap();
                            let body = app.ok(&format!("/v1/areas/{id}/history?period=7d"));
                            let (date, score) = points(&body).pop().expect("points");
                            assert_eq!(
                                score,
                                area["truth_score"].as_f64().unwrap(),
                                "{id}: last point"
                            );
                            let updated = area["updated_at"].as_str().unwrap();
                            assert_eq!(
                                date,
                                updated[..10],
                                "{id}: the window ends on the latest day"
                            );
                            check_change_and_trend(&body)
                        })
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        threads
            .into_iter()
            .flat_map(|t| t.join().unwrap())
            .collect()
    });
    // The thresholds themselves were met: a change of exactly ±0.1 occurred.
    assert!(
        changes.contains(&0.1) && changes.contains(&-0.1),
        "changes of exactly 0.1 and -0.1 seen"
    );
    for id in sample(app) {
        for (period, days) in PERIODS {
            let body = app.ok(&format!("/v1/areas/{id}/history?period={period}"));
            let keys = key_set(&body);
            let want = ["area_id", "change", "history", "period", "trend"];
            assert_eq!(keys, want.into());
            assert_eq!(
                (body["area_id"].as_str(), body["period"].as_str()),
                (Some(id), Some(period))
            );
            let pts = points(&body);
            assert_eq!(pts.len(), days, "{id} {period}: one point a day");
            let day_numbers: Vec<i64> = pts.iter().map(|(d, _)| day_number(d)).collect();
            assert!(
                day_numbers.windows(2).all(|w| w[1] == w[0] + 1),
                "{id} {period}: consecutive days"
            );
            assert!(
                pts.iter()
                    .all(|(_, s)| (0.0..=10.0).contains(s) && has_two_decimals_at_most(*s))
            );
            let listed = app.listed().iter().find(|a| a["id"] == id).unwrap();
            let last = pts.last().unwrap();
            assert_eq!(
                last.1,
                listed["truth_score"].as_f64().unwrap(),
                "{id} {period}"
            );
            assert_eq!(last.0, listed["updated_at"].as_str().unwrap()[..10]);
        }
    }
}

/// Groups daily points by `key` and averages each group, oldest first.
fn grouped(daily: &[(String, f64)], key: impl Fn(&str) -> String) -> Vec<(String, f64)> {
    let mut groups: BTreeMap<String, (f64, u32)> = BTreeMap::new();
    for (date, score) in daily {
        let g = groups.entry(key(date)).or_insert((0.0, 0));
        g.0 += score;
        g.1 += 1;
    }
    groups
        .into_iter()
        .map(|(k, (sum, n))| (k, round2(sum / n as f64)))
        .collect()
}

fn monday_of(date: &str) -> String {
    let day = day_number(date);
    date_of(day - weekday(day))
}

#[test]
fn weekly_and_monthly_points_are_means_dated_mondays_and_firsts() {
    let app = spawn_app();
    for id in sample(app) {
        for (period, _) in PERIODS {
            let daily = points(&app.ok(&format!("/v1/areas/{id}/history?period={period}")));
            let weekly = points(&app.ok(&format!(
                "/v1/areas/{id}/history?period={period}&granularity=weekly"
            )));
            let monthly = points(&app.ok(&format!(
                "/v1/areas/{id}/history?period={period}&granularity=monthly"
            )));
            for (date, _) in &weekly {
                assert_eq!(
                    weekday(day_number(date)),
                    0,
                    "{id} {period}: {date} is a Monday"
                );
            }
            for (date, _) in &monthly {
                assert!(date.ends_with("-01"), "{id} {period}: {date} is a 1st");
            }
            // Partial weeks and months at the edges count with the days they have.
            for (got, want, what) in [
                (&weekly, grouped(&daily, monday_of), "weekly"),
                (
                    &monthly,
                    grouped(&daily, |d| format!("{}-01", &d[..7])),
                    "monthly",
                ),
            ] {
                let dates: Vec<&String> = got.iter().map(|(d, _)| d).collect();
                assert_eq!(
                    dates,
                    want.iter().map(|(d, _)| d).collect::<Vec<_>>(),
                    "{id} {period} {what}"
                );
                for ((_, g), (_, w)) in got.iter().zip(&want) {
                    // Both are means of the same two-decimal points, rounded.
                    assert!(
                        (g - w).abs() <= 0.01 + 1e-9,
                        "{id} {period} {what}: {g} vs {w}"
                    );
                }
            }
        }
    }
}

/// Checks change = last - first (2 decimals) and trend by the thresholds;
/// returns change.
fn check_change_and_trend(body: &Value) -> f64 {
    let pts = points(body);
    let what = format!("{} {}", body["area_id"], body["period"]);
    let change = body["change"].as_f64().unwrap();
    let want = round2(pts.last().unwrap().1 - pts[0].1);
    assert!(
        (change - want).abs() < 1e-9,
        "{what}: change {change}, points say {want}"
    );
    assert!(has_two_decimals_at_most(change), "{what}: {change}");
    let trend = if change >= 0.1 {
        "up"
    } else if change <= -0.1 {
        "down"
    } else {
        "stable"
    };
    assert_eq!(body["trend"], trend, "{what}: change {change}");
    change
}

#[test]
fn change_is_last_minus_first_and_trend_follows_the_thresholds() {
    let app = spawn_app();
    let mut trends: BTreeMap<String, usize> = BTreeMap::new();
    for id in sample(app) {
        for (period, _) in PERIODS {
            for granularity in ["daily", "weekly", "monthly"] {
                let body = app.ok(&format!(
                    "/v1/areas/{id}/history?period={period}&granularity={granularity}"
                ));
                check_change_and_trend(&body);
                let trend = body["trend"].as_str().unwrap();
                *trends.entry(trend.into()).or_default() += 1;
            }
        }
    }
    assert_eq!(trends.len(), 3, "up, down and stable all seen: {trends:?}");
}

#[test]
fn history_parameters_and_unknown_areas() {
    let app = spawn_app();
    for bad in ["1d", "30D", "1Y", "", "7d,30d", "365d", "+7d"] {
        assert_invalid(
            &app.get(&format!("/v1/areas/aberdeen/history?period={bad}")),
            &["period"],
        );
    }
    for bad in ["hourly", "Daily", "", "week"] {
        assert_invalid(
            &app.get(&format!("/v1/areas/aberdeen/history?granularity={bad}")),
            &["granularity"],
        );
    }
    assert_invalid(
        &app.get("/v1/areas/aberdeen/history?period=7d&period=7d"),
        &["period"],
    );
    assert_invalid(
        &app.get("/v1/areas/aberdeen/history?from=2024-01-01"),
        &["from"],
    );
    let msg = assert_error(
        &app.get("/v1/areas/no-such-place/history"),
        404,
        "area_not_found",
        None,
    );
    assert!(msg.contains("no-such-place"), "{msg}");
    // Order: parameters (400), then plan (403), then area (404).
    let free = |t: &str| app.get_as(Plan::Free, t);
    assert_invalid(
        &free("/v1/areas/no-such-place/history?period=2d"),
        &["period"],
    );
    assert_error(
        &free("/v1/areas/no-such-place/history"),
        403,
        "plan_upgrade_required",
        None,
    );
    assert_invalid(
        &app.get("/v1/areas/no-such-place/history?granularity=yearly"),
        &["granularity"],
    );
}
