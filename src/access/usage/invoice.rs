//! `keys usage`'s report, whichever store the keys and rows came from:
//! each key's totals over the days of a period in a zone, with its label
//! and the plans it had (the invoice), or each key's days.
//!
//! A key is listed when it existed at some time in the period or has
//! usage in it, with zeros where it has none. Rows of a whole UTC day,
//! kept from before hours were counted, fall on that date in any zone.

use std::collections::BTreeMap;

use crate::access::AccessError;
use crate::access::keys::KeyRow;
use crate::access::plan_history::PlanSince;
use crate::access::usage::counts::Counts;
use crate::access::usage::period::Zone;
use crate::access::usage::report::{DEFAULT_DAYS, UsageRow};
use crate::dates;

/// The local days `from` to `to` (inclusive, day numbers) in `zone`.
#[derive(Debug, Clone)]
pub struct Period {
    pub from: i64,
    pub to: i64,
    pub zone: Zone,
}

impl Period {
    /// `keys usage`'s days, whichever store is read: up to today in `tz`
    /// (an IANA name; None is UTC), and the last `DEFAULT_DAYS` of them
    /// unless told otherwise; a zone that would split hours is refused.
    pub fn of(from: Option<i64>, to: Option<i64>, tz: Option<&str>) -> Result<Period, AccessError> {
        let zone = match tz {
            Some(name) => Zone::named(name)?,
            None => Zone::utc(),
        };
        let to = to.unwrap_or_else(|| zone.day_of(dates::now_unix()));
        let from = from.unwrap_or(to - (DEFAULT_DAYS - 1));
        zone.check_whole_hours(from, to)?;
        Ok(Period { from, to, zone })
    }

    /// The UTC days whose rows may fall in the period: a zone is less than
    /// a day from UTC.
    pub fn utc_days(&self) -> (String, String) {
        (
            dates::format_date(self.from - 1),
            dates::format_date(self.to + 1),
        )
    }

    /// The local day a stored row's period falls on.
    fn day_of(&self, period: &str) -> Option<i64> {
        match dates::parse_hour(period) {
            Some(hour) => Some(self.zone.day_of_hour(hour)),
            None => dates::parse_date(period),
        }
    }

    fn start(&self) -> String {
        dates::format_timestamp(self.zone.day_start(self.from))
    }

    fn end(&self) -> String {
        dates::format_timestamp(self.zone.day_start(self.to + 1))
    }
}

/// One key's totals over the period: a line of an invoice.
#[derive(Debug, Clone, PartialEq)]
pub struct KeyTotal {
    pub key_id: String,
    pub label: String,
    /// The plan held when the period began (or the key was made), then each
    /// change within it.
    pub plans: Vec<PlanSince>,
    /// When the key was revoked, if it was: its usage ends there.
    pub revoked_at: Option<String>,
    pub counts: Counts,
}

/// One key's requests on one local day.
#[derive(Debug, Clone, PartialEq)]
pub struct DayLine {
    pub key_id: String,
    pub day: String,
    pub counts: Counts,
}

/// Refuses a `--key` that names no key.
pub fn check_key(keys: &[KeyRow], only: Option<&str>) -> Result<(), AccessError> {
    match only {
        Some(id) if !keys.iter().any(|k| k.id == id) => {
            Err(AccessError::UnknownKey(id.to_string()))
        }
        _ => Ok(()),
    }
}

/// Each key's rows added up by local day, of the period only.
fn by_day(rows: &[UsageRow], period: &Period) -> BTreeMap<(String, i64), Counts> {
    let mut out: BTreeMap<(String, i64), Counts> = BTreeMap::new();
    for row in rows {
        let Some(day) = period.day_of(&row.period) else {
            continue;
        };
        if (period.from..=period.to).contains(&day) {
            out.entry((row.key_id.clone(), day))
                .or_default()
                .add(row.counts);
        }
    }
    out
}

/// Each key's requests on each local day of the period that has any.
pub fn days(rows: &[UsageRow], period: &Period) -> Vec<DayLine> {
    by_day(rows, period)
        .into_iter()
        .map(|((key_id, day), counts)| DayLine {
            key_id,
            day: dates::format_date(day),
            counts,
        })
        .collect()
}

/// The invoice: every key that existed in the period or used it, in the
/// order `keys` lists them, then keys known only from usage; `only` keeps one.
pub fn totals(
    keys: &[KeyRow],
    rows: &[UsageRow],
    period: &Period,
    only: Option<&str>,
) -> Vec<KeyTotal> {
    let mut used: BTreeMap<String, Counts> = BTreeMap::new();
    for ((key_id, _), counts) in by_day(rows, period) {
        used.entry(key_id).or_default().add(counts);
    }
    let (start, end) = (period.start(), period.end());
    let existed =
        |k: &KeyRow| k.created_at < end && k.revoked_at.as_ref().is_none_or(|at| *at >= start);
    let listed: Vec<&KeyRow> = keys
        .iter()
        .filter(|k| only.map_or(existed(k) || used.contains_key(&k.id), |id| id == k.id))
        .collect();
    let mut out: Vec<KeyTotal> = listed
        .into_iter()
        .map(|k| KeyTotal {
            key_id: k.id.clone(),
            label: k.label.clone(),
            plans: plans_over(k, &start, &end),
            revoked_at: k.revoked_at.clone(),
            counts: used.remove(&k.id).unwrap_or_default(),
        })
        .collect();
    out.extend(
        used.into_iter()
            .filter(|(id, _)| only.is_none_or(|want| want == id))
            .map(|(key_id, counts)| KeyTotal {
                key_id,
                label: String::new(),
                plans: Vec::new(),
                revoked_at: None,
                counts,
            }),
    );
    out
}

/// The plans `key` had from `start` to `end` (timestamps): the one held at
/// `start`, then each change before `end`. A key with no history has its
/// plan of now, from no known time.
fn plans_over(key: &KeyRow, start: &str, end: &str) -> Vec<PlanSince> {
    if key.plans.is_empty() {
        return vec![PlanSince {
            plan: key.plan.clone(),
            since: None,
        }];
    }
    let before = |p: &&PlanSince| p.since.as_deref().is_none_or(|at| at <= start);
    let held = key.plans.iter().rfind(before);
    let within = key
        .plans
        .iter()
        .filter(|p| p.since.as_deref().is_some_and(|at| at > start && at < end));
    held.into_iter().chain(within).cloned().collect()
}

/// The plans as a cell: `free`, or `free, growth from 2026-11-15` where a
/// change fell within the period, its day in the period's zone.
pub fn plans_cell(plans: &[PlanSince], zone: &Zone) -> String {
    let cells: Vec<String> = plans
        .iter()
        .enumerate()
        .map(|(i, p)| match (&p.since, i) {
            (Some(at), 1..) => match at.parse::<jiff::Timestamp>() {
                Ok(t) => format!(
                    "{} from {}",
                    p.plan,
                    dates::format_date(zone.day_of(t.as_second()))
                ),
                Err(_) => format!("{} from {at}", p.plan),
            },
            _ => p.plan.clone(),
        })
        .collect();
    cells.join(", ")
}

#[cfg(test)]
#[path = "invoice_tests.rs"]
mod tests;
