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
//! en-passant capture reaches a position with those rights, whose value differs from the same placement without
//! them; the game numbers such positions after the table's indices (the [`EpIndex`] region, empty unless both sides
//! have pawns). Their moves are the ordinary ones plus the en-passant capture (an exit); their one un-move is the
//! double push, from the placement without rights or from any of its twins with rights. Only the table's own
//! indices, `0..index().size()`, are written to its files.

pub use retro_game::Values;
use std::ops::Range;

use retro_game::{Game, Index, Inside, Move, Node, Outcome, Surveyor, Value};

use crate::ep::EpIndex;
use crate::index::TableIndex;
use crate::material::Material;
use crate::position::{ChessMove, Position, Unmove};
use crate::types::{Bitboard, Color, Role};

/// Values of the positions of smaller materials, for the exits of a table.
pub trait SubTables: Sync {
    /// Whether the table of `material` (canonical) is available.
    fn has(&self, material: Material) -> bool;

    /// The value of a legal position of an available material, for its side to move. `None` for a material that is
    /// not available.
    fn value(&self, pos: &Position) -> Option<Value>;

    /// The index and values of an available material's table (canonical), for lookups without searching.
    fn table(&self, material: Material) -> Option<(&TableIndex, &dyn Values)>;
}

/// Where the positions reached by one kind of converting move are looked up.
#[derive(Clone, Copy)]
enum ExitTable<'a> {
    /// The bare kings: a draw.
    Draw,
    /// A table, in which the position is looked up with colours exchanged when `flip` (its material is the
    /// canonical one with the sides swapped).
    Table {
        /// The table's index, in [`ChessGame::exit_indices`].
        index: u8,
        values: &'a dyn Values,
        flip: bool,
    },
}

/// Why a table cannot be set up.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum GameError {
    #[error("table {needed} is needed by {table} but is not available")]
    MissingTable { table: Material, needed: Material },
}

