//! API keys in the keys file: issuing, listing, revoking and changing them,
//! and reading the key out of an Authorization header.
//!
//! A key is `ask_` followed by 48 hex digits (192 random bits). Only its SHA-256
//! is stored; the key is shown once, when created. Each key also has a public
//! `id` (`key_` + 12 hex digits) for listing, revoking and changing it.

use rusqlite::{Connection, params};
use sha2::{Digest, Sha256};

use crate::access::AccessError;
use crate::access::plan_history::{self, PlanSince};
use crate::dates;
use crate::domain::Plan;
use crate::error::ApiError;

pub(crate) fn random_hex(bytes: usize) -> Result<String, AccessError> {
    let mut buf = vec![0u8; bytes];
    getrandom::fill(&mut buf).map_err(AccessError::NoRandomness)?;
    Ok(buf.iter().map(|b| format!("{b:02x}")).collect())
}

pub fn hash(key: &str) -> [u8; 32] {
    Sha256::digest(key.as_bytes()).into()
}

/// The key, from an Authorization header of the form `Bearer <key>` (scheme in any case).
pub fn bearer_key(header: Option<&str>) -> Result<&str, ApiError> {
    let header = header.ok_or(ApiError::MissingApiKey)?.trim();
    let (scheme, key) = header.split_once(' ').unwrap_or((header, ""));
    let key = key.trim();
    if !scheme.eq_ignore_ascii_case("bearer") || key.is_empty() {
        return Err(ApiError::MissingApiKey);
    }
    Ok(key)
}

/// Who is calling: a live key's id and plan.
#[derive(Debug, Clone, PartialEq)]
pub struct Caller {
    pub key_id: String,
    pub plan: Plan,
}

/// Refuses a plan below `needed` for `feature` (named in the message), which
/// the query parameter `param` asked for, where one did.
pub fn require(
    plan: Plan,
    needed: Plan,
    feature: &'static str,
    param: Option<&'static str>,
) -> Result<(), ApiError> {
    if plan >= needed {
        Ok(())
    } else {
        Err(ApiError::PlanUpgradeRequired {
            feature,
            needed,
            have: plan,
            param,
        })
    }
}

/// Issues a key on `plan` and returns (id, key). The key is not stored.
/// A label is any text but control characters, which would let it print
/// lines of its own into `keys list`.
pub fn create(conn: &Connection, plan: Plan, label: &str) -> Result<(String, String), AccessError> {
    check_label(label)?;
    let (id, key) = new_key()?;
    let now = dates::format_timestamp(dates::now_unix());
    conn.execute(
        "INSERT INTO api_keys (id, key_hash, plan, label, created_at) VALUES (?1, ?2, ?3, ?4, ?5)",
        params![id, hash(&key), plan.name(), label, now],
    )
    .map_err(AccessError::failed("store the key"))?;
    plan_history::record(conn, &id, None, plan.name(), &now)?;
    Ok((id, key))
}

/// A new key's (id, key), drawn from the system's randomness.
pub fn new_key() -> Result<(String, String), AccessError> {
    Ok((
        format!("key_{}", random_hex(6)?),
        format!("ask_{}", random_hex(24)?),
    ))
}

/// Characters that change how text around them is shown without being seen
/// themselves: bidirectional controls, which can make one `keys list` line
/// read as another, and zero-width ones.
const INVISIBLE: [std::ops::RangeInclusive<char>; 4] = [
    '\u{200B}'..='\u{200F}',
    '\u{202A}'..='\u{202E}',
    '\u{2066}'..='\u{2069}',
    '\u{FEFF}'..='\u{FEFF}',
];

pub fn check_label(label: &str) -> Result<(), AccessError> {
    let bad = |c: &char| c.is_control() || INVISIBLE.iter().any(|r| r.contains(c));
    match label.chars().find(bad) {
        Some(c) => Err(AccessError::Label(c)),
        None => Ok(()),
    }
}

pub struct KeyRow {
    pub id: String,
    pub plan: String,
    pub label: String,
    pub created_at: String,
    pub revoked_at: Option<String>,
    /// Oldest first; empty for a key created before plans were recorded
    /// and never moved since.
    pub plans: Vec<PlanSince>,
}

pub fn list(conn: &Connection) -> Result<Vec<KeyRow>, AccessError> {
    let mut stmt = conn.prepare(
        "SELECT id, plan, label, created_at, revoked_at FROM api_keys ORDER BY created_at, id",
    )?;
    let mut history = plan_history::all(conn)?;
    stmt.query_map([], |r| {
        let id: String = r.get(0)?;
        Ok(KeyRow {
            plans: history.remove(&id).unwrap_or_default(),
            id,
            plan: r.get(1)?,
            label: r.get(2)?,
            created_at: r.get(3)?,
            revoked_at: r.get(4)?,
        })
    })
    .and_then(Iterator::collect)
    .map_err(AccessError::from)
}

