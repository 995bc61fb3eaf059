//! Graph games on disk: `retro generate graph`, and the graph functions of `probe`, `info` and `verify`.
//!
//! A graph table is named by its file's stem and keeps the graph itself (with its position names) as the table's
//! payload, so that probing lists moves by name and `verify` rebuilds the game without the source file. Indices are
//! those of [`GraphGame`]: the position for an impartial graph, `2·position + mover` for a partizan one.

use std::path::PathBuf;
use std::time::Instant;

use anyhow::{Context, Result, bail};
use clap::Args;
use retro_engine::{Index, Value};
use retro_graph::{Graph, GraphGame, Player};
use retro_probe::{Table, Tables};
use retro_table::{TableSpec, WriteOptions, write_table};

use crate::graph_file::GraphFile;
use crate::json;
use crate::run::{EngineArgs, WORK_DIR, with_threads};
use crate::solve::convention;
use crate::tables::{self, open_table};

#[derive(Args, Debug)]
pub struct GenerateGraphArgs {
    // The table is named by the file's stem (said in the subcommand's help).
    #[command(flatten)]
    pub graph: GraphFile,
    /// Misère play: the player who cannot move wins.
    #[arg(long)]
    pub misere: bool,
    /// The directory of tables to write into (the table goes to DIR/graph/NAME.rwdl and .rdst).
    #[arg(long)]
    pub out: PathBuf,
    #[command(flatten)]
    pub engine: EngineArgs,
}

pub fn generate(args: &GenerateGraphArgs) -> Result<()> {
    let start = Instant::now();
    let name = args
        .graph
        .file
        .file_stem()
        .and_then(|s| s.to_str())
        .with_context(|| {
            format!(
                "{}: the file name has no usable stem",
                args.graph.file.display()
            )
        })?
        .to_owned();
    retro_probe::format::check_name("table", &name)
        .map_err(|e| anyhow::anyhow!("{}: {e}", args.graph.file.display()))?;
    let graph = args.graph.read()?;
    let game = graph.game();
    let payload = graph.to_bytes();
    let solution = args.engine.solve(
        &game,
        convention(args.misere),
        "solving",
        Some(&args.out.join(WORK_DIR)),
    )?;
    let (written, solved_at) = with_threads(args.engine.threads, || -> Result<_> {
        let solved_at = start.elapsed();
        let spec = TableSpec {
            game: "graph",
            name: &name,
            params: vec![
                (
                    "convention".into(),
                    if args.misere { "misere" } else { "normal" }.into(),
                ),
                (
                    "kind".into(),
                    if graph.is_partizan() {
                        "partizan"
                    } else {
                        "impartial"
                    }
                    .into(),
                ),
                ("positions".into(), graph.positions().to_string()),
                ("moves".into(), graph.moves().to_string()),
            ],
            sides: if graph.is_partizan() { 2 } else { 1 },
            side_of: |i: Index| {
                if graph.is_partizan() {
                    (i & 1) as u8
                } else {
                    0
                }
            },
            size: game_size(&graph),
            payload: &payload,
            options: WriteOptions {
                // Graph tables carry their graph as payload: spend no time squeezing their distances harder.
                large_table: 0,
                ..WriteOptions::default()
            },
        };
        let written = write_table(&args.out, &spec, |i| solution.value(i))?;
        Ok((written, solved_at))
    })??;
    let total = written.meta.total();
    let positions = written.meta.index_size - written.meta.holes;
    println!(
        "graph {name}: {positions} positions: {} win, {} draw, {} loss; solved in {:.2} s, written in {:.2} s",
        total.wins,
        total.draws,
        total.losses,
        solved_at.as_secs_f64(),
        (start.elapsed() - solved_at).as_secs_f64()
    );
    tables::print_written(&written, positions);
    Ok(())
}

fn game_size(graph: &Graph) -> Index {
    graph.positions() * if graph.is_partizan() { 2 } else { 1 }
}

