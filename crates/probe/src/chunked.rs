//! A decompressed win/draw/loss block as the block cache keeps it: a directory of its 64-byte chunks, where a chunk
//! of one value is its entry alone, and only the other chunks' bytes.
//!
//! A warm probe of a five-man table reads one value from a decompressed block of 2^22 values, a megabyte: over a
//! whole table (KQRvKR's 55 MB decompressed), each probe's value is a miss to memory, and that miss was 41% of a
//! probe's time. But a WDL block is mostly long runs: 95% of KQRvKR's 64-byte chunks (256 values) hold one value.
//! Its directory (two bytes a chunk, 1.7 MB for the table) and the chunks left (2.9 MB) fit the processor's
//! last-level cache where the plain blocks did not, and 95% of probes are answered from the directory alone. A
//! block with few uniform chunks stays plain, which one read answers.
//!
//! Layout: one tag byte, then either the plain block ([`PLAIN`]), or ([`CHUNKED`]) the little-endian `u32` offset of
//! the stored chunks, one little-endian `u16` per chunk (`UNIFORM + code` for a chunk of one code, else its number
//! among the stored chunks), and the stored chunks, 64 bytes each (the last one padded with zeros).

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
/// A block is kept in chunks when at least one chunk in this many holds one value: below, the directory would
/// mostly add a read to each probe.
const UNIFORM_SHARE: usize = 8;

/// The block the cache keeps for `plain`, a decompressed WDL block (two bits a value, four values a byte, the
/// first in the low bits).
pub(crate) fn from_plain(plain: &[u8]) -> Box<[u8]> {
    // Each chunk's one code, if it holds one.
    let uniform: Vec<Option<u8>> = plain
        .chunks(CHUNK_BYTES)
        .map(|chunk| {
            let code = chunk[0] & 3;
            chunk.iter().all(|&b| b == code * 0x55).then_some(code)
        })
        .collect();
    let chunks = uniform.len();
    let stored_chunks = uniform.iter().filter(|u| u.is_none()).count();
    if (chunks - stored_chunks) * UNIFORM_SHARE < chunks || stored_chunks > usize::from(UNIFORM) {
        let mut out = Vec::with_capacity(1 + plain.len());
        out.push(PLAIN);
        out.extend_from_slice(plain);
        return out.into_boxed_slice();
    }
    let stored_from = DIRECTORY + 2 * chunks;
    let mut out = vec![0u8; stored_from + stored_chunks * CHUNK_BYTES];
    out[0] = CHUNKED;
    out[1..DIRECTORY].copy_from_slice(&(stored_from as u32).to_le_bytes());
    let mut stored = 0;
    for (k, (chunk, code)) in plain.chunks(CHUNK_BYTES).zip(uniform).enumerate() {
        let entry = match code {
            Some(code) => UNIFORM + u16::from(code),
            None => {
                let at = stored_from + stored * CHUNK_BYTES;
                out[at..at + chunk.len()].copy_from_slice(chunk);
                stored += 1;
                (stored - 1) as u16
            }
        };
        out[DIRECTORY + 2 * k..DIRECTORY + 2 * k + 2].copy_from_slice(&entry.to_le_bytes());
    }
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
        let noise: Vec<u8> = (0..1 << 16).map(|i| (i * 37 % 251) as u8).collect();
        let kept = from_plain(&noise);
        assert_eq!(kept[0], PLAIN);
        assert_eq!(kept.len(), 1 + noise.len());
    }
}
