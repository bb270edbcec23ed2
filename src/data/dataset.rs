//! The database being served, and replacing it while serving.
//!
//! A `Dataset` is one opened database file: its read-only pools and what is read
//! once from it (the area index, the area count, its identity, how many
//! areas have a boundary and which have none: data/boundary/locate.rs). The `Store` holds the current one
//! behind an `Arc`: a request clones the `Arc` and keeps using that dataset to
//! the end, so a swap never disturbs requests in flight; the old pools close
//! when its last request lets go. A new file is opened and checked before it
//! replaces the old one; one that fails is logged and counted, the old data
//! keeps serving, and the store is degraded until a reload succeeds.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, RwLock, Weak};

use crate::data::boundary::locate::{Candidates, Unbounded};
use crate::data::db::{self, Pool, PoolSize};
use crate::data::error::DataError;
use crate::data::file_id::{FileId, file_id, version_of};
use crate::data::identity::{self, Identity};
use crate::data::stats::standings::Standings;
use crate::data::stored::{self, ListTotals};
use crate::domain::{Order, Sort};
use crate::error::ApiError;
use crate::search::index::AreaIndex;
use crate::search::matches::match_cache::MatchCache;
use crate::search::matches::word_store;
use crate::search::words::vocabulary::Vocabulary;
use crate::search::words::vocabulary_store;

/// The two pools a dataset opens.
#[derive(Debug, Clone, Copy)]
pub struct Pools {
    pub requests: PoolSize,
    pub exports: PoolSize,
}

pub struct Dataset {
    /// Connections for requests: one a worker.
    pub pool: Pool,
    /// Connections for exports, which stream for as long as their client reads.
    pub export_pool: Pool,
    pub area_count: i64,
    /// Positions, scores and name lengths of every area, for search.
    pub index: AreaIndex,
    /// The full-text matches of heavy words, kept as they are first read.
    pub matches: MatchCache,
    /// Names this file's contents, for validators of answers that cover the
    /// whole dataset: a replacement is a new file, so a new version.
    pub version: String,
    /// The latest updated_at of any area (empty without areas).
    pub latest_update: String,
    /// List's `total` of every selection.
    pub list_totals: ListTotals,
    /// Every word search can match, for forgiving a typo (search/words/vocabulary.rs).
    pub vocabulary: Vocabulary,
    /// What is amiss in this file but does not stop it serving (search
    /// reading its words slowly, an area with a reserved id): logged on a
    /// reload at once, and at start once the address is.
    pub warnings: Vec<String>,
    /// What the file says it was made from (identity.rs), read once here.
    pub identity: Identity,
    /// How the area at a point reads its candidate boundaries (boundary/locate.rs).
    pub candidates: Candidates,
    /// The areas without a boundary, for the area at a point (boundary/locate.rs).
    pub unbounded: Unbounded,
    /// Each scope's score counts, for an area's standing (api/rank.rs).
    pub standings: Standings,
    /// When this server opened it, in Unix seconds.
    pub loaded_at: i64,
    file: FileId,
}

/// The newest area: the first of its ordering, not a scan of every area.
const FIRST_OF_ORDERING: &str = "
    SELECT a.updated_at FROM area_order o JOIN areas a ON a.area_no = o.area_no
    WHERE o.ordering = ?1 AND o.province_slug = '' AND o.position = 0";

/// Why a dataset could not be opened, as the reload decides by it.
#[derive(Debug, thiserror::Error)]
pub enum OpenError {
    /// The file was read and judged: it is not one this server serves.
    #[error(transparent)]
    Refused(#[from] DataError),
    /// The process had no descriptor left to open it with: the file was
    /// never judged, and the next look tries it again.
    #[error("cannot open {path}: no file descriptor to spare ({source})")]
    NoDescriptors {
        path: String,
        #[source]
        source: std::io::Error,
    },
}

impl Dataset {
    /// The file held open while it is read: its own open tells a process
    /// out of descriptors from a file that cannot be served, and so does a
    /// copy of its descriptor after a failed read.
    fn open(path: &Path, pools: Pools) -> Result<Dataset, OpenError> {
        let no_descriptors = |source| OpenError::NoDescriptors {
            path: path.display().to_string(),
            source,
        };
        let pinned = match std::fs::File::open(path) {
            Ok(file) => file,
            Err(e) if out_of_descriptors(&e) => return Err(no_descriptors(e)),
            // db::check says what to run to make the file.
            Err(source) => {
                let why = db::check(path).err();
                return Err(OpenError::Refused(why.unwrap_or(DataError::Path {
                    path: path.to_path_buf(),
                    source,
                })));
            }
        };
        Dataset::read(path, pools).map_err(|why| match pinned.try_clone() {
            Err(e) if out_of_descriptors(&e) => no_descriptors(e),
            _ => OpenError::Refused(why),
        })
    }

