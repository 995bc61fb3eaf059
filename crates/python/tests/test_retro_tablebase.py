"""The Python package retro_tablebase, tested from Python against the shipped 3- and 4-man chess tables.

The positions and values are those of the Rust tests (crates/query/src/tablebase.rs, crates/driver/tests/chess.rs),
so Python is seen to agree with `retro probe`, the C library and the server. scripts/python-test.sh builds the wheel,
installs it in a fresh virtual environment with pytest and python-chess, builds a tic-tac-toe table with the retro
CLI and runs this file; RETRO_TICTACTOE_TABLES names that table's directory.
"""

import json
import os
import threading
from pathlib import Path

import chess
import pytest

import retro_tablebase
from retro_tablebase import MissingTableError, Tablebase

REPO = Path(__file__).resolve().parents[3]
SHIPPED = REPO / "tablebases" / "chess"

KQK_WIN = "8/8/8/8/8/2k5/8/KQ6 w - - 0 1"
KRK_LOSS = "8/8/8/4k3/8/8/8/KR6 b - - 0 1"
MATE_IN_ONE = "k7/8/1K6/8/8/8/8/2Q5 w - - 0 1"
MATED = "k7/1Q6/1K6/8/8/8/8/8 b - - 0 1"
STALEMATE = "k7/2Q5/1K6/8/8/8/8/8 b - - 0 1"
BARE_KINGS = "k7/8/1K6/8/8/8/8/8 w - - 0 1"
PROMOTION = "8/4P3/8/8/8/8/k7/4K3 w - - 0 1"
# White has just pushed d2d4: Black may take en passant (the tables do not store it; a search does).
EN_PASSANT = "8/8/8/8/3Pp3/8/8/K6k b - d3 0 1"
# The FENs of crates/query/src/tablebase.rs, and the ones above.
FENS = [
    KQK_WIN,
    KRK_LOSS,
    "8/8/8/8/8/8/k3P3/4K3 w - - 0 1",
    "8/8/3k4/8/8/8/8/KBN5 w - - 0 1",
    "8/8/8/2k5/8/8/1r6/KR6 w - - 0 1",
    EN_PASSANT,
    MATE_IN_ONE,
    MATED,
    STALEMATE,
    BARE_KINGS,
    PROMOTION,
    "8/8/8/3pP3/8/8/8/K6k w - d6 0 1",
]

CHESS_KEYS = ["fen", "category", "dtm", "dtz", "checkmate", "stalemate", "insufficient_material", "moves"]
MOVE_KEYS = ["uci", "san", "category", "dtm", "dtz", "checkmate", "stalemate", "insufficient_material", "fen"]


@pytest.fixture(scope="module")
def tb():
    return Tablebase(SHIPPED)


@pytest.fixture(scope="module")
def tictactoe():
    """The tic-tac-toe table built by scripts/python-test.sh (`retro generate tictactoe --out DIR`)."""
    tables = os.environ.get("RETRO_TICTACTOE_TABLES")
    if not tables:
        pytest.fail("RETRO_TICTACTOE_TABLES is not set: run scripts/python-test.sh, which builds the table")
    return Tablebase(tables)


def mover_dtm(reached):
    """The mover's signed distance of a move, from the one of the position it reaches (for the side to move there)."""
    return -reached + 1 if reached <= 0 else -(reached + 1)


def test_the_module_says_what_it_is():
    assert retro_tablebase.__version__ == "0.1.0"
    assert isinstance(retro_tablebase.DEFAULT_CACHE_BYTES, int)
    assert "tictactoe" in Tablebase.games() and "chess" in Tablebase.games()
    assert repr(Tablebase(str(SHIPPED))) == f"Tablebase({str(SHIPPED)!r})"


def test_wdl_and_dtm_of_known_positions(tb):
    assert tb.probe_wdl(KQK_WIN) == 1
    assert tb.probe_dtm(KQK_WIN) == 11
    assert tb.probe_wdl(KRK_LOSS) == -1
    assert tb.probe_dtm(KRK_LOSS) == -30
    assert tb.probe_wdl(MATE_IN_ONE) == 1 and tb.probe_dtm(MATE_IN_ONE) == 1
    # Mated: lost in 0 plies, which None (a draw) must not be confused with.
    assert tb.probe_wdl(MATED) == -1 and tb.probe_dtm(MATED) == 0
    assert tb.probe_wdl(STALEMATE) == 0 and tb.probe_dtm(STALEMATE) is None
    assert tb.probe_wdl(BARE_KINGS) == 0 and tb.probe_dtm(BARE_KINGS) is None
    assert type(tb.probe_wdl(KQK_WIN)) is int


