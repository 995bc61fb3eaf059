//! Games given as graphs, as a retro family: `retro generate graph FILE`.
//!
//! A variant is one graph file; its one table is named by the file's stem and keeps the graph itself (with its
//! position names) as the table's payload, so that `probe`, `info` and `verify` need the table only: there the
//! variant is the table's name. Indices are those of [`GraphGame`]: the position for an impartial graph,
//! `2·position + mover` for a partizan one.
//!
//! A position is written `NAME POSITION` (the table, then the position's name), and for a partizan graph
//! optionally `NAME POSITION left` or `... right` for the player to move; `probe` shows a partizan position with
//! each player to move.

use std::hash::{Hash, Hasher};
use std::path::Path;
use std::sync::Arc;

use retro_family::{
    About, Blocks, Family, Flags, Game, Index, Location, Move, Node, Payloads, PlayConvention,
    Played, SubTables, Value,
};

use crate::{Format, Graph, GraphGame, ParseError, Player};

/// Graph games read from files.
pub struct Graphs;

/// One graph: the variant and its table.
#[derive(Clone, Debug)]
pub struct GraphTable {
    pub name: String,
    pub graph: Arc<Graph>,
    pub misere: bool,
}

impl PartialEq for GraphTable {
    fn eq(&self, other: &Self) -> bool {
        self.name == other.name && self.misere == other.misere
    }
}

impl Eq for GraphTable {}

impl Hash for GraphTable {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.name.hash(state);
        self.misere.hash(state);
    }
}

impl std::fmt::Display for GraphTable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.name)
    }
}

/// A position of a graph with a player to move (Left for an impartial graph).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GraphPosition {
    pub table: GraphTable,
    pub position: u32,
    pub mover: Player,
}

/// A graph table as the engine solves it: the graph's game, and the table it came from.
pub struct TableGame<'a> {
    table: &'a GraphTable,
    game: GraphGame<'a>,
}

impl Game for TableGame<'_> {
    fn size(&self) -> Index {
        self.game.size()
    }
    fn max_moves(&self) -> u64 {
        self.game.max_moves()
    }
    #[inline]
    fn expand<F: FnMut(Move)>(&self, index: Index, visit: F) -> Node {
        self.game.expand(index, visit)
    }
    #[inline]
    fn count_moves<F: FnMut(Value)>(&self, index: Index, exit: F) -> (Node, u64) {
        self.game.count_moves(index, exit)
    }
    #[inline]
    fn unmoves<F: FnMut(Index)>(&self, index: Index, visit: F) {
        self.game.unmoves(index, visit)
    }
}

/// Reads a graph file (an edge list when `edges`); a parse error says which file.
pub fn read_graph(path: &Path, edges: bool) -> Result<Graph, String> {
    let format = if edges { Format::Edges } else { Format::Text };
    Graph::read(path, format).map_err(|e| match e {
        // An I/O message names the file already.
        ParseError::Io { .. } => e.to_string(),
        _ => format!("{}: {e}", path.display()),
    })
}

/// The stem of a file name, which names its table.
fn stem(path: &Path) -> Result<String, String> {
    path.file_stem()
        .and_then(|s| s.to_str())
        .map(str::to_owned)
        .ok_or_else(|| format!("{}: the file name has no usable stem", path.display()))
}

impl Family for Graphs {
    type Variant = GraphTable;
    type Table = GraphTable;
    type Position = GraphPosition;
    type Move = String;
    type Game<'a> = TableGame<'a>;

    fn about(&self) -> About {
        About {
            name: "graph",
            summary: "a game given as a graph file (impartial or partizan; --edges for an edge list, --misere)",
            variants: "FILE to generate (the table is named by its stem); NAME (the stem) for info and verify",
            example_variant: "crates/graph/data/figure.txt",
            example_position: "figure top",
            position_key: "position",
            move_key: "to",
        }
    }

    fn parse_variant(&self, words: &[String], flags: &Flags) -> Result<GraphTable, String> {
        let [file] = words else {
            return Err("graph takes one graph file".into());
        };
        let path = Path::new(file);
        let name = stem(path)?;
        let graph = read_graph(path, flags.edges)?;
        Ok(GraphTable {
            name,
            graph: Arc::new(graph),
            misere: flags.misere,
        })
    }

