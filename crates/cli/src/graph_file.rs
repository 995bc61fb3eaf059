//! The graph file a command reads: its path, its format, and reading it with errors that name it.

use std::path::{Path, PathBuf};

use anyhow::Result;
use clap::Args;
use retro_graph::{Format, Graph, ParseError};

#[derive(Args, Debug, Clone)]
pub struct GraphFile {
    /// The graph file: `name : options` lines, or `u v` lines with --edges.
    pub file: PathBuf,
    /// The file is an edge list (`u v` per line, positions 0..n-1).
    #[arg(long)]
    pub edges: bool,
}

impl GraphFile {
    pub fn read(&self) -> Result<Graph> {
        read_graph(&self.file, self.edges)
    }
}

/// Reads a graph file (an edge list when `edges`); a parse error says which file.
pub fn read_graph(path: &Path, edges: bool) -> Result<Graph> {
    let format = if edges { Format::Edges } else { Format::Text };
    Graph::read(path, format).map_err(|e| match e {
        // An I/O message names the file already.
        ParseError::Io { .. } => anyhow::Error::new(e),
        _ => anyhow::Error::new(e).context(path.display().to_string()),
    })
}
