//! One material's table as the retrograde engine sees it: [`ChessGame`] implements [`retro_game::Game`].
//!
//! Moves that keep the material land on indices of the table. Captures and promotions leave it: they are
//! [`Move::Exit`]s whose value is looked up in the smaller table of the material reached, through a [`SubTables`]
//! provider (tables solved earlier in the same run, or tables on disk). A capture of the last man other than the
//! kings reaches KvK, which is a draw. Checkmate is a terminal loss, stalemate a terminal draw.
//!
//! Two moves of one position may reach the same index (two symmetric images of one position). The engine counts
//! moves, so both directions fold such duplicates: [`Game::expand`] lists each target index once, and
//! [`Game::unmoves`] lists each predecessor index once. `p` has a move into the orbit of `q` exactly when `q`'s
//! canonical placement has an un-move into the orbit of `p`, so the two lists agree.
//!
//! En passant: the tables store positions without en-passant rights. A double push that gives the opponent a legal
//! en-passant capture reaches a position with those rights, which is not in the table; such materials (both sides
//! with pawns) are refused by [`ChessGame::new`] for now, see [`GameError::EnPassant`].

use retro_game::{Game, Index, Move, Node, Value};

use crate::index::TableIndex;
use crate::material::Material;
use crate::position::{MoveList, Position};
use crate::types::{Color, Role};

/// Values of the positions of smaller materials, for the exits of a table.
pub trait SubTables: Sync {
    /// Whether the table of `material` (canonical) is available.
    fn has(&self, material: Material) -> bool;

    /// The value of a legal position of an available material, for its side to move. `None` for a material that is
    /// not available.
    fn value(&self, pos: &Position) -> Option<Value>;
}

/// Why a table cannot be set up.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum GameError {
    #[error("table {needed} is needed by {table} but is not available")]
    MissingTable { table: Material, needed: Material },
    #[error(
        "{0}: both sides have pawns, so en passant can arise; such tables are not supported yet (positions with \
         en-passant rights would need indices of their own)"
    )]
    EnPassant(Material),
}

/// The table of one material, ready to be solved or checked.
pub struct ChessGame<'a, S: SubTables> {
    index: TableIndex,
    sub: &'a S,
    max_moves: u64,
}

impl<'a, S: SubTables> ChessGame<'a, S> {
    /// The table of `material` (any orientation; it is taken canonically), whose exits look into `sub`.
    pub fn new(material: Material, sub: &'a S) -> Result<ChessGame<'a, S>, GameError> {
        let material = material.canonical();
        if material.both_sides_have_pawns() {
            return Err(GameError::EnPassant(material));
        }
        for needed in material.successors() {
            if needed != Material::KVK && !sub.has(needed) {
                return Err(GameError::MissingTable {
                    table: material,
                    needed,
                });
            }
        }
        let max_moves = [Color::White, Color::Black]
            .into_iter()
            .map(|c| {
                let per_role = [
                    (Role::Pawn, 12),
                    (Role::Knight, 8),
                    (Role::Bishop, 13),
                    (Role::Rook, 14),
                    (Role::Queen, 27),
                ];
                8 + per_role
                    .iter()
                    .map(|&(r, n)| n * material.count(c, r) as u64)
                    .sum::<u64>()
            })
            .max()
            .unwrap_or(8);
        Ok(ChessGame {
            index: TableIndex::new(material),
            sub,
            max_moves,
        })
    }

    pub fn index(&self) -> &TableIndex {
        &self.index
    }

    pub fn material(&self) -> Material {
        self.index.material()
    }

    /// The value of the position a converting move reaches.
    #[inline]
    fn exit_value(&self, after: &Position) -> Value {
        if Material::of(after) == Material::KVK {
            return Value::DRAW;
        }
        self.sub.value(after).unwrap_or_else(|| {
            panic!(
                "table for {} was checked at construction but has no value for {}",
                Material::of(after),
                after.fen()
            )
        })
    }
}

/// Sorts a small list of indices and visits each distinct one once.
#[inline]
fn visit_distinct<F: FnMut(Index)>(list: &mut [Index], mut visit: F) {
    list.sort_unstable();
    let mut last = None;
    for &i in list.iter() {
        if last != Some(i) {
            visit(i);
            last = Some(i);
        }
    }
}

impl<S: SubTables> Game for ChessGame<'_, S> {
    fn size(&self) -> Index {
        self.index.size()
    }

