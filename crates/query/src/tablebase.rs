//! A directory of tables opened once and asked about positions of any game, from any number of threads.
//!
//! Chess goes through [`retro_chess::Prober`], which probes without locks; the other games go through the
//! driver's generic lookup, written once for every family. All of them share one cache of decompressed blocks.

use std::path::Path;
use std::sync::Arc;

use retro_chess::family::Chess;
use retro_chess::{LookupError, MoveList, Position, Prober};
use retro_driver::directory::{Directory, MissingTable};
use retro_driver::probe::best_line;
use retro_driver::registry::{Visit, families, find};
use retro_driver::value::{value_of, value_of_move};
use retro_family::{Family, Played, Value};
use retro_game::Outcome;
use retro_probe::Tables;

use crate::answer::{Answer, MoveAnswer, View};

/// The bytes of decompressed blocks a tablebase keeps by default.
pub const DEFAULT_CACHE_BYTES: usize = 256 << 20;

/// Why a question has no answer. Each says, in one line, what was wrong.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum QueryError {
    /// No game of that name.
    #[error("unknown game {name:?} (known: {known})")]
    UnknownGame { name: String, known: String },
    /// The position text does not parse, or is not a legal position of the game.
    #[error("{0}")]
    BadPosition(String),
    /// A table the answer needs is not in the directory.
    #[error("{0}")]
    MissingTable(String),
    /// The directory or a table cannot be read, or does not match this version of retro.
    #[error("{0}")]
    Unreadable(String),
}

impl From<LookupError> for QueryError {
    fn from(e: LookupError) -> QueryError {
        match e {
            LookupError::Missing { .. } => QueryError::MissingTable(e.to_string()),
            LookupError::TooManyMen { .. } => QueryError::BadPosition(e.to_string()),
            LookupError::Unreadable(m) => QueryError::Unreadable(m),
        }
    }
}

/// An error of the driver's lookups, sorted into missing tables and the rest.
fn from_driver(e: anyhow::Error) -> QueryError {
    if e.downcast_ref::<MissingTable>().is_some() {
        QueryError::MissingTable(e.to_string())
    } else {
        QueryError::Unreadable(e.to_string())
    }
}

/// A directory of tables, ready to answer. `Sync`: share one between threads.
pub struct Tablebase {
    tables: Arc<Tables>,
    chess: Prober,
}

impl Tablebase {
    /// Opens a directory of tables (`DIR/GAME/NAME.rwdl` and `.rdst`) with the default block cache.
    pub fn open(dir: &Path) -> Result<Tablebase, QueryError> {
        Tablebase::with_cache(dir, DEFAULT_CACHE_BYTES)
    }

    /// Opens a directory of tables with a cache of about `cache_bytes` bytes of decompressed blocks.
    pub fn with_cache(dir: &Path, cache_bytes: usize) -> Result<Tablebase, QueryError> {
        let tables = Tables::open(dir, cache_bytes)
            .map_err(|e| QueryError::Unreadable(format!("cannot open the tables: {e}")))?;
        let tables = Arc::new(tables);
        let chess = Prober::over(Arc::clone(&tables))?;
        Ok(Tablebase { tables, chess })
    }

    /// The directory.
    pub fn dir(&self) -> &Path {
        self.tables.dir()
    }

    /// The chess prober, for engines: win/draw/loss and distances of [`Position`]s, without locks.
    pub fn chess(&self) -> &Prober {
        &self.chess
    }

