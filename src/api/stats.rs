//! Area statistics (`GET /v1/areas/stats`, and `/v1/areas/stats.csv`): each
//! group's count, mean, extremes and quantiles of each measure asked for, as
//! the build stored them (data/stats/): a few index lookups a request, never a
//! pass over the areas. docs/api.md, "Area statistics", states the arithmetic.

use rusqlite::{Connection, params};
use serde::Serialize;
use serde_json::value::RawValue;

use super::PageSpan;
use super::render::csv_field;
use crate::api::contract::GROUP_BYS;
use crate::api::params::StatsParams;
use crate::data::stats::summary::{QUANTILES, Summary};
use crate::data::stats::write::MUNICIPALITY;
use crate::domain::{GroupBy, MEASURES, PROVINCES};
use crate::error::ApiResult;

/// One measure of one group, in score points; all None but count without scores.
#[derive(Debug, Clone, PartialEq)]
pub struct MeasureStats {
    pub count: i64,
    /// mean, min, max, then the quantiles of `QUANTILES`.
    pub values: [Option<f64>; 3 + QUANTILES.len()],
}

/// How one measure of one group is read from group_stats: as its numbers
/// (`MeasureStats`, for CSV) or as the JSON object the build stored
/// (`MeasureJson`), which JSON answers copy rather than write anew.
pub trait Measure: Sized {
    /// The statement that reads a group's measures: the measure's name first.
    const READ: &'static str;
    fn of_row(r: &rusqlite::Row) -> rusqlite::Result<Self>;
    /// A measure the group has no row for: count 0 and nulls.
    fn none() -> Self;
}

impl Measure for MeasureStats {
    const READ: &'static str = GROUP_STATS;

    fn of_row(r: &rusqlite::Row) -> rusqlite::Result<Self> {
        let mut values = [None; 3 + QUANTILES.len()];
        for (i, v) in values.iter_mut().enumerate() {
            *v = r.get::<_, Option<i64>>(2 + i)?.map(|v| v as f64 / 100.0);
        }
        Ok(MeasureStats {
            count: r.get(1)?,
            values,
        })
    }

    fn none() -> Self {
        MeasureStats {
            count: 0,
            values: [None; 3 + QUANTILES.len()],
        }
    }
}

/// A measure's statistics as the stored JSON object (schema.sql, group_stats.body).
pub type MeasureJson = Box<RawValue>;

impl Measure for MeasureJson {
    const READ: &'static str = GROUP_BODIES;

    fn of_row(r: &rusqlite::Row) -> rusqlite::Result<Self> {
        RawValue::from_string(r.get(1)?).map_err(|e| {
            rusqlite::Error::FromSqlConversionFailure(1, rusqlite::types::Type::Text, e.into())
        })
    }

    fn none() -> Self {
        RawValue::from_string(Summary::default().json()).expect("a summary's JSON is JSON")
    }
}

#[derive(Debug, Serialize)]
pub struct Group<M> {
    /// The province's slug, the municipality's name, or null for every area.
    pub group: Option<String>,
    /// A municipality's province (its slug); absent for the other groupings.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub province: Option<String>,
    pub measures: super::DimensionMap<M>,
}

#[derive(Debug, Serialize)]
pub struct Stats<M> {
    pub group_by: Option<&'static str>,
    pub data: Vec<Group<M>>,
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    pub page: Option<Page>,
}

/// Where a page of municipality groups lies among them.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct Page {
    pub total: i64,
    pub limit: i64,
    pub offset: i64,
}

impl<M> Stats<M> {
    /// The page's span, for the Link and X-Total-Count headers.
    pub fn span(&self) -> Option<PageSpan> {
        self.page.map(|p| PageSpan {
            total: p.total,
            limit: p.limit,
            offset: p.offset,
        })
    }
}

const GROUP_STATS: &str = "
    SELECT measure, count, mean, min, max, p10, p25, p50, p75, p90
    FROM group_stats WHERE group_no = ?1";
const GROUP_BODIES: &str = "SELECT measure, body FROM group_stats WHERE group_no = ?1";

const MUNICIPALITIES: &str = "
    SELECT group_no, province_slug, municipality FROM stats_groups
    WHERE kind = ?1 AND position >= ?2 ORDER BY position LIMIT ?3";
const MUNICIPALITIES_IN_PROVINCE: &str = "
    SELECT group_no, province_slug, municipality FROM stats_groups
    WHERE kind = ?1 AND province_slug = ?4 AND in_province >= ?2 ORDER BY in_province LIMIT ?3";
const MUNICIPALITY_COUNT: &str =
    "SELECT coalesce(max(position) + 1, 0) FROM stats_groups WHERE kind = ?1";
const MUNICIPALITY_COUNT_IN_PROVINCE: &str = "
    SELECT coalesce(max(in_province) + 1, 0) FROM stats_groups
    WHERE kind = ?1 AND province_slug = ?2";

