//! A graph as bytes, for storing inside a table: compact, versioned, little-endian, and checked on the way back in.
//!
//! Layout of version 1:
//!
//! ```text
//! magic     8 bytes   "RETROGRF"
//! version   u32       1
//! kind      u8        0 impartial, 1 partizan
//! names     u8        0 numbers, 1 text
//! reserved  u16       0
//! positions u64       n (at most 2^32)
//! then per player (one for impartial, Left then Right for partizan):
//!   moves   u64       m
//!   degrees n × LEB128 varint   out-degree of each position, summing to m
//!   targets m × u32   options, position by position
//! then for text names, per position: LEB128 length, UTF-8 bytes
//! ```
//!
//! The reverse moves are not stored: they are rebuilt on load, which is cheaper than reading and checking them.

use retro_game::varint;

use crate::csr::Csr;
use crate::error::DecodeError;
use crate::graph::{Graph, Kind, Moves, Names};
use crate::text::is_name;

const MAGIC: &[u8; 8] = b"RETROGRF";
const VERSION: u32 = 1;

impl Graph {
    /// The graph as bytes that [`Graph::from_bytes`] reads back into an equal graph.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::new();
        out.extend_from_slice(MAGIC);
        out.extend_from_slice(&VERSION.to_le_bytes());
        out.push(match self.kind() {
            Kind::Impartial => 0,
            Kind::Partizan => 1,
        });
        out.push(match self.names_store() {
            Names::Numbers => 0,
            Names::Text { .. } => 1,
        });
        out.extend_from_slice(&0u16.to_le_bytes());
        out.extend_from_slice(&self.positions().to_le_bytes());
        for moves in self.movers() {
            let forward = &moves.forward;
            out.extend_from_slice(&forward.len().to_le_bytes());
            for w in forward.offsets().windows(2) {
                varint::put(&mut out, w[1] - w[0]);
            }
            out.reserve(forward.targets().len() * 4);
            for &t in forward.targets() {
                out.extend_from_slice(&t.to_le_bytes());
            }
        }
        if let Names::Text { names, .. } = self.names_store() {
            for name in names {
                varint::put(&mut out, name.len() as u64);
                out.extend_from_slice(name.as_bytes());
            }
        }
        out
    }

    /// Reads a graph written by [`Graph::to_bytes`], checking everything: any corrupt input is an error, never a
    /// panic or an out-of-range position.
    pub fn from_bytes(bytes: &[u8]) -> Result<Graph, DecodeError> {
        let mut r = Reader { bytes, at: 0 };
        if r.take(8, "magic")? != MAGIC {
            return Err(DecodeError::Magic);
        }
        let version = r.u32("version")?;
        if version != VERSION {
            return Err(DecodeError::Version(version));
        }
        let players = match r.u8("kind")? {
            0 => 1,
            1 => 2,
            _ => return Err(DecodeError::Corrupt("unknown graph kind")),
        };
        let text_names = match r.u8("names")? {
            0 => false,
            1 => true,
            _ => return Err(DecodeError::Corrupt("unknown name encoding")),
        };
        if r.take(2, "reserved")? != [0, 0] {
            return Err(DecodeError::Corrupt("reserved bytes are not zero"));
        }
        let positions = r.u64("positions")?;
        if positions == 0 {
            return Err(DecodeError::Corrupt("no position"));
        }
        if positions > 1 << 32 {
            return Err(DecodeError::Corrupt("more than 2^32 positions"));
        }
        // Every position costs at least one byte per player (its degree): check before allocating for them.
        if positions > r.remaining() as u64 {
            return Err(DecodeError::Truncated("degrees"));
        }
        let n = positions as usize;

        let mut movers = Vec::with_capacity(players);
        for _ in 0..players {
            let moves = r.u64("move count")?;
            if moves > (r.remaining() / 4) as u64 {
                return Err(DecodeError::Truncated("moves"));
            }
            let mut offsets = Vec::with_capacity(n + 1);
            offsets.push(0u64);
            let mut total = 0u64;
            for _ in 0..n {
                total = total
                    .checked_add(r.varint("degrees")?)
                    .filter(|&t| t <= moves)
                    .ok_or(DecodeError::Corrupt(
                        "degrees add up to more than the move count",
                    ))?;
                offsets.push(total);
            }
            if total != moves {
                return Err(DecodeError::Corrupt(
                    "degrees do not add up to the move count",
                ));
            }
            let raw = r.take(moves as usize * 4, "targets")?;
            let mut targets = Vec::with_capacity(moves as usize);
            for word in raw.chunks_exact(4) {
                let t = u32::from_le_bytes([word[0], word[1], word[2], word[3]]);
                if t as u64 >= positions {
                    return Err(DecodeError::Corrupt("a move leads outside the graph"));
                }
                targets.push(t);
            }
            movers.push(Moves::new(Csr::from_parts(offsets, targets)));
        }

        let names = if text_names {
            let mut names = Vec::with_capacity(n);
            for _ in 0..n {
                let len = r.varint("name length")?;
                if len > r.remaining() as u64 {
                    return Err(DecodeError::Truncated("names"));
                }
                let name = std::str::from_utf8(r.take(len as usize, "names")?)
                    .map_err(|_| DecodeError::Corrupt("a name is not UTF-8"))?;
                if !is_name(name) {
                    return Err(DecodeError::Corrupt("a name is not a valid position name"));
                }
                names.push(name.to_owned());
            }
            let names = Names::text(names);
            if let Names::Text { names, by_name } = &names
                && by_name.len() != names.len()
            {
                return Err(DecodeError::Corrupt("two positions have the same name"));
            }
            names
        } else {
            Names::Numbers
        };
        if r.remaining() != 0 {
            return Err(DecodeError::Corrupt("trailing bytes after the graph"));
        }
        Ok(Graph::new(positions, movers, names))
    }
}

