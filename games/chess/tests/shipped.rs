//! The tables shipped in tablebases/chess/: every file is listed in the manifest with its size and checksum, every
//! listed file is there and intact, and the tables answer as the solver does.

use std::collections::BTreeSet;
use std::path::PathBuf;
use std::sync::Arc;

use retro_chess::{ChessGame, Material, Position, Prober, TableIndex, TableSet};
use retro_engine::PlayConvention;
use retro_game::{Outcome, Value, Values};
use retro_probe::ErrorKind;

fn shipped() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tablebases/chess")
}

#[test]
fn manifest_lists_every_file_with_its_checksum() {
    let dir = shipped().join("chess");
    let manifest =
        std::fs::read_to_string(shipped().join("MANIFEST")).expect("tablebases/chess/MANIFEST");
    let mut listed = BTreeSet::new();
    for line in manifest.lines() {
        let [name, bytes, sum] = line.split_whitespace().collect::<Vec<_>>()[..] else {
            panic!("bad manifest line {line:?}");
        };
        let data = std::fs::read(dir.join(name)).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(data.len().to_string(), bytes, "{name} size");
        assert_eq!(
            format!("{:016x}", retro_probe::checksum::checksum(&data)),
            sum,
            "{name} checksum"
        );
        listed.insert(name.to_string());
    }
    let present: BTreeSet<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(
        listed, present,
        "the manifest lists exactly the files present"
    );
    // Every 3- and 4-man table is shipped, both files.
    for men in 3..=4 {
        for m in Material::all_with_men(men) {
            for ext in ["rwdl", "rdst"] {
                assert!(listed.contains(&format!("{m}.{ext}")), "{m}.{ext}");
            }
        }
    }
    let bytes: u64 = present
        .iter()
        .map(|n| std::fs::metadata(dir.join(n)).unwrap().len())
        .sum();
    assert!(bytes <= 20_000_000, "{bytes} bytes shipped");
}

/// Values read through the prober, which finds the side to move a distance file leaves out by searching its moves:
/// what a build reads from a table of one side.
struct Probed {
    prober: Arc<Prober>,
    index: TableIndex,
}

impl Values for Probed {
    fn value(&self, index: u64) -> Option<Value> {
        let pos = self.index.position(index)?;
        Some(self.prober.value(&pos).unwrap())
    }
}

/// The shipped distance files store one side to move (format version 5; a symmetric table stores White to move, as
/// every symmetric table does): probes of either side give the literature's values, and every KPvK value of both
/// sides is what its moves give, the exits into the shipped KQvK, KRvK, KBvK and KNvK included.
#[test]
fn shipped_tables_probe_and_certify() {
    let prober = Arc::new(Prober::open(&shipped(), 64 << 20).unwrap());
    for name in ["KQvK", "KPvK", "KRvKB", "KPPvK"] {
        let table = prober.tables().table("chess", name).unwrap();
        let header = table.distance_file().header();
        assert_eq!(header.version, 5, "{name}");
        assert!(header.omitted().is_some(), "{name} stores both sides");
    }
    let value = |fen: &str| prober.value(&Position::from_fen(fen).unwrap()).unwrap();
    // The longest KQvK loss from the reference statistics.
    assert_eq!(value("8/8/8/8/4k3/8/1Q6/K7 b - -"), Value::loss(20));
    // KPvKP stores White to move only, and no position with en-passant rights: a probe searches the capture.
    assert_eq!(value("8/8/8/3pP3/8/8/k7/7K w - - 0 2"), Value::win(27));
    assert_eq!(
        value("8/8/8/3pP3/8/8/k7/7K w - d6 0 2"),
        Value::win(21),
        "exd6 e.p."
    );
    // Black to move is read through the colour-flipped White-to-move position.
    let black = Position::from_fen("7k/K7/8/8/3Pp3/8/8/8 b - - 0 2").unwrap();
    let white = Position::from_fen("8/8/8/3pP3/8/8/k7/7K w - - 0 2").unwrap();
    assert_eq!(black, white.color_flipped());
    assert_eq!(prober.value(&black).unwrap(), Value::win(27));
    assert_eq!(value("8/8/8/8/8/2k5/8/r1R1K3 b - - 0 1"), Value::win(23));
    let probed = |name: &str| Probed {
        prober: Arc::clone(&prober),
        index: TableIndex::new(Material::parse(name).unwrap()),
    };
    let mut set = TableSet::new();
    for name in ["KQvK", "KRvK", "KBvK", "KNvK"] {
        set.insert(Material::parse(name).unwrap(), Box::new(probed(name)));
    }
    let kpk = Material::parse("KPvK").unwrap();
    let game = ChessGame::new(kpk, &set).unwrap();
    let table = probed("KPvK");
    let checked = retro_engine::certify(&game, PlayConvention::Normal, |i| table.value(i)).unwrap();
    assert_eq!(checked, 62480 + 19184 + 35210 + 48802);
}

