//! What every registered family gets for free: its contract checked on its example variant, and generate, probe,
//! info, verify and the census run end to end on the small games.

use std::path::Path;

use retro_driver::EngineArgs;
use retro_driver::generate::{GenerateArgs, generate};
use retro_driver::info::json_fields;
use retro_driver::probe::render;
use retro_driver::verify::{VerifyArgs, verify};
use retro_driver::{Visit, families, visit};
use retro_family::{Family, Flags, Payloads, contract};

/// The payloads of a variant's tables, made by the family itself (no directory needed).
struct Made<'a, F: Family> {
    family: &'a F,
    tables: Vec<F::Table>,
}

impl<F: Family> Payloads for Made<'_, F> {
    fn payload(&self, name: &str) -> Result<Vec<u8>, String> {
        self.tables
            .iter()
            .find(|t| self.family.table_name(t) == name)
            .map(|t| self.family.payload(t))
            .ok_or_else(|| format!("no table {name}"))
    }
    fn params(&self, name: &str) -> Result<Vec<(String, String)>, String> {
        self.tables
            .iter()
            .find(|t| self.family.table_name(t) == name)
            .map(|t| self.family.params(t))
            .ok_or_else(|| format!("no table {name}"))
    }
}

/// Runs the contract on the family's example variant (files named relative to the repository's root).
struct Contract;

impl Visit for Contract {
    type Output = Result<contract::Checked, String>;
    fn visit<F: Family>(self, family: &F) -> Self::Output {
        let about = family.about();
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
        let words: Vec<String> = about
            .example_variant
            .split_whitespace()
            .map(|w| {
                let in_root = root.join(w);
                if in_root.exists() {
                    in_root.display().to_string()
                } else {
                    w.to_string()
                }
            })
            .collect();
        let variant = family.parse_variant(&words, &Flags::default())?;
        let payloads = Made {
            family,
            tables: family.tables(&variant),
        };
        // The example position reads.
        if about.name != "graph" {
            family
                .parse_position(about.example_position, &payloads)
                .map_err(|e| format!("the example position: {e}"))?;
        }
        contract::check(family, &variant, 3000, &payloads)
    }
}

#[test]
fn every_family_keeps_its_contract_on_its_example() {
    for about in families() {
        let checked = visit(about.name, Contract)
            .unwrap()
            .unwrap_or_else(|e| panic!("{}: {e}", about.name));
        assert!(checked.positions > 0, "{}: {checked:?}", about.name);
    }
}

fn generate_game(out: &Path, game: &str, variant: &[&str], census: bool) {
    generate(&GenerateArgs {
        game: game.into(),
        variant: variant.iter().map(|s| s.to_string()).collect(),
        out: out.to_path_buf(),
        census,
        engine: EngineArgs {
            threads: Some(2),
            quiet: true,
            ..Default::default()
        },
        ..Default::default()
    })
    .unwrap();
}

/// Runs `verify` on every table of the variant; how many tables it certified.
fn verified_tables(out: &Path, game: &str, variant: &[&str]) -> usize {
    verify(
        out,
        &VerifyArgs {
            game: game.into(),
            variant: variant.iter().map(|s| s.to_string()).collect(),
            ..Default::default()
        },
    )
    .unwrap()
    .len()
}

fn field<'a>(fields: &'a [(String, String)], key: &str) -> &'a str {
    &fields
        .iter()
        .find(|(k, _)| k == key)
        .unwrap_or_else(|| panic!("no {key} in {fields:?}"))
        .1
}

