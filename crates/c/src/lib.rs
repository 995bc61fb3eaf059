//! retro's endgame tables for C and C++ programs: chess engines probe win/draw/loss and distance to mate, and any
//! program asks about a position of any game retro solves.
//!
//! Like Fathom, but without global state: `retro_open` gives a handle on a tables directory, several may be open
//! at once, and every probe names its handle.
//!
//! Conventions, for every function:
//! - Squares are numbered a1 = 0, b1 = 1, ..., h1 = 7, a2 = 8, ..., h8 = 63: bit n of a bitboard is square n.
//! - Each function returns a `retro_status`: `RETRO_OK` (0), or an error. After an error, `retro_last_error()`
//!   gives a one-line message saying what was wrong; out-parameters are then left unspecified.
//! - A NULL pointer where one is needed, or text that is not UTF-8, is an error (`RETRO_ERR_NULL`,
//!   `RETRO_ERR_UTF8`), never a crash. Text arguments are NUL-terminated and only read during the call.
//! - Distances to mate are in plies (half-moves), signed as lichess signs them: positive when the side to move
//!   wins, negative when it loses (0 when it is checkmated), and 0 for a draw (check the category).
//! - Thread safety: a handle may be probed from any number of threads at once, with no lock of yours; probes of a
//!   position whose table block is cached take no lock and allocate no memory. `retro_close` must not run while
//!   another thread still uses the handle.
//! - Tables are opened on first use: a probe of a material whose table is missing fails with
//!   `RETRO_ERR_MISSING_TABLE` (`retro_largest` tells the biggest table the directory has).
//!
//! Build: `cargo build --release -p retro-c` gives `target/release/libretro_c.so` and `libretro_c.a`; link with
//! `-Lpath/to/target/release -lretro_c` (the static library also needs `-lpthread -ldl -lm`).
//!
//! This header is generated from crates/c/src/lib.rs; do not edit it by hand.

// The C API's names are C's, so that the Rust source and the header read alike.
#![allow(non_camel_case_types)]
// Fathom's argument lists: eight bitboards, the en-passant square, the side to move and the answer.
#![allow(clippy::too_many_arguments)]

// Public only for the integration test (which checks that a panic is caught); not part of the API.
#[doc(hidden)]
pub mod glue;

use std::ffi::c_char;

use retro_chess::{ChessMove, MoveList, Position, Role};
use retro_game::Value;
use retro_query::Tablebase;

use glue::{Board, Failure, dtm_of, guard, put, tablebase, text, wdl_of};

/// The en-passant square argument for "no en-passant square" (a1, which never is one, as in Fathom).
pub const RETRO_NO_EP: u32 = 0;

/// Room for every legal move of any position the tables hold: a `retro_move` array this long is always enough for
/// `retro_probe_root`.
pub const RETRO_MAX_MOVES: usize = 256;

/// `retro_move.promotes`: not a promotion.
pub const RETRO_PROMOTES_NONE: u8 = 0;
/// `retro_move.promotes`: the pawn becomes a queen.
pub const RETRO_PROMOTES_QUEEN: u8 = 1;
/// `retro_move.promotes`: the pawn becomes a rook.
pub const RETRO_PROMOTES_ROOK: u8 = 2;
/// `retro_move.promotes`: the pawn becomes a bishop.
pub const RETRO_PROMOTES_BISHOP: u8 = 3;
/// `retro_move.promotes`: the pawn becomes a knight.
pub const RETRO_PROMOTES_KNIGHT: u8 = 4;

/// What a function returns: `RETRO_OK`, or why it failed (and `retro_last_error()` says it in words).
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum retro_status {
    /// Success.
    RETRO_OK = 0,
    /// A pointer argument that must not be NULL was NULL.
    RETRO_ERR_NULL = 1,
    /// A text argument is not UTF-8.
    RETRO_ERR_UTF8 = 2,
    /// The position is not one the tables can answer: a malformed FEN, bitboards that overlap or disagree, an
    /// illegal position (a king missing, the side not to move in check, a pawn on the first or last rank, ...),
    /// castling rights, an en-passant square no double push explains, or more men than any table holds.
    RETRO_ERR_BAD_POSITION = 3,
    /// The directory has no table for the position's material (the message names it, e.g. KQRvKR).
    RETRO_ERR_MISSING_TABLE = 4,
    /// The directory or a table cannot be read, or does not match this version of retro.
    RETRO_ERR_UNREADABLE = 5,
    /// `retro_probe_json` was given a game retro does not know.
    RETRO_ERR_UNKNOWN_GAME = 6,
    /// The caller's array or buffer is too small: the count or length needed was written, and what fitted.
    RETRO_ERR_TOO_SMALL = 7,
    /// A bug in retro (please report it, with the message); the handle can still be used.
    RETRO_ERR_INTERNAL = 8,
}

