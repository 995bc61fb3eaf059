/* Warm win/draw/loss probes per second of retro's C API beside Fathom's (the Syzygy probing library chess engines
 * use), on the same positions, and a check that the two libraries give the same answers.
 *
 *   FATHOM=/path/to/Fathom SYZYGY=/path/to/syzygy34 scripts/fathom-bench.sh [SECONDS] [REPS] [MEN,...]
 *
 * does it all (see that script for where Fathom and the Syzygy tables come from). By hand:
 *
 *   cargo build --release -p retro-c
 *   cc -std=gnu99 -O2 -march=x86-64-v2 -DTB_NO_HELPER_API -DNDEBUG -I$FATHOM/src -Icrates/c/include \
 *      scripts/fathom-bench.c $FATHOM/src/tbprobe.c -Ltarget/release -lretro_c -lpthread -o fathom-bench
 *   LD_LIBRARY_PATH=target/release ./fathom-bench RETRO_TABLES_DIR SYZYGY_DIR [SECONDS] [REPS] [MEN,...]
 *
 * It draws the positions examples/c/bench.c draws (examples/c/positions.h: the same generator, seed, default
 * materials and count: random squares for the kings and the material's men, a random side to move), keeping those
 * retro accepts (legal, and their table is in RETRO_TABLES_DIR) that Fathom can take too: the side not to move not
 * in check (checked here as well, though retro already refuses such positions), no castling rights, no en-passant
 * square (none is ever given). It holds them as bitboards, as an engine's search holds its positions.
 *
 * Then (a) it probes each position once with retro_probe_wdl and once with Fathom's tb_probe_wdl (rule50 = 0,
 * castling = 0, ep = 0), which also warms both, and compares the answers: Fathom's TB_CURSED_WIN counts as a win
 * and TB_BLESSED_LOSS as a loss, since retro's tables know no 50-move rule. It prints the counts and, on any
 * disagreement or failed probe, the first few positions as FENs, and exits with status 1 without timing.
 * (b) It times warm WDL probes of the positions, in a loop over them as examples/c/bench.c does, for SECONDS
 * (default 2) with each library in turn, retro, Fathom, retro, Fathom ... for REPS rounds (default 3), in one
 * thread, printing the million probes per second of each run, then the median of the rounds for each.
 *
 * MEN,... replaces the materials drawn from, as in examples/c/bench.c: each material by its men besides the kings,
 * White's in capitals ("Q,Rr" draws from KQvK and KRvKR). Fathom is given SYZYGY_DIR through tb_init (it maps the
 * .rtbw files whole; its DTZ files are not used here); retro opens RETRO_TABLES_DIR (e.g. tablebases/chess) with
 * its default block cache.
 *
 * Both libraries search captures at probe time: a Fathom WDL probe of a position with a capture probes the tables
 * the captures reach, as Syzygy's probing code does; retro's does so (captures and promotions) where its table
 * stores a floor of the value rather than the value (FORMAT.md), most positions that are not wins. */

#define _POSIX_C_SOURCE 200809L

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../examples/c/positions.h"
#include "retro.h"
#include "tbprobe.h"

static retro_status retro_wdl_of(const retro_tablebase *tb, const board *b, retro_wdl *wdl) {
    return retro_probe_wdl(tb, b->white, b->black, b->kings, b->queens, b->rooks, b->bishops, b->knights, b->pawns,
                           RETRO_NO_EP, b->white_to_move, wdl);
}

/* Fathom's answer: TB_LOSS ... TB_WIN, or TB_RESULT_FAILED. No 50-move clock, castling rights or en passant. */
static unsigned fathom_wdl_of(const board *b) {
    return tb_probe_wdl(b->white, b->black, b->kings, b->queens, b->rooks, b->bishops, b->knights, b->pawns, 0, 0, 0,
                        b->white_to_move);
}

/* Fathom's answer as retro's category: cursed wins are wins, blessed losses are losses. */
static int fathom_category(unsigned v) {
    return v >= TB_CURSED_WIN ? RETRO_WIN : v <= TB_BLESSED_LOSS ? RETRO_LOSS : RETRO_DRAW;
}

static int on_board(int rank, int file) { return rank >= 0 && rank < 8 && file >= 0 && file < 8; }