    fn read(path: &Path, pools: Pools) -> Result<Dataset, DataError> {
        // The file's identity and its version from one look at it: were the
        // file renamed over in between, the two would name different files.
        let meta = match std::fs::metadata(path) {
            Ok(meta) => meta,
            // db::check says what to run to make the file.
            Err(source) => {
                return Err(db::check(path).err().unwrap_or(DataError::Path {
                    path: path.to_path_buf(),
                    source,
                }));
            }
        };
        let file = FileId::of(&meta);
        let version = version_of(&meta);
        let pool = db::open_pool(path, pools.requests)?;
        let export_pool = db::open_pool(path, pools.exports)?;
        let conn = pool.get()?;
        // The two longest reads, side by side on their own connections (the
        // exports' pool is idle yet): at a million areas each takes a few
        // hundred milliseconds before the first answer (bench/RESULTS-million.md).
        let (index, vocabulary) = std::thread::scope(|s| {
            let words = s.spawn(|| read_vocabulary(&export_pool));
            let index = AreaIndex::load(&conn).map_err(DataError::from);
            let words = words.join().unwrap_or(Err(DataError::WordsPanicked));
            (index, words)
        });
        let (index, vocabulary) = (index?, vocabulary?);
        let (stored, words_warning) = word_store::stored_sets(&conn, &index, path);
        let warnings = words_warning
            .into_iter()
            .chain(reserved_ids_warning(&conn, path)?)
            .collect();
        // Counted from the index, which holds every area: a count(*) would
        // scan another index (192 ms from a cold disk cache at 100,000 areas).
        let area_count = index.area_count() as i64;
        let newest_first = stored::ordering(Sort::UpdatedAt, Order::Desc).code;
        let latest_update = conn
            .query_row(FIRST_OF_ORDERING, [newest_first], |r| r.get(0))
            .unwrap_or_default();
        let list_totals = ListTotals::read(&conn)?;
        let identity = identity::read(&conn);
        let unbounded = Unbounded::read(&conn, &index)?;
        let candidates = Candidates::read(&conn)?;
        let standings = Standings::read_file(path)?;
        // Debug: at info it would come before the first line, the address's.
        log::debug!(
            "{}: {} words to search, {} KiB in memory (search/words/vocabulary.rs)",
            path.display(),
            vocabulary.len(),
            vocabulary.heap_bytes() / 1024
        );
        log::debug!(
            "{}: score counts, {} KiB in memory (data/stats/standings.rs)",
            path.display(),
            standings.heap_bytes() / 1024
        );
        drop(conn);
        Ok(Dataset {
            pool,
            export_pool,
            area_count,
            index,
            matches: MatchCache::for_areas(area_count as usize).with_stored_sets(stored),
            version,
            latest_update,
            list_totals,
            vocabulary,
            warnings,
            identity,
            candidates,
            unbounded,
            standings,
            loaded_at: crate::dates::now_unix(),
            file,
        })
    }
}

/// Areas whose id is a route's segment (`domain::RESERVED_AREA_IDS`), which
/// a file written before the route was may hold: Get Area cannot reach them.
fn reserved_ids_warning(
    conn: &rusqlite::Connection,
    path: &Path,
) -> Result<Option<String>, DataError> {
    let mut stmt = conn.prepare("SELECT id FROM areas WHERE id = ?1")?;
    let mut held = Vec::new();
    for id in crate::domain::RESERVED_AREA_IDS {
        if stmt.exists([id])? {
            held.push(id);
        }
    }
    Ok((!held.is_empty()).then(|| {
        format!(
            "{} holds areas with the ids {}, which name routes under /v1/areas: Get Area \
             cannot reach them; give them other ids and import the file again",
            path.display(),
            held.join(", ")
        )
    }))
}

/// The vocabulary, read on a connection of its own.
fn read_vocabulary(pool: &Pool) -> Result<Vocabulary, DataError> {
    let conn = pool.get()?;
    Ok(vocabulary_store::open(&conn)?)
}

pub struct Store {
    path: PathBuf,
    pools: Pools,
    /// None while the file is missing: requests answer 503 until it is back.
    current: RwLock<Option<Arc<Dataset>>>,
    /// The file that last failed to open, so that it is not retried every poll.
    refused: RwLock<Option<FileId>>,
    /// Datasets swapped out, until their last request lets go (see `poll`).
    replaced: Mutex<Vec<Weak<Dataset>>>,
    /// Why the last reload was refused, until one succeeds: /healthz says
    /// "degraded" meanwhile.
    degraded: RwLock<Option<String>>,
    /// Reloads refused since the server started.
    reload_failures: AtomicU64,
}

impl Store {
    pub fn open(path: &Path, pools: Pools) -> Result<Store, OpenError> {
        let dataset = Dataset::open(path, pools)?;
        Ok(Store {
            path: path.to_path_buf(),
            pools,
            current: RwLock::new(Some(Arc::new(dataset))),
            refused: RwLock::new(None),
            replaced: Mutex::new(Vec::new()),
            degraded: RwLock::new(None),
            reload_failures: AtomicU64::new(0),
        })
    }

