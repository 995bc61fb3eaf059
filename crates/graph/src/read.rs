//! Reading graph files from disk: the file is memory-mapped, so a 500 MB edge list is parsed straight from the
//! page cache without a copy.

use std::fs::File;
use std::path::Path;

use memmap2::MmapOptions;

use crate::error::ParseError;
use crate::graph::Graph;

/// Which of the two graph formats a file is in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// `name : options` lines ([`crate::text`]).
    Text,
    /// `u v` lines ([`crate::edges`]).
    Edges,
}

impl Graph {
    /// Parses a graph in the text format.
    pub fn parse_text(bytes: &[u8]) -> Result<Graph, ParseError> {
        crate::text::parse_text(bytes)
    }

    /// Parses a graph in the edge-list format.
    pub fn parse_edges(bytes: &[u8]) -> Result<Graph, ParseError> {
        crate::edges::parse_edges(bytes)
    }

    /// Parses bytes in the given format.
    pub fn parse(bytes: &[u8], format: Format) -> Result<Graph, ParseError> {
        match format {
            Format::Text => Graph::parse_text(bytes),
            Format::Edges => Graph::parse_edges(bytes),
        }
    }

    /// Reads and parses a graph file.
    pub fn read(path: &Path, format: Format) -> Result<Graph, ParseError> {
        let io = |error| ParseError::Io {
            path: path.to_owned(),
            error,
        };
        let file = File::open(path).map_err(io)?;
        let len = file.metadata().map_err(io)?.len();
        if len == 0 {
            // An empty file cannot be mapped on every platform, and holds no position anyway.
            return Err(ParseError::Empty);
        }
        // SAFETY: the mapping is only read, and only while `map` lives inside this function. If another process
        // truncates the file meanwhile, reads may fault (SIGBUS); this is the documented risk of memmap2 that every
        // memory-mapped reader accepts, and the parser itself never indexes outside the slice.
        // `populate` reads the whole file in ahead (MAP_POPULATE): one pass of the kernel instead of a page fault every
        // 4 KB, since the parser reads every byte anyway.
        let map = unsafe { MmapOptions::new().populate().map(&file) }.map_err(io)?;
        match format {
            Format::Text => Graph::parse_text(&map),
            Format::Edges => {
                let moves = crate::edges::read_moves(&map, crate::edges::CHUNK_BYTES)?;
                // Unmap the file before the graph is built: its pages would otherwise stay resident beside the
                // graph's arrays, and the file is about as big as the graph.
                drop(map);
                Ok(moves.build())
            }
        }
    }
}
