//! Every curl example of README.md and docs/*.md, run against the seed with a
//! growth key, and compared exactly with the output the page shows under it;
//! a failure names the page and line. A shell block the test cannot run (a
//! public address, the reader's own data) is marked `<!-- not run: why -->`. The seed
//! is built as of the day the README's examples were made (`README_DAY`), so
//! its synthetic scores and dates are the README's whatever day the test runs.
//! An example with no output block must still answer 200. The README is what
//! a new user copies first, so an example that drifts from the server fails
//! here. The curl samples of docs/openapi.json (x-codeSamples) must answer 200
//! too.

use std::sync::OnceLock;

use crate::common::client::Reply;
use crate::common::{Plan, TestApp, scratch_dir};
use area_scoring::data::load;
use area_scoring::dates;
use serde_json::Value;

/// The day of `init` the README's examples show (docs/api.md, "API reference").
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
    /// `file:line` of the command.
    at: String,
    command: String,
    /// The output block's language (json, csv, text) and text.
    output: Option<(String, String)>,
}

/// What marks a shell block the test does not run (a public address, the
/// reader's own data), on the line before the block: `<!-- not run: why -->`.
const NOT_RUN: &str = "<!-- not run:";

/// The documents whose examples run: README.md and docs/*.md.
fn documents() -> Vec<(String, String)> {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    crate::common::docs::pages()
        .into_iter()
        .map(|name| {
            let text = std::fs::read_to_string(root.join(&name)).expect("a document");
            (name, text)
        })
        .collect()
}

/// Every curl example of one document, each with the fenced block right
/// after it; and, as `file:line: why`, each curl command in a shell block
/// that is neither one example the test can run nor marked as not run.
fn examples_of(name: &str, text: &str) -> (Vec<Example>, Vec<String>) {
    let lines: Vec<&str> = text.lines().collect();
    let (mut found, mut unrunnable) = (Vec::new(), Vec::new());
    let mut i = 0;
    while i < lines.len() {
        if !lines[i].trim_start().starts_with("```") {
            i += 1;
            continue;
        }
        let open = lines[i].trim();
        let body: Vec<&str> = lines[i + 1..]
            .iter()
            .take_while(|l| l.trim() != "```")
            .copied()
            .collect();
        let close = i + 1 + body.len();
        let marked = i > 0 && lines[i - 1].trim_start().starts_with(NOT_RUN);
        let curls: Vec<usize> = (0..body.len())
            .filter(|j| body[*j].trim_start().starts_with("curl "))
            .collect();
        if open == "```sh" && !marked && !curls.is_empty() {
            let command = body[0];
            let runnable = body.len() == 1
                && command.starts_with("curl ")
                && command.contains("$KEY")
                && command.contains("localhost:8080");
            if !runnable {
                for j in curls {
                    unrunnable.push(format!(
                        "{name}:{}: a curl example the test cannot run (one command a \
                         block, on localhost:8080 with $KEY); or mark it {NOT_RUN} why -->",
                        i + 2 + j
                    ));
                }
            } else {
                let output = lines.get(close + 1).and_then(|fence| {
                    let kind = fence.strip_prefix("```").filter(|k| !k.is_empty())?;
                    let shown: Vec<&str> = lines[close + 2..]
                        .iter()
                        .take_while(|l| **l != "```")
                        .copied()
                        .collect();
                    Some((kind.to_string(), shown.join("\n")))
                });
                found.push(Example {
                    at: format!("{name}:{}", i + 2),
                    command: command.to_string(),
                    output,
                });
            }
        }
        i = close + 1;
    }
    (found, unrunnable)
}

/// Every curl example of README.md and docs/*.md.
fn examples() -> Vec<Example> {
    documents()
        .iter()
        .flat_map(|(name, text)| examples_of(name, text).0)
        .collect()
}

#[test]
fn every_curl_example_runs_or_is_marked_as_not_run() {
    let unrunnable: Vec<String> = documents()
        .iter()
        .flat_map(|(name, text)| examples_of(name, text).1)
        .collect();
    assert!(unrunnable.is_empty(), "{}", unrunnable.join("\n"));
}

#[test]
fn an_unmarked_curl_example_off_the_seed_is_reported_by_file_and_line() {
    let page = "text\n```sh\ncurl -s https://api.example.org/healthz\n```\n";
    let (found, unrunnable) = examples_of("docs/x.md", page);
    assert!(found.is_empty());
    assert_eq!(unrunnable.len(), 1);
    assert!(
        unrunnable[0].starts_with("docs/x.md:3: "),
        "{}",
        unrunnable[0]
    );
    let marked = page.replace("text\n", "<!-- not run: a public address -->\n");
    assert_eq!(examples_of("docs/x.md", &marked).1, Vec::<String>::new());
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
fn the_pages_show_examples_of_every_feature() {
    let all: Vec<String> = examples().into_iter().map(|e| e.command).collect();
    for path in [
        "/v1/areas?",
        "/v1/areas/search?",
        "/v1/areas/search?province=",
        "bbox=",
        "/v1/areas/search.csv?",
        "/v1/areas/search.geojson?",
        "/v1/areas/export.csv?",
        "%header{link}",
        "/v1/areas/export",
        "/v1/areas/compare?",
        "/history?",
        "include=nearby",
        "/v1/areas/at?",
        "geometry=boundary",
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
    assert!(examples.len() >= 8, "the documents' examples were found");
    let (y, m, d) = README_DAY;
    let readme_day = dates::format_date(dates::from_civil(y, m, d));
    for example in examples {
        let at = format!("{}: {}", example.at, example.command);
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
