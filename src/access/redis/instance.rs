//! Which server this is among those keeping files in one folder (beside
//! where the keys file would be), the names of its files there, and how
//! they are written.
//!
//! Each server writes only its own spool (usage Redis did not take by
//! shutdown) and snapshot (the keys last loaded), named by its identity:
//! `AREA_INSTANCE`, which the replicas' unit sets to its instance name, or
//! else the listening address. Two running servers cannot listen on one
//! address, so their names never clash; port 0 names no address of its
//! own, so the process id is added. Files from before identities (no
//! `@…`) belong to the family too, so that an upgrade loses nothing.
//!
//! A file is written under a name no other writer uses, then renamed into
//! place, so a reader sees a whole file, old or new, never a mix.

use std::ffi::OsString;
use std::fs::OpenOptions;
use std::io::Write;
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};

use crate::access::AccessError;
use crate::access::key_file::PRIVATE_MODE;
use crate::file_error::cannot;

/// Names this server among those sharing the folder.
pub const INSTANCE_VARIABLE: &str = "AREA_INSTANCE";
/// Longer identities are refused: a file name has room for 255 bytes.
pub const MAX_INSTANCE_CHARS: usize = 64;
/// Between a file's family name and the server it belongs to.
const OF: char = '@';
const SPOOL: &str = ".usage-spool";
const SNAPSHOT: &str = ".redis-snapshot";
/// Between the name of the server holding a spool and its own part.
const TAKEN: &str = ".taken-";

/// This server's identity: `named` (the variable) when set, else `addr`.
/// Characters other than letters, digits, `_` and `-` become `_`, so that
/// the name is a file name, and a `.` later in it marks a file of its own
/// (a lock, a temporary, one moved aside).
pub fn identity(named: Option<&str>, addr: &str, pid: u32) -> Result<String, AccessError> {
    let named = named.map(str::trim).filter(|n| !n.is_empty());
    let name = match named {
        Some(n) => sanitise(n),
        None if addr.rsplit_once(':').is_some_and(|(_, port)| port == "0") => {
            format!("{}-{pid}", sanitise(addr))
        }
        None => sanitise(addr),
    };
    if name.chars().count() > MAX_INSTANCE_CHARS {
        return Err(AccessError::InstanceTooLong(name));
    }
    Ok(name)
}

fn sanitise(text: &str) -> String {
    text.chars()
        .map(|c| if is_name_char(c) { c } else { '_' })
        .collect()
}

fn is_name_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_' || c == '-'
}

/// This server's files in the folder, and its neighbours'.
#[derive(Debug, Clone)]
pub struct Place {
    dir: PathBuf,
    /// The keys file's name, which every file here starts with.
    stem: OsString,
    instance: String,
}

impl Place {
    /// Beside where the keys file `keys` would be.
    pub fn new(keys: &Path, instance: String) -> Place {
        let dir = keys.parent().filter(|d| !d.as_os_str().is_empty());
        Place {
            dir: dir.unwrap_or(Path::new(".")).to_path_buf(),
            stem: keys.file_name().unwrap_or(keys.as_os_str()).to_os_string(),
            instance,
        }
    }

    pub fn instance(&self) -> &str {
        &self.instance
    }

    /// This server's spool: `keys.db.usage-spool@INSTANCE`.
    pub fn spool(&self) -> PathBuf {
        self.own(SPOOL)
    }

    /// This server's snapshot: `keys.db.redis-snapshot@INSTANCE`.
    pub fn snapshot(&self) -> PathBuf {
        self.own(SNAPSHOT)
    }

    /// Every server's spool in the folder, sorted by name.
    pub fn spools(&self) -> Vec<PathBuf> {
        self.family(SPOOL)
    }

    /// Every server's snapshot in the folder, sorted by name.
    pub fn snapshots(&self) -> Vec<PathBuf> {
        self.family(SNAPSHOT)
    }

    /// A name for a spool this server takes from another: its own, so that
    /// its lock covers it, and one of the family, so that the next start
    /// finds it should this server stop before sending it.
    pub fn taken(&self) -> Result<PathBuf, AccessError> {
        let random = crate::access::keys::random_hex(8)?;
        Ok(with_suffix(&self.spool(), &format!("{TAKEN}{random}")))
    }

    /// The spool whose lock covers `spool`: the one of the server named in
    /// it (itself, or its owner's for one taken).
    pub fn owner(spool: &Path) -> PathBuf {
        let name = spool.file_name().map(|n| n.to_string_lossy().into_owned());
        match name.as_deref().and_then(|n| n.split_once(TAKEN)) {
            Some((owner, _)) => spool.with_file_name(owner),
            None => spool.to_path_buf(),
        }
    }

    fn own(&self, kind: &str) -> PathBuf {
        let mut name = self.stem.clone();
        name.push(format!("{kind}{OF}{}", self.instance));
        self.dir.join(name)
    }

    fn family(&self, kind: &str) -> Vec<PathBuf> {
        let mut prefix = self.stem.clone();
        prefix.push(kind);
        let prefix = prefix.to_string_lossy().into_owned();
        let Ok(entries) = std::fs::read_dir(&self.dir) else {
            return Vec::new();
        };
        let mut found: Vec<PathBuf> = entries
            .filter_map(Result::ok)
            .filter(|e| {
                let name = e.file_name();
                let rest = name.to_str().and_then(|n| n.strip_prefix(prefix.as_str()));
                rest.is_some_and(|r| r.is_empty() || r.strip_prefix(OF).is_some_and(is_owned))
            })
            .map(|e| self.dir.join(e.file_name()))
            .collect();
        found.sort();
        found
    }
}

/// `ID`, or `ID.taken-HEX` for a file taken from another server.
fn is_owned(rest: &str) -> bool {
    let (id, taken) = rest.split_once(TAKEN).unwrap_or((rest, "a"));
    let name = |t: &str| !t.is_empty() && t.chars().all(is_name_char);
    name(id) && name(taken)
}

/// `path` with `suffix` added to its name.
pub fn with_suffix(path: &Path, suffix: &str) -> PathBuf {
    let mut name = path.as_os_str().to_os_string();
    name.push(suffix);
    PathBuf::from(name)
}

/// Writes `bytes` to `path` (mode 0600): to a new file of a name only this
/// call uses, synced, then renamed over `path`.
pub fn write_private(path: &Path, bytes: &[u8]) -> Result<(), AccessError> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(cannot("create", dir))?;
    }
    let random = crate::access::keys::random_hex(8)?;
    let temp = with_suffix(path, &format!(".tmp-{}-{random}", std::process::id()));
    let written = OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(PRIVATE_MODE)
        .open(&temp)
        .and_then(|mut f| f.write_all(bytes).and_then(|()| f.sync_all()))
        .and_then(|()| std::fs::rename(&temp, path));
    written.map_err(|e| {
        let _ = std::fs::remove_file(&temp);
        cannot("write", path)(e).into()
    })
}

#[cfg(test)]
#[path = "instance_tests.rs"]
mod tests;
