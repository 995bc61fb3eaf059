//! Decoding one stored block into its values' bytes, by its layout (FORMAT.md, *Blocks*).
//!
//! The reader ([`TableFile`](crate::TableFile)) decodes the blocks it reads here, and the writer (`retro-table`)
//! decodes every block it stores with the same code before it writes it, so that a table whose blocks would read
//! back wrong is never kept. Errors are the one-line reason a block is malformed; the caller names the file and
//! the block.

use std::cell::RefCell;

use crate::format::{self, Encoding, Layout};

/// What a stored block's decoding depends on besides its bytes.
#[derive(Clone, Copy, Debug)]
pub struct BlockShape {
    /// The file's format version: version 1 has no layouts, and later versions allow more of them.
    pub version: u32,
    pub encoding: Encoding,
    /// How many values the block holds.
    pub values: usize,
}

impl BlockShape {
    /// The layout of the stored block `stored` (whose checksum the caller has checked), if this file's version and
    /// encoding allow it; `None` in version 1, which has no layouts.
    pub fn layout(&self, stored: &[u8]) -> Result<Option<Layout>, String> {
        if self.version == 1 {
            return Ok(None);
        }
        let &code = stored.first().ok_or("empty")?;
        let wdl = self.encoding == Encoding::Wdl2;
        match Layout::from_code(code) {
            Some(Layout::Packed | Layout::Constant) => {}
            Some(Layout::Bytes) if wdl => {}
            Some(Layout::Transposed) if !wdl || self.version >= format::TRANSPOSED_WDL_VERSION => {}
            Some(Layout::Permuted) if wdl && self.version >= format::TERMINAL_FLOORS_VERSION => {}
            _ => {
                return Err(format!(
                    "unknown layout {code} ({} bytes)",
                    stored.len() - 1
                ));
            }
        }
        Ok(Layout::from_code(code))
    }

    /// The decoded bytes of the stored block `stored`: [`encoded_len`](Encoding::bytes_for) of its values, the same
    /// for every version and layout.
    pub fn decode(&self, stored: &[u8]) -> Result<Box<[u8]>, String> {
        let encoding = self.encoding;
        let values = self.values;
        let expected = encoding.bytes_for(values as u64) as usize;
        let Some(layout) = self.layout(stored)? else {
            return decompress(stored, expected);
        };
        let data = &stored[1..];
        match layout {
            Layout::Packed => decompress(data, expected),
            Layout::Bytes => pack_wdl(&decompress(data, values)?),
            Layout::Transposed => {
                let columns = columns(data, values)?;
                if encoding == Encoding::Wdl2 {
                    let stored = decompress(&data[4..], values)?;
                    let mut codes = vec![0u8; values];
                    format::for_each_transposed(values, columns, |from, to| {
                        codes[to] = stored[from]
                    });
                    pack_wdl(&codes)
                } else {
                    let stored = decompress(&data[4..], expected)?;
                    let width = encoding.code_width();
                    let mut out = vec![0u8; expected];
                    format::for_each_transposed(values, columns, |from, to| {
                        out[to * width..(to + 1) * width]
                            .copy_from_slice(&stored[from * width..(from + 1) * width]);
                    });
                    Ok(out.into_boxed_slice())
                }
            }
            Layout::Permuted => {
                let (permutation, len) = format::Permutation::parse(data, values)
                    .ok_or("digits that do not describe it")?;
                // The codes in stored order, one or four a byte.
                let one_a_byte = permutation.packing == 1;
                let frame_len = if one_a_byte {
                    values
                } else {
                    values.div_ceil(4)
                };
                let stored = decompress(&data[len..], frame_len)?;
                let mut codes = vec![0u8; values];
                format::for_each_permuted(&permutation.radices, &permutation.order, |from, to| {
                    codes[to] = if one_a_byte {
                        stored[from]
                    } else {
                        (stored[from >> 2] >> ((from & 3) * 2)) & 3
                    }
                });
                pack_wdl(&codes)
            }
            Layout::Constant if data.len() == encoding.code_width() => {
                if encoding == Encoding::Wdl2 {
                    let code = data[0];
                    if code > 2 {
                        return Err(format!("invalid win/draw/loss code {code}"));
                    }
                    let mut packed = vec![code * 0b0101_0101; expected];
                    // Unused bits of the last byte are 0, as in a packed block.
                    if !values.is_multiple_of(4) {
                        packed[expected - 1] &= (1u8 << (2 * (values % 4))) - 1;
                    }
                    Ok(packed.into_boxed_slice())
                } else {
                    Ok(data.repeat(values).into_boxed_slice())
                }
            }
            Layout::Constant => Err(format!(
                "unknown layout {} ({} bytes)",
                layout.code(),
                data.len()
            )),
        }
    }
}

