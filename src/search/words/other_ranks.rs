//! The areas each word of the other names occurs in, held in memory beside
//! the vocabulary (vocabulary.rs) and read with it when a dataset opens,
//! from FTS5's own `fts5vocab` instances, so the words are the tokenizer's.
//!
//! Forgiving search looks up a word's near words in the other names (a
//! dozen and more for a typed other name at 100,000 areas), and each is a
//! term of its own for FTS5: about 20 us a term, where a lookup here costs
//! well under one (bench/PROFILE.md, "Other names' words in memory").
//!
//! Kept compact: most words of made-up and former names occur in one area,
//! so a word's entry is that area's search rank itself, and only a word of
//! several areas points into a shared list.

use std::ops::Range;

use rusqlite::Connection;

use crate::search::words::vocabulary::{OTHER_NAME_SLOTS, Vocabulary};

/// An entry of a word in no other name.
const NONE: u32 = u32::MAX;
/// Marks an entry that is the index of a list in `lists` (its count, then
/// its ranks), not a rank: ranks stay below it, as an area count does.
const MANY: u32 = 1 << 31;

/// Each vocabulary word's search ranks among the other names.
#[derive(Debug, Default)]
pub struct OtherNameRanks {
    /// By word, in the vocabulary's order: `NONE`, one rank, or `MANY` and
    /// where its list starts in `lists`.
    entries: Vec<u32>,
    lists: Vec<u32>,
}

impl OtherNameRanks {
    /// The ranks of every word of `other_names_fts`, for the words of `v`.
    pub fn read(conn: &Connection, v: &Vocabulary) -> rusqlite::Result<OtherNameRanks> {
        let mut ranks = OtherNameRanks {
            entries: vec![NONE; v.len()],
            lists: Vec::new(),
        };
        conn.execute_batch(
            "DROP TABLE IF EXISTS temp.other_name_instances;
             CREATE VIRTUAL TABLE temp.other_name_instances
                 USING fts5vocab(main, other_names_fts, instance);",
        )?;
        let read = ranks.read_instances(conn, v);
        conn.execute_batch("DROP TABLE temp.other_name_instances;")?;
        read?;
        ranks.entries.shrink_to_fit();
        ranks.lists.shrink_to_fit();
        Ok(ranks)
    }

    /// Reads the instances, which come by term (then by rowid, but each
    /// word's ranks are sorted here all the same).
    fn read_instances(&mut self, conn: &Connection, v: &Vocabulary) -> rusqlite::Result<()> {
        let mut stmt = conn.prepare("SELECT term, doc FROM temp.other_name_instances")?;
        let mut rows = stmt.query([])?;
        let (mut term, mut ranks): (Vec<u8>, Vec<u32>) = (Vec::new(), Vec::new());
        while let Some(row) = rows.next()? {
            let this = row.get_ref(0)?.as_bytes()?;
            if this != term.as_slice() {
                self.set(v, &term, &mut ranks);
                term.clear();
                term.extend_from_slice(this);
            }
            let rowid: i64 = row.get(1)?;
            match u32::try_from(rowid / OTHER_NAME_SLOTS) {
                Ok(rank) if rank < MANY => ranks.push(rank),
                _ => return Err(rusqlite::Error::IntegralValueOutOfRange(1, rowid)),
            }
        }
        self.set(v, &term, &mut ranks);
        Ok(())
    }

    /// Sets the entry of `term`, a word of `v`, to `ranks`, and empties them.
    fn set(&mut self, v: &Vocabulary, term: &[u8], ranks: &mut Vec<u32>) {
        ranks.sort_unstable();
        ranks.dedup();
        if let Some(i) = v.find(term) {
            self.entries[i] = match ranks.as_slice() {
                [] => NONE,
                [one] => *one,
                _ => {
                    let at = self.lists.len() as u32 | MANY;
                    self.lists.push(ranks.len() as u32);
                    self.lists.extend_from_slice(ranks);
                    at
                }
            };
        }
        ranks.clear();
    }

