//! List Areas with `ids=`: the areas asked for in the order given, 1 to 100
//! of them, `missing` naming the ids not answered (unknown, malformed, or
//! of another province than `province`), duplicates and paging refused, in
//! JSON, CSV (`X-Missing-Ids`) and GeoJSON (a foreign member).

use serde_json::{Value, json};

use crate::common::{assert_invalid, encode, ids, spawn_app};

/// `n` listed ids, spread over the seed and not in List's order.
fn spread(listed: &[Value], n: usize) -> Vec<&str> {
    let mut picked: Vec<&str> = (0..n)
        .map(|i| listed[(i * 37 + 11) % listed.len()]["id"].as_str().unwrap())
        .collect();
    picked.reverse();
    picked
}

fn target(path: &str, ids: &[&str], more: &str) -> String {
    let ids: Vec<String> = ids.iter().map(|id| encode(id)).collect();
    format!("{path}?ids={}{more}", ids.join(","))
}

#[test]
fn ids_come_back_in_the_order_given_up_to_100() {
    let app = spawn_app();
    let listed = app.listed();
    for n in [1, 2, 37, 100] {
        let asked = spread(listed, n);
        let reply = app.get(&target("/v1/areas", &asked, ""));
        assert_eq!(reply.status, 200, "{}", reply.text());
        let page = reply.json();
        assert_eq!(ids(&page), asked, "{n} ids in the order given");
        assert_eq!(
            (
                &page["total"],
                &page["limit"],
                &page["offset"],
                &page["missing"]
            ),
            (&json!(n), &json!(n), &json!(0), &json!([]))
        );
        for row in page["data"].as_array().unwrap() {
            let same = listed.iter().find(|a| a["id"] == row["id"]).unwrap();
            assert_eq!(row, same, "the list form, as List pages it");
        }
        assert_eq!(reply.header("X-Total-Count"), Some(n.to_string().as_str()));
        assert_eq!(reply.header("X-Missing-Ids"), Some(""));
        assert_eq!(reply.header("Link"), None, "one page: nothing to link");
    }
}

#[test]
fn more_than_100_ids_duplicates_and_empty_items_are_refused() {
    let app = spawn_app();
    let listed = app.listed();
    let many = spread(listed, 101);
    let msg = assert_invalid(&app.get(&target("/v1/areas", &many, "")), &["ids"]);
    assert!(msg.contains("100"), "says the bound: {msg}");
    // 101 unknown ids are refused as well: counted before they are looked up.
    let unknown: Vec<String> = (0..101).map(|i| format!("nope-{i}")).collect();
    let unknown: Vec<&str> = unknown.iter().map(String::as_str).collect();
    assert_invalid(&app.get(&target("/v1/areas", &unknown, "")), &["ids"]);
    let (a, b) = (many[0], many[1]);
    for bad in [
        format!("{a},{b},{a}"),
        format!("{a},{a}"),
        format!("{a},,{b}"),
        format!("{a},"),
        format!(",{a}"),
        String::new(),
    ] {
        let msg = assert_invalid(&app.get(&format!("/v1/areas?ids={bad}")), &["ids"]);
        assert!(!msg.is_empty());
    }
    assert_invalid(&app.get(&format!("/v1/areas?ids={a}&ids={b}")), &["ids"]);
}

#[test]
fn paging_and_sorting_are_refused_with_ids() {
    let app = spawn_app();
    let id = app.listed()[0]["id"].as_str().unwrap();
    for (param, value) in [
        ("limit", "5"),
        ("offset", "0"),
        ("sort", "name"),
        ("order", "asc"),
        ("limit", "abc"),
    ] {
        for path in ["/v1/areas", "/v1/areas.csv", "/v1/areas.geojson"] {
            let reply = app.get(&format!("{path}?ids={id}&{param}={value}"));
            let msg = assert_invalid(&reply, &[param]);
            assert!(msg.contains("ids"), "{path} {param}: {msg}");
        }
    }
    // Without ids they are List's as ever.
    assert_eq!(app.get("/v1/areas?limit=5&sort=name").status, 200);
}

