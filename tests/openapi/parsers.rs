//! The parsers of `api::params` take every query parameter the document
//! lists for their operation, and refuse every other.

use area_scoring::api::format::Format;
use area_scoring::api::params;
use area_scoring::api::query::Query;
use area_scoring::error::ApiError;

use super::doc::*;

type Parser = fn(Query) -> Result<(), ApiError>;

/// Each API path and the parser of its parameters.
const PARSERS: [(&str, Parser); 17] = [
    ("/v1/key", params::none),
    ("/v1/areas", |q| params::list(q, None).map(drop)),
    ("/v1/areas.csv", |q| {
        params::list(q, Some(Format::Csv)).map(drop)
    }),
    ("/v1/areas.geojson", |q| {
        params::list(q, Some(Format::GeoJson)).map(drop)
    }),
    ("/v1/areas/{area_id}", |q| params::area(q).map(drop)),
    ("/v1/areas/at", |q| params::at(q).map(drop)),
    ("/v1/areas/search", |q| params::search(q, None).map(drop)),
    ("/v1/areas/search.csv", |q| {
        params::search(q, Some(Format::Csv)).map(drop)
    }),
    ("/v1/areas/search.geojson", |q| {
        params::search(q, Some(Format::GeoJson)).map(drop)
    }),
    ("/v1/areas/export", |q| params::export(q, None).map(drop)),
    ("/v1/areas/export.csv", |q| {
        params::export(q, Some(Format::Csv)).map(drop)
    }),
    ("/v1/areas/export.geojson", |q| {
        params::export(q, Some(Format::GeoJson)).map(drop)
    }),
    ("/v1/areas/export.ndjson", |q| {
        params::export(q, Some(Format::NdJson)).map(drop)
    }),
    ("/v1/areas/compare", |q| params::compare(q).map(drop)),
    ("/v1/areas/stats", |q| params::stats(q).map(drop)),
    ("/v1/areas/stats.csv", |q| params::stats(q).map(drop)),
    ("/v1/areas/{area_id}/history", |q| {
        params::history(q).map(drop)
    }),
];

fn refused_as_unknown(parse: Parser, name: &str) -> bool {
    match parse(Query::parse(&format!("{name}="), &[name]).unwrap()) {
        Ok(()) => false,
        Err(e) => e.message().starts_with("unknown parameter"),
    }
}

#[test]
fn the_parsers_take_every_documented_parameter_and_no_other() {
    assert_eq!(PARSERS.len(), doc()["paths"].as_object().unwrap().len() - 3);
    for (path, parse) in PARSERS {
        for name in names(path) {
            assert!(!refused_as_unknown(parse, &name), "{path} takes {name}");
        }
        let mut undocumented = vec!["colour", "page", "per_page", "fields", "Limit"];
        if path.contains('.') {
            // A format's own path sets the format: format= is unknown there.
            undocumented.push("format");
        }
        for name in undocumented {
            assert!(refused_as_unknown(parse, name), "{path} refuses {name}");
        }
    }
}
