//! Every row of the error table of docs/api.md "Errors", each a test of its own:
//! each answer has the one error shape (checked by `assert_error`), HEAD gets
//! the same status and headers without a body, and the checks run in the
//! docs/api.md's order (401, 404 not_found, 405, 400, 403, 404 area_not_found),
//! shown by requests that fail two checks at once (`check_order`). The errors
//! that need a server of their own or a large request (500, 414, 431, 503,
//! 429): tests/errors_outside_the_table.rs.

use std::sync::OnceLock;
use std::time::Duration;

use crate::common::client::get;
use crate::common::wait::within;
use crate::common::{Plan, assert_error, assert_headers_of_error, spawn_app};
use area_scoring::access::{key_file, keys};

/// Who a request claims to be.
#[derive(Clone, Copy)]
enum Who {
    Nobody,
    Header(&'static str),
    Key(Plan),
    Revoked,
}

/// One row of the table: the request and the error it must get.
struct Case {
    why: &'static str,
    method: &'static str,
    target: &'static str,
    who: Who,
    status: u16,
    code: &'static str,
    param: Option<&'static str>,
}

use Who::*;
const G: Who = Key(Plan::Growth);
const FREE: Who = Key(Plan::Free);
const MISSING: &str = "missing_api_key";
const INVALID_KEY: &str = "invalid_api_key";
const UPGRADE: &str = "plan_upgrade_required";
const BAD: &str = "invalid_parameter";
const NO_AREA: &str = "area_not_found";
const NO_PATH: &str = "not_found";
const METHOD: &str = "method_not_allowed";

/// One test per row: `name => (why, method, target, who, status, code, param)`.
macro_rules! rows {
    ($($name:ident => ($why:expr, $method:expr, $target:expr, $who:expr, $status:expr, $code:expr, $param:expr),)*) => {
        $(
            #[test]
            fn $name() {
                check(&Case { why: $why, method: $method, target: $target, who: $who, status: $status, code: $code, param: $param });
            }
        )*
    };
}

mod missing_api_key {
    //! 401 missing_api_key: no header, or not `Bearer <key>`.
    use super::*;

    rows! {
        no_authorization => ("no Authorization", "GET", "/v1/areas", Nobody, 401, MISSING, None),
        another_scheme => ("another scheme", "GET", "/v1/areas", Header("Basic dXNlcjpwYXNz"), 401, MISSING, None),
        bearer_and_nothing => ("Bearer and nothing", "GET", "/v1/areas", Header("Bearer"), 401, MISSING, None),
        bearer_and_spaces => ("Bearer and spaces", "GET", "/v1/areas", Header("Bearer    "), 401, MISSING, None),
        a_key_without_its_scheme => ("a key without its scheme", "GET", "/v1/areas", Header("ask_0123456789abcdef0123456789abcdef0123456789abcdef"), 401, MISSING, None),
    }
}

mod invalid_api_key {
    //! 401 invalid_api_key: unknown or revoked.
    use super::*;

    rows! {
        an_unknown_key => ("an unknown key", "GET", "/v1/areas", Header("Bearer ask_0123456789abcdef0123456789abcdef0123456789abcdef"), 401, INVALID_KEY, None),
        a_revoked_key => ("a revoked key", "GET", "/v1/areas", Revoked, 401, INVALID_KEY, None),
    }
}

mod plan_upgrade_required {
    //! 403: history on free or starter, on the endpoint or through include.
    use super::*;

    rows! {
        history_on_free => ("history on free", "GET", "/v1/areas/aberdeen/history", FREE, 403, UPGRADE, None),
        include_history_on_starter => ("include=history on starter", "GET", "/v1/areas/aberdeen?include=history", Key(Plan::Starter), 403, UPGRADE, Some("include")),
    }
}

mod invalid_parameter {
    //! 400: out of bounds, wrong type, unknown value, given twice, not a parameter.
    use super::*;

    rows! {
        out_of_bounds => ("out of bounds", "GET", "/v1/areas?limit=0", G, 400, BAD, Some("limit")),
        wrong_type => ("wrong type", "GET", "/v1/areas?limit=ten", G, 400, BAD, Some("limit")),
        unknown_value => ("unknown value", "GET", "/v1/areas?sort=rating", G, 400, BAD, Some("sort")),
        given_twice => ("given twice", "GET", "/v1/areas?order=asc&order=asc", G, 400, BAD, Some("order")),
        not_a_parameter_of_list => ("not a parameter of list", "GET", "/v1/areas?colour=red", G, 400, BAD, Some("colour")),
        not_a_parameter_of_get => ("not a parameter of get", "GET", "/v1/areas/aberdeen?limit=5", G, 400, BAD, Some("limit")),
        not_a_parameter_of_search => ("not a parameter of search", "GET", "/v1/areas/search?q=cape&page=2", G, 400, BAD, Some("page")),
        not_a_parameter_of_compare => ("not a parameter of compare", "GET", "/v1/areas/compare?ids=aberdeen,alberton&limit=5", G, 400, BAD, Some("limit")),
        not_a_parameter_of_history => ("not a parameter of history", "GET", "/v1/areas/aberdeen/history?limit=5", G, 400, BAD, Some("limit")),
        bad_percent_escape => ("bad percent-escape", "GET", "/v1/areas/search?q=%zz", G, 400, BAD, Some("q")),
    }
}

mod area_not_found {
    //! 404 area_not_found on each endpoint that names areas.
    use super::*;

