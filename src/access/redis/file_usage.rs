//! A usage file's counts added to Redis by `keys migrate --redis`, by
//! difference: however often it runs, and however the file grew between
//! runs, each key's count for each day in Redis is what the file holds plus
//! what servers in Redis mode counted themselves.
//!
//! Each usage file is given a random identity, kept in the file itself, on
//! its first migration. Redis keeps, per identity, what that file has added
//! for each key and day (`area:usage:file:ID`); a run adds only the
//! difference, in one script, so two runs at once cannot both add it. The
//! files of several hosts have identities of their own and add up. A file
//! migrated before identities existed was sent as one batch named by its
//! contents' digest: if that batch is recorded, the file's counts are taken
//! as added already, once.

use rusqlite::OptionalExtension;
use std::path::Path;

use super::conn::Redis;
use super::usage::{FLUSHED, LAST_USED, Row, USAGE};
use crate::access::AccessError;
use crate::access::usage::{self, BUSY_TIMEOUT};
use crate::file_error::cannot;

/// Per identity: "key|period" to "ok,client_errors,rate_limited,server_errors"
/// added so far (three numbers where an older build added them).
const ADDED_BY_FILE: &str = "area:usage:file:";
/// Random bytes of a file's identity.
const IDENTITY_BYTES: usize = 16;

/// KEYS: what this file added, the counts, the last-used times, the batches
/// applied. ARGV: the file's batch name from before identities, then rows of
/// key, period, ok, client_errors, rate_limited, server_errors, last used
/// (unix seconds). Returns the requests added. What an older build added as
/// `errors` is read back as client errors, so the difference goes there.
const ADD: &str = r#"
local sent_whole = redis.call('EXISTS', KEYS[1]) == 0
  and redis.call('HEXISTS', KEYS[4], ARGV[1]) == 1
local names = {'ok', 'client_errors', 'rate_limited', 'server_errors'}
local added = 0
for i = 2, #ARGV, 7 do
  local row = ARGV[i] .. '|' .. ARGV[i + 1]
  local before = {0, 0, 0, 0}
  local held = redis.call('HGET', KEYS[1], row)
  if held then
    local j = 1
    for n in string.gmatch(held, '[^,]+') do
      before[j] = tonumber(n) or 0
      j = j + 1
    end
  end
  for j = 1, 4 do
    local delta = tonumber(ARGV[i + 1 + j]) - before[j]
    if delta ~= 0 and not sent_whole then
      redis.call('HINCRBY', KEYS[2], row .. '|' .. names[j], delta)
      added = added + delta
    end
  end
  redis.call('HSET', KEYS[1], row,
    ARGV[i + 2] .. ',' .. ARGV[i + 3] .. ',' .. ARGV[i + 4] .. ',' .. ARGV[i + 5])
  local used = tonumber(redis.call('HGET', KEYS[3], ARGV[i]) or '0')
  if tonumber(ARGV[i + 6]) > used then
    redis.call('HSET', KEYS[3], ARGV[i], ARGV[i + 6])
  end
end
return added
"#;

/// The usage file's identity, made and stored in it on first use.
pub fn identity(path: &Path) -> Result<String, AccessError> {
    let conn = usage::open_file(path, BUSY_TIMEOUT)?;
    let fail = cannot("write", path);
    // One writer at a time: two first migrations agree on one identity.
    conn.execute_batch(
        "BEGIN IMMEDIATE;
         CREATE TABLE IF NOT EXISTS file_identity (id TEXT NOT NULL);",
    )
    .map_err(&fail)?;
    let held: Option<String> = conn
        .query_row("SELECT id FROM file_identity LIMIT 1", [], |r| r.get(0))
        .optional()
        .map_err(&fail)?;
    let id = match held {
        Some(id) => id,
        None => {
            let mut bytes = [0u8; IDENTITY_BYTES];
            getrandom::fill(&mut bytes).map_err(AccessError::NoRandomness)?;
            let id = super::keys::to_hex(&bytes);
            conn.execute("INSERT INTO file_identity (id) VALUES (?1)", [&id])
                .map_err(&fail)?;
            id
        }
    };
    conn.execute_batch("COMMIT").map_err(&fail)?;
    Ok(id)
}

/// Adds what the file `identity` holds beyond what it added before; the
/// requests added. `sent_whole` names the batch an earlier migration of the
/// same contents was sent as.
pub fn add(
    redis: &Redis,
    identity: &str,
    sent_whole: &str,
    rows: &[Row],
) -> Result<i64, AccessError> {
    let script = redis::Script::new(ADD);
    let mut call = script.key(format!("{ADDED_BY_FILE}{identity}"));
    call.key(USAGE).key(LAST_USED).key(FLUSHED).arg(sent_whole);
    for r in rows {
        call.arg(&r.key_id).arg(&r.period);
        for n in r.counts.values() {
            call.arg(n);
        }
        call.arg(r.last_used);
    }
    Ok(redis.call(|c| call.invoke::<i64>(c))?)
}
