//! Reading Export Areas' answers: the flat objects of an export in any of
//! its formats (JSON, NDJSON, CSV, GeoJSON), each format's framing checked
//! on the way, as the JSON export writes them.

use serde_json::{Map, Value, json};

use super::client::Reply;

pub const CSV_HEADER: &str = "id,name,province,province_slug,municipality,truth_score,updated_at,lat,lng,\
    safety,infrastructure,service_delivery,market,amenities,environment,sentiment";

/// The flat objects of an export in any format, in the order served, as
/// the JSON export writes them (numbers from CSV parsed, empty cells null).
pub fn items(reply: &Reply, format: &str) -> Vec<Value> {
    match format {
        "json" => {
            let body = reply.json();
            let keys: Vec<&String> = body.as_object().unwrap().keys().collect();
            assert_eq!(keys, ["data", "total"], "{body}");
            let data = body["data"].as_array().unwrap().clone();
            assert_eq!(body["total"], json!(data.len()));
            data
        }
        "ndjson" => {
            let text = reply.text();
            assert!(text.is_empty() || text.ends_with('\n'), "each line ends");
            text.lines()
                .map(|l| serde_json::from_str(l).expect("a JSON line"))
                .collect()
        }
        "csv" => {
            assert_eq!(reply.text().split("\r\n").next(), Some(CSV_HEADER));
            let mut reader = csv::Reader::from_reader(reply.body.as_slice());
            let names: Vec<String> = reader.headers().unwrap().iter().map(String::from).collect();
            reader
                .records()
                .map(|r| {
                    let r = r.expect("a CSV record");
                    let cell = |i: usize, name: &str| match (name, &r[i]) {
                        (
                            "id" | "name" | "province" | "province_slug" | "municipality"
                            | "updated_at",
                            s,
                        ) => json!(s),
                        (_, "") => Value::Null,
                        (_, s) => json!(s.parse::<f64>().expect("a number")),
                    };
                    let map: Map<String, Value> = names
                        .iter()
                        .enumerate()
                        .map(|(i, n)| (n.clone(), cell(i, n)))
                        .collect();
                    Value::Object(map)
                })
                .collect()
        }
        _ => {
            let body = reply.json();
            assert_eq!(body["type"], "FeatureCollection");
            let features = body["features"].as_array().unwrap();
            assert_eq!(body["total"], json!(features.len()));
            features
                .iter()
                .map(|f| {
                    assert_eq!(
                        (&f["type"], &f["id"]),
                        (&json!("Feature"), &f["properties"]["id"])
                    );
                    assert_eq!(f["geometry"]["type"], "Point");
                    let point = f["geometry"]["coordinates"].as_array().unwrap();
                    let mut item = f["properties"].as_object().unwrap().clone();
                    assert!(!item.contains_key("lat") && !item.contains_key("lng"));
                    item.insert("lat".into(), point[1].clone());
                    item.insert("lng".into(), point[0].clone());
                    Value::Object(item)
                })
                .collect()
        }
    }
}