/// The graph stored in a table.
pub fn graph_of(table: &Table) -> Result<Graph> {
    let path = table.distance_file().path().display().to_string();
    let payload = table.payload()?;
    let graph =
        Graph::from_bytes(&payload).map_err(|e| anyhow::anyhow!("{path}: stored graph: {e}"))?;
    if game_size(&graph) != table.size() {
        bail!(
            "{path}: the stored graph does not have the table's {} indices",
            table.size()
        );
    }
    Ok(graph)
}

/// One option of a position, valued for the player making it, counted from the position.
struct Option_ {
    to: String,
    value: Value,
}

/// The value of `position` with `mover` to move and its options, best first (ties in file order; a repeated
/// option is listed once).
fn valued_options(
    table: &Table,
    game: &GraphGame,
    position: u32,
    mover: Player,
) -> Result<(Value, Vec<Option_>)> {
    let graph = game.graph();
    let here = tables::value_at(table, game.index(position, mover))?
        .with_context(|| format!("position {} is a hole in the table", graph.name(position)))?;
    let mut seen = std::collections::HashSet::new();
    let mut options = Vec::new();
    for &q in graph.options(position, mover) {
        if !seen.insert(q) {
            continue;
        }
        let there = tables::value_at(table, game.index(q, mover.other()))?
            .with_context(|| format!("position {} is a hole in the table", graph.name(q)))?;
        options.push(Option_ {
            to: graph.name(q).to_string(),
            value: there.back(),
        });
    }
    options.sort_by(|a, b| b.value.preference(a.value));
    Ok((here, options))
}

fn describe(value: Value) -> String {
    match value.plies() {
        Some(p) => format!("{} in {p} plies", value.outcome()),
        None => "draw".to_string(),
    }
}

fn side_json(value: Value, options: &[Option_]) -> String {
    let moves = options
        .iter()
        .map(|o| {
            format!(
                "{{\"to\":{},{}}}",
                json::string(&o.to),
                json::value_fields(o.value)
            )
        })
        .collect::<Vec<_>>()
        .join(",");
    format!("{},\"moves\":[{moves}]", json::value_fields(value))
}

/// `retro probe --tables DIR graph NAME POSITION`.
pub fn probe(tables: &Tables, what: &[String], as_json: bool) -> Result<()> {
    print!("{}", render_probe(tables, what, as_json)?);
    Ok(())
}

/// What `probe` prints: one line of JSON, or a readable listing.
fn render_probe(tables: &Tables, what: &[String], as_json: bool) -> Result<String> {
    use std::fmt::Write;
    let [name, position] = what else {
        bail!("probing a graph table takes the table's name and a position: graph NAME POSITION");
    };
    let table = open_table(tables, "graph", name)?;
    let graph = graph_of(&table)?;
    let game = graph.game();
    let Some(p) = graph.lookup(position) else {
        bail!("graph {name} has no position named {position:?}");
    };
    let movers: &[(Player, &str)] = if graph.is_partizan() {
        &[(Player::Left, "left"), (Player::Right, "right")]
    } else {
        &[(Player::Left, "")]
    };
    let mut sides = Vec::new();
    for &(mover, word) in movers {
        let (value, options) = valued_options(&table, &game, p, mover)?;
        sides.push((word, value, options));
    }
    if as_json {
        let body = if graph.is_partizan() {
            sides
                .iter()
                .map(|(word, value, options)| {
                    format!("\"{word}\":{{{}}}", side_json(*value, options))
                })
                .collect::<Vec<_>>()
                .join(",")
        } else {
            side_json(sides[0].1, &sides[0].2)
        };
        return Ok(format!(
            "{{\"position\":{},{body}}}\n",
            json::string(position)
        ));
    }
    let mut out = String::new();
    for (word, value, options) in &sides {
        let who = if word.is_empty() {
            String::new()
        } else {
            format!(", {word} to move")
        };
        writeln!(out, "{position}{who}: {}", describe(*value))?;
        if options.is_empty() {
            writeln!(out, "  no move")?;
        }
        for o in options {
            writeln!(out, "  {:<12} {}", o.to, describe(o.value))?;
        }
    }
    Ok(out)
}

/// `retro info --tables DIR graph NAME`.
pub fn info(table: &Table, as_json: bool) -> Result<()> {
    if table.meta().sides.len() == 2 {
        tables::print_info(table, as_json, &["left", "right"], |i| (i & 1) as usize)
    } else {
        tables::print_info(table, as_json, &["all"], |_| 0)
    }
}