    /// The search ranks of the areas the `i`-th word occurs in among the
    /// other names, best first.
    pub fn of_word(&self, i: usize) -> &[u32] {
        match self.entries.get(i) {
            None | Some(&NONE) => &[],
            Some(&entry) if entry & MANY != 0 => {
                let at = (entry & !MANY) as usize;
                &self.lists[at + 1..at + 1 + self.lists[at] as usize]
            }
            Some(entry) => std::slice::from_ref(entry),
        }
    }

    /// The search ranks of the areas an other name of which has one of the
    /// words `within`, best first, each once.
    pub fn of_words(&self, within: Range<usize>) -> Vec<u32> {
        let mut ranks: Vec<u32> = within.flat_map(|i| self.of_word(i)).copied().collect();
        ranks.sort_unstable();
        ranks.dedup();
        ranks
    }

    /// Each word's entry and the shared lists, to be stored
    /// (vocabulary_store.rs).
    pub(super) fn parts(&self) -> (&[u32], &[u32]) {
        (&self.entries, &self.lists)
    }

    /// The ranks of stored parts, for a vocabulary of `words` words; None
    /// unless there is an entry for each word and each list lies within
    /// `lists`, so that `of_word` never reads outside them.
    pub(super) fn from_parts(entries: Vec<u32>, lists: Vec<u32>, words: usize) -> Option<Self> {
        let list_fits = |entry: u32| {
            let at = (entry & !MANY) as usize;
            let count = *lists.get(at)? as usize;
            (at + 1)
                .checked_add(count)
                .filter(|&end| end <= lists.len())
        };
        let fits = |&entry: &u32| entry == NONE || entry & MANY == 0 || list_fits(entry).is_some();
        (entries.len() == words && entries.iter().all(fits)).then_some(Self { entries, lists })
    }

    /// The bytes it holds on the heap.
    pub fn heap_bytes(&self) -> usize {
        (self.entries.capacity() + self.lists.capacity()) * 4
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn holds_each_words_areas_once_in_rank_order() {
        let conn = Connection::open_in_memory().unwrap();
        conn.execute_batch(
            "CREATE VIRTUAL TABLE areas_fts USING fts5 (name, municipality, province,
                 content = '', tokenize = 'unicode61 remove_diacritics 2');
             CREATE VIRTUAL TABLE other_names_fts USING fts5 (name,
                 content = '', tokenize = 'unicode61 remove_diacritics 2');
             INSERT INTO areas_fts (rowid, name, municipality, province)
                 VALUES (1, 'Gqeberha', 'Nelson Mandela Bay', 'Eastern Cape');
             -- rank 7's two other names, rank 3's one, and rank 1's second.
             INSERT INTO other_names_fts (rowid, name) VALUES
                 (7 * 32, 'Port Elizabeth'), (7 * 32 + 1, 'Port Élizabeth Bay'),
                 (3 * 32, 'Port Natal'), (1 * 32 + 1, 'Elizabethville');",
        )
        .unwrap();
        let v = Vocabulary::read(&conn).unwrap();
        let of = |word: &str| v.other_ranks.of_word(v.find(word.as_bytes()).unwrap());
        assert_eq!(of("port"), [3, 7], "two areas, each once, best first");
        assert_eq!(of("elizabeth"), [7], "one area through two of its names");
        assert_eq!(of("natal"), [3]);
        assert_eq!(
            of("bay"),
            [7],
            "a word of both tables has its other names' areas"
        );
        assert!(of("gqeberha").is_empty(), "a word of no other name");
        assert_eq!(v.other_ranks.of_words(v.with_prefix(b"eli")), [1, 7]);
        assert_eq!(v.other_ranks.of_words(v.with_prefix(b"")), [1, 3, 7]);
    }
}
