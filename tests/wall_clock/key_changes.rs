//! `keys revoke` takes effect on a running server within a second, without a
//! restart (docs/operations.md "Keys"), against the real binary. With two servers
//! sharing the keys file: keys_shared.rs.

use std::path::Path;
use std::time::Duration;

use crate::common::bin::{Served, run};
use crate::common::client::get;
use crate::common::wait::within;
use crate::common::{Plan, assert_error_shape, fresh_db, new_key};
use crate::serial;

#[test]
fn a_revoked_key_is_refused_within_a_second_without_restart() {
    let _serial = serial();
    let db = fresh_db("revoke");
    let (id, key) = new_key(&db, Plan::Growth);
    let (_, other) = new_key(&db, Plan::Growth);
    let server = Served::spawn(&db, &[]);
    assert_eq!(get(server.addr, "/v1/areas", Some(&key)).status, 200);
    let out = run(
        &["keys", "revoke", "--db", db.to_str().unwrap(), &id],
        &[],
        Path::new("/"),
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // A second is promised; 3 s allowed for a loaded machine.
    let refused = within(Duration::from_secs(3), || {
        let r = get(server.addr, "/v1/areas", Some(&key));
        (r.status == 401).then_some(r)
    })
    .expect("the revoked key still works after 3 s");
    assert_error_shape(&refused, 401, "invalid_api_key");
    // Only that key: another one on the same plan still works.
    assert_eq!(get(server.addr, "/v1/areas", Some(&other)).status, 200);
}