/// The category of a position for its side to move (of a move, for the side making it).
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum retro_wdl {
    RETRO_LOSS = -1,
    RETRO_DRAW = 0,
    RETRO_WIN = 1,
}

/// An open tables directory. Opaque: made by `retro_open`, freed by `retro_close`.
pub struct retro_tablebase {
    tablebase: Tablebase,
}

/// One legal move of a root position and what it is worth to the side making it, as `retro_probe_root` gives it.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct retro_move {
    /// The square the man leaves (a1 = 0 ... h8 = 63).
    pub from: u8,
    /// The square it goes to (for an en-passant capture, the empty square behind the pawn taken).
    pub to: u8,
    /// `RETRO_PROMOTES_NONE`, or the piece a pawn becomes (`RETRO_PROMOTES_QUEEN` ...).
    pub promotes: u8,
    /// The move in UCI notation, NUL-terminated: "e2e4", "e7e8q".
    pub uci: [c_char; 6],
    /// The category of the move for the side making it: `RETRO_WIN` if it wins.
    pub wdl: retro_wdl,
    /// The signed distance to mate for the side making the move, in plies counted from the root position (this move
    /// included): the best move's `wdl` and `dtm` are the root position's own. 0 for a draw.
    pub dtm: i32,
}

/// The message of the last call that failed on this thread: one line, NUL-terminated, "" before any failure.
/// It stays valid until the next failing call on the same thread; copy it to keep it. Never NULL.
#[unsafe(no_mangle)]
pub extern "C" fn retro_last_error() -> *const c_char {
    glue::guard_value(glue::empty_message(), glue::last_error)
}

/// Opens the tables directory `dir` (the directory holding `chess/KQvK.rwdl` ...) with the default block cache
/// (256 MiB of decompressed blocks at most), and writes the new handle to `*out`.
///
/// # Safety
/// `dir` is a NUL-terminated string; `out` is valid for writing a pointer.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn retro_open(
    dir: *const c_char,
    out: *mut *mut retro_tablebase,
) -> retro_status {
    // SAFETY: the caller's contract is retro_open_with_cache's.
    unsafe { retro_open_with_cache(dir, retro_query::DEFAULT_CACHE_BYTES, out) }
}

/// Opens the tables directory `dir` with a cache of about `cache_bytes` bytes of decompressed blocks, and writes
/// the new handle to `*out`. Each handle has its own cache.
///
/// # Safety
/// `dir` is a NUL-terminated string; `out` is valid for writing a pointer.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn retro_open_with_cache(
    dir: *const c_char,
    cache_bytes: usize,
    out: *mut *mut retro_tablebase,
) -> retro_status {
    guard(|| {
        // SAFETY: the caller's contract.
        let dir = unsafe { text(dir, "the tables directory") }?;
        glue::non_null(out.cast_const(), "the handle's out-pointer")?;
        let tablebase = Tablebase::with_cache(std::path::Path::new(dir), cache_bytes)?;
        let handle = Box::into_raw(Box::new(retro_tablebase { tablebase }));
        // SAFETY: the caller's contract; `out` was checked not NULL.
        unsafe { put(out, "the handle's out-pointer", handle) }
    })
}

/// Closes a handle and frees its tables and cache. NULL is allowed (nothing happens). The handle must not be used
/// again, nor be in use by another thread.
///
/// # Safety
/// `tb` is NULL or a handle from `retro_open` not yet closed.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn retro_close(tb: *mut retro_tablebase) {
    if tb.is_null() {
        return;
    }
    let _ = guard(|| {
        // SAFETY: a live handle (the caller's contract), made by Box::into_raw in retro_open_with_cache.
        drop(unsafe { Box::from_raw(tb) });
        Ok(())
    });
}

/// The most men (kings included) of any chess table in the handle's directory: 4 for a directory of 3- and
/// 4-man tables (2 when it has none; kings alone need no table). 0 for a NULL handle.
///
/// # Safety
/// `tb` is NULL or a live handle.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn retro_largest(tb: *const retro_tablebase) -> u32 {
    glue::guard_value(0, || {
        // SAFETY: the caller's contract.
        match unsafe { tablebase(tb) } {
            Ok(tablebase) => tablebase.chess().largest(),
            Err(_) => 0,
        }
    })
}