/* Whether a man of the side `by_white` names attacks square `sq`. */
static int attacked(const board *b, int sq, int by_white) {
    static const int knight[8][2] = {{1, 2}, {2, 1}, {2, -1}, {1, -2}, {-1, -2}, {-2, -1}, {-2, 1}, {-1, 2}};
    static const int king[8][2] = {{1, 0}, {1, 1}, {0, 1}, {-1, 1}, {-1, 0}, {-1, -1}, {0, -1}, {1, -1}};
    uint64_t by = by_white ? b->white : b->black, occupied = b->white | b->black;
    int rank = sq / 8, file = sq % 8;
    for (int i = 0; i < 8; i++) {
        int r = rank + knight[i][0], f = file + knight[i][1];
        if (on_board(r, f) && (by & b->knights) >> (r * 8 + f) & 1) return 1;
        r = rank + king[i][0], f = file + king[i][1];
        if (on_board(r, f) && (by & b->kings) >> (r * 8 + f) & 1) return 1;
    }
    /* A white pawn attacks from the rank below, a black one from the rank above. */
    int pawn_rank = by_white ? rank - 1 : rank + 1;
    for (int df = -1; df <= 1; df += 2)
        if (on_board(pawn_rank, file + df) && (by & b->pawns) >> (pawn_rank * 8 + file + df) & 1) return 1;
    /* Sliders: the first four directions are a rook's, the last four a bishop's. */
    for (int i = 0; i < 8; i++) {
        uint64_t sliders = by & (b->queens | (i % 2 == 0 ? b->rooks : b->bishops));
        for (int r = rank + king[i][0], f = file + king[i][1]; on_board(r, f); r += king[i][0], f += king[i][1]) {
            if (sliders >> (r * 8 + f) & 1) return 1;
            if (occupied >> (r * 8 + f) & 1) break;
        }
    }
    return 0;
}

/* Whether Fathom can probe the position: the side not to move is not in check (no castling rights or en-passant
 * square are ever given here). */
static int fathom_legal(const board *b) {
    uint64_t king = b->kings & (b->white_to_move ? b->black : b->white);
    if (king == 0) return 0;
    return !attacked(b, __builtin_ctzll(king), b->white_to_move);
}

/* The position as a FEN, to show a disagreement. */
static void fen_of(const board *b, char *out) {
    char *p = out;
    for (int rank = 7; rank >= 0; rank--) {
        int empty = 0;
        for (int file = 0; file < 8; file++) {
            uint64_t bit = (uint64_t)1 << (rank * 8 + file);
            char man = b->kings & bit ? 'k' : b->queens & bit ? 'q' : b->rooks & bit ? 'r' : b->bishops & bit ? 'b'
                     : b->knights & bit ? 'n' : b->pawns & bit ? 'p' : 0;
            if (!man) {
                empty++;
                continue;
            }
            if (empty) *p++ = (char)('0' + empty);
            empty = 0;
            *p++ = b->white & bit ? (char)(man - 32) : man;
        }
        if (empty) *p++ = (char)('0' + empty);
        if (rank) *p++ = '/';
    }
    sprintf(p, " %c - - 0 1", b->white_to_move ? 'w' : 'b');
}

static const char *category_name(int c) { return c > 0 ? "win" : c < 0 ? "loss" : "draw"; }

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* Probes the positions in a loop for `seconds` with retro (tb not NULL) or Fathom; returns the probes per second.
 * Adds the answers to *checksum and the failed probes to *errors. */
static double measure(const retro_tablebase *tb, const board *boards, size_t count, double seconds, long *checksum,
                      long *errors) {
    uint64_t probes = 0;
    double start = now(), elapsed = 0;
    size_t i = 0;
    while (elapsed < seconds) {
        /* Check the clock every 4096 probes only. */
        if (tb) {
            for (int k = 0; k < 4096; k++) {
                retro_wdl wdl = RETRO_DRAW;
                *errors += retro_wdl_of(tb, &boards[i], &wdl) != RETRO_OK;
                *checksum += (long)wdl;
                if (++i == count) i = 0;
            }
        } else {
            for (int k = 0; k < 4096; k++) {
                unsigned v = fathom_wdl_of(&boards[i]);
                *errors += v == TB_RESULT_FAILED;
                *checksum += (long)v;
                if (++i == count) i = 0;
            }
        }
        probes += 4096;
        elapsed = now() - start;
    }
    return (double)probes / elapsed;
}

