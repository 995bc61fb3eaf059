//! A decompressed win/draw/loss block as the block cache keeps it: a directory of its 64-byte chunks, where a chunk
//! of one value is its entry alone, and each other chunk's bytes are kept once however often the block repeats it.
//!
//! A warm probe of a five-man table reads one value from a decompressed block of 2^22 values, a megabyte: over a
//! whole table (KQRvKR's 55 MB decompressed), each probe's value is a miss to memory, and that miss was 41% of a
//! probe's time. But a WDL block is mostly long runs: 95% of KQRvKR's 64-byte chunks (256 values) hold one value.
//! Its directory (two bytes a chunk, 1.7 MB for the table) and the chunks left (2.9 MB) fit the processor's
//! last-level cache where the plain blocks did not, and 95% of probes are answered from the directory alone.
//!
//! Where runs are short, a block still repeats itself: the values of a pawn table cycle with the pawn's square, so
//! that KQvKP's 2.7 MB of values compress to 7 KB, yet hardly one chunk in eight holds a single value. Its chunks
//! are 1,705 distinct ones, repeated: kept once each, with the directory, the block is 193 KB. Kept so, the
//! shipped 3- and 4-man tables' WDL blocks take 12.3 MB of cache, against 22.3 MB when only the chunks of one
//! value were left out (and a block with fewer than one such chunk in eight kept plain). A block whose chunks are
//! mostly distinct stays plain, which one read answers.
//!
//! Layout: one tag byte, then either the plain block ([`PLAIN`]), or ([`CHUNKED`]) the little-endian `u32` offset of
//! the stored chunks, one little-endian `u16` per chunk (`UNIFORM + code` for a chunk of one code, else its number
//! among the stored chunks), and the stored chunks, 64 bytes each (the last one padded with zeros), each distinct
//! chunk once.

use rustc_hash::FxHashMap;

/// Values per byte of a decompressed WDL block (two bits each).
const VALUES_PER_BYTE: usize = 4;
/// Bytes of a chunk: one cache line.
const CHUNK_BYTES: usize = 64;
/// Values of a chunk.
const CHUNK_VALUES: usize = CHUNK_BYTES * VALUES_PER_BYTE;
/// The entry of a chunk of one code is `UNIFORM + code`; a stored chunk's number is below it.
const UNIFORM: u16 = u16::MAX - 3;
/// Tag: the plain block follows.
const PLAIN: u8 = 0;
/// Tag: the offset of the stored chunks, the directory and the stored chunks follow.
const CHUNKED: u8 = 1;
/// Where the directory of a chunked block starts: after the tag and the offset.
const DIRECTORY: usize = 5;
/// A block is kept in chunks when that takes at most this share of its plain bytes (3/4): a probe then reads two
/// places (the directory, then a chunk) where a plain block is one, which pays only when they are fewer bytes to
/// keep in the processor's caches.
const KEPT_SHARE: (usize, usize) = (3, 4);

/// The block the cache keeps for `plain`, a decompressed WDL block (two bits a value, four values a byte, the
/// first in the low bits).
pub(crate) fn from_plain(plain: &[u8]) -> Box<[u8]> {
    let chunks = plain.len().div_ceil(CHUNK_BYTES);
    // Each chunk's entry, and the distinct chunks of more than one code in the order first met.
    let mut entries: Vec<u16> = Vec::with_capacity(chunks);
    let mut stored: Vec<&[u8]> = Vec::new();
    let mut numbers: FxHashMap<&[u8], u16> = FxHashMap::default();
    for chunk in plain.chunks(CHUNK_BYTES) {
        let code = chunk[0] & 3;
        let entry = if chunk.iter().all(|&b| b == code * 0x55) {
            UNIFORM + u16::from(code)
        } else {
            let next = stored.len() as u16;
            let number = *numbers.entry(chunk).or_insert(next);
            if number == next {
                stored.push(chunk);
                if stored.len() > usize::from(UNIFORM) {
                    return plain_kept(plain);
                }
            }
            number
        };
        entries.push(entry);
    }
    let stored_from = DIRECTORY + 2 * chunks;
    let kept_len = stored_from + stored.len() * CHUNK_BYTES;
    if kept_len * KEPT_SHARE.1 > plain.len() * KEPT_SHARE.0 {
        return plain_kept(plain);
    }
    let mut out = vec![0u8; kept_len];
    out[0] = CHUNKED;
    out[1..DIRECTORY].copy_from_slice(&(stored_from as u32).to_le_bytes());
    for (k, entry) in entries.into_iter().enumerate() {
        out[DIRECTORY + 2 * k..DIRECTORY + 2 * k + 2].copy_from_slice(&entry.to_le_bytes());
    }
    for (n, chunk) in stored.into_iter().enumerate() {
        let at = stored_from + n * CHUNK_BYTES;
        out[at..at + chunk.len()].copy_from_slice(chunk);
    }
    out.into_boxed_slice()
}

