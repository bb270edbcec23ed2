//! How a pool of read-only connections is shaped: how many it keeps, how
//! many it may open, and each connection's page cache. The server has two
//! pools a dataset (data/dataset.rs): one for requests, one for exports,
//! because the two read the file in different ways.

/// A request connection's page cache, in KiB (SQLite's negative
/// cache_size): half SQLite's default. A request reads the top levels of the
/// areas' indexes again, which this holds: in alternated runs at 100,000
/// areas, Get Area and List answered as many requests a second and used as
/// much CPU a request with it as with 2 MiB, and at a million areas the
/// server stayed under 128 MiB (bench/RESULTS-million.md).
pub const REQUEST_PAGE_CACHE_KIB: i64 = 1024;

/// An export connection's: it reads the file once, in order, and needs no
/// more than the path down each B-tree. With SQLite's default 2 MiB, which
/// an export's sequential read fills whole, a million-area server went past
/// 128 MiB while four exports ran.
pub const EXPORT_PAGE_CACHE_KIB: i64 = 128;

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PoolSize {
    /// Connections kept open.
    pub kept: u32,
    /// Connections open at most when more threads ask at once.
    pub most: u32,
    pub page_cache_kib: i64,
}

impl PoolSize {
    /// A pool for `n` requests at once (one a worker).
    pub fn for_requests(n: u32) -> PoolSize {
        PoolSize {
            kept: n,
            most: n,
            page_cache_kib: REQUEST_PAGE_CACHE_KIB,
        }
    }

    /// A pool for `n` exports at once.
    pub fn for_exports(n: u32) -> PoolSize {
        PoolSize {
            page_cache_kib: EXPORT_PAGE_CACHE_KIB,
            ..PoolSize::for_requests(n)
        }
    }
}
