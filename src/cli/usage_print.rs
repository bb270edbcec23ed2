//! `keys usage`'s output, from whichever store the keys and rows came:
//! each key's totals over the period (an invoice) or each key's days, as a
//! tab-separated table with a header, CSV, or JSON (docs/operations.md,
//! "Keys"). The adding up is access/usage/invoice.rs's.

use serde::Serialize;

use super::config::{By, Format};
use super::error::CliError;
use crate::access::keys::KeyRow;
use crate::access::plan_history::PlanSince;
use crate::access::usage::counts::{Counts, NAMES};
use crate::access::usage::invoice::{self as usage_invoice, Period};
use crate::access::usage::report::UsageRow;
use crate::dates;

/// One line of the invoice; JSON names its fields as the columns.
#[derive(Serialize)]
struct Invoiced<'a> {
    key_id: &'a str,
    label: &'a str,
    /// In JSON each with the time it began; in a cell, `plans_cell`.
    plans: &'a [PlanSince],
    revoked_at: Option<&'a str>,
    #[serde(flatten)]
    counts: Named,
}

/// One key's day.
#[derive(Serialize)]
struct Daily<'a> {
    key_id: &'a str,
    day: &'a str,
    #[serde(flatten)]
    counts: Named,
}

/// The counts under their names.
#[derive(Serialize)]
struct Named {
    ok: u64,
    client_errors: u64,
    rate_limited: u64,
    server_errors: u64,
}

impl From<Counts> for Named {
    fn from(c: Counts) -> Named {
        Named {
            ok: c.ok,
            client_errors: c.client_errors,
            rate_limited: c.rate_limited,
            server_errors: c.server_errors,
        }
    }
}

/// Prints the report `by` asks for; an unknown `only` key is an error,
/// before anything is printed.
pub fn print(
    keys: &[KeyRow],
    rows: &[UsageRow],
    period: &Period,
    only: Option<&str>,
    by: By,
    format: Format,
) -> Result<(), CliError> {
    usage_invoice::check_key(keys, only)?;
    let (header, lines, json) = match by {
        By::Key => invoice(keys, rows, period, only)?,
        By::Day => days(rows, period)?,
    };
    write(&header, &lines, &json, format)
}

/// The header, the lines' cells (the label `""` where there is none) and the JSON.
type Printed = (Vec<String>, Vec<Vec<String>>, String);

fn cells(first: &[&str], counts: Counts) -> Vec<String> {
    let counts = counts.values().map(|n| n.to_string());
    first.iter().map(|c| c.to_string()).chain(counts).collect()
}

fn header(first: &[&str]) -> Vec<String> {
    first
        .iter()
        .chain(NAMES.iter())
        .map(|c| c.to_string())
        .collect()
}

fn invoice(
    keys: &[KeyRow],
    rows: &[UsageRow],
    period: &Period,
    only: Option<&str>,
) -> Result<Printed, CliError> {
    let totals = usage_invoice::totals(keys, rows, period, only);
    let lines = totals
        .iter()
        .map(|t| {
            let plans = usage_invoice::plans_cell(&t.plans, &period.zone);
            let revoked = t.revoked_at.as_deref().unwrap_or("");
            cells(&[&t.key_id, &t.label, &plans, revoked], t.counts)
        })
        .collect();
    let json: Vec<Invoiced> = totals
        .iter()
        .map(|t| Invoiced {
            key_id: &t.key_id,
            label: &t.label,
            plans: &t.plans,
            revoked_at: t.revoked_at.as_deref(),
            counts: t.counts.into(),
        })
        .collect();
    let json = serde_json::to_string(&json)?;
    Ok((
        header(&["key_id", "label", "plans", "revoked_at"]),
        lines,
        json,
    ))
}

fn days(rows: &[UsageRow], period: &Period) -> Result<Printed, CliError> {
    let days = usage_invoice::days(rows, period);
    let lines = days
        .iter()
        .map(|d| cells(&[&d.key_id, &d.day], d.counts))
        .collect();
    let json: Vec<Daily> = days
        .iter()
        .map(|d| Daily {
            key_id: &d.key_id,
            day: &d.day,
            counts: d.counts.into(),
        })
        .collect();
    let json = serde_json::to_string(&json)?;
    Ok((header(&["key_id", "day"]), lines, json))
}

fn write(
    header: &[String],
    lines: &[Vec<String>],
    json: &str,
    format: Format,
) -> Result<(), CliError> {
    let fail = |source| CliError::Write {
        what: "the usage",
        source,
    };
    match format {
        Format::Json => println!("{json}"),
        Format::Table => {
            println!("{}", header.join("\t"));
            for line in lines {
                let shown: Vec<&str> = line
                    .iter()
                    .map(|c| if c.is_empty() { "-" } else { c.as_str() })
                    .collect();
                println!("{}", shown.join("\t"));
            }
        }
        // Labels and plans may hold commas and quotes: the csv crate quotes them.
        Format::Csv => {
            let mut out = csv::Writer::from_writer(std::io::stdout().lock());
            let mut record = |cells: &[String]| {
                out.write_record(cells)
                    .map_err(|source| CliError::WriteCsv {
                        what: "the usage",
                        source,
                    })
            };
            record(header)?;
            for line in lines {
                record(line)?;
            }
            out.flush().map_err(fail)?;
        }
    }
    Ok(())
}

/// The period as stderr says it: `2026-11-01 to 2026-11-30 (days in UTC)`.
pub fn said(period: &Period) -> String {
    format!(
        "{} to {} (days in {})",
        dates::format_date(period.from),
        dates::format_date(period.to),
        period.zone.name()
    )
}