/// Win, draw or loss for the side to move of a chess position given as bitboards (as Fathom's `tb_probe_wdl`
/// takes it): `white` and `black` are each side's men, `kings` ... `pawns` each role's men of both sides; `ep` is
/// the en-passant square (the square a pawn that has just advanced two squares passed over) or `RETRO_NO_EP`;
/// `white_to_move` says who moves. Writes the category to `*wdl`. The fastest probe: use it in the search.
///
/// # Safety
/// `tb` is a live handle; `wdl` is valid for writing.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn retro_probe_wdl(
    tb: *const retro_tablebase,
    white: u64,
    black: u64,
    kings: u64,
    queens: u64,
    rooks: u64,
    bishops: u64,
    knights: u64,
    pawns: u64,
    ep: u32,
    white_to_move: bool,
    wdl: *mut retro_wdl,
) -> retro_status {
    let board = Board {
        white,
        black,
        roles: [kings, queens, rooks, bishops, knights, pawns],
        ep,
        white_to_move,
    };
    guard(|| {
        // SAFETY: the caller's contract.
        let tablebase = unsafe { tablebase(tb) }?;
        let outcome = board.with_position(|pos| Ok(tablebase.chess().wdl(pos)?))?;
        // SAFETY: the caller's contract.
        unsafe { put(wdl, "wdl", wdl_of(outcome)) }
    })
}

/// The category and the signed distance to mate (plies; see the conventions above) for the side to move of a
/// chess position given as bitboards (arguments as for `retro_probe_wdl`). Writes `*wdl` and `*dtm`. Slower than
/// `retro_probe_wdl` (distance blocks are bigger): use it at the root or to play out a won ending.
///
/// # Safety
/// `tb` is a live handle; `wdl` and `dtm` are valid for writing.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn retro_probe_dtm(
    tb: *const retro_tablebase,
    white: u64,
    black: u64,
    kings: u64,
    queens: u64,
    rooks: u64,
    bishops: u64,
    knights: u64,
    pawns: u64,
    ep: u32,
    white_to_move: bool,
    wdl: *mut retro_wdl,
    dtm: *mut i32,
) -> retro_status {
    let board = Board {
        white,
        black,
        roles: [kings, queens, rooks, bishops, knights, pawns],
        ep,
        white_to_move,
    };
    guard(|| {
        // SAFETY: the caller's contract.
        let tablebase = unsafe { tablebase(tb) }?;
        let value = board.with_position(|pos| Ok(tablebase.chess().value(pos)?))?;
        // SAFETY: the caller's contract.
        unsafe { write_value(value, wdl, dtm) }
    })
}

/// Win, draw or loss for the side to move of a chess position given as a FEN ("8/8/8/8/8/2k5/8/KQ6 w - - 0 1";
/// the clocks may be left out; castling rights must be "-"). Writes `*wdl`.
///
/// # Safety
/// `tb` is a live handle; `fen` is a NUL-terminated string; `wdl` is valid for writing.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn retro_probe_wdl_fen(
    tb: *const retro_tablebase,
    fen: *const c_char,
    wdl: *mut retro_wdl,
) -> retro_status {
    guard(|| {
        // SAFETY: the caller's contract.
        let (tablebase, pos) = unsafe { fen_position(tb, fen) }?;
        let outcome = tablebase.chess().wdl(&pos)?;
        // SAFETY: the caller's contract.
        unsafe { put(wdl, "wdl", wdl_of(outcome)) }
    })
}

/// The category and the signed distance to mate for the side to move of a chess position given as a FEN. Writes
/// `*wdl` and `*dtm`.
///
/// # Safety
/// `tb` is a live handle; `fen` is a NUL-terminated string; `wdl` and `dtm` are valid for writing.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn retro_probe_dtm_fen(
    tb: *const retro_tablebase,
    fen: *const c_char,
    wdl: *mut retro_wdl,
    dtm: *mut i32,
) -> retro_status {
    guard(|| {
        // SAFETY: the caller's contract.
        let (tablebase, pos) = unsafe { fen_position(tb, fen) }?;
        let value = tablebase.chess().value(&pos)?;
        // SAFETY: the caller's contract.
        unsafe { write_value(value, wdl, dtm) }
    })
}

