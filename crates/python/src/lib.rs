//! The Python module `retro_tablebase`: retro's tables probed from Python, in the shapes python-chess users and
//! lichess clients already know.
//!
//! Everything is answered by [`retro_query::Tablebase`], so Python agrees with `retro probe`, the C library and the
//! server. This file only translates: Python text (or a python-chess `Board`, through its `.fen()`) in, ints,
//! strings and dicts out, and [`QueryError`]s into Python exceptions. The conventions, chosen for python-chess
//! users (its Gaviota prober is the DTM tablebase they know):
//! - `probe_wdl` returns `1`, `0`, `-1` for a win, draw, loss of the side to move (Gaviota's ints; Syzygy's `2`/`-2`
//!   mean "a win the 50-move rule does not spoil", a distinction retro's tables do not make);
//! - `probe_dtm` returns signed plies to mate (lichess's and Gaviota's sign: positive when the side to move wins,
//!   `0` when it is mated) and `None` for a draw, where Gaviota says `0`: a mated and a drawn position stay apart;
//! - a missing table raises `MissingTableError`, a `KeyError` as in python-chess (whose `get_wdl` and friends catch
//!   `KeyError`), whose `str()` is the one-line message without `KeyError`'s quotes.
//!
//! The interpreter lock is released while a table is read ([`Python::detach`]): threads probe in parallel.
//!
//! `probe` builds its dict here, from [`Answer`] (not by parsing [`Answer::to_json`] in Python): measured, about
//! twice as fast (crates/python/README.md). The keys are those of `to_json`, which the tests check.

use std::path::PathBuf;

use pyo3::create_exception;
use pyo3::exceptions::{PyKeyError, PyOSError, PyTypeError, PyValueError};
use pyo3::intern;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyString};
use retro_game::{Outcome, Value};
use retro_query::{Answer, QueryError, View, signed_dtm};

create_exception!(
    retro_tablebase,
    MissingTableError,
    PyKeyError,
    "A table the answer needs is not in the directory (a KeyError, as in python-chess)."
);

/// The game a one-argument call (`probe(fen)`) is about.
const CHESS: &str = "chess";

/// A directory of tables, opened once; share it between threads.
///
/// `Tablebase(path, cache_bytes=DEFAULT_CACHE_BYTES)` opens `path` (the directory given to `retro generate --out`,
/// holding `chess/KQvK.rwdl` and the like). Methods taking a FEN take a python-chess `Board` as well (any object
/// with a `.fen()` method). Raises `OSError` when the directory cannot be read.
#[pyclass(frozen, module = "retro_tablebase")]
struct Tablebase {
    inner: retro_query::Tablebase,
    path: String,
}

#[pymethods]
impl Tablebase {
    #[new]
    #[pyo3(signature = (path, cache_bytes = retro_query::DEFAULT_CACHE_BYTES))]
    fn new(py: Python<'_>, path: PathBuf, cache_bytes: usize) -> PyResult<Tablebase> {
        let inner = py
            .detach(|| retro_query::Tablebase::with_cache(&path, cache_bytes))
            .map_err(to_py)?;
        Ok(Tablebase {
            inner,
            path: path.to_string_lossy().into_owned(),
        })
    }

    /// The directory of tables, as given.
    #[getter]
    fn path(&self) -> &str {
        &self.path
    }

