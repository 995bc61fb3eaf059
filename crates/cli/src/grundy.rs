//! `retro grundy`: the generalized Sprague–Grundy value of every position of an impartial graph game.

use std::io::{BufWriter, Write};
use std::path::Path;

use anyhow::{Context, Result};
use clap::Args;
use retro_game::Outcome;
use retro_graph::Graph;
use retro_graph::grundy::{Grundy, GrundyValues};

use crate::graph_file::{GraphFile, read_graph};
use retro_driver::json;
use retro_driver::with_threads;

#[derive(Args, Debug)]
pub struct GrundyArgs {
    // It must be impartial (no `|`): a partizan file is refused with an error that says why.
    #[command(flatten)]
    pub graph: GraphFile,
    /// Worker threads (default: all cores). The result does not depend on it.
    #[arg(long)]
    pub threads: Option<usize>,
    /// Print JSON: `{"positions":[{"name":"a","value":2},{"name":"b","value":"inf","options":[0,3]}, ...]}`.
    #[arg(long)]
    pub json: bool,
    /// Print only the totals: positions, moves, the largest finite value, the positions of value ∞ and the
    /// outcomes (with --json: `{"positions":N,"moves":M,"max_value":V,"infinite":I,"win":W,"loss":L,"draw":D}`,
    /// `max_value` null when no value is finite).
    #[arg(long)]
    pub summary: bool,
}

pub fn run(args: &GrundyArgs) -> Result<()> {
    let (graph, values) = load(&args.graph.file, args.graph.edges, args.threads)?;
    let stdout = std::io::stdout().lock();
    let mut out = BufWriter::with_capacity(1 << 20, stdout);
    match (args.summary, args.json) {
        (true, json) => write_summary(&mut out, &graph, &values, json)?,
        (false, true) => write_json(&mut out, &graph, &values)?,
        (false, false) => write_table(&mut out, &graph, &values)?,
    }
    out.flush().context("cannot write the output")
}

/// Reads an impartial graph and computes its values; errors name the file.
pub fn load(path: &Path, edges: bool, threads: Option<usize>) -> Result<(Graph, GrundyValues)> {
    let graph = read_graph(path, edges)?;
    let values = with_threads(threads, || GrundyValues::compute(&graph))?
        .with_context(|| path.display().to_string())?;
    Ok((graph, values))
}

fn write_json(out: &mut impl Write, graph: &Graph, values: &GrundyValues) -> Result<()> {
    out.write_all(b"{\"positions\":[")?;
    for (p, value) in values.iter().enumerate() {
        if p > 0 {
            out.write_all(b",")?;
        }
        let name = json::string(&graph.name(p as u32).to_string());
        match value {
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

fn write_summary(
    out: &mut impl Write,
    graph: &Graph,
    values: &GrundyValues,
    json: bool,
) -> Result<()> {
    let (mut win, mut loss, mut draw) = (0u64, 0u64, 0u64);
    for value in values.iter() {
        match value.outcome() {
            Outcome::Win => win += 1,
            Outcome::Loss => loss += 1,
            Outcome::Draw => draw += 1,
        }
    }
    let max = values.max_finite();
    if json {
        writeln!(
            out,
            "{{\"positions\":{},\"moves\":{},\"max_value\":{},\"infinite\":{},\"win\":{win},\"loss\":{loss},\"draw\":{draw}}}",
            graph.positions(),
            graph.moves(),
            json::optional(max),
            values.infinite_count()
        )?;
    } else {
        writeln!(
            out,
            "{} positions, {} moves",
            graph.positions(),
            graph.moves()
        )?;
        match max {
            Some(max) => writeln!(out, "largest finite value {max}")?,
            None => writeln!(out, "no finite value")?,
        }
        writeln!(out, "value ∞ {}", values.infinite_count())?;
        writeln!(out, "win   {win}\nloss  {loss}\ndraw  {draw}")?;
    }
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
    for (p, value) in values.iter().enumerate() {
        let shown = value.to_string();
        // Pad by characters, not bytes: `∞` is three bytes.
        let pad = 12usize.saturating_sub(shown.chars().count());
        writeln!(
            out,
            "{:<width$}  {shown}{:pad$}  {}",
            graph.name(p as u32).to_string(),
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
    fn summary_counts_values_and_outcomes() {
        let graph = Graph::parse_text(b"a : b\nb : c\nc : a d\nd : e\ne :\nf : f e\n").unwrap();
        let values = GrundyValues::compute(&graph).unwrap();
        let mut out = Vec::new();
        write_summary(&mut out, &graph, &values, true).unwrap();
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "{\"positions\":6,\"moves\":7,\"max_value\":1,\"infinite\":4,\"win\":2,\"loss\":1,\"draw\":3}\n"
        );
        let mut out = Vec::new();
        write_summary(&mut out, &graph, &values, false).unwrap();
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "6 positions, 7 moves\nlargest finite value 1\nvalue ∞ 4\nwin   2\nloss  1\ndraw  3\n"
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
