//! What a game family tells retro's generic commands.
//!
//! A *family* is a game with its rules: chess endgames, Dobutsu shogi, Connect Four, games given as graphs. A
//! *variant* is what one `retro generate GAME VARIANT` builds: a chess material, a Connect Four board size, one
//! graph file. A variant is made of one or more *tables* (a chess material is one table; a Connect Four board is
//! one table per number of stones), and a table may depend on other tables: its [`Move::Exit`]s read their
//! values. The tables of a variant and the tables they depend on form a DAG that the driver builds in order.
//!
//! A family answers, without ever touching a file:
//! - which variants it has, and how they are written on the command line ([`Family::parse_variant`]);
//! - the tables of a variant, in the order they depend on each other ([`Family::tables`],
//!   [`Family::dependencies`]), and each table as a [`retro_game::Game`] the engine solves ([`Family::game`]);
//! - its positions in text ([`Family::parse_position`], [`Family::show_position`]), where a position is stored
//!   ([`Family::locate`]) and which position an index is ([`Family::position`]);
//! - the moves of a position in the game's notation, each with the position it reaches ([`Family::moves`]);
//! - the start position, where the game has one ([`Family::start`]).
//!
//! Everything else (solving, writing and reading tables, probing, `info`, `verify`, the census of the positions
//! reachable from the start) is written once, in the driver, for every family. [`contract`] checks that a family's
//! answers agree with each other; every registered family runs it.

use std::fmt;
use std::hash::Hash;

pub use retro_game::{Game, Index, Move, Node, Outcome, PlayConvention, Value, Values};

pub mod contract;

/// What `retro games` says of a family.
#[derive(Clone, Copy, Debug)]
pub struct About {
    /// The game word of the command line: `chess`, `connect4`.
    pub name: &'static str,
    /// One line: what the game is.
    pub summary: &'static str,
    /// The syntax of the VARIANT words of `generate`, `info` and `verify`; empty for a game with one variant.
    pub variants: &'static str,
    /// A variant, as `generate` takes it (empty for a game with one variant).
    pub example_variant: &'static str,
    /// A position, as `probe` takes it.
    pub example_position: &'static str,
    /// The key naming the position in `probe --json` (`"fen"` for chess, `"position"` elsewhere).
    pub position_key: &'static str,
    /// The key naming a move in `probe --json` (`"uci"` for chess, `"move"` elsewhere).
    pub move_key: &'static str,
}

/// Options of `retro generate` that only some families take. A family refuses those it does not know.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Flags {
    /// `--misere`: the player who cannot move wins.
    pub misere: bool,
    /// `--edges`: a graph file is an edge list.
    pub edges: bool,
}

impl Flags {
    /// An error for the first flag set, for a family that takes none.
    pub fn refuse_all(&self, game: &str) -> Result<(), String> {
        if self.misere {
            return Err(format!("--misere does not apply to {game}"));
        }
        if self.edges {
            return Err(format!("--edges does not apply to {game}"));
        }
        Ok(())
    }
}

/// Choices of the table writer a family may make for its tables.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Blocks {
    /// Values per block of the WDL file (a power of two), instead of the writer's default.
    pub wdl_values: Option<u32>,
    /// Write the distance file at the fast settings whatever the table's size (a graph table, whose payload can be
    /// larger than its values).
    pub fast_distances: bool,
    /// The zstd level of the WDL file, instead of the writer's strong default: for a family whose tables are
    /// solved about as fast as level 19 compresses them (a Connect Four tier of a billion boards). `--compact`
    /// keeps the default.
    pub wdl_level: Option<i32>,
    /// With `wdl_level`: the level of the WDL blocks that compress least, instead (see
    /// `retro_table::WriteOptions::heavy_wdl_level`). `--compact` keeps its own.
    pub heavy_wdl_level: Option<i32>,
    /// Try the WDL blocks transposed (`retro_table::WriteOptions::transpose_wdl`), as `--compact` does: for tables
    /// whose WDL files it makes much smaller at a cost that small tables can bear.
    pub transpose_wdl: bool,
}

/// What a family's builds were measured to do, for `retro plan`'s estimates of time and file sizes. The figures are
/// of one thread of a 2-core machine of the kind CI uses, building in memory; a faster machine is faster, so an
/// estimate is a guide within a small factor, not a promise.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rates {
    /// Indices built per second by one thread: the whole `generate` of a table (solve and write) over its indices.
    pub indices_per_second: f64,
    /// Bytes of the written files (win/draw/loss and distances) per stored index.
    pub file_bytes_per_index: f64,
}

