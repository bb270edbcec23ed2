//! Building a database file: schema, areas, derived tables, then an atomic
//! rename into place.
//!
//! Every way of filling a database (`init` from seed/, and any later loader)
//! goes through `create_database` (or `replace_database`, which lets an
//! import judge the complete file against the served one before the rename),
//! so each gets the same checks, the same
//! derived indexes and the same all-or-nothing replacement: the new file is
//! written beside the old one and renamed over it only once complete, one
//! replacement at a time (file_swap.rs), the replaced file kept as
//! `<db>.previous` (previous.rs). API keys are not in it: they live in the
//! keys file (access/key_file.rs). A build's memory is bounded whatever the
//! number of areas (`BUILD_PRAGMAS`).

use std::fs::{self, File};
use std::path::{Path, PathBuf};

use rusqlite::{Connection, Transaction};

pub use crate::data::area_writer::{AreaWriter, NewArea};
use crate::data::error::DataError;
use crate::data::file_swap::{self, WriteLock};
use crate::data::identity::{self, Source};
use crate::data::previous;
use crate::data::seed;
use crate::data::stored::ORDERINGS;
use crate::dates;
use crate::file_error::cannot;

use crate::search::words::vocabulary::OTHER_NAME_SLOTS;

pub const SCHEMA: &str = include_str!("../../schema.sql");

/// Writes a new database at `path` with the areas `fill` adds, recording
/// `source` as where they came from (identity.rs). An existing file is
/// refused unless `force`; then it is replaced only once the new one is complete.
pub fn create_database(
    path: &Path,
    force: bool,
    source: &Source,
    fill: impl FnOnce(&mut AreaWriter) -> Result<(), DataError>,
) -> Result<i64, DataError> {
    replace_database(path, force, source, fill, |_| Ok(Swap::Replace)).map(|built| built.count)
}

/// Whether a complete new file goes into place (`replace_database`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Swap {
    Replace,
    /// The new file holds what the served one holds: it is removed.
    KeepServed,
}

/// A new file built: its area count, and whether it replaced the old one.
pub struct Built {
    pub count: i64,
    pub swap: Swap,
}

/// `create_database` with a last word: `decide` sees the complete new file
/// (its connection, with the served file attached as `served` when there is
/// one) while the write lock is held, so that it judges exactly the file
/// the new one would replace. It may refuse (`Err`), or keep the served file.
pub fn replace_database<E: From<DataError>>(
    path: &Path,
    force: bool,
    source: &Source,
    fill: impl FnOnce(&mut AreaWriter) -> Result<(), E>,
    decide: impl FnOnce(&Connection) -> Result<Swap, E>,
) -> Result<Built, E> {
    if path.exists() && !force {
        return Err(DataError::Exists(path.to_path_buf()).into());
    }
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        fs::create_dir_all(dir).map_err(|e| DataError::from(cannot("create", dir)(e)))?;
    }
    previous::remove_stale_temps(path);
    let temp = temp_path(path);
    let _ = fs::remove_file(&temp);
    let result = file_swap::create_like(&temp, path)
        .map_err(E::from)
        .and_then(|()| build(&temp, source, fill))
        .and_then(|(count, conn)| {
            let swap = put_in_place(conn, &temp, path, decide)?;
            Ok(Built { count, swap })
        });
    if !matches!(
        result,
        Ok(Built {
            swap: Swap::Replace,
            ..
        })
    ) {
        let _ = fs::remove_file(&temp);
    }
    result
}