/// Every legal move of a chess position given as bitboards (arguments as for `retro_probe_wdl`), each with its
/// category and distance to mate for the side making it, best first: wins by the quickest mate, then draws, then
/// losses by the slowest mate (equal moves in a fixed order). What an engine needs to keep only the root moves that
/// hold the tables' value. Writes the number of legal moves to `*count` (0 when the side to move is mated or
/// stalemated), and the best `min(count, capacity)` moves to `moves[0..]`; fails with `RETRO_ERR_TOO_SMALL` when
/// `capacity < *count` (`RETRO_MAX_MOVES` is always enough). `moves` may be NULL when `capacity` is 0.
///
/// # Safety
/// `tb` is a live handle; `moves` is valid for writing `capacity` moves; `count` is valid for writing.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn retro_probe_root(
    tb: *const retro_tablebase,
    white: u64,
    black: u64,
    kings: u64,
    queens: u64,
    rooks: u64,
    bishops: u64,
    knights: u64,
    pawns: u64,
    ep: u32,
    white_to_move: bool,
    moves: *mut retro_move,
    capacity: usize,
    count: *mut usize,
) -> retro_status {
    let board = Board {
        white,
        black,
        roles: [kings, queens, rooks, bishops, knights, pawns],
        ep,
        white_to_move,
    };
    guard(|| {
        // SAFETY: the caller's contract.
        let tablebase = unsafe { tablebase(tb) }?;
        // SAFETY: the caller's contract.
        board.with_position(|pos| unsafe { write_root(tablebase, pos, moves, capacity, count) })
    })
}

/// `retro_probe_root` for a chess position given as a FEN.
///
/// # Safety
/// `tb` is a live handle; `fen` is a NUL-terminated string; `moves` is valid for writing `capacity` moves;
/// `count` is valid for writing.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn retro_probe_root_fen(
    tb: *const retro_tablebase,
    fen: *const c_char,
    moves: *mut retro_move,
    capacity: usize,
    count: *mut usize,
) -> retro_status {
    guard(|| {
        // SAFETY: the caller's contract.
        let (tablebase, pos) = unsafe { fen_position(tb, fen) }?;
        // SAFETY: the caller's contract.
        unsafe { write_root(tablebase, &pos, moves, capacity, count) }
    })
}

/// Everything the tables say about a position of any game, as one JSON object: `game` is a name as `retro` knows
/// it ("chess", "dobutsu", "tictactoe", "connect4", "quixo", ...), `position` the position in that game's notation
/// (a FEN for chess). For chess the object has lichess's tablebase API shape: "category" ("win", "draw", "loss"),
/// "dtm" (signed plies, null for a draw), "dtz" (null), "checkmate", "stalemate", "insufficient_material", and
/// "moves", best first, each with "uci", "san", "category", "dtm" and "fen" of the position the move reaches, for
/// the side to move there (lichess's convention: the best move of a won position leads to a "loss"). Other games
/// give "position" and, per move, "move" and "position".
///
/// The text is written like `snprintf` writes: at most `buf_len` bytes, NUL included, always NUL-terminated when
/// `buf_len > 0`; `*len` (when `len` is not NULL) receives the length of the whole text without its NUL. When the
/// text does not fit, the call fails with `RETRO_ERR_TOO_SMALL`: allocate `*len + 1` bytes and call again.
/// `buf` may be NULL when `buf_len` is 0, to ask the length.
///
/// # Safety
/// `tb` is a live handle; `game` and `position` are NUL-terminated strings; `buf` is valid for writing `buf_len`
/// bytes; `len` is NULL or valid for writing.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn retro_probe_json(
    tb: *const retro_tablebase,
    game: *const c_char,
    position: *const c_char,
    buf: *mut c_char,
    buf_len: usize,
    len: *mut usize,
) -> retro_status {
    guard(|| {
        // SAFETY: the caller's contract.
        let tablebase = unsafe { tablebase(tb) }?;
        // SAFETY: the caller's contract.
        let game = unsafe { text(game, "the game") }?;
        // SAFETY: the caller's contract.
        let position = unsafe { text(position, "the position") }?;
        if buf_len > 0 {
            glue::non_null(buf.cast_const(), "the buffer")?;
        }
        let json = tablebase.probe(game, position)?.to_json();
        if !len.is_null() {
            // SAFETY: not NULL, and valid for writing by the caller's contract.
            unsafe { len.write(json.len()) };
        }
        if buf_len == 0 {
            return too_small(json.len() + 1, 0, "bytes");
        }
        let fits = json.len().min(buf_len - 1);
        // SAFETY: `buf` is not NULL (checked) and valid for `buf_len` bytes (the caller's contract), and
        // `fits + 1 <= buf_len`; the JSON is Rust's own string, which cannot overlap the caller's buffer.
        unsafe {
            std::ptr::copy_nonoverlapping(json.as_ptr(), buf.cast::<u8>(), fits);
            buf.add(fits).write(0);
        }
        if fits < json.len() {
            return too_small(json.len() + 1, buf_len, "bytes");
        }
        Ok(())
    })
}

