//! Each operation's 200: its one representation (List, Search and Export
//! have an operation for each of theirs), with an example written from one
//! area of the seed, and its headers.

use serde_json::{Value, json};

use super::headers::{self, CACHE, COMMON, RATE};
use super::reference;
use super::responses::json_response;
use crate::api::contract::{EXPORT_FORMATS, Format, LIST_FORMATS, format_paths};
use crate::api::render::{self, Columns};

/// A JSON answer that may be cached.
pub fn cached(description: &str, schema: &str, links: Value) -> Value {
    let mut names = [&COMMON[..], &CACHE[..]].concat();
    names.push("Content-Encoding");
    let mut r = json_response(description, schema, headers::set(&names, &RATE));
    r["links"] = links;
    r
}

/// An OpenAPI link: an id from this answer into another operation's area_id.
pub fn link(operation: &str, expression: &str, description: &str) -> Value {
    json!({"operationId": operation, "parameters": {"path.area_id": expression}, "description": description})
}

/// The seed's Cape Town in the list form (search?q=cape+town&limit=1).
fn page_area() -> Value {
    json!({
        "id": "cape-town",
        "name": "Cape Town",
        "province": "Western Cape",
        "province_slug": "western-cape",
        "municipality": "City of Cape Town",
        "truth_score": 5.94,
        "updated_at": "2026-11-22T00:00:00Z",
    })
}

/// The centre of `page_area`.
const PAGE_CENTRE: (f64, f64) = (-33.92584, 18.42322);

/// The CSV header row of `columns`, as the server writes it.
fn csv_header(columns: Columns) -> String {
    let mut out = Vec::new();
    render::csv_header(&mut out, columns);
    String::from_utf8(out).expect("the header row is text")
}

/// A CSV cell of an example's value.
fn cell(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        Value::Null => String::new(),
        other => other.to_string(),
    }
}

fn csv_schema(columns: Columns, optional: Option<&str>) -> Value {
    let header = csv_header(columns);
    let header = header.trim_end();
    let extra = optional.map_or(String::new(), |c| format!("(?:,{c})?"));
    let also = optional.map_or(String::new(), |c| {
        format!(" ({c} only when lat and lng are given)")
    });
    json!({
        "type": "string",
        "pattern": format!("^{header}{extra}\r\n"),
        "description": format!("RFC 4180 CSV in UTF-8 with CRLF line ends: a header row {header}{also}, then one row per area; fields holding a comma, a quote or a line break are quoted, quotes doubled."),
    })
}

/// A GeoJSON path's collection: of Points, or with geometry=boundary of
/// boundaries. anyOf, since a collection without features is both.
fn either(points: &str, boundaries: &str) -> Value {
    json!({"anyOf": [reference("schemas", points), reference("schemas", boundaries)]})
}

fn media(schema: Value, example: Value) -> Value {
    json!({"schema": schema, "example": example})
}

fn feature(area: &Value, properties: Value, (lat, lng): (f64, f64)) -> Value {
    json!({"type": "Feature", "id": area["id"], "geometry": {"type": "Point", "coordinates": [lng, lat]}, "properties": properties})
}

/// A 200's description: what it holds, and in what format. At the JSON
/// path `format=` and Accept may still ask for the others, whose answers
/// their own paths' operations describe; `path` is the endpoint's.
fn described(description: &str, format: Format, path: &str, offered: &[Format]) -> String {
    if format != Format::Json {
        return format!(
            "{description} As {} ({}), whatever Accept says.",
            title(format),
            format.media_type()
        );
    }
    let others: Vec<String> = format_paths(offered)
        .map(|f| format!("{} ({path}.{})", title(f), f.extension()))
        .collect();
    format!(
        "{description} As JSON. format= or Accept may ask this path for another representation, as clients written before each had a path of its own do: {}. The answer is then that path's, which its own operation describes.",
        others.join(", ")
    )
}

/// A format's name in prose, and in the operationIds of its paths.
pub fn title(format: Format) -> &'static str {
    match format {
        Format::Json => "JSON",
        Format::GeoJson => "GeoJSON",
        Format::Csv => "CSV",
        Format::NdJson => "NDJSON",
    }
}

/// The Vary header of a list's answer: Accept is named at the JSON path,
/// where it may choose.
fn vary(format: Format) -> &'static str {
    if format == Format::Json {
        "Vary-Negotiated"
    } else {
        "Vary"
    }
}