    rows! {
        unknown_area => ("unknown area", "GET", "/v1/areas/no-such-area", G, 404, NO_AREA, None),
        unknown_areas_history => ("unknown area's history", "GET", "/v1/areas/no-such-area/history", G, 404, NO_AREA, None),
        unknown_area_in_compare => ("unknown area in compare", "GET", "/v1/areas/compare?ids=aberdeen,no-such-area", G, 404, NO_AREA, None),
    }
}

mod not_found {
    //! 404 not_found: paths outside the API.
    use super::*;

    rows! {
        outside_the_pages => ("outside the pages", "GET", "/index.html", G, 404, NO_PATH, None),
        another_version => ("another version", "GET", "/v2/areas", G, 404, NO_PATH, None),
        trailing_slash => ("trailing slash", "GET", "/v1/areas/", G, 404, NO_PATH, None),
        below_history => ("below history", "GET", "/v1/areas/aberdeen/history/x", G, 404, NO_PATH, None),
        an_unknown_sub_resource => ("an unknown sub-resource", "GET", "/v1/areas/aberdeen/scores", G, 404, NO_PATH, None),
        a_longer_prefix => ("a longer prefix", "GET", "/v1/areasx", G, 404, NO_PATH, None),
        paths_are_case_sensitive => ("paths are case-sensitive", "GET", "/V1/AREAS", G, 404, NO_PATH, None),
    }
}

mod method_not_allowed {
    //! 405: any method but GET and HEAD, on every route.
    use super::*;

    rows! {
        post => ("POST", "POST", "/v1/areas", G, 405, METHOD, None),
        put => ("PUT", "PUT", "/v1/areas/aberdeen", G, 405, METHOD, None),
        delete => ("DELETE", "DELETE", "/v1/areas/aberdeen", G, 405, METHOD, None),
        patch => ("PATCH", "PATCH", "/v1/areas/aberdeen/history", G, 405, METHOD, None),
        an_invented_method => ("an invented method", "FROBNICATE", "/v1/areas/search?q=cape", G, 405, METHOD, None),
        methods_are_case_sensitive => ("methods are case-sensitive", "get", "/v1/areas/compare?ids=aberdeen,alberton", G, 405, METHOD, None),
    }
}

mod check_order {
    //! The order of checks: the first that fails answers. Each request fails
    //! two checks at once.
    use super::*;

    rows! {
        key_before_path => ("401 before 404 not_found", "GET", "/nowhere", Nobody, 401, MISSING, None),
        key_before_method => ("401 before 405", "DELETE", "/v1/areas", Header("Bearer nope"), 401, INVALID_KEY, None),
        key_before_parameters => ("401 before 400", "GET", "/v1/areas?limit=0", Nobody, 401, MISSING, None),
        path_before_method => ("404 not_found before 405", "POST", "/nowhere", G, 404, NO_PATH, None),
        method_before_parameters => ("405 before 400", "POST", "/v1/areas?limit=0", G, 405, METHOD, None),
        parameters_before_plan => ("400 before 403", "GET", "/v1/areas/no-such-area/history?period=2d", FREE, 400, BAD, Some("period")),
        parameters_before_plan_via_include => ("400 before 403 via include", "GET", "/v1/areas/aberdeen?include=history,bogus", FREE, 400, BAD, Some("include")),
        plan_before_area => ("403 before 404 area_not_found", "GET", "/v1/areas/no-such-area/history", FREE, 403, UPGRADE, None),
        plan_before_area_via_include => ("403 before 404 via include", "GET", "/v1/areas/no-such-area?include=history", Key(Plan::Starter), 403, UPGRADE, Some("include")),
        parameters_before_area => ("400 before 404 area_not_found", "GET", "/v1/areas/no-such-area?include=bogus", G, 400, BAD, Some("include")),
        parameters_before_area_in_compare => ("400 before 404 in compare", "GET", "/v1/areas/compare?ids=no-such-area,lemuria&dimensions=weather", G, 400, BAD, Some("dimensions")),
        plan_passes_then_area => ("plan passes, then area", "GET", "/v1/areas/no-such-area?include=history", Key(Plan::Enterprise), 404, NO_AREA, None),
    }
}

/// A key of the shared server's database, revoked; made once per binary.
/// A server may have read the key while it was live (its first request, or
/// another test's unknown key, reads a changed keys file at once), and
/// then refuses it from its next look at the file, within the second the
/// docs/api.md promises: the key is handed out once refused.
fn revoked_key() -> &'static str {
    static KEY: OnceLock<String> = OnceLock::new();
    KEY.get_or_init(|| {
        let app = spawn_app();
        let keys_file = crate::common::keys_path(&app.db);
        let (id, key) = crate::common::new_key(&app.db, Plan::Enterprise);
        key_file::change(&keys_file, |conn| keys::revoke(conn, &id)).unwrap();
        within(Duration::from_secs(3), || {
            (get(app.addr, "/v1/key", Some(&key)).status == 401).then_some(())
        })
        .expect("a revoked key is refused within 3 s");
        key
    })
}

