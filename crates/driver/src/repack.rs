//! `retro repack GAME [VARIANT] --tables DIR`: writes the files of tables already built again, from their values,
//! with other write options (`--compact`, `--one-side`) and without solving them again. A table whose distance file
//! leaves one side to move out is read whole first, that side found by searching its moves; the files are then
//! written as `generate` writes them, under temporary names renamed into place, so the same options give the same
//! bytes as a build.

use std::path::PathBuf;
use std::time::Instant;

use anyhow::{Context, Result};
use retro_family::{Family, Flags};

use crate::build::with_threads;
use crate::directory::Directory;
use crate::generate::{
    Choices, START_PARAM, START_VALUE_PARAM, build_order, check_distance_block, refuse_one_side,
    write_values,
};
use crate::read::print_written;
use crate::registry::{Visit, visit};

/// What `repack` is asked.
#[derive(Clone, Debug, Default)]
pub struct RepackArgs {
    pub game: String,
    pub variant: Vec<String>,
    /// Every variant of up to N (chess: men) instead of one.
    pub all: Option<u32>,
    /// The directory of tables, read and written in place.
    pub tables: PathBuf,
    /// For `--all`: the flags `generate --all` took.
    pub flags: Flags,
    /// The smallest files (slower to write).
    pub compact: bool,
    /// Distance files of one side to move; without it, of both.
    pub one_side: bool,
    /// Values per block of the distance files, instead of the writer's choice (as `generate --distance-block`).
    pub distance_block: Option<u32>,
    pub threads: Option<usize>,
}

/// Runs `repack`: rewrites each table of the variant (every table of `--all N`), dependencies first.
pub fn repack(args: &RepackArgs) -> Result<()> {
    visit(&args.game, Repack(args))?
}

struct Repack<'a>(&'a RepackArgs);

impl Visit for Repack<'_> {
    type Output = Result<()>;
    fn visit<F: Family>(self, family: &F) -> Result<()> {
        let args = self.0;
        check_distance_block(args.distance_block)?;
        let disk = Directory::open(family, &args.tables)?;
        // A variant is opened as `verify` opens it, from the directory (a graph's from its table's payload).
        let variants = match args.all {
            Some(_) => crate::plan::variants(family, &args.variant, args.all, &args.flags)?,
            None => vec![
                family
                    .open_variant(&args.variant, &disk)
                    .map_err(anyhow::Error::msg)?,
            ],
        };
        let asked: Vec<F::Table> = variants.iter().flat_map(|v| family.tables(v)).collect();
        refuse_one_side(family, &asked, args.one_side)?;
        with_threads(args.threads, || -> Result<()> {
            for table in build_order(family, &variants) {
                if asked.contains(&table) {
                    repack_one(family, &disk, &table, args)?;
                }
            }
            Ok(())
        })?
    }
}

fn repack_one<F: Family>(
    family: &F,
    disk: &Directory<F>,
    table: &F::Table,
    args: &RepackArgs,
) -> Result<()> {
    let clock = Instant::now();
    let game_word = family.about().name;
    let name = family.table_name(table);
    // The family's parameters as this version writes them, and the start position's value where the table holds it.
    let mut params = family.params(table);
    params.extend(
        disk.table(table)?
            .meta()
            .params
            .iter()
            .filter(|(key, _)| [START_PARAM, START_VALUE_PARAM].contains(&key.as_str()))
            .cloned(),
    );
    let written = disk
        .with_game(table, |game| {
            // The values a distance file leaves out are searched through the same game the files are written with.
            let values = disk.values_through(table, game)?;
            write_values(
                family,
                table,
                game,
                None,
                params,
                retro_table::Runs(&values),
                &args.tables,
                &Choices {
                    compact: args.compact,
                    one_side: args.one_side,
                    distance_block: args.distance_block,
                },
                rayon::current_num_threads(),
            )
        })
        .with_context(|| format!("cannot rewrite {game_word} {name}"))?;
    println!(
        "{game_word} {name}: rewritten in {:.2} s",
        clock.elapsed().as_secs_f64()
    );
    print_written(&written, written.meta.index_size - written.meta.holes);
    Ok(())
}