#[test]
fn unknown_and_malformed_ids_are_missing_in_the_order_given() {
    let app = spawn_app();
    let listed = app.listed();
    let (a, b) = (
        listed[5]["id"].as_str().unwrap(),
        listed[700]["id"].as_str().unwrap(),
    );
    let asked = ["no-such-area", b, "Not An Id!", a, "zzz", &a.to_uppercase()];
    let upper = a.to_uppercase();
    let reply = app.get(&target("/v1/areas", &asked, ""));
    assert_eq!(reply.status, 200, "{}", reply.text());
    let page = reply.json();
    assert_eq!(ids(&page), [b, a]);
    assert_eq!(
        page["missing"],
        json!(["no-such-area", "Not An Id!", "zzz", upper])
    );
    assert_eq!((&page["total"], &page["limit"]), (&json!(2), &json!(6)));
    assert_eq!(reply.header("X-Total-Count"), Some("2"));
    assert_eq!(
        reply.header("X-Missing-Ids"),
        Some(format!("no-such-area,Not%20An%20Id%21,zzz,{upper}").as_str()),
        "percent-encoded, so no id can break the list or the header"
    );
    // A comma cannot hide in an id's encoding: it ends the item.
    let reply = app.get(&format!("/v1/areas?ids={a}%2Cb%0D%0AX-Evil:1"));
    assert_eq!(reply.status, 200);
    assert_eq!(reply.json()["missing"], json!(["b\r\nX-Evil:1"]));
    assert_eq!(reply.header("X-Missing-Ids"), Some("b%0D%0AX-Evil%3A1"));
    assert_eq!(reply.header("X-Evil"), None);
    // Nothing found is an empty page, not a 404.
    let none = app.ok("/v1/areas?ids=nope-1,nope-2");
    assert_eq!(
        (&none["data"], &none["missing"], &none["total"]),
        (&json!([]), &json!(["nope-1", "nope-2"]), &json!(0))
    );
}

#[test]
fn province_still_filters_and_the_others_are_missing() {
    let app = spawn_app();
    let listed = app.listed();
    let of = |slug: &str| -> Vec<&str> {
        listed
            .iter()
            .filter(|a| a["province_slug"] == slug)
            .take(3)
            .map(|a| a["id"].as_str().unwrap())
            .collect()
    };
    let (gauteng, cape) = (of("gauteng"), of("western-cape"));
    let asked = [cape[0], gauteng[0], cape[1], gauteng[1], "nope", gauteng[2]];
    let page = app.ok(&target("/v1/areas", &asked, "&province=gauteng"));
    assert_eq!(ids(&page), [gauteng[0], gauteng[1], gauteng[2]]);
    assert_eq!(page["missing"], json!([cape[0], cape[1], "nope"]));
    assert_eq!(page["total"], 3);
    let all = app.ok(&target("/v1/areas", &asked, ""));
    assert_eq!(ids(&all).len(), 5);
    assert_invalid(
        &app.get(&target("/v1/areas", &asked, "&province=atlantis")),
        &["province"],
    );
}

#[test]
fn csv_and_geojson_take_ids_in_the_order_given() {
    let app = spawn_app();
    let listed = app.listed();
    let asked = spread(listed, 12);
    let mut with_unknown = asked.clone();
    with_unknown.insert(3, "no-such-area");
    let json_page = app.ok(&target("/v1/areas", &with_unknown, ""));

    let csv = app.get(&target("/v1/areas.csv", &with_unknown, ""));
    assert_eq!(csv.status, 200, "{}", csv.text());
    let mut reader = csv::Reader::from_reader(csv.body.as_slice());
    let header: Vec<String> = reader.headers().unwrap().iter().map(String::from).collect();
    assert_eq!(header[..4], ["id", "name", "province", "province_slug"]);
    let rows: Vec<csv::StringRecord> = reader.records().map(Result::unwrap).collect();
    let served: Vec<&str> = rows.iter().map(|r| &r[0]).collect();
    assert_eq!(served, asked);
    assert_eq!(csv.header("X-Missing-Ids"), Some("no-such-area"));
    assert_eq!(csv.header("X-Total-Count"), Some("12"));
    assert_eq!(csv.header("Link"), None);
    let deprecated = app.get(&target("/v1/areas", &with_unknown, "&format=csv"));
    assert_eq!(
        deprecated.body, csv.body,
        "format=csv answers the .csv path's bytes"
    );

    let geo = app.get(&target("/v1/areas.geojson", &with_unknown, ""));
    assert_eq!(geo.status, 200, "{}", geo.text());
    let collection = geo.json();
    let features = collection["features"].as_array().unwrap();
    let served: Vec<&str> = features.iter().map(|f| f["id"].as_str().unwrap()).collect();
    assert_eq!(served, asked);
    for (feature, row) in features.iter().zip(json_page["data"].as_array().unwrap()) {
        assert_eq!(
            &feature["properties"], row,
            "the properties are the list form"
        );
    }
    assert_eq!(
        (
            &collection["missing"],
            &collection["total"],
            &collection["limit"],
            &collection["offset"]
        ),
        (&json!(["no-such-area"]), &json!(12), &json!(13), &json!(0))
    );
    assert_eq!(geo.header("X-Missing-Ids"), Some("no-such-area"));
    let bounded = app.get(&target(
        "/v1/areas.geojson",
        &asked,
        "&geometry=boundary&simplify=250",
    ));
    assert_eq!(bounded.status, 200, "{}", bounded.text());
    let features = bounded.json()["features"].as_array().unwrap().clone();
    assert_eq!(features.len(), asked.len());
    for (f, id) in features.iter().zip(&asked) {
        assert_eq!(f["id"], *id);
        assert_eq!(
            f["geometry"]["type"], "MultiPolygon",
            "{id}: the seed's boundary"
        );
    }
}
