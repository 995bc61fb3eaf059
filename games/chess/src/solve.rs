//! Solving a material and everything it depends on, in memory, with the retrograde engine.

use std::time::{Duration, Instant};

use retro_engine::{EngineError, Solution, SolveOptions};

use crate::game::{ChessGame, GameError, TableSet};
use crate::material::Material;

/// Why a material could not be solved.
#[derive(Debug, thiserror::Error)]
pub enum SolveError {
    #[error(transparent)]
    Game(#[from] GameError),
    #[error("engine failed on {0}: {1}")]
    Engine(Material, EngineError),
}

/// What solving one table took.
#[derive(Clone, Debug)]
pub struct Solved {
    pub material: Material,
    pub size: u64,
    pub positions: u64,
    pub elapsed: Duration,
}

/// Solves `material` with its exits looking into `tables`; the result is not added to `tables`.
pub fn solve_one(
    material: Material,
    tables: &TableSet,
    options: &SolveOptions,
) -> Result<Solution, SolveError> {
    let material = material.canonical();
    let game = ChessGame::new(material, tables)?;
    retro_engine::solve(&game, options).map_err(|e| SolveError::Engine(material, e))
}

/// Solves every table `material` depends on that `tables` does not hold yet, then `material` itself, each once, in
/// dependency order, adding each to `tables`. Calls `done` after each table.
pub fn solve_tree(
    material: Material,
    tables: &mut TableSet,
    options: &SolveOptions,
    mut done: impl FnMut(&Solved, &TableSet),
) -> Result<(), SolveError> {
    for m in material.dependency_order() {
        if tables.get(m).is_some() {
            continue;
        }
        let start = Instant::now();
        let solution = solve_one(m, tables, options)?;
        let solved = Solved {
            material: m,
            size: solution.size(),
            positions: solution.stats().positions,
            elapsed: start.elapsed(),
        };
        tables.insert(m, Box::new(solution));
        done(&solved, tables);
    }
    Ok(())
}
