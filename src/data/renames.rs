//! The gazetted renames of seed places (seed/renames.csv, curated by hand,
//! seed/README.md) and the other names each gives its place.
//!
//! GeoNames, where seed/other-names.csv comes from, lacks several recent
//! renames, so they are kept apart from that generated file and added to a
//! place's other names when the seed is read: the former name where the seed
//! already uses the current one, the current name where it still uses the
//! former. A name with an apostrophe also comes without it, since the search
//! folds "William's" to two words and a user types "Williams".

use crate::data::error::DataError;
use crate::search::words::fold;

/// The renames, compiled in like the rest of the seed.
pub const SEED_RENAMES_CSV: &str = include_str!("../../seed/renames.csv");

/// One row of seed/renames.csv.
#[derive(Debug, Clone, PartialEq)]
pub struct Rename {
    pub id: String,
    pub former_name: String,
    pub current_name: String,
    pub year: u16,
    pub source: String,
}

/// The columns of seed/renames.csv, in order.
pub const COLUMNS: [&str; 5] = ["id", "former_name", "current_name", "year", "source"];

/// Reads renames in seed/renames.csv's layout; every field must be filled.
pub fn read_renames(text: &str) -> Result<Vec<Rename>, DataError> {
    let mut reader = csv::Reader::from_reader(text.as_bytes());
    let refuse = |line: usize, why: String| DataError::Seed {
        file: "renames",
        line,
        why,
    };
    let header = reader.headers().map_err(|e| refuse(1, e.to_string()))?;
    if header.iter().ne(COLUMNS) {
        return Err(refuse(
            1,
            format!("expected the columns {}", COLUMNS.join(",")),
        ));
    }
    let mut renames = Vec::new();
    for (i, record) in reader.records().enumerate() {
        let line = i + 2;
        let r = record.map_err(|e| refuse(line, e.to_string()))?;
        if let Some(k) = (0..COLUMNS.len()).find(|&k| r[k].trim().is_empty()) {
            return Err(refuse(line, format!("{} is empty", COLUMNS[k])));
        }
        let year = r[3]
            .trim()
            .parse()
            .map_err(|_| refuse(line, format!("bad year '{}'", &r[3])))?;
        renames.push(Rename {
            id: r[0].trim().into(),
            former_name: r[1].trim().into(),
            current_name: r[2].trim().into(),
            year,
            source: r[4].trim().into(),
        });
    }
    Ok(renames)
}

impl Rename {
    /// The other names this rename gives a place the seed calls `name`: the
    /// name it does not already carry, then that name without apostrophes
    /// when it has any. None when `name` is neither of the rename's names.
    pub fn other_names_for(&self, name: &str) -> Option<Vec<String>> {
        let name = fold::key(name);
        let other = if name == fold::key(&self.current_name) {
            &self.former_name
        } else if name == fold::key(&self.former_name) {
            &self.current_name
        } else {
            return None;
        };
        let mut names = vec![other.clone()];
        let bare: String = other.chars().filter(|c| !is_apostrophe(*c)).collect();
        if bare != *other {
            names.push(bare);
        }
        Some(names)
    }
}

fn is_apostrophe(c: char) -> bool {
    matches!(c, '\'' | '\u{2019}' | '\u{2018}' | '\u{02bc}')
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rename(former: &str, current: &str) -> Rename {
        Rename {
            id: "x".into(),
            former_name: former.into(),
            current_name: current.into(),
            year: 2021,
            source: "https://example.org".into(),
        }
    }

    #[test]
    fn gives_the_name_the_place_lacks_and_its_form_without_apostrophes() {
        let r = rename("King William's Town", "Qonce");
        assert_eq!(
            r.other_names_for("Qonce"),
            Some(vec![
                "King William's Town".into(),
                "King Williams Town".into()
            ])
        );
        assert_eq!(
            r.other_names_for("king william’s town"),
            Some(vec!["Qonce".into()])
        );
        assert_eq!(r.other_names_for("Alice"), None);
    }

    #[test]
    fn refuses_a_row_without_a_source_or_year() {
        let head = "id,former_name,current_name,year,source\n";
        let no_source = format!("{head}qonce,King William's Town,Qonce,2021,\n");
        assert!(read_renames(&no_source).is_err());
        let no_year = format!("{head}qonce,King William's Town,Qonce,,https://example.org\n");
        assert!(read_renames(&no_year).is_err());
        assert!(read_renames("id,old,new,year,source\n").is_err());
        assert!(!read_renames(SEED_RENAMES_CSV).unwrap().is_empty());
    }
}
