//! Every curl example of the README, run against the seed with a growth key,
//! and compared exactly with the output the README shows under it. The seed
//! is built as of the day the README's examples were made (`README_DAY`), so
//! its synthetic scores and dates are the README's whatever day the test runs.
//! An example with no output block must still answer 200. The README is what
//! a new user copies first, so an example that drifts from the server fails
//! here. The curl samples of docs/openapi.json (x-codeSamples) must answer 200
//! too.

mod common;

use std::sync::OnceLock;

use area_scoring::data::load;
use area_scoring::dates;
use common::client::Reply;
use common::{Plan, TestApp, scratch_dir};
use serde_json::Value;

/// The day of `init` the README's examples show (README, "API reference").
const README_DAY: (i64, u32, u32) = (2026, 11, 23);

/// The server over the seed as `init` made it on `README_DAY`.
fn readme_app() -> &'static TestApp {
    static APP: OnceLock<TestApp> = OnceLock::new();
    APP.get_or_init(|| {
        let db = scratch_dir("readme").join("areas.db");
        let (y, m, d) = README_DAY;
        load::init_as_of(&db, false, dates::from_civil(y, m, d)).expect("init as of README_DAY");
        TestApp::over(db)
    })
}

/// One curl example and the output block under it, if any.
struct Example {
    line: usize,
    command: String,
    /// The output block's language (json, csv, text) and text.
    output: Option<(String, String)>,
}

/// The curl commands that use `$KEY`, each with the fenced block right after.
fn examples() -> Vec<Example> {
    let readme = include_str!("../README.md");
    let lines: Vec<&str> = readme.lines().collect();
    let mut found = Vec::new();
    for (i, window) in lines.windows(3).enumerate() {
        let [open, command, close] = window else {
            continue;
        };
        if *open != "```sh" || !command.starts_with("curl ") || *close != "```" {
            continue;
        }
        if !command.contains("$KEY") {
            continue;
        }
        let output = lines.get(i + 3).and_then(|fence| {
            let kind = fence.strip_prefix("```").filter(|k| !k.is_empty())?;
            let body: Vec<&str> = lines[i + 4..]
                .iter()
                .take_while(|l| **l != "```")
                .copied()
                .collect();
            Some((kind.to_string(), body.join("\n")))
        });
        found.push(Example {
            line: i + 2,
            command: command.to_string(),
            output,
        });
    }
    found
}

/// A curl command's words, as a POSIX shell splits them (quotes only: the
/// README's examples use no other syntax).
fn words(command: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut word = String::new();
    let mut quote: Option<char> = None;
    let mut any = false;
    for c in command.chars() {
        match (quote, c) {
            (None, '"' | '\'') => (quote, any) = (Some(c), true),
            (Some(q), c) if c == q => quote = None,
            (None, ' ') => {
                if any {
                    out.push(std::mem::take(&mut word));
                }
                any = false;
            }
            (_, c) => (word.push(c), any = true).0,
        }
    }
    if any {
        out.push(word);
    }
    out
}

/// What the example asks of the server, and what curl prints of the answer.
struct Request {
    target: String,
    headers: Vec<(String, String)>,
    /// `-w '%header{name}\n' -o /dev/null`: curl prints that header only.
    print_header: Option<String>,
    /// `-o FILE`: curl prints nothing.
    to_file: bool,
}

fn parse(command: &str) -> Request {
    let words = words(command);
    let mut request = Request {
        target: String::new(),
        headers: Vec::new(),
        print_header: None,
        to_file: false,
    };
    let mut it = words.iter().skip(1);
    while let Some(word) = it.next() {
        match word.as_str() {
            "-s" => {}
            "-H" => {
                let header = it.next().expect("-H takes a header");
                let (name, value) = header.split_once(": ").expect("Name: value");
                request.headers.push((name.to_string(), value.to_string()));
            }
            "-o" => request.to_file = it.next().expect("-o takes a file") != "/dev/null",
            "-w" => {
                let format = it.next().expect("-w takes a format");
                let name = format
                    .strip_prefix("%header{")
                    .and_then(|f| f.strip_suffix("}\\n"))
                    .expect("-w '%header{name}\\n'");
                request.print_header = Some(name.to_string());
            }
            url => {
                let path = url
                    .strip_prefix("localhost:8080")
                    .expect("a URL on localhost:8080");
                request.target = path.to_string();
            }
        }
    }
    request
}

/// Sends what a curl command asks for; its parsed form and the reply.
fn ask(app: &TestApp, command: &str) -> (Request, Reply) {
    let request = parse(command);
    let headers: Vec<(&str, &[u8])> = request
        .headers
        .iter()
        .map(|(n, v)| (n.as_str(), v.as_bytes()))
        .collect();
    let reply = app.send("GET", request.target.as_bytes(), &headers);
    (request, reply)
}

