//! Keys and plans in Redis: what `keys` and `plans` write there and what a
//! server loads. A key is stored only as its SHA-256, as in the keys file.
//!
//! `area:keys` maps each key id to its record (JSON), `area:plans` each plan
//! to its requests a minute (plans not there keep the keys file's defaults),
//! and every change adds one to `area:version`, which servers poll.

use std::collections::HashMap;

use redis::Commands;
use serde::{Deserialize, Serialize};

use super::conn::Redis;
use super::invalid_values::Kind;
use crate::access::AccessError;
use crate::access::key_store::KeyTable;
use crate::access::keys::{self, Caller, KeyRow};
use crate::access::plan_history::PlanSince;
use crate::access::plans::{self, Limits};
use crate::dates;
use crate::domain::Plan;

pub const KEYS: &str = "area:keys";
pub const PLANS: &str = "area:plans";
pub const VERSION: &str = "area:version";

/// One key as Redis holds it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct KeyRecord {
    pub id: String,
    /// SHA-256 of the key, in hex.
    pub hash: String,
    pub plan: String,
    pub label: String,
    pub created_at: String,
    pub revoked_at: Option<String>,
    /// Oldest first, as in the keys file (access/plan_history.rs); absent
    /// from records written before plans were recorded.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub plans: Vec<PlanSince>,
}

/// Everything a server needs to authenticate, read at one moment.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct KeyState {
    pub version: u64,
    pub keys: Vec<KeyRecord>,
    /// Plan name to requests a minute; `unlimited` for none.
    pub plans: HashMap<String, String>,
}

impl KeyState {
    /// The table a server authenticates from: live keys, and each plan's limit.
    pub fn table(&self) -> KeyTable {
        let mut callers = HashMap::new();
        for k in self.keys.iter().filter(|k| k.revoked_at.is_none()) {
            let (Some(hash), Some(plan)) = (from_hex(&k.hash), Plan::from_name(&k.plan)) else {
                continue;
            };
            let key_id = k.id.clone();
            callers.insert(hash, Caller { key_id, plan });
        }
        KeyTable::new(callers, self.limits())
    }

    pub fn limits(&self) -> Limits {
        let mut limits = default_limits();
        for (name, limit) in &self.plans {
            if let (Some(plan), Ok(limit)) = (Plan::from_name(name), plans::parse_limit(limit)) {
                limits.insert(plan, limit);
            }
        }
        limits
    }
}

/// The limits a new keys file starts with (access/key_file.rs), defined there once.
pub fn default_limits() -> Limits {
    rusqlite::Connection::open_in_memory()
        .and_then(|conn| {
            conn.execute_batch(crate::access::key_file::SCHEMA)?;
            plans::limits(&conn)
        })
        .unwrap_or_default()
}

fn from_hex(text: &str) -> Option<[u8; 32]> {
    let bytes: Option<Vec<u8>> = (0..text.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(text.get(i..i + 2)?, 16).ok())
        .collect();
    bytes?.try_into().ok()
}

pub fn to_hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The version, the keys' hash and the plans' hash, as one read brings them.
type Stored = (
    Option<Vec<u8>>,
    HashMap<String, Vec<u8>>,
    HashMap<String, Vec<u8>>,
);

/// Reads keys, plans and the version in one transaction.
pub fn load(redis: &Redis) -> Result<KeyState, AccessError> {
    let (version, keys, plans): Stored = redis.call(|c| {
        redis::pipe()
            .atomic()
            .get(VERSION)
            .hgetall(KEYS)
            .hgetall(PLANS)
            .query(c)
    })?;
    let mut keys: Vec<KeyRecord> = keys
        .iter()
        .filter_map(|(id, json)| good_record(redis, id, json))
        .collect();
    keys.sort_by(|a, b| (&a.created_at, &a.id).cmp(&(&b.created_at, &b.id)));
    let plans = plans
        .iter()
        .filter_map(|(name, limit)| good_plan(redis, name, limit))
        .collect();
    Ok(KeyState {
        // A bad version is counted and said; the keys are good for all that.
        version: redis
            .invalid_values
            .version(VERSION, version.as_deref())
            .unwrap_or(0),
        keys,
        plans,
    })
}

