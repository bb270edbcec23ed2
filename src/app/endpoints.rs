//! Calls the handler of an API route with its parsed parameters, once the
//! caller is known and within budget, and checks the plan where a route or a
//! parameter needs more than the free one.

use rusqlite::Connection;

use super::encoding::Coding;
use super::exports::{self, ExportSlots};
use super::http::{Request, Response};
use super::listing;
use crate::access::keys::{self, Caller};
use crate::api;
use crate::api::contract::{EXPORT_FORMATS, HISTORY_PLAN, LIST_FORMATS};
use crate::api::format::{Format, Representation};
use crate::api::params;
use crate::api::query::Query;
use crate::api::router::Route;
use crate::data::dataset::Dataset;
use crate::error::ApiResult;

/// What a handler may use of the request being answered.
pub struct Call<'a> {
    pub req: &'a Request,
    pub dataset: &'a Dataset,
    pub conn: &'a Connection,
    pub caller: &'a Caller,
    pub exports: &'a ExportSlots,
}

pub fn answer(call: &Call, route: &Route, query: Query) -> ApiResult<Response> {
    let Call {
        req,
        dataset,
        conn,
        caller,
        exports,
    } = *call;
    let accept = req.accept.as_deref();
    Ok(match route {
        Route::ListAreas(path_format) => {
            let p = params::list(query, *path_format)?;
            let chosen = Representation::of(*path_format, p.format, accept, &LIST_FORMATS);
            if matches!(chosen.format, Format::Json | Format::NdJson) {
                let page = api::areas::list_json(conn, &dataset.list_totals, &p)?;
                listing::answer_json(req, page)
            } else {
                let page = api::areas::list(conn, &dataset.list_totals, &p)?;
                let boundaries = api::boundaries::of_page(conn, &page.data, p.geometry)?;
                listing::answer(req, &page, (chosen, boundaries.as_deref()), false)
            }
        }
        Route::SearchAreas(path_format) => {
            let p = params::search(query, *path_format)?;
            let chosen = Representation::of(*path_format, p.format, accept, &LIST_FORMATS);
            let page = api::search::search(conn, &api::search::Searchable::of(dataset), &p)?;
            let boundaries = api::boundaries::of_page(conn, &page.data, p.geometry)?;
            let chosen = (chosen, boundaries.as_deref());
            listing::answer(req, &page, chosen, p.circle.is_some())
        }
        Route::ExportAreas(path_format) => {
            let p = params::export(query, *path_format)?;
            let chosen = Representation::of(*path_format, p.format, accept, &EXPORT_FORMATS);
            exports::answer(&tags_of_coding(req), dataset, caller, (&p, chosen), exports)?
        }
        Route::CompareAreas => Response::ok(&api::compare::compare(
            conn,
            dataset,
            &params::compare(query)?,
        )?),
        Route::AreaStats(path_format) => {
            let p = params::stats(query)?;
            let chosen = Representation {
                format: path_format.unwrap_or(Format::Json),
                negotiated: false,
            };
            let (response, span) = match chosen.format {
                Format::Csv => {
                    let stats = api::stats::stats::<api::stats::MeasureStats>(conn, &p)?;
                    let csv = api::stats::csv(&stats);
                    (listing::with_type(csv, Format::Csv), stats.span())
                }
                _ => {
                    let stats = api::stats::stats::<api::stats::MeasureJson>(conn, &p)?;
                    (Response::json(200, api::stats::json(&stats)), stats.span())
                }
            };
            match span {
                Some(span) => listing::with_page_headers(req, (span, None), response, chosen),
                None => response,
            }
        }
        #[cfg(feature = "fault-injection")]
        Route::GetArea(id) if id == "_panic" => panic!("fault injection: a handler panics"),
        Route::GetArea(id) => {
            let p = params::area(query)?;
            if p.history {
                keys::require(caller.plan, HISTORY_PLAN, "score history", Some("include"))?;
            }
            Response::json(200, api::areas::get(conn, dataset, id, &p)?)
        }
        Route::AreaAt => {
            let p = params::at(query)?;
            if p.include.history {
                keys::require(caller.plan, HISTORY_PLAN, "score history", Some("include"))?;
            }
            Response::json(200, api::at::at(conn, dataset, &p)?)
        }
        Route::AreaHistory(id) => {
            let p = params::history(query)?;
            keys::require(caller.plan, HISTORY_PLAN, "score history", None)?;
            let area_no = api::areas::require_area(conn, id)?;
            Response::json(200, api::history::get(conn, id, area_no, &p)?.json())
        }
        Route::OpenApi
        | Route::Health
        | Route::Metrics
        | Route::Key
        | Route::Page(_)
        | Route::PageWithSlash(_) => {
            unreachable!("these routes answer before a dataset is needed")
        }
    })
}

/// The request as the export sees it: it checks If-None-Match before taking
/// a slot, against the identity tag it knows, so it is shown the client's
/// tags of the coding its stream will go in (gzip whenever accepted), as
/// identity tags. app/caching.rs then answers 304 by the client's own tags.
fn tags_of_coding(req: &Request) -> Request {
    let coding = Coding::preferred(req.accept_encoding.as_deref());
    Request {
        if_none_match: req
            .if_none_match
            .as_deref()
            .map(|tags| coding.identity_tags(tags)),
        ..req.clone()
    }
}
