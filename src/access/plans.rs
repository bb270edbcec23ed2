//! Each plan's request budget, kept in the keys file: `plans list` and
//! `plans set`, and the limits the server reads with the keys.
//!
//! The plans themselves are fixed (domain.rs `Plan`): what a plan may use is
//! part of the API's contract. Only how many requests a minute each may make
//! is the operator's to set.

use std::collections::HashMap;
use std::ops::RangeInclusive;

use rusqlite::{Connection, params};

use crate::access::AccessError;
use crate::domain::Plan;

/// `plans set NAME --rpm N`: a whole number of requests a minute.
pub const REQUESTS_PER_MINUTE: RangeInclusive<u32> = 1..=1_000_000;
/// The word `--rpm` takes for no limit.
pub const UNLIMITED: &str = "unlimited";

/// Requests a minute by plan; None is unlimited.
pub type Limits = HashMap<Plan, Option<u32>>;

pub fn limits(conn: &Connection) -> rusqlite::Result<Limits> {
    let mut stmt = conn.prepare("SELECT name, requests_per_minute FROM plans")?;
    let rows = stmt.query_map([], |r| {
        Ok((r.get::<_, String>(0)?, r.get::<_, Option<u32>>(1)?))
    })?;
    let mut limits = Limits::new();
    for row in rows {
        let (name, limit) = row?;
        if let Some(plan) = Plan::from_name(&name) {
            limits.insert(plan, limit);
        }
    }
    Ok(limits)
}

/// Every plan in rank order with its limit, for `plans list`.
pub fn list(conn: &Connection) -> Result<Vec<(Plan, Option<u32>)>, AccessError> {
    let limits = limits(conn)?;
    Ok(Plan::ALL
        .iter()
        .map(|p| (*p, limits.get(p).copied().flatten()))
        .collect())
}

/// `plans set`: a plan's requests a minute, or None for unlimited.
pub fn set_limit(
    conn: &Connection,
    plan: Plan,
    per_minute: Option<u32>,
) -> Result<(), AccessError> {
    conn.execute(
        "UPDATE plans SET requests_per_minute = ?2 WHERE name = ?1",
        params![plan.name(), per_minute],
    )?;
    Ok(())
}

/// How `plans list` and `keys list` show a limit.
pub fn shown(per_minute: Option<u32>) -> String {
    per_minute.map_or_else(|| UNLIMITED.to_string(), |n| n.to_string())
}

/// Reads `--rpm`: a number within `REQUESTS_PER_MINUTE`, or `unlimited`.
pub fn parse_limit(text: &str) -> Result<Option<u32>, AccessError> {
    if text == UNLIMITED {
        return Ok(None);
    }
    match text.parse::<u32>() {
        Ok(n) if REQUESTS_PER_MINUTE.contains(&n) => Ok(Some(n)),
        _ => Err(AccessError::Rpm(text.to_string())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rpm_is_a_bounded_number_or_unlimited() {
        assert_eq!(parse_limit("unlimited").unwrap(), None);
        assert_eq!(parse_limit("1").unwrap(), Some(1));
        assert_eq!(parse_limit("1000000").unwrap(), Some(1_000_000));
        for bad in ["0", "1000001", "-5", "", "ten", "Unlimited", "5.5"] {
            assert!(
                matches!(parse_limit(bad), Err(AccessError::Rpm(given)) if given == bad),
                "{bad}"
            );
        }
    }
}