/// The record at field `id` of `area:keys`, if it is one a server can use.
fn good_record(redis: &Redis, id: &str, json: &[u8]) -> Option<KeyRecord> {
    let why = match serde_json::from_slice::<KeyRecord>(json) {
        Err(e) => format!("not a key record ({e})"),
        Ok(r) if r.id != id => format!("the record names another id, '{}'", r.id),
        Ok(r) if from_hex(&r.hash).is_none() => "its hash is not 64 hex digits".into(),
        Ok(r) if Plan::from_name(&r.plan).is_none() => format!("no plan is named '{}'", r.plan),
        Ok(r) => return Some(r),
    };
    redis
        .invalid_values
        .found(Kind::KeyRecord, &format!("{KEYS} field {id}"), &why);
    None
}

/// A plan's limit at field `name` of `area:plans`, if it is one.
fn good_plan(redis: &Redis, name: &str, limit: &[u8]) -> Option<(String, String)> {
    let limit = String::from_utf8_lossy(limit);
    let why = match (Plan::from_name(name), plans::parse_limit(&limit)) {
        (None, _) => format!("no plan is named '{name}'"),
        (_, Err(_)) => format!("'{limit}' is not a number of requests a minute"),
        (Some(_), Ok(_)) => return Some((name.to_string(), limit.into_owned())),
    };
    redis
        .invalid_values
        .found(Kind::Plan, &format!("{PLANS} field {name}"), &why);
    None
}

/// The version alone: what servers poll. Ok(None) when it is not a whole
/// number (counted and said): Redis answered, so this is no failure.
pub fn version(redis: &Redis) -> Result<Option<u64>, AccessError> {
    let raw: Option<Vec<u8>> = redis.call(|c| c.get(VERSION))?;
    Ok(redis.invalid_values.version(VERSION, raw.as_deref()))
}

/// Writes one key's record and moves the version on.
pub fn put(redis: &Redis, record: &KeyRecord) -> Result<(), AccessError> {
    let json = serde_json::to_string(record)?;
    Ok(redis.call(|c| {
        redis::pipe()
            .atomic()
            .hset(KEYS, &record.id, json)
            .ignore()
            .incr(VERSION, 1)
            .ignore()
            .query::<()>(c)
    })?)
}

fn get(redis: &Redis, id: &str) -> Result<KeyRecord, AccessError> {
    let json: Option<String> = redis.call(|c| c.hget(KEYS, id))?;
    json.and_then(|j| serde_json::from_str(&j).ok())
        .ok_or_else(|| AccessError::UnknownKey(id.to_string()))
}

/// `keys create`: returns (id, key); only the key's hash is stored.
pub fn create(redis: &Redis, plan: Plan, label: &str) -> Result<(String, String), AccessError> {
    keys::check_label(label)?;
    let (id, key) = keys::new_key()?;
    let now = dates::format_timestamp(dates::now_unix());
    put(
        redis,
        &KeyRecord {
            id: id.clone(),
            hash: to_hex(&keys::hash(&key)),
            plan: plan.name().into(),
            label: label.into(),
            created_at: now.clone(),
            revoked_at: None,
            plans: vec![PlanSince {
                plan: plan.name().into(),
                since: Some(now),
            }],
        },
    )?;
    Ok((id, key))
}

/// `keys revoke`: revoking twice keeps the first revocation time, which is
/// returned for a key already revoked.
pub fn revoke(redis: &Redis, id: &str) -> Result<Option<String>, AccessError> {
    let mut record = get(redis, id)?;
    if let Some(at) = record.revoked_at {
        return Ok(Some(at));
    }
    record.revoked_at = Some(dates::format_timestamp(dates::now_unix()));
    put(redis, &record).map(|()| None)
}

