//! Which file a dataset was opened from, told apart from a file renamed
//! over it or written in place (data/dataset.rs watches for both), and the
//! version string its validators carry.

use std::os::unix::fs::MetadataExt;
use std::path::Path;

/// Which file a path names (a rename over it gives a new inode), and its
/// size and modification time, which change when it is written in place.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FileId {
    dev: u64,
    ino: u64,
    size: u64,
    mtime: (i64, i64),
}

impl FileId {
    pub fn of(m: &std::fs::Metadata) -> FileId {
        FileId {
            dev: m.dev(),
            ino: m.ino(),
            size: m.size(),
            mtime: (m.mtime(), m.mtime_nsec()),
        }
    }

    pub fn same_file(&self, other: &FileId) -> bool {
        (self.dev, self.ino) == (other.dev, other.ino)
    }
}

pub fn file_id(path: &Path) -> Option<FileId> {
    std::fs::metadata(path).ok().map(|m| FileId::of(&m))
}

/// Device, inode, size and modification time, in hex.
pub fn version_of(m: &std::fs::Metadata) -> String {
    format!(
        "{:x}-{:x}-{:x}-{:x}.{:x}",
        m.dev(),
        m.ino(),
        m.size(),
        m.mtime(),
        m.mtime_nsec()
    )
}
