//! `retro grundy`: the generalized Sprague–Grundy value of every position of an impartial graph game.

use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use clap::Args;
use retro_graph::grundy::{Grundy, GrundyValues};
use retro_graph::{Format, Graph, ParseError};

use crate::json;
use crate::run::with_threads;

#[derive(Args, Debug)]
pub struct GrundyArgs {
    /// The graph file: `name : options` lines, or `u v` lines with --edges. It must be impartial (no `|`).
    pub file: PathBuf,
    /// The file is an edge list (`u v` per line, positions 0..n-1).
    #[arg(long)]
    pub edges: bool,
    /// Worker threads (default: all cores). The result does not depend on it.
    #[arg(long)]
    pub threads: Option<usize>,
    /// Print JSON: `{"positions":[{"name":"a","value":2},{"name":"b","value":"inf","options":[0,3]}, ...]}`.
    #[arg(long)]
    pub json: bool,
}

pub fn run(args: &GrundyArgs) -> Result<()> {
    let (graph, values) = load(&args.file, args.edges, args.threads)?;
    let stdout = std::io::stdout().lock();
    let mut out = BufWriter::with_capacity(1 << 20, stdout);
    if args.json {
        write_json(&mut out, &graph, &values)?;
    } else {
        write_table(&mut out, &graph, &values)?;
    }
    out.flush().context("cannot write the output")
}

/// Reads an impartial graph and computes its values; errors name the file.
pub fn load(path: &Path, edges: bool, threads: Option<usize>) -> Result<(Graph, GrundyValues)> {
    let format = if edges { Format::Edges } else { Format::Text };
    let graph = Graph::read(path, format).map_err(|e| match e {
        // The message already names the file.
        ParseError::Io { .. } => anyhow::Error::new(e),
        _ => anyhow::Error::new(e).context(path.display().to_string()),
    })?;
    let values = with_threads(threads, || GrundyValues::compute(&graph))?
        .with_context(|| path.display().to_string())?;
    Ok((graph, values))
}

fn write_json(out: &mut impl Write, graph: &Graph, values: &GrundyValues) -> Result<()> {
    out.write_all(b"{\"positions\":[")?;
    for p in 0..graph.positions() as u32 {
        if p > 0 {
            out.write_all(b",")?;
        }
        let name = json::string(&graph.name(p).to_string());
        match values.get(p) {
            Grundy::Finite(value) => write!(out, "{{\"name\":{name},\"value\":{value}}}")?,
            Grundy::Infinite(k) => {
                write!(out, "{{\"name\":{name},\"value\":\"inf\",\"options\":[")?;
                for (i, value) in k.iter().enumerate() {
                    if i > 0 {
                        out.write_all(b",")?;
                    }
                    write!(out, "{value}")?;
                }
                out.write_all(b"]}")?;
            }
        }
    }
    out.write_all(b"]}\n")?;
    Ok(())
}

fn write_table(out: &mut impl Write, graph: &Graph, values: &GrundyValues) -> Result<()> {
    let width = (0..graph.positions() as u32)
        .take(10_000)
        .map(|p| graph.name(p).to_string().chars().count())
        .max()
        .unwrap_or(8)
        .max(8);
    writeln!(out, "{:<width$}  {:<12}  outcome", "position", "value")?;
    for p in 0..graph.positions() as u32 {
        let value = values.get(p);
        let shown = value.to_string();
        // Pad by characters, not bytes: `∞` is three bytes.
        let pad = 12usize.saturating_sub(shown.chars().count());
        writeln!(
            out,
            "{:<width$}  {shown}{:pad$}  {}",
            graph.name(p).to_string(),
            "",
            value.outcome()
        )?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn render(text: &str, json: bool) -> String {
        let graph = Graph::parse_text(text.as_bytes()).unwrap();
        let values = GrundyValues::compute(&graph).unwrap();
        let mut out = Vec::new();
        if json {
            write_json(&mut out, &graph, &values).unwrap();
        } else {
            write_table(&mut out, &graph, &values).unwrap();
        }
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn json_has_the_documented_shape() {
        // a -> b -> c -> a, c -> d, d -> e; "q\"" checks escaping.
        let text = "a : b\nb : c\nc : a d\nd : e\ne :\nq\" : e d\n";
        assert_eq!(
            render(text, true),
            "{\"positions\":[{\"name\":\"a\",\"value\":\"inf\",\"options\":[]},\
             {\"name\":\"b\",\"value\":\"inf\",\"options\":[]},\
             {\"name\":\"c\",\"value\":\"inf\",\"options\":[1]},\
             {\"name\":\"d\",\"value\":1},{\"name\":\"e\",\"value\":0},{\"name\":\"q\\\"\",\"value\":2}]}\n"
        );
    }

    #[test]
    fn table_is_readable() {
        assert_eq!(
            render("a : a b\nb :\n", false),
            "position  value         outcome\n\
             a         ∞{0}          win\n\
             b         0             loss\n"
        );
    }
}