    /// The games retro knows, in the registry's order.
    pub fn games() -> Vec<&'static str> {
        families().iter().map(|a| a.name).collect()
    }

    /// Reads a FEN.
    pub fn parse_fen(fen: &str) -> Result<Position, QueryError> {
        Chess
            .parse_position(fen, &retro_family::NoPayloads)
            .map_err(QueryError::BadPosition)
    }

    /// Win, draw or loss of a chess position for its side to move.
    pub fn wdl(&self, fen: &str) -> Result<Outcome, QueryError> {
        Ok(self.chess.wdl(&Self::parse_fen(fen)?)?)
    }

    /// The value of a chess position for its side to move (outcome and plies to mate).
    pub fn value(&self, fen: &str) -> Result<Value, QueryError> {
        Ok(self.chess.value(&Self::parse_fen(fen)?)?)
    }

    /// Everything about a position of `game` (`chess` takes a FEN): its value, flags, and every move best first.
    pub fn probe(&self, game: &str, position: &str) -> Result<Answer, QueryError> {
        if game == Chess.about().name {
            return self.chess_answer(&Self::parse_fen(position)?);
        }
        self.visit(game, AnswerOf, position)
    }

    /// The best line from a position: the first best move each time, to the end of the game (the driver's
    /// `DRAWN_LINE_PLIES` for a draw), in the game's notation (UCI for chess).
    pub fn line(&self, game: &str, position: &str) -> Result<Vec<String>, QueryError> {
        self.visit(game, LineOf, position)
    }

    fn chess_answer(&self, pos: &Position) -> Result<Answer, QueryError> {
        let value = self.chess.value(pos)?;
        let mut list = MoveList::new();
        pos.legal_moves(&mut list);
        let mut moves = Vec::with_capacity(list.len());
        for m in list.as_slice() {
            let after = pos.play(m);
            moves.push(MoveAnswer {
                name: m.uci(),
                san: Some(retro_chess::san::san(pos, m)),
                value: self.chess.value(&after)?,
                after: Some(after.fen()),
                flags: Chess.flags(&after),
            });
        }
        sort_best_first(&mut moves);
        Ok(Answer {
            game: Chess.about().name,
            key: Chess.about().position_key,
            position: pos.fen(),
            views: vec![View {
                side: "",
                value,
                flags: Chess.flags(pos),
                moves,
            }],
        })
    }

    fn visit<Q: Question>(
        &self,
        game: &str,
        question: Q,
        text: &str,
    ) -> Result<Q::Out, QueryError> {
        let command = Generic {
            tables: &self.tables,
            text,
            question,
        };
        find(game, command).unwrap_or_else(|| {
            Err(QueryError::UnknownGame {
                name: game.to_owned(),
                known: Self::games().join(", "),
            })
        })
    }
}

/// Best first for the side to move: a move's value is the reached position's for the other side, so the mover's
/// value is one step back from it. Stable: equal moves keep the game's order.
fn sort_best_first(moves: &mut [MoveAnswer]) {
    moves.sort_by(|a, b| b.value.back().preference(a.value.back()));
}

/// What is asked of a position of a family other than chess, answered through the driver's lookup.
trait Question {
    type Out;
    fn ask<F: Family>(
        self,
        family: &F,
        directory: &Directory<'_, F>,
        position: &F::Position,
    ) -> Result<Self::Out, QueryError>;
}

/// Everything about the position: [`Tablebase::probe`].
struct AnswerOf;

impl Question for AnswerOf {
    type Out = Answer;
    fn ask<F: Family>(
        self,
        family: &F,
        directory: &Directory<'_, F>,
        position: &F::Position,
    ) -> Result<Answer, QueryError> {
        let mut views = Vec::new();
        for (side, seen) in family.views(position) {
            views.push(view(family, directory, side, &seen)?);
        }
        let about = family.about();
        Ok(Answer {
            game: about.name,
            key: about.position_key,
            position: family.label(position),
            views,
        })
    }
}

/// The best line from the position, with its own player to move: [`Tablebase::line`].
struct LineOf;

impl Question for LineOf {
    type Out = Vec<String>;
    fn ask<F: Family>(
        self,
        family: &F,
        directory: &Directory<'_, F>,
        position: &F::Position,
    ) -> Result<Vec<String>, QueryError> {
        let value = value_of(family, directory, position).map_err(from_driver)?;
        let line = best_line(family, directory, position, value).map_err(from_driver)?;
        Ok(line.iter().map(|m| m.to_string()).collect())
    }
}

/// A question about a position text of the family the registry finds.
struct Generic<'a, Q> {
    tables: &'a Arc<Tables>,
    text: &'a str,
    question: Q,
}

impl<Q: Question> Visit for Generic<'_, Q> {
    type Output = Result<Q::Out, QueryError>;

    fn visit<F: Family>(self, family: &F) -> Result<Q::Out, QueryError> {
        let about = family.about();
        if self.text.trim().is_empty() {
            return Err(QueryError::BadPosition(format!(
                "a position of {} is needed, like {:?}",
                about.name, about.example_position
            )));
        }
        let directory = Directory::over(family, Arc::clone(self.tables));
        let position = family.parse_position(self.text, &directory).map_err(|e| {
            // A graph position names its table, whose payload holds the graph.
            if e.contains("cannot open table") {
                QueryError::MissingTable(e)
            } else {
                QueryError::BadPosition(e)
            }
        })?;
        self.question.ask(family, &directory, &position)
    }
}