    /// The games retro knows (`chess`, `tictactoe`, ...), as `probe(game, position)` takes them.
    #[staticmethod]
    fn games() -> Vec<&'static str> {
        retro_query::Tablebase::games()
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        let path = PyString::new(py, &self.path).repr()?;
        Ok(format!("Tablebase({path})"))
    }

    /// Win (`1`), draw (`0`) or loss (`-1`) for the side to move of a chess position (a FEN or a `Board`).
    fn probe_wdl(&self, py: Python<'_>, fen: &Bound<'_, PyAny>) -> PyResult<i32> {
        let text = position_text(fen)?;
        let text = text.to_str()?;
        let outcome = py.detach(|| self.inner.wdl(text)).map_err(to_py)?;
        Ok(match outcome {
            Outcome::Win => 1,
            Outcome::Draw => 0,
            Outcome::Loss => -1,
        })
    }

    /// Plies to mate for the side to move of a chess position: positive when it wins, negative (or `0`, when
    /// mated) when it loses, `None` for a draw.
    fn probe_dtm(&self, py: Python<'_>, fen: &Bound<'_, PyAny>) -> PyResult<Option<i64>> {
        let text = position_text(fen)?;
        let text = text.to_str()?;
        let value = py.detach(|| self.inner.value(text)).map_err(to_py)?;
        Ok(signed_dtm(value))
    }

    /// Everything about a position, as a dict in the shape of lichess's tablebase API.
    ///
    /// `probe(fen)` for chess (a FEN or a `Board`): `fen`, `category` (`"win"`, `"draw"`, `"loss"`), `dtm`
    /// (signed plies, `None` for a draw), `dtz` (always `None`: retro does not compute it), `checkmate`,
    /// `stalemate`, `insufficient_material`, and `moves`, best first, each with `uci`, `san`, and the `category`,
    /// `dtm`, flags and `fen` of the position it reaches, for the side to move there.
    ///
    /// `probe(game, position)` for any game: the same with `position` and `move` keys and the game's own flags.
    #[pyo3(signature = (game_or_fen, position = None, /))]
    fn probe<'py>(
        &self,
        py: Python<'py>,
        game_or_fen: &Bound<'py, PyAny>,
        position: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyDict>> {
        let answer = self.answer(py, game_or_fen, position)?;
        answer_dict(py, &answer)
    }

    /// The answer of `probe` as JSON text, exactly as the tablebase server sends it.
    #[pyo3(signature = (game_or_fen, position = None, /))]
    fn probe_json(
        &self,
        py: Python<'_>,
        game_or_fen: &Bound<'_, PyAny>,
        position: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<String> {
        Ok(self.answer(py, game_or_fen, position)?.to_json())
    }

    /// The best move (UCI for chess), or `None` when the game is over. `best_move(fen)` or
    /// `best_move(game, position)`.
    #[pyo3(signature = (game_or_fen, position = None, /))]
    fn best_move(
        &self,
        py: Python<'_>,
        game_or_fen: &Bound<'_, PyAny>,
        position: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Option<String>> {
        let answer = self.answer(py, game_or_fen, position)?;
        Ok(answer.best_move().map(str::to_owned))
    }

    /// The best line: the first best move each time, to the end of the game (a bounded number of plies for a
    /// draw), UCI for chess. `line(fen)` or `line(game, position)`.
    #[pyo3(signature = (game_or_fen, position = None, /))]
    fn line(
        &self,
        py: Python<'_>,
        game_or_fen: &Bound<'_, PyAny>,
        position: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Vec<String>> {
        let (game, text) = game_and_position(game_or_fen, position)?;
        let (game, text) = (game.to_str()?, text.to_str()?);
        py.detach(|| self.inner.line(game, text)).map_err(to_py)
    }
}

impl Tablebase {
    /// The answer for `probe(fen)` or `probe(game, position)`, read with the interpreter lock released.
    fn answer(
        &self,
        py: Python<'_>,
        game_or_fen: &Bound<'_, PyAny>,
        position: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Answer> {
        let (game, text) = game_and_position(game_or_fen, position)?;
        let (game, text) = (game.to_str()?, text.to_str()?);
        py.detach(|| self.inner.probe(game, text)).map_err(to_py)
    }
}

/// The game and the position text of a one- or two-argument call: `(fen)` is chess.
fn game_and_position<'py>(
    first: &Bound<'py, PyAny>,
    second: Option<&Bound<'py, PyAny>>,
) -> PyResult<(Bound<'py, PyString>, Bound<'py, PyString>)> {
    match second {
        None => Ok((intern!(first.py(), CHESS).clone(), position_text(first)?)),
        Some(position) => {
            let game = first.cast::<PyString>().map_err(|_| {
                PyTypeError::new_err(format!(
                    "the game must be a str, like 'chess', not {}",
                    type_name(first)
                ))
            })?;
            Ok((game.clone(), position_text(position)?))
        }
    }
}

/// A position's text: a `str` as it is, anything else through its `.fen()` method (python-chess's `Board`).
fn position_text<'py>(position: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyString>> {
    if let Ok(text) = position.cast::<PyString>() {
        return Ok(text.clone());
    }
    let py = position.py();
    if position.hasattr(intern!(py, "fen"))? {
        let fen = position.call_method0(intern!(py, "fen"))?;
        return fen.cast_into::<PyString>().map_err(|e| {
            PyTypeError::new_err(format!(
                "{}.fen() returned {}, not a str",
                type_name(position),
                type_name(e.into_inner().as_any())
            ))
        });
    }
    Err(PyTypeError::new_err(format!(
        "a position is a str (a FEN for chess) or a chess.Board, not {}",
        type_name(position)
    )))
}

fn type_name(object: &Bound<'_, PyAny>) -> String {
    object
        .get_type()
        .name()
        .map_or_else(|_| "an object".to_owned(), |name| name.to_string())
}

/// A query's error as the Python exception of its kind, with its one-line message.
fn to_py(e: QueryError) -> PyErr {
    let message = e.to_string();
    match e {
        QueryError::UnknownGame { .. } | QueryError::BadPosition(_) => {
            PyValueError::new_err(message)
        }
        QueryError::MissingTable(_) => MissingTableError::new_err(message),
        QueryError::Unreadable(_) => PyOSError::new_err(message),
    }
}

/// The answer as a dict with the keys of [`Answer::to_json`].
fn answer_dict<'py>(py: Python<'py>, answer: &Answer) -> PyResult<Bound<'py, PyDict>> {
    let chess = answer.game == CHESS;
    let dict = PyDict::new(py);
    dict.set_item(PyString::intern(py, answer.key), &answer.position)?;
    match answer.views.as_slice() {
        [view] if view.side.is_empty() => view_fields(py, &dict, view, chess)?,
        // A partizan graph, seen with each player to move: one dict per side, as in the JSON.
        views => {
            for view in views {
                let side = PyDict::new(py);
                view_fields(py, &side, view, chess)?;
                dict.set_item(PyString::intern(py, view.side), side)?;
            }
        }
    }
    Ok(dict)
}

