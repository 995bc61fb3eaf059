//! Support for fuzzing the reader (used by `crates/probe/fuzz` and by the mutation test below); not part of the API.
//!
//! Checksums stop almost every random mutation at the door, which would leave the parser behind them untested. So
//! [`exercise`] reads the bytes as they are, and then a copy whose checksums were recomputed, so that mutated fields
//! and mutated blocks reach the parsing and decoding code. Whatever the bytes, nothing may panic.

use crate::checksum::checksum;
use crate::file::TableFile;
use crate::format::FileKind;

/// Reads `bytes` as a table file in every way the library can, as they are and with repaired checksums.
pub fn exercise(bytes: &[u8]) {
    read_everything(bytes.to_vec());
    let mut repaired = bytes.to_vec();
    repair_checksums(&mut repaired);
    read_everything(repaired);
}

fn read_everything(bytes: Vec<u8>) {
    let Ok(file) = TableFile::from_bytes("fuzz", bytes) else {
        return;
    };
    let _ = file.payload();
    for block in 0..file.header().block_count {
        let _ = file.check_block(block);
        match file.header().kind {
            FileKind::Wdl => {
                let _ = file.wdl_block(block);
            }
            FileKind::Distance => {
                let _ = file.distance_block(block);
                let _ = file.stored_distance_block(block);
            }
        }
    }
}

/// Recomputes the header checksum (and, if the header then parses, every block checksum, and in version 7 every
/// index chunk's) in place, when the header length field is plausible.
pub fn repair_checksums(bytes: &mut [u8]) {
    let repair_header = |bytes: &mut [u8]| -> Option<()> {
        let at = crate::format::Header::checksum_at(bytes)?;
        let sum = checksum(&bytes[..at]);
        bytes[at..at + 8].copy_from_slice(&sum.to_le_bytes());
        Some(())
    };
    if repair_header(bytes).is_none() {
        return;
    }
    let Ok(header) = crate::format::Header::parse("fuzz".as_ref(), bytes) else {
        return;
    };
    crate::index::repair_checksums(&header.index, bytes, header.block_count);
    repair_header(bytes);
}
