//! Tests of match_cache.rs.
use super::*;

/// A list of n ranks: 4n bytes.
fn list(n: usize) -> Matches {
    Matches::List((1..=n as u32).collect())
}

#[test]
fn stays_within_capacity_dropping_the_least_recently_used() {
    let cache = MatchCache::default();
    let quarter = LIST_CAPACITY / 16;
    for q in ["a", "b", "c", "d"] {
        cache.keep(q, list(quarter));
    }
    assert!(cache.get("a").is_some()); // "b" is the least recently used
    cache.keep("e", list(quarter));
    assert!(cache.get("b").is_none());
    for q in ["a", "c", "d", "e"] {
        assert!(cache.get(q).is_some(), "{q}");
    }
    assert_eq!(cache.kept_bytes(), LIST_CAPACITY);
    cache.keep("huge", list(LIST_CAPACITY / 4 + 1));
    assert!(cache.get("huge").is_none());
    assert_eq!(cache.kept_bytes(), LIST_CAPACITY);
}

/// A bitmap counts towards the capacity as its bytes.
#[test]
fn bitmaps_count_towards_the_capacity() {
    let cache = MatchCache::default();
    let bits = Arc::new(WordBits {
        matches: 0,
        by_rank: Bits::new(8 * 1024 * 64),
        by_position: Bits::new(8 * 1024 * 64),
        by_score: Bits::new(8 * 1024 * 64),
    });
    cache.keep("w", Matches::Bits(bits));
    assert_eq!(cache.kept_bytes(), 3 * 64 * 1024);
    // Lists filling their own budget leave the bitmaps kept.
    for i in 0..8 {
        cache.keep(&format!("l{i}"), list(LIST_CAPACITY / 16));
    }
    assert!(cache.get("w").is_some());
    assert_eq!(cache.kept_bytes(), 3 * 64 * 1024 + LIST_CAPACITY);
    assert!(
        cache
            .get("w")
            .is_some_and(|m| matches!(m, Matches::Bits(_)))
    );
    let share = 64_000 / BITMAP_SHARE;
    assert!(cache.wants_bits(share, 64_000) && !cache.wants_bits(share - 1, 64_000));
    assert!(!cache.wants_bits(HEAVY - 1, 1000));
    // Heavy from one area in HEAVY_SHARE, and never under HEAVY.
    let million = MatchCache::for_areas(1_000_000);
    assert!(million.is_heavy(3906) && !million.is_heavy(3905));
    assert!(
        MatchCache::for_areas(1000).is_heavy(HEAVY)
            && !MatchCache::for_areas(1000).is_heavy(HEAVY - 1)
    );
}
