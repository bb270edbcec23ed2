//! Dense bitmaps over the area index's positions (mod.rs): one bit per
//! area, set where a heavy word matches. Counting a word's matches inside a
//! run of positions (a grid cell's areas scoring enough) is then a popcount a
//! machine word at a time, whatever the number of matches; several words are
//! ANDed word by word on the way.

use crate::search::index::little_endian;

/// One bit per position, from 0.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Bits {
    words: Vec<u64>,
}

impl Bits {
    /// All clear, for positions 0 up to `len`.
    pub fn new(len: usize) -> Bits {
        Bits {
            words: vec![0; len.div_ceil(64)],
        }
    }

    /// Sets a position; one past the end is ignored (callers pass positions
    /// from the same index the bitmap was sized for).
    pub fn set(&mut self, i: usize) {
        if let Some(w) = self.words.get_mut(i / 64) {
            *w |= 1 << (i % 64);
        }
    }

    pub fn get(&self, i: usize) -> bool {
        self.words
            .get(i / 64)
            .is_some_and(|w| w >> (i % 64) & 1 == 1)
    }

    /// The bitmap as bytes, little-endian a machine word at a time, as the
    /// dataset stores it (search/matches/word_store/).
    pub fn to_bytes(&self) -> Vec<u8> {
        little_endian::u64_bytes(&self.words)
    }

    /// A bitmap for positions 0 up to `len` from `to_bytes`; None when the
    /// bytes are not of that size.
    pub fn from_bytes(bytes: &[u8], len: usize) -> Option<Bits> {
        let words = little_endian::u64s(bytes)?;
        (words.len() == len.div_ceil(64)).then_some(Bits { words })
    }

    /// The ranges of positions, a machine word at a time, whose words hold
    /// a set bit; runs of fewer than `gap` clear words between two such
    /// ranges are taken into one, as counting past a few words costs less
    /// than another range.
    pub fn spans(&self, gap: usize) -> Vec<(usize, usize)> {
        let mut spans: Vec<(usize, usize)> = Vec::new();
        for (w, _) in self.words.iter().enumerate().filter(|(_, v)| **v != 0) {
            match spans.last_mut() {
                Some(last) if w * 64 < last.1 + gap * 64 => last.1 = (w + 1) * 64,
                _ => spans.push((w * 64, (w + 1) * 64)),
            }
        }
        spans
    }

    /// Bytes held, for the kept lists' account (search/matches/match_cache.rs).
    pub fn bytes(&self) -> usize {
        self.words.len() * 8
    }
}

/// The bits of machine word `w` that lie in positions `start..end`.
fn mask(w: usize, start: usize, end: usize) -> u64 {
    let lo = (w * 64).max(start) - w * 64;
    let hi = ((w + 1) * 64).min(end) - w * 64;
    if hi <= lo {
        0
    } else if hi - lo == 64 {
        u64::MAX
    } else {
        ((1u64 << (hi - lo)) - 1) << lo
    }
}

/// The AND of every set's word `w` (all ones for no sets).
fn and_word(sets: &[&Bits], w: usize) -> u64 {
    sets.iter()
        .map(|s| s.words.get(w).copied().unwrap_or(0))
        .fold(u64::MAX, |a, b| a & b)
}

/// How many positions in `start..end` are set in every one of `sets`.
pub fn count_all(sets: &[&Bits], start: usize, end: usize) -> usize {
    if start >= end {
        return 0;
    }
    (start / 64..end.div_ceil(64))
        .map(|w| (and_word(sets, w) & mask(w, start, end)).count_ones() as usize)
        .sum()
}

/// Calls `each` on every position in `start..end` set in all of `sets`, in order.
pub fn each_in_all(sets: &[&Bits], start: usize, end: usize, mut each: impl FnMut(usize)) {
    if start >= end {
        return;
    }
    for w in start / 64..end.div_ceil(64) {
        let mut bits = and_word(sets, w) & mask(w, start, end);
        while bits != 0 {
            each(w * 64 + bits.trailing_zeros() as usize);
            bits &= bits - 1;
        }
    }
}

