//! head.rs's tests: each shape of head, and what the layer makes of it.

use super::*;

fn refused(raw: &str) -> ApiError {
    match parse(raw.as_bytes()) {
        Parsed::Refused(e) => e,
        other => panic!("{raw:?} was {other:?}"),
    }
}

fn head(raw: &str) -> Head {
    match parse(raw.as_bytes()) {
        Parsed::Complete(h, n) => {
            assert_eq!(n, raw.len());
            *h
        }
        other => panic!("{raw:?} was {other:?}"),
    }
}

#[test]
fn versions_other_than_1_x_are_505_and_garbage_is_400() {
    for v in ["HTTP/2.0", "HTTP/3.0", "HTTP/1.7", "HTTP/0.9"] {
        let e = refused(&format!("GET / {v}\r\n\r\n"));
        assert_eq!(e, ApiError::HttpVersionNotSupported, "{v}");
    }
    for raw in [
        "GET / HTXP/1.1\r\n\r\n",
        "GET /healthz\r\n\r\n",
        "\x01\x02\r\n\r\n",
    ] {
        assert_eq!(refused(raw), ApiError::BadRequest, "{raw:?}");
    }
}

#[test]
fn malformed_heads_are_400() {
    for raw in [
        "GET / HTTP/1.1\r\nNoColon\r\n\r\n",
        "GET / HTTP/1.1\r\nA: b\r\n folded\r\n\r\n",
        "GET / HTTP/1.1\r\nAuthorization: a\r\nAuthorization: b\r\n\r\n",
        "GET /\u{e9} HTTP/1.1\r\n\r\n",
        "GET / HTTP/1.1\r\nN\u{e9}: v\r\n\r\n",
    ] {
        assert_eq!(refused(raw), ApiError::BadRequest, "{raw:?}");
    }
}

#[test]
fn a_content_length_that_is_not_all_digits_is_malformed() {
    for value in ["+0", "-0", "+5", "1x", "0x0", "", "1 0", "0,0", "\u{e9}"] {
        let raw = format!("GET / HTTP/1.1\r\nContent-Length: {value}\r\n\r\n");
        assert_eq!(refused(&raw), ApiError::BadRequest, "{raw:?}");
    }
}

#[test]
fn bodies_and_expectations_are_refused() {
    for h in [
        "Content-Length: 5",
        "Transfer-Encoding: chunked",
        "Content-Length: 0\r\nContent-Length: 0",
        "Content-Length: 99999999999",
    ] {
        let e = refused(&format!("GET / HTTP/1.1\r\n{h}\r\n\r\n"));
        assert_eq!(e, ApiError::BodyNotAllowed, "{h}");
    }
    assert_eq!(
        refused("GET / HTTP/1.1\r\nExpect: x\r\n\r\n"),
        ApiError::ExpectationFailed
    );
    head("GET / HTTP/1.1\r\nExpect: 100-continue\r\nContent-Length: 0\r\n\r\n");
    head("GET / HTTP/1.1\r\nContent-Length: 000\r\n\r\n");
}

#[test]
fn an_endless_line_is_414_and_endless_headers_431() {
    let line = format!("GET /{}", "a".repeat(MAX_HEAD_BYTES));
    assert_eq!(refused(&line), ApiError::UriTooLong);
    let headers = format!("GET / HTTP/1.1\r\nX: {}", "a".repeat(MAX_HEAD_BYTES));
    assert_eq!(refused(&headers), ApiError::HeadersTooLarge);
    let many: String = (0..=MAX_HEADER_LINES)
        .map(|i| format!("X{i}: v\r\n"))
        .collect();
    assert_eq!(
        refused(&format!("GET / HTTP/1.1\r\n{many}\r\n")),
        ApiError::HeadersTooLarge
    );
    assert_eq!(parse(b"GET / HTTP/1.1\r\nHost: x\r\n"), Parsed::Partial);
}

#[test]
fn keep_alive_follows_the_version_and_connection() {
    assert!(head("GET / HTTP/1.1\r\n\r\n").keep_alive);
    assert!(!head("GET / HTTP/1.1\r\nConnection: close\r\n\r\n").keep_alive);
    assert!(!head("GET / HTTP/1.0\r\n\r\n").keep_alive);
    assert!(head("GET / HTTP/1.0\r\nConnection: Keep-Alive\r\n\r\n").keep_alive);
}

#[test]
fn non_ascii_values_count_as_absent_and_targets_lose_their_authority() {
    let h = head(
        "GET http://x.example/v1/areas?q=1 HTTP/1.1\r\nX-Request-Id: \u{e9}\r\nAuthorization: Bearer k\r\n\r\n",
    );
    assert_eq!(h.target, "/v1/areas?q=1");
    assert_eq!(h.request_id, None);
    assert_eq!(h.authorization.as_deref(), Some("Bearer k"));
    assert_eq!(head("GET http://x.example HTTP/1.1\r\n\r\n").target, "/");
    assert_eq!(
        head("GET http://x.example?x=1 HTTP/1.1\r\n\r\n").target,
        "/?x=1"
    );
    assert_eq!(
        head("GET HTTPS://x.example:8080?a=1&b=/c HTTP/1.1\r\n\r\n").target,
        "/?a=1&b=/c"
    );
    assert_eq!(
        h.header_bytes,
        "X-Request-Id".len() + 2 + 4 + "Authorization".len() + 8 + 4
    );
}
