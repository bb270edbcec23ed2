//! One key's requests on one day, by how they were answered: what the
//! counter keeps in memory (usage.rs), the usage file holds
//! (usage_report.rs reads it) and Redis adds up (redis/usage.rs).

/// One key's requests on one day, by how they were answered.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Counts {
    /// 2xx and 304.
    pub ok: u64,
    /// Every other 4xx and 5xx.
    pub errors: u64,
    /// 429.
    pub rate_limited: u64,
}

impl Counts {
    /// One request answered with `status`.
    pub fn count(&mut self, status: u16) {
        match status {
            429 => self.rate_limited += 1,
            200..=299 | 304 => self.ok += 1,
            _ => self.errors += 1,
        }
    }

    pub fn add(&mut self, other: Counts) {
        self.ok += other.ok;
        self.errors += other.errors;
        self.rate_limited += other.rate_limited;
    }

    pub fn total(&self) -> u64 {
        self.ok + self.errors + self.rate_limited
    }
}
