//! Who may call the API, and how often: API keys and their plans (`keys`),
//! and each plan's request budget (`ratelimit`).

pub mod keys;
pub mod ratelimit;
