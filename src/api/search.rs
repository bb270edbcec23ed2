//! Search Areas (`GET /v1/areas/search`): the endpoint over search/query/.
//! The parameters (params/search.rs) become the search's filter and page
//! window; search/ counts every match and picks the page's areas without
//! reading any area row; this file then reads the list form of only the
//! areas on the page, with how each matched when there were words.

use rusqlite::Connection;

use super::{AreaPage, AreaSummary, summaries};
use crate::api::params::SearchParams;
use crate::data::dataset::Dataset;
use crate::data::stored;
use crate::error::{ApiError, ApiResult};
use crate::search::index::geo::Disc;
use crate::search::query::explain::SearchWords;
use crate::search::query::filter::{Filter, Masking};
use crate::search::query::run::run;
use crate::search::query::text::COLLECT_AT_MOST;
use crate::search::query::tier::MatchTier;
use crate::search::query::{Page, Window};

pub use crate::search::query::Searchable;

// Defined here rather than beside the type: search/ sits below data/ and
// never names the dataset.
impl Searchable<'_> {
    pub fn of(d: &Dataset) -> Searchable<'_> {
        Searchable {
            index: &d.index,
            matches: &d.matches,
            vocabulary: &d.vocabulary,
        }
    }
}

pub fn search(conn: &Connection, data: &Searchable, p: &SearchParams) -> ApiResult<AreaPage> {
    search_with(conn, data, p, (COLLECT_AT_MOST, Masking::ByCost))
}

/// `search`, collecting a text tier's page from the bitmaps when it holds at
/// most `collect_at_most` matches, and masking as `masking` says (tests try
/// every way on small data).
pub(crate) fn search_with(
    conn: &Connection,
    data: &Searchable,
    p: &SearchParams,
    (collect_at_most, masking): (usize, Masking),
) -> ApiResult<AreaPage> {
    let index = data.index;
    let start = usize::try_from(p.offset).unwrap_or(usize::MAX);
    let window = Window {
        start,
        end: start.saturating_add(p.limit as usize),
    };
    // Every slug the parameters take names one of the index's provinces.
    let province = p
        .province
        .map(|slug| {
            index
                .province(slug)
                .ok_or_else(|| ApiError::invalid("province", format!("unknown province '{slug}'")))
        })
        .transpose()?;
    let filter = Filter {
        index,
        province,
        min_score: p.min_score.unwrap_or(0.0),
        disc: p.circle.map(Disc::new),
        bbox: p.bbox,
        collect_at_most,
        masking,
        kept: Default::default(),
    };
    let found = run(conn, data, &filter, (&p.words, p.matching), window)?;
    let areas = match found.tiers {
        Some(tiers) => explained(conn, found.page, tiers, &p.words)?,
        None => summaries(conn, found.page)?,
    };
    Ok(AreaPage {
        missing: None,
        data: areas,
        total: found.total as i64,
        limit: p.limit,
        offset: p.offset,
    })
}

/// The list form of each area of a page, with how it matched.
fn explained(
    conn: &Connection,
    page: Page,
    tiers: Vec<MatchTier>,
    words: &[String],
) -> ApiResult<Vec<AreaSummary>> {
    let words = SearchWords::new(words);
    let mut areas = summaries(conn, page.iter().copied())?;
    let mut others = conn.prepare_cached(stored::OTHER_NAMES_OF_AREA)?;
    for ((area, &(area_no, _)), tier) in areas.iter_mut().zip(&page).zip(tiers) {
        // Only a forgiving tier can have matched through an other name.
        let names = match tier {
            MatchTier::Exact => Vec::new(),
            _ => stored::other_names_by(&mut others, area_no)?,
        };
        let texts = [area.name.as_str(), &area.municipality, &area.province];
        area.matched = Some(words.explain(texts, &names, tier));
    }
    Ok(areas)
}