/// Renames the complete new file over `path`, durably, holding the write
/// lock (file_swap.rs) so that two replacements run one after the other.
fn put_in_place<E: From<DataError>>(
    conn: Connection,
    temp: &Path,
    path: &Path,
    decide: impl FnOnce(&Connection) -> Result<Swap, E>,
) -> Result<Swap, E> {
    let _writers = WriteLock::take(path)?;
    if path.is_file() {
        let name = path
            .to_str()
            .ok_or_else(|| DataError::NotUtf8(path.to_path_buf()))?;
        conn.execute("ATTACH ?1 AS served", [name])
            .map_err(|e| DataError::from(cannot("read", path)(e)))?;
    }
    if decide(&conn)? == Swap::KeepServed {
        return Ok(Swap::KeepServed);
    }
    drop(conn);
    // Written with synchronous = OFF: on disk before its name is, so that a
    // power cut after the rename cannot leave a torn file.
    let synced = |p: &Path| File::open(p).and_then(|f| f.sync_all());
    file_swap::finish_like(temp, path)?;
    synced(temp).map_err(|source| DataError::NotSynced {
        path: temp.to_path_buf(),
        source,
    })?;
    previous::keep_previous(path)?;
    fs::rename(temp, path).map_err(DataError::NewNotInPlace)?;
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        let _ = synced(dir);
    }
    Ok(Swap::Replace)
}

fn temp_path(path: &Path) -> PathBuf {
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    name.push(format!(".new-{}", std::process::id()));
    path.with_file_name(name)
}

/// How a new file is written. Every table is appended to in key order, so a
/// small page cache holds the pages being written; the sorts of the derived
/// tables spill to temporary files beyond it rather than growing in memory.
/// Together they keep a build of a million areas within `BUILD_MEMORY_MIB`
/// (docs/import.md, "Memory").
const BUILD_PRAGMAS: &str = "PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF;
     PRAGMA cache_size = -32768; PRAGMA temp_store = FILE;";

/// The peak resident memory a build (`init`, `init --synthetic`, `import`)
/// stays within, at any size; bench/build_memory.sh measures it.
pub const BUILD_MEMORY_MIB: u64 = 256;

/// Writes the new file at `temp` and returns its area count and its connection.
fn build<E: From<DataError>>(
    temp: &Path,
    source: &Source,
    fill: impl FnOnce(&mut AreaWriter) -> Result<(), E>,
) -> Result<(i64, Connection), E> {
    let sql = DataError::Sql;
    let mut conn =
        Connection::open(temp).map_err(|e| DataError::from(cannot("create", temp)(e)))?;
    // Under a name of its own until renamed, so a crash only loses the
    // temporary file; with the replaced file's mode and owner (file_swap.rs).
    conn.execute_batch(BUILD_PRAGMAS).map_err(sql)?;
    conn.execute_batch(SCHEMA).map_err(DataError::Schema)?;
    let tx = conn.transaction().map_err(sql)?;
    let count = {
        let mut writer = AreaWriter::new(&tx).map_err(sql)?;
        fill(&mut writer)?;
        writer.count
    };
    derive(&tx).map_err(sql)?;
    identity::write(&tx, source, count).map_err(sql)?;
    tx.commit().map_err(sql)?;
    conn.execute_batch("ANALYZE; PRAGMA journal_mode = DELETE;")
        .map_err(sql)?;
    Ok((count, conn))
}

/// The covering index the server reads whole at start (search/index/read.rs,
/// which says why it holds the province); see schema.sql for why it is made
/// here, after the areas.
const AREAS_BY_POSITION: &str =
    "CREATE INDEX areas_by_position ON areas (lat, lng, truth_score, province_slug);";

