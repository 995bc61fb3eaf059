//! Packed files: the bytes of a slice of cells, compressed, as the out-of-core engine keeps them on disk.
//!
//! A build whose cells do not fit its budget writes most of them back to disk every generation, and a disk writes
//! several times slower than it reads: the cells files are most of what the engine writes. Cells compress well:
//! a slice of a chess table holds a few dozen distinct values (holes, counters, and the distances settled so far).
//! So a block of [`BLOCK`] bytes of cells is first *mapped*: when its cells take at most 256 distinct values, each
//! cell becomes the one-byte code of its value, behind the table of values, which halves 16-bit cells before zstd
//! sees them and lets its fastest level find more (about 8 to 1 on chess tables, against 6 to 1 for the cells as
//! they are, in two thirds of the time). Each block is one zstd frame, with its checksum, behind its length:
//!
//! ```text
//!   file  = frame*                        one per block, in order
//!   frame = [u32 length, little endian] [zstd frame of the payload]
//!   payload = [0] [cell bytes]                                            a block stored as it is
//!           | [1] [n - 1: u8] [n values: one cell each] [one code per cell] a mapped block (cells of 2 or 4 bytes)
//! ```
//!
//! Blocks are compressed and decompressed in parallel, [`GROUP`] at a time, so that the buffers in flight stay a
//! few MiB whatever the slice. A frame that does not decompress to exactly its block — a truncated or corrupted
//! file — is an error, never a silently different slice. Cells are in native byte order: the files are scratch,
//! read back by the build that wrote them.

use std::io::{self, Read, Write};

use rayon::prelude::*;

/// Bytes of cells per frame.
const BLOCK: usize = 1 << 18;
/// Frames compressed or decompressed at once.
const GROUP: usize = 8;
/// zstd's fastest positive level: the cells files are scratch, written once and read once or twice.
const LEVEL: i32 = 1;
/// The payload's first byte: how the block is stored.
const STORED: u8 = 0;
const MAPPED: u8 = 1;
/// The most distinct values a mapped block holds: its codes are bytes.
const CODES: usize = 256;

/// Writes `bytes`, cells of `width` bytes each, packed to `out`; returns the number of bytes written.
pub(crate) fn write(out: &mut impl Write, bytes: &[u8], width: usize) -> io::Result<u64> {
    let mut written = 0;
    for group in bytes.chunks(BLOCK * GROUP) {
        let frames = group
            .par_chunks(BLOCK)
            .map(|block| {
                let payload = payload(block, width);
                let mut compressor = zstd::bulk::Compressor::new(LEVEL)?;
                compressor.include_checksum(true)?;
                compressor.compress(&payload)
            })
            .collect::<io::Result<Vec<Vec<u8>>>>()?;
        for frame in frames {
            out.write_all(&(frame.len() as u32).to_le_bytes())?;
            out.write_all(&frame)?;
            written += 4 + frame.len() as u64;
        }
    }
    Ok(written)
}

/// A block's payload: mapped when its cells are 16-bit and take at most [`CODES`] values, else stored. (Cells of
/// 8 bits gain nothing from codes of 8 bits; those of 32 bits come with distances beyond 16,383 plies, rare enough
/// to be stored as they are.)
fn payload(block: &[u8], width: usize) -> Vec<u8> {
    if width == 2 && block.len().is_multiple_of(2) {
        // The code of each value seen so far, plus one (0: not seen yet).
        let mut code_of = vec![0u16; 1 << 16].into_boxed_slice();
        let code_of: &mut [u16; 1 << 16] = (&mut *code_of).try_into().expect("2^16 entries");
        let mut values: Vec<u16> = Vec::with_capacity(CODES);
        let mut payload = Vec::with_capacity(2 + 2 * CODES + block.len() / 2);
        payload.extend_from_slice(&[MAPPED, 0]);
        payload.resize(2 + 2 * CODES, 0);
        let mapped = block.chunks_exact(2).all(|cell| {
            let value = u16::from_ne_bytes([cell[0], cell[1]]);
            let mut code = code_of[value as usize];
            if code == 0 {
                if values.len() == CODES {
                    return false;
                }
                values.push(value);
                code = values.len() as u16;
                code_of[value as usize] = code;
            }
            payload.push((code - 1) as u8);
            true
        });
        if mapped {
            // The table takes the room of as many values as there are (at least one, for an empty block).
            if values.is_empty() {
                values.push(0);
            }
            payload[1] = (values.len() - 1) as u8;
            let table: Vec<u8> = values.iter().flat_map(|v| v.to_ne_bytes()).collect();
            payload.splice(2..2 + 2 * CODES, table);
            return payload;
        }
    }
    let mut payload = Vec::with_capacity(1 + block.len());
    payload.push(STORED);
    payload.extend_from_slice(block);
    payload
}

/// Fills `block` (cells of `width` bytes) from a decompressed payload; false when the payload does not describe a
/// block of that length.
fn unpack(payload: &[u8], block: &mut [u8], width: usize) -> bool {
    match payload.split_first() {
        Some((&STORED, cells)) if cells.len() == block.len() => {
            block.copy_from_slice(cells);
            true
        }
        Some((&MAPPED, rest)) if width == 2 && !rest.is_empty() => {
            let n = rest[0] as usize + 1;
            let Some((table, codes)) = rest[1..].split_at_checked(2 * n) else {
                return false;
            };
            if codes.len() * 2 != block.len()
                || codes.iter().max().is_some_and(|&c| c as usize >= n)
            {
                return false;
            }
            let mut values = [0u16; CODES];
            for (value, bytes) in values.iter_mut().zip(table.chunks_exact(2)) {
                *value = u16::from_ne_bytes([bytes[0], bytes[1]]);
            }
            for (cell, &code) in block.chunks_exact_mut(2).zip(codes) {
                cell.copy_from_slice(&values[code as usize].to_ne_bytes());
            }
            true
        }
        _ => false,
    }
}

