//! `retro sum`: the outcome of a sum of impartial graph games, from their generalized Sprague–Grundy values, and a
//! winning move when there is one.

use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use clap::Args;
use retro_game::Outcome;
use retro_graph::Graph;
use retro_graph::grundy::{Component, GrundyValues, SumMove, sum_outcome, winning_move};

use crate::grundy::load;
use retro_driver::json;

#[derive(Args, Debug)]
pub struct SumArgs {
    /// The components, each a position of a graph file: `FILE:POSITION` (split at the last `:`).
    #[arg(required = true, value_name = "FILE:POSITION")]
    pub components: Vec<String>,
    /// The files are edge lists (`u v` per line, positions named by their numbers).
    #[arg(long)]
    pub edges: bool,
    /// Worker threads (default: all cores). The result does not depend on it.
    #[arg(long)]
    pub threads: Option<usize>,
    /// Print JSON: `{"outcome":"win","move":{"component":0,"to":"c"}}` (move null unless the outcome is a win).
    #[arg(long)]
    pub json: bool,
}

/// A file read once, however many components use it.
struct Loaded {
    path: PathBuf,
    graph: Graph,
    values: GrundyValues,
}

pub fn run(args: &SumArgs) -> Result<()> {
    let mut files: Vec<Loaded> = Vec::new();
    let mut chosen: Vec<(usize, u32)> = Vec::new();
    for spec in &args.components {
        let Some((file, name)) = spec.rsplit_once(':') else {
            bail!("`{spec}` is not FILE:POSITION");
        };
        let path = Path::new(file);
        let slot = match files.iter().position(|f| f.path == path) {
            Some(slot) => slot,
            None => {
                let (graph, values) = load(path, args.edges, args.threads)?;
                files.push(Loaded {
                    path: path.to_owned(),
                    graph,
                    values,
                });
                files.len() - 1
            }
        };
        let position = files[slot]
            .graph
            .lookup(name)
            .with_context(|| format!("{file}: no position named `{name}`"))?;
        chosen.push((slot, position));
    }
    let components: Vec<Component<'_>> = chosen
        .iter()
        .map(|&(slot, position)| Component {
            graph: &files[slot].graph,
            values: &files[slot].values,
            position,
        })
        .collect();
    let (outcome, winning) = decide(&components);
    let mut out = std::io::stdout().lock();
    let text = if args.json {
        to_json(&components, outcome, winning)
    } else {
        to_text(&args.components, &components, outcome, winning)
    };
    out.write_all(text.as_bytes())
        .context("cannot write the output")
}

fn decide(components: &[Component<'_>]) -> (Outcome, Option<SumMove>) {
    let outcome = sum_outcome(components.iter().map(|c| c.values.get(c.position)));
    (outcome, winning_move(components))
}

fn to_json(components: &[Component<'_>], outcome: Outcome, winning: Option<SumMove>) -> String {
    let move_json = match winning {
        Some(mv) => format!(
            "{{\"component\":{},\"to\":{}}}",
            mv.component,
            json::string(&components[mv.component].graph.name(mv.to).to_string())
        ),
        None => "null".to_string(),
    };
    format!("{{\"outcome\":\"{outcome}\",\"move\":{move_json}}}\n")
}

fn to_text(
    specs: &[String],
    components: &[Component<'_>],
    outcome: Outcome,
    winning: Option<SumMove>,
) -> String {
    let mut text = String::new();
    for (i, (spec, c)) in specs.iter().zip(components).enumerate() {
        text += &format!(
            "component {i}: {spec}  value {}\n",
            c.values.get(c.position)
        );
    }
    text += &format!("outcome for the player to move: {outcome}\n");
    if let Some(mv) = winning {
        let c = &components[mv.component];
        text += &format!(
            "winning move: component {}, {} -> {}\n",
            mv.component,
            c.graph.name(c.position),
            c.graph.name(mv.to)
        );
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    fn graph(text: &str) -> (Graph, GrundyValues) {
        let graph = Graph::parse_text(text.as_bytes()).unwrap();
        let values = GrundyValues::compute(&graph).unwrap();
        (graph, values)
    }

    fn sum<'a>(parts: &[(&'a (Graph, GrundyValues), &str)]) -> Vec<Component<'a>> {
        parts
            .iter()
            .map(|&((graph, values), name)| Component {
                graph,
                values,
                position: graph.lookup(name).unwrap(),
            })
            .collect()
    }

    #[test]
    fn nim_heaps_and_a_loop() {
        // heap3 = *3 as a nim heap; loop = a -> b -> c -> a, c -> d, d -> e (c = ∞{1}).
        let heaps = graph("h0 :\nh1 : h0\nh2 : h0 h1\nh3 : h0 h1 h2\n");
        let looped = graph("a : b\nb : c\nc : a d\nd : e\ne :\n");

        // *3 + *1: XOR 2, take heap 3 down to 1.
        let parts = sum(&[(&heaps, "h3"), (&heaps, "h1")]);
        let (outcome, mv) = decide(&parts);
        assert_eq!(
            to_json(&parts, outcome, mv),
            "{\"outcome\":\"win\",\"move\":{\"component\":0,\"to\":\"h1\"}}\n"
        );

        // *2 + *2: a loss, no move.
        let parts = sum(&[(&heaps, "h2"), (&heaps, "h2")]);
        let (outcome, mv) = decide(&parts);
        assert_eq!(
            to_json(&parts, outcome, mv),
            "{\"outcome\":\"loss\",\"move\":null}\n"
        );

        // ∞{1} + *1: x = 1 ∈ K, move c to d.
        let parts = sum(&[(&looped, "c"), (&heaps, "h1")]);
        let (outcome, mv) = decide(&parts);
        assert_eq!(
            to_json(&parts, outcome, mv),
            "{\"outcome\":\"win\",\"move\":{\"component\":0,\"to\":\"d\"}}\n"
        );
        let specs = ["loop.txt:c".to_string(), "heaps.txt:h1".to_string()];
        assert_eq!(
            to_text(&specs, &parts, outcome, mv),
            "component 0: loop.txt:c  value ∞{1}\ncomponent 1: heaps.txt:h1  value 1\n\
             outcome for the player to move: win\nwinning move: component 0, c -> d\n"
        );

        // ∞{1} + *2: x = 2 ∉ K, a draw; two infinite parts: a draw.
        let parts = sum(&[(&looped, "c"), (&heaps, "h2")]);
        let (outcome, mv) = decide(&parts);
        assert_eq!(
            to_json(&parts, outcome, mv),
            "{\"outcome\":\"draw\",\"move\":null}\n"
        );
        let parts = sum(&[(&looped, "c"), (&looped, "a")]);
        assert_eq!(decide(&parts), (Outcome::Draw, None));
    }
}
