//! Request ids and the loggable target, value by value.

use super::*;

#[test]
fn echoes_only_safe_request_ids() {
    let ids = RequestIds::new();
    assert_eq!(ids.for_request(Some("abc-123_x.y")), "abc-123_x.y");
    for unsafe_id in ["", "a b", "a\r\nb", "é", &"x".repeat(65)] {
        let made = ids.for_request(Some(unsafe_id));
        assert!(
            made.starts_with("req_") && is_safe_request_id(&made),
            "{unsafe_id:?} -> {made}"
        );
    }
    assert_ne!(ids.for_request(None), ids.for_request(None));
}

#[test]
fn redacts_credentials_in_logged_targets() {
    assert_eq!(
        loggable_target("/v1/areas?api_key=s3cret&limit=5"),
        "/v1/areas?api_key=[redacted]&limit=5"
    );
    assert_eq!(
        loggable_target("/v1/areas?token=x"),
        "/v1/areas?token=[redacted]"
    );
    assert_eq!(loggable_target("/v1/areas\n"), "/v1/areas?");
}