    /// Why the last reload was refused, while the previous data serves on.
    pub fn degraded(&self) -> Option<String> {
        self.degraded
            .read()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
    }

    /// How many reloads were refused since the server started.
    pub fn reload_failures(&self) -> u64 {
        self.reload_failures.load(Ordering::Relaxed)
    }

    /// The dataset to answer a request with, or 503 while there is none.
    pub fn current(&self) -> Result<Arc<Dataset>, ApiError> {
        self.current
            .read()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
            .ok_or(ApiError::ServiceUnavailable)
    }

    /// Opens the file again and swaps it in; on failure the old data stays.
    pub fn reload(&self) -> bool {
        match Dataset::open(&self.path, self.pools) {
            Ok(dataset) => {
                log::info!(
                    "reloaded {}: {} areas, {}",
                    self.path.display(),
                    dataset.area_count,
                    dataset.identity.describe()
                );
                for warning in &dataset.warnings {
                    log::warn!("{warning}");
                }
                self.swap(Some(Arc::new(dataset)));
                *self.refused.write().unwrap_or_else(|p| p.into_inner()) = None;
                *self.degraded.write().unwrap_or_else(|p| p.into_inner()) = None;
                true
            }
            Err(why) => {
                log::error!("reload refused, still serving the previous data: {why}");
                let judged = matches!(why, OpenError::Refused(_));
                self.reload_failures.fetch_add(1, Ordering::Relaxed);
                // Without the file's path or the error: /healthz is public.
                let at = crate::dates::format_timestamp(crate::dates::now_unix());
                *self.degraded.write().unwrap_or_else(|p| p.into_inner()) = Some(format!(
                    "the last reload was refused at {at}; the previous data serves on \
                     (the server's log says why)"
                ));
                // Out of descriptors, the file was never judged: the next
                // poll tries it again.
                if judged {
                    *self.refused.write().unwrap_or_else(|p| p.into_inner()) = file_id(&self.path);
                }
                false
            }
        }
    }

    /// Serves `next` from now on; the dataset it replaces is freed when its
    /// last request in flight lets go.
    fn swap(&self, next: Option<Arc<Dataset>>) {
        let old = std::mem::replace(
            &mut *self.current.write().unwrap_or_else(|p| p.into_inner()),
            next,
        );
        if let Some(old) = old {
            let mut replaced = self.replaced.lock().unwrap_or_else(|p| p.into_inner());
            replaced.push(Arc::downgrade(&old));
        }
    }

