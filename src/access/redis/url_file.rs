//! The Redis URL read from a file named by `AREA_REDIS_FILE`, so that a
//! password is never on a command line (which `ps` shows every user, and
//! sudo logs) nor in a unit: `serve` and every other command read it.
//!
//! The file holds the URL on a line of its own, or as `AREA_REDIS=URL`, so
//! one file may also be a unit's EnvironmentFile; blank lines and `#`
//! comments are skipped. A file every user of the host may read is refused:
//! it must be the owner's alone or its group's (0600 or 0640). Both
//! variables that name Redis are defined here; url.rs chooses between them.

use std::os::unix::fs::PermissionsExt;
use std::path::Path;

/// The environment variable that names Redis; with the file named by
/// `AREA_REDIS_FILE`, the only places a password may come from.
pub const REDIS_VARIABLE: &str = "AREA_REDIS";
/// The variable naming the file.
pub const REDIS_FILE_VARIABLE: &str = "AREA_REDIS_FILE";
/// The mode bit that lets users other than the owner and its group read.
const READABLE_BY_OTHERS: u32 = 0o004;
/// Longer than any URL: a file past this is not one.
const MAX_FILE_BYTES: u64 = 4096;

/// The URL's text in the file at `path`; refusals name the file and say
/// why, never what it holds.
pub fn read(path: &Path) -> Result<String, String> {
    let shown = path.display();
    let meta = std::fs::metadata(path).map_err(|e| format!("cannot read {shown}: {e}"))?;
    let mode = meta.permissions().mode() & 0o777;
    if mode & READABLE_BY_OTHERS != 0 {
        return Err(format!(
            "{shown} (mode {mode:04o}) may be read by every user of the host, and it holds the \
             Redis password: make it the owner's and its group's alone (chmod 0640 {shown})"
        ));
    }
    if meta.len() > MAX_FILE_BYTES {
        return Err(format!(
            "{shown} is {} bytes: it should hold one Redis URL",
            meta.len()
        ));
    }
    let text = std::fs::read_to_string(path).map_err(|e| format!("cannot read {shown}: {e}"))?;
    let prefix = format!("{REDIS_VARIABLE}=");
    let mut lines = text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(|l| l.strip_prefix(&prefix).unwrap_or(l));
    match (lines.next(), lines.next()) {
        (Some(url), None) => Ok(url.to_string()),
        (None, _) => Err(format!("{shown} holds no Redis URL")),
        (Some(_), Some(_)) => Err(format!(
            "{shown} holds more than one line: it should hold one Redis URL"
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(name: &str, text: &str, mode: u32) -> std::path::PathBuf {
        let dir = std::env::temp_dir().join(format!("url-file-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join(name);
        std::fs::write(&path, text).unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(mode)).unwrap();
        path
    }

    #[test]
    fn a_file_others_may_read_is_refused_saying_why_and_never_what_it_holds() {
        let open = file("open", "redis://:s3cret@h:1\n", 0o644);
        let why = read(&open).unwrap_err();
        assert!(why.contains("0644") && why.contains("every user"), "{why}");
        assert!(!why.contains("s3cret"), "{why}");
        for mode in [0o600, 0o640, 0o660] {
            let kept = file("kept", "redis://:s3cret@h:1\n", mode);
            assert_eq!(read(&kept).unwrap(), "redis://:s3cret@h:1", "{mode:o}");
        }
    }

    #[test]
    fn the_url_alone_or_as_an_environment_file_line() {
        let env = file(
            "env",
            "# the servers' Redis\n\nAREA_REDIS=redis://h:2/1\n",
            0o600,
        );
        assert_eq!(read(&env).unwrap(), "redis://h:2/1");
        let empty = file("empty", "# nothing\n", 0o600);
        assert!(read(&empty).unwrap_err().contains("no Redis URL"));
        let two = file("two", "redis://:s3cret@a:1\nredis://b:1\n", 0o600);
        let why = read(&two).unwrap_err();
        assert!(
            why.contains("more than one") && !why.contains("s3cret"),
            "{why}"
        );
    }
}