/// The graph part of `retro verify`: the certificate over the graph stored in the table.
pub fn verify(table: &Table, memory: u64) -> Result<u64> {
    let graph = graph_of(table)?;
    let game = graph.game();
    let convention = tables::convention_of(table)?;
    tables::certify_table(table, &game, convention, memory, |index| {
        let (p, mover) = game.position(index);
        if graph.is_partizan() {
            format!("position {} with {mover:?} to move", graph.name(p))
        } else {
            format!("position {}", graph.name(p))
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tables::{CACHE_BYTES, open_tables};

    /// Writes `text` as DIR/NAME.txt and generates its table into DIR/out.
    fn generate_text(dir: &std::path::Path, name: &str, text: &str, misere: bool) -> PathBuf {
        let file = dir.join(format!("{name}.txt"));
        std::fs::write(&file, text).unwrap();
        let out = dir.join("out");
        generate(&GenerateGraphArgs {
            graph: GraphFile { file, edges: false },
            misere,
            out: out.clone(),
            engine: EngineArgs {
                threads: Some(2),
                quiet: true,
                ..Default::default()
            },
        })
        .unwrap();
        out
    }

    fn probe_json(out: &std::path::Path, name: &str, position: &str) -> String {
        let tables = Tables::open(out, CACHE_BYTES).unwrap();
        render_probe(&tables, &[name.to_string(), position.to_string()], true).unwrap()
    }

    #[test]
    fn impartial_probe_lists_moves_best_first_from_the_movers_view() {
        let dir = tempfile::tempdir().unwrap();
        // a -> b, c, d; b -> end; c -> a (a cycle); d -> b; end has no move.
        let out = generate_text(
            dir.path(),
            "g",
            "a : b c d\nb : end\nc : a\nd : b\nend :\n",
            false,
        );
        assert_eq!(
            probe_json(&out, "g", "d"),
            "{\"position\":\"d\",\"outcome\":\"loss\",\"plies\":2,\"moves\":[{\"to\":\"b\",\"outcome\":\"loss\",\"plies\":2}]}\n"
        );
        // a: moving to d (where the mover loses in 2) wins in 3; moving to c (which loses in 4, its only move
        // being back to a) wins in 5; moving to b (which wins in 1) loses in 2.
        assert_eq!(
            probe_json(&out, "g", "a"),
            "{\"position\":\"a\",\"outcome\":\"win\",\"plies\":3,\"moves\":[\
             {\"to\":\"d\",\"outcome\":\"win\",\"plies\":3},\
             {\"to\":\"c\",\"outcome\":\"win\",\"plies\":5},\
             {\"to\":\"b\",\"outcome\":\"loss\",\"plies\":2}]}\n"
        );
        let tables = open_tables(&out).unwrap();
        let table = open_table(&tables, "graph", "g").unwrap();
        // Read whole, and probed block by block when it may not be.
        assert_eq!(verify(&table, u64::MAX).unwrap(), 5);
        assert_eq!(verify(&table, 0).unwrap(), 5);
        tables::check_files(&table).unwrap();
    }

    #[test]
    fn partizan_probe_gives_each_mover_its_own_moves() {
        let dir = tempfile::tempdir().unwrap();
        // Left can move from a to end, Right cannot move from a at all.
        let out = generate_text(dir.path(), "p", "a : end |\nend : |\n", false);
        assert_eq!(
            probe_json(&out, "p", "a"),
            "{\"position\":\"a\",\"left\":{\"outcome\":\"win\",\"plies\":1,\"moves\":[\
             {\"to\":\"end\",\"outcome\":\"win\",\"plies\":1}]},\
             \"right\":{\"outcome\":\"loss\",\"plies\":0,\"moves\":[]}}\n"
        );
        let tables = open_tables(&out).unwrap();
        let table = open_table(&tables, "graph", "p").unwrap();
        assert_eq!(verify(&table, u64::MAX).unwrap(), 4);
        let fields = tables::info_fields(&table, &["left", "right"], |i| (i & 1) as usize).unwrap();
        let counts = &fields.iter().find(|(k, _)| k == "counts").unwrap().1;
        assert_eq!(
            counts,
            "{\"left\":{\"win\":1,\"draw\":0,\"loss\":1},\"right\":{\"win\":0,\"draw\":0,\"loss\":2}}"
        );
    }

    #[test]
    fn misere_tables_verify_under_misere_play() {
        let dir = tempfile::tempdir().unwrap();
        let out = generate_text(dir.path(), "m", "a : b\nb :\n", true);
        // Under misere play b (no move) is a win, so a loses.
        assert!(
            probe_json(&out, "m", "a")
                .starts_with("{\"position\":\"a\",\"outcome\":\"loss\",\"plies\":1,")
        );
        let tables = open_tables(&out).unwrap();
        let table = open_table(&tables, "graph", "m").unwrap();
        assert_eq!(
            tables::convention_of(&table).unwrap(),
            retro_engine::PlayConvention::Misere
        );
        assert_eq!(verify(&table, u64::MAX).unwrap(), 2);
    }

    #[test]
    fn a_wrong_value_fails_verify_and_unknown_positions_are_errors() {
        let dir = tempfile::tempdir().unwrap();
        let out = generate_text(dir.path(), "w", "a : b\nb : c\nc :\n", false);
        let tables = open_tables(&out).unwrap();
        let err = render_probe(&tables, &["w".into(), "zz".into()], true).unwrap_err();
        assert_eq!(err.to_string(), "graph w has no position named \"zz\"");
        let err = render_probe(&tables, &["nope".into(), "a".into()], true).unwrap_err();
        assert!(
            err.to_string().ends_with("nope.rwdl: no such file"),
            "{err}"
        );

        // Rewrite the table with a wrong value (c claimed a draw): checksums are right, the certificate is not, and
        // it names the first position whose moves disagree (b, whose only move now reaches a draw).
        let graph = graph_of(&open_table(&tables, "graph", "w").unwrap()).unwrap();
        let payload = graph.to_bytes();
        let spec = TableSpec {
            game: "graph",
            name: "w",
            params: vec![],
            sides: 1,
            side_of: |_| 0,
            size: 3,
            payload: &payload,
            options: WriteOptions {
                // Graph tables carry their graph as payload: spend no time squeezing their distances harder.
                large_table: 0,
                ..WriteOptions::default()
            },
        };
        let wrong = [Some(Value::loss(2)), Some(Value::win(1)), Some(Value::DRAW)];
        write_table(&out, &spec, |i| wrong[i as usize]).unwrap();
        let tables = open_tables(&out).unwrap();
        let table = open_table(&tables, "graph", "w").unwrap();
        tables::check_files(&table).unwrap();
        // Read whole or probed, the same position is found wrong.
        for memory in [u64::MAX, 0] {
            let err = verify(&table, memory).unwrap_err().to_string();
            assert!(
                err.ends_with("w.rdst: inconsistent: position b (index 1) is stored as win in 1 but its moves give draw"),
                "{err}"
            );
        }
    }

    #[test]
    fn a_flipped_bit_is_reported_by_probe_info_and_verify_with_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let out = generate_text(dir.path(), "f", "a : b\nb : c\nc :\n", false);
        let path = out.join("graph").join("f.rdst");
        let clean = std::fs::read(&path).unwrap();
        // A bit in the header, and a bit in the last block.
        for at in [30, clean.len() - 3] {
            let mut damaged = clean.clone();
            damaged[at] ^= 0x10;
            std::fs::write(&path, &damaged).unwrap();
            let tables = open_tables(&out).unwrap();
            let error = match open_table(&tables, "graph", "f") {
                Err(e) => e.to_string(),
                Ok(table) => {
                    let probe = render_probe(&tables, &["f".into(), "a".into()], true).unwrap_err();
                    let checks = tables::check_files(&table).unwrap_err();
                    assert_eq!(probe.to_string(), checks.to_string());
                    checks.to_string()
                }
            };
            assert!(error.contains(&format!("{}: ", path.display())), "{error}");
            assert!(error.contains("checksum"), "{error}");
        }
    }
}