fn json(text: &str) -> Value {
    serde_json::from_str(text).expect("JSON")
}

/// GET /v1/key's answer names the caller's own key, limit and counts (the
/// shared test server lifts every limit), and the day its usage is counted
/// for, which is the clock's: those fields are compared by kind (a key id, a
/// count or null, one of `days`), the rest as shown.
fn without_the_callers_own(mut key: Value, days: &[String]) -> Value {
    key["key_id"] = Value::from(
        key["key_id"]
            .as_str()
            .is_some_and(|id| id.starts_with("key_")),
    );
    for limit in ["requests_per_minute", "remaining"] {
        let v = &key["rate_limit"][limit];
        key["rate_limit"][limit] = Value::from(v.is_u64() || v.is_null());
    }
    for count in ["ok", "errors", "rate_limited"] {
        key["usage_today"][count] = Value::from(key["usage_today"][count].is_u64());
    }
    let day = &key["usage_today"]["day"];
    key["usage_today"]["day"] = Value::from(days.iter().any(|d| day == d.as_str()));
    key
}

/// Today's date (UTC) as the server writes it.
fn today() -> String {
    dates::format_date(dates::today())
}

#[test]
fn the_readme_shows_examples_of_every_feature() {
    let all: Vec<String> = examples().into_iter().map(|e| e.command).collect();
    for path in [
        "/v1/areas?",
        "/v1/areas/search?",
        "/v1/areas/search?province=",
        "bbox=",
        "format=csv",
        "application/geo+json",
        "%header{link}",
        "/v1/areas/export",
        "/v1/areas/compare?",
        "/history?",
        "include=nearby",
        "/v1/key",
    ] {
        assert!(
            all.iter().any(|c| c.contains(path)),
            "no example shows {path}"
        );
    }
}

#[test]
fn every_curl_example_answers_what_the_readme_shows() {
    let app = readme_app();
    let key = app.key(Plan::Growth).to_string();
    let examples = examples();
    assert!(examples.len() >= 8, "the README's examples were found");
    let (y, m, d) = README_DAY;
    let readme_day = dates::format_date(dates::from_civil(y, m, d));
    for example in examples {
        let at = format!("README.md line {}: {}", example.line, example.command);
        // Usage is counted by the clock's day: a run that crosses midnight
        // may see either.
        let before = today();
        let (request, reply) = ask(app, &example.command.replace("$KEY", &key));
        let days = [before, today()];
        assert_eq!(reply.status, 200, "{at}: {}", reply.text());
        let Some((kind, shown)) = example.output else {
            assert!(
                request.to_file,
                "{at}: an example that prints shows its output"
            );
            continue;
        };
        let printed = match &request.print_header {
            Some(name) => reply.header(name).unwrap_or_default().to_string(),
            None => reply.text().replace("\r\n", "\n"),
        };
        match kind.as_str() {
            "json" if example.command.contains("/v1/key\"") => assert_eq!(
                without_the_callers_own(json(&printed), &days),
                without_the_callers_own(json(&shown), std::slice::from_ref(&readme_day)),
                "{at}"
            ),
            "json" => assert_eq!(json(&printed), json(&shown), "{at}"),
            _ => assert_eq!(printed.trim_end(), shown.trim_end(), "{at}"),
        }
    }
}

#[test]
fn every_curl_sample_of_the_openapi_document_answers_200() {
    let app = readme_app();
    let key = app.key(Plan::Growth).to_string();
    let doc: Value = serde_json::from_str(include_str!("../docs/openapi.json")).expect("JSON");
    let mut samples = 0;
    for (path, item) in doc["paths"].as_object().expect("paths") {
        let listed = item["get"]["x-codeSamples"].as_array();
        assert!(
            listed.is_some_and(|l| !l.is_empty()),
            "{path} has a curl sample"
        );
        for sample in listed.into_iter().flatten() {
            let command = sample["source"].as_str().expect("source");
            let (_, reply) = ask(app, &command.replace("$KEY", &key));
            assert_eq!(reply.status, 200, "{path}: {command}: {}", reply.text());
            samples += 1;
        }
    }
    assert!(samples >= 10, "{samples} samples");
}

#[test]
fn curl_commands_split_as_a_shell_splits_them() {
    assert_eq!(
        words(r#"curl -s -w '%header{link}\n' -H "A: b c" "x?y=1&z=2""#),
        [
            "curl",
            "-s",
            "-w",
            r"%header{link}\n",
            "-H",
            "A: b c",
            "x?y=1&z=2"
        ]
    );
}
