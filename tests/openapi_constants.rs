//! docs/openapi.json against the Rust constants it describes: `api::contract`
//! (every query parameter's bounds, defaults and words, and which parameters
//! each operation takes), the vocabulary of `domain` (provinces, dimensions,
//! plans) and the errors of `error` (codes, statuses, size limits).
//!
//! contract/build_openapi.py writes the document with its own copies of these
//! values; this file is what makes a value changed on one side only fail
//! `make test`, without a server or schemathesis. One test per operation or
//! per kind of check, so that one drift does not hide another. The last test
//! holds the README's parameter tables to the same constants.

use std::collections::BTreeSet;
use std::sync::OnceLock;

use area_scoring::api::contract::*;
use area_scoring::api::params;
use area_scoring::api::query::{self, Bounds, Query};
use area_scoring::error::ApiError;
use proptest::strategy::{Strategy, ValueTree};
use proptest::test_runner::TestRunner;
use serde_json::Value;

fn doc() -> &'static Value {
    static DOC: OnceLock<Value> = OnceLock::new();
    DOC.get_or_init(|| {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/docs/openapi.json");
        let text = std::fs::read_to_string(path).expect("docs/openapi.json is readable");
        serde_json::from_str(&text).expect("docs/openapi.json is JSON")
    })
}

/// Follows a local `$ref` such as `#/components/schemas/X`.
fn resolve(v: &Value) -> &Value {
    match v.get("$ref").and_then(Value::as_str) {
        None => v,
        Some(r) => {
            let pointer = r.strip_prefix('#').expect("a local $ref");
            resolve(
                doc()
                    .pointer(pointer)
                    .unwrap_or_else(|| panic!("{r} resolves")),
            )
        }
    }
}

/// The query parameters of the GET operation on `path`, by name, with their
/// schemas. A form-style exploded object parameter (Search's criteria) stands
/// for one query parameter per property. HEAD must list the same ones.
fn query_params(path: &str) -> Vec<(String, Value)> {
    let of = |method: &str| -> Vec<(String, Value)> {
        let op = &doc()["paths"][path][method];
        assert!(op.is_object(), "{method} {path} is documented");
        let mut out = Vec::new();
        for p in op["parameters"].as_array().into_iter().flatten() {
            let p = resolve(p);
            if p["in"] != "query" {
                continue;
            }
            let schema = resolve(&p["schema"]);
            match schema.get("properties") {
                Some(props) if p["explode"] == true && p["style"] == "form" => {
                    let props = props.as_object().unwrap();
                    out.extend(props.iter().map(|(n, s)| (n.clone(), s.clone())));
                }
                _ => out.push((p["name"].as_str().unwrap().to_string(), schema.clone())),
            }
        }
        out
    };
    let get = of("get");
    assert_eq!(get, of("head"), "HEAD {path} takes what GET takes");
    get
}

fn param(path: &str, name: &str) -> Value {
    query_params(path)
        .into_iter()
        .find(|(n, _)| n == name)
        .unwrap_or_else(|| panic!("{path} documents {name}"))
        .1
}

fn schema(name: &str) -> &'static Value {
    &doc()["components"]["schemas"][name]
}

fn names(path: &str) -> BTreeSet<String> {
    query_params(path).into_iter().map(|(n, _)| n).collect()
}

fn set<'a>(words: impl IntoIterator<Item = &'a str>) -> BTreeSet<String> {
    words.into_iter().map(str::to_string).collect()
}

fn strings(v: &Value) -> Vec<&str> {
    let items = v.as_array().unwrap_or_else(|| panic!("{v} is an array"));
    items.iter().map(|s| s.as_str().unwrap()).collect()
}