/// Reads what [`write`] wrote of exactly `bytes.len()` bytes (cells of `width` bytes) from `input` into `bytes`;
/// returns the number of bytes read. `input` must end there: anything left over, a short frame or one that does not
/// decompress to its block is an error of kind `InvalidData`.
pub(crate) fn read(input: &mut impl Read, bytes: &mut [u8], width: usize) -> io::Result<u64> {
    let mut read = 0;
    let mut frames: Vec<Vec<u8>> = Vec::with_capacity(GROUP);
    // The largest payload: a stored block behind its kind.
    let most = 1 + BLOCK;
    for group in bytes.chunks_mut(BLOCK * GROUP) {
        frames.clear();
        for _ in 0..group.len().div_ceil(BLOCK) {
            let mut length = [0u8; 4];
            input.read_exact(&mut length).map_err(truncated)?;
            let length = u32::from_le_bytes(length) as usize;
            if length > zstd::zstd_safe::compress_bound(most) {
                return Err(corrupt("a frame longer than any block compresses to"));
            }
            let mut frame = vec![0u8; length];
            input.read_exact(&mut frame).map_err(truncated)?;
            read += 4 + length as u64;
            frames.push(frame);
        }
        group
            .par_chunks_mut(BLOCK)
            .zip(&frames)
            .try_for_each(|(block, frame)| {
                let payload = zstd::bulk::decompress(frame, most)
                    .map_err(|_| corrupt("a frame does not decompress"))?;
                match unpack(&payload, block, width) {
                    true => Ok(()),
                    false => Err(corrupt("a frame holds a block of another length or kind")),
                }
            })?;
    }
    if input.read(&mut [0u8; 1])? != 0 {
        return Err(corrupt("it goes on after its last block"));
    }
    Ok(read)
}

fn truncated(e: io::Error) -> io::Error {
    match e.kind() {
        io::ErrorKind::UnexpectedEof => corrupt("it is truncated"),
        _ => e,
    }
}

fn corrupt(what: &str) -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidData,
        format!("a packed cells file is corrupt: {what}"),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Cells of `width` bytes with runs and noise, as cells have: `values` distinct values at most.
    fn sample(cells: usize, width: usize, values: u64) -> Vec<u8> {
        let mut state = 0x2545_f491_4f6c_dd1d_u64;
        let mut bytes = Vec::with_capacity(cells * width);
        for i in 0..cells {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let value = if (i / 1000) % 3 == 0 {
                0
            } else {
                state % values * 257
            };
            bytes.extend_from_slice(&value.to_ne_bytes()[..width]);
        }
        bytes
    }

    fn packed(bytes: &[u8], width: usize) -> Vec<u8> {
        let mut out = Vec::new();
        let written = write(&mut out, bytes, width).unwrap();
        assert_eq!(written, out.len() as u64);
        out
    }

    #[test]
    fn round_trips_any_length_width_and_variety() {
        for width in [1, 2, 4] {
            for values in [1, 60, 256, 257, 5000] {
                for bytes in [
                    0,
                    1,
                    7,
                    BLOCK - 1,
                    BLOCK,
                    BLOCK + 1,
                    BLOCK * GROUP + 3,
                    BLOCK * 19,
                ] {
                    let cells = sample(bytes / width, width, values);
                    let file = packed(&cells, width);
                    let mut back = vec![0xaa; cells.len()];
                    let read = read(&mut file.as_slice(), &mut back, width).unwrap();
                    assert_eq!(read, file.len() as u64);
                    assert!(
                        back == cells,
                        "width {width}, {values} values, {bytes} bytes"
                    );
                }
            }
        }
    }

    #[test]
    fn maps_blocks_of_few_values() {
        let few = sample(BLOCK / 2, 2, 256);
        assert_eq!(payload(&few, 2)[0], MAPPED);
        assert_eq!(payload(&few, 2).len(), 2 + 2 * 256 + BLOCK / 2);
        let many = sample(BLOCK / 2, 2, 257);
        assert_eq!(payload(&many, 2)[0], STORED);
        assert_eq!(payload(&few, 1)[0], STORED);
        // Runs compress to almost nothing.
        let runs = vec![3u8; BLOCK * 4];
        assert!(packed(&runs, 2).len() < runs.len() / 100);
    }

    #[test]
    fn refuses_damage() {
        for (width, values) in [(2, 60), (2, 5000), (1, 200)] {
            let bytes = sample((BLOCK * 3 + 6) / width, width, values);
            let file = packed(&bytes, width);
            let mut back = vec![0; bytes.len()];
            let mut damaged = Vec::new();
            // Truncated anywhere.
            for cut in [0, 3, 4, 100, file.len() / 2, file.len() - 1] {
                damaged.push(file[..cut].to_vec());
            }
            // One bit flipped in a length or in a frame (the frame's checksum catches what decompresses).
            for at in [0, 2, 10, 500, file.len() / 3, file.len() - 2] {
                let mut flipped = file.clone();
                flipped[at] ^= 0x10;
                damaged.push(flipped);
            }
            // Something after the last block.
            let mut longer = file.clone();
            longer.push(0);
            damaged.push(longer);
            for bad in damaged {
                let e = read(&mut bad.as_slice(), &mut back, width).unwrap_err();
                assert_eq!(e.kind(), io::ErrorKind::InvalidData, "{e}");
            }
            // A slice of another length.
            let mut shorter = vec![0; bytes.len() - width];
            assert!(read(&mut file.as_slice(), &mut shorter, width).is_err());
        }
    }
}
