//! `retro info --tables DIR GAME [VARIANT] [--json]`, for every family.
//!
//! A variant of one table shows that table: its header, sizes and histogram ([`crate::read::info_fields`]), the
//! sides named as the family shows them ([`Family::shown_sides`]). A variant of several tables (a Connect Four
//! board, one table per number of stones) shows their totals and a line per table. Where the variant has a start
//! position, `"start"` gives it with its value (kept in the header of the table that holds it), and
//! `"reachable"` the census (`null` until `generate --census` made one).

use std::path::Path;
use std::sync::Arc;

use anyhow::{Result, anyhow};
use retro_family::Family;
use retro_probe::Table;

use crate::census;
use crate::directory::Directory;
use crate::generate::{START_PARAM, START_VALUE_PARAM};
use crate::json;
use crate::read::{info_fields, print_info, print_object};
use crate::registry::{Visit, visit};
use crate::value::parse_value;

/// Prints `info`.
pub fn info(dir: &Path, game: &str, words: &[String], as_json: bool) -> Result<()> {
    let info = Info {
        dir,
        words,
        as_json,
    };
    if let Some(fields) = visit(game, info)?? {
        print_object(&fields);
    }
    Ok(())
}

/// The fields of `info --json`, as (key, JSON value) pairs in order.
pub fn json_fields(dir: &Path, game: &str, words: &[String]) -> Result<Vec<(String, String)>> {
    let info = Info {
        dir,
        words,
        as_json: true,
    };
    Ok(visit(game, info)??.unwrap_or_default())
}

struct Info<'a> {
    dir: &'a Path,
    words: &'a [String],
    as_json: bool,
}

impl Visit for Info<'_> {
    /// The JSON fields, or `None` when the text was printed.
    type Output = Result<Option<Vec<(String, String)>>>;
    fn visit<F: Family>(self, family: &F) -> Self::Output {
        let disk = Directory::open(family, self.dir)?;
        let variant = family
            .open_variant(self.words, &disk)
            .map_err(anyhow::Error::msg)?;
        let tables = family.tables(&variant);
        let opened = tables
            .iter()
            .map(|t| Ok((family.table_name(t), disk.table(t)?)))
            .collect::<Result<Vec<(String, Arc<Table>)>>>()?;
        let has_start = family.start(&variant).is_some();
        let start = start_json(&opened);
        let reachable = if has_start {
            Some(census::read_json(family, &variant, self.dir, &opened)?)
        } else {
            None
        };
        let mut fields = if let [(_, table)] = &opened[..] {
            let shown = family.shown_sides(self.words, &tables[0]);
            let kept = table.meta().sides.len();
            if shown.len() < kept {
                return Err(anyhow!(
                    "{}: the table has {kept} sides to move, the game names {}",
                    table.distance_file().path().display(),
                    shown.len()
                ));
            }
            let side_of = family.side_of(&tables[0]);
            // A distance file of one side to move: the other side's values are searched, reading the table whole.
            let left_out = match table.distance_file().header().omitted() {
                Some(_) => Some(disk.values(&tables[0])?),
                None => None,
            };
            if !self.as_json {
                print_info(table, false, &shown[..kept], &side_of, left_out.as_ref())?;
                for extra in &shown[kept..] {
                    println!(
                        "{extra:<10} the same as {} (the table stores one side to move for both)",
                        shown[0]
                    );
                }
                print_start_and_census(&start, &reachable);
                return Ok(None);
            }
            let mut fields = info_fields(table, &shown[..kept], &side_of, left_out.as_ref())?;
            copy_first_side(&mut fields, &shown[..kept], &shown[kept..])?;
            fields
        } else {
            let totals = totals(family.about().name, &variant.to_string(), &opened);
            if !self.as_json {
                print_totals(&opened);
                print_start_and_census(&start, &reachable);
                return Ok(None);
            }
            totals
        };
        if has_start {
            fields.push((
                "start".into(),
                start.clone().unwrap_or_else(|| "null".into()),
            ));
            match reachable.flatten() {
                Some(groups) => fields.extend(groups),
                None => fields.push(("reachable".into(), "null".into())),
            }
        }
        Ok(Some(fields))
    }
}