/// Every shipped WDL file is at most the size of Syzygy's for the same material (the target), and the set at
/// most 0.8 times theirs: sizes from `tests/data/syzygy-wdl-bytes.tsv`.
#[test]
fn shipped_wdl_files_are_no_larger_than_syzygys() {
    let listed = std::fs::read_to_string(
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/syzygy-wdl-bytes.tsv"),
    )
    .unwrap();
    let syzygy: std::collections::HashMap<&str, u64> = listed
        .lines()
        .filter(|line| !line.starts_with('#'))
        .map(|line| {
            let (name, bytes) = line.split_once('\t').expect("material, tab, bytes");
            (name, bytes.parse().expect("bytes"))
        })
        .collect();
    assert_eq!(syzygy.len(), 145);
    let (mut ours, mut theirs, mut files) = (0, 0, 0);
    for entry in std::fs::read_dir(shipped().join("chess")).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "rwdl") {
            continue;
        }
        let name = path.file_stem().unwrap().to_str().unwrap().to_string();
        // Syzygy names the stronger side first, as retro does; a few materials are spelt the other way round.
        let flipped = Material::parse(&name).unwrap().flipped().to_string();
        let limit = *syzygy
            .get(name.as_str())
            .or_else(|| syzygy.get(flipped.as_str()))
            .unwrap_or_else(|| panic!("{name}: not in the Syzygy list"));
        let bytes = std::fs::metadata(&path).unwrap().len();
        assert!(bytes <= limit, "{name}: {bytes} bytes, Syzygy's {limit}");
        (ours, theirs, files) = (ours + bytes, theirs + limit, files + 1);
    }
    assert_eq!(files, 35);
    assert!(
        ours * 10 <= theirs * 8,
        "{ours} bytes against Syzygy's {theirs}"
    );
}

/// The WDL files of KQQvK and KRvKB: KQQvK's draws are all stalemates, which store losses, so each side to move is one
/// outcome; KRvKB's one block is stored with its digits in another order (its bishop first).
#[test]
fn shipped_wdl_files_leave_stalemates_free_and_permute_their_digits() {
    use retro_probe::Layout;
    let prober = Prober::open(&shipped(), 16 << 20).unwrap();
    let tables = prober.tables().clone();
    let layouts = |name: &str| {
        let table = tables.table("chess", name).unwrap();
        let file = table.wdl_file();
        (0..file.header().block_count)
            .map(|b| file.block_layout(b).unwrap().unwrap())
            .collect::<Vec<_>>()
    };
    assert_eq!(layouts("KRvKB"), vec![Layout::Permuted]);
    let kqqk = tables.table("chess", "KQQvK").unwrap();
    assert!(
        kqqk.wdl_file().len() < 200,
        "{} bytes",
        kqqk.wdl_file().len()
    );
    let index = retro_chess::TableIndex::new(Material::parse("KQQvK").unwrap());
    let mut stalemates = 0;
    for i in 0..kqqk.size() {
        let Some(pos) = index.position(i) else {
            continue;
        };
        if pos.is_stalemate() {
            assert_eq!(prober.value(&pos).unwrap(), Value::DRAW, "{}", pos.fen());
            assert_eq!(
                kqqk.probe_wdl_floor(i).unwrap(),
                Outcome::Loss,
                "{}",
                pos.fen()
            );
            stalemates += 1;
        }
    }
    assert!(stalemates > 10_000, "{stalemates} stalemates");
}

/// The shipped WDL files hold floors (format version 6): a position whose captures or promotions reach its outcome,
/// or a stalemate, may store a worse one. The prober searches those moves and looks for stalemate, so its outcome is
/// the exact value's for every position of these tables (pawns, promotions, a symmetric table, captures into
/// tables of floors themselves, KQQvK whose draws are all stalemates and which stores one outcome a side to move,
/// blocks stored with the index's digits in another order): the distance file's where it stores the side to move,
/// else the value a search of the moves finds in the side it stores.
#[test]
fn the_prober_completes_floors_to_the_distance_files_outcomes() {
    let prober = retro_chess::Prober::open(&shipped(), 64 << 20).unwrap();
    let tables = prober.tables().clone();
    for name in [
        "KRvKR", "KQvKB", "KQvKP", "KPvKP", "KPPvK", "KQQvK", "KRvKB",
    ] {
        let material = Material::parse(name).unwrap();
        let table = tables.table("chess", name).unwrap();
        assert!(table.wdl_floors(), "{name}: not a file of floors");
        let index = retro_chess::TableIndex::new(material);
        let (mut positions, mut below) = (0u64, 0u64);
        for i in 0..table.size() {
            let Some(pos) = index.position(i) else {
                continue;
            };
            // The value from the distance file, or for the side it leaves out from a search of the moves.
            let value = prober.value(&pos).unwrap();
            assert_eq!(
                prober.wdl(&pos).unwrap(),
                value.outcome(),
                "{name} {}",
                pos.fen()
            );
            // `Table::probe_wdl` reads a file of floors through the distance file: exact where it is stored.
            match table.probe(i) {
                Ok(stored) => {
                    assert_eq!(stored, Some(value), "{name} {}", pos.fen());
                    assert_eq!(table.probe_wdl(i).unwrap(), value.outcome());
                }
                Err(e) => {
                    assert!(matches!(e.kind(), ErrorKind::NotStored { .. }), "{e}");
                    assert!(table.probe_wdl(i).is_err());
                }
            }
            below += u64::from(table.probe_wdl_floor(i).unwrap() < value.outcome());
            positions += 1;
        }
        assert!(below > 0, "{name}: no position stored below its outcome");
        // Version 8 where a file of several blocks stores its values in another order of the index's digits.
        let version = table.wdl_file().header().version;
        assert_eq!(
            version,
            if table.wdl_file().header().order().is_some() {
                8
            } else {
                6
            },
            "{name}"
        );
        eprintln!("{name}: {positions} positions, {below} stored below their outcome");
    }
}
