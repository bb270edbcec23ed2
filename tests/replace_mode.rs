//! `import` and `init --force` give the new dataset the mode, owner and
//! group of the one they replace, from the start of its build; a user who
//! may not give it that owner is refused before the rename; rollback puts
//! a file back with its own (docs/import.md, "Rollback").

// The import helpers this file does not use.
#[allow(dead_code)]
use crate::common::import_files as support;

use std::fs::{self, File};
use std::io::{BufRead, BufReader};
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use crate::common::bin::{BIN, command, run, text};
use crate::common::scratch_dir;
use support::one_area;

/// The user and group `nobody` and `nogroup` on Debian.
const NOBODY: u32 = 65534;

fn path(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// A dataset of one area, made by `import`, in a folder of its own.
fn dataset(name: &str) -> PathBuf {
    let dir = scratch_dir(name);
    let db = dir.join("areas.db");
    let out = import(&db, "first");
    assert!(out.status.success(), "{}", text(&out.stderr));
    db
}

fn import(db: &Path, id: &str) -> Output {
    let file = one_area(db.parent().unwrap(), id);
    run(
        &["import", "--db", path(db), path(&file)],
        &[],
        Path::new("/"),
    )
}

fn init_force(db: &Path) -> Output {
    run(&["init", "--force", "--db", path(db)], &[], Path::new("/"))
}

/// The permission bits, in octal as `ls` and `chmod` show them.
fn mode(p: &Path) -> String {
    format!("{:o}", fs::metadata(p).unwrap().mode() & 0o777)
}

fn owner(p: &Path) -> (u32, u32) {
    let m = fs::metadata(p).unwrap();
    (m.uid(), m.gid())
}

fn previous(db: &Path) -> PathBuf {
    db.with_file_name("areas.db.previous")
}

/// The files beside `db` that a replacement builds: `areas.db.new-PID`.
fn staged(db: &Path) -> Vec<PathBuf> {
    fs::read_dir(db.parent().unwrap())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            let name = p.file_name().unwrap().to_string_lossy();
            name.starts_with("areas.db.new-") && !name.ends_with("-journal")
        })
        .collect()
}

/// Runs `args` while this test holds the write lock beside `db`, so that the
/// command builds its new file and then waits before the rename; returns the
/// staged file's mode seen then, and the command's output once let go.
fn staged_mode_before_the_rename(db: &Path, args: &[&str]) -> (String, Output) {
    let lock = File::create(db.with_file_name("areas.db.lock")).unwrap();
    lock.lock().unwrap();
    let mut child = command(args, &[], Path::new("/"))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let stderr = child.stderr.take().unwrap();
    let (tx, rx) = mpsc::channel();
    let reader = std::thread::spawn(move || {
        let mut lines = Vec::new();
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            if line.contains("waiting for another command") {
                let _ = tx.send(());
            }
            lines.push(line);
        }
        lines.join("\n")
    });
    rx.recv_timeout(Duration::from_secs(60))
        .expect("the command waits for the write lock once its file is built");
    let files = staged(db);
    assert_eq!(files.len(), 1, "one file built: {files:?}");
    let seen = mode(&files[0]);
    drop(lock);
    let status = child.wait().unwrap();
    let stderr = reader.join().unwrap();
    let mut stdout = Vec::new();
    std::io::Read::read_to_end(&mut child.stdout.take().unwrap(), &mut stdout).unwrap();
    (
        seen,
        Output {
            status,
            stdout,
            stderr: stderr.into_bytes(),
        },
    )
}

#[test]
fn a_0600_dataset_stays_0600_through_import_and_init_force_and_is_never_more_open() {
    let db = dataset("mode-0600");
    fs::set_permissions(&db, fs::Permissions::from_mode(0o600)).unwrap();
    let second = one_area(db.parent().unwrap(), "second");
    let import_args = ["import", "--db", path(&db), path(&second)];
    let init_args = ["init", "--force", "--db", path(&db)];
    for args in [&import_args[..], &init_args[..]] {
        let before = fs::metadata(&db).unwrap().ino();
        let (built, out) = staged_mode_before_the_rename(&db, args);
        assert!(out.status.success(), "{args:?}: {}", text(&out.stderr));
        assert_eq!(built, "600", "{args:?}: the new file while it waited");
        assert_ne!(
            fs::metadata(&db).unwrap().ino(),
            before,
            "{args:?} replaced it"
        );
        assert_eq!(mode(&db), "600", "{args:?}: the new dataset");
        assert_eq!(mode(&previous(&db)), "600", "{args:?}: the one replaced");
        assert!(staged(&db).is_empty(), "nothing left beside it");
    }
}