    fn max_moves(&self) -> u64 {
        self.max_moves
    }

    fn expand<F: FnMut(Move)>(&self, index: Index, mut visit: F) -> Node {
        let Some(pos) = self.index.position(index) else {
            return Node::Hole;
        };
        let mut moves = MoveList::new();
        pos.legal_moves(&mut moves);
        if moves.is_empty() {
            return Node::Terminal(if pos.in_check(pos.turn()) {
                Value::loss(0)
            } else {
                Value::DRAW
            });
        }
        let mut targets = [0 as Index; MoveList::CAPACITY];
        let mut n = 0;
        for m in moves.as_slice() {
            let after = pos.play(m);
            if m.converts() {
                visit(Move::Exit(self.exit_value(&after)));
            } else {
                debug_assert!(
                    after.ep_square().is_none(),
                    "en passant in a table without pawns on both sides"
                );
                targets[n] = self.index.encode_oriented(&after);
                n += 1;
            }
        }
        visit_distinct(&mut targets[..n], |q| visit(Move::To(q)));
        Node::Playable
    }

    fn unmoves<F: FnMut(Index)>(&self, index: Index, visit: F) {
        let Some(pos) = self.index.position(index) else {
            return;
        };
        let mut sources = [0 as Index; MoveList::CAPACITY];
        let mut n = 0;
        pos.unmoves(|before| {
            sources[n] = self.index.encode_oriented(&before);
            n += 1;
        });
        visit_distinct(&mut sources[..n], visit);
    }
}

/// A source of solved values by index: an engine [`retro_engine::Solution`] or a table read from disk.
pub trait Values: Sync + Send {
    fn value(&self, index: Index) -> Option<Value>;
}

impl Values for retro_engine::Solution {
    fn value(&self, index: Index) -> Option<Value> {
        retro_engine::Solution::value(self, index)
    }
}

/// A table on disk, read through the probe library.
pub struct DiskValues(pub std::sync::Arc<retro_probe::Table>);

impl Values for DiskValues {
    /// Reads a value; the table's block checksums are checked when it is loaded for exits (see the CLI), so a read
    /// error here means the file changed under us, which is not recoverable in the middle of a solve.
    fn value(&self, index: Index) -> Option<Value> {
        self.0
            .probe(index)
            .unwrap_or_else(|e| panic!("{}: {e}", self.0.distance_file().path().display()))
    }
}

/// Sub-tables held in memory: the tables of this run, or tables loaded from disk, each with its index.
#[derive(Default)]
pub struct TableSet {
    tables: Vec<(TableIndex, Box<dyn Values>)>,
}

impl TableSet {
    pub fn new() -> TableSet {
        TableSet::default()
    }

    /// Adds the values of `material`'s table.
    pub fn insert(&mut self, material: Material, values: Box<dyn Values>) {
        let material = material.canonical();
        self.tables.retain(|(i, _)| i.material() != material);
        self.tables.push((TableIndex::new(material), values));
    }

    /// The index and values of a material's table, if held.
    pub fn get(&self, material: Material) -> Option<(&TableIndex, &dyn Values)> {
        let material = material.canonical();
        self.tables
            .iter()
            .find(|(i, _)| i.material() == material)
            .map(|(i, v)| (i, v.as_ref()))
    }

    /// The value of any legal position whose table is held (KvK is always a draw).
    pub fn probe(&self, pos: &Position) -> Option<Value> {
        let material = Material::of(pos);
        if material == Material::KVK {
            return Some(Value::DRAW);
        }
        let (index, values) = self.get(material)?;
        values.value(index.encode(pos)?)
    }
}

impl SubTables for TableSet {
    fn has(&self, material: Material) -> bool {
        material == Material::KVK || self.get(material).is_some()
    }

    fn value(&self, pos: &Position) -> Option<Value> {
        self.probe(pos)
    }
}
