//! What a front-end is told about a position: its value, the facts that go with it, and every move with the value
//! it leads to, best first; and that answer as JSON in the shape of lichess's tablebase API.
//!
//! The conventions are lichess's, so that a client written for lichess reads retro's answers unchanged:
//! - `category` is `win`, `draw` or `loss` for the side to move;
//! - `dtm` is the distance to mate (to the end of the game, for other games) in plies, positive when the side to
//!   move wins, negative when it loses, `null` for a draw;
//! - a move's `category` and `dtm` are those of the position it reaches, for the side to move there: the best move
//!   of a won position is a move to a `loss`.

use std::fmt::Write;

use retro_driver::json;
use retro_game::{Outcome, Value};

/// The answer for one position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Answer {
    /// The game's name (`chess`, `dobutsu`, ...).
    pub game: &'static str,
    /// The JSON key of the position's text: `fen` for chess, `position` for the other games.
    pub key: &'static str,
    /// The position in the game's notation.
    pub position: String,
    /// One view for most games; a partizan graph is seen with each player to move (`left`, `right`).
    pub views: Vec<View>,
}

/// The position seen with one player to move.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct View {
    /// `""` for the only view; `left` or `right` for a partizan graph.
    pub side: &'static str,
    pub value: Value,
    /// The game's facts about the position: `checkmate`, `stalemate`, `insufficient_material` for chess,
    /// `game_over` for games that say it.
    pub flags: Vec<(&'static str, bool)>,
    /// Every legal move, best first for the side to move (ties in the game's order of moves).
    pub moves: Vec<MoveAnswer>,
}

/// A move and what it leads to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MoveAnswer {
    /// The move in the game's notation (UCI for chess).
    pub name: String,
    /// Chess only: the move in standard algebraic notation.
    pub san: Option<String>,
    /// The value of the position reached, for the side to move there.
    pub value: Value,
    /// The position reached, in the game's notation; `None` when the move ends the game.
    pub after: Option<String>,
    /// The game's facts about the position reached.
    pub flags: Vec<(&'static str, bool)>,
}

impl Answer {
    /// The first view: the position with its own player to move.
    pub fn view(&self) -> &View {
        &self.views[0]
    }

    /// The value for the side to move.
    pub fn value(&self) -> Value {
        self.view().value
    }

    /// The best move's name, if there is a move.
    pub fn best_move(&self) -> Option<&str> {
        self.view().moves.first().map(|m| m.name.as_str())
    }

    /// The answer as one JSON object, lichess's shape for chess.
    pub fn to_json(&self) -> String {
        let head = format!(
            "{}:{}",
            json::string(self.key),
            json::string(&self.position)
        );
        match self.views.as_slice() {
            [view] if view.side.is_empty() => {
                format!("{{{head},{}}}", view.json_fields(self.game))
            }
            views => {
                let parts: Vec<String> = views
                    .iter()
                    .map(|v| format!("{}:{{{}}}", json::string(v.side), v.json_fields(self.game)))
                    .collect();
                format!("{{{head},{}}}", parts.join(","))
            }
        }
    }
}

impl View {
    fn json_fields(&self, game: &str) -> String {
        let chess = game == "chess";
        let mut out = value_fields(self.value, chess);
        flag_fields(&mut out, &self.flags);
        out.push_str(",\"moves\":[");
        for (i, m) in self.moves.iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            out.push('{');
            if chess {
                let _ = write!(out, "\"uci\":{}", json::string(&m.name));
                if let Some(san) = &m.san {
                    let _ = write!(out, ",\"san\":{}", json::string(san));
                }
            } else {
                let _ = write!(out, "\"move\":{}", json::string(&m.name));
            }
            let _ = write!(out, ",{}", value_fields(m.value, chess));
            flag_fields(&mut out, &m.flags);
            let key = if chess { "fen" } else { "position" };
            let _ = write!(
                out,
                ",{}:{}",
                json::string(key),
                m.after.as_deref().map_or("null".to_string(), json::string)
            );
            out.push('}');
        }
        out.push(']');
        out
    }
}

/// `category` and `dtm` (and, for chess, `dtz`, which retro does not compute: always `null`).
fn value_fields(value: Value, chess: bool) -> String {
    let mut out = format!(
        "\"category\":\"{}\",\"dtm\":{}",
        value.outcome(),
        json::optional(signed_dtm(value))
    );
    if chess {
        out.push_str(",\"dtz\":null");
    }
    out
}

fn flag_fields(out: &mut String, flags: &[(&'static str, bool)]) {
    for (flag, on) in flags {
        let _ = write!(out, ",{}:{on}", json::string(flag));
    }
}

/// The distance in plies, signed as lichess signs it: positive for a win, negative (or zero, when mated) for a
/// loss, none for a draw.
pub fn signed_dtm(value: Value) -> Option<i64> {
    let plies = i64::from(value.plies()?);
    Some(match value.outcome() {
        Outcome::Win => plies,
        _ => -plies,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample(game: &'static str) -> Answer {
        Answer {
            game,
            key: if game == "chess" { "fen" } else { "position" },
            position: "P".into(),
            views: vec![View {
                side: "",
                value: Value::win(3),
                flags: vec![("checkmate", false)],
                moves: vec![
                    MoveAnswer {
                        name: "a1a2".into(),
                        san: Some("Ra2".into()),
                        value: Value::loss(2),
                        after: Some("Q".into()),
                        flags: vec![],
                    },
                    MoveAnswer {
                        name: "a1a3".into(),
                        san: Some("Ra3".into()),
                        value: Value::DRAW,
                        after: None,
                        flags: vec![],
                    },
                ],
            }],
        }
    }

    #[test]
    fn chess_answers_take_lichess_shape() {
        assert_eq!(
            sample("chess").to_json(),
            "{\"fen\":\"P\",\"category\":\"win\",\"dtm\":3,\"dtz\":null,\"checkmate\":false,\"moves\":[\
             {\"uci\":\"a1a2\",\"san\":\"Ra2\",\"category\":\"loss\",\"dtm\":-2,\"dtz\":null,\"fen\":\"Q\"},\
             {\"uci\":\"a1a3\",\"san\":\"Ra3\",\"category\":\"draw\",\"dtm\":null,\"dtz\":null,\"fen\":null}]}"
        );
    }

    #[test]
    fn other_games_name_moves_and_positions() {
        let mut answer = sample("dobutsu");
        answer.views[0].moves.truncate(1);
        answer.views[0].moves[0].san = None;
        assert_eq!(
            answer.to_json(),
            "{\"position\":\"P\",\"category\":\"win\",\"dtm\":3,\"checkmate\":false,\"moves\":[\
             {\"move\":\"a1a2\",\"category\":\"loss\",\"dtm\":-2,\"position\":\"Q\"}]}"
        );
        assert_eq!(answer.best_move(), Some("a1a2"));
    }

    #[test]
    fn distances_are_signed_by_the_winner() {
        assert_eq!(signed_dtm(Value::win(5)), Some(5));
        assert_eq!(signed_dtm(Value::loss(4)), Some(-4));
        assert_eq!(signed_dtm(Value::loss(0)), Some(0));
        assert_eq!(signed_dtm(Value::DRAW), None);
    }
}