fn view<F: Family>(
    family: &F,
    directory: &Directory<'_, F>,
    side: &'static str,
    position: &F::Position,
) -> Result<View, QueryError> {
    let value = value_of(family, directory, position).map_err(from_driver)?;
    let mut moves = Vec::new();
    for (name, played) in family.moves(position) {
        let (value, after, flags) = match &played {
            // A move that ends the game: its value for the mover, one step back, is the other side's value.
            Played::Over(v) => (*v, None, Vec::new()),
            Played::Position(next) => (
                value_of(family, directory, next).map_err(from_driver)?,
                Some(family.label(next)),
                family.flags(next),
            ),
        };
        debug_assert_eq!(
            value_of_move(family, directory, &played).ok(),
            Some(value.back())
        );
        moves.push(MoveAnswer {
            name: name.to_string(),
            san: None,
            value,
            after,
            flags,
        });
    }
    sort_best_first(&mut moves);
    Ok(View {
        side,
        value,
        flags: family.flags(position),
        moves,
    })
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use retro_chess::TableIndex;
    use retro_chess::material::Material;
    use retro_driver::EngineArgs;
    use retro_driver::generate::{GenerateArgs, generate};
    use retro_driver::probe::valued_moves;

    use super::*;

    /// The 3- and 4-man chess tables shipped with the repository.
    fn shipped() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tablebases/chess")
    }

    const FENS: &[&str] = &[
        "8/8/8/8/8/2k5/8/KQ6 w - - 0 1",
        "8/8/8/4k3/8/8/8/KR6 b - - 0 1",
        "8/8/8/8/8/8/k3P3/4K3 w - - 0 1",
        "8/8/3k4/8/8/8/8/KBN5 w - - 0 1",
        "8/8/8/2k5/8/8/1r6/KR6 w - - 0 1",
        // White has just pushed d2d4: Black may take en passant (the tables do not store it; a search does).
        "8/8/8/8/3Pp3/8/8/K6k b - d3 0 1",
    ];

    #[test]
    fn chess_answers_agree_with_the_drivers_lookup() {
        let tablebase = Tablebase::open(&shipped()).unwrap();
        let directory = Directory::open(&Chess, &shipped()).unwrap();
        for fen in FENS {
            let pos = Tablebase::parse_fen(fen).unwrap();
            let answer = tablebase.probe("chess", fen).unwrap();
            let expected = value_of(&Chess, &directory, &pos).unwrap();
            assert_eq!(answer.value(), expected, "{fen}");
            assert_eq!(tablebase.value(fen).unwrap(), expected, "{fen}");
            assert_eq!(tablebase.wdl(fen).unwrap(), expected.outcome(), "{fen}");
            let theirs = valued_moves(&Chess, &directory, &pos).unwrap();
            let ours = &answer.view().moves;
            assert_eq!(ours.len(), theirs.len(), "{fen}");
            for (mine, their) in ours.iter().zip(&theirs) {
                assert_eq!(mine.name, their.name.to_string(), "{fen}");
                assert_eq!(mine.value.back(), their.value, "{fen} {}", mine.name);
                // The position reached reads back with the value given for it.
                let after = mine.after.as_deref().unwrap();
                assert_eq!(tablebase.value(after).unwrap(), mine.value, "{after}");
            }
            if let Some(best) = ours.first() {
                assert_eq!(best.value.back(), expected, "{fen}");
            }
        }
    }

    #[test]
    fn win_draw_loss_agrees_with_the_distances_on_random_positions() {
        let tablebase = Tablebase::open(&shipped()).unwrap();
        let prober = tablebase.chess();
        let mut state = 0x2545_f491_4f6c_dd1du64;
        let mut checked = 0;
        for name in ["KQvK", "KRvK", "KPvK", "KQvKR", "KPvKP", "KBNvK", "KRvKB"] {
            let index = TableIndex::new(Material::parse(name).unwrap());
            for _ in 0..400 {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                let Some(pos) = index.position(state % index.size()) else {
                    continue;
                };
                let value = prober.value(&pos).unwrap();
                assert_eq!(prober.wdl(&pos).unwrap(), value.outcome(), "{}", pos.fen());
                checked += 1;
            }
        }
        assert!(checked > 1000, "{checked}");
    }

    #[test]
    fn chess_flags_say_mate_and_stalemate() {
        let tablebase = Tablebase::open(&shipped()).unwrap();
        let mate = tablebase
            .probe("chess", "k7/1Q6/1K6/8/8/8/8/8 b - - 0 1")
            .unwrap();
        assert_eq!(mate.value(), Value::loss(0));
        assert!(mate.view().moves.is_empty());
        assert!(
            mate.to_json()
                .contains("\"checkmate\":true,\"stalemate\":false")
        );
        let stalemate = tablebase
            .probe("chess", "k7/2Q5/1K6/8/8/8/8/8 b - - 0 1")
            .unwrap();
        assert_eq!(stalemate.value(), Value::DRAW);
        assert!(
            stalemate
                .to_json()
                .contains("\"checkmate\":false,\"stalemate\":true")
        );
        let bare = tablebase
            .probe("chess", "k7/8/1K6/8/8/8/8/8 w - - 0 1")
            .unwrap();
        assert!(bare.to_json().contains("\"insufficient_material\":true"));
        // The best move of a won position mates: its entry says so, in SAN too.
        let won = tablebase
            .probe("chess", "k7/8/1K6/8/8/8/8/2Q5 w - - 0 1")
            .unwrap();
        let best = &won.view().moves[0];
        assert_eq!(won.value(), Value::win(1));
        assert_eq!(best.value, Value::loss(0));
        assert!(best.san.as_deref().unwrap().ends_with('#'), "{best:?}");
        assert!(best.flags.contains(&("checkmate", true)), "{best:?}");
    }

    #[test]
    fn bad_questions_get_one_line_errors_of_their_kind() {
        let tablebase = Tablebase::open(&shipped()).unwrap();
        type Kind = fn(&QueryError) -> bool;
        let cases: [(&str, &str, Kind); 5] = [
            ("chess", "not a fen", |e| {
                matches!(e, QueryError::BadPosition(_))
            }),
            ("chess", "8/8/8/8/8/8/8/KK5k w - - 0 1", |e| {
                matches!(e, QueryError::BadPosition(_))
            }),
            (
                "chess",
                "8/8/8/3k4/8/8/1r6/KRQ5 w - - 0 1",
                |e| matches!(e, QueryError::MissingTable(m) if m.contains("KQRvKR")),
            ),
            ("go", "anything", |e| {
                matches!(e, QueryError::UnknownGame { .. })
            }),
            ("tictactoe", "xx./oo./...", |e| {
                matches!(e, QueryError::MissingTable(_))
            }),
        ];
        for (game, position, kind) in cases {
            let e = tablebase.probe(game, position).unwrap_err();
            assert!(kind(&e), "{game} {position}: {e:?}");
            assert!(!e.to_string().contains('\n'), "{e}");
        }
        assert!(matches!(
            Tablebase::open(Path::new("/nonexistent/retro")),
            Err(QueryError::Unreadable(_))
        ));
    }

    #[test]
    fn other_games_answer_through_the_driver() {
        let dir = tempfile::tempdir().unwrap();
        generate(&GenerateArgs {
            game: "tictactoe".into(),
            out: dir.path().to_path_buf(),
            engine: EngineArgs {
                quiet: true,
                ..Default::default()
            },
            ..Default::default()
        })
        .unwrap();
        let tablebase = Tablebase::open(dir.path()).unwrap();
        let answer = tablebase.probe("tictactoe", "xx./oo./...").unwrap();
        assert_eq!(answer.value(), Value::win(1));
        assert_eq!(
            answer.best_move(),
            answer.view().moves.first().map(|m| m.name.as_str())
        );
        let best = &answer.view().moves[0];
        // X completes the top row: the game is over, and O, to move there, has lost.
        assert_eq!(best.value, Value::loss(0));
        assert!(
            answer
                .to_json()
                .starts_with("{\"position\":\"xx./oo./...\",\"category\":\"win\",\"dtm\":1,")
        );
        assert_eq!(tablebase.line("tictactoe", "xx./oo./...").unwrap().len(), 1);
        let start = tablebase.probe("tictactoe", ".../.../...").unwrap();
        assert_eq!(start.value(), Value::DRAW);
        assert_eq!(start.view().moves.len(), 9);
        assert!(start.view().moves.iter().all(|m| m.value == Value::DRAW));
        assert!(matches!(
            tablebase.probe("tictactoe", "xq./.../..."),
            Err(QueryError::BadPosition(_))
        ));
    }
}