/// The column count of a transposed block (its first four bytes), checked against the block's `values`.
fn columns(data: &[u8], values: usize) -> Result<usize, String> {
    let Some(bytes) = data.get(..4) else {
        return Err(format!(
            "unknown layout {} ({} bytes)",
            Layout::Transposed.code(),
            data.len()
        ));
    };
    let columns = u32::from_le_bytes(bytes.try_into().expect("4 bytes")) as usize;
    if columns < 2 || columns > values {
        return Err(format!("{columns} columns"));
    }
    Ok(columns)
}

/// A WDL block packed four values to a byte from one code a byte.
fn pack_wdl(codes: &[u8]) -> Result<Box<[u8]>, String> {
    let mut packed = vec![0u8; codes.len().div_ceil(4)];
    for (i, &code) in codes.iter().enumerate() {
        if code > 2 {
            return Err(format!("invalid win/draw/loss code {code}"));
        }
        packed[i >> 2] |= code << ((i & 3) * 2);
    }
    Ok(packed.into_boxed_slice())
}

/// Decompresses one zstd frame that must give exactly `expected` bytes.
fn decompress(data: &[u8], expected: usize) -> Result<Box<[u8]>, String> {
    thread_local! {
        // A decompression context per thread: creating one costs more than decompressing a small block.
        static DECOMPRESSOR: RefCell<Option<zstd::bulk::Decompressor<'static>>> = const { RefCell::new(None) };
    }
    // One byte more than expected, so that a frame that decodes to more is caught as such rather than as an error of
    // zstd (the frames of version 2 do not record their size).
    let mut out = Vec::with_capacity(expected + 1);
    let result = DECOMPRESSOR.with(|cell| {
        let mut cell = cell.borrow_mut();
        if cell.is_none() {
            *cell = Some(zstd::bulk::Decompressor::new()?);
        }
        cell.as_mut()
            .expect("just made")
            .decompress_to_buffer(data, &mut out)
    });
    match result {
        Ok(n) if n == expected => Ok(out.into_boxed_slice()),
        Ok(n) => Err(format!("decompresses to {n} bytes, not {expected}")),
        Err(e) => Err(format!("does not decompress: {e}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shape(version: u32, encoding: Encoding) -> BlockShape {
        BlockShape {
            version,
            encoding,
            values: 6,
        }
    }

    /// Each version allows the layouts FORMAT.md gives it, for its kind of file, and no others.
    #[test]
    fn a_layout_is_read_only_where_the_version_and_the_encoding_allow_it() {
        let wdl = Encoding::Wdl2;
        let distance = Encoding::Distance8;
        let allowed = |version, encoding, layout: Layout| {
            shape(version, encoding)
                .layout(&[layout.code(), 0, 0, 0, 0])
                .is_ok()
        };
        assert_eq!(
            shape(1, wdl).layout(&[9]),
            Ok(None),
            "version 1 has no layouts"
        );
        for layout in [Layout::Packed, Layout::Bytes, Layout::Constant] {
            assert!(allowed(2, wdl, layout), "{layout:?}");
        }
        assert!(!allowed(2, wdl, Layout::Transposed));
        assert!(allowed(
            format::TRANSPOSED_WDL_VERSION,
            wdl,
            Layout::Transposed
        ));
        assert!(!allowed(
            format::TRANSPOSED_WDL_VERSION,
            wdl,
            Layout::Permuted
        ));
        assert!(allowed(
            format::TERMINAL_FLOORS_VERSION,
            wdl,
            Layout::Permuted
        ));
        assert!(allowed(format::INDEXED_VERSION, wdl, Layout::Permuted));
        assert!(allowed(2, distance, Layout::Transposed));
        assert!(!allowed(format::INDEXED_VERSION, distance, Layout::Bytes));
        assert!(!allowed(
            format::INDEXED_VERSION,
            distance,
            Layout::Permuted
        ));
        assert!(shape(2, wdl).layout(&[5, 0]).is_err(), "an unknown layout");
        assert!(shape(2, wdl).layout(&[]).is_err(), "an empty block");
    }

    /// Constant blocks decode to their code repeated; a WDL code above 2 or a code of the wrong width is malformed.
    #[test]
    fn constant_blocks_repeat_their_code() {
        let constant = Layout::Constant.code();
        assert_eq!(
            &*shape(2, Encoding::Wdl2).decode(&[constant, 2]).unwrap(),
            // Six wins: 0b10 six times, the unused bits of the last byte 0.
            &[0b1010_1010, 0b0000_1010]
        );
        assert_eq!(
            &*shape(2, Encoding::Distance16)
                .decode(&[constant, 7, 1])
                .unwrap(),
            &[7, 1].repeat(6)[..]
        );
        assert!(shape(2, Encoding::Wdl2).decode(&[constant, 3]).is_err());
        assert!(
            shape(2, Encoding::Distance16)
                .decode(&[constant, 7])
                .is_err()
        );
    }
}
