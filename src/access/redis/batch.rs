//! One flush of usage to Redis (usage.rs): a batch of key-day rows with the
//! server's id and a sequence number, so that Redis applies each batch
//! once; what a spool holds until Redis has it (spools.rs).

use serde::{Deserialize, Serialize};

use crate::access::usage_counts::Counts;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Row {
    pub key_id: String,
    /// `YYYY-MM-DDTHH`, a UTC hour; `YYYY-MM-DD`, a UTC day, in a spool
    /// written by a build that counted per day (named `day` there).
    #[serde(alias = "day")]
    pub period: String,
    pub counts: Counts,
    pub last_used: i64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Batch {
    pub server: String,
    pub seq: u64,
    pub rows: Vec<Row>,
}