/// The handle and the position of a FEN argument.
///
/// # Safety
/// As for the FEN probes: `tb` a live handle, `fen` a NUL-terminated string (or NULL: an error).
unsafe fn fen_position<'a>(
    tb: *const retro_tablebase,
    fen: *const c_char,
) -> Result<(&'a Tablebase, Position), Failure> {
    // SAFETY: the caller's contract.
    let tablebase = unsafe { tablebase(tb) }?;
    // SAFETY: the caller's contract.
    let fen = unsafe { text(fen, "the FEN") }?;
    Ok((tablebase, Tablebase::parse_fen(fen)?))
}

/// Writes a value's category and signed distance.
///
/// # Safety
/// `wdl` and `dtm` are NULL (an error) or valid for writing.
unsafe fn write_value(value: Value, wdl: *mut retro_wdl, dtm: *mut i32) -> Result<(), Failure> {
    glue::non_null(dtm.cast_const(), "dtm")?;
    // SAFETY: the caller's contract.
    unsafe { put(wdl, "wdl", wdl_of(value.outcome())) }?;
    // SAFETY: the caller's contract.
    unsafe { put(dtm, "dtm", dtm_of(value)) }
}

/// The root moves of `pos`, best first, into the caller's array.
///
/// # Safety
/// `moves` is valid for writing `capacity` moves (or NULL with `capacity` 0); `count` is NULL (an error) or valid
/// for writing.
unsafe fn write_root(
    tablebase: &Tablebase,
    pos: &Position,
    moves: *mut retro_move,
    capacity: usize,
    count: *mut usize,
) -> Result<(), Failure> {
    glue::non_null(count.cast_const(), "count")?;
    if capacity > 0 {
        glue::non_null(moves.cast_const(), "the moves array")?;
    }
    let prober = tablebase.chess();
    let mut list = MoveList::new();
    pos.legal_moves(&mut list);
    let mut valued: Vec<(ChessMove, Value)> = Vec::with_capacity(list.len());
    for m in list.as_slice() {
        // The value of the position reached is the opponent's; one step back is the mover's.
        valued.push((*m, prober.value(&pos.play(m))?.back()));
    }
    // Stable, so that equal moves keep the order moves are generated in: the order `retro probe` and
    // `retro_probe_json` list them in.
    valued.sort_by(|a, b| b.1.preference(a.1));
    // SAFETY: the caller's contract.
    unsafe { put(count, "count", valued.len()) }?;
    for (i, (m, value)) in valued.iter().take(capacity).enumerate() {
        // SAFETY: i < capacity, and `moves` is valid for `capacity` writes (the caller's contract).
        unsafe { moves.add(i).write(c_move(m, *value)) };
    }
    if capacity < valued.len() {
        return too_small(valued.len(), capacity, "moves");
    }
    Ok(())
}

/// A move as C sees it.
fn c_move(m: &ChessMove, value: Value) -> retro_move {
    let mut uci = [0 as c_char; 6];
    for (slot, byte) in uci.iter_mut().zip(m.uci().bytes()) {
        *slot = byte as c_char;
    }
    retro_move {
        from: m.from.index() as u8,
        to: m.to.index() as u8,
        promotes: match m.promotion {
            None => RETRO_PROMOTES_NONE,
            Some(Role::Queen) => RETRO_PROMOTES_QUEEN,
            Some(Role::Rook) => RETRO_PROMOTES_ROOK,
            Some(Role::Bishop) => RETRO_PROMOTES_BISHOP,
            Some(_) => RETRO_PROMOTES_KNIGHT,
        },
        uci,
        wdl: wdl_of(value.outcome()),
        dtm: dtm_of(value),
    }
}

fn too_small(needed: usize, given: usize, what: &str) -> Result<(), Failure> {
    Err(Failure::new(
        retro_status::RETRO_ERR_TOO_SMALL,
        format!("room for {given} {what} given, {needed} needed"),
    ))
}
