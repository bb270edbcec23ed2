//! Reading the API's JSON answers: the `data` array of a page and its ids, an
//! object's key names, an area's coordinates, the points of a history, and the
//! `total` of List Areas as a client hammering the server sees it.

use std::collections::BTreeSet;
use std::net::SocketAddr;

use serde_json::Value;

use super::client::{exchange, get_request};

/// The `data` array of a page (List Areas, Search Areas).
pub fn data(page: &Value) -> &Vec<Value> {
    page["data"].as_array().expect("data")
}

/// The ids of a page's `data`, in the order served.
pub fn ids(page: &Value) -> Vec<&str> {
    data(page)
        .iter()
        .map(|a| a["id"].as_str().unwrap())
        .collect()
}

/// The key names of a JSON object.
pub fn keys(v: &Value) -> BTreeSet<String> {
    v.as_object().expect("an object").keys().cloned().collect()
}

/// The key names of a JSON object, borrowed from it.
pub fn key_set(v: &Value) -> BTreeSet<&str> {
    v.as_object()
        .expect("an object")
        .keys()
        .map(String::as_str)
        .collect()
}

/// The (lat, lng) of an area in detail form.
pub fn coordinates(detail: &Value) -> (f64, f64) {
    let c = &detail["coordinates"];
    (c["lat"].as_f64().unwrap(), c["lng"].as_f64().unwrap())
}

/// The (date, truth_score) points of a history body, oldest first.
pub fn points(body: &Value) -> Vec<(String, f64)> {
    body["history"]
        .as_array()
        .expect("history")
        .iter()
        .map(|p| {
            (
                p["date"].as_str().unwrap().to_string(),
                p["truth_score"].as_f64().unwrap(),
            )
        })
        .collect()
}

/// The `total` List Areas reports, or why there is none (no answer, or not
/// a 200): for tests that count failed requests rather than stop at one.
pub fn list_total(addr: SocketAddr, key: &str) -> Result<u64, String> {
    let r = exchange(
        addr,
        &get_request(
            "/v1/areas?limit=3",
            &[format!("Authorization: Bearer {key}")],
        ),
    )
    .map_err(|e| e.to_string())?;
    if r.status != 200 {
        return Err(format!("{} {}", r.status, r.text()));
    }
    r.json()["total"].as_u64().ok_or("no total".into())
}
