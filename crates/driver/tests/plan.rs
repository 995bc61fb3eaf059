//! `retro plan`: the DAG of chess materials against the rules of captures and promotions, stated here on the
//! materials' names; the order and levels of a plan; and the plan's memory against the engine's estimate with the
//! real sub-tables.

use std::collections::BTreeSet;

use retro_chess::Material;
use retro_chess::family::Chess;
use retro_driver::EngineArgs;
use retro_driver::dense::DenseValues;
use retro_driver::generate::{GenerateArgs, generate};
use retro_driver::plan::make_plan;
use retro_family::{Family, Game, SubTables};

/// A material's name with its sides in canonical order (the side with more, then stronger, pieces first), as
/// retro writes it; `None` for two bare kings, which is no table.
fn name(white: &str, black: &str) -> Option<String> {
    if white.len() == 1 && black.len() == 1 {
        return None;
    }
    Some(
        Material::parse(&format!("{white}v{black}"))
            .unwrap()
            .canonical()
            .to_string(),
    )
}

/// The tables a material's exits reach, from the rules: a capture takes one of the other side's pieces (not its
/// king); a pawn promotes to a queen, rook, bishop or knight, and may take a piece (never a pawn) as it does.
fn by_the_rules(material: &str) -> BTreeSet<String> {
    let (white, black) = material.split_once('v').unwrap();
    let mut out = BTreeSet::new();
    for (mover, victim, mover_first) in [(white, black, true), (black, white, false)] {
        let pair = |m: &str, v: &str| if mover_first { name(m, v) } else { name(v, m) };
        let without = |side: &str, at: usize| format!("{}{}", &side[..at], &side[at + 1..]);
        for (at, piece) in victim.char_indices().skip(1) {
            let _ = piece;
            out.extend(pair(mover, &without(victim, at)));
        }
        for (at, piece) in mover.char_indices() {
            if piece != 'P' {
                continue;
            }
            for promoted in ['Q', 'R', 'B', 'N'] {
                let promoted_side = format!("{}{promoted}", without(mover, at));
                out.extend(pair(&promoted_side, victim));
                for (v_at, taken) in victim.char_indices().skip(1) {
                    if taken != 'P' {
                        out.extend(pair(&promoted_side, &without(victim, v_at)));
                    }
                }
            }
        }
    }
    out
}

#[test]
fn every_material_up_to_six_men_depends_on_what_its_captures_and_promotions_reach() {
    let all = Chess.all(6).unwrap();
    assert!(all.len() > 500, "{}", all.len());
    let mut checked = 0;
    for material in &all {
        let expected = by_the_rules(&material.to_string());
        let got: BTreeSet<String> = Chess
            .dependencies(material)
            .iter()
            .map(|m| Chess.table_name(m))
            .collect();
        assert_eq!(got, expected, "{material}");
        checked += 1;
    }
    assert_eq!(checked, all.len());
    // A spot check of the rules themselves.
    assert_eq!(
        by_the_rules("KPvKR"),
        [
            "KQvKR", "KRvK", "KRvKR", "KBvKR", "KNvKR", "KPvK", "KQvK", "KBvK", "KNvK"
        ]
        .map(|s| Material::parse(s).unwrap().canonical().to_string())
        .into_iter()
        .collect()
    );
}

#[test]
fn a_plan_lists_each_table_once_after_its_dependencies_with_its_level() {
    let variants = Chess.all(4).unwrap();
    let plan = make_plan(&Chess, &variants, 1 << 30, 2).unwrap();
    let mut seen: Vec<&str> = Vec::new();
    for t in &plan.tables {
        assert!(!seen.contains(&t.name.as_str()), "{} twice", t.name);
        let deps: Vec<_> = t
            .dependencies
            .iter()
            .map(|d| plan.tables.iter().find(|u| u.name == *d).unwrap())
            .collect();
        for d in &deps {
            assert!(
                seen.contains(&d.name.as_str()),
                "{} before {}",
                t.name,
                d.name
            );
        }
        let level = deps.iter().map(|d| d.level + 1).max().unwrap_or(0);
        assert_eq!(t.level, level, "{}", t.name);
        assert!(t.indices >= t.stored && t.stored > 0, "{}", t.name);
        assert!(!t.engine.sliced && t.fits(plan.budget), "{}", t.name);
        seen.push(&t.name);
    }
    let asked: BTreeSet<String> = variants.iter().map(|m| m.to_string()).collect();
    assert_eq!(
        seen.iter().map(|s| s.to_string()).collect::<BTreeSet<_>>(),
        asked
    );
    // A budget below a table's in-memory figure sends it out of core, within the budget.
    let krvkr = plan.tables.iter().find(|t| t.name == "KQvKR").unwrap();
    let small = make_plan(
        &Chess,
        &[Material::parse("KQvKR").unwrap()],
        krvkr.in_memory_bytes - 1,
        2,
    )
    .unwrap();
    let sliced = small.tables.last().unwrap();
    assert!(
        sliced.engine.sliced && sliced.engine.slices > 1,
        "{sliced:?}"
    );
    assert!(sliced.engine.scratch_bytes > 0);
    assert_eq!(sliced.memory_request(small.budget), small.budget);
    // The critical path is no longer than the sum, and at least the longest table.
    let longest = plan.tables.iter().map(|t| t.seconds).fold(0.0, f64::max);
    assert!(plan.critical_path_seconds() <= plan.total_seconds() + 1e-9);
    assert!(plan.critical_path_seconds() >= longest);
}

#[test]
fn the_planned_memory_bounds_the_engines_estimate_with_the_real_sub_tables() {
    let dir = tempfile::tempdir().unwrap();
    for material in ["KQvKR", "KPvK"] {
        generate(&GenerateArgs {
            game: "chess".into(),
            variant: vec![material.into()],
            out: dir.path().to_path_buf(),
            engine: EngineArgs {
                threads: Some(2),
                quiet: true,
                ..Default::default()
            },
            ..Default::default()
        })
        .unwrap();
        let table = Material::parse(material).unwrap();
        let plan = make_plan(&Chess, &[table], 1 << 30, 2).unwrap();
        let planned = plan.tables.last().unwrap();
        let tables = retro_probe::Tables::open(dir.path(), 1 << 24).unwrap();
        let deps = Chess.dependencies(&table);
        let dense: Vec<DenseValues> = deps
            .iter()
            .map(|d| {
                let t = tables.table("chess", &Chess.table_name(d)).unwrap();
                DenseValues::read(&t).unwrap()
            })
            .collect();
        let mut sub = SubTables::new();
        for (d, values) in deps.iter().zip(&dense) {
            sub.insert(*d, values);
        }
        let game = Chess.game(&table, &sub).unwrap();
        let real = retro_engine::estimate(&game, &retro_engine::SolveOptions::default()).unwrap();
        let held: u64 = dense.iter().map(retro_family::Values::resident_bytes).sum();
        assert_eq!(planned.indices, game.size(), "{material}");
        // The plan reserves two bytes an index; sub-tables whose distances stay within 126 plies take one.
        assert!(
            held <= planned.sub_table_bytes && planned.sub_table_bytes <= 2 * held,
            "{material}: planned {} bytes of sub-tables, held {held}",
            planned.sub_table_bytes
        );
        let planned_engine =
            planned.in_memory_bytes - planned.sub_table_bytes - planned.overhead_bytes;
        assert!(
            planned_engine >= real.in_memory_bytes && planned_engine <= 2 * real.in_memory_bytes,
            "{material}: planned {planned_engine}, with the real sub-tables {}",
            real.in_memory_bytes
        );
    }
}
