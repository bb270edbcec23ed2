//! A page of areas (List and Search) as an HTTP answer: in the representation
//! the client chose (api/format.rs), with `X-Total-Count` and an RFC 8288
//! `Link` header to the first, previous, next and last pages.
//!
//! Link URLs repeat the request's own parameters, in their order and as the
//! client encoded them, with only `offset` changed (added last when the
//! request had none), so a client that follows them gets the same search.
//! List by `ids=` is one page, which no offset pages: it has no Link, and
//! `X-Missing-Ids` names the ids it does not hold.

use std::fmt::Write;

use super::http::{Request, Response};
use crate::api::areas::ListJson;
use crate::api::format::{Format, Representation};
use crate::api::render::{self, Columns, Row, Shape};
use crate::api::{AreaPage, PageSpan};

/// The longest Link header sent: room for four URLs of about 2 KiB.
pub const LINK_MAX_BYTES: usize = 8 * 1024;

/// Answers a page in the `chosen` format. `distance` says the rows carry
/// distance_km (a search with lat/lng), which CSV and GeoJSON then carry as
/// a column. `boundaries`, when given, are the GeoJSON features' geometries,
/// one a row (api/boundaries.rs).
pub fn answer(
    req: &Request,
    page: &AreaPage,
    (chosen, boundaries): (Representation, Option<&[Option<String>]>),
    distance: bool,
) -> Response {
    let format = chosen.format;
    let cols = Columns {
        distance,
        coordinates: true,
        dimensions: false,
    };
    let response = match format {
        Format::Csv => with_type(csv(page, cols), format),
        Format::GeoJson => with_type(geojson(page, boundaries, cols), format),
        Format::Json | Format::NdJson => Response::ok(page),
    };
    with_page_headers(
        req,
        (page.span(), page.missing.as_deref()),
        response,
        chosen,
    )
}

/// Answers a page whose JSON body is already written (api/areas.rs,
/// `list_json`): JSON is answered at the endpoint's own path only, where
/// the request may choose another format.
pub fn answer_json(req: &Request, page: ListJson) -> Response {
    let chosen = Representation {
        format: Format::Json,
        negotiated: true,
    };
    let response = Response::json(200, page.body);
    with_page_headers(req, (page.span, page.missing.as_deref()), response, chosen)
}

/// X-Total-Count, then Link for a page of an ordering (`missing` None), or
/// X-Missing-Ids for List by ids.
pub fn with_page_headers(
    req: &Request,
    (span, missing): (PageSpan, Option<&[String]>),
    mut response: Response,
    chosen: Representation,
) -> Response {
    if response.status == 200 {
        response
            .headers
            .push(("X-Total-Count", span.total.to_string()));
        match missing {
            Some(ids) => response.headers.push(("X-Missing-Ids", missing_ids(ids))),
            None => {
                let link = links(req, span);
                // Four copies of a long request target would pass the header
                // sizes that proxies (nginx: proxy_buffer_size) and clients
                // (Python's http.client: 64 KiB a line) accept; such a page
                // goes without Link, and paging by offset works as ever.
                if link.len() <= LINK_MAX_BYTES {
                    response.headers.push(("Link", link));
                }
            }
        }
        response.headers.push(("Vary", chosen.vary().into()));
    }
    response
}

/// The ids missing, comma-separated, each percent-encoded but for RFC
/// 3986's unreserved characters: an area id is all of them, and whatever
/// else a caller sent cannot break the header or the list.
fn missing_ids(ids: &[String]) -> String {
    let mut out = String::new();
    for (i, id) in ids.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        for b in id.bytes() {
            if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~') {
                out.push(b as char);
            } else {
                let _ = write!(out, "%{b:02X}");
            }
        }
    }
    out
}

/// A 200 of `body` in `format`.
pub fn with_type(body: Vec<u8>, format: Format) -> Response {
    Response {
        status: 200,
        headers: vec![("Content-Type", format.content_type().into())],
        body,
        stream: None,
        caller: None,
    }
}

fn csv(page: &AreaPage, cols: Columns) -> Vec<u8> {
    let mut out = Vec::new();
    render::csv_header(&mut out, cols);
    for area in &page.data {
        render::csv_row(&mut out, &row(area, Shape::Point), cols);
    }
    out
}

fn geojson(page: &AreaPage, boundaries: Option<&[Option<String>]>, cols: Columns) -> Vec<u8> {
    let mut out = render::GEOJSON_OPEN.to_vec();
    for (i, area) in page.data.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        let shape = match boundaries {
            None => Shape::Point,
            Some(all) => Shape::Boundary(all.get(i).and_then(Option::as_deref)),
        };
        render::geojson_feature(&mut out, &row(area, shape), cols);
    }
    let members = [
        ("total", page.total),
        ("limit", page.limit),
        ("offset", page.offset),
    ];
    render::geojson_close(&mut out, page.missing.as_deref(), &members);
    out
}

fn row<'a>(area: &'a crate::api::AreaSummary, shape: Shape<'a>) -> Row<'a> {
    Row {
        area,
        dimensions: None,
        shape,
    }
}

/// The Link header: first and last always, prev past the first page, next
/// while areas remain; written into one string.
fn links(req: &Request, page: PageSpan) -> String {
    let limit = page.limit.max(1);
    let last = (page.total.max(1) - 1) / limit * limit;
    let mut rels = vec![("first", 0)];
    if page.offset > 0 {
        rels.push(("prev", (page.offset - limit).clamp(0, last)));
    }
    if page.offset.saturating_add(limit) < page.total {
        rels.push(("next", page.offset + limit));
    }
    rels.push(("last", last));
    let mut out = String::with_capacity(rels.len() * (req.target.len() + 32));
    for (i, (rel, offset)) in rels.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        out.push('<');
        at_offset(&mut out, req, *offset);
        let _ = write!(out, ">; rel=\"{rel}\"");
    }
    out
}

/// Writes the request's path and query with `offset` set.
fn at_offset(out: &mut String, req: &Request, offset: i64) {
    push_safe(out, req.path());
    let mut replaced = false;
    let mut separator = '?';
    for pair in req.query().split('&').filter(|p| !p.is_empty()) {
        out.push(std::mem::replace(&mut separator, '&'));
        let name = pair.split_once('=').map_or(pair, |(n, _)| n);
        if is_offset(name) {
            let _ = write!(out, "offset={offset}");
            replaced = true;
        } else {
            push_safe(out, pair);
        }
    }
    if !replaced {
        let _ = write!(out, "{separator}offset={offset}");
    }
}

/// Whether a raw parameter name decodes to `offset` (`%6Fffset` does).
fn is_offset(raw_name: &str) -> bool {
    // A name with no escape is itself: most are, and parsing costs a query.
    if !raw_name.contains(['%', '+']) {
        return raw_name == "offset";
    }
    crate::api::query::decode(raw_name).is_ok_and(|name| name == "offset")
}

/// Appends `raw`, percent-encoding what would end or break a URI reference
/// inside `<...>`: angle brackets, quotes, spaces, controls and anything
/// outside ASCII. The request's own escapes pass as they are.
fn push_safe(out: &mut String, raw: &str) {
    for b in raw.bytes() {
        if b.is_ascii_graphic()
            && !matches!(
                b,
                b'<' | b'>' | b'"' | b'\\' | b'^' | b'`' | b'{' | b'|' | b'}'
            )
        {
            out.push(b as char);
        } else {
            let _ = write!(out, "%{b:02X}");
        }
    }
}

#[cfg(test)]
#[path = "listing_tests.rs"]
mod tests;
