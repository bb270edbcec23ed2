//! The parsing rules of docs/api.md "Parameters", sent raw: form-decoding
//! (percent-escapes in names and values, `+` as a space), invalid UTF-8, the
//! integer and number grammars, repeated and unknown parameters, and the Bearer
//! scheme's case.

use crate::common::{Plan, assert_invalid, ids, spawn_app};

#[test]
fn names_and_values_are_percent_decoded_and_plus_is_a_space() {
    let app = spawn_app();
    let five = app.ok("/v1/areas?limit=5");
    for spelled in ["%6Cimit=5", "%6cimit=5", "li%6Dit=%35", "%6C%69%6D%69%74=5"] {
        assert_eq!(app.ok(&format!("/v1/areas?{spelled}")), five, "{spelled}");
    }
    let by_score = app.ok("/v1/areas?sort=truth_score&province=western-cape");
    assert_eq!(
        app.ok("/v1/areas?sort=truth%5Fscore&province=western%2Dcape"),
        by_score
    );
    // `+` and %20 are both a space; %26 is a literal '&' inside a value.
    let cape_town = app.ok("/v1/areas/search?q=cape%20town&limit=50");
    assert!(!ids(&cape_town).is_empty());
    for q in ["cape+town", "+cape++town+", "cape%26town"] {
        assert_eq!(
            app.ok(&format!("/v1/areas/search?q={q}&limit=50")),
            cape_town,
            "q={q}"
        );
    }
    // %2B is a literal '+', which the integer grammar refuses; a raw '+' is a
    // space, which it refuses too.
    assert_invalid(&app.get("/v1/areas?limit=%2B5"), &["limit"]);
    assert_invalid(&app.get("/v1/areas?limit=+5"), &["limit"]);
    // The decoded name is what `param` reports: `+` is a space, %2B a plus.
    assert_invalid(&app.get("/v1/areas?col+our=red"), &["col our"]);
    assert_invalid(&app.get("/v1/areas?col%2Bour=red"), &["col+our"]);
    // A decoded '=' belongs to the name.
    assert_invalid(&app.get("/v1/areas?li%3Dmit=5"), &["li=mit"]);
    // Empty segments are nothing.
    assert_eq!(app.ok("/v1/areas?&&limit=5&"), five);
}

#[test]
fn invalid_utf8_and_broken_escapes_are_400() {
    let app = spawn_app();
    for value in [
        "%FF",
        "%C3",
        "%C3%28",
        "%E2%82",
        "%ED%A0%80",
        "%zz",
        "%4",
        "%",
        "cape%",
    ] {
        assert_invalid(&app.get(&format!("/v1/areas/search?q={value}")), &["q"]);
    }
    // In a name, the parameter cannot be named by its decoded text; it is still 400.
    let reply = app.get("/v1/areas?%FF=1");
    assert_eq!(reply.status, 400);
    assert_eq!(reply.json()["error"]["code"], "invalid_parameter");
}

#[test]
fn raw_bytes_in_the_target_never_take_the_server_down() {
    let app = spawn_app();
    let auth = app.bearer(Plan::Growth);
    for raw in [
        &b"/v1/areas/search?q=\xff"[..],
        b"/v1/areas/search?q=caf\xc3\xa9",
        b"/v1/areas/\x01",
    ] {
        let mut request = b"GET ".to_vec();
        request.extend_from_slice(raw);
        request.extend_from_slice(b" HTTP/1.1\r\nConnection: close\r\nAuthorization: ");
        request.extend_from_slice(&auth);
        request.extend_from_slice(b"\r\n\r\n");
        let answer = crate::common::client::exchange_raw(app.addr, &request).unwrap_or_default();
        // The listener may drop such a request unanswered; if it answers, it
        // refuses it with a 4xx, never a 5xx.
        if !answer.is_empty() {
            let reply = crate::common::client::parse(&answer, false).expect("a readable answer");
            assert!(
                (400..500).contains(&reply.status),
                "{:?}: {}",
                String::from_utf8_lossy(raw),
                reply.status
            );
        }
        assert_eq!(
            app.get("/v1/areas?limit=1").status,
            200,
            "the server still answers"
        );
    }
}

#[test]
fn integers_are_plain_decimal_digits_with_an_optional_minus() {
    let app = spawn_app();
    for bad in [
        "1.0",
        "1e2",
        "1E2",
        "%2B5",
        "0x10",
        "%205",
        "5%20",
        "",
        "%D9%A5",
        "%EF%BC%91",
        "99999999999999999999",
        "5-",
    ] {
        assert_invalid(&app.get(&format!("/v1/areas?limit={bad}")), &["limit"]);
    }
    assert_invalid(&app.get("/v1/areas?limit"), &["limit"]);
    // Leading zeros are still plain digits, and -0 is zero.
    assert_eq!(app.ok("/v1/areas?limit=05")["limit"], 5);
    assert_eq!(app.ok("/v1/areas?limit=1&offset=-0")["offset"], 0);
    assert_invalid(
        &app.get("/v1/areas/search?min_score=0&limit=1.5"),
        &["limit"],
    );
}