/// The group_no of the province `slug` (the build numbers them after the
/// every-area group, in `PROVINCES` order).
fn province_group(slug: &str) -> (i64, String) {
    let p = PROVINCES.iter().position(|(s, _)| *s == slug).unwrap_or(0);
    (1 + p as i64, slug.to_string())
}

pub fn stats<M: Measure>(conn: &Connection, p: &StatsParams) -> ApiResult<Stats<M>> {
    let mut page = None;
    // (group_no, group, province) of each group shown.
    let groups: Vec<(i64, Option<String>, Option<String>)> = match p.group_by {
        None => match p.province {
            None => vec![(0, None, None)],
            Some(slug) => vec![(province_group(slug).0, None, None)],
        },
        Some(GroupBy::Province) => PROVINCES
            .iter()
            .map(|(slug, _)| *slug)
            .filter(|slug| p.province.is_none_or(|only| only == *slug))
            .map(|slug| {
                let (no, slug) = province_group(slug);
                (no, Some(slug), None)
            })
            .collect(),
        Some(GroupBy::Municipality) => {
            let (limit, offset) = p.page.unwrap_or_default();
            let (found, total) = municipalities(conn, p.province, limit, offset)?;
            page = Some(Page {
                total,
                limit,
                offset,
            });
            found
        }
    };
    let mut read = conn.prepare_cached(M::READ)?;
    let data = groups
        .into_iter()
        .map(|(no, group, province)| {
            let mut stored: Vec<(String, Option<M>)> = read
                .query_map([no], |r| Ok((r.get(0)?, Some(M::of_row(r)?))))?
                .collect::<rusqlite::Result<_>>()?;
            let measures = p
                .measures
                .iter()
                .map(|&m| {
                    let name = MEASURES[m];
                    let found = stored
                        .iter_mut()
                        .find(|(n, _)| n == name)
                        .and_then(|(_, s)| s.take());
                    (name, found.unwrap_or_else(M::none))
                })
                .collect();
            Ok(Group {
                group,
                province,
                measures: super::DimensionMap(measures),
            })
        })
        .collect::<ApiResult<_>>()?;
    Ok(Stats {
        group_by: p.group_by.map(|g| {
            GROUP_BYS
                .iter()
                .find(|(_, v)| *v == g)
                .map_or("", |(w, _)| *w)
        }),
        data,
        page,
    })
}

/// A page of municipality groups, of one province or of all, and how many there are.
type Found = Vec<(i64, Option<String>, Option<String>)>;

fn municipalities(
    conn: &Connection,
    province: Option<&str>,
    limit: i64,
    offset: i64,
) -> ApiResult<(Found, i64)> {
    let row = |r: &rusqlite::Row| Ok((r.get(0)?, Some(r.get(2)?), Some(r.get(1)?)));
    Ok(match province {
        None => (
            conn.prepare_cached(MUNICIPALITIES)?
                .query_map(params![MUNICIPALITY, offset, limit], row)?
                .collect::<rusqlite::Result<_>>()?,
            conn.prepare_cached(MUNICIPALITY_COUNT)?
                .query_row([MUNICIPALITY], |r| r.get(0))?,
        ),
        Some(slug) => (
            conn.prepare_cached(MUNICIPALITIES_IN_PROVINCE)?
                .query_map(params![MUNICIPALITY, offset, limit, slug], row)?
                .collect::<rusqlite::Result<_>>()?,
            conn.prepare_cached(MUNICIPALITY_COUNT_IN_PROVINCE)?
                .query_row(params![MUNICIPALITY, slug], |r| r.get(0))?,
        ),
    })
}

/// The CSV columns: the group, a municipality's province, the measure, then
/// the statistics; an empty cell where JSON has null.
pub const CSV_COLUMNS: [&str; 12] = [
    "group", "province", "measure", "count", "mean", "min", "max", "p10", "p25", "p50", "p75",
    "p90",
];

/// The statistics as CSV (RFC 4180, CRLF): one row per group and measure.
pub fn csv(stats: &Stats<MeasureStats>) -> Vec<u8> {
    let mut out = Vec::new();
    out.extend_from_slice(CSV_COLUMNS.join(",").as_bytes());
    out.extend_from_slice(b"\r\n");
    for g in &stats.data {
        for (measure, s) in &g.measures.0 {
            let mut cells = vec![
                g.group.as_deref().map(csv_field).unwrap_or_default(),
                g.province.as_deref().map(csv_field).unwrap_or_default(),
                measure.to_string(),
                s.count.to_string(),
            ];
            cells.extend(
                s.values
                    .iter()
                    .map(|v| v.map(|v| v.to_string()).unwrap_or_default()),
            );
            out.extend_from_slice(cells.join(",").as_bytes());
            out.extend_from_slice(b"\r\n");
        }
    }
    out
}
