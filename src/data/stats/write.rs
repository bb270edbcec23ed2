//! Writes a dataset's statistics and score counts (schema.sql: stats_groups,
//! group_stats, score_counts) once its areas are in, in one pass over the
//! areas in municipality order: each municipality's scores are tallied while
//! its areas pass and written when the next begins, the nation's and each
//! province's over the whole pass. Memory is a few histograms of 1001
//! counters, whatever the number of areas.

use rusqlite::{Statement, Transaction, params};

use super::summary::{Histogram, hundredths};
use crate::domain::{DIMENSIONS, MEASURES, PROVINCES};

/// Group kinds, as stats_groups.kind holds them.
pub const EVERY_AREA: i64 = 0;
pub const PROVINCE: i64 = 1;
pub const MUNICIPALITY: i64 = 2;

/// The areas in the order municipality groups are listed (schema.sql,
/// stats_groups): the name without case, the name, then the province.
const AREAS_BY_MUNICIPALITY: &str = "
    SELECT area_no, province_slug, municipality, truth_score FROM areas
    ORDER BY municipality COLLATE NOCASE, municipality, province_slug";

/// One histogram a measure, in `MEASURES` order.
#[derive(Clone, Default)]
struct Tallies([Histogram; MEASURES.len()]);

impl Tallies {
    fn clear(&mut self) {
        self.0.iter_mut().for_each(Histogram::clear);
    }
}

/// The insert statements, and the places handed out so far.
struct Rows<'t> {
    group: Statement<'t>,
    stats: Statement<'t>,
    counts: Statement<'t>,
    municipalities: i64,
    in_province: [i64; PROVINCES.len()],
}

pub fn write(tx: &Transaction) -> rusqlite::Result<()> {
    let mut rows = Rows {
        group: tx.prepare(
            "INSERT INTO stats_groups (group_no, kind, province_slug, municipality, position, in_province)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
        )?,
        stats: tx.prepare(
            "INSERT INTO group_stats (group_no, measure, count, mean, min, max, p10, p25, p50, p75, p90, body)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)",
        )?,
        counts: tx.prepare(
            "INSERT INTO score_counts (scope, measure, score, lower, equal, total)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
        )?,
        municipalities: 0,
        in_province: [0; PROVINCES.len()],
    };
    let mut nation = Tallies::default();
    let mut provinces = vec![Tallies::default(); PROVINCES.len()];
    let mut municipality = Tallies::default();
    let mut current: Option<(String, String)> = None;
    let mut areas = tx.prepare(AREAS_BY_MUNICIPALITY)?;
    let mut dimensions =
        tx.prepare("SELECT dimension, score FROM area_dimensions WHERE area_no = ?1")?;
    let mut found = areas.query([])?;
    while let Some(area) = found.next()? {
        let key: (String, String) = (area.get(1)?, area.get(2)?);
        if current.as_ref() != Some(&key)
            && let Some(done) = current.replace(key)
        {
            rows.municipality(&done, &municipality)?;
            municipality.clear();
        }
        let slug = &current.as_ref().expect("just set").0;
        let province = PROVINCES.iter().position(|(s, _)| s == slug);
        let mut scores = vec![(0, hundredths(area.get(3)?))];
        let mut held = dimensions.query([area.get::<_, i64>(0)?])?;
        while let Some(d) = held.next()? {
            let name: String = d.get(0)?;
            if let Some(i) = DIMENSIONS.iter().position(|n| *n == name) {
                scores.push((i + 1, hundredths(d.get(1)?)));
            }
        }
        for (measure, score) in scores {
            nation.0[measure].add(score);
            municipality.0[measure].add(score);
            if let Some(p) = province {
                provinces[p].0[measure].add(score);
            }
        }
    }
    if let Some(done) = current {
        rows.municipality(&done, &municipality)?;
    }
    rows.group(0, (EVERY_AREA, "", ""), (0, 0), &nation)?;
    rows.score_counts("", &nation)?;
    for (p, (slug, _)) in PROVINCES.iter().enumerate() {
        rows.group(
            1 + p as i64,
            (PROVINCE, slug, ""),
            (p as i64, 0),
            &provinces[p],
        )?;
        rows.score_counts(slug, &provinces[p])?;
    }
    Ok(())
}

impl Rows<'_> {
    /// A municipality's group, after the nation's and the provinces'.
    fn municipality(
        &mut self,
        (slug, name): &(String, String),
        tallies: &Tallies,
    ) -> rusqlite::Result<()> {
        let position = self.municipalities;
        self.municipalities += 1;
        let in_province = match PROVINCES.iter().position(|(s, _)| s == slug) {
            Some(p) => {
                self.in_province[p] += 1;
                self.in_province[p] - 1
            }
            // A slug outside the nine (a file the import did not check) is
            // a province of its own, first of its municipalities.
            None => 0,
        };
        let group_no = 1 + PROVINCES.len() as i64 + position;
        self.group(
            group_no,
            (MUNICIPALITY, slug, name),
            (position, in_province),
            tallies,
        )
    }

    fn group(
        &mut self,
        group_no: i64,
        (kind, slug, municipality): (i64, &str, &str),
        (position, in_province): (i64, i64),
        tallies: &Tallies,
    ) -> rusqlite::Result<()> {
        self.group.execute(params![
            group_no,
            kind,
            slug,
            municipality,
            position,
            in_province
        ])?;
        for (measure, histogram) in MEASURES.iter().zip(&tallies.0) {
            let summary = histogram.summary();
            let n = |v: Option<u64>| v.map(|v| v as i64);
            let [mean, min, max, p10, p25, p50, p75, p90] = summary.values().map(n);
            self.stats.execute(params![
                group_no,
                measure,
                summary.count as i64,
                mean,
                min,
                max,
                p10,
                p25,
                p50,
                p75,
                p90,
                summary.json()
            ])?;
        }
        Ok(())
    }

    /// Each score a scope holds of each measure, with the scores below it.
    fn score_counts(&mut self, scope: &str, tallies: &Tallies) -> rusqlite::Result<()> {
        for (measure, histogram) in MEASURES.iter().zip(&tallies.0) {
            let total = histogram.count() as i64;
            let mut lower = 0i64;
            for (score, equal) in histogram.scores() {
                self.counts
                    .execute(params![scope, measure, score, lower, equal, total])?;
                lower += i64::from(equal);
            }
        }
        Ok(())
    }
}
