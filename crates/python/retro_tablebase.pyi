"""Type stubs of retro_tablebase: retro's endgame tables probed from Python (src/lib.rs implements them).

maturin ships this file in the wheel, with a py.typed marker, so that type checkers and editors see the API.
"""

from os import PathLike
from typing import Any, Literal, Protocol

__version__: str
DEFAULT_CACHE_BYTES: int
"""The bytes of decompressed blocks a Tablebase keeps by default."""

class _HasFen(Protocol):
    """A python-chess ``chess.Board``, or anything else with a ``.fen()`` method."""

    def fen(self) -> str: ...

_Position = str | _HasFen
"""A position: a FEN (or a position of another game) as text, or a python-chess Board."""

class MissingTableError(KeyError):
    """A table the answer needs is not in the directory (a KeyError, as python-chess's own MissingTableError)."""

class Tablebase:
    """A directory of tables (the ``--out`` of ``retro generate``), opened once; share it between threads.

    Raises OSError when the directory cannot be read.
    """

    def __init__(self, path: str | PathLike[str], cache_bytes: int = ...) -> None: ...
    @property
    def path(self) -> str:
        """The directory of tables, as given."""

    @staticmethod
    def games() -> list[str]:
        """The games retro knows (``chess``, ``tictactoe``, ...), as ``probe(game, position)`` takes them."""

    def probe_wdl(self, fen: _Position) -> Literal[-1, 0, 1]:
        """1 win, 0 draw, -1 loss for the side to move of a chess position (python-chess's Gaviota ints)."""

    def probe_dtm(self, fen: _Position) -> int | None:
        """Plies to mate for the side to move: positive when it wins, negative (0 when mated) when it loses,
        None for a draw."""

    def probe(self, game_or_fen: _Position, position: _Position | None = None, /) -> dict[str, Any]:
        """Everything about a position, as a dict in the shape of lichess's tablebase API (the server's answer).

        ``probe(fen)`` for chess; ``probe(game, position)`` for any game.
        """

    def probe_json(self, game_or_fen: _Position, position: _Position | None = None, /) -> str:
        """``probe``'s answer as the JSON text the tablebase server sends."""

    def best_move(self, game_or_fen: _Position, position: _Position | None = None, /) -> str | None:
        """The best move (UCI for chess), None when the game is over."""

    def line(self, game_or_fen: _Position, position: _Position | None = None, /) -> list[str]:
        """The best line (UCI for chess): to the end of the game, or a bounded number of plies for a draw."""
