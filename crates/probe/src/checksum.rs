//! The checksum of table files: a small, fast 64-bit hash written out here so that a reader in any language can
//! compute it from FORMAT.md alone.
//!
//! It reads the input as little-endian 64-bit words (the last one padded with zero bytes) and mixes each word with
//! one xor, one multiplication by an odd constant and one rotation. Each of these steps is a bijection of the state
//! for a fixed word and of the word for a fixed state, so two inputs of the same length that differ in a single word
//! — any single flipped bit, any corrupted byte run of up to 8 aligned bytes — always get different checksums. The
//! length enters the initial state, so a truncated input starts from another state.

/// The odd multiplier of the word step (the 64-bit golden ratio).
const P1: u64 = 0x9E37_79B9_7F4A_7C15;
/// The odd multiplier of the finaliser.
const P2: u64 = 0xC2B2_AE3D_27D4_EB4F;
/// The initial state before the length is mixed in ("RETROTB1" read as a little-endian word).
const SEED: u64 = u64::from_le_bytes(*b"RETROTB1");

/// The checksum of `bytes`, as FORMAT.md defines it.
pub fn checksum(bytes: &[u8]) -> u64 {
    let mut h = SEED ^ (bytes.len() as u64).wrapping_mul(P1);
    let mut words = bytes.chunks_exact(8);
    for word in &mut words {
        let w = u64::from_le_bytes(word.try_into().expect("chunks_exact gives 8 bytes"));
        h = step(h, w);
    }
    let tail = words.remainder();
    if !tail.is_empty() {
        let mut last = [0u8; 8];
        last[..tail.len()].copy_from_slice(tail);
        h = step(h, u64::from_le_bytes(last));
    }
    h ^= h >> 32;
    h = h.wrapping_mul(P2);
    h ^ (h >> 29)
}

#[inline(always)]
fn step(h: u64, w: u64) -> u64 {
    (h ^ w).wrapping_mul(P1).rotate_left(29)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_values_do_not_change() {
        // Pinned so that a change of the function, which would make every table unreadable, cannot go unnoticed.
        // FORMAT.md quotes the same values for implementers.
        assert_eq!(checksum(b""), 0x7cc1_193c_8a80_2f08, "{:#x}", checksum(b""));
        assert_eq!(
            checksum(b"retro"),
            0x7521_fc81_2df0_3629,
            "{:#x}",
            checksum(b"retro")
        );
    }

    #[test]
    fn every_single_bit_flip_changes_the_checksum() {
        let data: Vec<u8> = (0..203u32)
            .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
            .collect();
        let original = checksum(&data);
        let mut copy = data.clone();
        for byte in 0..copy.len() {
            for bit in 0..8 {
                copy[byte] ^= 1 << bit;
                assert_ne!(
                    checksum(&copy),
                    original,
                    "flip of bit {bit} of byte {byte} went unnoticed"
                );
                copy[byte] ^= 1 << bit;
            }
        }
    }

    #[test]
    fn every_truncation_changes_the_checksum() {
        let data = [0u8; 100];
        let all: std::collections::HashSet<u64> =
            (0..=data.len()).map(|n| checksum(&data[..n])).collect();
        assert_eq!(all.len(), data.len() + 1);
    }
}
