//! The Redis URL from the file `AREA_REDIS_FILE` names, against the built
//! binary: a file every user may read (0644) is refused, saying why and
//! never what it holds; one of its owner and group (0640) is taken, by
//! `serve` and the other commands alike. And the docs never teach putting the
//! password on a command line: no `env $(cat …)`, no URL with a password
//! written before a command on one line, in README.md, docs/ or deploy/.
//!
//! No Redis is needed: the URL names a port nothing listens on, and a
//! command that tries it says which Redis it tried (password hidden).

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use crate::common::bin::{run, text};
use crate::common::db::scratch_dir;

const PASSWORD: &str = "s3cret-in-the-file";

fn url_file(dir: &Path, mode: u32) -> PathBuf {
    let path = dir.join("redis.url");
    std::fs::write(&path, format!("redis://:{PASSWORD}@127.0.0.1:1/0\n")).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(mode)).unwrap();
    path
}

#[test]
fn a_url_file_every_user_may_read_is_refused_and_one_of_its_group_is_taken() {
    let dir = scratch_dir("url-file");
    let open = url_file(&dir, 0o644);
    for args in [
        &["keys", "list"][..],
        &["serve", "--db", "areas.db", "--addr", "127.0.0.1:0"],
    ] {
        let out = run(args, &[("AREA_REDIS_FILE", &open)], &dir);
        let said = text(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {said}");
        assert!(
            said.contains("AREA_REDIS_FILE")
                && said.contains(&open.display().to_string())
                && said.contains("0644")
                && said.contains("every user"),
            "{args:?}: {said}"
        );
        assert!(!said.contains(PASSWORD), "{said}");
    }
    let kept = url_file(&dir, 0o640);
    let out = run(&["keys", "list"], &[("AREA_REDIS_FILE", &kept)], &dir);
    let said = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{said}");
    assert!(
        said.contains("Redis at redis://:***@127.0.0.1:1/0"),
        "{said}"
    );
    assert!(!said.contains(PASSWORD), "{said}");
}

/// README.md and every file under docs/ and deploy/ that is text.
fn doc_files() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = vec![root.join("README.md")];
    let mut dirs = vec![root.join("docs"), root.join("deploy")];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                dirs.push(path);
            } else {
                files.push(path);
            }
        }
    }
    files
}

/// What a line teaches that puts the password on a command line (or in
/// shell history): `env $(cat FILE)`, or a URL with a password followed on
/// its line by a command. Comments and an environment file's content (a
/// line that is only the assignment) are not commands.
fn teaches_a_password_on_a_command_line(line: &str) -> Option<&'static str> {
    if line.contains("env $(cat") {
        return Some("env $(cat");
    }
    let code = line.trim_start();
    if code.starts_with('#') || code.starts_with("//") {
        return None;
    }
    let at = code.find("redis://")?;
    let url_and_rest = &code[at + "redis://".len()..];
    let end = url_and_rest
        .find(|c: char| c.is_whitespace() || c == '`')
        .unwrap_or(url_and_rest.len());
    let (authority, rest) = url_and_rest.split_at(end);
    let userinfo = authority.split_once('@')?.0;
    let (_, password) = userinfo.split_once(':')?;
    if password.is_empty() {
        return None;
    }
    let command = rest.trim_start_matches('`').split_whitespace().next()?;
    let runs = command.contains("area-scoring")
        || command.starts_with(['/', '$', '"'])
        || command.starts_with("./")
        || ["sudo", "env", "redis-cli", "cargo", "make", "bash", "sh"].contains(&command);
    runs.then_some("a URL with a password before a command")
}

#[test]
fn no_doc_puts_the_redis_password_on_a_command_line() {
    // The check itself can fail: it finds what it looks for.
    for taught in [
        "sudo -u area-scoring env $(cat /etc/area-scoring/redis.env) area-scoring keys list",
        "AREA_REDIS=redis://:pw@10.0.0.5:6379/0 area-scoring keys migrate",
        "$ AREA_REDIS=redis://app:pw@h:1 \"$BIN\" serve",
    ] {
        assert!(
            teaches_a_password_on_a_command_line(taught).is_some(),
            "{taught}"
        );
    }
    for fine in [
        "AREA_REDIS=redis://:<password>@10.0.0.5:6379/0",
        "# AREA_REDIS=redis://user:password@host:port/db area-scoring serve",
        "(with an ACL user: `redis://area:<password>@10.0.0.5:6379/0`). Every command",
        "AREA_REDIS_FILE=/etc/area-scoring/redis.url area-scoring keys list",
        "redis://[user:password@]host:port[/db]` (mode 0640 or 0600: a file",
        "`redis://:***@10.0.0.5:6379/0`.",
    ] {
        assert_eq!(teaches_a_password_on_a_command_line(fine), None, "{fine}");
    }
    let mut found = Vec::new();
    for file in doc_files() {
        let Ok(text) = std::fs::read_to_string(&file) else {
            continue;
        };
        for (n, line) in text.lines().enumerate() {
            if let Some(what) = teaches_a_password_on_a_command_line(line) {
                found.push(format!("{}:{}: {what}: {line}", file.display(), n + 1));
            }
        }
    }
    assert!(found.is_empty(), "{}", found.join("\n"));
}