    /// Hands the memory of replaced datasets, once freed, back to the system.
    /// The allocator keeps freed pages for a while in the arenas of the
    /// threads that used them (the old pool's page caches were filled by
    /// every worker); without the purge RSS sat higher after each reload
    /// (bench/PROFILE.md, "The allocator, without a second exec").
    fn give_back_replaced(&self) {
        let mut replaced = self.replaced.lock().unwrap_or_else(|p| p.into_inner());
        let before = replaced.len();
        replaced.retain(|old| old.strong_count() > 0);
        if replaced.len() < before {
            give_back_free_memory();
        }
    }

    /// Called every second or so: reloads when the path names a new file,
    /// stops serving when the file is gone or was changed in place (the
    /// connections read it as immutable; see db.rs `open_pool`) until it is
    /// replaced or reloads valid, and returns the memory of replaced datasets
    /// to the system once they are freed.
    pub fn poll(&self) {
        self.give_back_replaced();
        let on_disk = file_id(&self.path);
        let serving = self
            .current
            .read()
            .unwrap_or_else(|p| p.into_inner())
            .as_ref()
            .map(|d| d.file);
        match on_disk {
            None if serving.is_some() => {
                log::error!(
                    "{} is gone; answering 503 until it is back",
                    self.path.display()
                );
                self.swap(None);
            }
            Some(id)
                if serving != Some(id)
                    && *self.refused.read().unwrap_or_else(|p| p.into_inner()) != Some(id) =>
            {
                if serving.is_some_and(|s| s.same_file(&id)) {
                    log::error!(
                        "{} was changed in place; answering 503 until it is replaced \
                         (by a rename) or reloads valid",
                        self.path.display()
                    );
                    self.swap(None);
                }
                self.reload();
            }
            // The file served was put back after a refused one: the path
            // names good data again, and nothing needs reloading.
            Some(id) if serving == Some(id) && self.degraded().is_some() => {
                log::info!(
                    "{} is the served dataset again; no longer degraded",
                    self.path.display()
                );
                *self.refused.write().unwrap_or_else(|p| p.into_inner()) = None;
                *self.degraded.write().unwrap_or_else(|p| p.into_inner()) = None;
            }
            _ => {}
        }
    }
}

/// Whether an open failed for want of descriptors, the process's or the
/// system's (it then says nothing about the database).
fn out_of_descriptors(e: &std::io::Error) -> bool {
    matches!(e.raw_os_error(), Some(libc::EMFILE | libc::ENFILE))
}

/// Returns the free pages of every jemalloc arena to the system (the
/// process's allocator: src/main.rs). Called once a reload's old dataset is
/// freed, rather than waiting for jemalloc's own decay.
fn give_back_free_memory() {
    // SAFETY: a mallctl that reads and writes nothing; 4096 is
    // MALLCTL_ARENAS_ALL, every arena.
    unsafe {
        tikv_jemalloc_sys::mallctl(
            c"arena.4096.purge".as_ptr(),
            std::ptr::null_mut(),
            std::ptr::null_mut(),
            std::ptr::null_mut(),
            0,
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_want_of_descriptors_leaves_a_file_unjudged() {
        for errno in [libc::EMFILE, libc::ENFILE] {
            assert!(out_of_descriptors(&std::io::Error::from_raw_os_error(
                errno
            )));
        }
        for errno in [libc::ENOENT, libc::EACCES, libc::EISDIR] {
            assert!(!out_of_descriptors(&std::io::Error::from_raw_os_error(
                errno
            )));
        }
    }

    #[test]
    fn a_missing_file_is_refused_with_what_makes_one() {
        let path = std::env::temp_dir().join(format!("no-dataset-{}.db", std::process::id()));
        let pools = Pools {
            requests: PoolSize::for_requests(1),
            exports: PoolSize::for_exports(1),
        };
        match Dataset::open(&path, pools) {
            Err(OpenError::Refused(DataError::Missing(missing))) => assert_eq!(missing, path),
            other => panic!("{:?}", other.err()),
        }
    }
}
