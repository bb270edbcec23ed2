//! The forms that `load` stores for the API to serve as they are: every
//! area's detail body (table `area_detail`) and list form (`area_list_form`),
//! and every List Areas ordering (table `area_order`). The builder and the
//! handlers both use this module, so neither depends on the other.

use rusqlite::{Connection, Row, Statement, params};
use serde::Serialize;

use crate::domain::{DIMENSIONS, DimensionMap, Order, PROVINCES, Sort, dimension_position};

/// One List Areas ordering: its code in area_order and the SQL that defines it.
pub struct Ordering {
    pub sort: Sort,
    pub order: Order,
    pub code: i64,
    pub order_by: &'static str,
}

/// Every ordering a client can ask for. Ties always go to the lower id, in both
/// directions, so pages never repeat or skip an area.
pub const ORDERINGS: [Ordering; 6] = [
    Ordering {
        sort: Sort::Name,
        order: Order::Asc,
        code: 0,
        order_by: "name COLLATE NOCASE ASC, area_no ASC",
    },
    Ordering {
        sort: Sort::Name,
        order: Order::Desc,
        code: 1,
        order_by: "name COLLATE NOCASE DESC, area_no ASC",
    },
    Ordering {
        sort: Sort::TruthScore,
        order: Order::Asc,
        code: 2,
        order_by: "truth_score ASC, area_no ASC",
    },
    Ordering {
        sort: Sort::TruthScore,
        order: Order::Desc,
        code: 3,
        order_by: "truth_score DESC, area_no ASC",
    },
    Ordering {
        sort: Sort::UpdatedAt,
        order: Order::Asc,
        code: 4,
        order_by: "updated_at ASC, area_no ASC",
    },
    Ordering {
        sort: Sort::UpdatedAt,
        order: Order::Desc,
        code: 5,
        order_by: "updated_at DESC, area_no ASC",
    },
];

/// The ordering of a sort and direction.
pub fn ordering(sort: Sort, order: Order) -> &'static Ordering {
    ORDERINGS
        .iter()
        .find(|o| o.sort == sort && o.order == order)
        .expect("every sort and direction has an ordering")
}

#[derive(Debug, Serialize)]
pub struct Dimension {
    pub score: f64,
    pub weight: f64,
    pub sources: Vec<String>,
}

#[derive(Debug, Serialize)]
pub struct Coordinates {
    pub lat: f64,
    pub lng: f64,
}

/// An area in detail form (docs/api.md, "Get Area"), without the optional nearby and
/// history. data/load.rs serializes it once per area into area_detail; Get Area
/// answers those bytes and appends nearby and history when asked.
#[derive(Debug, Serialize)]
pub struct AreaDetail {
    pub id: String,
    pub name: String,
    pub province: String,
    pub province_slug: String,
    pub municipality: String,
    pub truth_score: f64,
    pub dimensions: DimensionMap<Dimension>,
    pub coordinates: Coordinates,
    pub updated_at: String,
    pub other_names: Vec<String>,
}

/// An area's list form (docs/api.md, "List Areas") borrowed from a row as it
/// is read: the members `AreaSummary` writes when it has no distance and no
/// match, in its order, without an allocation for each of its six strings.
#[derive(Serialize)]
pub struct ListForm<'a> {
    pub id: &'a str,
    pub name: &'a str,
    pub province: &'a str,
    pub province_slug: &'a str,
    pub municipality: &'a str,
    pub truth_score: f64,
    pub updated_at: &'a str,
}

impl<'r> ListForm<'r> {
    /// The list form from a row's columns id, name, province,
    /// province_slug, municipality, truth_score and updated_at, from column
    /// `first` on.
    pub fn of_row(r: &'r Row, first: usize) -> rusqlite::Result<ListForm<'r>> {
        Ok(ListForm {
            id: text(r, first)?,
            name: text(r, first + 1)?,
            province: text(r, first + 2)?,
            province_slug: text(r, first + 3)?,
            municipality: text(r, first + 4)?,
            truth_score: r.get(first + 5)?,
            updated_at: text(r, first + 6)?,
        })
    }
}

const AREAS_IN_LIST_FORM: &str = "
    SELECT area_no, id, name, province, province_slug, municipality, truth_score, updated_at
    FROM areas ORDER BY area_no";

/// Fills area_list_form from the areas (used at load time), with serde, as
/// List's other representations are written (api/areas.rs, `list`).
pub fn write_list_forms(conn: &Connection) -> rusqlite::Result<()> {
    let mut areas = conn.prepare(AREAS_IN_LIST_FORM)?;
    let mut store = conn.prepare("INSERT INTO area_list_form (area_no, body) VALUES (?1, ?2)")?;
    let mut rows = areas.query([])?;
    while let Some(r) = rows.next()? {
        let body = serde_json::to_string(&ListForm::of_row(r, 1)?)
            .map_err(|e| rusqlite::Error::ToSqlConversionFailure(Box::new(e)))?;
        store.execute(params![r.get::<_, i64>(0)?, body])?;
    }
    Ok(())
}

/// A text column borrowed from the row.
fn text<'r>(r: &'r Row, column: usize) -> rusqlite::Result<&'r str> {
    r.get_ref(column)?.as_str().map_err(|e| {
        rusqlite::Error::FromSqlConversionFailure(column, rusqlite::types::Type::Text, e.into())
    })
}

