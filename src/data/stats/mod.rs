//! Statistics of groups of areas and each area's standing among them, both
//! computed when a dataset is written (`write`, with `summary`'s exact
//! arithmetic) and only read while it is served: the statistics by query
//! (api/stats.rs), the standings from the small table `standings` keeps.

pub mod standings;
pub mod summary;
pub mod write;
