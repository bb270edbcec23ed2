//! Accept-Encoding read with its q-values, and the tag of each coding.

use super::*;

#[test]
fn gzip_when_the_client_takes_it_at_least_as_gladly_as_identity() {
    let gzip = [
        "gzip",
        "GZIP",
        "x-gzip",
        "gzip, deflate",
        "gzip, deflate, br, zstd",
        "deflate, gzip;q=0.5",
        "br;q=1.0, gzip;q=0.8, *;q=0.1",
        "*",
        "identity;q=0.5, gzip;q=0.6",
        "identity;q=0, gzip",
        " gzip ; q=1 ",
        "gzip;Q=0.001",
    ];
    for header in gzip {
        assert_eq!(Coding::preferred(Some(header)), Coding::Gzip, "{header:?}");
    }
    let identity = [
        "",
        "identity",
        "deflate, br",
        "gzip;q=0",
        "gzip;q=0.000",
        "gzip;q=0, *",
        "*;q=0",
        // Identity refused, and gzip not named: identity all the same (never 406).
        "identity;q=0",
        "gzip;q=0.5, identity",
        "gzip;q=0.5, *",
        // A weight that does not parse leaves its coding out.
        "gzip;q=2",
        "gzip;q=-1",
        "gzip;q=0.1234",
        "gzip;q=abc",
        "gzip;q",
        "gzip;q=1.5",
    ];
    for header in identity {
        assert_eq!(
            Coding::preferred(Some(header)),
            Coding::Identity,
            "{header:?}"
        );
    }
    assert_eq!(Coding::preferred(None), Coding::Identity, "no header");
}

#[test]
fn a_short_body_goes_as_it_is() {
    assert_eq!(
        Coding::of_body(Some("gzip"), GZIP_MIN_BYTES - 1),
        Coding::Identity
    );
    assert_eq!(Coding::of_body(Some("gzip"), GZIP_MIN_BYTES), Coding::Gzip);
    assert_eq!(Coding::of_body(None, 1 << 20), Coding::Identity);
}

#[test]
fn each_coding_has_its_own_tag_and_a_client_tag_is_read_back_by_coding() {
    assert_eq!(Coding::Identity.tag("\"0123abcd\""), "\"0123abcd\"");
    assert_eq!(Coding::Gzip.tag("\"0123abcd\""), "\"0123abcd-gzip\"");
    let held = "\"a\", W/\"b-gzip\", \"c-gzip\"";
    assert_eq!(Coding::Gzip.identity_tags(held), "\"b\", \"c\"");
    assert_eq!(Coding::Identity.identity_tags(held), "\"a\"");
    assert_eq!(Coding::Gzip.identity_tags("*"), "*");
    assert_eq!(Coding::Gzip.identity_tags("\"a\""), "");
}
