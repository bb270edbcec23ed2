//! The arithmetic of a group's statistics and of an area's standing, exact in
//! integer hundredths: a `Histogram` counts a measure's scores (each a whole
//! number of hundredths from 0 to 10), and from it come the count, the mean,
//! the extremes and the quantiles, each rounded half away from zero to whole
//! hundredths (docs/api.md, "Area statistics").

/// Whole hundredths from 0 to 10 inclusive.
pub const SCORE_STEPS: usize = 1001;

/// The quantiles every group carries, in percent, in the order shown.
pub const QUANTILES: [(&str, u64); 5] = [
    ("p10", 10),
    ("p25", 25),
    ("p50", 50),
    ("p75", 75),
    ("p90", 90),
];

/// A score in whole hundredths, rounded as scores are (`domain::round2`) and
/// held to 0..=10.
pub fn hundredths(score: f64) -> u16 {
    (crate::domain::round2(score) * 100.0)
        .round()
        .clamp(0.0, (SCORE_STEPS - 1) as f64) as u16
}

/// `numerator / denominator` rounded half away from zero (both non-negative).
pub fn divide_rounded(numerator: u64, denominator: u64) -> u64 {
    (2 * numerator + denominator) / (2 * denominator)
}

/// How many scores fall on each hundredth.
#[derive(Clone)]
pub struct Histogram(pub Box<[u32; SCORE_STEPS]>);

impl Default for Histogram {
    fn default() -> Self {
        Histogram(Box::new([0; SCORE_STEPS]))
    }
}

/// A group's statistics of one measure, in hundredths; all None without scores.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Summary {
    pub count: u64,
    pub mean: Option<u64>,
    pub min: Option<u64>,
    pub max: Option<u64>,
    pub quantiles: [Option<u64>; QUANTILES.len()],
}

/// The names of a summary's values after `count`, in the order served.
pub const VALUE_NAMES: [&str; 3 + QUANTILES.len()] =
    ["mean", "min", "max", "p10", "p25", "p50", "p75", "p90"];

impl Summary {
    /// The values of `VALUE_NAMES`, in hundredths.
    pub fn values(&self) -> [Option<u64>; 3 + QUANTILES.len()] {
        let [p10, p25, p50, p75, p90] = self.quantiles;
        [self.mean, self.min, self.max, p10, p25, p50, p75, p90]
    }

    /// The statistics as the JSON object the API serves (docs/api.md, "Area
    /// statistics"): `count`, then each value in score points, null without
    /// scores. Written once when the file is, and copied into each answer.
    pub fn json(&self) -> String {
        let mut out = serde_json::Map::new();
        out.insert("count".into(), self.count.into());
        for (name, value) in VALUE_NAMES.iter().zip(self.values()) {
            let points = value.map(|v| v as f64 / 100.0);
            out.insert((*name).into(), points.into());
        }
        serde_json::Value::Object(out).to_string()
    }
}

impl Histogram {
    pub fn add(&mut self, score: u16) {
        self.0[usize::from(score)] += 1;
    }

    pub fn clear(&mut self) {
        self.0.fill(0);
    }

    /// Each score held, with how many times, ascending.
    pub fn scores(&self) -> impl Iterator<Item = (u16, u32)> + '_ {
        (0..SCORE_STEPS as u16)
            .zip(self.0.iter().copied())
            .filter(|(_, n)| *n > 0)
    }

    pub fn count(&self) -> u64 {
        self.0.iter().map(|&n| u64::from(n)).sum()
    }

    pub fn summary(&self) -> Summary {
        let count = self.count();
        if count == 0 {
            return Summary::default();
        }
        let sum: u64 = self
            .scores()
            .map(|(s, n)| u64::from(s) * u64::from(n))
            .sum();
        let first = self.scores().next().map(|(s, _)| u64::from(s));
        let last = self.scores().last().map(|(s, _)| u64::from(s));
        Summary {
            count,
            mean: Some(divide_rounded(sum, count)),
            min: first,
            max: last,
            quantiles: QUANTILES.map(|(_, percent)| Some(self.quantile(count, percent))),
        }
    }

    /// The `index`th smallest score (from 0).
    fn nth(&self, index: u64) -> u64 {
        let mut seen = 0u64;
        for (score, n) in self.scores() {
            seen += u64::from(n);
            if seen > index {
                return u64::from(score);
            }
        }
        unreachable!("index {index} is below the count")
    }

    /// Linear interpolation between the closest ranks (Hyndman and Fan's
    /// type 7, numpy's default): h = (count - 1) × percent / 100, the score
    /// at floor(h) plus the fraction of h times the step to the next one.
    fn quantile(&self, count: u64, percent: u64) -> u64 {
        let h = (count - 1) * percent;
        let (below, fraction) = (h / 100, h % 100);
        let low = self.nth(below);
        if fraction == 0 {
            return low;
        }
        let high = self.nth(below + 1);
        divide_rounded(100 * low + fraction * (high - low), 100)
    }
}

/// Where a score stands among `of` scores: `lower` below it, `equal` on it
/// (the area itself included).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Standing {
    pub lower: u64,
    pub equal: u64,
    pub of: u64,
}

impl Standing {
    /// 1 + the number of higher scores.
    pub fn position(self) -> u64 {
        1 + self.of - self.lower - self.equal
    }

