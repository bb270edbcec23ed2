//! Key changes while the database file is replaced, against the real binary:
//! a key created or revoked while `import` or `init --force` replaces the file
//! is never lost (README "Keys"; src/data/file_swap.rs holds the locks). The
//! tests hold the old file's write lock themselves, as the other side would,
//! so that the race happens every run rather than by chance. A revocation
//! seen by a running server: tests/wall_clock/key_changes.rs.

mod common;

use std::fs;
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use area_scoring::access::keys;
use area_scoring::data::file_swap::{ReplaceLock, WriteLock};
use area_scoring::domain::Plan;
use common::bin::command;
use common::db::leave_hot_journal;
use common::wait::within;
use common::{fresh_db, new_key, small_db};
use rusqlite::Connection;

/// One valid area in the import's CSV format (docs/import.md).
const ONE_AREA_CSV: &str = "\
id,name,province,municipality,lat,lng,updated_at,safety,safety_weight,safety_sources
za-test-1,Testdorp,gauteng,Test Local Municipality,-26.1,28.0,2026-11-01,6.5,1,survey
";

fn key_ids(db: &Path) -> Vec<String> {
    let conn = Connection::open(db).unwrap();
    let mut stmt = conn.prepare("SELECT id FROM api_keys ORDER BY id").unwrap();
    stmt.query_map([], |r| r.get(0))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap()
}

/// A command started with its stderr read line by line as it comes.
struct Running {
    child: Child,
    lines: mpsc::Receiver<String>,
    said: String,
}

fn start(args: &[&str]) -> Running {
    let mut child = command(args, &[], Path::new("/"))
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let stderr = BufReader::new(child.stderr.take().unwrap());
    let (tx, lines) = mpsc::channel();
    std::thread::spawn(move || {
        for line in stderr.lines().map_while(Result::ok) {
            let _ = tx.send(line);
        }
    });
    Running {
        child,
        lines,
        said: String::new(),
    }
}

impl Running {
    /// Whether the command says something containing `text` within `limit`.
    fn says(&mut self, text: &str, limit: Duration) -> bool {
        let deadline = Instant::now() + limit;
        while let Ok(line) = self
            .lines
            .recv_timeout(deadline.saturating_duration_since(Instant::now()))
        {
            self.said.push_str(&line);
            self.said.push('\n');
            if line.contains(text) {
                return true;
            }
        }
        false
    }

    /// Waits for the command to exit, which must be a success; all it said.
    fn succeeds(mut self, what: &str) -> String {
        let status = within(Duration::from_secs(60), || self.child.try_wait().unwrap())
            .unwrap_or_else(|| panic!("{what} did not finish within 60 s"));
        while let Ok(line) = self.lines.recv_timeout(Duration::from_secs(1)) {
            self.said.push_str(&line);
            self.said.push('\n');
        }
        assert!(status.success(), "{what} failed: {}", self.said);
        self.said
    }
}

#[test]
fn a_key_being_created_while_import_replaces_the_file_is_carried_over() {
    let db = fresh_db("key-during-import");
    let csv = db.with_file_name("one.csv");
    fs::write(&csv, ONE_AREA_CSV).unwrap();

    // A key being written to the old file, not yet committed, by a writer that
    // knows nothing of area-scoring's own lock (an operator's sqlite3, say).
    let writer = Connection::open(&db).unwrap();
    writer.execute_batch("BEGIN IMMEDIATE").unwrap();
    let (id, _key) = keys::create(&writer, Plan::Starter, "mid-import").unwrap();

    let mut import = start(&[
        "import",
        "--db",
        db.to_str().unwrap(),
        csv.to_str().unwrap(),
    ]);
    assert!(
        import.says("waiting for a write to", Duration::from_secs(60)),
        "import went ahead while a key was being written (that key would be lost): {}",
        import.said
    );
    writer.execute_batch("COMMIT").unwrap();
    let said = import.succeeds("import");
    assert!(said.contains("imported 1 areas"), "{said}");
    assert!(
        key_ids(&db).contains(&id),
        "the key created during the import is in the new file"
    );
}

#[test]
fn a_key_created_while_the_file_is_renamed_over_lands_in_the_new_file() {
    let db = fresh_db("key-during-rename");
    let replacement = db.with_file_name("replacement.db");
    small_db(&replacement, 5, &db);

    // Hold the locks init --force and import hold while they copy the keys
    // and rename the new file into place.
    let writers = WriteLock::take(&db).unwrap();
    let old = ReplaceLock::take(&db).unwrap().expect("an SQLite file");
    let args = [
        "keys",
        "create",
        "--db",
        db.to_str().unwrap(),
        "--plan",
        "free",
    ];
    let mut keys = start(&args);
    // Told to wait for the lock this test holds. Not asserted: a build that
    // blocked on the old file's SQLite lock instead would be as correct.
    keys.says("waiting for another command", Duration::from_secs(5));
    fs::rename(&replacement, &db).unwrap();
    drop(old);
    drop(writers);

    let said = keys.succeeds("keys create");
    let id = said
        .split_whitespace()
        .find(|w| w.starts_with("key_"))
        .unwrap_or_else(|| panic!("keys create names the key: {said}"));
    assert!(
        key_ids(&db).contains(&id.to_string()),
        "the key is in the file the path names now, not in the replaced one: {said}"
    );
}

/// A `keys` command killed mid-commit leaves a hot journal, which only a
/// read-write connection can roll back. Read-only, the file looked like no
/// area-scoring database at all, so its keys were not carried over: all lost.
#[test]
fn init_force_over_a_file_with_a_hot_journal_keeps_its_keys() {
    let db = fresh_db("hot-journal");
    let (id, _) = new_key(&db, Plan::Growth);
    leave_hot_journal(&db);

    start(&["init", "--force", "--db", db.to_str().unwrap()]).succeeds("init --force");
    assert!(
        key_ids(&db).contains(&id),
        "the key of the file with a hot journal is in the new file"
    );
}