    fn open_variant(
        &self,
        words: &[String],
        payloads: &dyn Payloads,
    ) -> Result<GraphTable, String> {
        let [word] = words else {
            return Err("graph takes the name of one table".into());
        };
        // The file's path names its table too.
        let name = if word.contains(['/', '.']) {
            stem(Path::new(word))?
        } else {
            word.clone()
        };
        let graph = Graph::from_bytes(&payloads.payload(&name)?)
            .map_err(|e| format!("graph {name}: stored graph: {e}"))?;
        let params = payloads.params(&name)?;
        let misere = match params.iter().find(|(k, _)| k == "convention") {
            None => false,
            Some((_, v)) if v == "normal" => false,
            Some((_, v)) if v == "misere" => true,
            Some((_, v)) => return Err(format!("graph {name}: unknown play convention {v:?}")),
        };
        Ok(GraphTable {
            name,
            graph: Arc::new(graph),
            misere,
        })
    }

    fn tables(&self, variant: &GraphTable) -> Vec<GraphTable> {
        vec![variant.clone()]
    }

    fn dependencies(&self, _: &GraphTable) -> Vec<GraphTable> {
        Vec::new()
    }

    fn table_name(&self, table: &GraphTable) -> String {
        table.name.clone()
    }

    fn params(&self, table: &GraphTable) -> Vec<(String, String)> {
        let graph = &table.graph;
        vec![
            (
                "convention".into(),
                if table.misere { "misere" } else { "normal" }.into(),
            ),
            (
                "kind".into(),
                if graph.is_partizan() {
                    "partizan"
                } else {
                    "impartial"
                }
                .into(),
            ),
            ("positions".into(), graph.positions().to_string()),
            ("moves".into(), graph.moves().to_string()),
        ]
    }