#[test]
fn tictactoe_end_to_end_through_the_driver() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path();
    generate_game(out, "tictactoe", &[], true);
    let fields = json_fields(out, "tictactoe", &[]).unwrap();
    assert_eq!(
        field(&fields, "start"),
        r#"{"position":".../.../...","outcome":"draw","plies":null}"#
    );
    // 5478 positions are reachable from the empty board (a known figure); the index folds no symmetry.
    let reachable = field(&fields, "reachable");
    assert!(
        reachable.starts_with(r#"{"positions":5478,"unfolded":5478,"#),
        "{reachable}"
    );
    let json = render(out, "tictactoe", &["xx./oo./...".into()], true).unwrap();
    assert!(json.contains(r#""outcome":"win","plies":1"#), "{json}");
    assert_eq!(verified_tables(out, "tictactoe", &[]), 1);
    // Bad input: one line each.
    for bad in ["xx", "xxx/ooo/...", "xq./.../..."] {
        let e = render(out, "tictactoe", &[bad.into()], true)
            .unwrap_err()
            .to_string();
        assert!(!e.contains('\n'), "{e}");
    }
    let e = json_fields(out, "tictactoe", &["4x4".into()])
        .unwrap_err()
        .to_string();
    assert!(!e.contains('\n'), "{e}");
}

#[test]
fn quixo_3x3_end_to_end_through_the_driver() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path();
    generate_game(out, "quixo", &["3x3"], true);
    let fields = json_fields(out, "quixo", &["3x3".into()]).unwrap();
    // X wins 3x3 Quixo in 7 plies (the brute force of games/quixo agrees).
    assert!(
        field(&fields, "start").ends_with(r#""outcome":"win","plies":7}"#),
        "{fields:?}"
    );
    let reachable = field(&fields, "reachable");
    assert!(reachable.starts_with(r#"{"positions":"#), "{reachable}");
    assert_eq!(verified_tables(out, "quixo", &["3x3"]), 10);
    // `repack` writes the same bytes: the family's parameters as this version writes them, and the start position's
    // value in the table that holds it.
    let files = || -> Vec<(std::path::PathBuf, Vec<u8>)> {
        let mut files: Vec<_> = std::fs::read_dir(out.join("quixo"))
            .unwrap()
            .map(|e| e.unwrap().path())
            .map(|p| (p.clone(), std::fs::read(p).unwrap()))
            .collect();
        files.sort();
        files
    };
    let built = files();
    assert!(
        built
            .iter()
            .any(|(_, bytes)| bytes.windows(14).any(|w| w == b"startpos_value")),
        "no table holds the start position"
    );
    retro_driver::repack::repack(&retro_driver::repack::RepackArgs {
        game: "quixo".into(),
        variant: vec!["3x3".into()],
        tables: out.to_path_buf(),
        ..Default::default()
    })
    .unwrap();
    assert!(files() == built, "repack changed the bytes");
    let e = json_fields(out, "quixo", &["9x9".into()])
        .unwrap_err()
        .to_string();
    assert!(!e.contains('\n') && e.contains("9x9"), "{e}");
}

#[test]
fn connect4_4x5_end_to_end_through_the_driver() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path();
    generate_game(out, "connect4", &["4x5"], true);
    let fields = json_fields(out, "connect4", &["4x5".into()]).unwrap();
    // John Tromp's table of results: 4x5 is a draw.
    assert_eq!(
        field(&fields, "start"),
        r#"{"position":"4x5/..../..../..../..../....","outcome":"draw","plies":null}"#
    );
    // Tromp's count of the 4x5 positions reachable from the empty board, finished games included.
    let reachable = field(&fields, "reachable");
    assert!(
        reachable.starts_with(r#"{"positions":1706255,"unfolded":1706255,"#),
        "{reachable}"
    );
    // x plays column 1 three times and o column 2: x's fourth stone in column 1 wins at once.
    let json = render(out, "connect4", &["4x5:121212".into()], true).unwrap();
    assert!(json.contains(r#""outcome":"win","plies":1"#), "{json}");
    assert_eq!(verified_tables(out, "connect4", &["4x5"]), 21);
    // Bad input: one line each, naming what is wrong.
    for bad in [
        "4x5:1111111",
        "4x5:9",
        "4x5/..../..../..../..../.o..",
        "8x5:1",
    ] {
        let e = render(out, "connect4", &[bad.into()], true)
            .unwrap_err()
            .to_string();
        assert!(!e.contains('\n'), "{bad}: {e}");
    }
    for bad in ["8x4", "3x4", "4x"] {
        let e = json_fields(out, "connect4", &[bad.into()])
            .unwrap_err()
            .to_string();
        assert!(!e.contains('\n') && e.contains(bad), "{bad}: {e}");
    }
}
