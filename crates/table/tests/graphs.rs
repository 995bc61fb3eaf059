//! Round trip through the real pipeline: random graphs solved by the engine, written, and every position probed
//! back; then the engine's certificate run over the values read from disk.

use retro_engine::{PlayConvention, SolveOptions, certify, solve};
use retro_game::{Game, Index};
use retro_graph::Graph;
use retro_probe::Table;
use retro_table::{TableSpec, WriteOptions, write_table};

fn check(graph: &Graph, convention: PlayConvention, name: &str, options: WriteOptions) -> Table {
    let game = graph.game();
    let solution = solve(
        &game,
        &SolveOptions {
            convention,
            ..Default::default()
        },
    )
    .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let partizan = graph.is_partizan();
    let payload = graph.to_bytes();
    let spec = TableSpec {
        game: "graph",
        name,
        params: vec![],
        sides: if partizan { 2 } else { 1 },
        side_of: |i: Index| if partizan { (i & 1) as u8 } else { 0 },
        size: game.size(),
        payload: &payload,
        exits: None,
        index_periods: &[],
        index_digits: &[],
        distance_omitted: None,
        options,
    };
    write_table(dir.path(), &spec, |i| solution.value(i)).unwrap();
    let table = Table::open(dir.path(), "graph", name, 1 << 20).unwrap();
    for i in 0..game.size() {
        let expected = solution.value(i);
        assert_eq!(table.probe(i).unwrap(), expected, "{name}: index {i}");
        assert_eq!(
            Some(table.probe_wdl(i).unwrap()),
            expected.map(|v| v.outcome()),
            "{name}: index {i}"
        );
    }
    assert_eq!(
        Graph::from_bytes(&table.payload().unwrap()).unwrap(),
        *graph
    );
    let stats = solution.stats();
    let total = table.meta().total();
    assert_eq!(
        (total.wins, total.draws, total.losses),
        (stats.wins, stats.draws, stats.losses)
    );
    let certified = certify(&game, convention, |i| table.probe(i).unwrap()).unwrap();
    assert_eq!(certified, game.size());
    table
}

#[test]
fn every_position_of_many_random_graphs_probes_back_to_the_engines_value() {
    let small = WriteOptions {
        wdl_block_values: 256,
        distance_block_values: 64,
        ..WriteOptions::default()
    };
    for seed in 0..60u64 {
        let n = 1 + (seed * 37) % 400;
        let lambda = [0.5, 1.5, 3.0][(seed % 3) as usize];
        let p_down = [0.0, 0.5, 0.95][(seed / 3 % 3) as usize];
        let convention = if seed % 4 == 3 {
            PlayConvention::Misere
        } else {
            PlayConvention::Normal
        };
        let graph = retro_graph::random::graph(n, lambda, p_down, seed);
        let options = if seed % 2 == 0 {
            small
        } else {
            WriteOptions::default()
        };
        check(&graph, convention, &format!("impartial{seed}"), options);

        let left = retro_graph::random::moves(n, lambda, p_down, seed + 1000);
        let right = retro_graph::random::moves(n, lambda, p_down, seed + 2000);
        let partizan = Graph::partizan(n, &left, &right);
        check(&partizan, convention, &format!("partizan{seed}"), options);
    }
}

#[test]
fn a_long_chain_needs_two_byte_distances_and_reads_back() {
    // 0 -> 1 -> ... -> 299: distances up to 299 plies do not fit the one-byte code.
    let n = 300u32;
    let moves: Vec<(u32, u32)> = (0..n - 1).map(|i| (i, i + 1)).collect();
    let graph = Graph::impartial(u64::from(n), &moves);
    let table = check(
        &graph,
        PlayConvention::Normal,
        "chain",
        WriteOptions::default(),
    );
    assert_eq!(
        table.distance_file().header().encoding,
        retro_probe::Encoding::Distance16
    );
    assert_eq!(table.meta().sides[0].longest_win, Some(299));
}

#[test]
fn files_read_back_after_their_pages_are_given_back() {
    // Enough 64-value blocks that the writer's read-back goes through several batches, giving the pages of the
    // file back to the kernel between them.
    let graph = retro_graph::random::graph(40_000, 1.5, 0.5, 7);
    let options = WriteOptions {
        wdl_block_values: 64,
        distance_block_values: 64,
        ..WriteOptions::default()
    };
    let table = check(&graph, PlayConvention::Normal, "released", options);
    let solution = solve(&graph.game(), &SolveOptions::default()).unwrap();
    let file = table.distance_file();
    assert!(file.header().block_count > 500);
    for block in 0..file.header().block_count {
        if block % 100 == 0 {
            file.release_pages();
        }
        let values = file.distance_block(block).unwrap();
        for (offset, value) in values.into_iter().enumerate() {
            assert_eq!(value, solution.value(block * 64 + offset as u64));
        }
    }
}
