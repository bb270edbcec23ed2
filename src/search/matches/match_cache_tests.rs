//! Tests of match_cache.rs.
use super::*;

/// A list of n ranks: 4n bytes.
fn list(n: usize) -> Matches {
    Matches::List((1..=n as u32).collect())
}

#[test]
fn stays_within_capacity_dropping_the_least_recently_used() {
    let cache = MatchCache::new(HEAVY);
    // 4n bytes a list: 64 fill the budget.
    let sixty_fourth = LIST_CAPACITY / 4 / 64;
    let queries: Vec<String> = (0..64).map(|i| format!("w{i}")).collect();
    for q in &queries {
        cache.keep(q, list(sixty_fourth));
    }
    assert_eq!(cache.kept_bytes(), LIST_CAPACITY);
    assert!(cache.get("w0").is_some()); // now w1 is the least recently used
    cache.keep("new", list(sixty_fourth));
    // Room is made for a ROOM_MADE-th of the budget beside the new list,
    // the least recently used dropped first.
    let dropped: Vec<&String> = queries.iter().filter(|q| cache.get(q).is_none()).collect();
    let oldest: Vec<String> = (1..=64 / ROOM_MADE + 1).map(|i| format!("w{i}")).collect();
    assert_eq!(dropped, oldest.iter().collect::<Vec<_>>());
    assert!(cache.get("new").is_some() && cache.get("w0").is_some());
    assert_eq!(
        cache.kept_bytes(),
        LIST_CAPACITY - LIST_CAPACITY / ROOM_MADE
    );
    // A list larger than the budget is not kept, and drops nothing.
    let before = cache.kept_bytes();
    cache.keep("huge", list(LIST_CAPACITY / 4 + 1));
    assert!(cache.get("huge").is_none());
    assert_eq!(cache.kept_bytes(), before);
}

/// A bitmap counts towards the capacity as its bytes.
#[test]
fn bitmaps_count_towards_the_capacity() {
    let cache = MatchCache::new(HEAVY);
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