/// A cursor over the input that turns every overrun into an error.
struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    fn remaining(&self) -> usize {
        self.bytes.len() - self.at
    }

    fn take(&mut self, len: usize, what: &'static str) -> Result<&'a [u8], DecodeError> {
        if len > self.remaining() {
            return Err(DecodeError::Truncated(what));
        }
        let slice = &self.bytes[self.at..self.at + len];
        self.at += len;
        Ok(slice)
    }

    fn u8(&mut self, what: &'static str) -> Result<u8, DecodeError> {
        Ok(self.take(1, what)?[0])
    }

    fn u32(&mut self, what: &'static str) -> Result<u32, DecodeError> {
        let b = self.take(4, what)?;
        Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }

    fn u64(&mut self, what: &'static str) -> Result<u64, DecodeError> {
        let mut word = [0u8; 8];
        word.copy_from_slice(self.take(8, what)?);
        Ok(u64::from_le_bytes(word))
    }

    fn varint(&mut self, what: &'static str) -> Result<u64, DecodeError> {
        let mut value = 0u64;
        for shift in (0..64).step_by(7) {
            let byte = self.u8(what)?;
            let bits = (byte & 0x7f) as u64;
            if shift == 63 && bits > 1 {
                return Err(DecodeError::Corrupt("a number is too large"));
            }
            value |= bits << shift;
            if byte & 0x80 == 0 {
                return Ok(value);
            }
        }
        Err(DecodeError::Corrupt("a number is too large"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::random::SplitMix64;
    use proptest::prelude::*;

    fn random_graph(seed: u64) -> Graph {
        let mut rng = SplitMix64::new(seed);
        let n = 1 + rng.below(200);
        let mut moves = |m: u64| -> Vec<(u32, u32)> {
            (0..m)
                .map(|_| (rng.below(n) as u32, rng.below(n) as u32))
                .collect()
        };
        let left = moves(seed % 700);
        let right = moves(seed % 300);
        match seed % 3 {
            0 => Graph::impartial(n, &left),
            1 => Graph::partizan(n, &left, &right),
            _ => {
                let mut text = String::new();
                for p in 0..n {
                    let options = |moves: &[(u32, u32)]| {
                        moves
                            .iter()
                            .filter(|m| m.0 as u64 == p)
                            .map(|m| format!(" p{}", m.1))
                            .collect::<String>()
                    };
                    text += &format!("p{p} :{} |{}\n", options(&left), options(&right));
                }
                Graph::parse_text(text.as_bytes()).unwrap()
            }
        }
    }

    #[test]
    fn text_graphs_keep_their_names() {
        let graph = Graph::parse_text("a : b é\nb:\né: a a".as_bytes()).unwrap();
        let back = Graph::from_bytes(&graph.to_bytes()).unwrap();
        assert_eq!(back, graph);
        assert_eq!(back.lookup("é"), Some(2));
    }

    #[test]
    fn bad_headers_are_named() {
        let bytes = Graph::impartial(2, &[(0, 1)]).to_bytes();
        assert_eq!(
            Graph::from_bytes(b"RETRO"),
            Err(DecodeError::Truncated("magic"))
        );
        assert_eq!(Graph::from_bytes(b"NOTAGRAPH..."), Err(DecodeError::Magic));
        let mut v2 = bytes.clone();
        v2[8] = 2;
        assert_eq!(Graph::from_bytes(&v2), Err(DecodeError::Version(2)));
        let mut trailing = bytes.clone();
        trailing.push(0);
        assert_eq!(
            Graph::from_bytes(&trailing),
            Err(DecodeError::Corrupt("trailing bytes after the graph"))
        );
        let mut outside = bytes.clone();
        let last = outside.len() - 4;
        outside[last] = 2;
        assert_eq!(
            Graph::from_bytes(&outside),
            Err(DecodeError::Corrupt("a move leads outside the graph"))
        );
    }

    proptest! {
        #[test]
        fn round_trips(seed in 0u64..10_000) {
            let graph = random_graph(seed);
            let bytes = graph.to_bytes();
            prop_assert_eq!(Graph::from_bytes(&bytes).unwrap(), graph);
        }

        #[test]
        fn corrupt_bytes_are_errors_not_panics(seed in 0u64..10_000, cut in any::<usize>(), flips in proptest::collection::vec((any::<usize>(), any::<u8>()), 0..4)) {
            let mut bytes = random_graph(seed).to_bytes();
            for (at, byte) in flips {
                let at = at % bytes.len();
                bytes[at] = byte;
            }
            let _ = Graph::from_bytes(&bytes);
            bytes.truncate(cut % (bytes.len() + 1));
            let _ = Graph::from_bytes(&bytes);
        }

        #[test]
        fn arbitrary_bytes_never_panic(mut bytes in proptest::collection::vec(any::<u8>(), 0..300)) {
            let _ = Graph::from_bytes(&bytes);
            if bytes.len() >= 16 {
                bytes[..8].copy_from_slice(MAGIC);
                bytes[8..12].copy_from_slice(&VERSION.to_le_bytes());
                let _ = Graph::from_bytes(&bytes);
            }
        }
    }
}