/// A page of List or Search in `format` (one of `LIST_FORMATS`), with its
/// paging headers; `links` go with JSON only, whose body they point into.
pub fn page(
    (description, path): (&str, &str),
    schemas: [&str; 3],
    links: Value,
    csv_optional: Option<&str>,
    item_extra: Option<Value>,
    format: Format,
) -> Value {
    let list = Columns {
        distance: false,
        coordinates: true,
        dimensions: false,
    };
    let mut area = page_area();
    let mut row = page_area();
    row["lat"] = json!(PAGE_CENTRE.0);
    row["lng"] = json!(PAGE_CENTRE.1);
    if let Some(Value::Object(extra)) = item_extra {
        area.as_object_mut().expect("an area").extend(extra);
    }
    let header = csv_header(list);
    let cells: Vec<String> = row.as_object().expect("a row").values().map(cell).collect();
    let pages = json!({"total": 25, "limit": 1, "offset": 0});
    let mut json_page = json!({"data": [area]});
    let mut collection = json!({"type": "FeatureCollection", "features": [feature(&area, area.clone(), PAGE_CENTRE)]});
    for (k, v) in pages.as_object().expect("paging") {
        json_page[k] = v.clone();
        collection[k] = v.clone();
    }
    let m = match format {
        Format::GeoJson => media(either(schemas[1], schemas[2]), collection),
        Format::Csv => media(
            csv_schema(list, csv_optional),
            json!(format!("{header}{}\r\n", cells.join(","))),
        ),
        _ => media(reference("schemas", schemas[0]), json_page),
    };
    let names = [
        &COMMON[..],
        &[
            "ETag",
            "Cache-Control",
            vary(format),
            "Content-Encoding",
            "Link",
            "X-Total-Count",
        ],
    ]
    .concat();
    let mut ok = json!({
        "description": described(description, format, path, &LIST_FORMATS),
        "headers": headers::set(&names, &RATE),
        "content": {format.media_type(): m},
    });
    if format == Format::Json {
        ok["links"] = links;
    }
    ok
}

/// A List page's headers: an answer to ids= is one page, with no Link and
/// with X-Missing-Ids.
pub fn by_ids(mut ok: Value) -> Value {
    ok["headers"]["Link"] = reference("headers", "Link-optional");
    ok["headers"]["X-Missing-Ids"] = reference("headers", "X-Missing-Ids-optional");
    ok
}

/// The seed's Aberdeen, as the export writes it (dated, as docs/api.md's
/// examples are, by an init on 2026-11-22).
fn export_area() -> Value {
    json!({
        "id": "aberdeen",
        "name": "Aberdeen",
        "province": "Eastern Cape",
        "province_slug": "eastern-cape",
        "municipality": "Sarah Baartman District Municipality",
        "truth_score": 4.31,
        "updated_at": "2026-11-22T00:00:00Z",
        "lat": -32.47588,
        "lng": 24.06525,
        "safety": 2.8,
        "infrastructure": 4.3,
        "service_delivery": 3.6,
        "market": 5.9,
        "amenities": 3.1,
        "environment": 6.0,
        "sentiment": 6.2,
    })
}

/// The export's 200 in `format`, one of `EXPORT_FORMATS`.
pub fn export(format: Format) -> Value {
    let columns = Columns {
        distance: false,
        coordinates: true,
        dimensions: true,
    };
    let area = export_area();
    let cells: Vec<String> = area
        .as_object()
        .expect("a row")
        .values()
        .map(cell)
        .collect();
    let mut properties = area.clone();
    let members = properties.as_object_mut().expect("a row");
    members.shift_remove("lat");
    members.shift_remove("lng");
    let centre = (
        area["lat"].as_f64().unwrap_or(0.0),
        area["lng"].as_f64().unwrap_or(0.0),
    );
    let m = match format {
        Format::Json => media(
            reference("schemas", "ExportPage"),
            json!({"data": [area], "total": 1}),
        ),
        Format::NdJson => media(
            json!({"type": "string", "description": "One ExportArea object a line, each line ended by a newline; no total."}),
            json!(format!("{area}\n")),
        ),
        Format::Csv => media(
            csv_schema(columns, None),
            json!(format!("{}{}\r\n", csv_header(columns), cells.join(","))),
        ),
        Format::GeoJson => media(
            either("ExportFeatureCollection", "ExportBoundaryFeatureCollection"),
            json!({"type": "FeatureCollection", "features": [feature(&area, properties, centre)], "total": 1}),
        ),
    };
    let names = [
        &COMMON[..],
        &[
            "ETag",
            "Cache-Control",
            vary(format),
            "Content-Encoding",
            "Content-Disposition",
        ],
    ]
    .concat();
    // X-Total-Count is counted as the body starts, so HEAD and 304 go without it.
    let optional = [&RATE[..], &["X-Total-Count"]].concat();
    json!({
        "description": described("Every area (of the province, if given), ordered by id.", format, "/v1/areas/export", &EXPORT_FORMATS),
        "headers": headers::set(&names, &optional),
        "content": {format.media_type(): m},
    })
}