impl Default for Rates {
    /// For a family that measured none: a million indices a second, a byte an index (slower and larger than every
    /// board game measured, whose rates are 0.7 to 3.3 M indices a second and 0.2 to 0.3 bytes an index).
    fn default() -> Self {
        Rates {
            indices_per_second: 1.0e6,
            file_bytes_per_index: 1.0,
        }
    }
}

/// Where the value of a position is found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Location<T> {
    /// In a table, at this index.
    Stored { table: T, index: Index },
    /// Without a table: the game is over, or the rules tell it at once.
    Known(Value),
    /// In no table, but every move's is: the value is the best of the moves' values (a chess position with
    /// en-passant rights).
    Search,
}

/// What a move reaches.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Played<P> {
    /// A position of the game, with the opponent to move.
    Position(P),
    /// The end of the game; the value is the reached position's, for its player to move (the opponent of the one who
    /// moved), as in [`Move::Exit`]: a move that wins is `Over(Value::loss(0))`.
    Over(Value),
}

/// The solved tables a table's exits read, by table.
pub struct SubTables<'a, T> {
    tables: Vec<(T, &'a dyn Values)>,
}

impl<T> Default for SubTables<'_, T> {
    fn default() -> Self {
        SubTables { tables: Vec::new() }
    }
}

impl<'a, T: PartialEq> SubTables<'a, T> {
    pub fn new() -> Self {
        SubTables::default()
    }

    /// Adds (or replaces) the values of `table`.
    pub fn insert(&mut self, table: T, values: &'a dyn Values) {
        self.tables.retain(|(t, _)| *t != table);
        self.tables.push((table, values));
    }

    /// The values of `table`, if they were given.
    pub fn get(&self, table: &T) -> Option<&'a dyn Values> {
        self.tables
            .iter()
            .find(|(t, _)| t == table)
            .map(|&(_, values)| values)
    }

    /// The values of `table`, or an error naming it.
    pub fn need(&self, table: &T, name: impl FnOnce() -> String) -> Result<&'a dyn Values, String> {
        self.get(table)
            .ok_or_else(|| format!("table {} is needed but was not given", name()))
    }

    /// The longest win or loss of all the tables given (the engine's hint for [`Game::longest_exit`]).
    pub fn longest_plies(&self) -> u32 {
        self.tables
            .iter()
            .map(|(_, v)| v.longest_plies())
            .max()
            .unwrap_or(0)
    }

    /// The memory the values hold.
    pub fn resident_bytes(&self) -> u64 {
        self.tables.iter().map(|(_, v)| v.resident_bytes()).sum()
    }
}

/// The bytes a family stored beside a table when it wrote it (see [`Family::payload`]): how a family whose
/// variants are data (a graph) reads its variant back from a directory of tables.
pub trait Payloads {
    /// The payload of the table `name` of this family.
    fn payload(&self, name: &str) -> Result<Vec<u8>, String>;

    /// The parameters in the header of the table `name` of this family.
    fn params(&self, name: &str) -> Result<Vec<(String, String)>, String> {
        Err(format!("no table {name} here"))
    }
}

/// No tables at all: for parsing where no directory is open.
pub struct NoPayloads;

impl Payloads for NoPayloads {
    fn payload(&self, name: &str) -> Result<Vec<u8>, String> {
        Err(format!("no table {name} here"))
    }
}