/// `keys set`: another plan and/or label, the key unchanged. Returns each change.
pub fn set(
    redis: &Redis,
    id: &str,
    plan: Option<Plan>,
    label: Option<&str>,
) -> Result<Vec<String>, AccessError> {
    let mut record = get(redis, id)?;
    let mut changes = Vec::new();
    if let Some(at) = &record.revoked_at {
        return Err(AccessError::Revoked {
            id: id.to_string(),
            at: at.clone(),
        });
    }
    if let Some(label) = label {
        keys::check_label(label)?;
        if record.label != label {
            changes.push(format!("label {:?} → {label:?}", record.label));
        }
        record.label = label.into();
    }
    if let Some(plan) = plan.filter(|p| p.name() != record.plan) {
        // A key from before plans were recorded: the plan it had, from no known time.
        if record.plans.is_empty() {
            record.plans.push(PlanSince {
                plan: record.plan.clone(),
                since: None,
            });
        }
        changes.push(format!("plan {} → {}", record.plan, plan.name()));
        record.plan = plan.name().into();
        record.plans.push(PlanSince {
            plan: record.plan.clone(),
            since: Some(dates::format_timestamp(dates::now_unix())),
        });
    }
    put(redis, &record).map(|()| changes)
}

/// `keys list`, as the keys file lists them.
pub fn list(redis: &Redis) -> Result<Vec<KeyRow>, AccessError> {
    Ok(load(redis)?
        .keys
        .into_iter()
        .map(|k| KeyRow {
            id: k.id,
            plan: k.plan,
            label: k.label,
            created_at: k.created_at,
            revoked_at: k.revoked_at,
            plans: k.plans,
        })
        .collect())
}

/// `plans list`: every plan in rank order with its limit.
pub fn plan_list(redis: &Redis) -> Result<Vec<(Plan, Option<u32>)>, AccessError> {
    let limits = load(redis)?.limits();
    Ok(Plan::ALL
        .iter()
        .map(|p| (*p, limits.get(p).copied().flatten()))
        .collect())
}

/// `plans set`.
pub fn set_limit(redis: &Redis, plan: Plan, per_minute: Option<u32>) -> Result<(), AccessError> {
    Ok(redis.call(|c| {
        redis::pipe()
            .atomic()
            .hset(PLANS, plan.name(), plans::shown(per_minute))
            .ignore()
            .incr(VERSION, 1)
            .ignore()
            .query::<()>(c)
    })?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_state_authenticates_live_keys_only_with_its_plans_limits() {
        let key = "ask_0123";
        let record = |id: &str, revoked: Option<&str>| KeyRecord {
            plans: Vec::new(),
            id: id.into(),
            hash: to_hex(&keys::hash(key)),
            plan: "starter".into(),
            label: String::new(),
            created_at: "2026-01-01T00:00:00Z".into(),
            revoked_at: revoked.map(String::from),
        };
        let mut state = KeyState {
            version: 3,
            keys: vec![record("key_a", None)],
            plans: HashMap::from([("starter".to_string(), "5".to_string())]),
        };
        let table = state.table();
        assert_eq!(table.live_keys(), 1);
        assert_eq!(table.limit(Plan::Starter), Some(5));
        assert_eq!(table.limit(Plan::Free), default_limits()[&Plan::Free]);
        assert_eq!(table.limit(Plan::Enterprise), None);
        state.keys[0].revoked_at = Some("2026-01-02T00:00:00Z".into());
        assert_eq!(state.table().live_keys(), 0);
    }

    #[test]
    fn hex_round_trips_and_refuses_junk() {
        let hash = keys::hash("x");
        assert_eq!(from_hex(&to_hex(&hash)), Some(hash));
        assert_eq!(from_hex("zz"), None);
        assert_eq!(from_hex("00"), None);
    }
}
