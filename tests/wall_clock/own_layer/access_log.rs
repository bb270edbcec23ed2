//! The access log against the binary: one line an answer, in the form of the
//! other log lines, stamped when the answer was given, naming the client, the
//! key's id and the bytes sent, with secrets in the query redacted, and none
//! lost when the server stops.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use super::*;
use crate::serial;

/// The log line naming `id`, waited for (the writer batches lines).
fn line_of(server: &Served, id: &str) -> Option<String> {
    within(Duration::from_secs(3), || {
        let log = server.log.lock().unwrap();
        let id = format!(" {id} ");
        log.iter().find(|l| l.contains(&id)).cloned()
    })
}

/// Milliseconds since the epoch of a `2026-11-26T02:36:30.165Z` stamp.
fn stamp_ms(stamp: &str) -> u64 {
    let b = stamp.as_bytes();
    assert_eq!(
        (b.len(), b[10], b[19], b[23]),
        (24, b'T', b'.', b'Z'),
        "{stamp}"
    );
    let n = |r: std::ops::Range<usize>| -> i64 { stamp[r].parse().unwrap() };
    let (y, m, d) = (n(0..4), n(5..7), n(8..10));
    // Days from the civil date (H. Hinnant's algorithm).
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let doy = (153 * ((m + 9) % 12) + 2) / 5 + d - 1;
    let days = era * 146_097 + yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let secs = (days - 719_468) * 86_400 + n(11..13) * 3600 + n(14..16) * 60 + n(17..19);
    (secs * 1000 + n(20..23)) as u64
}

fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_millis() as u64
}

#[test]
fn each_answer_is_logged_when_given_with_secrets_redacted() {
    let _serial = serial();
    let db = fresh_db("access-log");
    let (key_id, key) = new_key(&db, Plan::Growth);
    let server = Served::spawn(&db, &["--max-connections-per-address", "0"]);
    let before = now_ms();
    let reply = get(server.addr, "/v1/areas?limit=1&api_key=s3cret", Some(&key));
    let after = now_ms();
    // An unknown parameter is refused, and the refusal is logged too.
    assert_eq!(reply.status, 400);
    let id = reply
        .header("X-Request-Id")
        .expect("a request id")
        .to_string();
    let line = line_of(&server, &id).expect("the answer is logged within 3 s");
    let (stamp, rest) = line.split_once(' ').unwrap();
    let ms = rest
        .strip_prefix("INFO  [area_scoring::access] GET /v1/areas?limit=1&api_key=[redacted] 400 ")
        .and_then(|r| {
            let tail = format!(
                "ms {id} client=127.0.0.1 key={key_id} bytes={}",
                reply.body.len()
            );
            r.strip_suffix(&tail)
        })
        .unwrap_or_else(|| panic!("the access line's form: {line}"));
    assert!(ms.parse::<f64>().is_ok_and(|ms| ms >= 0.0), "{line}");
    assert!(!line.contains("s3cret") && !line.contains(&key), "{line}");
    let at = stamp_ms(stamp);
    assert!(
        before - before % 1000 <= at && at <= after,
        "{stamp} not within the request"
    );
}

#[test]
fn the_last_answers_are_logged_before_the_server_exits() {
    let _serial = serial();
    let (key, mut server) = served("access-log-stop", &[]);
    let ids: Vec<String> = (0..20)
        .map(|_| {
            let reply = get(server.addr, "/v1/areas?limit=1", Some(&key));
            reply.header("X-Request-Id").unwrap().to_string()
        })
        .collect();
    server.signal("TERM");
    assert!(server.wait_exit(Duration::from_secs(6)).is_some(), "exits");
    // The pipe is read to its end once the process has gone.
    let all = within(Duration::from_secs(2), || {
        let log = server.log.lock().unwrap();
        ids.iter()
            .all(|id| log.iter().any(|l| l.contains(&format!(" {id} "))))
            .then_some(())
    });
    assert!(all.is_some(), "every answer before SIGTERM is in the log");
}

#[test]
fn a_request_without_an_accepted_key_is_logged_without_one() {
    let _serial = serial();
    let (_, server) = served("access-log-keyless", &[]);
    let reply = get(server.addr, "/v1/areas?limit=1", Some("ask_not_a_key"));
    assert_eq!(reply.status, 401);
    let id = reply.header("X-Request-Id").expect("a request id");
    let line = line_of(&server, id).expect("the refusal is logged within 3 s");
    let tail = format!("{id} client=127.0.0.1 key=- bytes={}", reply.body.len());
    assert!(line.ends_with(&tail), "{line}");
}

#[test]
fn access_log_errors_prints_only_the_answers_of_400_and_above() {
    let _serial = serial();
    let (key, server) = served("access-log-errors", &["--access-log", "errors"]);
    let ok = get(server.addr, "/v1/areas?limit=1", Some(&key));
    let missing = get(server.addr, "/v1/areas/nowhere-at-all", Some(&key));
    assert_eq!((ok.status, missing.status), (200, 404));
    let missing_id = missing.header("X-Request-Id").unwrap();
    assert!(line_of(&server, missing_id).is_some(), "the 404 is logged");
    // Lines are written in order, so the 200's would be there by now.
    let ok_id = format!(" {} ", ok.header("X-Request-Id").unwrap());
    let log = server.log.lock().unwrap();
    assert!(!log.iter().any(|l| l.contains(&ok_id)), "{log:#?}");
}

#[test]
fn access_log_refuses_a_word_it_does_not_know() {
    let db = fresh_db("access-log-word");
    let args = [
        "serve",
        "--db",
        db.to_str().unwrap(),
        "--access-log",
        "some",
    ];
    let out = crate::common::bin::run(&args, &[], db.parent().unwrap());
    assert_eq!(out.status.code(), Some(2));
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(
        said.contains("--access-log takes all, errors, off"),
        "{said}"
    );
}
