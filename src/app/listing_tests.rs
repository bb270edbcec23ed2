//! Link headers and representations of a page, from the request as sent.

use super::*;
use crate::api::AreaSummary;

fn request(target: &str) -> Request {
    Request {
        method: "GET".into(),
        target: target.into(),
        ..Request::default()
    }
}

/// `format`, as the endpoint's own path answers it (chosen by the request).
fn negotiated(format: Format) -> Representation {
    Representation {
        format,
        negotiated: true,
    }
}

fn page(total: i64, limit: i64, offset: i64) -> AreaPage {
    AreaPage {
        missing: None,
        data: Vec::new(),
        total,
        limit,
        offset,
    }
}

fn link(target: &str, total: i64, limit: i64, offset: i64) -> String {
    links(&request(target), page(total, limit, offset).span())
}

#[test]
fn a_middle_page_links_first_prev_next_and_last_in_the_requests_own_order() {
    assert_eq!(
        link(
            "/v1/areas/search?q=cape&limit=10&offset=20&format=csv",
            328,
            10,
            20
        ),
        "</v1/areas/search?q=cape&limit=10&offset=0&format=csv>; rel=\"first\", \
         </v1/areas/search?q=cape&limit=10&offset=10&format=csv>; rel=\"prev\", \
         </v1/areas/search?q=cape&limit=10&offset=30&format=csv>; rel=\"next\", \
         </v1/areas/search?q=cape&limit=10&offset=320&format=csv>; rel=\"last\""
    );
}

#[test]
fn the_first_page_has_no_prev_and_an_offset_is_added_last() {
    assert_eq!(
        link("/v1/areas?province=gauteng", 62, 20, 0),
        "</v1/areas?province=gauteng&offset=0>; rel=\"first\", \
         </v1/areas?province=gauteng&offset=20>; rel=\"next\", \
         </v1/areas?province=gauteng&offset=60>; rel=\"last\""
    );
}

#[test]
fn the_last_page_has_no_next_and_an_empty_result_links_to_offset_0() {
    let last = link("/v1/areas?offset=60", 62, 20, 60);
    assert!(!last.contains("rel=\"next\""), "{last}");
    assert!(last.contains("offset=40>; rel=\"prev\""), "{last}");
    let none = link("/v1/areas/search?q=zzz", 0, 10, 0);
    assert_eq!(
        none,
        "</v1/areas/search?q=zzz&offset=0>; rel=\"first\", </v1/areas/search?q=zzz&offset=0>; rel=\"last\""
    );
}

#[test]
fn past_the_end_prev_is_the_last_page() {
    let past = link("/v1/areas?offset=5000", 62, 20, 5000);
    assert!(past.contains("offset=60>; rel=\"prev\""), "{past}");
}

#[test]
fn an_encoded_offset_name_is_replaced_and_unsafe_bytes_are_escaped() {
    let l = link("/v1/areas/search?q=%3Ccape%3E&%6Fffset=10", 100, 10, 10);
    assert!(
        l.starts_with("</v1/areas/search?q=%3Ccape%3E&offset=0>"),
        "{l}"
    );
    let raw = link("/v1/areas/search?q=a\"b<c>", 1, 10, 0);
    assert!(
        raw.starts_with("</v1/areas/search?q=a%22b%3Cc%3E&offset=0>"),
        "{raw}"
    );
    // A character of two bytes gives two escapes; a space and a trailing
    // unsafe byte are escaped too.
    let wide = link("/v1/areas/search?q=Danië ls|", 1, 10, 0);
    assert!(
        wide.starts_with("</v1/areas/search?q=Dani%C3%AB%20ls%7C&offset=0>"),
        "{wide}"
    );
}

#[test]
fn csv_and_geojson_answers_carry_coordinates_and_the_count() {
    let area = AreaSummary {
        id: "soweto".into(),
        name: "Soweto".into(),
        province: "Gauteng".into(),
        province_slug: "gauteng".into(),
        municipality: "City of Johannesburg".into(),
        truth_score: 5.5,
        updated_at: "2026-11-22T00:00:00Z".into(),
        distance_km: Some(14.2),
        matched: None,
        lat: -26.26,
        lng: 27.86,
    };
    let p = AreaPage {
        missing: None,
        data: vec![area],
        total: 7,
        limit: 1,
        offset: 0,
    };
    let req = request("/v1/areas/search?lat=-26.2&lng=28&limit=1");
    let csv = answer(&req, &p, (negotiated(Format::Csv), None), true);
    assert_eq!(csv.header("Content-Type"), Some("text/csv; charset=utf-8"));
    assert_eq!(csv.header("X-Total-Count"), Some("7"));
    let text = String::from_utf8(csv.body).unwrap();
    assert!(text.starts_with(
        "id,name,province,province_slug,municipality,truth_score,updated_at,lat,lng,distance_km\r\n"
    ));
    assert!(text.ends_with(",-26.26,27.86,14.2\r\n"), "{text}");
    let geo = answer(&req, &p, (negotiated(Format::GeoJson), None), true);
    assert_eq!(geo.header("Content-Type"), Some("application/geo+json"));
    assert_eq!(geo.header("Vary"), Some("Authorization, Accept"));
    let at_path = Representation {
        format: Format::GeoJson,
        negotiated: false,
    };
    let geo = answer(
        &request("/v1/areas/search.geojson?lat=-26.2&lng=28&limit=1"),
        &p,
        (at_path, None),
        true,
    );
    assert_eq!(geo.header("Content-Type"), Some("application/geo+json"));
    assert_eq!(
        geo.header("Vary"),
        Some("Authorization"),
        "Accept chooses nothing here"
    );
    assert!(
        geo.header("Link")
            .unwrap()
            .starts_with("</v1/areas/search.geojson?"),
        "links keep the path"
    );
    let doc: serde_json::Value = serde_json::from_slice(&geo.body).unwrap();
    assert_eq!(
        doc["features"][0]["geometry"]["coordinates"],
        serde_json::json!([27.86, -26.26])
    );
    assert_eq!(doc["features"][0]["properties"]["distance_km"], 14.2);
    assert_eq!(
        (doc["total"].as_i64(), doc["limit"].as_i64()),
        (Some(7), Some(1))
    );
}

#[test]
fn a_link_header_past_its_bound_is_left_out_but_the_count_stays() {
    let long = format!("/v1/areas/search?q={}&limit=1", "a".repeat(2100));
    let answered = answer(
        &request(&long),
        &page(30, 1, 5),
        (negotiated(Format::Json), None),
        false,
    );
    assert_eq!(answered.header("Link"), None);
    assert_eq!(answered.header("X-Total-Count"), Some("30"));
    let short = answer(
        &request("/v1/areas?limit=1"),
        &page(30, 1, 5),
        (negotiated(Format::Json), None),
        false,
    );
    assert!(
        short
            .header("Link")
            .is_some_and(|l| l.len() <= LINK_MAX_BYTES)
    );
}