/// The table of one material, ready to be solved or checked.
pub struct ChessGame<'a> {
    index: TableIndex,
    /// The positions with en-passant rights, numbered from `index.size()` on.
    ep: EpIndex,
    max_moves: u64,
    /// The table each converting move exits into, by mover, role taken (`Role::King` for none) and promotion
    /// (`Role::Pawn` for none), found once here rather than for every move.
    exits: [[[Option<ExitTable<'a>>; 6]; 6]; 2],
    /// The indices of the tables the exits look into (owned, so that the values alone need to outlive the game).
    exit_indices: Vec<TableIndex>,
    /// Whether moves of pieces other than the kings may be encoded the quick way: see [`ChessGame::expand`].
    quick: bool,
    /// The longest win or loss of the tables the exits look into.
    longest_exit: u32,
    /// The side to move whose positions [`survey`](Game::survey) leaves uncounted: the stronger side, whose
    /// positions are mostly won through one move (none for equal material).
    uncounted: Option<Color>,
}

impl<'a> ChessGame<'a> {
    /// The table of `material` (any orientation; it is taken canonically), whose exits look into `sub`.
    pub fn new<S: SubTables>(material: Material, sub: &'a S) -> Result<ChessGame<'a>, GameError> {
        ChessGame::with_values(material, |needed| {
            sub.table(needed).map(|(_, values)| values)
        })
    }

    /// The table of `material`, whose exits read the values `values` gives for each canonical material it needs.
    pub fn with_values(
        material: Material,
        values: impl Fn(Material) -> Option<&'a dyn Values>,
    ) -> Result<ChessGame<'a>, GameError> {
        let material = material.canonical();
        for needed in material.successors() {
            if needed != Material::KVK && values(needed).is_none() {
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
        let mut exits = [[[None; 6]; 6]; 2];
        let mut exit_indices: Vec<TableIndex> = Vec::new();
        let none_or = |roles: &[Role]| -> Vec<Option<Role>> {
            std::iter::once(None)
                .chain(roles.iter().copied().map(Some))
                .collect()
        };
        for mover in [Color::White, Color::Black] {
            for &taken in &none_or(&Role::NON_KING) {
                for &promoted in &none_or(&Role::PROMOTIONS) {
                    let Some(after) = material.after_conversion(mover, taken, promoted) else {
                        continue;
                    };
                    let exit = if after == Material::KVK {
                        ExitTable::Draw
                    } else {
                        let needed = after.canonical();
                        let values = values(needed).ok_or(GameError::MissingTable {
                            table: material,
                            needed,
                        })?;
                        let index = match exit_indices.iter().position(|i| i.material() == needed) {
                            Some(i) => i,
                            None => {
                                exit_indices.push(TableIndex::new(needed));
                                exit_indices.len() - 1
                            }
                        };
                        ExitTable::Table {
                            index: index as u8,
                            values,
                            flip: !after.is_canonical(),
                        }
                    };
                    exits[mover.index()][exit_slot(taken, Role::King)]
                        [exit_slot(promoted, Role::Pawn)] = Some(exit);
                }
            }
        }
        let longest_exit = exits
            .iter()
            .flatten()
            .flatten()
            .filter_map(|exit| match exit {
                Some(ExitTable::Table { values, .. }) => Some(values.longest_plies()),
                _ => None,
            })
            .max()
            .unwrap_or(0);
        let index = TableIndex::new(material);
        // The men's usual values in pawns, which tell the stronger side well enough here.
        let points = |c: Color| -> u32 {
            [
                (Role::Pawn, 1),
                (Role::Knight, 3),
                (Role::Bishop, 3),
                (Role::Rook, 5),
                (Role::Queen, 9),
            ]
            .iter()
            .map(|&(r, v)| v * u32::from(material.count(c, r)))
            .sum()
        };
        let uncounted = match points(Color::White).cmp(&points(Color::Black)) {
            std::cmp::Ordering::Greater => Some(Color::White),
            std::cmp::Ordering::Less => Some(Color::Black),
            std::cmp::Ordering::Equal => None,
        };
        Ok(ChessGame {
            longest_exit,
            uncounted,
            ep: EpIndex::new(&index),
            index,
            max_moves,
            exits,
            exit_indices,
            // Not with en passant (a double push may reach the en-passant region), nor for a symmetric material,
            // whose Black-to-move targets are numbered through the colour flip, which changes the king pair.
            quick: !material.both_sides_have_pawns() && !material.is_symmetric(),
        })
    }

    pub fn index(&self) -> &TableIndex {
        &self.index
    }

    pub fn material(&self) -> Material {
        self.index.material()
    }

    /// The positions with en-passant rights, numbered after the table's indices (not stored in the table).
    pub fn ep_index(&self) -> &EpIndex {
        &self.ep
    }

    /// The position at any index of the game: a table position, or one of the en-passant region; `None` for a hole.
    #[inline]
    pub fn position(&self, index: Index) -> Option<Position> {
        let table = self.index.size();
        if index < table {
            self.index.position(index)
        } else {
            Some(self.ep.position(&self.index, index - table))
        }
    }

    /// The index of a legal position of this material (White the first side), with or without en-passant rights.
    #[inline]
    pub fn encode(&self, pos: &Position) -> Index {
        if pos.ep_square().is_some() {
            self.index.size() + self.ep.encode(&self.index, pos)
        } else {
            self.index.encode_oriented(pos)
        }
    }

    /// Visits the index of `before`, a predecessor without en-passant rights, and of each of its twins with them:
    /// a move made from the placement is made from the twins too.
    #[inline]
    fn visit_predecessor(&self, before: &Position, mut visit: impl FnMut(Index)) {
        visit(self.index.encode_oriented(before));
        if !self.ep.is_empty() {
            let table = self.index.size();
            before.visit_with_ep_rights(|with| visit(table + self.ep.encode(&self.index, &with)));
        }
    }

    /// [`Game::count_moves`] of `pos`, the position at `index`.
    #[inline]
    fn count_moves_of<F: FnMut(Value)>(
        &self,
        index: Index,
        pos: &Position,
        mut exit: F,
    ) -> (Node, u64) {
        let (white_king, black_king) = (pos.king(Color::White), pos.king(Color::Black));
        // With both kings on the diagonal, two moves may reach reflections of each other, one index: only a position
        // nearly its own reflection has such twins, and only those are expanded (expanding every position of these
        // king pairs took about 1.3 s of KQRvKR's 10.6 s first pass).
        if !self.quick
            || (self.index.kings_on_axis(white_king, black_king) && pos.diagonal_asymmetry() <= 4)
        {
            return retro_game::count_by_expanding(self, index, exit);
        }
        let us = pos.turn();
        let mut converts = false;
        // The quiet moves are counted, the king's by their squares; captures and promotions leave the table.
        let (others, king_steps) = pos.count_quiet_visit_conversions(|m| {
            converts = true;
            exit(self.exit_value(pos, &m));
        });
        let mut inside = others + u64::from(king_steps.count());
        if !converts && inside == 0 {
            return (no_move_node(pos), 0);
        }
        // King moves that keep the king pair's number (a symmetric image of the kings' placement).
        let (king, other_king) = match us {
            Color::White => (white_king, black_king),
            Color::Black => (black_king, white_king),
        };
        let same_pair = king_steps & self.index.pair_keeping_steps(us, king, other_king);
        if same_pair.nonempty() {
            // Rare: name the other men's targets, and fold each such king move that reaches one of them.
            let digits = self.index.digits(index, pos);
            let mut others = [0 as Index; QUIET_CAPACITY];
            let mut n = 0;
            pos.visit_legal_moves(|m| {
                if !m.converts() && m.role != Role::King {
                    let squares =
                        Bitboard(pos.by_piece(us, m.role).0 ^ m.from.bb().0 ^ m.to.bb().0);
                    others[n] = self.index.after_quiet_move(&digits, us, m.role, squares);
                    n += 1;
                }
            });
            for to in same_pair {
                let target = self
                    .index
                    .encode_oriented(&pos.after_quiet(Role::King, king, to));
                if others[..n].contains(&target) {
                    inside -= 1;
                }
            }
        }
        (Node::Playable, inside)
    }

    /// [`Game::survey`] of `pos`, the position at `index`: see there.
    #[inline]
    fn survey_of<F: FnMut(Value)>(
        &self,
        index: Index,
        pos: &Position,
        mut exit: F,
    ) -> (Node, Inside) {
        // A position with en-passant rights is counted: `visit_conversions` leaves out the capture en passant.
        if self.uncounted != Some(pos.turn()) || pos.ep_square().is_some() {
            let (node, inside) = self.count_moves_of(index, pos, exit);
            return (node, Inside::Counted(inside));
        }
        let mut converts = false;
        let quiet = pos.visit_conversions_find_quiet(|m| {
            converts = true;
            exit(self.exit_value(pos, &m));
        });
        if quiet {
            (Node::Playable, Inside::Uncounted)
        } else if converts {
            (Node::Playable, Inside::Counted(0))
        } else {
            (no_move_node(pos), Inside::Counted(0))
        }
    }

    /// The value of the position a converting move of `pos` reaches.
    #[inline]
    fn exit_value(&self, pos: &Position, m: &ChessMove) -> Value {
        let slot = self.exits[pos.turn().index()][exit_slot(m.capture, Role::King)]
            [exit_slot(m.promotion, Role::Pawn)];
        match slot.expect("every converting move of the material has its table") {
            ExitTable::Draw => Value::DRAW,
            ExitTable::Table {
                index,
                values,
                flip,
            } => {
                let after = pos.play(m);
                let after = if flip { after.color_flipped() } else { after };
                values
                    .value(self.exit_indices[usize::from(index)].encode_oriented(&after))
                    .expect("a legal position is not a hole of its table")
            }
        }
    }
}

/// More than the quiet moves (or un-moves) of any position of up to six men: four queens and a king make 116.
const QUIET_CAPACITY: usize = 128;

/// Where an optional role sits in [`ChessGame`]'s table of exits: its own index, or `none`'s.
#[inline]
fn exit_slot(role: Option<Role>, none: Role) -> usize {
    role.unwrap_or(none).index()
}

/// Visits each of `kings` (targets of king moves) that is not among `others` (targets of the other moves, distinct
/// from each other), for a position whose kings fix the board's orientation. Different moves reach different
/// placements; two of them share an index only when one is a symmetric image of the other. A symmetry that maps a
/// king move's target onto another move's target maps the king pairs onto each other, so only targets with the
/// position's own pair digit are looked for among `others`. Two king moves cannot reach twins here: the symmetry
/// would fix the other king and have the moving king's two targets, both next to its square, as mirror images,
/// which puts both kings on one diagonal: the case this quick path leaves out.
#[inline]
fn visit_distinct_kings<F: FnMut(Index)>(
    table: &TableIndex,
    kings: &[Index],
    others: &[Index],
    own_pair: u64,
    mut visit: F,
) {
    for (k, &target) in kings.iter().enumerate() {
        debug_assert!(!kings[..k].contains(&target), "two king moves reach twins");
        if table.pair_of(target) == own_pair && others.contains(&target) {
            continue;
        }
        visit(target);
    }
}

/// A position whose side to move has no legal move: checkmate (lost now) or stalemate (a draw).
#[inline]
fn no_move_node(pos: &Position) -> Node {
    Node::Terminal(if pos.in_check(pos.turn()) {
        Value::loss(0)
    } else {
        Value::DRAW
    })
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

impl Game for ChessGame<'_> {
    fn size(&self) -> Index {
        self.index.size() + self.ep.len()
    }

    fn max_moves(&self) -> u64 {
        self.max_moves
    }

    fn longest_exit(&self) -> u32 {
        self.longest_exit
    }

    /// White to move, then Black, where the index numbers both (a symmetric material numbers White to move only).
    /// The positions with en-passant rights are outside both ranges.
    fn turns(&self) -> Option<[std::ops::Range<Index>; 2]> {
        let half = self.index.size() / self.index.sides();
        (self.index.sides() == 2).then(|| [0..half, half..self.index.size()])
    }

    /// The moves of a position. Two moves may reach the same index only when they reach images of one position
    /// under a symmetry, and the targets are folded to one. Quick path: when the kings fix the board's orientation
    /// (they are not both on the long diagonal), the moves of the other pieces keep the king pair and reach distinct
    /// canonical placements, so only king moves need looking for twins.
    fn expand<F: FnMut(Move)>(&self, index: Index, mut visit: F) -> Node {
        let Some(pos) = self.position(index) else {
            return Node::Hole;
        };
        let quick = self.quick
            && !self
                .index
                .kings_on_axis(pos.king(Color::White), pos.king(Color::Black));
        // The digits serve only the quick path (an index of the en-passant region has none).
        let digits = quick.then(|| self.index.digits(index, &pos));
        let us = pos.turn();
        // Quiet moves of other men from the front, the rest from the back: one array, zeroed once.
        let mut targets = [0 as Index; QUIET_CAPACITY];
        let (mut n_others, mut n_kings) = (0, 0);
        let mut any = false;
        pos.visit_legal_moves(|m| {
            any = true;
            if m.converts() {
                visit(Move::Exit(self.exit_value(&pos, &m)));
            } else if let Some(digits) = &digits
                && m.role != Role::King
            {
                let squares = Bitboard(pos.by_piece(us, m.role).0 ^ m.from.bb().0 ^ m.to.bb().0);
                targets[n_others] = self.index.after_quiet_move(digits, us, m.role, squares);
                n_others += 1;
            } else {
                n_kings += 1;
                targets[QUIET_CAPACITY - n_kings] = if let Some(digits) = &digits {
                    self.index
                        .after_king_move(digits, &pos, us, m.from, m.to)
                        .unwrap_or_else(|| {
                            self.index
                                .encode_oriented(&pos.after_quiet(m.role, m.from, m.to))
                        })
                } else {
                    // A double push may reach the en-passant region.
                    self.encode(&pos.play(&m))
                };
            }
        });
        if !any {
            return no_move_node(&pos);
        }
        let (others, rest) = targets.split_at_mut(n_others);
        let kings = &mut rest[QUIET_CAPACITY - n_others - n_kings..];
        for &target in others.iter() {
            visit(Move::To(target));
        }
        if quick {
            let own_pair = self.index.pair_of(index);
            visit_distinct_kings(&self.index, kings, others, own_pair, |q| visit(Move::To(q)));
        } else {
            visit_distinct(kings, |q| visit(Move::To(q)));
        }
        Node::Playable
    }

    /// The moves of a position counted without naming their targets where [`expand`](Game::expand)'s quick path
    /// allows: the other men's quiet moves reach distinct indices, and a king move reaches an index distinct from
    /// all of them unless its king pair is the position's own, which the pair table tells without encoding. Only
    /// then are the targets named, to fold a twin exactly as `expand` does.
    fn count_moves<F: FnMut(Value)>(&self, index: Index, exit: F) -> (Node, u64) {
        let Some(pos) = self.position(index) else {
            return (Node::Hole, 0);
        };
        self.count_moves_of(index, &pos, exit)
    }

    /// The stronger side's positions are surveyed without counting their moves: only their captures and
    /// promotions are generated, and whether they have another move is told by the king's steps or one free square
    /// of another man ([`Position::visit_conversions_find_quiet`]). Most of them are won
    /// through one move before any of their moves is refuted, and are never counted. The weaker side's positions
    /// are mostly lost, each move refuted in turn: they are counted at once, rather than decoded a second time to
    /// be counted later.
    fn survey<F: FnMut(Value)>(&self, index: Index, exit: F) -> (Node, Inside) {
        match self.position(index) {
            Some(pos) => self.survey_of(index, &pos, exit),
            None => (Node::Hole, Inside::Counted(0)),
        }
    }

    /// The positions without en-passant rights are decoded a row at a time ([`TableIndex::visit_positions`]).
    fn survey_each<S: Surveyor>(&self, range: Range<Index>, surveyor: &mut S) {
        let table = self.index.size();
        self.index.visit_positions(
            range.start.min(table)..range.end.min(table),
            |index, pos| {
                let (node, inside) = match pos {
                    Some(pos) => self.survey_of(index, &pos, |v| surveyor.exit(v)),
                    None => (Node::Hole, Inside::Counted(0)),
                };
                surveyor.surveyed(index, node, inside);
            },
        );
        for index in range.start.max(table)..range.end {
            let (node, inside) = self.survey(index, |v| surveyor.exit(v));
            surveyor.surveyed(index, node, inside);
        }
    }

    /// The best outcome of the captures and promotions alone: no quiet move is looked at, and none at all when no
    /// enemy man is attacked and no pawn is about to promote ([`Position::may_convert`]). The writer of a WDL file of
    /// floors asks it of every position whose floor would continue a run: through `count_moves` that was half of
    /// KQRvKR's writing time.
    fn best_exit(&self, index: Index) -> Outcome {
        let Some(pos) = self.position(index) else {
            return Outcome::Loss;
        };
        if pos.ep_square().is_some() {
            // An en-passant capture takes a man that is not attacked where it stands: count every move.
            return retro_game::best_exit_by_counting(self, index);
        }
        let mut best = Outcome::Loss;
        pos.visit_conversions(|m| {
            if best != Outcome::Win {
                // The exit's value is for the side to move after it.
                best = best.max(self.exit_value(&pos, &m).outcome().flip());
            }
        });
        if best == Outcome::Loss && pos.is_stalemate() {
            // A terminal position: the rules make it a draw (a checkmate's loss is already the floor).
            return Outcome::Draw;
        }
        best
    }

    /// The predecessors of a position, folded like [`expand`](Game::expand)'s targets.
    fn unmoves<F: FnMut(Index)>(&self, index: Index, mut visit: F) {
        // An index of the en-passant region is never on the quick path (en passant needs pawns on both sides).
        if !self.quick || index >= self.index.size() {
            if let Some(pos) = self.position(index) {
                self.unmoves_encoded(&pos, visit);
            }
            return;
        }
        let Some((pos, digits)) = self.index.position_with_digits(index) else {
            return;
        };
        if self
            .index
            .kings_on_axis(pos.king(Color::White), pos.king(Color::Black))
        {
            return self.unmoves_encoded(&pos, visit);
        }
        // The quick path: the index of a predecessor comes from this position's digits, the moved man's alone.
        let mover = pos.turn().other();
        let own_pair = self.index.pair_of(index);
        // The targets of king un-moves, which come first (at most eight: no twins with en-passant rights here), and
        // whether one of them has this position's own king pair: only such a target can be an image of another
        // man's un-move (see `visit_distinct_kings`), which is then visited as that un-move's alone.
        let mut kings = [0 as Index; 8];
        let mut n_kings = 0;
        let mut own_pair_reached = false;
        pos.visit_unmove_origins(|role, to, origins| {
            if role == Role::King {
                for from in origins {
                    let mut push = |i: Index| {
                        own_pair_reached |= self.index.pair_of(i) == own_pair;
                        kings[n_kings] = i;
                        n_kings += 1;
                    };
                    match self.index.after_king_move(&digits, &pos, mover, to, from) {
                        Some(i) => push(i),
                        None => {
                            self.visit_predecessor(&pos.before(&Unmove { role, from, to }), push)
                        }
                    }
                }
                return;
            }
            let group = pos.by_piece(mover, role);
            self.index
                .visit_after_quiet_moves(&digits, mover, role, group, to, origins, |i| {
                    if own_pair_reached
                        && let Some(twin) = kings[..n_kings].iter_mut().find(|k| **k == i)
                    {
                        *twin = NOT_A_TARGET;
                    }
                    visit(i);
                });
        });
        for &target in &kings[..n_kings] {
            if target != NOT_A_TARGET {
                visit(target);
            }
        }
    }
}

/// A king un-move's target found to be another un-move's too, and visited as that one's.
const NOT_A_TARGET: Index = Index::MAX;

impl ChessGame<'_> {
    /// The predecessors of `pos` (folded like [`expand`](Game::expand)'s targets), each position built and
    /// encoded: where the kings leave the board's orientation open, or en passant is possible.
    fn unmoves_encoded<F: FnMut(Index)>(&self, pos: &Position, visit: F) {
        // Each predecessor comes with its twins with en-passant rights, at most one per pawn of the side to move
        // here: up to 6 men, under 8 + 27 + 27 + 2 = 64 predecessors with one twin (one such pawn), or 37 with two,
        // which the capacity holds.
        let mut targets = [0 as Index; QUIET_CAPACITY];
        let mut n = 0;
        let mut push = |i: Index| {
            targets[n] = i;
            n += 1;
        };
        if pos.ep_square().is_some() {
            // Rights come only from the double push that was just played.
            if let Some(before) = pos.undo_double_push() {
                self.visit_predecessor(&before, push);
            }
        } else {
            pos.visit_unmoves(|u| self.visit_predecessor(&pos.before(&u), &mut push));
        }
        visit_distinct(&mut targets[..n], visit);
    }
}

/// The longest win or loss recorded in a table file's header.
pub fn longest_in_header(table: &retro_probe::Table) -> u32 {
    table
        .meta()
        .sides
        .iter()
        .flat_map(|side| [side.longest_win, side.longest_loss])
        .flatten()
        .max()
        .unwrap_or(0)
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

    fn longest_plies(&self) -> u32 {
        longest_in_header(&self.0)
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

    /// Keeps only the tables whose material `keep` accepts.
    pub fn retain(&mut self, mut keep: impl FnMut(Material) -> bool) {
        self.tables.retain(|(i, _)| keep(i.material()));
    }

    /// The index and values of a material's table, if held.
    pub fn get(&self, material: Material) -> Option<(&TableIndex, &dyn Values)> {
        let material = material.canonical();
        self.tables
            .iter()
            .find(|(i, _)| i.material() == material)
            .map(|(i, v)| (i, v.as_ref()))
    }

    /// The bytes of memory the tables held take.
    pub fn resident_bytes(&self) -> u64 {
        self.tables.iter().map(|(_, v)| v.resident_bytes()).sum()
    }

    /// The value of any legal position whose table is held (KvK is always a draw). A position with en-passant rights
    /// is valued from its moves (see [`crate::analysis::value_of`]).
    pub fn probe(&self, pos: &Position) -> Option<Value> {
        let material = Material::of(pos);
        if material == Material::KVK {
            return Some(Value::DRAW);
        }
        if pos.ep_square().is_some() {
            return crate::analysis::value_of(pos, &|p: &Position| self.probe(p).ok_or(())).ok();
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

    fn table(&self, material: Material) -> Option<(&TableIndex, &dyn Values)> {
        self.get(material)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Values that call every exit a draw: enough to check how the table's own indices connect.
    struct Draws;

    impl Values for Draws {
        fn value(&self, _: Index) -> Option<Value> {
            Some(Value::DRAW)
        }
    }

    /// Every table `material` exits into, all draws.
    fn all_draws(material: Material) -> TableSet {
        let mut set = TableSet::new();
        for needed in material.canonical().successors() {
            if needed != Material::KVK {
                set.insert(needed, Box::new(Draws));
            }
        }
        set
    }

    fn targets(game: &ChessGame<'_>, i: Index) -> (Node, Vec<Index>) {
        let mut out = Vec::new();
        let node = game.expand(i, |m| {
            if let Move::To(j) = m {
                out.push(j);
            }
        });
        (node, out)
    }

    fn sources(game: &ChessGame<'_>, i: Index) -> Vec<Index> {
        let mut out = Vec::new();
        game.unmoves(i, |j| out.push(j));
        out
    }

    /// The engine's contract at `i`: `unmoves(q)` visits `p` exactly as often as `expand(p)` visits `To(q)`,
    /// checked from `i` in both directions; holes are visited by neither. Returns the number of moves checked.
    fn check_contract(game: &ChessGame<'_>, i: Index) -> usize {
        let count = |list: &[Index], x: Index| list.iter().filter(|&&y| y == x).count();
        let (node, forward) = targets(game, i);
        let backward = sources(game, i);
        if node == Node::Hole {
            assert!(forward.is_empty() && backward.is_empty(), "hole {i}");
            return 0;
        }
        for &q in &forward {
            assert_eq!(
                count(&sources(game, q), i),
                count(&forward, q),
                "{i} -> {q}: {} -> {}",
                game.position(i).unwrap().fen(),
                game.position(q).unwrap().fen()
            );
        }
        for &p in &backward {
            let (node, moves) = targets(game, p);
            assert_eq!(node, Node::Playable, "predecessor {p} of {i}");
            assert_eq!(
                count(&moves, i),
                count(&backward, p),
                "{p} -> {i}: {} -> {}",
                game.position(p).unwrap().fen(),
                game.position(i).unwrap().fen()
            );
        }
        forward.len() + backward.len()
    }

    #[test]
    fn moves_and_unmoves_agree_with_multiplicities_including_en_passant() {
        for (name, step) in [
            ("KPvKP", 97),
            ("KRvKR", 101),
            // The quick path, whose king moves are encoded from the digits.
            ("KRvKN", 101),
            ("KPvK", 13),
            ("KPPvKP", 100_003),
            ("KRPvKP", 200_003),
            // The quick path with two like men in a group: pieces, and pawns.
            ("KBBvKN", 50_021),
            ("KPPvKR", 50_021),
        ] {
            let material = Material::parse(name).unwrap();
            let set = all_draws(material);
            let game = ChessGame::new(material, &set).unwrap();
            let table = game.index().size();
            let mut checked = 0;
            for i in (0..table).step_by(step) {
                checked += check_contract(&game, i);
            }
            // The en-passant region, where the rules differ: every position of KPvKP, a sample of the others.
            let ep = game.ep_index().len();
            assert_eq!(
                ep == 0,
                ["KRvKR", "KRvKN", "KPvK", "KBBvKN", "KPPvKR"].contains(&name),
                "{name}"
            );
            let ep_step = if name == "KPvKP" { 1 } else { 37 };
            for n in (0..ep).step_by(ep_step) {
                checked += check_contract(&game, table + n);
            }
            assert!(checked > 0, "{name}");
        }
    }

    #[test]
    fn counting_moves_agrees_with_expanding_them() {
        // The quick path (pawnless, pawns on one side), and tables without it (a symmetric material, en passant).
        for (name, step) in [
            ("KQvKR", 1),
            ("KRPvK", 1),
            ("KRvKR", 3),
            ("KPvKP", 7),
            ("KQRvKB", 997),
        ] {
            let material = Material::parse(name).unwrap();
            let set = all_draws(material);
            let game = ChessGame::new(material, &set).unwrap();
            let (mut twins, mut axis_twins) = (0, 0);
            for i in (0..game.size()).step_by(step) {
                let (mut inside, mut exits) = (0, 0);
                let node = game.expand(i, |m| match m {
                    Move::To(_) => inside += 1,
                    Move::Exit(_) => exits += 1,
                });
                let mut counted_exits = 0;
                let (counted_node, counted) = game.count_moves(i, |_| counted_exits += 1);
                assert_eq!(
                    (counted_node, counted, counted_exits),
                    (node, inside, exits),
                    "{name} {i}"
                );
                if let Some(pos) = game.position(i) {
                    let mut quiet = 0;
                    pos.visit_legal_moves(|m| quiet += u64::from(!m.converts()));
                    // Twins on the quick path: a king move reaching an image of another man's move.
                    let axis = game
                        .index
                        .kings_on_axis(pos.king(Color::White), pos.king(Color::Black));
                    twins += u64::from(quiet > inside && !axis);
                    // Twins with both kings on the diagonal: reflections of each other, expanded.
                    axis_twins += u64::from(quiet > inside && axis);
                    if axis && pos.diagonal_asymmetry() > 4 {
                        assert_eq!(quiet, inside, "{name} {i}: twins far from symmetry");
                    }
                }
            }
            // Without pawns the folding of twins on the quick path is exercised, not only the plain count.
            let quick = !material.has_pawns() && !material.is_symmetric();
            assert_eq!(twins > 0, quick, "{name}");
            assert_eq!(axis_twins > 0, !material.has_pawns(), "{name}");
        }
    }

    #[test]
    fn a_survey_counts_or_finds_a_move_inside_as_counting_does() {
        // The stronger side's positions are left uncounted; with equal material (KPvKP) none are.
        for (name, step, stronger) in [
            ("KQvKR", 1, true),
            ("KRPvK", 1, true),
            ("KPvKP", 7, false),
            ("KQRvKB", 997, true),
        ] {
            let material = Material::parse(name).unwrap();
            let set = all_draws(material);
            let game = ChessGame::new(material, &set).unwrap();
            let (mut counted, mut uncounted) = (0, 0);
            for i in (0..game.size()).step_by(step) {
                let mut exits = Vec::new();
                let (node, inside) = game.count_moves(i, |v| exits.push(v));
                let mut surveyed_exits = Vec::new();
                let (surveyed_node, surveyed) = game.survey(i, |v| surveyed_exits.push(v));
                assert_eq!(surveyed_node, node, "{name} {i}");
                let key = |v: &Value| (v.outcome(), v.plies());
                exits.sort_by_key(key);
                surveyed_exits.sort_by_key(key);
                assert_eq!(surveyed_exits, exits, "{name} {i}");
                match surveyed {
                    Inside::Counted(n) => {
                        assert_eq!(n, inside, "{name} {i}");
                        counted += 1;
                    }
                    Inside::Uncounted => {
                        assert!(
                            inside > 0,
                            "{name} {i}: left uncounted without a move inside"
                        );
                        uncounted += 1;
                    }
                }
            }
            // Both kinds occur where a side is stronger, or the comparison proves little.
            assert!(counted > 0, "{name}");
            assert_eq!(
                uncounted > 0,
                stronger,
                "{name}: {counted} counted, {uncounted} not"
            );
        }
    }

    /// Records what a survey of many indices tells.
    #[derive(Default)]
    struct Recorder {
        exits: Vec<Value>,
        seen: Vec<(Index, Node, Inside, Vec<Value>)>,
    }

    impl Surveyor for Recorder {
        fn exit(&mut self, value: Value) {
            self.exits.push(value);
        }

        fn surveyed(&mut self, index: Index, node: Node, inside: Inside) {
            let exits = std::mem::take(&mut self.exits);
            self.seen.push((index, node, inside, exits));
        }
    }

    #[test]
    fn surveying_a_stretch_tells_what_surveying_each_index_does() {
        // Pawnless, a pawn, en passant (the stretch crossing into the positions with the right to take).
        for name in ["KQvKR", "KRPvK", "KPvKP"] {
            let material = Material::parse(name).unwrap();
            let set = all_draws(material);
            let game = ChessGame::new(material, &set).unwrap();
            let table = game.index.size();
            let stretches = (1..8).map(|k| table * k / 8 - 7..table * k / 8 + 40_000);
            let crossing = table - 1000..game.size().min(table + 1000);
            for range in stretches.chain(std::iter::once(crossing)) {
                let mut recorder = Recorder::default();
                game.survey_each(range.clone(), &mut recorder);
                let expected: Vec<_> = range
                    .clone()
                    .map(|i| {
                        let mut exits = Vec::new();
                        let (node, inside) = game.survey(i, |v| exits.push(v));
                        (i, node, inside, exits)
                    })
                    .collect();
                assert!(recorder.seen == expected, "{name} {range:?}");
            }
        }
    }

    #[test]
    fn every_material_of_up_to_five_men_can_be_set_up() {
        // What `retro generate chess --all 5` builds: pawns on both sides included.
        for men in 3..=5 {
            for material in Material::all_with_men(men) {
                let set = all_draws(material);
                let game = ChessGame::new(material, &set).unwrap();
                assert_eq!(
                    game.ep_index().is_empty(),
                    !material.both_sides_have_pawns(),
                    "{material}"
                );
            }
        }
    }

    #[test]
    fn symmetric_materials_number_white_to_move_only() {
        let material = Material::parse("KRvKR").unwrap();
        let set = all_draws(material);
        let krkr = ChessGame::new(material, &set).unwrap();
        let krk = TableIndex::new(Material::parse("KRvK").unwrap());
        // 462 king pairs, 62 squares for each rook, White to move only.
        assert_eq!(krkr.size(), 462 * 62 * 62);
        assert_eq!(krk.size(), 2 * 462 * 62);
        let pos = Position::from_fen("8/8/8/8/8/2k5/8/r1R1K3 b - - 0 1").unwrap();
        let i = krkr.index().encode(&pos).unwrap();
        assert_eq!(krkr.index().encode(&pos.color_flipped()), Some(i));
        let stored = krkr.position(i).unwrap();
        assert_eq!(stored.turn(), Color::White);
        assert_eq!(Material::of(&stored), Material::of(&pos));
        assert_eq!(krkr.index().encode(&stored), Some(i));
    }

    #[test]
    fn the_longest_exit_is_the_longest_distance_of_the_tables_exited_into() {
        let mut set = TableSet::new();
        let krk = Material::parse("KRvK").unwrap();
        crate::solve::solve_tree(
            krk,
            &mut set,
            &retro_engine::SolveOptions::default(),
            |_, _| {},
        )
        .unwrap();
        // KRvK's longest: mated in 32 plies.
        assert_eq!(set.get(krk).unwrap().1.longest_plies(), 32);
        let krkr = ChessGame::new(Material::parse("KRvKR").unwrap(), &set).unwrap();
        assert_eq!(krkr.longest_exit(), 32);
        // Bare kings are a draw, and a table without sub-tables has no exit distance to hint at.
        let kvk_only = ChessGame::new(Material::parse("KNvK").unwrap(), &set).unwrap();
        assert_eq!(kvk_only.longest_exit(), 0);
    }
}