    /// The percentile rank 100 × (lower + equal / 2) / of in tenths, rounded
    /// half away from zero.
    pub fn percentile_tenths(self) -> u64 {
        divide_rounded(500 * (2 * self.lower + self.equal), self.of)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn of(scores: &[u16]) -> Histogram {
        let mut h = Histogram::default();
        scores.iter().for_each(|&s| h.add(s));
        h
    }

    /// numpy.quantile's default on the scores, in float, rounded half away
    /// from zero to hundredths: exact here, since each is far from a halfway point.
    fn type7(sorted: &[u16], percent: u64) -> f64 {
        let h = (sorted.len() - 1) as f64 * percent as f64 / 100.0;
        let (lo, frac) = (h.floor() as usize, h.fract());
        let next = sorted.get(lo + 1).copied().unwrap_or(sorted[lo]);
        f64::from(sorted[lo]) + frac * (f64::from(next) - f64::from(sorted[lo]))
    }

    #[test]
    fn a_summary_is_served_in_score_points_and_nulls_without_scores() {
        let summary = Summary {
            count: 3,
            mean: Some(601),
            min: Some(310),
            max: Some(827),
            quantiles: [Some(440), Some(520), Some(600), Some(690), Some(750)],
        };
        assert_eq!(
            summary.json(),
            r#"{"count":3,"mean":6.01,"min":3.1,"max":8.27,"p10":4.4,"p25":5.2,"p50":6.0,"p75":6.9,"p90":7.5}"#
        );
        assert_eq!(
            Summary::default().json(),
            r#"{"count":0,"mean":null,"min":null,"max":null,"p10":null,"p25":null,"p50":null,"p75":null,"p90":null}"#
        );
    }

    #[test]
    fn quantiles_interpolate_between_the_closest_ranks() {
        // numpy.quantile([1, 2, 3, 4], [.1, .25, .5, .75, .9]) in hundredths:
        // 1.3, 1.75, 2.5, 3.25, 3.7.
        let s = of(&[100, 200, 300, 400]).summary();
        assert_eq!(s.quantiles, [130, 175, 250, 325, 370].map(Some), "{s:?}");
        assert_eq!(
            (s.count, s.mean, s.min, s.max),
            (4, Some(250), Some(100), Some(400))
        );
    }

    #[test]
    fn a_halfway_hundredth_rounds_away_from_zero() {
        // [0.01, 0.02]: p50 is 0.015, p25 0.0125, p75 0.0175.
        let s = of(&[1, 2]).summary();
        assert_eq!(s.quantiles, [Some(1), Some(1), Some(2), Some(2), Some(2)]);
        // The mean of 0.01 and 0.02 is 0.015: 0.02.
        assert_eq!(s.mean, Some(2));
        assert_eq!(divide_rounded(5, 10), 1);
        assert_eq!(divide_rounded(4, 10), 0);
        assert_eq!(divide_rounded(15, 10), 2);
    }

    #[test]
    fn quantiles_match_type_7_on_many_lists() {
        let mut state = 7u64;
        for len in 1..60usize {
            let mut scores: Vec<u16> = (0..len)
                .map(|_| {
                    state = state
                        .wrapping_mul(6364136223846793005)
                        .wrapping_add(1442695040888963407);
                    ((state >> 33) % 1001) as u16
                })
                .collect();
            let s = of(&scores).summary();
            scores.sort_unstable();
            for (i, (_, percent)) in QUANTILES.iter().enumerate() {
                let want = type7(&scores, *percent);
                let got = s.quantiles[i].unwrap() as f64;
                // Halfway cases round up: the float may sit a hair below .5.
                assert!(
                    (got - want).abs() <= 0.5 + 1e-9,
                    "{scores:?} p{percent}: {got} vs {want}"
                );
                assert_eq!(got, (want + 1e-9).round(), "{scores:?} p{percent}");
            }
        }
    }

    #[test]
    fn an_empty_group_has_a_count_of_zero_and_nothing_else() {
        assert_eq!(Histogram::default().summary(), Summary::default());
    }

    #[test]
    fn standing_counts_ties_as_half() {
        // Scores 1, 2, 2, 3: a 2 is second, with one higher.
        let two = Standing {
            lower: 1,
            equal: 2,
            of: 4,
        };
        assert_eq!(two.position(), 2);
        assert_eq!(two.percentile_tenths(), 500);
        let top = Standing {
            lower: 3,
            equal: 1,
            of: 4,
        };
        assert_eq!((top.position(), top.percentile_tenths()), (1, 875));
        // 100 × 0.5 / 3 = 16.666...: 16.7.
        let alone = Standing {
            lower: 0,
            equal: 1,
            of: 3,
        };
        assert_eq!(alone.percentile_tenths(), 167);
        // 100 × 1.5 / 8 = 18.75: 18.8.
        let half = Standing {
            lower: 1,
            equal: 1,
            of: 8,
        };
        assert_eq!(half.percentile_tenths(), 188);
    }

    #[test]
    fn a_score_is_taken_in_whole_hundredths() {
        assert_eq!(hundredths(6.45), 645);
        assert_eq!(hundredths(10.0), 1000);
        assert_eq!(hundredths(0.0), 0);
        assert_eq!(hundredths(1.005), 101);
    }
}
