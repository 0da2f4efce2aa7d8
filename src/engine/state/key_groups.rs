//! Where the heap backend puts a key: its key group and its bucket hash.
//!
//! Follows Flink 2.3.0 (checked against the bytecode of `flink-dist-2.3.0.jar`):
//! - `KeyGroupRangeAssignment.assignToKeyGroup(key, maxParallelism)` =
//!   `MathUtils.murmurHash(key.hashCode()) % maxParallelism`;
//! - `KeyGroupRangeAssignment.computeDefaultMaxParallelism(parallelism)` =
//!   `min(max(roundUpToPowerOfTwo(p + p / 2), 128), 32768)`: 128 at parallelism 1, which is
//!   what this simulator runs (one subtask holds every key group, `KeyGroupRange.of(0, 127)`);
//! - `CopyOnWriteStateMap.compositeHash(key, namespace)` =
//!   `MathUtils.bitMix(key.hashCode() ^ namespace.hashCode())`, and every SQL operator's keyed
//!   state lives in `VoidNamespace.INSTANCE`, whose `hashCode()` is 99.
//!
//! A SQL key is the `BinaryRowData` of the key selector, whose `hashCode()` is
//! [`binary_row_hash_code`](crate::engine::operators::binary_row::binary_row_hash_code).

/// The number of key groups at parallelism 1 (`computeDefaultMaxParallelism(1)`).
pub const MAX_PARALLELISM: u32 = 128;

/// `VoidNamespace.INSTANCE.hashCode()`.
pub const VOID_NAMESPACE_HASH_CODE: i32 = 99;

/// `MathUtils.bitMix(int)`: Murmur3's 32-bit finaliser.
pub fn bit_mix(h: i32) -> i32 {
    let mut h = h as u32;
    h ^= h >> 16;
    h = h.wrapping_mul(0x85eb_ca6b);
    h ^= h >> 13;
    h = h.wrapping_mul(0xc2b2_ae35);
    h ^= h >> 16;
    h as i32
}

/// `MathUtils.murmurHash(int)`: a non-negative Murmur3 hash of one int.
pub fn murmur_hash(code: i32) -> i32 {
    let mut code = code as u32;
    code = code.wrapping_mul(0xcc9e_2d51);
    code = code.rotate_left(15);
    code = code.wrapping_mul(0x1b87_3593);
    code = code.rotate_left(13);
    code = code.wrapping_mul(5).wrapping_add(0xe654_6b64);
    code ^= 4;
    let code = bit_mix(code as i32);
    if code >= 0 {
        code
    } else if code != i32::MIN {
        -code
    } else {
        0
    }
}

/// `KeyGroupRangeAssignment.assignToKeyGroup` for a key whose `hashCode()` is `hash_code`, with
/// [`MAX_PARALLELISM`] key groups.
pub fn assign_to_key_group(hash_code: i32) -> u32 {
    murmur_hash(hash_code) as u32 % MAX_PARALLELISM
}

/// `CopyOnWriteStateMap.compositeHash(key, VoidNamespace.INSTANCE)`.
pub fn composite_hash(hash_code: i32) -> i32 {
    bit_mix(hash_code ^ VOID_NAMESPACE_HASH_CODE)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What Flink 2.3.0 printed for the key row `user-0` (`BinaryRowData.hashCode()`
    /// -123313917): `tests/oracle/ttl_incremental_cleanup/h_value_new_keys.expected`, line 1.
    #[test]
    fn key_group_and_bucket_hash_match_flink() {
        assert_eq!(assign_to_key_group(-123_313_917), 127);
        assert_eq!(composite_hash(-123_313_917), -1_082_487_820);
        assert!(murmur_hash(i32::MIN) >= 0);
    }
}
