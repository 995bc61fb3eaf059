//! Graph tables through the generic driver: generate, probe, info and verify, and what they say of bad input and
//! damaged tables.

use std::path::{Path, PathBuf};

use retro_driver::EngineArgs;
use retro_driver::generate::{GenerateArgs, generate};
use retro_driver::probe::render;
use retro_driver::verify::{VerifyArgs, verify};
use retro_family::{Flags, Index, Value};
use retro_table::{TableSpec, WriteOptions, write_table};

/// Writes `text` as DIR/NAME.txt and generates its table into DIR/out.
fn generate_text(dir: &Path, name: &str, text: &str, misere: bool) -> PathBuf {
    let file = dir.join(format!("{name}.txt"));
    std::fs::write(&file, text).unwrap();
    let out = dir.join("out");
    generate(&GenerateArgs {
        game: "graph".into(),
        variant: vec![file.display().to_string()],
        out: out.clone(),
        flags: Flags {
            misere,
            ..Flags::default()
        },
        engine: EngineArgs {
            threads: Some(2),
            quiet: true,
            ..Default::default()
        },
        ..Default::default()
    })
    .unwrap();
    out
}

fn probe_json(out: &Path, name: &str, position: &str) -> String {
    render(
        out,
        "graph",
        &[name.to_string(), position.to_string()],
        true,
    )
    .unwrap()
}

fn verify_graph(out: &Path, name: &str, memory: u64) -> anyhow::Result<u64> {
    let verified = verify(
        out,
        &VerifyArgs {
            game: "graph".into(),
            variant: vec![name.into()],
            threads: Some(2),
            memory: Some(memory),
        },
    )?;
    Ok(verified.iter().map(|v| v.positions).sum())
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
        "{\"position\":\"d\",\"outcome\":\"loss\",\"plies\":2,\"moves\":[{\"to\":\"b\",\"outcome\":\"loss\",\"plies\":2}],\
         \"line\":[\"b\",\"end\"]}\n"
    );
    // a: moving to d (where the mover loses in 2) wins in 3; moving to c (which loses in 4, its only move being back
    // to a) wins in 5; moving to b (which wins in 1) loses in 2.
    assert_eq!(
        probe_json(&out, "g", "a"),
        "{\"position\":\"a\",\"outcome\":\"win\",\"plies\":3,\"moves\":[\
         {\"to\":\"d\",\"outcome\":\"win\",\"plies\":3},\
         {\"to\":\"c\",\"outcome\":\"win\",\"plies\":5},\
         {\"to\":\"b\",\"outcome\":\"loss\",\"plies\":2}],\"line\":[\"d\",\"b\",\"end\"]}\n"
    );
    // Read whole, and probed block by block when it may not be.
    assert_eq!(verify_graph(&out, "g", u64::MAX).unwrap(), 5);
    assert_eq!(verify_graph(&out, "g", 0).unwrap(), 5);
}

#[test]
fn partizan_probe_gives_each_mover_its_own_moves() {
    let dir = tempfile::tempdir().unwrap();
    // Left can move from a to end, Right cannot move from a at all.
    let out = generate_text(dir.path(), "p", "a : end |\nend : |\n", false);
    assert_eq!(
        probe_json(&out, "p", "a"),
        "{\"position\":\"a\",\"left\":{\"outcome\":\"win\",\"plies\":1,\"moves\":[\
         {\"to\":\"end\",\"outcome\":\"win\",\"plies\":1}],\"line\":[\"end\"]},\
         \"right\":{\"outcome\":\"loss\",\"plies\":0,\"moves\":[],\"line\":[]}}\n"
    );
    assert_eq!(verify_graph(&out, "p", u64::MAX).unwrap(), 4);
}

#[test]
fn misere_tables_verify_under_misere_play() {
    let dir = tempfile::tempdir().unwrap();
    let out = generate_text(dir.path(), "m", "a : b\nb :\n", true);
    // Under misère play b (no move) is a win, so a loses.
    assert!(
        probe_json(&out, "m", "a")
            .starts_with("{\"position\":\"a\",\"outcome\":\"loss\",\"plies\":1,")
    );
    assert_eq!(verify_graph(&out, "m", u64::MAX).unwrap(), 2);
}

