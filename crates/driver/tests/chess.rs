//! Chess tables through the generic driver: the shipped tables' `info` and `verify`, a build with its
//! dependencies, and probing positions the tables do not store (en-passant rights).

use std::path::{Path, PathBuf};

use retro_driver::EngineArgs;
use retro_driver::generate::{GenerateArgs, generate};
use retro_driver::info::json_fields;
use retro_driver::probe::render;
use retro_driver::verify::{VerifyArgs, verify};

fn shipped() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tablebases/chess")
}

/// Generates `material` and its sub-tables into `out`, quietly, with `threads` (default: all cores).
fn generate_chess(out: &Path, material: &str, threads: Option<usize>) {
    generate(&GenerateArgs {
        game: "chess".into(),
        variant: vec![material.into()],
        out: out.to_path_buf(),
        engine: EngineArgs {
            threads,
            quiet: true,
            ..Default::default()
        },
        ..Default::default()
    })
    .unwrap();
}

fn field<'a>(fields: &'a [(String, String)], key: &str) -> &'a str {
    &fields.iter().find(|(k, _)| k == key).unwrap().1
}

#[test]
fn a_symmetric_table_reports_black_as_white() {
    // KRvKR stores White to move only; the reference statistics count 392459 wins, 946389 draws and 9058 losses
    // for each side to move (see games/chess/tests/reference.rs).
    let fields = json_fields(&shipped(), "chess", &["KRvKR".into()]).unwrap();
    let side = r#"{"win":392459,"draw":946389,"loss":9058}"#;
    assert_eq!(
        field(&fields, "counts"),
        format!(r#"{{"white":{side},"black":{side}}}"#)
    );
    assert!(field(&fields, "longest").contains(r#""black":{"win":37,"loss":38}"#));
    let histogram = field(&fields, "histogram");
    assert!(histogram.starts_with(r#"{"white":{"win":[[1,4454],"#));
    assert!(histogram.contains(r#","black":{"win":[[1,4454],"#));
}

#[test]
fn a_material_asked_the_other_way_round_names_its_sides_so() {
    let asked = json_fields(&shipped(), "chess", &["KvKQ".into()]);
    let canonical = json_fields(&shipped(), "chess", &["KQvK".into()]);
    let (Ok(asked), Ok(canonical)) = (asked, canonical) else {
        panic!("KQvK is shipped");
    };
    let counts = field(&canonical, "counts");
    let white = counts
        .split(r#","black":"#)
        .next()
        .unwrap()
        .strip_prefix(r#"{"white":"#)
        .unwrap();
    assert!(field(&asked, "counts").contains(&format!(r#""black":{white}"#)));
}

#[test]
fn a_build_makes_its_dependencies_first_and_probes_through_them() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().to_path_buf();
    generate_chess(&out, "KPvK", Some(2));
    for name in ["KQvK", "KRvK", "KBvK", "KNvK", "KPvK"] {
        assert!(
            out.join("chess").join(format!("{name}.rdst")).exists(),
            "{name}"
        );
    }
    let verified = verify(
        &out,
        &VerifyArgs {
            game: "chess".into(),
            variant: vec!["KPvK".into()],
            ..Default::default()
        },
    )
    .unwrap();
    assert_eq!(verified.len(), 1);
    // A promotion is a move into KQvK.
    let json = render(
        &out,
        "chess",
        &["8/4P3/8/8/8/8/k7/4K3 w - - 0 1".into()],
        true,
    )
    .unwrap();
    assert!(
        json.starts_with(r#"{"fen":"8/4P3/8/8/8/8/k7/4K3 w - - 0 1","outcome":"win","#),
        "{json}"
    );
    assert!(
        json.contains(r#"{"uci":"e7e8q","san":"e8=Q","outcome":"win","#),
        "{json}"
    );
    // Bad input is one line naming what is wrong.
    let bad = render(&out, "chess", &["8/8/8 w - - 0 1".into()], true)
        .unwrap_err()
        .to_string();
    assert!(bad.starts_with("malformed FEN"), "{bad}");
    let missing = render(
        &out,
        "chess",
        &["k7/8/8/8/8/8/8/KQ5r w - - 0 1".into()],
        true,
    )
    .unwrap_err()
    .to_string();
    assert!(
        missing.contains("table chess KQvKR is missing"),
        "{missing}"
    );
}

#[test]
fn positions_with_en_passant_rights_are_searched() {
    let shipped = shipped();
    // KPvKP ships; with en-passant rights the capture is valued through the tables.
    let json = render(
        &shipped,
        "chess",
        &["8/8/8/3pP3/8/8/8/K6k w - d6 0 1".into()],
        true,
    );
    match json {
        Ok(json) => assert!(json.contains(r#"{"uci":"e5d6","#), "{json}"),
        Err(e) => panic!("{e}"),
    }
}

#[test]
fn one_table_of_a_dag_builds_alone_once_its_sub_tables_are_there() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().to_path_buf();
    let only = |table: &str| {
        generate(&GenerateArgs {
            game: "chess".into(),
            variant: vec!["KPvK".into()],
            out: out.clone(),
            table: Some(table.into()),
            engine: EngineArgs {
                threads: Some(2),
                quiet: true,
                ..Default::default()
            },
            ..Default::default()
        })
    };
    let present = |name: &str| out.join("chess").join(format!("{name}.rdst")).exists();
    // KPvK reads the tables of its promotions: without them it is refused, and nothing is written.
    let error = format!("{:#}", only("KPvK").unwrap_err());
    assert!(
        error.contains("is missing or unreadable") && !error.contains('\n'),
        "{error}"
    );
    assert!(!present("KPvK"));
    let error = format!("{:#}", only("KRvKR").unwrap_err());
    assert!(
        error.contains("has no table KRvKR in what was asked (its tables: "),
        "{error}"
    );
    // A sub-table of the variant builds alone, and nothing else.
    only("KQvK").unwrap();
    assert!(present("KQvK") && !present("KRvK") && !present("KPvK"));
    for name in ["KRvK", "KBvK", "KNvK", "KPvK"] {
        only(name).unwrap();
    }
    // The same bytes as the whole DAG built in one run.
    let whole = tempfile::tempdir().unwrap();
    generate_chess(whole.path(), "KPvK", Some(1));
    for name in ["KQvK", "KRvK", "KBvK", "KNvK", "KPvK"] {
        for ext in ["rwdl", "rdst"] {
            let file = format!("{name}.{ext}");
            assert_eq!(
                std::fs::read(out.join("chess").join(&file)).unwrap(),
                std::fs::read(whole.path().join("chess").join(&file)).unwrap(),
                "{file}"
            );
        }
    }
    // A table already there is kept: the job of a requeued or repeated submission ends at once.
    let before = std::fs::metadata(out.join("chess/KPvK.rdst"))
        .unwrap()
        .modified()
        .unwrap();
    only("KPvK").unwrap();
    let after = std::fs::metadata(out.join("chess/KPvK.rdst"))
        .unwrap()
        .modified()
        .unwrap();
    assert_eq!(before, after);
}

/// A WDL file of floors whose floors the exits do not complete is found by `verify`, though every checksum passes
/// and every stored outcome is no better than the distance file's: the table is rewritten with a writer told that
/// every position's exits reach its value, which is false for many of KPvK's (KQvK's file, whose draws are all
/// stalemates and captures of the queen, would not change).
#[test]
fn verify_finds_a_floor_no_exit_completes() {
    use retro_game::{Index, Outcome};
    use retro_table::{TableSpec, WriteOptions, write_table};

    let dir = tempfile::tempdir().unwrap();
    let out = dir.path();
    generate_chess(out, "KPvK", None);
    let args = VerifyArgs {
        game: "chess".into(),
        variant: vec!["KPvK".into()],
        ..Default::default()
    };
    verify(out, &args).unwrap();
    let table = retro_probe::Table::open(out, "chess", "KPvK", 16 << 20).unwrap();
    assert!(table.wdl_floors());
    let values: Vec<_> = (0..table.size()).map(|i| table.probe(i).unwrap()).collect();
    let half = table.size() / 2;
    let spec = TableSpec {
        game: "chess",
        name: "KPvK",
        params: table.meta().params.clone(),
        sides: 2,
        side_of: |i: Index| u8::from(i >= half),
        size: table.size(),
        payload: &[],
        exits: Some(&|i: Index| values[i as usize].map_or(Outcome::Loss, |v| v.outcome())),
        index_periods: &[],
        index_digits: &[],
        distance_omitted: None,
        options: WriteOptions::default(),
    };
    drop(table);
    write_table(out, &spec, |i| values[i as usize]).unwrap();
    let err = verify(out, &args).unwrap_err().to_string();
    assert!(err.contains("KPvK.rwdl: index "), "{err}");
    assert!(err.contains("but its exits reach only a "), "{err}");
}

/// `generate --one-side`: each distance file of a material that is not symmetric leaves one side to move out
/// (format version 5, about half the bytes). Every position still probes to the same value as in the tables of both
/// sides, through the chess prober and through `probe`; `verify` certifies the table; and a table built on sub-tables
/// of one side is byte for byte the one built on sub-tables of both.
#[test]
fn distance_files_of_one_side_probe_verify_and_build_as_both_sides_do() {
    use retro_chess::{Material, Prober, TableIndex};

    let build = |out: &Path, one_side: bool, table: Option<&str>| {
        generate(&GenerateArgs {
            game: "chess".into(),
            variant: vec!["KPvK".into()],
            out: out.to_path_buf(),
            one_side,
            table: table.map(String::from),
            engine: EngineArgs {
                threads: Some(2),
                quiet: true,
                ..Default::default()
            },
            ..Default::default()
        })
        .unwrap()
    };
    let both = tempfile::tempdir().unwrap();
    let one = tempfile::tempdir().unwrap();
    build(both.path(), false, None);
    build(one.path(), true, None);
    let bytes = |dir: &Path, file: &str| std::fs::read(dir.join("chess").join(file)).unwrap();
    for name in ["KQvK", "KRvK", "KBvK", "KNvK", "KPvK"] {
        let rdst = format!("{name}.rdst");
        let table = retro_probe::Table::open(one.path(), "chess", name, 1 << 20).unwrap();
        let header = table.distance_file().header();
        assert_eq!(header.version, 5, "{name}");
        let half = table.size() / 2;
        let omitted = header.omitted().unwrap();
        assert!(
            omitted == (0..half) || omitted == (half..table.size()),
            "{name}: {omitted:?}"
        );
        // The WDL file is the same; the distance file holds one side (KBvK and KNvK, all draws, are tiny anyway).
        let rwdl = format!("{name}.rwdl");
        assert_eq!(
            bytes(one.path(), &rwdl),
            bytes(both.path(), &rwdl),
            "{name}"
        );
        let (small, full) = (
            bytes(one.path(), &rdst).len(),
            bytes(both.path(), &rdst).len(),
        );
        if full > 1000 {
            assert!(small * 10 < full * 6, "{name}: {small} against {full}");
        }
    }
    // Every position of KPvK probes alike; half of them are searched.
    let (prober_both, prober_one) = (
        Prober::open(both.path(), 1 << 24).unwrap(),
        Prober::open(one.path(), 1 << 24).unwrap(),
    );
    let index = TableIndex::new(Material::parse("KPvK").unwrap());
    let table = retro_probe::Table::open(one.path(), "chess", "KPvK", 1 << 20).unwrap();
    let mut searched = 0;
    for i in 0..index.size() {
        if let Some(pos) = index.position(i) {
            searched += usize::from(!table.stores(i));
            assert_eq!(
                prober_one.value(&pos).unwrap(),
                prober_both.value(&pos).unwrap(),
                "{}",
                pos.fen()
            );
        }
    }
    assert!(searched > 10_000, "{searched}");
    // `probe` (the driver's search) agrees, on a position of each side to move.
    for fen in [
        "8/8/8/8/8/2k5/4P3/4K3 w - - 0 1",
        "8/8/8/8/8/2k5/4P3/4K3 b - - 0 1",
    ] {
        assert_eq!(
            render(one.path(), "chess", &[fen.into()], true).unwrap(),
            render(both.path(), "chess", &[fen.into()], true).unwrap()
        );
    }
    let verified = verify(
        one.path(),
        &VerifyArgs {
            game: "chess".into(),
            variant: vec!["KPvK".into()],
            ..Default::default()
        },
    )
    .unwrap();
    assert_eq!(verified.len(), 1);
    // `info` counts both sides in its histogram, and says which indices the file leaves out.
    let (info_one, info_both) = (
        json_fields(one.path(), "chess", &["KPvK".into()]).unwrap(),
        json_fields(both.path(), "chess", &["KPvK".into()]).unwrap(),
    );
    assert_eq!(
        field(&info_one, "histogram"),
        field(&info_both, "histogram")
    );
    assert_eq!(field(&info_both, "distance_omitted"), "null");
    assert!(field(&info_one, "distance_omitted").starts_with('['));
    // `repack` rewrites a table of both sides as one side, and back, without solving it: the bytes of a build.
    let repack = |dir: &Path, one_side: bool| {
        retro_driver::repack::repack(&retro_driver::repack::RepackArgs {
            game: "chess".into(),
            variant: vec!["KPvK".into()],
            tables: dir.to_path_buf(),
            one_side,
            ..Default::default()
        })
        .unwrap()
    };
    let rewritten = tempfile::tempdir().unwrap();
    std::fs::create_dir(rewritten.path().join("chess")).unwrap();
    for entry in std::fs::read_dir(both.path().join("chess")).unwrap() {
        let path = entry.unwrap().path();
        std::fs::copy(
            &path,
            rewritten
                .path()
                .join("chess")
                .join(path.file_name().unwrap()),
        )
        .unwrap();
    }
    repack(rewritten.path(), true);
    for file in ["KPvK.rdst", "KPvK.rwdl", "KQvK.rdst"] {
        let expected = if file == "KQvK.rdst" {
            both.path()
        } else {
            one.path()
        };
        assert_eq!(
            bytes(rewritten.path(), file),
            bytes(expected, file),
            "{file}"
        );
    }
    repack(one.path(), false);
    for file in ["KPvK.rdst", "KPvK.rwdl"] {
        assert_eq!(bytes(one.path(), file), bytes(both.path(), file), "{file}");
    }
    // KPvK built again, on the sub-tables of one side, with both sides: the same bytes.
    std::fs::remove_file(one.path().join("chess/KPvK.rdst")).unwrap();
    std::fs::remove_file(one.path().join("chess/KPvK.rwdl")).unwrap();
    build(one.path(), false, Some("KPvK"));
    for file in ["KPvK.rdst", "KPvK.rwdl"] {
        assert_eq!(bytes(one.path(), file), bytes(both.path(), file), "{file}");
    }
    // A table that is not there is a clear error.
    let missing = retro_driver::repack::repack(&retro_driver::repack::RepackArgs {
        game: "chess".into(),
        variant: vec!["KQvKR".into()],
        tables: one.path().to_path_buf(),
        ..Default::default()
    })
    .unwrap_err();
    assert!(
        format!("{missing:#}").contains("table chess KQvKR is missing"),
        "{missing:#}"
    );
}

/// `verify` compares the WDL file with the values it searches at the indices a distance file leaves out, which no
/// checksum and no comparison of the two files can: a WDL file whose outcomes of two positions of that side are
/// exchanged (the counts unchanged) is found.
#[test]
fn verify_compares_the_wdl_file_at_the_side_a_distance_file_leaves_out() {
    use retro_game::{Index, Outcome, Value};
    use retro_table::{TableSpec, WriteOptions, write_table};

    let dir = tempfile::tempdir().unwrap();
    let out = dir.path();
    let args = VerifyArgs {
        game: "chess".into(),
        variant: vec!["KQvK".into()],
        ..Default::default()
    };
    generate(&GenerateArgs {
        game: "chess".into(),
        variant: vec!["KQvK".into()],
        out: out.to_path_buf(),
        one_side: true,
        engine: EngineArgs {
            quiet: true,
            ..Default::default()
        },
        ..Default::default()
    })
    .unwrap();
    verify(out, &args).unwrap();
    let chess = retro_chess::family::Chess;
    let disk = retro_driver::directory::Directory::open(&chess, out).unwrap();
    let material = retro_chess::Material::parse("KQvK").unwrap();
    let values = disk.values(&material).unwrap();
    let table = retro_probe::Table::open(out, "chess", "KQvK", 16 << 20).unwrap();
    let omitted = table.distance_file().header().omitted().unwrap();
    // Two positions of the side left out with different outcomes, neither the longest of its outcome, exchanged.
    let meta = table.meta().clone();
    let side = usize::from(omitted.start > 0);
    let counts = meta.sides[side];
    let ordinary = |i: Index, outcome: Option<Outcome>| {
        values.value(i).is_some_and(|v| {
            let longest = match v.outcome() {
                Outcome::Win => counts.longest_win,
                Outcome::Loss => counts.longest_loss,
                Outcome::Draw => None,
            };
            outcome.is_none_or(|o| o != v.outcome()) && (longest.is_none() || v.plies() < longest)
        })
    };
    let first = omitted.clone().find(|&i| ordinary(i, None)).unwrap();
    let first_outcome = values.value(first).unwrap().outcome();
    let second = omitted
        .clone()
        .find(|&i| ordinary(i, Some(first_outcome)))
        .unwrap();
    let swapped = |i: Index| -> Option<Value> {
        match i {
            i if i == first => values.value(second),
            i if i == second => values.value(first),
            i => values.value(i),
        }
    };
    let elsewhere = tempfile::tempdir().unwrap();
    let spec = TableSpec {
        game: "chess",
        name: "KQvK",
        params: meta.params.clone(),
        sides: 2,
        side_of: |i: Index| u8::from(i >= table.size() / 2),
        size: table.size(),
        payload: &[],
        exits: None,
        index_periods: &[],
        index_digits: &[],
        distance_omitted: Some(omitted.clone()),
        options: WriteOptions::default(),
    };
    let written = write_table(elsewhere.path(), &spec, swapped).unwrap();
    assert_eq!(written.meta, meta);
    drop(table);
    std::fs::copy(&written.wdl_path, out.join("chess/KQvK.rwdl")).unwrap();
    let err = verify(out, &args).unwrap_err().to_string();
    assert!(err.contains("KQvK.rwdl: index "), "{err}");
    assert!(err.contains(", but its value is "), "{err}");
}

/// `--distance-block`: the distance files of a build and of a repack have blocks of the size asked for, and every
/// index probes to the same value as with the writer's own blocks; a size that is not a power of two from 1024 up
/// is refused before anything is written.
#[test]
fn distance_blocks_of_the_size_asked_for_hold_the_same_values() {
    use retro_driver::repack::{RepackArgs, repack};

    let build = |out: &Path, distance_block: Option<u32>| {
        generate(&GenerateArgs {
            game: "chess".into(),
            variant: vec!["KRvK".into()],
            out: out.to_path_buf(),
            distance_block,
            engine: EngineArgs {
                threads: Some(2),
                quiet: true,
                ..Default::default()
            },
            ..Default::default()
        })
    };
    let open = |dir: &Path| retro_probe::Table::open(dir, "chess", "KRvK", 1 << 24).unwrap();
    let (default, small) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    build(default.path(), None).unwrap();
    build(small.path(), Some(1024)).unwrap();
    let (reference, table) = (open(default.path()), open(small.path()));
    assert_eq!(reference.distance_file().header().block_values, 1 << 22);
    assert_eq!(table.distance_file().header().block_values, 1024);
    assert_eq!(
        table.distance_file().header().block_count,
        table.size().div_ceil(1024)
    );
    let same = |a: &retro_probe::Table, b: &retro_probe::Table| {
        (0..a.size()).all(|i| a.probe(i).unwrap() == b.probe(i).unwrap())
    };
    assert!(same(&reference, &table));

    // A repack to blocks of 2^12 values, then back to the writer's own, which gives the default build's bytes.
    let repack_to = |distance_block: Option<u32>| {
        repack(&RepackArgs {
            game: "chess".into(),
            variant: vec!["KRvK".into()],
            tables: small.path().to_path_buf(),
            distance_block,
            threads: Some(2),
            ..Default::default()
        })
    };
    repack_to(Some(1 << 12)).unwrap();
    let table = open(small.path());
    assert_eq!(table.distance_file().header().block_values, 1 << 12);
    assert!(same(&reference, &table));
    repack_to(None).unwrap();
    let bytes = |dir: &Path| std::fs::read(dir.join("chess/KRvK.rdst")).unwrap();
    assert_eq!(bytes(small.path()), bytes(default.path()));

    for wrong in [1000, 512, 1 << 25] {
        let out = tempfile::tempdir().unwrap();
        let err = build(out.path(), Some(wrong)).unwrap_err().to_string();
        assert!(
            err.contains(&format!(
                "--distance-block {wrong}: values per block must be a power of two"
            )),
            "{err}"
        );
        assert!(!out.path().join("chess").exists(), "{wrong}");
        assert!(repack_to(Some(wrong)).is_err(), "{wrong}");
    }
}

/// Chess tables of up to 4 men try their WDL blocks transposed without `--compact`, which brings every one under
/// Syzygy's WDL file: KQvKB's, 6,986 bytes in the index's order, is stored in another (4,101 bytes; Syzygy's 6,672).
#[test]
fn small_chess_tables_store_their_wdl_file_in_the_best_order_by_default() {
    use retro_probe::Layout;

    let dir = tempfile::tempdir().unwrap();
    generate_chess(dir.path(), "KQvKB", Some(2));
    let table = retro_probe::Table::open(dir.path(), "chess", "KQvKB", 1 << 24).unwrap();
    let wdl = table.wdl_file();
    assert_eq!(wdl.header().block_count, 1);
    let layout = wdl.block_layout(0).unwrap().unwrap();
    assert!(
        matches!(layout, Layout::Transposed | Layout::Permuted),
        "{layout:?}"
    );
    let syzygy = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../games/chess/tests/data/syzygy-wdl-bytes.tsv"),
    )
    .unwrap();
    let syzygy: u64 = syzygy
        .lines()
        .find_map(|line| line.strip_prefix("KQvKB\t"))
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    let bytes = std::fs::metadata(dir.path().join("chess/KQvKB.rwdl"))
        .unwrap()
        .len();
    assert!(bytes <= syzygy, "{bytes} bytes, Syzygy's {syzygy}");
}

/// Tables kept in memory for later builds take at most half the memory budget: past it they are set aside in the
/// work directory and read back when a build needs them, and the tables come out the same, of both sides to move
/// and of one. Here KQvK, kept while KRvK is built for KQvKR, takes more than half of a 64 KiB budget (the engine's
/// own budget set apart for the test). The folder of the tables set aside goes with the run.
#[test]
fn tables_set_aside_to_keep_the_budget_are_read_back_and_build_the_same() {
    for one_side in [false, true] {
        let normal = tempfile::tempdir().unwrap();
        let tight = tempfile::tempdir().unwrap();
        let args = |out: &Path, memory: Option<u64>| GenerateArgs {
            game: "chess".into(),
            variant: vec!["KQvKR".into()],
            out: out.to_path_buf(),
            one_side,
            engine: EngineArgs {
                threads: Some(2),
                quiet: true,
                memory,
                test_engine_memory: memory.map(|_| 256 << 20),
                ..Default::default()
            },
            ..Default::default()
        };
        generate(&args(normal.path(), None)).unwrap();
        generate(&args(tight.path(), Some(64 << 10))).unwrap();
        for file in ["KQvKR.rwdl", "KQvKR.rdst", "KQvK.rdst", "KRvK.rdst"] {
            let read = |dir: &Path| std::fs::read(dir.join("chess").join(file)).unwrap();
            assert_eq!(
                read(tight.path()),
                read(normal.path()),
                "{file}, one side: {one_side}"
            );
        }
        assert!(!tight.path().join(".retro-work/kept").exists());
    }
}
