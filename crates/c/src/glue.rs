//! The glue between C's arguments and Rust's values: pointers and text checked, bitboards made into positions,
//! errors made into a status and a thread-local message, panics caught before they reach C.
//!
//! Every entry point of `lib.rs` is one call of [`guard`] around a closure that returns `Result<(), Failure>`; the
//! closure reads its arguments through the checkers here, so a null pointer, text that is not UTF-8 or bitboards
//! that are not a position become a [`Failure`], never undefined behaviour or a panic.

use std::cell::RefCell;
use std::ffi::{CStr, CString, c_char};
use std::panic::{AssertUnwindSafe, catch_unwind};

use retro_chess::{Bitboard, Color, LookupError, Piece, Position, Role, Square};
use retro_game::{Outcome, Value};
use retro_query::{QueryError, Tablebase};

use crate::{retro_status, retro_tablebase, retro_wdl};

/// Why a call failed: the status C gets and the line [`crate::retro_last_error`] gives. Only made on failure, so
/// the success path never builds a message; boxed, one pointer, so that a probe's `Result<(), Failure>` comes back
/// in a register rather than through memory.
pub struct Failure(Box<Failed>);

struct Failed {
    status: retro_status,
    message: String,
}

impl Failure {
    #[cold]
    pub fn new(status: retro_status, message: impl Into<String>) -> Failure {
        Failure(Box::new(Failed {
            status,
            message: message.into(),
        }))
    }

    #[cold]
    fn bad_position(message: impl Into<String>) -> Failure {
        Failure::new(retro_status::RETRO_ERR_BAD_POSITION, message)
    }
}

impl From<LookupError> for Failure {
    #[cold]
    fn from(e: LookupError) -> Failure {
        Failure::from(QueryError::from(e))
    }
}

impl From<QueryError> for Failure {
    #[cold]
    fn from(e: QueryError) -> Failure {
        let status = match e {
            QueryError::UnknownGame { .. } => retro_status::RETRO_ERR_UNKNOWN_GAME,
            QueryError::BadPosition(_) => retro_status::RETRO_ERR_BAD_POSITION,
            QueryError::MissingTable(_) => retro_status::RETRO_ERR_MISSING_TABLE,
            QueryError::Unreadable(_) => retro_status::RETRO_ERR_UNREADABLE,
        };
        Failure::new(status, e.to_string())
    }
}

thread_local! {
    /// The message of the last call that failed on this thread, NUL-terminated for C.
    static LAST_ERROR: RefCell<CString> = RefCell::new(CString::default());
}

/// A message for C: an interior NUL (which text from C cannot hold, but a path might) becomes a space.
fn c_message(message: String) -> CString {
    CString::new(message).unwrap_or_else(|e| {
        let bytes: Vec<u8> = e
            .into_vec()
            .into_iter()
            .map(|b| if b == 0 { b' ' } else { b })
            .collect();
        CString::new(bytes).unwrap_or_default()
    })
}

/// Keeps the failure's message for [`last_error`] and gives its status.
fn record(failure: Failure) -> retro_status {
    let Failed { status, message } = *failure.0;
    let message = c_message(message);
    // During the thread's own teardown the slot may be gone: the status still says what failed.
    let _ = LAST_ERROR.try_with(|slot| *slot.borrow_mut() = message);
    status
}

/// The message of this thread's last failed call, valid until this thread's next failed call.
pub(crate) fn last_error() -> *const c_char {
    LAST_ERROR
        .try_with(|slot| slot.borrow().as_ptr())
        .unwrap_or(empty_message())
}

/// "", for C: a static string, valid for ever.
pub(crate) fn empty_message() -> *const c_char {
    static EMPTY: &CStr = c"";
    EMPTY.as_ptr()
}

/// Runs an entry point's body: its failure, or a panic (a bug in retro), becomes a status; nothing unwinds into C.
/// Inlined into each entry point, so that the arguments reach the position in registers rather than through a
/// closure's captures in memory.
#[inline(always)]
pub fn guard(body: impl FnOnce() -> Result<(), Failure>) -> retro_status {
    // AssertUnwindSafe: after a panic nothing the body touched is used again except through the handle, whose
    // tables are only read (a block cache left half-filled by a panic is still a valid cache).
    match catch_unwind(AssertUnwindSafe(body)) {
        Ok(Ok(())) => retro_status::RETRO_OK,
        Ok(Err(failure)) => record(failure),
        Err(panic) => {
            let what = panic
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "a panic".to_string());
            record(Failure::new(
                retro_status::RETRO_ERR_INTERNAL,
                format!("internal error in retro (please report it): {what}"),
            ))
        }
    }
}

/// Runs an entry point that returns a value rather than a status: a panic (a bug in retro) gives `fallback`.
pub(crate) fn guard_value<T>(fallback: T, body: impl FnOnce() -> T) -> T {
    // AssertUnwindSafe: as for `guard`.
    catch_unwind(AssertUnwindSafe(body)).unwrap_or(fallback)
}

/// Checks a pointer the caller must give.
pub(crate) fn non_null<T>(pointer: *const T, name: &str) -> Result<*const T, Failure> {
    if pointer.is_null() {
        return Err(Failure::new(
            retro_status::RETRO_ERR_NULL,
            format!("{name} is NULL"),
        ));
    }
    Ok(pointer)
}

