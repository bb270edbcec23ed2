//! How search stores arrays of numbers in a dataset's file: each value's
//! little-endian bytes, one after another, so a blob reads back the same on
//! any machine. The bitmaps here, the stored match sets
//! (search/matches/word_store.rs) and the stored vocabulary
//! (search/words/vocabulary_store.rs) are written and read this way.

/// The bytes of each value, in order.
pub fn u32_bytes(values: &[u32]) -> Vec<u8> {
    values.iter().flat_map(|v| v.to_le_bytes()).collect()
}

/// The values of `u32_bytes`'s bytes; None unless they are whole values.
pub fn u32s(bytes: &[u8]) -> Option<Vec<u32>> {
    let whole = bytes.chunks_exact(4);
    whole.remainder().is_empty().then(|| {
        whole
            .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
            .collect()
    })
}

/// The bytes of each value, in order.
pub fn u64_bytes(values: &[u64]) -> Vec<u8> {
    values.iter().flat_map(|v| v.to_le_bytes()).collect()
}

/// The values of `u64_bytes`'s bytes; None unless they are whole values.
pub fn u64s(bytes: &[u8]) -> Option<Vec<u64>> {
    let whole = bytes.chunks_exact(8);
    whole.remainder().is_empty().then(|| {
        whole
            .map(|b| u64::from_le_bytes([b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]]))
            .collect()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_read_back_as_written_and_partial_values_are_refused() {
        let small = [0, 1, 0x0102_0304, u32::MAX];
        assert_eq!(u32_bytes(&small)[8..12], [4, 3, 2, 1]);
        assert_eq!(u32s(&u32_bytes(&small)), Some(small.to_vec()));
        assert_eq!(u32s(&[1, 2, 3]), None);
        assert_eq!(u32s(&[]), Some(vec![]));
        let large = [0, u64::MAX, 0x0102_0304_0506_0708];
        assert_eq!(u64_bytes(&large)[16], 8);
        assert_eq!(u64s(&u64_bytes(&large)), Some(large.to_vec()));
        assert_eq!(u64s(&[0; 12]), None);
    }
}
