//! One flush of usage to Redis (usage/mod.rs): a batch of key-day rows with the
//! server's id and a sequence number, so that Redis applies each batch
//! once; what a spool holds until Redis has it (spools.rs).

use serde::{Deserialize, Serialize};

use crate::access::usage::counts::Counts;

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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_spool_written_when_usage_was_counted_per_day_still_reads() {
        let old = r#"{"key_id":"key_a","day":"2026-11-26","counts":[5,2,1],"last_used":9}"#;
        let row: Row = serde_json::from_str(old).unwrap();
        assert_eq!(row.period, "2026-11-26");
        assert_eq!(
            row.counts.values(),
            [5, 2, 1, 0],
            "its errors are client errors"
        );
        let new = serde_json::to_string(&Row {
            period: "2026-11-26T09".into(),
            ..row
        })
        .unwrap();
        assert_eq!(
            new,
            r#"{"key_id":"key_a","period":"2026-11-26T09","counts":[5,2,1,0],"last_used":9}"#
        );
    }
}