fn view_fields<'py>(
    py: Python<'py>,
    dict: &Bound<'py, PyDict>,
    view: &View,
    chess: bool,
) -> PyResult<()> {
    value_fields(py, dict, view.value, chess)?;
    flag_fields(py, dict, &view.flags)?;
    let moves = PyList::empty(py);
    let (name_key, position_key) = if chess {
        (intern!(py, "uci"), intern!(py, "fen"))
    } else {
        (intern!(py, "move"), intern!(py, "position"))
    };
    for m in &view.moves {
        let entry = PyDict::new(py);
        entry.set_item(name_key, &m.name)?;
        if let Some(san) = &m.san {
            entry.set_item(intern!(py, "san"), san)?;
        }
        value_fields(py, &entry, m.value, chess)?;
        flag_fields(py, &entry, &m.flags)?;
        entry.set_item(position_key, m.after.as_deref())?;
        moves.append(entry)?;
    }
    dict.set_item(intern!(py, "moves"), moves)
}

/// `category`, `dtm` and, for chess, `dtz` (which retro does not compute: `None`, as lichess's `null`).
fn value_fields<'py>(
    py: Python<'py>,
    dict: &Bound<'py, PyDict>,
    value: Value,
    chess: bool,
) -> PyResult<()> {
    let category = match value.outcome() {
        Outcome::Win => intern!(py, "win"),
        Outcome::Draw => intern!(py, "draw"),
        Outcome::Loss => intern!(py, "loss"),
    };
    dict.set_item(intern!(py, "category"), category)?;
    dict.set_item(intern!(py, "dtm"), signed_dtm(value))?;
    if chess {
        dict.set_item(intern!(py, "dtz"), py.None())?;
    }
    Ok(())
}

fn flag_fields<'py>(
    py: Python<'py>,
    dict: &Bound<'py, PyDict>,
    flags: &[(&'static str, bool)],
) -> PyResult<()> {
    for (flag, on) in flags {
        dict.set_item(PyString::intern(py, flag), on)?;
    }
    Ok(())
}

/// Probe retro's endgame tables (chess, with python-chess's Board welcome, and every other game retro solves).
///
/// The module holds `Tablebase`, `MissingTableError`, `DEFAULT_CACHE_BYTES` and `__version__`.
#[pymodule]
fn retro_tablebase(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add_class::<Tablebase>()?;
    let missing = py.get_type::<MissingTableError>();
    // KeyError's str() quotes its message (it is meant for a key); ours is a sentence: print it as it is.
    let base_str = py
        .get_type::<pyo3::exceptions::PyBaseException>()
        .getattr(intern!(py, "__str__"))?;
    missing.setattr(intern!(py, "__str__"), base_str)?;
    m.add("MissingTableError", missing)?;
    m.add("DEFAULT_CACHE_BYTES", retro_query::DEFAULT_CACHE_BYTES)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
