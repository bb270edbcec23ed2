//! Area statistics (`GET /v1/areas/stats`, and `/v1/areas/stats.csv`): each
//! group's count, mean, extremes and quantiles of each measure asked for, as
//! the build stored them (data/stats/): a few index lookups a request, never a
//! pass over the areas. docs/api.md, "Area statistics", states the arithmetic.

use std::collections::HashMap;

use rusqlite::{Connection, params};

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
    /// The statement that reads the measures asked for (`?2`, a JSON array
    /// of names) of the groups shown (`?1`, a JSON array of group_no): the
    /// group_no and the measure's name first, then what `of_row` reads.
    const READ: &'static str;
    fn of_row(r: &rusqlite::Row) -> rusqlite::Result<Self>;
    /// A measure the group has no row for: count 0 and nulls.
    fn none() -> Self;
}

impl Measure for MeasureStats {
    const READ: &'static str = PAGE_STATS;

    fn of_row(r: &rusqlite::Row) -> rusqlite::Result<Self> {
        let mut values = [None; 3 + QUANTILES.len()];
        for (i, v) in values.iter_mut().enumerate() {
            *v = r.get::<_, Option<i64>>(3 + i)?.map(|v| v as f64 / 100.0);
        }
        Ok(MeasureStats {
            count: r.get(2)?,
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

/// A measure's statistics as the JSON object the build stored (schema.sql,
/// group_stats.body, written by `Summary::json`), copied into the answer as
/// it is: the file is ours and was checked when it was opened, so its text
/// is not parsed again a request.
#[derive(Debug)]
pub struct MeasureJson(String);

impl Measure for MeasureJson {
    const READ: &'static str = PAGE_BODIES;

    fn of_row(r: &rusqlite::Row) -> rusqlite::Result<Self> {
        Ok(MeasureJson(r.get(2)?))
    }

    fn none() -> Self {
        MeasureJson(Summary::default().json())
    }
}

#[derive(Debug)]
pub struct Group<M> {
    /// The province's slug, the municipality's name, or null for every area.
    pub group: Option<String>,
    /// A municipality's province (its slug); absent for the other groupings.
    pub province: Option<String>,
    pub measures: super::DimensionMap<M>,
}

#[derive(Debug)]
pub struct Stats<M> {
    pub group_by: Option<&'static str>,
    pub data: Vec<Group<M>>,
    pub page: Option<Page>,
}

/// Where a page of municipality groups lies among them.
#[derive(Debug, Clone, Copy)]
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

/// A page's groups and measures, one statement whatever their number: each
/// list is read once, and each (group_no, measure) pair is a lookup of
/// group_stats' primary key.
const PAGE_STATS: &str = "
    SELECT s.group_no, s.measure, s.count, s.mean, s.min, s.max, s.p10, s.p25, s.p50, s.p75, s.p90
    FROM group_stats s
    WHERE s.group_no IN (SELECT value FROM json_each(?1))
      AND s.measure IN (SELECT value FROM json_each(?2))";
const PAGE_BODIES: &str = "
    SELECT s.group_no, s.measure, s.body
    FROM group_stats s
    WHERE s.group_no IN (SELECT value FROM json_each(?1))
      AND s.measure IN (SELECT value FROM json_each(?2))";

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
    let names: Vec<&str> = p.measures.iter().map(|&m| MEASURES[m]).collect();
    let mut stored = stored::<M>(conn, &groups, &names)?;
    let data = groups
        .into_iter()
        .map(|(no, group, province)| {
            let measures = names
                .iter()
                .map(|&name| {
                    let found = stored.remove(&(no, name.to_string()));
                    (name, found.unwrap_or_else(M::none))
                })
                .collect();
            Group {
                group,
                province,
                measures: super::DimensionMap(measures),
            }
        })
        .collect();
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

/// The stored measures `names` of the groups shown, by (group_no, measure).
fn stored<M: Measure>(
    conn: &Connection,
    groups: &[(i64, Option<String>, Option<String>)],
    names: &[&str],
) -> ApiResult<HashMap<(i64, String), M>> {
    let nos: Vec<i64> = groups.iter().map(|g| g.0).collect();
    let array = |v: serde_json::Value| v.to_string();
    let arrays = (array(nos.into()), array(names.into()));
    let mut read = conn.prepare_cached(M::READ)?;
    let found = read
        .query_map(params![arrays.0, arrays.1], |r| {
            Ok(((r.get(0)?, r.get(1)?), M::of_row(r)?))
        })?
        .collect::<rusqlite::Result<_>>()?;
    Ok(found)
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

/// The statistics as JSON (docs/api.md, "Area statistics"): written here
/// rather than by serde, so that each measure's stored object goes in as it
/// is; the shape is the contract's `AreaStats`.
pub fn json(stats: &Stats<MeasureJson>) -> Vec<u8> {
    let size: usize = stats
        .data
        .iter()
        .map(|g| {
            64 + g
                .measures
                .0
                .iter()
                .map(|(n, m)| n.len() + m.0.len() + 4)
                .sum::<usize>()
        })
        .sum();
    let mut out = Vec::with_capacity(64 + size);
    out.extend_from_slice(b"{\"group_by\":");
    json_text(&mut out, stats.group_by);
    out.extend_from_slice(b",\"data\":[");
    for (i, g) in stats.data.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        out.extend_from_slice(b"{\"group\":");
        json_text(&mut out, g.group.as_deref());
        if let Some(province) = &g.province {
            out.extend_from_slice(b",\"province\":");
            json_text(&mut out, Some(province));
        }
        out.extend_from_slice(b",\"measures\":{");
        for (j, (name, measure)) in g.measures.0.iter().enumerate() {
            if j > 0 {
                out.push(b',');
            }
            json_text(&mut out, Some(name));
            out.push(b':');
            out.extend_from_slice(measure.0.as_bytes());
        }
        out.extend_from_slice(b"}}");
    }
    out.push(b']');
    if let Some(p) = stats.page {
        let paging = format!(
            ",\"total\":{},\"limit\":{},\"offset\":{}",
            p.total, p.limit, p.offset
        );
        out.extend_from_slice(paging.as_bytes());
    }
    out.push(b'}');
    out
}

/// A JSON string, escaped by serde_json, or null.
fn json_text(out: &mut Vec<u8>, text: Option<&str>) {
    match text {
        Some(t) => serde_json::to_writer(&mut *out, t).expect("writing to a Vec cannot fail"),
        None => out.extend_from_slice(b"null"),
    }
}