int main(int argc, char **argv) {
    if (argc < 3 || argc > 6) {
        fprintf(stderr, "usage: %s RETRO_TABLES_DIR SYZYGY_DIR [SECONDS] [REPS] [MEN,...]\n", argv[0]);
        return 2;
    }
    double seconds = argc > 3 ? atof(argv[3]) : 2.0;
    int reps = argc > 4 ? atoi(argv[4]) : 3;
    if (seconds <= 0 || reps < 1 || reps > 1000) {
        fprintf(stderr, "SECONDS must be positive and REPS 1 to 1000\n");
        return 2;
    }
    size_t materials = materials_from(argc > 5 ? argv[5] : NULL);
    if (materials == 0) return 2;
    retro_tablebase *tb = NULL;
    if (retro_open(argv[1], &tb) != RETRO_OK) {
        fprintf(stderr, "%s\n", retro_last_error());
        return 1;
    }
    if (!tb_init(argv[2]) || TB_LARGEST == 0) {
        fprintf(stderr, "Fathom found no Syzygy table in %s\n", argv[2]);
        retro_close(tb);
        return 1;
    }
    printf("retro: tables of up to %u men in %s; Fathom: Syzygy tables of up to %u men in %s\n", retro_largest(tb),
           argv[1], TB_LARGEST, argv[2]);

    /* examples/c/bench.c's drawing, with Fathom's condition added to retro's. */
    enum { COUNT = 1 << 16 };
    board *boards = malloc(COUNT * sizeof *boards);
    size_t count = 0, tries = 0, illegal_for_fathom = 0;
    while (count < COUNT && tries < 100 * (size_t)COUNT) {
        board b = random_board(MATERIALS[tries++ % materials]);
        retro_wdl wdl;
        if (retro_wdl_of(tb, &b, &wdl) != RETRO_OK) continue;
        if (!fathom_legal(&b)) {
            illegal_for_fathom++;
            continue;
        }
        boards[count++] = b;
    }
    if (count == 0) {
        fprintf(stderr, "no position of the benchmark's materials could be probed in %s\n", argv[1]);
        return 1;
    }
    printf("%zu positions of %zu materials (%zu more that retro accepted were illegal for Fathom)\n", count,
           materials, illegal_for_fathom);

    /* (a) Agreement, which also warms both libraries. */
    enum { SHOWN = 5 };
    size_t wins = 0, draws = 0, losses = 0, cursed = 0, blessed = 0, differ = 0, failed = 0;
    for (size_t i = 0; i < count; i++) {
        retro_wdl ours = RETRO_DRAW;
        retro_status s = retro_wdl_of(tb, &boards[i], &ours);
        unsigned theirs = fathom_wdl_of(&boards[i]);
        char fen[100];
        if (s != RETRO_OK || theirs == TB_RESULT_FAILED) {
            if (failed++ < SHOWN) {
                fen_of(&boards[i], fen);
                fprintf(stderr, "probe failed: %s: %s\n", fen,
                        s != RETRO_OK ? retro_last_error() : "Fathom's tb_probe_wdl returned TB_RESULT_FAILED");
            }
            continue;
        }
        if ((int)ours != fathom_category(theirs)) {
            if (differ++ < SHOWN) {
                fen_of(&boards[i], fen);
                fprintf(stderr, "disagreement: %s: retro %s, Fathom %s (tb_probe_wdl %u)\n", fen, category_name(ours),
                        category_name(fathom_category(theirs)), theirs);
            }
            continue;
        }
        wins += ours == RETRO_WIN;
        draws += ours == RETRO_DRAW;
        losses += ours == RETRO_LOSS;
        cursed += theirs == TB_CURSED_WIN;
        blessed += theirs == TB_BLESSED_LOSS;
    }
    if (differ || failed) {
        fprintf(stderr, "agreement check FAILED: %zu of %zu positions disagree, %zu probes failed\n", differ, count,
                failed);
        free(boards);
        tb_free();
        retro_close(tb);
        return 1;
    }
    printf("agreement: retro and Fathom agree on all %zu positions: %zu wins (%zu of them cursed for Fathom), "
           "%zu draws, %zu losses (%zu blessed)\n", count, wins, cursed, draws, losses, blessed);
    fflush(stdout);

    /* (b) Warm probes, the two libraries alternated. */
    double *rates[2];
    rates[0] = malloc((size_t)reps * sizeof(double));
    rates[1] = malloc((size_t)reps * sizeof(double));
    long checksum = 0, errors[2] = {0, 0};
    static const char *names[2] = {"retro_probe_wdl", "Fathom tb_probe_wdl"};
    printf("warm WDL probes, one thread, %.1f s each, %d round%s\n", seconds, reps, reps == 1 ? "" : "s");
    for (int r = 0; r < reps; r++) {
        for (int lib = 0; lib < 2; lib++) {
            double rate = measure(lib == 0 ? tb : NULL, boards, count, seconds, &checksum, &errors[lib]);
            rates[lib][r] = rate;
            printf("round %d: %-20s %6.2f million probes/s (%.0f ns a probe)\n", r + 1, names[lib], rate / 1e6,
                   1e9 / rate);
            fflush(stdout);
        }
    }
    for (int lib = 0; lib < 2; lib++) {
        if (errors[lib]) fprintf(stderr, "%s: %ld probes failed\n", names[lib], errors[lib]);
        qsort(rates[lib], (size_t)reps, sizeof(double), by_value);
        double median = rates[lib][reps / 2];
        printf("median of %d: %-20s %6.2f million probes/s (%.0f ns a probe)\n", reps, names[lib], median / 1e6,
               1e9 / median);
    }
    printf("(checksum %ld)\n", checksum);
    int status = errors[0] || errors[1];
    free(rates[0]);
    free(rates[1]);
    free(boards);
    tb_free();
    retro_close(tb);
    return status;
}
