//! The area at a point (`GET /v1/areas/at`): Get Area's detail form of the
//! area the dataset locates there (data/boundary/, `Dataset::locate`), with
//! `located` saying how it was found: in a boundary, just outside one, or as
//! the nearest centre of an area without a boundary. docs/api.md, "The area
//! at a point", states the rules.

use rusqlite::Connection;
use serde::Serialize;

use super::areas;
use crate::api::params::AtParams;
use crate::data::boundary::Located;
use crate::data::dataset::Dataset;
use crate::data::error::DataError;
use crate::domain::round2;
use crate::error::{ApiError, ApiResult};

/// `located` as the answer carries it: `also` is empty but for `boundary`.
#[derive(Debug, Serialize)]
struct LocatedJson {
    by: &'static str,
    distance_km: f64,
    also: Vec<String>,
}

pub fn at(conn: &Connection, dataset: &Dataset, p: &AtParams) -> ApiResult<Vec<u8>> {
    let found = dataset
        .locate(conn, p.lat, p.lng, p.radius_km)
        .map_err(|e| match e {
            // A database that cannot answer is a passing outage (data/db.rs).
            DataError::Sql(e) => ApiError::from(e),
            other => {
                log::error!("cannot locate {}, {}: {other}", p.lat, p.lng);
                ApiError::Internal
            }
        })?;
    let Some(Located {
        area_no,
        by,
        distance_km,
        also,
    }) = found
    else {
        return Err(ApiError::NoAreaHere {
            lat: p.lat,
            lng: p.lng,
            radius_km: p.radius_km,
        });
    };
    let mut id_of = conn.prepare_cached("SELECT id FROM areas WHERE area_no = ?1")?;
    let also = also
        .iter()
        .map(|no| id_of.query_row([no], |r| r.get(0)))
        .collect::<rusqlite::Result<Vec<String>>>()?;
    let located = LocatedJson {
        by: by.as_str(),
        distance_km: round2(distance_km),
        also,
    };
    let located = serde_json::to_vec(&located).map_err(|e| {
        log::error!("cannot serialize located: {e}");
        ApiError::Internal
    })?;
    let body = areas::detail(conn, dataset, area_no)?;
    areas::with_extras(
        conn,
        dataset,
        (area_no, body),
        Some(("located", &located)),
        &p.include,
    )
}
