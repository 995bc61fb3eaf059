//! The bytes of a few small tables, pinned: a change of the engine, the writer or a game that alters a table —
//! even one that keeps every value, such as a new order of compression — fails here, and must be explained (and the
//! pins renewed) rather than slip through. Each table is built with one thread and with two, which must agree.
//!
//! A pin is the checksum of FORMAT.md (`retro_probe::checksum`) of the whole file.

use std::path::Path;

use retro_driver::EngineArgs;
use retro_driver::generate::{GenerateArgs, generate};
use retro_engine::Pulling;
use retro_family::Flags;
use retro_probe::checksum::checksum;

fn build(out: &Path, game: &str, variant: &str, flags: Flags, threads: usize) {
    build_pulling(out, game, variant, flags, threads, Pulling::default());
}

fn build_pulling(
    out: &Path,
    game: &str,
    variant: &str,
    flags: Flags,
    threads: usize,
    pulling: Pulling,
) {
    generate(&GenerateArgs {
        game: game.into(),
        variant: vec![variant.into()],
        out: out.to_path_buf(),
        flags,
        engine: EngineArgs {
            threads: Some(threads),
            quiet: true,
            test_pulling: pulling,
            ..Default::default()
        },
        ..Default::default()
    })
    .unwrap();
}

/// `GAME/NAME.EXT` and the checksum of its bytes, for every file written under `out`, in name order.
fn sums(out: &Path) -> Vec<(String, u64)> {
    let mut files = Vec::new();
    for game in std::fs::read_dir(out).unwrap() {
        let game = game.unwrap();
        if !game.file_type().unwrap().is_dir() || game.file_name() == ".retro-work" {
            continue;
        }
        for file in std::fs::read_dir(game.path()).unwrap() {
            let file = file.unwrap();
            let name = format!(
                "{}/{}",
                game.file_name().to_string_lossy(),
                file.file_name().to_string_lossy()
            );
            files.push((name, checksum(&std::fs::read(file.path()).unwrap())));
        }
    }
    files.sort();
    files
}

#[test]
fn small_tables_keep_their_bytes_whatever_the_threads() {
    let graphs = Path::new(env!("CARGO_MANIFEST_DIR")).join("../graph/data");
    let random = tempfile::tempdir().unwrap();
    let random_file = random.path().join("random.txt");
    retro_graph::random::write_edges(
        20_000,
        2.5,
        0.3,
        7,
        std::fs::File::create(&random_file).unwrap(),
    )
    .unwrap();
    let mut built = Vec::new();
    for threads in [1, 2] {
        let dir = tempfile::tempdir().unwrap();
        build(dir.path(), "chess", "KPvK", Flags::default(), threads);
        build(dir.path(), "chess", "KQvKR", Flags::default(), threads);
        for name in ["figure", "loopy"] {
            let file = graphs.join(format!("{name}.txt"));
            build(
                dir.path(),
                "graph",
                &file.display().to_string(),
                Flags::default(),
                threads,
            );
        }
        let edges = Flags {
            edges: true,
            misere: true,
        };
        build(
            dir.path(),
            "graph",
            &random_file.display().to_string(),
            edges,
            threads,
        );
        built.push(sums(dir.path()));
    }
    assert_eq!(built[0], built[1], "one thread and two wrote other bytes");
    // Wins pulled forward from the open positions, or never, rather than as the costs say: the same bytes.
    for pulling in [Pulling::Always, Pulling::Never] {
        let dir = tempfile::tempdir().unwrap();
        for material in ["KPvK", "KQvKR"] {
            build_pulling(dir.path(), "chess", material, Flags::default(), 2, pulling);
        }
        let chess: Vec<_> = built[0]
            .iter()
            .filter(|(name, _)| name.starts_with("chess/"))
            .cloned()
            .collect();
        assert_eq!(sums(dir.path()), chess, "{pulling:?} wrote other bytes");
    }
    // The chess WDL files hold floors since format version 3 (captures and promotions complete them at probe time):
    // their bytes changed then, and no other file's did. Their headers changed again when chess wrote its index
    // layout as a short name (`chess-1`) and stopped writing the material, which the header's table name says: every
    // chess file lost the same 155 bytes (182 for a symmetric material) and kept its blocks; and again when chess
    // stopped writing its layout at all (a header without one has the first): 14 bytes less (28 for a symmetric
    // material), the blocks the same. The graph distance files changed when large tables' distance blocks went from
    // 2^16 to 2^14 values (graphs use the large-table settings at every size): the block size in every header, and
    // the 20,000 positions of the random graph in two blocks instead of one. The chess WDL files changed again when
    // their floors took stalemates in (format version 6: a stalemate may store a loss, as the prober finds its draw
    // from the rules): the version in every header, and the blocks of tables with stalemates; no distance file did.
    // KQvKR's WDL file changed again when the writer began to try filling free positions with the most frequent
    // outcome of their side to move (its one block holds both sides): 16,541 bytes before, 14,829 after. The WDL
    // files of KPvK and KQvKR changed again when chess tables of up to four men began to try their WDL blocks in
    // other orders (transposed, permuted) without `--compact`: KPvK 4,118 → 3,638 bytes, KQvKR 14,829 → 11,324; the
    // pawnless three-man WDL files (73 to 95 bytes) kept theirs, and no distance file changed.
    let pinned: &[(&str, u64)] = &[
        ("chess/KBvK.rdst", 0xf4541a761f702fc6),
        ("chess/KBvK.rwdl", 0x58f47c52e045311d),
        ("chess/KNvK.rdst", 0x33ac51dee131e171),
        ("chess/KNvK.rwdl", 0xe1ca3da7c79104fa),
        ("chess/KPvK.rdst", 0x652e55b31f480f71),
        ("chess/KPvK.rwdl", 0x473c1ec88f8fb77a),
        ("chess/KQvK.rdst", 0x35eecd26b64194d7),
        ("chess/KQvK.rwdl", 0x6484e3e2ce76f050),
        ("chess/KQvKR.rdst", 0x277dcd064705596b),
        ("chess/KQvKR.rwdl", 0xff8edfaec110df85),
        ("chess/KRvK.rdst", 0x37c484ed74861821),
        ("chess/KRvK.rwdl", 0x52ce730cfe82e9cd),
        ("graph/figure.rdst", 0x0d374cf889a11ab9),
        ("graph/figure.rwdl", 0x40bb3e8d542ebef7),
        ("graph/loopy.rdst", 0xe67d384a464df726),
        ("graph/loopy.rwdl", 0x3160f268412071ff),
        ("graph/random.rdst", 0xa31f70ed3e4a107e),
        ("graph/random.rwdl", 0x1d77beb08cb331de),
    ];
    let got: Vec<(&str, u64)> = built[0].iter().map(|(n, s)| (n.as_str(), *s)).collect();
    assert_eq!(
        got, pinned,
        "the bytes of these tables changed: explain why, then pin the new checksums"
    );
}