fn words<T>(table: &[(&'static str, T)]) -> Vec<&'static str> {
    table.iter().map(|(w, _)| *w).collect()
}

/// An integer parameter: its minimum, maximum and default.
fn assert_integer(path: &str, name: &str, min: i64, max: i64, default: i64) {
    let s = param(path, name);
    assert_eq!(s["type"], "integer", "{path} {name}");
    assert_eq!(s["minimum"].as_i64(), Some(min), "{path} {name} minimum");
    assert_eq!(s["maximum"].as_i64(), Some(max), "{path} {name} maximum");
    assert_eq!(
        s["default"].as_i64(),
        Some(default),
        "{path} {name} default"
    );
}

/// A word parameter: its enum, in the server's order, and its default.
fn assert_words(path: &str, name: &str, expected: &[&str], default: Option<&str>) {
    let s = param(path, name);
    assert_eq!(strings(&s["enum"]), expected, "{path} {name} enum");
    assert_eq!(s["default"].as_str(), default, "{path} {name} default");
}

#[test]
fn list_areas_parameters_match_the_contract() {
    let path = "/v1/areas";
    assert_eq!(names(path), set(LIST_PARAMS));
    let slugs: Vec<&str> = PROVINCES.iter().map(|(slug, _)| *slug).collect();
    assert_words(path, "province", &slugs, None);
    assert_integer(
        path,
        "limit",
        LIST_LIMIT_MIN,
        LIST_LIMIT_MAX,
        LIST_LIMIT_DEFAULT,
    );
    assert_integer(path, "offset", OFFSET_MIN, OFFSET_MAX, OFFSET_DEFAULT);
    let sort = word_of(&SORTS, SORT_DEFAULT);
    assert_words(path, "sort", &words(&SORTS), Some(sort));
    let order = word_of(&ORDERS, ORDER_DEFAULT);
    assert_words(path, "order", &words(&ORDERS), Some(order));

    let page = &schema("AreaPage")["properties"];
    assert_eq!(page["limit"]["minimum"].as_i64(), Some(LIST_LIMIT_MIN));
    assert_eq!(page["limit"]["maximum"].as_i64(), Some(LIST_LIMIT_MAX));
    assert_eq!(page["data"]["maxItems"].as_i64(), Some(LIST_LIMIT_MAX));
    assert_eq!(page["offset"]["minimum"].as_i64(), Some(OFFSET_MIN));
}

/// Every order of every non-empty selection of `items`, comma-joined.
fn orderings(items: &[&str]) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for (i, first) in items.iter().enumerate() {
        out.insert(first.to_string());
        let rest: Vec<&str> = [&items[..i], &items[i + 1..]].concat();
        for tail in orderings(&rest) {
            out.insert(format!("{first},{tail}"));
        }
    }
    out
}

#[test]
fn get_area_parameters_match_the_contract() {
    let path = "/v1/areas/{area_id}";
    assert_eq!(names(path), set(AREA_PARAMS));
    let include = param(path, "include");
    assert_eq!(set(strings(&include["enum"])), orderings(&INCLUDES));
    assert!(include.get("default").is_none());
}

#[test]
fn search_parameters_match_the_contract() {
    let path = "/v1/areas/search";
    assert_eq!(names(path), set(SEARCH_PARAMS));
    let q = param(path, "q");
    assert_eq!(q["minLength"].as_u64(), Some(Q_CHARS_MIN as u64));
    assert_eq!(q["maxLength"].as_u64(), Some(Q_CHARS_MAX as u64));
    assert_integer(
        path,
        "limit",
        SEARCH_LIMIT_MIN,
        SEARCH_LIMIT_MAX,
        SEARCH_LIMIT_DEFAULT,
    );
    let radius_default = RADIUS_KM_DEFAULT.to_string();
    assert_eq!(param(path, "radius")["default"], radius_default.as_str());
    for name in ["lat", "lng", "min_score"] {
        assert!(param(path, name).get("default").is_none(), "{name}");
    }

    let page = &schema("SearchPage")["properties"];
    assert_eq!(page["limit"]["minimum"].as_i64(), Some(SEARCH_LIMIT_MIN));
    assert_eq!(page["limit"]["maximum"].as_i64(), Some(SEARCH_LIMIT_MAX));
    assert_eq!(page["data"]["maxItems"].as_i64(), Some(SEARCH_LIMIT_MAX));
    let distance = &schema("SearchHit")["properties"]["distance_km"];
    assert_eq!(distance["maximum"].as_f64(), Some(RADIUS_KM.max));
}

#[test]
fn compare_parameters_match_the_contract() {
    let path = "/v1/areas/compare";
    assert_eq!(names(path), set(COMPARE_PARAMS));
    let ids = param(path, "ids");
    assert_eq!(ids["minItems"].as_u64(), Some(COMPARE_IDS_MIN as u64));
    assert_eq!(ids["maxItems"].as_u64(), Some(COMPARE_IDS_MAX as u64));
    let dimensions = param(path, "dimensions");
    assert_eq!(strings(&dimensions["items"]["enum"]), DIMENSIONS);
    assert_eq!(
        dimensions["maxItems"].as_u64(),
        Some(DIMENSIONS.len() as u64)
    );

    let areas = &schema("Comparison")["properties"]["areas"];
    assert_eq!(areas["minItems"].as_u64(), Some(COMPARE_IDS_MIN as u64));
    assert_eq!(areas["maxItems"].as_u64(), Some(COMPARE_IDS_MAX as u64));
}

#[test]
fn history_parameters_match_the_contract() {
    let path = "/v1/areas/{area_id}/history";
    assert_eq!(names(path), set(HISTORY_PARAMS));
    assert_words(path, "period", &words(&PERIODS), Some(PERIOD_DEFAULT.0));
    let granularity = word_of(&GRANULARITIES, GRANULARITY_DEFAULT);
    assert_words(
        path,
        "granularity",
        &words(&GRANULARITIES),
        Some(granularity),
    );

    let body = &schema("AreaHistory")["properties"];
    assert_eq!(strings(&body["period"]["enum"]), words(&PERIODS));
    let longest = PERIODS.iter().map(|(_, days)| *days).max().unwrap();
    assert_eq!(body["history"]["maxItems"].as_i64(), Some(longest));
    let included = &schema("AreaDetail")["properties"]["history"];
    assert_eq!(included["maxItems"].as_i64(), Some(PERIOD_DEFAULT.1));
}

#[test]
fn public_operations_take_no_query_parameters() {
    for path in ["/v1/openapi.json", "/healthz", "/metrics"] {
        assert_eq!(names(path), BTreeSet::new(), "{path}");
    }
}

type Parser = fn(Query) -> Result<(), ApiError>;

/// Each API path and the parser of its parameters.
const PARSERS: [(&str, Parser); 5] = [
    ("/v1/areas", |q| params::list(q).map(drop)),
    ("/v1/areas/{area_id}", |q| params::area(q).map(drop)),
    ("/v1/areas/search", |q| params::search(q).map(drop)),
    ("/v1/areas/compare", |q| params::compare(q).map(drop)),
    ("/v1/areas/{area_id}/history", |q| {
        params::history(q).map(drop)
    }),
];

fn refused_as_unknown(parse: Parser, name: &str) -> bool {
    match parse(Query::parse(&format!("{name}=")).unwrap()) {
        Ok(()) => false,
        Err(e) => e.message().starts_with("unknown parameter"),
    }
}

#[test]
fn the_parsers_take_every_documented_parameter_and_no_other() {
    assert_eq!(PARSERS.len(), doc()["paths"].as_object().unwrap().len() - 3);
    for (path, parse) in PARSERS {
        for name in names(path) {
            assert!(!refused_as_unknown(parse, &name), "{path} takes {name}");
        }
        let undocumented = ["colour", "page", "per_page", "fields", "Limit"];
        for name in undocumented {
            assert!(refused_as_unknown(parse, name), "{path} refuses {name}");
        }
    }
}

/// A regular-expression matcher for the subset the document's number patterns
/// use (literals, escapes, classes with ranges, non-capturing groups,
/// alternation, `?`, `*`, `+`, `^`, `$`); anything else is a test failure, so
/// a pattern this cannot read is never passed unread. The test dependencies
/// hold a regex generator (proptest) but no matcher.
mod regex {
    pub enum Node {
        Char(char),
        Class(Vec<(char, char)>),
        Group(Vec<Vec<Node>>),
        Repeat(Box<Node>, usize, Option<usize>),
        Start,
        End,
    }

    pub fn is_match(pattern: &str, text: &str) -> bool {
        let mut p = Parser {
            chars: pattern.chars().collect(),
            at: 0,
        };
        let alternatives = p.alternation();
        assert_eq!(p.at, p.chars.len(), "{pattern} parses to the end");
        let text: Vec<char> = text.chars().collect();
        let root = [Node::Group(alternatives)];
        (0..=text.len()).any(|i| matches(&root, &text, i, &mut |_| true))
    }

    struct Parser {
        chars: Vec<char>,
        at: usize,
    }

    impl Parser {
        fn next(&mut self) -> char {
            self.at += 1;
            self.chars[self.at - 1]
        }

        fn peek(&self) -> Option<char> {
            self.chars.get(self.at).copied()
        }

        fn alternation(&mut self) -> Vec<Vec<Node>> {
            let mut alternatives = vec![self.sequence()];
            while self.peek() == Some('|') {
                self.at += 1;
                alternatives.push(self.sequence());
            }
            alternatives
        }

        fn sequence(&mut self) -> Vec<Node> {
            let mut nodes = Vec::new();
            while let Some(c) = self.peek().filter(|c| *c != '|' && *c != ')') {
                let atom = self.atom(c);
                let (min, max) = match self.peek() {
                    Some('?') => (0, Some(1)),
                    Some('*') => (0, None),
                    Some('+') => (1, None),
                    _ => {
                        nodes.push(atom);
                        continue;
                    }
                };
                self.at += 1;
                nodes.push(Node::Repeat(Box::new(atom), min, max));
            }
            nodes
        }

        fn atom(&mut self, c: char) -> Node {
            self.at += 1;
            match c {
                '^' => Node::Start,
                '$' => Node::End,
                '(' => {
                    assert_eq!((self.next(), self.next()), ('?', ':'), "only (?:...)");
                    let group = Node::Group(self.alternation());
                    assert_eq!(self.next(), ')');
                    group
                }
                '[' => self.class(),
                '\\' => Node::Char(self.escaped()),
                '.' | '{' | '}' | ']' => panic!("unsupported '{c}' in a pattern"),
                c => Node::Char(c),
            }
        }

        fn escaped(&mut self) -> char {
            let c = self.next();
            assert!(c.is_ascii_punctuation(), "unsupported escape \\{c}");
            c
        }

        fn class(&mut self) -> Node {
            assert_ne!(self.peek(), Some('^'), "unsupported negated class");
            let mut ranges = Vec::new();
            loop {
                let first = match self.next() {
                    ']' => return Node::Class(ranges),
                    '\\' => self.escaped(),
                    c => c,
                };
                let last = if self.peek() == Some('-') && self.chars[self.at + 1] != ']' {
                    self.at += 1;
                    self.next()
                } else {
                    first
                };
                ranges.push((first, last));
            }
        }
    }

    fn matches(nodes: &[Node], text: &[char], i: usize, k: &mut dyn FnMut(usize) -> bool) -> bool {
        let Some((node, rest)) = nodes.split_first() else {
            return k(i);
        };
        match node {
            Node::Char(c) => text.get(i) == Some(c) && matches(rest, text, i + 1, k),
            Node::Class(ranges) => {
                text.get(i)
                    .is_some_and(|t| ranges.iter().any(|(a, b)| (a..=b).contains(&t)))
                    && matches(rest, text, i + 1, k)
            }
            Node::Start => i == 0 && matches(rest, text, i, k),
            Node::End => i == text.len() && matches(rest, text, i, k),
            Node::Group(alternatives) => alternatives
                .iter()
                .any(|alt| matches(alt, text, i, &mut |j| matches(rest, text, j, k))),
            Node::Repeat(sub, min, max) => repeat(sub, (*min, *max, 0), rest, text, i, k),
        }
    }

    /// Greedy: one more `sub` (if that consumes something), else on to `rest`.
    fn repeat(
        sub: &Node,
        (min, max, count): (usize, Option<usize>, usize),
        rest: &[Node],
        text: &[char],
        i: usize,
        k: &mut dyn FnMut(usize) -> bool,
    ) -> bool {
        let more = max.is_none_or(|max| count < max);
        (more
            && matches(std::slice::from_ref(sub), text, i, &mut |j| {
                j != i && repeat(sub, (min, max, count + 1), rest, text, j, k)
            }))
            || (count >= min && matches(rest, text, i, k))
    }
}

/// Values around and between the bounds, and text that is not decimal notation.
fn probes(b: Bounds) -> Vec<String> {
    let mut out: Vec<String> = [
        "", ".", "-", "-0", "-0.0", "-.0", "0.", ".5", "-.5", "+1", "1e1", "nan", "inf", "1.2.3",
        " 1", "1 ", "0x1", "1,5",
    ]
    .map(String::from)
    .to_vec();
    for edge in [b.min, b.max] {
        for delta in [0.0, 0.0001, -0.0001, 0.5, -0.5, 1.0, -1.0] {
            out.push((edge + delta).to_string());
        }
        out.push(format!("{edge}.000"));
        out.push(format!("00{edge}"));
    }
    let (low, high) = (b.min.floor() as i64 - 2, b.max.ceil() as i64 + 2);
    for n in low..=high {
        out.push(n.to_string());
        out.push(format!("{n}.5"));
        out.push(format!("{n}.25"));
    }
    out
}

/// The pattern admits exactly what `query::number` accepts within `b`: on
/// every probe, and on values drawn from the pattern itself.
fn assert_pattern_is(name: &str, b: Bounds) {
    let s = param("/v1/areas/search", name);
    let pattern = s["pattern"].as_str().unwrap();
    assert_eq!(
        s["type"], "string",
        "{name} is sent as text in decimal notation"
    );
    for probe in probes(b) {
        let accepted = query::number(name, &probe, b).is_ok();
        let admitted = regex::is_match(pattern, &probe);
        assert_eq!(admitted, accepted, "{name}={probe:?}: pattern {pattern}");
    }
    let unanchored = pattern
        .strip_prefix('^')
        .unwrap()
        .strip_suffix('$')
        .unwrap();
    let drawn = proptest::string::string_regex(unanchored).unwrap();
    let mut runner = TestRunner::deterministic();
    for _ in 0..2000 {
        let value = drawn.new_tree(&mut runner).unwrap().current();
        assert!(query::number(name, &value, b).is_ok(), "{name}={value:?}");
        assert!(regex::is_match(pattern, &value), "{name}={value:?}");
    }
}

#[test]
fn search_number_patterns_hold_exactly_the_bounds() {
    assert_pattern_is("lat", LAT);
    assert_pattern_is("lng", LNG);
    assert_pattern_is("radius", RADIUS_KM);
    assert_pattern_is("min_score", MIN_SCORE);
}

/// One of each error, built so that a new variant fails to compile below.
fn every_error() -> Vec<ApiError> {
    let all = vec![
        ApiError::MissingApiKey,
        ApiError::InvalidApiKey,
        ApiError::PlanUpgradeRequired {
            feature: "history",
            needed: "growth",
            have: "free".into(),
        },
        ApiError::invalid("limit", "out of bounds"),
        ApiError::AreaNotFound { ids: vec![] },
        ApiError::NotFound { path: "/x".into() },
        ApiError::MethodNotAllowed { allow: "GET" },
        ApiError::RateLimited {
            retry_after_secs: 1,
        },
        ApiError::UriTooLong,
        ApiError::HeadersTooLarge,
        ApiError::Internal,
        ApiError::ServiceUnavailable,
        ApiError::ExportsBusy { running: 4 },
        ApiError::BodyNotAllowed,
    ];
    for e in &all {
        match e {
            ApiError::MissingApiKey
            | ApiError::InvalidApiKey
            | ApiError::PlanUpgradeRequired { .. }
            | ApiError::InvalidParameter { .. }
            | ApiError::AreaNotFound { .. }
            | ApiError::NotFound { .. }
            | ApiError::MethodNotAllowed { .. }
            | ApiError::RateLimited { .. }
            | ApiError::UriTooLong
            | ApiError::HeadersTooLarge
            | ApiError::Internal
            | ApiError::ServiceUnavailable
            | ApiError::ExportsBusy { .. }
            | ApiError::BodyNotAllowed => {}
        }
    }
    all
}

#[test]
fn documented_error_codes_and_statuses_are_the_servers() {
    // Answered only by the nginx front of deploy/ (README, "Deployment"), never by the server.
    let front: BTreeSet<(String, u64)> = [
        ("bad_gateway".to_string(), 502),
        ("gateway_timeout".to_string(), 504),
    ]
    .into();
    let mut documented = BTreeSet::new();
    for (name, s) in doc()["components"]["schemas"].as_object().unwrap() {
        if !name.starts_with("Error") {
            continue;
        }
        let detail = &s["properties"]["error"]["properties"];
        let status = detail["status"]["const"].as_u64().unwrap();
        for code in strings(&detail["code"]["enum"]) {
            documented.insert((code.to_string(), status));
        }
    }
    let servers: BTreeSet<(String, u64)> = every_error()
        .iter()
        .map(|e| (e.code().to_string(), u64::from(e.status())))
        .collect();
    // No operation can answer 405 (each documents only the methods it takes),
    // so the document names it in its conventions instead of a schema.
    let method = ("method_not_allowed".to_string(), 405);
    let description = doc()["info"]["description"].as_str().unwrap();
    assert!(description.contains("405 method_not_allowed"));
    let expected: BTreeSet<_> = servers.iter().filter(|p| **p != method).cloned().collect();
    let documented_servers: BTreeSet<_> = documented.difference(&front).cloned().collect();
    assert_eq!(documented_servers, expected);
    assert!(front.is_subset(&documented));
}

#[test]
fn documented_size_limits_are_the_servers() {
    let responses = &doc()["components"]["responses"];
    for (response, bytes) in [
        ("UriTooLong", MAX_TARGET_BYTES),
        ("HeadersTooLarge", MAX_HEADER_BYTES),
    ] {
        assert_eq!(bytes % 1024, 0, "{response}: a whole number of KiB");
        let text = responses[response]["description"].as_str().unwrap();
        let said = format!(" over {} KiB", bytes / 1024);
        assert!(text.contains(&said), "{response} says{said}: {text}");
    }
}

#[test]
fn documented_provinces_are_the_servers() {
    let names: Vec<&str> = PROVINCES.iter().map(|(_, name)| *name).collect();
    for form in ["AreaSummary", "SearchHit", "AreaDetail"] {
        let province = &schema(form)["properties"]["province"];
        assert_eq!(strings(&province["enum"]), names, "{form}");
    }
}

#[test]
fn documented_dimensions_are_the_servers() {
    // serde_json reads objects into sorted maps, so the order is checked
    // where the document states it: in the description of the detail form.
    let keys = |form: &str| -> BTreeSet<String> {
        let props = &schema(form)["properties"]["dimensions"]["properties"];
        props.as_object().unwrap().keys().cloned().collect()
    };
    assert_eq!(keys("AreaDetail"), set(DIMENSIONS));
    assert_eq!(keys("ComparedArea"), set(DIMENSIONS));
    let detail = &schema("AreaDetail")["properties"]["dimensions"]["description"];
    let order = format!("in the order {}.", DIMENSIONS.join(", "));
    assert!(
        detail.as_str().unwrap().contains(&order),
        "{detail} says {order}"
    );
}

#[test]
fn documented_plans_are_the_servers() {
    let description = doc()["info"]["description"].as_str().unwrap();
    let plans: Vec<&str> = Plan::ALL.iter().map(|p| p.name()).collect();
    let said = format!("Keys are on a plan: {}.", plans.join(", "));
    assert!(description.contains(&said), "the description says {said}");
}

/// The README's parameter tables (README, "List Areas", "Search Areas",
/// "Compare Areas", "Get Area History") name the same bounds and defaults.
#[test]
fn readme_parameter_tables_name_the_contracts_bounds() {
    let readme = include_str!("../README.md");
    let ticked = |words: &[&str]| -> String {
        let quoted: Vec<String> = words.iter().map(|w| format!("`{w}`")).collect();
        quoted.join(", ")
    };
    let (lat, lng, radius, score) = (LAT, LNG, RADIUS_KM, MIN_SCORE);
    let rows = [
        format!("| `limit` | {LIST_LIMIT_MIN} to {LIST_LIMIT_MAX} | {LIST_LIMIT_DEFAULT} |"),
        format!("| `offset` | {OFFSET_MIN} or more | {OFFSET_DEFAULT} |"),
        format!(
            "| `sort` | {} | `{}` |",
            ticked(&words(&SORTS)),
            word_of(&SORTS, SORT_DEFAULT)
        ),
        format!(
            "| `order` | {} | `{}` |",
            ticked(&words(&ORDERS)),
            word_of(&ORDERS, ORDER_DEFAULT)
        ),
        format!("| `q` | {Q_CHARS_MIN} to {Q_CHARS_MAX} characters (not bytes)"),
        format!(
            "| `lat`, `lng` | {} to {}, {} to {}; always together | none |",
            lat.min, lat.max, lng.min, lng.max
        ),
        format!(
            "greater than {} and at most {}; needs `lat` and `lng` | {RADIUS_KM_DEFAULT} |",
            radius.min, radius.max
        ),
        format!("| `min_score` | {} to {} | none |", score.min, score.max),
        format!("| `limit` | {SEARCH_LIMIT_MIN} to {SEARCH_LIMIT_MAX} | {SEARCH_LIMIT_DEFAULT} |"),
        format!("`ids`: {COMPARE_IDS_MIN} to {COMPARE_IDS_MAX} distinct area ids"),
        format!("| `period` | {} (", ticked(&words(&PERIODS))),
        format!(
            "| `granularity` | {} | `{}` |",
            ticked(&words(&GRANULARITIES)),
            word_of(&GRANULARITIES, GRANULARITY_DEFAULT)
        ),
    ];
    let missing: Vec<&String> = rows.iter().filter(|r| !readme.contains(*r)).collect();
    assert!(missing.is_empty(), "the README does not say: {missing:#?}");
    let province_row = readme
        .lines()
        .find(|l| l.starts_with("| `province` |"))
        .expect("the README lists the provinces");
    for (slug, _) in PROVINCES {
        assert!(province_row.contains(&format!("`{slug}`")), "{slug}");
    }
    assert_eq!(province_row.matches('`').count(), 2 * (PROVINCES.len() + 1));
}