def test_probe_is_the_servers_answer(tb):
    for fen in FENS:
        answer = tb.probe(fen)
        assert answer == json.loads(tb.probe_json(fen)), fen
        assert list(answer) == CHESS_KEYS, fen
        assert answer["fen"] == fen
        assert answer["dtz"] is None
        assert answer["dtm"] == tb.probe_dtm(fen), fen
        assert {"win": 1, "draw": 0, "loss": -1}[answer["category"]] == tb.probe_wdl(fen), fen
        for move in answer["moves"]:
            assert list(move) == MOVE_KEYS, (fen, move)
            # A move's values are those of the position it reaches, for the side to move there.
            assert move["dtm"] == tb.probe_dtm(move["fen"]), (fen, move)
            assert move["category"] == tb.probe(move["fen"])["category"], (fen, move)


def test_moves_come_best_first_with_python_chess_san(tb):
    for fen in FENS:
        answer = tb.probe(fen)
        board = chess.Board(fen)
        assert sorted(m["uci"] for m in answer["moves"]) == sorted(m.uci() for m in board.legal_moves), fen
        for move in answer["moves"]:
            played = chess.Move.from_uci(move["uci"])
            assert move["san"] == board.san(played), (fen, move)
            after = board.copy()
            after.push(played)
            # retro's FENs carry no move counters (they read "0 1"): compare the rest.
            assert move["fen"].split()[:4] == after.fen().split()[:4], (fen, move)
        if answer["moves"]:
            best = answer["moves"][0]
            assert tb.best_move(fen) == best["uci"]
            # The best move's value, seen from the mover, is the position's.
            if best["dtm"] is not None:
                assert mover_dtm(best["dtm"]) == answer["dtm"], fen
            else:
                assert answer["category"] == "draw", fen


def test_mate_in_one_says_so(tb):
    answer = tb.probe(MATE_IN_ONE)
    assert answer["category"] == "win" and answer["dtm"] == 1
    assert answer["checkmate"] is False
    best = answer["moves"][0]
    assert best["san"].endswith("#"), best
    assert best["category"] == "loss" and best["dtm"] == 0 and best["checkmate"] is True
    assert tb.best_move(MATE_IN_ONE) == best["uci"]


def test_flags_say_checkmate_stalemate_and_insufficient_material(tb):
    mated = tb.probe(MATED)
    assert (mated["category"], mated["dtm"], mated["moves"]) == ("loss", 0, [])
    assert (mated["checkmate"], mated["stalemate"], mated["insufficient_material"]) == (True, False, False)
    stalemate = tb.probe(STALEMATE)
    assert (stalemate["category"], stalemate["dtm"], stalemate["moves"]) == ("draw", None, [])
    assert (stalemate["checkmate"], stalemate["stalemate"]) == (False, True)
    bare = tb.probe(BARE_KINGS)
    assert bare["category"] == "draw" and bare["insufficient_material"] is True
    assert all(m["insufficient_material"] for m in bare["moves"])


def test_a_promotion_is_a_move_into_the_smaller_table(tb):
    answer = tb.probe(PROMOTION)
    assert answer["category"] == "win"
    queen = next(m for m in answer["moves"] if m["uci"] == "e7e8q")
    assert queen["san"] == "e8=Q"
    assert queen["fen"] == "4Q3/8/8/8/8/8/k7/4K3 b - - 0 1"


def test_en_passant_is_searched(tb):
    answer = tb.probe(EN_PASSANT)
    assert "e4d3" in [m["uci"] for m in answer["moves"]]
    assert next(m for m in answer["moves"] if m["uci"] == "e4d3")["san"] == "exd3"


def test_game_over_has_no_best_move_nor_line(tb):
    for fen in (MATED, STALEMATE):
        assert tb.best_move(fen) is None
        assert tb.line(fen) == []


def test_the_line_of_a_win_ends_in_mate(tb):
    for fen in (KQK_WIN, KRK_LOSS, MATE_IN_ONE, "8/8/3k4/8/8/8/8/KBN5 w - - 0 1"):
        line = tb.line(fen)
        assert len(line) == abs(tb.probe_dtm(fen)), fen
        assert line[0] == tb.best_move(fen), fen
        board = chess.Board(fen)
        for uci in line:
            board.push_uci(uci)  # raises on an illegal move
        assert board.is_checkmate(), (fen, line)


def test_a_python_chess_board_is_a_position(tb):
    board = chess.Board(KQK_WIN)
    assert tb.probe_wdl(board) == 1
    assert tb.probe_dtm(board) == 11
    assert tb.probe(board) == tb.probe(KQK_WIN)
    assert tb.probe("chess", board) == tb.probe(KQK_WIN)
    assert tb.best_move(board) == tb.best_move(KQK_WIN)
    # Follow the best move on the board: the distance shrinks by one each ply, to mate.
    while not board.is_game_over():
        before = abs(tb.probe_dtm(board))
        board.push_uci(tb.best_move(board))
        assert abs(tb.probe_dtm(board)) == before - 1, board.fen()
    assert board.is_checkmate()