#[test]
fn a_wrong_value_fails_verify_and_unknown_positions_are_errors() {
    let dir = tempfile::tempdir().unwrap();
    let out = generate_text(dir.path(), "w", "a : b\nb : c\nc :\n", false);
    let err = render(&out, "graph", &["w".into(), "zz".into()], true).unwrap_err();
    assert_eq!(err.to_string(), "graph w has no position named \"zz\"");
    let err = render(&out, "graph", &["nope".into(), "a".into()], true).unwrap_err();
    assert!(err.to_string().contains("nope.rwdl: no such file"), "{err}");
    let err = render(&out, "graph", &["w".into()], true).unwrap_err();
    assert!(err.to_string().contains("NAME POSITION"), "{err}");
    let err = render(&out, "go", &["w".into()], true).unwrap_err();
    assert!(err.to_string().starts_with("unknown game \"go\""), "{err}");

    // Rewrite the table with a wrong value (c claimed a draw) and the same parameters: checksums are right, the
    // certificate is not, and it names the first position whose moves disagree (b, whose only move now reaches a
    // draw).
    let graph =
        retro_graph::Graph::read(&dir.path().join("w.txt"), retro_graph::Format::Text).unwrap();
    let payload = graph.to_bytes();
    let spec = TableSpec {
        game: "graph",
        name: "w",
        params: vec![
            ("convention".into(), "normal".into()),
            ("kind".into(), "impartial".into()),
            ("positions".into(), "3".into()),
            ("moves".into(), "2".into()),
        ],
        sides: 1,
        side_of: |_: Index| 0,
        size: 3,
        payload: &payload,
        exits: None,
        index_periods: &[],
        index_digits: &[],
        distance_omitted: None,
        options: WriteOptions {
            large_table: 0,
            ..WriteOptions::default()
        },
    };
    let wrong = [Some(Value::loss(2)), Some(Value::win(1)), Some(Value::DRAW)];
    write_table(&out, &spec, |i| wrong[i as usize]).unwrap();
    // Read whole or probed, the same position is found wrong.
    for memory in [u64::MAX, 0] {
        let err = verify_graph(&out, "w", memory).unwrap_err().to_string();
        assert!(
            err.ends_with("w.rdst: inconsistent: position w b (index 1) is stored as win in 1 but its moves give draw"),
            "{err}"
        );
    }
}

#[test]
fn a_flipped_bit_is_reported_by_probe_and_verify_with_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let out = generate_text(dir.path(), "f", "a : b\nb : c\nc :\n", false);
    let path = out.join("graph").join("f.rdst");
    let clean = std::fs::read(&path).unwrap();
    // A bit in the header, and a bit in the last block.
    for at in [30, clean.len() - 3] {
        let mut damaged = clean.clone();
        damaged[at] ^= 0x10;
        std::fs::write(&path, &damaged).unwrap();
        let verified = verify_graph(&out, "f", u64::MAX).unwrap_err().to_string();
        assert!(
            verified.contains(&format!("{}: ", path.display())),
            "{verified}"
        );
        assert!(verified.contains("checksum"), "{verified}");
        let probed = render(&out, "graph", &["f".into(), "a".into()], true);
        let probed = probed.unwrap_err().to_string();
        assert!(probed.contains("checksum"), "{probed}");
    }
}

#[test]
fn generate_keeps_a_sound_table_and_rebuilds_a_damaged_one() {
    let dir = tempfile::tempdir().unwrap();
    let out = generate_text(dir.path(), "k", "a : b\nb : c\nc :\n", false);
    let path = out.join("graph").join("k.rdst");
    let clean = std::fs::read(&path).unwrap();
    let modified = std::fs::metadata(&path).unwrap().modified().unwrap();
    generate_text(dir.path(), "k", "a : b\nb : c\nc :\n", false);
    assert_eq!(
        std::fs::metadata(&path).unwrap().modified().unwrap(),
        modified,
        "kept"
    );
    let mut damaged = clean.clone();
    let at = damaged.len() - 3;
    damaged[at] ^= 0x10;
    std::fs::write(&path, &damaged).unwrap();
    generate_text(dir.path(), "k", "a : b\nb : c\nc :\n", false);
    assert_eq!(
        std::fs::read(&path).unwrap(),
        clean,
        "rebuilt with the same bytes"
    );
}

/// `--one-side` is refused for a game whose tables do not keep their sides to move apart, by `generate` and by
/// `repack`, rather than ignored; `repack` without it rewrites a graph table with the same bytes.
#[test]
fn one_side_is_refused_for_graphs_and_repack_keeps_their_bytes() {
    let dir = tempfile::tempdir().unwrap();
    let out = generate_text(dir.path(), "p", "a : end |\nend : |\n", false);
    let file = dir.path().join("p.txt");
    let err = generate(&GenerateArgs {
        game: "graph".into(),
        variant: vec![file.display().to_string()],
        out: dir.path().join("other"),
        one_side: true,
        ..Default::default()
    })
    .unwrap_err()
    .to_string();
    assert!(err.contains("--one-side does not apply to graph"), "{err}");
    let repack = |one_side: bool| {
        retro_driver::repack::repack(&retro_driver::repack::RepackArgs {
            game: "graph".into(),
            variant: vec!["p".into()],
            tables: out.clone(),
            one_side,
            ..Default::default()
        })
    };
    let err = repack(true).unwrap_err().to_string();
    assert!(err.contains("--one-side does not apply to graph"), "{err}");
    let before: Vec<Vec<u8>> = ["p.rwdl", "p.rdst"]
        .iter()
        .map(|f| std::fs::read(out.join("graph").join(f)).unwrap())
        .collect();
    repack(false).unwrap();
    for (f, bytes) in ["p.rwdl", "p.rdst"].iter().zip(before) {
        assert_eq!(
            std::fs::read(out.join("graph").join(f)).unwrap(),
            bytes,
            "{f}"
        );
    }
}