/// `plain` kept as it is, after its tag.
fn plain_kept(plain: &[u8]) -> Box<[u8]> {
    let mut out = Vec::with_capacity(1 + plain.len());
    out.push(PLAIN);
    out.extend_from_slice(plain);
    out.into_boxed_slice()
}

/// The two-bit code of value `i` of a block kept by [`from_plain`].
#[inline(always)]
pub(crate) fn code_at(block: &[u8], i: usize) -> u8 {
    let byte = if block[0] == PLAIN {
        block[1 + i / VALUES_PER_BYTE]
    } else {
        let k = i / CHUNK_VALUES;
        let entry = u16::from_le_bytes([block[DIRECTORY + 2 * k], block[DIRECTORY + 2 * k + 1]]);
        if entry >= UNIFORM {
            return (entry - UNIFORM) as u8;
        }
        let stored_from = u32::from_le_bytes([block[1], block[2], block[3], block[4]]) as usize;
        block[stored_from + usize::from(entry) * CHUNK_BYTES + (i % CHUNK_VALUES) / VALUES_PER_BYTE]
    };
    (byte >> ((i % VALUES_PER_BYTE) * 2)) & 3
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every value of a block reads back the same kept in chunks or plain, whatever its runs: uniform chunks of each
    /// code (the invalid code 3 included, which the reader reports), stored ones, a last chunk cut short.
    #[test]
    fn every_value_reads_back_the_same() {
        let mut seed = 7u64;
        let mut random = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        for (bytes, noisy_one_in) in [
            (64 * 40, 4),
            (64 * 40 + 9, 2),
            (64 * 40, 1),
            (64 * 3, 100),
            (5, 1),
        ] {
            let mut plain = vec![0u8; bytes];
            for chunk in plain.chunks_mut(CHUNK_BYTES) {
                let code = (random() % 4) as u8;
                chunk.fill(code * 0x55);
                if random() % noisy_one_in == 0 {
                    let b = (random() as usize) % chunk.len();
                    chunk[b] ^= 1 << ((random() % 4) * 2);
                }
            }
            let kept = from_plain(&plain);
            for i in 0..bytes * VALUES_PER_BYTE {
                let want = (plain[i / 4] >> ((i % 4) * 2)) & 3;
                assert_eq!(
                    code_at(&kept, i),
                    want,
                    "{bytes} bytes, noisy 1 in {noisy_one_in}, value {i}"
                );
            }
        }
    }

    /// A block of long runs is kept in chunks, much smaller; a block of noise stays plain.
    #[test]
    fn runs_are_kept_in_chunks_and_noise_plain() {
        let mut runs = vec![0x55u8; 1 << 16];
        runs[1000] = 0x56;
        let kept = from_plain(&runs);
        assert_eq!(kept[0], CHUNKED);
        assert_eq!(kept.len(), DIRECTORY + 2 * 1024 + CHUNK_BYTES);
        let mut seed = 11u64;
        let noise: Vec<u8> = (0..1 << 16)
            .map(|_| {
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                seed as u8
            })
            .collect();
        let kept = from_plain(&noise);
        assert_eq!(kept[0], PLAIN);
        assert_eq!(kept.len(), 1 + noise.len());
    }

    /// A block that cycles through a few chunks of mixed values, as a pawn table's values cycle with the pawn's
    /// square, keeps each of them once; a block whose repeats would save too little stays plain.
    #[test]
    fn repeated_chunks_are_kept_once() {
        let cycle: Vec<[u8; CHUNK_BYTES]> = (0..3u8)
            .map(|c| std::array::from_fn(|b| (b as u8).wrapping_mul(29).wrapping_add(c)))
            .collect();
        let chunks = 1000;
        let plain: Vec<u8> = (0..chunks).flat_map(|k| cycle[k % 3]).collect();
        let kept = from_plain(&plain);
        assert_eq!(kept[0], CHUNKED);
        assert_eq!(kept.len(), DIRECTORY + 2 * chunks + 3 * CHUNK_BYTES);
        for i in 0..plain.len() * VALUES_PER_BYTE {
            let want = (plain[i / 4] >> ((i % 4) * 2)) & 3;
            assert_eq!(code_at(&kept, i), want, "value {i}");
        }
        // Three distinct chunks in four: 3/4 of the plain bytes, and the directory besides.
        let plain: Vec<u8> = (0..chunks)
            .flat_map(|k| {
                let mut chunk = cycle[0];
                chunk[..8].copy_from_slice(&((k - usize::from(k % 4 == 3)) as u64).to_le_bytes());
                chunk
            })
            .collect();
        assert_eq!(from_plain(&plain)[0], PLAIN);
    }
}