/// Numbers are written as JSON writes them, exponents too (generated clients
/// format small floats so: Python writes 0.00001 as 1e-05), never nan or inf.
#[test]
fn numbers_are_decimal_or_exponent_notation_never_nan_or_inf() {
    let app = spawn_app();
    let base = "/v1/areas/search?lat=-33.9&lng=18.4";
    for bad in [
        "nan",
        "NaN",
        "inf",
        "-inf",
        "infinity",
        "Infinity",
        "1e",
        "1e+",
        "e1",
        "+1",
        "1e999",
        "0x1",
        "",
        "1,5",
        "%EF%BC%95",
        "1.5.0",
    ] {
        assert_invalid(&app.get(&format!("{base}&radius={bad}")), &["radius"]);
        assert_invalid(
            &app.get(&format!("/v1/areas/search?min_score={bad}")),
            &["min_score"],
        );
    }
    for bad in ["nan", "inf", "1.81e2", "1e"] {
        assert_invalid(
            &app.get(&format!("/v1/areas/search?lat={bad}&lng=18.4")),
            &["lat"],
        );
        assert_invalid(
            &app.get(&format!("/v1/areas/search?lat=-33.9&lng={bad}")),
            &["lng"],
        );
    }
    for good in ["1.5", "10", "0.25", "0", "1e1", "2.5E-1", "5e%2B0"] {
        let reply = app.get(&format!("/v1/areas/search?min_score={good}"));
        assert_eq!(reply.status, 200, "min_score={good}");
    }
    app.ok(&format!("{base}&radius=12.75"));
    // A radius a generated client formats with an exponent is the same radius.
    let tiny = app.ok(&format!("{base}&radius=1e-05"));
    let plain = app.ok(&format!("{base}&radius=0.00001"));
    assert_eq!(tiny, plain);
    let exp = app.ok("/v1/areas/search?lat=-3.39E1&lng=1.84e1&radius=2.5E1");
    assert_eq!(exp, app.ok(&format!("{base}&radius=25")));
}

#[test]
fn a_parameter_given_twice_is_400_even_when_spelled_differently() {
    let app = spawn_app();
    for (target, param) in [
        ("/v1/areas?limit=1&limit=1", "limit"),
        ("/v1/areas?limit=1&%6Cimit=2", "limit"),
        ("/v1/areas?province=gauteng&province=limpopo", "province"),
        ("/v1/areas/search?q=cape&q=town", "q"),
        (
            "/v1/areas/aberdeen?include=nearby&include=nearby",
            "include",
        ),
        (
            "/v1/areas/compare?ids=aberdeen,alberton&dimensions=safety&dimensions=market",
            "dimensions",
        ),
        (
            "/v1/areas/aberdeen/history?granularity=daily&granularity=daily",
            "granularity",
        ),
    ] {
        let msg = assert_invalid(&app.get(target), &[param]);
        assert!(msg.contains(param), "{target}: {msg}");
    }
}

#[test]
fn an_unknown_parameter_is_400_naming_it_on_every_endpoint() {
    let app = spawn_app();
    for base in [
        "/v1/areas?",
        "/v1/areas/search?q=cape&",
        "/v1/areas/compare?ids=aberdeen,alberton&",
        "/v1/areas/aberdeen?",
        "/v1/areas/aberdeen/history?",
    ] {
        for (given, named) in [
            ("colour=red", "colour"),
            ("col%6Fur=red", "colour"),
            ("Limit=5", "Limit"),
            ("api_key=x", "api_key"),
        ] {
            let msg = assert_invalid(&app.get(&format!("{base}{given}")), &[named]);
            assert!(msg.contains(named), "{base}{given}: {msg}");
        }
    }
}

#[test]
fn the_bearer_scheme_is_case_insensitive() {
    let app = spawn_app();
    let key = app.key(Plan::Growth);
    for scheme in ["Bearer", "bearer", "BEARER", "bEaReR"] {
        let auth = format!("{scheme} {key}");
        let reply = app.send(
            "GET",
            b"/v1/areas?limit=1",
            &[("Authorization", auth.as_bytes())],
        );
        assert_eq!(reply.status, 200, "{scheme}");
    }
    // The key itself is exact.
    let auth = format!("Bearer {}", key.to_uppercase());
    let reply = app.send(
        "GET",
        b"/v1/areas?limit=1",
        &[("Authorization", auth.as_bytes())],
    );
    crate::common::assert_error(&reply, 401, "invalid_api_key", None);
}

#[test]
fn percent_encoded_path_segments_route_like_their_decoded_form() {
    let app = spawn_app();
    // RFC 3986 6.2.2.2: %73 is 's', an unreserved character, so these are the
    // same paths as /v1/areas/search and /v1/areas/aberdeen/history.
    assert_eq!(
        app.ok("/v1/areas/%73earch?q=cape"),
        app.ok("/v1/areas/search?q=cape")
    );
    assert_eq!(
        app.ok("/v1/areas/aberdeen/%68istory"),
        app.ok("/v1/areas/aberdeen/history")
    );
    assert_eq!(app.ok("/v1/%61reas?limit=3"), app.ok("/v1/areas?limit=3"));
}