fn authorization(who: Who) -> Option<Vec<u8>> {
    match who {
        Nobody => None,
        Header(h) => Some(h.as_bytes().to_vec()),
        Key(p) => Some(spawn_app().bearer(p)),
        Revoked => Some(format!("Bearer {}", revoked_key()).into_bytes()),
    }
}

/// Sends the row's request (and, for a GET, the same as HEAD) to the shared
/// server and checks the error it gets.
fn check(c: &Case) {
    let app = spawn_app();
    let auth = authorization(c.who);
    let headers: Vec<(&str, &[u8])> = auth
        .iter()
        .map(|a| ("Authorization", a.as_slice()))
        .collect();
    let what = format!("{} ({} {})", c.why, c.method, c.target);
    let reply = app.send(c.method, c.target.as_bytes(), &headers);
    assert_eq!(reply.status, c.status, "{what}: {}", reply.text());
    let message = assert_error(&reply, c.status, c.code, c.param);
    if let Some(param) = c.param {
        // The message says what was wrong: it names the parameter or its value.
        let value = c
            .target
            .split(['?', '&'])
            .find_map(|kv| kv.strip_prefix(&format!("{param}=")[..]));
        let named = message.contains(param)
            || value.is_some_and(|v| message.contains(v.split(',').next_back().unwrap()));
        assert!(
            named,
            "{what}: the message names {param} or its value: {message}"
        );
    }
    if c.code == NO_AREA {
        assert!(
            message.contains("no-such-area"),
            "{what}: the message names the id: {message}"
        );
    }
    if c.method == "GET" {
        // HEAD: the same status and headers, no body (the client refuses one).
        let head = app.send("HEAD", c.target.as_bytes(), &headers);
        assert_headers_of_error(&head, c.status);
        assert_eq!(
            head.header("Content-Length"),
            reply.header("Content-Length"),
            "{what}"
        );
    }
}

mod fields_for_code {
    //! The fields beside the message that a client's code acts on.
    use super::*;
    use serde_json::{Value, json};

    fn error_of(target: &str, plan: Plan) -> Value {
        let app = spawn_app();
        app.get_as(plan, target).json()["error"].clone()
    }

    #[test]
    fn a_plan_refusal_names_the_plan_needed_the_plan_held_and_the_parameter() {
        let e = error_of("/v1/areas/aberdeen?include=nearby,history", Plan::Free);
        assert_eq!(
            (&e["required_plan"], &e["plan"], &e["param"]),
            (&json!("growth"), &json!("free"), &json!("include")),
            "{e}"
        );
        let e = error_of("/v1/areas/aberdeen/history", Plan::Starter);
        assert_eq!(
            (&e["required_plan"], &e["plan"]),
            (&json!("growth"), &json!("starter"))
        );
        assert_eq!(e.get("param"), None, "no parameter asked for it: {e}");
        let e = error_of("/v1/areas/export", Plan::Free);
        assert_eq!(
            (&e["required_plan"], &e["plan"]),
            (&json!("growth"), &json!("free"))
        );
    }

    #[test]
    fn compare_lists_its_unknown_ids_in_the_order_asked() {
        let e = error_of(
            "/v1/areas/compare?ids=lemuria,aberdeen,narnia",
            Plan::Growth,
        );
        assert_eq!(e["code"], "area_not_found");
        assert_eq!(e["ids"], json!(["lemuria", "narnia"]), "{e}");
        let e = error_of("/v1/areas/no-such-area", Plan::Growth);
        assert_eq!(e["ids"], json!(["no-such-area"]), "{e}");
    }

    #[test]
    fn a_value_outside_a_set_lists_the_set() {
        let cases = [
            (
                "/v1/areas?sort=rating",
                "sort",
                json!(["name", "truth_score", "updated_at"]),
            ),
            (
                "/v1/areas?province=narnia",
                "province",
                json!(area_scoring::domain::PROVINCES.map(|(slug, _)| slug)),
            ),
            (
                "/v1/areas/aberdeen?include=neighbours",
                "include",
                json!(["history", "nearby", "boundary", "rank"]),
            ),
            (
                "/v1/areas/search?q=x&match=fuzzy",
                "match",
                json!(["forgiving", "exact"]),
            ),
            (
                "/v1/areas?colour=red",
                "colour",
                json!([
                    "province", "limit", "offset", "sort", "order", "ids", "format"
                ]),
            ),
        ];
        for (target, param, allowed) in cases {
            let e = error_of(target, Plan::Growth);
            assert_eq!(e["param"], param, "{target}: {e}");
            assert_eq!(e["allowed"], allowed, "{target}: {e}");
        }
        // A number out of bounds is no set: no list.
        assert_eq!(
            error_of("/v1/areas?limit=0", Plan::Growth).get("allowed"),
            None
        );
    }
}