/// How many areas one ordering of area_order holds, for all areas (`""`) or
/// one province: every ordering of a selection holds the same areas.
const ORDERING_LENGTH: &str = "
    SELECT coalesce(max(position) + 1, 0) FROM area_order WHERE ordering = ?1 AND province_slug = ?2";

/// List's `total` for all areas and for each province of `PROVINCES`. The
/// served file never changes, so they are read once when it is opened rather
/// than on every page.
#[derive(Debug, Clone, Default)]
pub struct ListTotals {
    all: i64,
    by_province: [i64; PROVINCES.len()],
}

impl ListTotals {
    pub fn read(conn: &Connection) -> rusqlite::Result<ListTotals> {
        let code = ORDERINGS[0].code;
        let mut stmt = conn.prepare(ORDERING_LENGTH)?;
        let mut length = |slug: &str| stmt.query_row(rusqlite::params![code, slug], |r| r.get(0));
        let mut totals = ListTotals {
            all: length("")?,
            ..ListTotals::default()
        };
        for (total, (slug, _)) in totals.by_province.iter_mut().zip(PROVINCES) {
            *total = length(slug)?;
        }
        Ok(totals)
    }

    /// The areas of `province` (a slug), or of all areas for none; 0 for a
    /// slug not in `PROVINCES`.
    pub fn of(&self, province: Option<&str>) -> i64 {
        match province {
            None | Some("") => self.all,
            Some(slug) => PROVINCES
                .iter()
                .position(|(s, _)| *s == slug)
                .map_or(0, |i| self.by_province[i]),
        }
    }
}

const DETAIL: &str = "
    SELECT id, name, province, province_slug, municipality, truth_score, lat, lng, updated_at
    FROM areas WHERE area_no = ?1";

const DIMENSIONS_OF_AREA: &str = "
    SELECT d.dimension, d.score, d.weight, s.source
    FROM area_dimensions d
    LEFT JOIN dimension_sources s ON s.area_no = d.area_no AND s.dimension = d.dimension
    WHERE d.area_no = ?1
    ORDER BY d.dimension, s.position";

/// An area's other names, in their order.
pub const OTHER_NAMES_OF_AREA: &str =
    "SELECT name FROM area_other_names WHERE area_no = ?1 ORDER BY position";

/// An area's other names, in their order.
pub fn other_names(conn: &Connection, no: i64) -> rusqlite::Result<Vec<String>> {
    other_names_by(&mut *conn.prepare_cached(OTHER_NAMES_OF_AREA)?, no)
}

/// `other_names` through a statement of `OTHER_NAMES_OF_AREA` prepared
/// once for many areas.
pub fn other_names_by(stmt: &mut Statement, no: i64) -> rusqlite::Result<Vec<String>> {
    stmt.query_map([no], |r| r.get(0))?.collect()
}

/// The detail form of an area as JSON, from its rows (used at load time).
pub fn detail_json(conn: &Connection, no: i64) -> rusqlite::Result<String> {
    let mut area = conn.prepare_cached(DETAIL)?.query_row([no], |r| {
        Ok(AreaDetail {
            id: r.get(0)?,
            name: r.get(1)?,
            province: r.get(2)?,
            province_slug: r.get(3)?,
            municipality: r.get(4)?,
            truth_score: r.get(5)?,
            dimensions: DimensionMap(Vec::new()),
            coordinates: Coordinates {
                lat: r.get(6)?,
                lng: r.get(7)?,
            },
            updated_at: r.get(8)?,
            other_names: Vec::new(),
        })
    })?;
    area.dimensions = dimensions(conn, no)?;
    area.other_names = other_names(conn, no)?;
    serde_json::to_string(&area).map_err(|e| rusqlite::Error::ToSqlConversionFailure(Box::new(e)))
}

fn dimensions(conn: &Connection, no: i64) -> rusqlite::Result<DimensionMap<Dimension>> {
    let mut out: Vec<(&'static str, Dimension)> = Vec::new();
    let mut stmt = conn.prepare_cached(DIMENSIONS_OF_AREA)?;
    let mut rows = stmt.query([no])?;
    while let Some(r) = rows.next()? {
        let name: String = r.get(0)?;
        let source: Option<String> = r.get(3)?;
        let Some(known) = DIMENSIONS.iter().copied().find(|d| *d == name) else {
            continue;
        };
        if out.last().map(|(n, _)| *n) != Some(known) {
            out.push((
                known,
                Dimension {
                    score: r.get(1)?,
                    weight: r.get(2)?,
                    sources: Vec::new(),
                },
            ));
        }
        if let (Some(source), Some((_, dim))) = (source, out.last_mut()) {
            dim.sources.push(source);
        }
    }
    out.sort_by_key(|(name, _)| dimension_position(name));
    Ok(DimensionMap(out))
}
