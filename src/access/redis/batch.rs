//! One flush of usage to Redis (usage.rs): a batch of key-day rows with the
//! server's id and a sequence number, so that Redis applies each batch
//! once; what a spool holds until Redis has it (spools.rs).

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Row {
    pub key_id: String,
    /// YYYY-MM-DD.
    pub day: String,
    pub counts: (u64, u64, u64),
    pub last_used: i64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Batch {
    pub server: String,
    pub seq: u64,
    pub rows: Vec<Row>,
}