#[test]
fn a_group_readable_dataset_stays_so() {
    let db = dataset("mode-0640");
    fs::set_permissions(&db, fs::Permissions::from_mode(0o640)).unwrap();
    let out = import(&db, "second");
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(mode(&db), "640");
}

fn is_root() -> bool {
    let out = Command::new("id").arg("-u").output().unwrap();
    text(&out.stdout).trim() == "0"
}

/// Run as root, the commands give the new file the owner and group of the
/// old, whoever they are; rollback swaps files with their own.
#[test]
fn import_and_init_force_keep_the_owner_and_group_and_rollback_puts_them_back() {
    if !is_root() {
        eprintln!("skipped: only root can make a dataset of another owner to replace");
        return;
    }
    let db = dataset("owner");
    std::os::unix::fs::chown(&db, Some(NOBODY), Some(NOBODY)).unwrap();
    fs::set_permissions(&db, fs::Permissions::from_mode(0o640)).unwrap();
    for out in [import(&db, "second"), init_force(&db)] {
        assert!(out.status.success(), "{}", text(&out.stderr));
        assert_eq!(owner(&db), (NOBODY, NOBODY));
        assert_eq!(mode(&db), "640");
    }
    // The dataset now in place given another owner and mode, by hand.
    std::os::unix::fs::chown(&db, Some(0), Some(0)).unwrap();
    fs::set_permissions(&db, fs::Permissions::from_mode(0o600)).unwrap();
    let out = run(&["rollback", "--db", path(&db)], &[], Path::new("/"));
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(
        (owner(&db), mode(&db)),
        ((NOBODY, NOBODY), "640".to_string())
    );
    // The replaced one is kept last, behind the two older ones.
    let replaced = db.with_file_name("areas.db.previous.2");
    assert_eq!(
        (owner(&replaced), mode(&replaced)),
        ((0, 0), "600".to_string())
    );
}

/// A user other than the dataset's owner cannot give the new file that
/// owner: the import exits 1 saying why, before the rename.
#[test]
fn a_user_who_may_not_keep_the_owner_is_refused_before_the_rename() {
    if !is_root() {
        eprintln!("skipped: only root can run the command as another user");
        return;
    }
    // In a folder of the system's temporary directory, which the other user
    // can reach wherever the checkout is (a folder of mode 0700 above it
    // would refuse that user before the command could say anything).
    // Anyone may make files in it, so only the owner is in the way.
    let dir = &std::env::temp_dir().join(format!("area-owner-refused-{}", std::process::id()));
    let _ = fs::remove_dir_all(dir);
    fs::create_dir(dir).unwrap();
    fs::set_permissions(dir, fs::Permissions::from_mode(0o777)).unwrap();
    let db = dir.join("areas.db");
    fs::copy(dataset("owner-refused"), &db).unwrap();
    let bin = dir.join("area-scoring");
    fs::copy(BIN, &bin).unwrap();
    let before = (fs::metadata(&db).unwrap().ino(), fs::read(&db).unwrap());
    let file = one_area(dir, "second");
    let out = Command::new("setpriv")
        .args([
            "--reuid",
            &NOBODY.to_string(),
            "--regid",
            &NOBODY.to_string(),
        ])
        .args([
            "--clear-groups",
            "--",
            path(&bin),
            "import",
            "--db",
            path(&db),
            path(&file),
        ])
        .env_remove("AREA_DB")
        .env_remove("AREA_KEYS")
        .current_dir("/")
        .output()
        .expect("run setpriv");
    let said = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{said}");
    assert!(
        said.contains("owner and group") && said.contains("user 0, group 0"),
        "says why: {said}"
    );
    assert!(said.contains("is unchanged"), "{said}");
    let after = (fs::metadata(&db).unwrap().ino(), fs::read(&db).unwrap());
    assert!(after == before, "the dataset is untouched");
    assert!(!previous(&db).exists(), "nothing was replaced");
    assert!(staged(&db).is_empty(), "the new file is removed");
    fs::remove_dir_all(dir).unwrap();
}
