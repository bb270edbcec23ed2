//! One key's requests in one hour (or, for counts kept before hours, one
//! day), by how they were answered: what the counter keeps in memory
//! (usage/mod.rs), the usage file holds (usage/report.rs reads it) and Redis
//! adds up (redis/usage/).

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// One key's requests in one hour, by how they were answered. An operator
/// bills `ok` and perhaps `client_errors`, and never `server_errors`, which
/// are the operator's own failures.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Counts {
    /// 2xx and 3xx.
    pub ok: u64,
    /// 4xx but 429: the client asked for what is not there or not allowed.
    /// Counts kept before server errors were told apart are all here.
    pub client_errors: u64,
    /// 429.
    pub rate_limited: u64,
    /// 5xx.
    pub server_errors: u64,
}

impl Counts {
    /// One request answered with `status`.
    pub fn count(&mut self, status: u16) {
        match status {
            429 => self.rate_limited += 1,
            200..=399 => self.ok += 1,
            500.. => self.server_errors += 1,
            _ => self.client_errors += 1,
        }
    }

    pub fn add(&mut self, other: Counts) {
        self.ok += other.ok;
        self.client_errors += other.client_errors;
        self.rate_limited += other.rate_limited;
        self.server_errors += other.server_errors;
    }

    pub fn total(&self) -> u64 {
        self.ok + self.client_errors + self.rate_limited + self.server_errors
    }

    /// Every answer that was neither a success nor a 429.
    pub fn errors(&self) -> u64 {
        self.client_errors + self.server_errors
    }

    /// In the order of `NAMES`.
    pub fn values(&self) -> [u64; 4] {
        [
            self.ok,
            self.client_errors,
            self.rate_limited,
            self.server_errors,
        ]
    }

    /// From values in the order of `NAMES`; three values are counts kept
    /// before server errors were told apart, their errors client errors.
    pub fn from_values(values: &[u64]) -> Option<Counts> {
        match *values {
            [ok, client_errors, rate_limited] => Some(Counts {
                ok,
                client_errors,
                rate_limited,
                server_errors: 0,
            }),
            [ok, client_errors, rate_limited, server_errors] => Some(Counts {
                ok,
                client_errors,
                rate_limited,
                server_errors,
            }),
            _ => None,
        }
    }
}

/// The counts' names, in the usage file's columns, Redis's fields and
/// every report.
pub const NAMES: [&str; 4] = ["ok", "client_errors", "rate_limited", "server_errors"];

/// A spool or batch holds counts as a list of numbers in `NAMES` order.
impl Serialize for Counts {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.values().serialize(s)
    }
}

/// Three numbers (a spool written before server errors were told apart)
/// or four.
impl<'de> Deserialize<'de> for Counts {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Counts, D::Error> {
        let values = Vec::<u64>::deserialize(d)?;
        Counts::from_values(&values)
            .ok_or_else(|| serde::de::Error::custom("counts are three or four numbers"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_status_counts_where_an_invoice_needs_it() {
        let mut c = Counts::default();
        for status in [200, 204, 304, 400, 401, 404, 429, 500, 503] {
            c.count(status);
        }
        assert_eq!(c.values(), [3, 3, 1, 2]);
        assert_eq!(c.errors(), 5);
        assert_eq!(c.total(), 9);
    }

    #[test]
    fn three_numbers_are_old_counts_whose_errors_are_the_clients() {
        let old: Counts = serde_json::from_str("[5,2,1]").unwrap();
        assert_eq!(old.values(), [5, 2, 1, 0]);
        let new: Counts = serde_json::from_str("[5,2,1,3]").unwrap();
        assert_eq!(serde_json::to_string(&new).unwrap(), "[5,2,1,3]");
        assert!(serde_json::from_str::<Counts>("[1,2]").is_err());
    }
}