    fn sides(&self, table: &GraphTable) -> Vec<&'static str> {
        if table.graph.is_partizan() {
            vec!["left", "right"]
        } else {
            vec!["all"]
        }
    }

    fn side_of<'a>(&'a self, table: &GraphTable) -> Box<dyn Fn(Index) -> usize + Sync + 'a> {
        if table.graph.is_partizan() {
            Box::new(|i| (i & 1) as usize)
        } else {
            Box::new(|_| 0)
        }
    }

    fn payload(&self, table: &GraphTable) -> Vec<u8> {
        table.graph.to_bytes()
    }

    fn blocks(&self, _: &GraphTable) -> Blocks {
        // Graph tables carry their graph as payload: spend no time squeezing their distances harder.
        Blocks {
            wdl_values: None,
            fast_distances: true,
            ..Blocks::default()
        }
    }

    fn convention(&self, table: &GraphTable) -> PlayConvention {
        if table.misere {
            PlayConvention::Misere
        } else {
            PlayConvention::Normal
        }
    }

    fn game<'a>(
        &'a self,
        table: &'a GraphTable,
        _: &'a SubTables<'a, GraphTable>,
    ) -> Result<TableGame<'a>, String> {
        Ok(TableGame {
            table,
            game: table.graph.game(),
        })
    }

    fn parse_position(&self, text: &str, payloads: &dyn Payloads) -> Result<GraphPosition, String> {
        let words: Vec<&str> = text.split_whitespace().collect();
        let (name, position, mover) = match words[..] {
            [name, position] => (name, position, None),
            [name, position, mover] => (name, position, Some(mover)),
            _ => {
                return Err(
                    "a graph position is the table's name and a position: NAME POSITION [left|right]".into(),
                );
            }
        };
        let table = self.open_variant(&[name.to_string()], payloads)?;
        let Some(p) = table.graph.lookup(position) else {
            return Err(format!("graph {name} has no position named {position:?}"));
        };
        let mover = match mover {
            None | Some("left") => Player::Left,
            Some("right") if table.graph.is_partizan() => Player::Right,
            Some(other) => {
                return Err(format!(
                    "graph {name}: {other:?} is not a player to move here (left{})",
                    if table.graph.is_partizan() {
                        " or right"
                    } else {
                        ""
                    }
                ));
            }
        };
        Ok(GraphPosition {
            table,
            position: p,
            mover,
        })
    }

    fn show_position(&self, pos: &GraphPosition) -> String {
        let name = pos.table.graph.name(pos.position);
        if pos.table.graph.is_partizan() {
            let mover = if pos.mover == Player::Left {
                "left"
            } else {
                "right"
            };
            format!("{} {name} {mover}", pos.table.name)
        } else {
            format!("{} {name}", pos.table.name)
        }
    }

    fn label(&self, pos: &GraphPosition) -> String {
        pos.table.graph.name(pos.position).to_string()
    }

    fn locate(&self, pos: &GraphPosition) -> Result<Location<GraphTable>, String> {
        Ok(Location::Stored {
            table: pos.table.clone(),
            index: pos.table.graph.game().index(pos.position, pos.mover),
        })
    }

    fn position(&self, game: &TableGame<'_>, index: Index) -> Option<GraphPosition> {
        if index >= game.size() {
            return None;
        }
        let (position, mover) = game.game.position(index);
        Some(GraphPosition {
            table: game.table.clone(),
            position,
            mover,
        })
    }

    fn moves(&self, pos: &GraphPosition) -> Vec<(String, Played<GraphPosition>)> {
        let graph = &pos.table.graph;
        let mut seen = std::collections::HashSet::new();
        let mut moves = Vec::new();
        // A repeated option is listed once, in file order.
        for &q in graph.options(pos.position, pos.mover) {
            if seen.insert(q) {
                let after = GraphPosition {
                    table: pos.table.clone(),
                    position: q,
                    mover: pos.mover.other(),
                };
                moves.push((graph.name(q).to_string(), Played::Position(after)));
            }
        }
        moves
    }

    fn views(&self, pos: &GraphPosition) -> Vec<(&'static str, GraphPosition)> {
        if pos.table.graph.is_partizan() {
            [("left", Player::Left), ("right", Player::Right)]
                .into_iter()
                .map(|(word, mover)| {
                    (
                        word,
                        GraphPosition {
                            mover,
                            ..pos.clone()
                        },
                    )
                })
                .collect()
        } else {
            vec![("", pos.clone())]
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use retro_family::contract;

    /// The payload and parameters of one graph, as a directory of tables would give them.
    struct One(GraphTable);

    impl Payloads for One {
        fn payload(&self, name: &str) -> Result<Vec<u8>, String> {
            if name == self.0.name {
                Ok(self.0.graph.to_bytes())
            } else {
                Err(format!("no table {name} here"))
            }
        }
        fn params(&self, name: &str) -> Result<Vec<(String, String)>, String> {
            self.payload(name)?;
            Ok(Graphs.params(&self.0))
        }
    }

    fn table(name: &str, text: &str) -> GraphTable {
        let dir = std::env::temp_dir().join(format!("retro-graph-family-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join(format!("{name}.txt"));
        std::fs::write(&file, text).unwrap();
        let variant = Graphs
            .parse_variant(&[file.display().to_string()], &Flags::default())
            .unwrap();
        std::fs::remove_file(&file).unwrap();
        variant
    }

    #[test]
    fn the_contract_holds_for_impartial_and_partizan_graphs() {
        for (name, text) in [
            ("g", "a : b c d d\nb : end\nc : a\nd : b\nend :\n"),
            ("p", "a : end b | b\nb : a | a end\nend : |\n"),
        ] {
            let t = table(name, text);
            let checked = contract::check(&Graphs, &t, u64::MAX, &One(t.clone())).unwrap();
            assert_eq!(
                checked.positions,
                t.graph.positions() * if t.graph.is_partizan() { 2 } else { 1 }
            );
        }
    }

    #[test]
    fn positions_read_back_and_bad_ones_are_named() {
        let t = table("p", "a : end | \nend : |\n");
        let payloads = One(t.clone());
        let pos = Graphs.parse_position("p a right", &payloads).unwrap();
        assert_eq!(Graphs.show_position(&pos), "p a right");
        assert_eq!(Graphs.label(&pos), "a");
        assert_eq!(
            Graphs.parse_position("p zz", &payloads).unwrap_err(),
            "graph p has no position named \"zz\""
        );
        assert!(Graphs.parse_position("p", &payloads).is_err());
        assert!(
            Graphs
                .parse_position("p a up", &payloads)
                .unwrap_err()
                .contains("\"up\"")
        );
        assert!(Graphs.parse_position("q a", &payloads).is_err());
        let missing = Graphs.parse_variant(&["/nonexistent/x.txt".into()], &Flags::default());
        assert!(missing.unwrap_err().contains("/nonexistent/x.txt"));
    }
}