fn must_exist(conn: &Connection, id: &str) -> Result<(), AccessError> {
    let exists: bool =
        conn.query_row("SELECT count(*) FROM api_keys WHERE id = ?1", [id], |r| {
            r.get(0)
        })?;
    match exists {
        true => Ok(()),
        false => Err(AccessError::UnknownKey(id.to_string())),
    }
}

/// Revokes a key by id. Revoking twice keeps the first revocation time.
/// Returns when it was revoked before, for a key already revoked, whose
/// first revocation stands.
pub fn revoke(conn: &Connection, id: &str) -> Result<Option<String>, AccessError> {
    must_exist(conn, id)?;
    if let Some(at) = revoked_at(conn, id)? {
        return Ok(Some(at));
    }
    conn.execute(
        "UPDATE api_keys SET revoked_at = ?2 WHERE id = ?1 AND revoked_at IS NULL",
        params![id, dates::format_timestamp(dates::now_unix())],
    )?;
    Ok(None)
}

fn revoked_at(conn: &Connection, id: &str) -> Result<Option<String>, AccessError> {
    conn.query_row("SELECT revoked_at FROM api_keys WHERE id = ?1", [id], |r| {
        r.get(0)
    })
    .map_err(AccessError::from)
}

/// What `keys set` changed, as it says it: `plan free → growth`, `label
/// "A" → "B"`, or that nothing changed.
pub fn said_of_changes(changes: &[String]) -> String {
    match changes.is_empty() {
        true => "nothing changed (it had that plan and label already)".into(),
        false => changes.join(", "),
    }
}

/// `keys set`: moves a key to another plan and/or gives it another label,
/// keeping the key itself, so the client changes nothing. Returns each change.
pub fn set(
    conn: &Connection,
    id: &str,
    plan: Option<Plan>,
    label: Option<&str>,
) -> Result<Vec<String>, AccessError> {
    let mut changes = Vec::new();
    must_exist(conn, id)?;
    if let Some(at) = revoked_at(conn, id)? {
        return Err(AccessError::Revoked {
            id: id.to_string(),
            at,
        });
    }
    if let Some(label) = label {
        check_label(label)?;
        let before: String =
            conn.query_row("SELECT label FROM api_keys WHERE id = ?1", [id], |r| {
                r.get(0)
            })?;
        conn.execute(
            "UPDATE api_keys SET label = ?2 WHERE id = ?1",
            params![id, label],
        )?;
        if before != label {
            changes.push(format!("label {before:?} → {label:?}"));
        }
    }
    if let Some(plan) = plan {
        let before: String =
            conn.query_row("SELECT plan FROM api_keys WHERE id = ?1", [id], |r| {
                r.get(0)
            })?;
        if before == plan.name() {
            return Ok(changes);
        }
        conn.execute(
            "UPDATE api_keys SET plan = ?2 WHERE id = ?1",
            params![id, plan.name()],
        )?;
        let now = dates::format_timestamp(dates::now_unix());
        plan_history::record(conn, id, Some(&before), plan.name(), &now)?;
        changes.push(format!("plan {before} → {}", plan.name()));
    }
    Ok(changes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_bearer_keys_in_any_case() {
        assert_eq!(bearer_key(Some("Bearer abc")), Ok("abc"));
        assert_eq!(bearer_key(Some("bearer abc")), Ok("abc"));
        assert_eq!(bearer_key(Some("BEARER   abc ")), Ok("abc"));
        for bad in [
            None,
            Some(""),
            Some("Bearer"),
            Some("Bearer "),
            Some("Basic abc"),
            Some("abc"),
        ] {
            assert_eq!(bearer_key(bad), Err(ApiError::MissingApiKey), "{bad:?}");
        }
    }

    #[test]
    fn labels_refuse_what_would_forge_a_line() {
        assert!(check_label("Acme (Pty) Ltd, Sandton").is_ok());
        assert!(check_label("Bäckerei Müller ✓").is_ok());
        for bad in [
            "a\nb",
            "tab\there",
            "bell\u{7}",
            "evil\u{202E}dlrow",
            "zero\u{200B}width",
            "\u{FEFF}bom",
        ] {
            assert!(check_label(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn plans_allow_what_lower_plans_allow() {
        assert!(require(Plan::Growth, Plan::Growth, "history", None).is_ok());
        assert!(require(Plan::Enterprise, Plan::Growth, "history", None).is_ok());
        assert!(require(Plan::Starter, Plan::Growth, "history", None).is_err());
        assert!(require(Plan::Free, Plan::Growth, "history", None).is_err());
    }
}