/// Fills the search ranks, the full-text index, its heavy words' matches and
/// its vocabulary, the stored Get Area bodies, the list orderings, and the
/// statistics and score counts from the areas.
fn derive(tx: &Transaction) -> rusqlite::Result<()> {
    tx.execute_batch(AREAS_BY_POSITION)?;
    tx.execute_batch(
        "INSERT INTO search_rank (rank, area_no)
           SELECT row_number() OVER (ORDER BY length(name), area_no), area_no FROM areas;
         INSERT INTO areas_fts (rowid, name, municipality, province)
           SELECT r.rank, a.name, a.municipality, a.province
           FROM search_rank r JOIN areas a ON a.area_no = r.area_no;
         -- One segment per index instead of the many a bulk insert leaves:
         -- a common word is then one doclist, not one per segment (halves
         -- full-name search at 100,000 areas; bench/PROFILE.md).
         INSERT INTO areas_fts (areas_fts) VALUES ('optimize');",
    )?;
    tx.execute(
        "INSERT INTO other_names_fts (rowid, name)
           SELECT r.rank * ?1 + o.position, o.name
           FROM area_other_names o JOIN search_rank r ON r.area_no = o.area_no",
        [OTHER_NAME_SLOTS],
    )?;
    tx.execute_batch("INSERT INTO other_names_fts (other_names_fts) VALUES ('optimize');")?;
    crate::search::matches::joined_words::write(tx)?;
    crate::search::matches::word_store::write(tx)?;
    crate::search::words::vocabulary_store::write(tx)?;
    crate::data::recent_history::write(tx)?;
    {
        // Read while area_detail grows: SQLite allows it, as the read is of
        // another table, and no list of every area is held.
        let mut nos = tx.prepare("SELECT area_no FROM areas ORDER BY area_no")?;
        let mut store = tx.prepare("INSERT INTO area_detail (area_no, body) VALUES (?1, ?2)")?;
        let mut rows = nos.query([])?;
        while let Some(row) = rows.next()? {
            let no: i64 = row.get(0)?;
            let body = crate::data::stored::detail_json(tx, no)?;
            store.execute(rusqlite::params![no, body])?;
        }
    }
    crate::data::stored::write_list_forms(tx)?;
    crate::data::stats::write::write(tx)?;
    for ordering in ORDERINGS {
        // order_by comes from the fixed ORDERINGS table, never from a request.
        let order_by = ordering.order_by;
        tx.execute(
            &format!(
                "INSERT INTO area_order (ordering, province_slug, position, area_no)
                 SELECT ?1, '', row_number() OVER (ORDER BY {order_by}) - 1, area_no FROM areas"
            ),
            [ordering.code],
        )?;
        tx.execute(
            &format!(
                "INSERT INTO area_order (ordering, province_slug, position, area_no)
                 SELECT ?1, province_slug, row_number() OVER (PARTITION BY province_slug ORDER BY {order_by}) - 1, area_no
                 FROM areas"
            ),
            [ordering.code],
        )?;
    }
    Ok(())
}

/// Days of history each seeded area gets, ending on the day of init.
pub const SEED_HISTORY_DAYS: usize = 400;

/// A database of `places`, each with synthetic scores and one day of
/// history, for the unit tests that search a set of places of their own.
#[cfg(test)]
pub fn of_places(path: &Path, places: &[seed::Place]) {
    let source = Source::unhashed("test");
    create_database(path, true, &source, |w| {
        places
            .iter()
            .try_for_each(|p| w.add_with_synthetic_scores(p, 1, 20_000))
    })
    .expect("a database of the test's places");
}

/// `area-scoring init`: the seed places with synthetic scores, their history
/// ending today, and their generated boundaries (seed/boundaries.csv), its
/// source the seed (`Source::seed`).
pub fn init(path: &Path, force: bool) -> Result<i64, DataError> {
    init_as_of(path, force, dates::today())
}

/// `init` as if run on `day` (days since 1970-01-01): the synthetic scores
/// depend on the calendar, so a test that compares answers with the docs'
/// examples (tests/readme_examples.rs) builds the seed as of the day they show.
pub fn init_as_of(path: &Path, force: bool, day: i64) -> Result<i64, DataError> {
    let mut places = seed::seed_places()?;
    places.sort_by(|a, b| a.id.cmp(&b.id));
    let boundaries = seed::seed_boundaries()?;
    create_database(path, force, &Source::seed(), |writer| {
        for p in &places {
            writer.add_place(p, SEED_HISTORY_DAYS, day, boundaries.get(&p.id))?;
        }
        Ok(())
    })
}
