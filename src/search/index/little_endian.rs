//! How search stores arrays of numbers in a dataset's file: each value's
//! little-endian bytes, one after another, so a blob reads back the same on
//! any machine. The bitmaps here, the stored match sets
//! (search/matches/word_store/) and the stored vocabulary
//! (search/words/vocabulary_store.rs) are written and read this way.

/// The bytes of each value, in order.
pub fn u32_bytes(values: &[u32]) -> Vec<u8> {
    bytes_of(values, u32::to_le_bytes)
}

/// The values of `u32_bytes`'s bytes; None unless they are whole values.
pub fn u32s(bytes: &[u8]) -> Option<Vec<u32>> {
    values_of(bytes, u32::from_le_bytes)
}

/// The bytes of each value, in order.
pub fn u64_bytes(values: &[u64]) -> Vec<u8> {
    bytes_of(values, u64::to_le_bytes)
}

/// The values of `u64_bytes`'s bytes; None unless they are whole values.
pub fn u64s(bytes: &[u8]) -> Option<Vec<u64>> {
    values_of(bytes, u64::from_le_bytes)
}

fn bytes_of<T: Copy, const N: usize>(values: &[T], le: impl Fn(T) -> [u8; N]) -> Vec<u8> {
    values.iter().flat_map(|&v| le(v)).collect()
}

fn values_of<T, const N: usize>(bytes: &[u8], from_le: impl Fn([u8; N]) -> T) -> Option<Vec<T>> {
    let (whole, rest) = bytes.as_chunks::<N>();
    rest.is_empty()
        .then(|| whole.iter().map(|&b| from_le(b)).collect())
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
