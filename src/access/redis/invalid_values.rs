//! What Redis holds that no command of ours wrote: a key record that does
//! not parse, a plan's limit that is not one, a version that is not an
//! integer, a bucket that is not tokens and a time. Each is logged as an
//! error naming its Redis key, and counted by kind for /metrics
//! (`area_redis_errors_total`). None is taken for Redis being away: the
//! server stays in the mode it is in, leaves the bad value out (with a bad
//! version, the keys in force stay), and picks up the next good one.

use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

/// Kinds of bad values, as /metrics labels them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    KeyRecord,
    Plan,
    Version,
    Bucket,
}

const KINDS: [Kind; 4] = [Kind::KeyRecord, Kind::Plan, Kind::Version, Kind::Bucket];

impl Kind {
    pub fn label(self) -> &'static str {
        match self {
            Kind::KeyRecord => "key_record",
            Kind::Plan => "plan",
            Kind::Version => "version",
            Kind::Bucket => "bucket",
        }
    }
}

#[derive(Default)]
pub struct InvalidValues {
    counts: [AtomicU64; KINDS.len()],
    /// The bad version last logged: the version is read a few times a
    /// second, and one bad value is logged once (and counted each time).
    version_said: Mutex<Option<Vec<u8>>>,
}

impl InvalidValues {
    /// Logs a bad value of `kind` at Redis key `key`, then counts it: an
    /// operator who sees the count in /metrics finds the line already in the
    /// log.
    pub fn found(&self, kind: Kind, key: &str, why: &str) {
        log::error!(
            "Redis holds a bad {} at {key}: {why}; it is left out",
            kind.label()
        );
        self.count(kind);
    }

    fn count(&self, kind: Kind) {
        let at = KINDS.iter().position(|k| *k == kind).unwrap_or_default();
        self.counts[at].fetch_add(1, Ordering::Relaxed);
    }

    /// The version Redis holds at `key` as read (None when unset: 0), or
    /// None when it is not an integer.
    pub fn version(&self, key: &str, raw: Option<&[u8]>) -> Option<u64> {
        let Some(raw) = raw else {
            return Some(0);
        };
        let mut said = self.version_said.lock().unwrap_or_else(|p| p.into_inner());
        match std::str::from_utf8(raw)
            .ok()
            .and_then(|t| t.parse::<u64>().ok())
        {
            Some(version) => {
                *said = None;
                Some(version)
            }
            None => {
                if said.as_deref() != Some(raw) {
                    log::error!(
                        "Redis holds a bad version at {key}: {:?} is not a whole number; the \
                         keys in force stay until it is one again",
                        String::from_utf8_lossy(raw)
                    );
                    *said = Some(raw.to_vec());
                }
                self.count(Kind::Version);
                None
            }
        }
    }

    /// How many bad values of `kind` were read.
    pub fn of(&self, kind: Kind) -> u64 {
        let at = KINDS.iter().position(|k| *k == kind).unwrap_or_default();
        self.counts[at].load(Ordering::Relaxed)
    }
}

/// Lines for /metrics: the bad values read through each of `sources`.
pub fn metrics(sources: &[&InvalidValues]) -> String {
    let mut out = String::from(
        "# HELP area_redis_errors_total Values read from Redis that are not what a command \
         wrote there, each logged with its key and left out.\n\
         # TYPE area_redis_errors_total counter\n",
    );
    for kind in KINDS {
        let n: u64 = sources.iter().map(|g| g.of(kind)).sum();
        out.push_str(&format!(
            "area_redis_errors_total{{kind=\"{}\"}} {n}\n",
            kind.label()
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bad_version_is_counted_each_time_and_a_good_one_read() {
        let invalid = InvalidValues::default();
        assert_eq!(invalid.version("v", None), Some(0));
        assert_eq!(invalid.version("v", Some(b"12")), Some(12));
        for bad in [&b"x"[..], b"-1", b"1.5", b"\xff"] {
            assert_eq!(invalid.version("v", Some(bad)), None);
        }
        assert_eq!(invalid.version("v", Some(b"x")), None);
        assert_eq!(invalid.of(Kind::Version), 5);
        assert_eq!(invalid.version("v", Some(b"13")), Some(13));
        invalid.found(Kind::Bucket, "b", "not a number");
        let lines = metrics(&[&invalid, &InvalidValues::default()]);
        assert!(lines.contains("area_redis_errors_total{kind=\"version\"} 5\n"));
        assert!(lines.contains("area_redis_errors_total{kind=\"bucket\"} 1\n"));
        assert!(lines.contains("area_redis_errors_total{kind=\"key_record\"} 0\n"));
    }
}