/// Writes through an out-pointer the caller must give.
///
/// # Safety
/// `out` must be NULL (an error) or valid for a write of a `T`.
pub(crate) unsafe fn put<T>(out: *mut T, name: &str, value: T) -> Result<(), Failure> {
    non_null(out.cast_const(), name)?;
    // SAFETY: not null (checked), and valid for writes by the caller's contract.
    unsafe { out.write(value) };
    Ok(())
}

/// The tablebase behind a handle.
///
/// # Safety
/// `tb` must be NULL (an error) or a handle from `retro_open` not yet closed.
pub(crate) unsafe fn tablebase<'a>(tb: *const retro_tablebase) -> Result<&'a Tablebase, Failure> {
    let tb = non_null(tb, "the tablebase handle")?;
    // SAFETY: a live handle from retro_open (the caller's contract): a Box's pointer, not freed until retro_close.
    Ok(unsafe { &(*tb).tablebase })
}

/// The UTF-8 text of a NUL-terminated C string.
///
/// # Safety
/// `text` must be NULL (an error) or point to a NUL-terminated string that stays alive and unchanged during the
/// call.
pub(crate) unsafe fn text<'a>(text: *const c_char, name: &str) -> Result<&'a str, Failure> {
    let text = non_null(text, name)?;
    // SAFETY: not null, and NUL-terminated and alive by the caller's contract.
    let bytes = unsafe { CStr::from_ptr(text) };
    bytes.to_str().map_err(|e| {
        Failure::new(
            retro_status::RETRO_ERR_UTF8,
            format!("{name} is not UTF-8 text (byte {} is not)", e.valid_up_to()),
        )
    })
}

/// The C side's category of an outcome.
pub(crate) fn wdl_of(outcome: Outcome) -> retro_wdl {
    match outcome {
        Outcome::Win => retro_wdl::RETRO_WIN,
        Outcome::Draw => retro_wdl::RETRO_DRAW,
        Outcome::Loss => retro_wdl::RETRO_LOSS,
    }
}

/// The signed distance to mate in plies, as lichess signs it (positive for a win, negative or zero for a loss),
/// and 0 for a draw.
pub(crate) fn dtm_of(value: Value) -> i32 {
    let plies = i32::try_from(value.plies().unwrap_or(0)).unwrap_or(i32::MAX);
    match value.outcome() {
        Outcome::Win => plies,
        _ => -plies,
    }
}

/// A chess position as Fathom's callers give it: which squares are White's and Black's, which hold each role, the
/// side to move and the en-passant square (0 for none). An entry point makes it before its [`guard`], so that the
/// guarded closure holds one reference to it rather than every argument (KQvK and KRvKR through the C API: 5 to 12%
/// more WDL probes a second than with the board made inside, two alternated batches).
#[derive(Clone, Copy)]
pub(crate) struct Board {
    pub white: u64,
    pub black: u64,
    /// Kings, queens, rooks, bishops, knights, pawns.
    pub roles: [u64; 6],
    pub ep: u32,
    pub white_to_move: bool,
}

impl Board {
    /// `probe` of the legal position the bitboards describe, or why they describe none. The position is probed
    /// where [`Position::from_men`] left it, inside its result, and not moved out: each move of it from one result
    /// to the next was a copy in 16-byte pieces whose loads waited on the narrower stores before them (C program,
    /// alternated: 9 to 16% more WDL probes a second). Inlined into each entry point, as `from_men` is.
    #[inline(always)]
    pub fn with_position<R>(
        &self,
        probe: impl FnOnce(&Position) -> Result<R, Failure>,
    ) -> Result<R, Failure> {
        let turn = if self.white_to_move {
            Color::White
        } else {
            Color::Black
        };
        let [kings, queens, rooks, bishops, knights, pawns] = self.roles.map(Bitboard);
        let checked = Position::from_men(
            [Bitboard(self.white), Bitboard(self.black)],
            [pawns, knights, bishops, rooks, queens, kings],
            turn,
        );
        let pos = match &checked {
            Ok(pos) => pos,
            Err(e) => return Err(Failure::bad_position(e.to_string())),
        };
        if self.ep == 0 {
            probe(pos)
        } else {
            probe(&with_ep(*pos, self.ep)?)
        }
    }
}

/// The position with the en-passant square `ep` (1 to 63): an error unless a pawn has just advanced two squares
/// over it; without the square when no legal capture uses it (as a FEN reader keeps it).
fn with_ep(pos: Position, ep: u32) -> Result<Position, Failure> {
    let sq = u8::try_from(ep)
        .ok()
        .filter(|&n| n < 64)
        .map(Square::new)
        .ok_or_else(|| {
            Failure::bad_position(format!(
                "en-passant square {ep} is not a square (0 = none, 1..63)"
            ))
        })?;
    // White to move: Black's pawn went from rank 7 over the square on rank 6 to rank 5; mirrored for Black.
    let (rank, ahead): (u8, i8) = match pos.turn() {
        Color::White => (5, -8),
        Color::Black => (2, 8),
    };
    let step = |by: i8| Square::new((sq.index() as i8 + by) as u8);
    let pusher = Piece {
        color: pos.turn().other(),
        role: Role::Pawn,
    };
    let pushed = sq.rank() == rank
        && pos.piece_at(step(ahead)) == Some(pusher)
        && pos.piece_at(sq).is_none()
        && pos.piece_at(step(-ahead)).is_none();
    if !pushed {
        return Err(Failure::bad_position(format!(
            "en-passant square {sq} does not follow a double pawn push"
        )));
    }
    Ok(pos.with_ep_square(sq).unwrap_or(pos))
}
