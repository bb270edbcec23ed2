//! Finding ranks in a sorted list of search ranks, in increasing order:
//! the walk under every intersection of word matches (rank_set.rs).
//!
//! Two ways, chosen by how much longer the list is than the ranks sought.
//! Stepping along the list costs a predictable comparison a place;
//! galloping costs a few probes a rank, but its branches mispredict.
//! examples/intersection_time.rs times both on random ranks below a
//! million (bench/PROFILE.md, "Intersections"): 952 ranks sought in a list
//! of 4,840 took 13 µs galloping and 4–6 µs stepping; 1,000 in 16,000, 19–29
//! and 11–17 µs; in 32,000 the two were even; in 100,000, 31–44 and 51–101 µs.

/// A list at most this many times longer than the ranks sought in it is
/// stepped along; a longer one is galloped over.
const STEP_AT_MOST: usize = 16;

/// A place in a sorted list (each rank once), moving forward only.
pub struct Seek<'a> {
    list: &'a [u32],
    at: usize,
    steps: bool,
}

impl<'a> Seek<'a> {
    /// At the list's start, to seek about `sought` ranks in increasing order.
    pub fn new(list: &'a [u32], sought: usize) -> Seek<'a> {
        Seek {
            list,
            at: 0,
            steps: list.len() <= sought.saturating_mul(STEP_AT_MOST),
        }
    }

    /// Moves to the first place holding `rank` or more (`rank` no less than
    /// the last sought), and says whether it holds `rank`.
    pub fn holds(&mut self, rank: u32) -> bool {
        self.at = if self.steps {
            let rest = &self.list[self.at..];
            self.at + rest.iter().position(|&r| r >= rank).unwrap_or(rest.len())
        } else {
            gallop(self.list, self.at, rank)
        };
        self.list.get(self.at) == Some(&rank)
    }

    /// The place reached.
    pub fn at(&self) -> usize {
        self.at
    }
}

/// The first place from `at` in a sorted list holding `rank` or more. It
/// looks 1, 2, 4... places ahead, then searches the last step: the next
/// rank of a short list usually lies near in a long one, where a search of
/// the whole rest took a third of a full-name search at a million areas.
fn gallop(list: &[u32], at: usize, rank: u32) -> usize {
    let (mut low, mut step) = (at, 1);
    while low + step < list.len() && list[low + step] < rank {
        low += step;
        step *= 2;
    }
    let high = (low + step + 1).min(list.len());
    low + list[low..high].partition_point(|&r| r < rank)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Both ways find every rank of every density, near and far, before,
    /// inside and past the list's end.
    #[test]
    fn stepping_and_galloping_find_the_same_ranks() {
        let lists: Vec<Vec<u32>> = vec![
            vec![],
            vec![5],
            (0..5000).step_by(3).collect(),
            (100..200).collect(),
            (0..20000).step_by(997).collect(),
        ];
        let sought: Vec<Vec<u32>> = vec![
            vec![0, 4, 5, 6, 1_000_000],
            (0..300).collect(),
            (0..21000).step_by(7).collect(),
            vec![150, 199, 200, 201],
        ];
        for list in &lists {
            for ranks in &sought {
                let want: Vec<bool> = ranks.iter().map(|r| list.contains(r)).collect();
                for sought_count in [1, usize::MAX / STEP_AT_MOST] {
                    let mut seek = Seek::new(list, sought_count);
                    let got: Vec<bool> = ranks.iter().map(|&r| seek.holds(r)).collect();
                    assert_eq!(got, want, "{} ranks, {ranks:?}", list.len());
                    let past = list.partition_point(|&r| r < *ranks.last().unwrap());
                    assert_eq!(seek.at(), past);
                }
            }
        }
    }
}