/// `{"position":...,"outcome":...,"plies":...}` from the header of the table holding the start.
fn start_json(tables: &[(String, Arc<Table>)]) -> Option<String> {
    tables.iter().find_map(|(_, t)| {
        let position = t.meta().param(START_PARAM)?;
        let value = parse_value(t.meta().param(START_VALUE_PARAM)?)?;
        Some(format!(
            "{{\"position\":{},{}}}",
            json::string(position),
            json::value_fields(value)
        ))
    })
}

fn print_start_and_census(
    start: &Option<String>,
    reachable: &Option<Option<Vec<(String, String)>>>,
) {
    if let Some(start) = start {
        println!("start      {start}");
    }
    match reachable {
        Some(Some(groups)) => {
            for (group, census) in groups {
                println!("{group:<10} {census}");
            }
        }
        Some(None) => println!("reachable  no census (generate --census makes one)"),
        None => {}
    }
}

/// Gives each side in `extra` the per-side fields of `kept[0]` (`counts`, `longest`, `histogram`).
fn copy_first_side(fields: &mut [(String, String)], kept: &[&str], extra: &[&str]) -> Result<()> {
    if extra.is_empty() {
        return Ok(());
    }
    let first = format!("{{{}:", json::string(kept[0]));
    for (key, value) in fields {
        if matches!(key.as_str(), "counts" | "longest" | "histogram") {
            let body = value
                .strip_prefix(&first)
                .and_then(|v| v.strip_suffix('}'))
                .filter(|_| kept.len() == 1)
                .ok_or_else(|| anyhow!("unexpected {key} field {value}"))?;
            let mut out = format!("{first}{body}");
            for name in extra {
                out.push_str(&format!(",{}:{body}", json::string(name)));
            }
            out.push('}');
            *value = out;
        }
    }
    Ok(())
}

/// The totals of a variant of several tables, as `info --json` fields.
fn totals(game: &str, variant: &str, tables: &[(String, Arc<Table>)]) -> Vec<(String, String)> {
    let (mut index_size, mut holes, mut win, mut draw, mut loss) = (0u64, 0u64, 0u64, 0u64, 0u64);
    let (mut longest_win, mut longest_loss) = (None::<u32>, None::<u32>);
    let (mut wdl_bytes, mut distance_bytes) = (0u64, 0u64);
    let mut each = Vec::new();
    for (name, t) in tables {
        let meta = t.meta();
        let total = meta.total();
        index_size += meta.index_size;
        holes += meta.holes;
        win += total.wins;
        draw += total.draws;
        loss += total.losses;
        longest_win = longest_win.max(total.longest_win);
        longest_loss = longest_loss.max(total.longest_loss);
        wdl_bytes += t.wdl_file().len();
        distance_bytes += t.distance_file().len();
        each.push(format!(
            "{{\"name\":{},\"index_size\":{},\"positions\":{},\"win\":{},\"draw\":{},\"loss\":{},\"bytes\":{}}}",
            json::string(name),
            meta.index_size,
            meta.index_size - meta.holes,
            total.wins,
            total.draws,
            total.losses,
            t.wdl_file().len() + t.distance_file().len()
        ));
    }
    vec![
        ("game".into(), json::string(game)),
        ("variant".into(), json::string(variant)),
        ("index_size".into(), index_size.to_string()),
        ("positions".into(), (index_size - holes).to_string()),
        ("holes".into(), holes.to_string()),
        (
            "counts".into(),
            format!("{{\"win\":{win},\"draw\":{draw},\"loss\":{loss}}}"),
        ),
        (
            "longest".into(),
            format!(
                "{{\"win\":{},\"loss\":{}}}",
                json::optional(longest_win),
                json::optional(longest_loss)
            ),
        ),
        (
            "bytes".into(),
            format!("{{\"wdl\":{wdl_bytes},\"distance\":{distance_bytes}}}"),
        ),
        ("tables".into(), format!("[{}]", each.join(","))),
    ]
}

fn print_totals(tables: &[(String, Arc<Table>)]) {
    let mut positions = 0;
    for (name, t) in tables {
        let meta = t.meta();
        let total = meta.total();
        positions += meta.index_size - meta.holes;
        println!(
            "table      {name}: {} indices, {} positions: {} win, {} draw, {} loss; {} bytes",
            meta.index_size,
            meta.index_size - meta.holes,
            total.wins,
            total.draws,
            total.losses,
            t.wdl_file().len() + t.distance_file().len()
        );
    }
    println!("total      {} tables, {positions} positions", tables.len());
}
