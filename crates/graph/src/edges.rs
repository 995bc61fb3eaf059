//! The edge-list format of graph tools (SNAP, networkx): one move `u v` per line, `#` comments, positions
//! `0..n` where n is one more than the largest number in the file. A repeated line is a repeated move.
//!
//! Files of tens of millions of lines are the point of this format, so the parser is built for speed: the caller
//! hands it the whole file (memory-mapped), it cuts the bytes at line ends into chunks, parses the chunks in
//! parallel with a hand-written digit loop, and builds the graph by counting sort.

use rayon::prelude::*;

use crate::csr::Csr;
use crate::error::{ParseError, printable};
use crate::graph::{Graph, Moves, Names};

/// Bytes per chunk handed to one parallel task: big enough to amortise scheduling, small enough to balance.
pub(crate) const CHUNK_BYTES: usize = 4 << 20;

/// What went wrong in a chunk, found at byte `at` of the file (the start of the offending line).
struct ChunkError {
    at: usize,
    kind: ErrorKind,
}

enum ErrorKind {
    Syntax(&'static str),
    /// The token at these bytes of the file is not a number in range.
    Number(usize, usize),
}

/// The moves of one chunk: `u, v` interleaved, and the largest number seen.
struct ChunkMoves {
    pairs: Vec<u32>,
    max: Option<u32>,
}

/// Parses an edge list.
pub fn parse_edges(bytes: &[u8]) -> Result<Graph, ParseError> {
    parse_edges_in_chunks(bytes, CHUNK_BYTES)
}

/// Parses an edge list cut into chunks of about `chunk_bytes` bytes (tests use tiny chunks to exercise the seams).
fn parse_edges_in_chunks(bytes: &[u8], chunk_bytes: usize) -> Result<Graph, ParseError> {
    Ok(read_moves(bytes, chunk_bytes)?.build())
}

/// The moves of an edge list, parsed but not yet arranged: the file's bytes are no longer needed.
pub(crate) struct EdgeMoves {
    chunks: Vec<ChunkMoves>,
    positions: usize,
}

/// Parses the moves of an edge list, in parallel chunks of about `chunk_bytes` bytes.
pub(crate) fn read_moves(bytes: &[u8], chunk_bytes: usize) -> Result<EdgeMoves, ParseError> {
    let chunks = split_chunks(bytes, chunk_bytes);
    let parsed: Vec<Result<ChunkMoves, ChunkError>> = chunks
        .par_iter()
        .map(|&(start, end)| parse_chunk(bytes, start, end))
        .collect();

    let mut all = Vec::with_capacity(parsed.len());
    for result in parsed {
        match result {
            Ok(chunk) => all.push(chunk),
            // Chunks are in file order, so the first error found is the first error of the file.
            Err(error) => return Err(describe(bytes, error)),
        }
    }
    let max = all
        .iter()
        .filter_map(|c| c.max)
        .max()
        .ok_or(ParseError::Empty)?;
    // A number far beyond the moves (a typo, or a sparse numbering) would make the graph's arrays larger than the
    // machine: refuse it with a clear error rather than abort on a failed allocation.
    let moves: u64 = all.iter().map(|c| c.pairs.len() as u64 / 2).sum();
    let needed = (u64::from(max) + 2) * BYTES_PER_POSITION + moves * BYTES_PER_MOVE;
    if let Some(available) = available_memory()
        && needed > available
    {
        return Err(ParseError::TooBig {
            largest: max,
            needed_mib: needed >> 20,
            available_mib: available >> 20,
        });
    }
    Ok(EdgeMoves {
        chunks: all,
        positions: max as usize + 1,
    })
}

/// Bytes of the graph's arrays per position (forward and backward offsets, while the graph is built).
const BYTES_PER_POSITION: u64 = 24;
/// Bytes per move: its target forward and backward, and the parsed pair while the graph is built.
const BYTES_PER_MOVE: u64 = 16;

/// The memory the kernel says is available (`MemAvailable` of /proc/meminfo), if it says.
fn available_memory() -> Option<u64> {
    let meminfo = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = meminfo.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

impl EdgeMoves {
    /// Arranges the moves into a graph, forward then backward.
    pub(crate) fn build(self) -> Graph {
        let EdgeMoves { chunks, positions } = self;
        let pairs = chunks
            .iter()
            .flat_map(|c| c.pairs.chunks_exact(2).map(|pair| (pair[0], pair[1])));
        let forward = Csr::from_pairs(positions, pairs);
        // The parsed pairs are no longer needed: free them before the reverse moves are built.
        drop(chunks);
        let moves = Moves::new(forward);
        Graph::new(positions as u64, vec![moves], Names::Numbers)
    }
}

/// Cuts `0..bytes.len()` into ranges of about `target` bytes that end just after a newline (or at the end).
fn split_chunks(bytes: &[u8], target: usize) -> Vec<(usize, usize)> {
    let mut chunks = Vec::new();
    let mut start = 0;
    while start < bytes.len() {
        let mut end = (start + target).min(bytes.len());
        while end < bytes.len() && bytes[end - 1] != b'\n' {
            end += 1;
        }
        chunks.push((start, end));
        start = end;
    }
    chunks
}

#[inline]
fn is_blank(b: u8) -> bool {
    b == b' ' || b == b'\t' || b == b'\r'
}

/// Parses whole lines `bytes[start..end]`.
fn parse_chunk(bytes: &[u8], start: usize, end: usize) -> Result<ChunkMoves, ChunkError> {
    let bytes = &bytes[..end];
    let mut pairs = Vec::with_capacity((end - start) / 8);
    let mut max: Option<u32> = None;
    let mut i = start;
    while i < end {
        let line_start = i;
        let syntax = |reason| ChunkError {
            at: line_start,
            kind: ErrorKind::Syntax(reason),
        };
        while i < end && is_blank(bytes[i]) {
            i += 1;
        }
        if i == end || bytes[i] == b'\n' || bytes[i] == b'#' {
            i = skip_line(bytes, i);
            continue;
        }
        let u = read_number(bytes, &mut i, line_start)?;
        while i < end && is_blank(bytes[i]) {
            i += 1;
        }
        if i == end || bytes[i] == b'\n' || bytes[i] == b'#' {
            return Err(syntax("expected two position numbers `u v`, found one"));
        }
        let v = read_number(bytes, &mut i, line_start)?;
        while i < end && is_blank(bytes[i]) {
            i += 1;
        }
        if i < end && bytes[i] != b'\n' && bytes[i] != b'#' {
            return Err(syntax("expected two position numbers `u v`, found more"));
        }
        i = skip_line(bytes, i);
        pairs.push(u);
        pairs.push(v);
        let larger = u.max(v);
        max = Some(max.map_or(larger, |m| m.max(larger)));
    }
    Ok(ChunkMoves { pairs, max })
}

/// The index just after the newline that ends the line containing `i` (or the end).
#[inline]
fn skip_line(bytes: &[u8], mut i: usize) -> usize {
    while i < bytes.len() && bytes[i] != b'\n' {
        i += 1;
    }
    i + 1
}

/// Reads the decimal number that starts at `*i` and must end at white space, a comment or the end of the line.
#[inline]
fn read_number(bytes: &[u8], i: &mut usize, line_start: usize) -> Result<u32, ChunkError> {
    let token_start = *i;
    let mut value: u64 = 0;
    let mut digits = 0;
    while *i < bytes.len() && bytes[*i].is_ascii_digit() {
        // Once past u32 range the value only needs to stay past it: saturate rather than overflow.
        value = (value * 10 + (bytes[*i] - b'0') as u64).min(1 << 40);
        digits += 1;
        *i += 1;
    }
    let ends_cleanly =
        *i == bytes.len() || is_blank(bytes[*i]) || bytes[*i] == b'\n' || bytes[*i] == b'#';
    if digits == 0 || !ends_cleanly || value > u32::MAX as u64 {
        let mut token_end = *i;
        while token_end < bytes.len()
            && !bytes[token_end].is_ascii_whitespace()
            && bytes[token_end] != b'#'
        {
            token_end += 1;
        }
        return Err(ChunkError {
            at: line_start,
            kind: ErrorKind::Number(token_start, token_end),
        });
    }
    Ok(value as u32)
}

/// Turns a chunk error into a `ParseError` with its line number, counted only now that it is needed.
fn describe(bytes: &[u8], error: ChunkError) -> ParseError {
    let line = 1 + bytes[..error.at].iter().filter(|&&b| b == b'\n').count() as u64;
    match error.kind {
        ErrorKind::Syntax(reason) => ParseError::Syntax { line, reason },
        ErrorKind::Number(start, end) => {
            let token = printable(&String::from_utf8_lossy(&bytes[start..end.min(start + 40)]));
            ParseError::Number { line, text: token }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Player;
    use proptest::prelude::*;

    fn options(graph: &Graph, p: u32) -> Vec<u32> {
        graph.options(p, Player::Left).to_vec()
    }

    #[test]
    fn reads_moves_comments_and_repeats() {
        let text = b"# a graph\n0 1\n\n1 2 # a comment\n  2\t0\r\n0 1\n4 4";
        let graph = parse_edges(text).unwrap();
        assert_eq!(graph.positions(), 5);
        assert_eq!(graph.moves(), 5);
        assert!(!graph.is_partizan());
        assert_eq!(options(&graph, 0), vec![1, 1]);
        assert_eq!(options(&graph, 2), vec![0]);
        assert_eq!(options(&graph, 3), Vec::<u32>::new());
        assert_eq!(options(&graph, 4), vec![4]);
        assert_eq!(graph.predecessors(1, Player::Left), &[0, 0]);
        assert_eq!(graph.name(3).to_string(), "3");
        assert_eq!(graph.lookup("4"), Some(4));
        assert_eq!(graph.lookup("5"), None);
        assert_eq!(graph.lookup("04"), None);
        assert_eq!(graph.lookup("x"), None);
    }

    #[test]
    fn largest_number_is_accepted() {
        // n = 2^32 positions would need 32 GiB of offsets: check the number parser, not the graph build.
        let chunk = parse_chunk(b"4294967295 0\n", 0, 13).ok().unwrap();
        assert_eq!(chunk.pairs, vec![u32::MAX, 0]);
    }

    fn error(text: &str) -> String {
        match parse_edges(text.as_bytes()) {
            Ok(_) => panic!("{text:?} parsed"),
            Err(e) => e.to_string(),
        }
    }

    #[test]
    fn errors_name_the_line() {
        assert_eq!(
            error("0 1\n1 4294967296\n"),
            "line 2: `4294967296` is not a position number (0 to 4294967295)"
        );
        assert_eq!(
            error("0 1\n\n1 -2\n"),
            "line 3: `-2` is not a position number (0 to 4294967295)"
        );
        assert_eq!(
            error("0 1\n1 2\x07\n"),
            "line 2: `2?` is not a position number (0 to 4294967295)"
        );
        assert_eq!(
            error("0 1\n1 2x\n"),
            "line 2: `2x` is not a position number (0 to 4294967295)"
        );
        assert_eq!(
            error("0 99999999999999999999999"),
            "line 1: `99999999999999999999999` is not a position number (0 to 4294967295)"
        );
        assert_eq!(
            error("# c\n7\n"),
            "line 2: expected two position numbers `u v`, found one"
        );
        assert_eq!(
            error("7 # 8\n"),
            "line 1: expected two position numbers `u v`, found one"
        );
        assert_eq!(
            error("1 2 3\n"),
            "line 1: expected two position numbers `u v`, found more"
        );
        assert_eq!(error(""), "the file has no position");
        assert_eq!(error("# only a comment\n\n"), "the file has no position");
    }

    #[test]
    fn chunk_seams_do_not_matter() {
        let moves = crate::random::moves(300, 3.0, 0.9, 5);
        let mut text = Vec::new();
        for (u, v) in &moves {
            text.extend_from_slice(format!("{u} {v}\n").as_bytes());
        }
        let whole = parse_edges_in_chunks(&text, 1 << 30).unwrap();
        for chunk in [1, 2, 7, 64] {
            assert_eq!(parse_edges_in_chunks(&text, chunk).unwrap(), whole);
        }
        let n = 1 + moves.iter().map(|&(u, v)| u.max(v)).max().unwrap() as u64;
        assert_eq!(whole, Graph::impartial(n, &moves));
        // An error late in the file is reported with its line, whatever the chunks.
        text.extend_from_slice(b"1 x\n");
        for chunk in [1, 5, 1 << 30] {
            let e = parse_edges_in_chunks(&text, chunk).unwrap_err().to_string();
            assert!(
                e.starts_with(&format!("line {}: `x`", moves.len() + 1)),
                "{e}"
            );
        }
    }

    proptest! {
        #[test]
        fn arbitrary_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..200)) {
            let _ = parse_edges_in_chunks(&bytes, 3);
        }

        #[test]
        fn arbitrary_small_texts_never_panic(text in "([0-9]{1,3}|[0-9]{11,12}|[ #x\n\t\r-]){0,40}") {
            if let Ok(graph) = parse_edges_in_chunks(text.as_bytes(), 4) {
                prop_assert!(graph.positions() > 0);
            }
        }
    }
}
