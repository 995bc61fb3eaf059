//! `retro probe --tables DIR GAME POSITION`, for every family: the position's value, every move's value best
//! first, and the best line.
//!
//! `--json` prints one object: the position under the family's key (`"fen"` for chess, `"position"` elsewhere), its
//! value (`"outcome"`, `"plies"`), the family's flags (`"game_over"`; chess: `"checkmate"`, `"stalemate"`,
//! `"insufficient_material"`), `"moves"` (each under the family's move key, with the family's other names of it,
//! such as chess's `"san"`, and its value for the player making it) and `"line"`. A position shown with each player to move (a partizan
//! graph) prints one such object per player, under `"left"` and `"right"`.

use std::fmt::Write;
use std::path::Path;

use anyhow::{Result, bail};
use retro_family::{Family, Played, Value};

use crate::directory::Directory;
use crate::json;
use crate::registry::{Visit, visit};
use crate::value::{Lookup, value_of, value_of_move};

/// How many plies of a drawn line `probe` shows (a draw has no end).
pub const DRAWN_LINE_PLIES: usize = 12;

/// The longest line a decided position may have before the tables are called inconsistent.
const LONGEST_LINE: usize = 100_000;

/// Prints what `probe` says of `position` (the words of the command line, joined by spaces) in the tables of `dir`.
pub fn probe(dir: &Path, game: &str, position: &[String], as_json: bool) -> Result<()> {
    print!("{}", render(dir, game, position, as_json)?);
    Ok(())
}

/// What `probe` prints: one line of JSON, or a readable listing.
pub fn render(dir: &Path, game: &str, position: &[String], as_json: bool) -> Result<String> {
    visit(
        game,
        Probe {
            dir,
            text: position.join(" "),
            as_json,
        },
    )?
}

struct Probe<'a> {
    dir: &'a Path,
    text: String,
    as_json: bool,
}

/// A move with its value for the player making it.
pub struct Valued<F: Family> {
    pub name: F::Move,
    pub played: Played<F::Position>,
    pub value: Value,
}

/// Every move of `position`, valued, best first (ties in the family's order).
pub fn valued_moves<F: Family>(
    family: &F,
    lookup: &dyn Lookup<F>,
    position: &F::Position,
) -> Result<Vec<Valued<F>>> {
    let mut moves = Vec::new();
    for (name, played) in family.moves(position) {
        let value = value_of_move(family, lookup, &played)?;
        moves.push(Valued {
            name,
            played,
            value,
        });
    }
    // Stable: equal moves keep the family's order.
    moves.sort_by(|a, b| b.value.preference(a.value));
    Ok(moves)
}

/// The best line from `position` worth `value`: the first best move each time, to the end of the game (a few
/// plies for a draw).
pub fn best_line<F: Family>(
    family: &F,
    lookup: &dyn Lookup<F>,
    position: &F::Position,
    value: Value,
) -> Result<Vec<F::Move>> {
    let length = match value.plies() {
        Some(p) => p as usize,
        None => DRAWN_LINE_PLIES,
    };
    if length > LONGEST_LINE {
        bail!("a line of {length} plies is too long to show");
    }
    let mut line = Vec::new();
    let mut here = position.clone();
    while line.len() < length {
        let mut moves = valued_moves(family, lookup, &here)?;
        if moves.is_empty() {
            break;
        }
        let best = moves.swap_remove(0);
        line.push(best.name);
        match best.played {
            Played::Over(_) => break,
            Played::Position(next) => here = next,
        }
    }
    Ok(line)
}

/// Everything `probe` says of one view of a position.
struct View<F: Family> {
    word: &'static str,
    position: F::Position,
    value: Value,
    moves: Vec<Valued<F>>,
    line: Vec<F::Move>,
}

impl Visit for Probe<'_> {
    type Output = Result<String>;
    fn visit<F: Family>(self, family: &F) -> Result<String> {
        if self.text.trim().is_empty() {
            bail!(
                "probing {} takes a position, like {:?}",
                family.about().name,
                family.about().example_position
            );
        }
        let directory = Directory::open(family, self.dir)?;
        let position = family
            .parse_position(&self.text, &directory)
            .map_err(anyhow::Error::msg)?;
        let mut views = Vec::new();
        for (word, position) in family.views(&position) {
            let value = value_of(family, &directory, &position)?;
            let moves = valued_moves(family, &directory, &position)?;
            let line = best_line(family, &directory, &position, value)?;
            views.push(View::<F> {
                word,
                position,
                value,
                moves,
                line,
            });
        }
        Ok(if self.as_json {
            as_json(family, &position, &views)
        } else {
            as_text(family, &position, &views)
        })
    }
}

fn as_json<F: Family>(family: &F, position: &F::Position, views: &[View<F>]) -> String {
    let about = family.about();
    let body = |view: &View<F>| {
        let mut out = json::value_fields(view.value);
        for (flag, on) in family.flags(&view.position) {
            let _ = write!(out, ",{}:{on}", json::string(flag));
        }
        let moves = view
            .moves
            .iter()
            .map(|m| {
                let names: String = family
                    .move_names(&view.position, &m.name)
                    .iter()
                    .map(|(key, name)| format!(",{}:{}", json::string(key), json::string(name)))
                    .collect();
                format!(
                    "{{{}:{}{names},{}}}",
                    json::string(about.move_key),
                    json::string(&m.name.to_string()),
                    json::value_fields(m.value)
                )
            })
            .collect::<Vec<_>>()
            .join(",");
        let line = view
            .line
            .iter()
            .map(|m| json::string(&m.to_string()))
            .collect::<Vec<_>>()
            .join(",");
        let _ = write!(out, ",\"moves\":[{moves}],\"line\":[{line}]");
        out
    };
    let head = format!(
        "{}:{}",
        json::string(about.position_key),
        json::string(&family.label(position))
    );
    match views {
        [view] if view.word.is_empty() => format!("{{{head},{}}}\n", body(view)),
        _ => {
            let parts = views
                .iter()
                .map(|v| format!("{}:{{{}}}", json::string(v.word), body(v)))
                .collect::<Vec<_>>()
                .join(",");
            format!("{{{head},{parts}}}\n")
        }
    }
}

fn as_text<F: Family>(family: &F, position: &F::Position, views: &[View<F>]) -> String {
    let mut out = family.diagram(position);
    for view in views {
        let who = if view.word.is_empty() {
            String::new()
        } else {
            format!(", {} to move", view.word)
        };
        let _ = writeln!(out, "{}{who}: {}", family.label(&view.position), view.value);
        for (flag, on) in family.flags(&view.position) {
            if on {
                let _ = writeln!(out, "  {}", flag.replace('_', " "));
            }
        }
        if view.moves.is_empty() {
            let _ = writeln!(out, "  no move");
        }
        for m in &view.moves {
            // Chess shows SAN first, as players read it, and UCI after it.
            let mut names: Vec<String> = family
                .move_names(&view.position, &m.name)
                .into_iter()
                .map(|(_, name)| name)
                .collect();
            names.push(m.name.to_string());
            let _ = writeln!(out, "  {:<12} {}", names.join(" "), m.value);
        }
        if !view.line.is_empty() {
            let line = view
                .line
                .iter()
                .map(|m| m.to_string())
                .collect::<Vec<_>>()
                .join(" ");
            let _ = writeln!(out, "  line: {line}");
        }
    }
    out
}
