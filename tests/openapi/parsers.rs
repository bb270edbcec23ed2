//! The parsers of `api::params` take every query parameter the document
//! lists for their operation, and refuse every other.

use area_scoring::api::params;
use area_scoring::api::query::Query;
use area_scoring::error::ApiError;

use super::doc::*;

type Parser = fn(Query) -> Result<(), ApiError>;

/// Each API path and the parser of its parameters.
const PARSERS: [(&str, Parser); 7] = [
    ("/v1/key", params::none),
    ("/v1/areas", |q| params::list(q).map(drop)),
    ("/v1/areas/{area_id}", |q| params::area(q).map(drop)),
    ("/v1/areas/search", |q| params::search(q).map(drop)),
    ("/v1/areas/export", |q| params::export(q).map(drop)),
    ("/v1/areas/compare", |q| params::compare(q).map(drop)),
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
        let undocumented = ["colour", "page", "per_page", "fields", "Limit"];
        for name in undocumented {
            assert!(refused_as_unknown(parse, name), "{path} refuses {name}");
        }
    }
}