/// The first position from `from` up to `end` set in every one of `sets`.
pub fn next_in_all(sets: &[&Bits], from: usize, end: usize) -> Option<usize> {
    (from / 64..end.div_ceil(64)).find_map(|w| {
        let bits = and_word(sets, w) & mask(w, from, end);
        (bits != 0).then(|| w * 64 + bits.trailing_zeros() as usize)
    })
}

/// The `n`th (from 0) position from `start` up to `end` set in every one of
/// `sets`: whole machine words are counted past, so a deep page costs a
/// popcount a word rather than a look at each position before it.
pub fn nth_in_all(sets: &[&Bits], n: usize, start: usize, end: usize) -> Option<usize> {
    let mut left = n;
    for w in start / 64..end.div_ceil(64) {
        let mut bits = and_word(sets, w) & mask(w, start, end);
        let count = bits.count_ones() as usize;
        if left < count {
            for _ in 0..left {
                bits &= bits - 1;
            }
            return Some(w * 64 + bits.trailing_zeros() as usize);
        }
        left -= count;
    }
    None
}

/// Whether a position is set in every one of `sets`.
pub fn in_all(sets: &[&Bits], i: usize) -> bool {
    sets.iter().all(|s| s.get(i))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bits(len: usize, set: impl Fn(usize) -> bool) -> Bits {
        let mut b = Bits::new(len);
        (0..len).filter(|&i| set(i)).for_each(|i| b.set(i));
        b
    }

    /// Every range against a bit-by-bit count, across word edges, empty
    /// ranges, every bit set and none.
    #[test]
    fn counts_and_lists_match_bit_by_bit() {
        let len = 200;
        let a = bits(len, |i| i % 3 == 0 || i == 63 || i == 64);
        let b = bits(len, |i| i % 2 == 0);
        let full = bits(len, |_| true);
        let empty = bits(len, |_| false);
        for sets in [
            vec![&a],
            vec![&a, &b],
            vec![&full],
            vec![&empty],
            vec![&full, &b],
        ] {
            for start in [0, 1, 63, 64, 65, 127, 128, 199, 200] {
                for end in [0, 1, 63, 64, 65, 128, 130, 199, 200] {
                    let want: Vec<usize> = (start..end).filter(|&i| in_all(&sets, i)).collect();
                    assert_eq!(count_all(&sets, start, end), want.len(), "{start}..{end}");
                    let mut got = Vec::new();
                    each_in_all(&sets, start, end, |i| got.push(i));
                    assert_eq!(got, want, "{start}..{end}");
                    let mut stepped = Vec::new();
                    let mut from = start;
                    while let Some(i) = next_in_all(&sets, from, end) {
                        stepped.push(i);
                        from = i + 1;
                    }
                    assert_eq!(stepped, want, "{start}..{end} step by step");
                    for n in 0..=want.len() {
                        let nth = nth_in_all(&sets, n, start, end);
                        assert_eq!(nth, want.get(n).copied(), "{n}th of {start}..{end}");
                    }
                }
            }
        }
        for (set, gap) in [(&a, 1), (&empty, 1), (&full, 3)] {
            let spans = set.spans(gap);
            let covered: usize = spans.iter().map(|&(s, e)| count_all(&[set], s, e)).sum();
            assert_eq!(covered, count_all(&[set], 0, len), "spans of {set:?}");
        }
        // Two words apart: one span with a gap of 2, two with a gap of 1.
        let apart = bits(len, |i| i == 3 || i == 131);
        assert_eq!(apart.spans(1), vec![(0, 64), (128, 192)]);
        assert_eq!(apart.spans(2), vec![(0, 192)]);
        assert_eq!(count_all(&[&full], 0, len), len);
        assert_eq!(count_all(&[&empty], 0, len), 0);
        assert!(!a.get(len) && !full.get(len + 64));
    }
}