def test_any_object_with_a_fen_method_is_a_position(tb):
    class Fen:
        def fen(self):
            return KQK_WIN

    class NotText:
        def fen(self):
            return 42

    assert tb.probe_wdl(Fen()) == 1
    with pytest.raises(TypeError, match=r"NotText\.fen\(\) returned int, not a str"):
        tb.probe_wdl(NotText())
    with pytest.raises(TypeError, match="a position is a str .* not int"):
        tb.probe_wdl(42)
    with pytest.raises(TypeError, match="the game must be a str"):
        tb.probe(1, KQK_WIN)


def test_malformed_and_illegal_positions_are_value_errors(tb):
    with pytest.raises(ValueError, match=r"^malformed FEN") as caught:
        tb.probe_wdl("8/8/8 w - - 0 1")
    assert "\n" not in str(caught.value)
    for probe in (tb.probe_wdl, tb.probe_dtm, tb.probe, tb.best_move, tb.line):
        with pytest.raises(ValueError, match="malformed FEN"):
            probe("not a fen")
    # Two white kings side by side.
    with pytest.raises(ValueError):
        tb.probe("8/8/8/8/8/8/8/KK5k w - - 0 1")


def test_a_missing_table_raises_missing_table_error(tb):
    fen = "8/8/8/3k4/8/8/1r6/KRQ5 w - - 0 1"
    with pytest.raises(MissingTableError) as caught:
        tb.probe_wdl(fen)
    assert isinstance(caught.value, KeyError) and isinstance(caught.value, LookupError)
    message = str(caught.value)
    assert "KQRvKR" in message and "\n" not in message
    # The sentence as it is, without the quotes KeyError puts round a key.
    assert message.startswith("no table KQRvKR"), message
    for probe in (tb.probe_dtm, tb.probe, tb.best_move, tb.line):
        with pytest.raises(MissingTableError):
            probe(fen)


def test_an_unknown_game_is_a_value_error(tb):
    with pytest.raises(ValueError, match=r'^unknown game "go" \(known: .*tictactoe'):
        tb.probe("go", "anything")


def test_an_unreadable_directory_is_an_os_error(tmp_path):
    with pytest.raises(OSError, match="cannot open the tables"):
        Tablebase(tmp_path / "nowhere")


def test_a_corrupt_table_is_an_os_error(tmp_path):
    (tmp_path / "chess").mkdir()
    for suffix in (".rwdl", ".rdst"):
        (tmp_path / "chess" / f"KQvK{suffix}").write_bytes(b"not a table")
    with pytest.raises(OSError):
        Tablebase(tmp_path).probe_wdl(KQK_WIN)


def test_tictactoe_through_probe_game_position(tictactoe):
    answer = tictactoe.probe("tictactoe", "xx./oo./...")
    assert answer == json.loads(tictactoe.probe_json("tictactoe", "xx./oo./..."))
    assert (answer["position"], answer["category"], answer["dtm"]) == ("xx./oo./...", "win", 1)
    assert "dtz" not in answer and "fen" not in answer
    best = answer["moves"][0]
    # X completes the top row: the game is over, and O, to move there, has lost.
    assert (best["category"], best["dtm"]) == ("loss", 0)
    assert set(best) >= {"move", "category", "dtm", "position"}
    assert tictactoe.best_move("tictactoe", "xx./oo./...") == best["move"]
    assert tictactoe.line("tictactoe", "xx./oo./...") == [best["move"]]
    start = tictactoe.probe("tictactoe", ".../.../...")
    assert start["category"] == "draw" and start["dtm"] is None
    assert len(start["moves"]) == 9 and all(m["category"] == "draw" for m in start["moves"])
    with pytest.raises(ValueError):
        tictactoe.probe("tictactoe", "xq./.../...")
    # The chess tables are not in this directory.
    with pytest.raises(MissingTableError):
        tictactoe.probe_wdl(KQK_WIN)


def test_threads_probe_at_once_and_agree(tb):
    expected = {fen: (tb.probe_wdl(fen), tb.probe_dtm(fen), tb.probe(fen)) for fen in FENS}
    failures = []
    start = threading.Barrier(4)

    def work(offset):
        start.wait()
        for round in range(20):
            for fen in FENS[offset:] + FENS[:offset]:
                got = (tb.probe_wdl(fen), tb.probe_dtm(fen), tb.probe(fen))
                if got != expected[fen]:
                    failures.append((fen, got))

    threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert failures == []