/// A game family. See the crate's documentation for what each part is for; `docs/new-game.md` walks through one.
pub trait Family: Sync + 'static {
    /// One `generate`: a chess material, a board size.
    type Variant: Clone + fmt::Display + Send + Sync;
    /// One table of a variant: a chess material, a Connect Four tier.
    type Table: Clone + Eq + Hash + fmt::Debug + Send + Sync;
    /// A position, with whatever it needs to be located (its board size, its material).
    type Position: Clone + Send + Sync;
    /// A move in the game's notation.
    type Move: Clone + fmt::Display;
    /// One table as the engine solves it.
    type Game<'a>: Game
    where
        Self: 'a;

    fn about(&self) -> About;

    // --- variants and their tables ---

    /// The variant named by the VARIANT words of `generate` (none for a game with one variant).
    fn parse_variant(&self, words: &[String], flags: &Flags) -> Result<Self::Variant, String>;

    /// The variant named by the VARIANT words of `info` and `verify`, whose tables are in a directory. The default
    /// parses the words as `generate` does; a family whose variants are data reads them from the payloads.
    fn open_variant(
        &self,
        words: &[String],
        payloads: &dyn Payloads,
    ) -> Result<Self::Variant, String> {
        let _ = payloads;
        self.parse_variant(words, &Flags::default())
    }

    /// Every variant of `generate --all N`, or an error for a family that has no such list.
    fn all(&self, n: u32) -> Result<Vec<Self::Variant>, String> {
        let _ = n;
        Err(format!("{} has no --all", self.about().name))
    }

    /// The tables of a variant, each after the tables of the variant it depends on.
    fn tables(&self, variant: &Self::Variant) -> Vec<Self::Table>;

    /// The tables whose values the exits of `table` read, inside its variant or not.
    fn dependencies(&self, table: &Self::Table) -> Vec<Self::Table>;

    /// The table's name: its files are `DIR/GAME/NAME.rwdl` and `.rdst`. Letters, digits, `_`, `-` and `.`.
    fn table_name(&self, table: &Self::Table) -> String;

    /// The parameters written into the table's header, read back by nobody but people and `info`. A family that
    /// changes its index writes a new layout name here and refuses tables of another in [`Family::check_params`].
    fn params(&self, table: &Self::Table) -> Vec<(String, String)>;

    /// Refuses a table written with other parameters (another index layout). The default accepts every table whose
    /// parameters are [`Family::params`]'s, in any order; the header's extra parameters (a start position) are
    /// allowed.
    fn check_params(&self, table: &Self::Table, params: &[(String, String)]) -> Result<(), String> {
        for (key, value) in self.params(table) {
            match params.iter().find(|(k, _)| *k == key) {
                Some((_, v)) if *v == value => {}
                Some((_, v)) => {
                    return Err(format!(
                        "written with {key} = {v:?}, this version writes {value:?}"
                    ));
                }
                None => return Err(format!("written without the parameter {key}")),
            }
        }
        Ok(())
    }

    /// The sides to move a table keeps apart in its counts, in the header's order (`["white", "black"]`), and the
    /// side of each index. The default is one side, `"mover"`: positions seen from the player to move.
    fn sides(&self, table: &Self::Table) -> Vec<&'static str> {
        let _ = table;
        vec!["mover"]
    }

    /// The side of each index among [`Family::sides`], as a function (the writer calls it on every index).
    fn side_of<'a>(&'a self, table: &Self::Table) -> Box<dyn Fn(Index) -> usize + Sync + 'a> {
        let _ = table;
        Box::new(|_| 0)
    }

    /// The sides `info` shows for a table asked for with these VARIANT words, in the header's order. The default is
    /// [`Family::sides`]. A family may rename them as asked (chess: `KRvKQ` shows its table `KQvKR` with the sides
    /// named the other way round) or name more sides than the table keeps apart: each extra side has the counts of
    /// the first (a symmetric chess material stores White to move only, and Black to move is the same).
    fn shown_sides(&self, words: &[String], table: &Self::Table) -> Vec<&'static str> {
        let _ = words;
        self.sides(table)
    }

    /// Bytes the table keeps beside its values (a graph keeps itself).
    fn payload(&self, table: &Self::Table) -> Vec<u8> {
        let _ = table;
        Vec::new()
    }

    /// How the table's files are cut into blocks, where the writer's defaults do not suit the family.
    fn blocks(&self, table: &Self::Table) -> Blocks {
        let _ = table;
        Blocks::default()
    }

    /// Whether the table's WDL file holds floors (see `retro_table::TableSpec::exits`): whether every prober of the
    /// family values a position as the better of its stored outcome and its exits' (the moves the game reports as
    /// [`Move::Exit`](retro_game::Move::Exit)), so that a position its exits settle may store any worse outcome.
    /// No by default: only a family whose prober searches the exits may say yes.
    fn wdl_floors(&self, table: &Self::Table) -> bool {
        let _ = table;
        false
    }

    /// Row lengths of the table's index, if the family knows them: numbers of indices after which the index starts
    /// over with the next value of a slower digit (for chess, the placements of the last men). The writer tries them
    /// as column counts of transposed WDL blocks in compact files. None by default.
    fn index_periods(&self, table: &Self::Table) -> Vec<u64> {
        let _ = table;
        Vec::new()
    }

    /// The radices of the digits of the table's index, most significant first, if the family knows them (for
    /// chess: side to move, king pair, one digit per group of men). The writer tries other orders of them for a WDL
    /// block of floors that holds the whole table, in compact files. None by default.
    fn index_digits(&self, table: &Self::Table) -> Vec<u64> {
        let _ = table;
        Vec::new()
    }

    /// How a position whose mover has no move is scored.
    fn convention(&self, table: &Self::Table) -> PlayConvention {
        let _ = table;
        PlayConvention::Normal
    }

    /// The figures `retro plan` estimates a table's build time and file sizes from.
    fn rates(&self, table: &Self::Table) -> Rates {
        let _ = table;
        Rates::default()
    }

    /// The table as the engine solves it; its exits read `sub`, which holds every table of
    /// [`Family::dependencies`].
    fn game<'a>(
        &'a self,
        table: &'a Self::Table,
        sub: &'a SubTables<'a, Self::Table>,
    ) -> Result<Self::Game<'a>, String>;

    /// How many of the game's indices the table stores (`0..stored`); the others are solved with it and not written
    /// (a chess table's positions with en-passant rights). The default stores them all.
    fn stored(&self, game: &Self::Game<'_>) -> Index {
        game.size()
    }

    // --- positions ---

    /// Reads a position as `probe` takes it. The error says what is wrong, in one line.
    fn parse_position(&self, text: &str, payloads: &dyn Payloads)
    -> Result<Self::Position, String>;

    /// The position in the notation [`Family::parse_position`] reads.
    fn show_position(&self, position: &Self::Position) -> String;

    /// How `probe` names the position it was asked (the value of its `position_key`). The default is its notation;
    /// a graph names the position alone, without its table.
    fn label(&self, position: &Self::Position) -> String {
        self.show_position(position)
    }

    /// The position drawn for a person, several lines ending in a newline. The default is its notation.
    fn diagram(&self, position: &Self::Position) -> String {
        format!("{}\n", self.show_position(position))
    }

    /// Where the value of a position is.
    fn locate(&self, position: &Self::Position) -> Result<Location<Self::Table>, String>;

    /// The position at an index of a table's game (`None` for a hole). Indices past [`Family::stored`] are the
    /// game's unstored ones.
    fn position(&self, game: &Self::Game<'_>, index: Index) -> Option<Self::Position>;

    /// Every legal move of a position, in the game's notation, with what it reaches; none when the game is over.
    fn moves(&self, position: &Self::Position) -> Vec<(Self::Move, Played<Self::Position>)>;

    /// The indices of each side to move of a table, where each side is one range of the index and every move of a
    /// position of one side reaches the other side or leaves the table: a distance file may then leave one side out
    /// (`generate --one-side`), its values found by searching their moves. Empty (the default) when not so. In the
    /// order of [`Family::sides`], one after the other from index 0: the side of an index ([`Family::side_of`]) is
    /// the range it falls in.
    fn side_ranges(&self, table: &Self::Table) -> Vec<std::ops::Range<Index>> {
        let _ = table;
        Vec::new()
    }

    /// The value of a position without moves (checkmate, stalemate), where the family can tell it from the position
    /// alone: what a search of a position no table stores ends on. `None`: the driver reports the search as broken.
    fn no_move_value(&self, position: &Self::Position) -> Option<Value> {
        let _ = position;
        None
    }

    /// The start position of a variant, where the game has one.
    fn start(&self, variant: &Self::Variant) -> Option<Self::Position> {
        let _ = variant;
        None
    }

    /// The positions `probe` shows for one asked: the position itself, unnamed. A partizan graph shows it with each
    /// player to move, named `left` and `right`.
    fn views(&self, position: &Self::Position) -> Vec<(&'static str, Self::Position)> {
        vec![("", position.clone())]
    }

    /// Other names `probe` shows for a move beside its notation, as `(key, text)`: chess gives its standard
    /// algebraic notation, `("san", "Qb7#")`.
    fn move_names(&self, position: &Self::Position, m: &Self::Move) -> Vec<(&'static str, String)> {
        let _ = (position, m);
        Vec::new()
    }

    /// Facts `probe --json` adds about a position, such as `("game_over", true)`.
    fn flags(&self, position: &Self::Position) -> Vec<(&'static str, bool)> {
        let _ = position;
        Vec::new()
    }

    // --- the census of the positions reachable from the start ---

    /// How many positions of the unfolded game this position stands for (its images under the symmetries the index
    /// folds, counted once each).
    fn images(&self, position: &Self::Position) -> u64 {
        let _ = position;
        1
    }

    /// The census of a variant, counted by the family itself where the driver's search does not suit it (a game
    /// with more positions outside its tables than the driver can keep by notation), as `key=value` entries:
    /// `reachable_positions`, `reachable_unfolded`, `reachable_win`, `reachable_draw`, `reachable_loss`,
    /// `reachable_longest_win`, `reachable_longest_loss`, `reachable_depth`, and other groups of counts under other
    /// prefixes (`legal_...`). `values` gives the values of the variant's tables. `None`: the driver searches.
    fn census(
        &self,
        variant: &Self::Variant,
        values: &(dyn Fn(&Self::Table, Index) -> Option<Value> + Sync),
    ) -> Option<Result<Vec<(String, String)>, String>> {
        let _ = (variant, values);
        None
    }

    /// Checks a table's values against the rules in a way of the family's own (beyond the engine's certificate,
    /// which `verify` runs on every table). `values` gives the stored values by index.
    fn check_values(
        &self,
        table: &Self::Table,
        values: &(dyn Fn(Index) -> Option<Value> + Sync),
    ) -> Result<(), String> {
        let _ = (table, values);
        Ok(())
    }
}
