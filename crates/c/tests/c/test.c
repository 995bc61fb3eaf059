/* The C side of retro-c's test (tests/c_api.rs compiles and runs it): a C program written against retro.h alone.
 *
 * Usage: test DIR < FENS
 *
 * For each FEN on standard input it prints one line, which the Rust side compares with what retro_query says of
 * the same FEN:
 *
 *   fen=S:WDL:DTM bb=S:WDL:DTM root=S:COUNT:MOVES json=S:LEN:HASH
 *
 * where S is the retro_status of the call, "fen" probes the FEN text, "bb" probes the bitboards this file reads
 * from the FEN itself (so the square numbering of the header is checked from C), "root" lists the root moves as
 * uci:wdl:dtm (best first), and "json" gives the length and the FNV-1a hash of retro_probe_json's text. A field
 * the call did not give is "-".
 *
 * Along the way, and after the last FEN, it checks what C alone can see (the FEN and bitboard probes agree, the
 * length protocols, errors and their messages, several handles) and prints "FAIL: ..." to stderr for each check
 * that fails.
 * The last line is "checks N failed F"; the exit status is 0 only when nothing failed. */

#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "retro.h"

static int checks = 0;
static int failed = 0;

#define CHECK(cond, ...)                          \
    do {                                          \
        checks++;                                 \
        if (!(cond)) {                            \
            failed++;                             \
            fprintf(stderr, "FAIL: line %d: ", __LINE__); \
            fprintf(stderr, __VA_ARGS__);         \
            fprintf(stderr, " (last error: %s)\n", retro_last_error()); \
        }                                         \
    } while (0)

/* A position as Fathom's callers hold it. */
typedef struct {
    uint64_t white, black, kings, queens, rooks, bishops, knights, pawns;
    unsigned ep;
    bool white_to_move;
} board;

/* Reads the placement, side to move and en-passant fields of a FEN into bitboards (a1 = bit 0, h8 = bit 63).
 * Returns false for text it cannot read, or for castling rights (which the tables never have). */
static bool read_fen(const char *fen, board *b) {
    memset(b, 0, sizeof *b);
    int rank = 7, file = 0;
    const char *p = fen;
    for (; *p && *p != ' '; p++) {
        char c = *p;
        if (c == '/') {
            if (file != 8 || rank == 0) return false;
            rank--;
            file = 0;
        } else if (c >= '1' && c <= '8') {
            file += c - '0';
            if (file > 8) return false;
        } else {
            if (file >= 8) return false;
            uint64_t bit = (uint64_t)1 << (rank * 8 + file);
            uint64_t *role;
            switch (c | 0x20) {
            case 'k': role = &b->kings; break;
            case 'q': role = &b->queens; break;
            case 'r': role = &b->rooks; break;
            case 'b': role = &b->bishops; break;
            case 'n': role = &b->knights; break;
            case 'p': role = &b->pawns; break;
            default: return false;
            }
            *role |= bit;
            if (c >= 'a') b->black |= bit; else b->white |= bit;
            file++;
        }
    }
    if (rank != 0 || file != 8 || *p != ' ') return false;
    p++;
    if (*p != 'w' && *p != 'b') return false;
    b->white_to_move = *p == 'w';
    p++;
    if (*p == 0) return true;
    if (strncmp(p, " - ", 3) != 0 && strcmp(p, " -") != 0) return false;
    p += 2;
    if (*p == 0) return true;
    p++;
    if (p[0] == '-') return true;
    if (p[0] < 'a' || p[0] > 'h' || p[1] < '1' || p[1] > '8') return false;
    b->ep = (unsigned)((p[1] - '1') * 8 + (p[0] - 'a'));
    return true;
}

static uint64_t fnv1a(const char *s) {
    uint64_t h = 0xcbf29ce484222325u;
    for (; *s; s++) {
        h ^= (unsigned char)*s;
        h *= 0x100000001b3u;
    }
    return h;
}

/* Whether a is at least as good as b for the side making the moves: wins by quicker mates first, then draws,
 * then losses by slower mates. */
static bool not_worse(const retro_move *a, const retro_move *b) {
    if (a->wdl != b->wdl) return a->wdl > b->wdl;
    if (a->wdl == RETRO_WIN) return a->dtm <= b->dtm;
    if (a->wdl == RETRO_LOSS) return a->dtm <= b->dtm;  /* -20 (mated in 20) before -4 */
    return true;
}

/* Field by field: the padding bytes of a struct are not part of its value. */
static bool same_moves(const retro_move *a, const retro_move *b, size_t count) {
    for (size_t i = 0; i < count; i++) {
        if (a[i].from != b[i].from || a[i].to != b[i].to || a[i].promotes != b[i].promotes ||
            strcmp(a[i].uci, b[i].uci) != 0 || a[i].wdl != b[i].wdl || a[i].dtm != b[i].dtm)
            return false;
    }
    return true;
}

static void probe_line(const retro_tablebase *tb, const retro_tablebase *other, const char *fen) {
    retro_wdl wdl = RETRO_DRAW;
    int32_t dtm = 0;
    retro_status s = retro_probe_dtm_fen(tb, fen, &wdl, &dtm);
    if (s == RETRO_OK) printf("fen=%d:%d:%d", s, wdl, dtm); else printf("fen=%d:-:-", s);

    retro_wdl only = RETRO_DRAW;
    retro_status s_only = retro_probe_wdl_fen(tb, fen, &only);
    CHECK(s_only == s && (s != RETRO_OK || only == wdl), "wdl_fen %d:%d against dtm_fen %d:%d for %s", s_only,
          only, s, wdl, fen);
    if (s != RETRO_OK) CHECK(strlen(retro_last_error()) > 0, "no message for status %d of %s", s, fen);

    board b;
    if (read_fen(fen, &b)) {
        retro_wdl bwdl = RETRO_DRAW, bonly = RETRO_DRAW;
        int32_t bdtm = 0;
        retro_status bs = retro_probe_dtm(tb, b.white, b.black, b.kings, b.queens, b.rooks, b.bishops, b.knights,
                                          b.pawns, b.ep, b.white_to_move, &bwdl, &bdtm);
        if (bs == RETRO_OK) printf(" bb=%d:%d:%d", bs, bwdl, bdtm); else printf(" bb=%d:-:-", bs);
        retro_status bs_only = retro_probe_wdl(tb, b.white, b.black, b.kings, b.queens, b.rooks, b.bishops,
                                               b.knights, b.pawns, b.ep, b.white_to_move, &bonly);
        CHECK(bs_only == bs && (bs != RETRO_OK || bonly == bwdl), "probe_wdl %d:%d against probe_dtm %d:%d for %s",
              bs_only, bonly, bs, bwdl, fen);
        /* Another handle on the same directory answers alike. */
        retro_wdl owdl = RETRO_DRAW;
        retro_status os = retro_probe_wdl(other, b.white, b.black, b.kings, b.queens, b.rooks, b.bishops,
                                          b.knights, b.pawns, b.ep, b.white_to_move, &owdl);
        CHECK(os == bs && (bs != RETRO_OK || owdl == bwdl), "second handle %d:%d against %d:%d for %s", os, owdl,
              bs, bwdl, fen);

        retro_move from_bits[RETRO_MAX_MOVES];
        size_t bits_count = 0;
        retro_status rb = retro_probe_root(tb, b.white, b.black, b.kings, b.queens, b.rooks, b.bishops, b.knights,
                                           b.pawns, b.ep, b.white_to_move, from_bits, RETRO_MAX_MOVES, &bits_count);
        retro_move from_fen[RETRO_MAX_MOVES];
        size_t fen_count = 0;
        retro_status rf = retro_probe_root_fen(tb, fen, from_fen, RETRO_MAX_MOVES, &fen_count);
        CHECK(rb == rf, "root status %d from bitboards, %d from the FEN %s", rb, rf, fen);
        if (rb == RETRO_OK && rf == RETRO_OK) {
            CHECK(bits_count == fen_count && same_moves(from_bits, from_fen, bits_count),
                  "root moves from bitboards and from the FEN differ for %s", fen);
        }
    } else {
        printf(" bb=-:-:-");
    }

    retro_move moves[RETRO_MAX_MOVES];
    size_t count = 0;
    retro_status rs = retro_probe_root_fen(tb, fen, moves, RETRO_MAX_MOVES, &count);
    if (rs == RETRO_OK) {
        printf(" root=%d:%zu:", rs, count);
        for (size_t i = 0; i < count; i++) {
            const retro_move *m = &moves[i];
            printf("%s%s:%d:%d", i ? "," : "", m->uci, m->wdl, m->dtm);
            CHECK(i == 0 || not_worse(&moves[i - 1], m), "root moves of %s not best first at %zu", fen, i);
            CHECK(m->from < 64 && m->to < 64 && m->promotes <= RETRO_PROMOTES_KNIGHT, "move %s of %s", m->uci, fen);
        }
        if (count > 0) CHECK(moves[0].wdl == wdl && moves[0].dtm == dtm, "best move of %s is not its value", fen);
        if (count > 1) {
            /* Too small an array: the count is still told, and what fitted is the best moves. */
            retro_move one[1];
            size_t needed = 0;
            retro_status small = retro_probe_root_fen(tb, fen, one, 1, &needed);
            CHECK(small == RETRO_ERR_TOO_SMALL && needed == count && same_moves(one, moves, 1),
                  "root with room for 1 move of %s: status %d, count %zu", fen, small, needed);
        }
    } else {
        printf(" root=%d:-:-", rs);
    }

    /* The length protocol: ask the length with no buffer, then fetch into a buffer of that length plus the NUL. */
    size_t len = 0;
    retro_status js = retro_probe_json(tb, "chess", fen, NULL, 0, &len);
    if (js == RETRO_ERR_TOO_SMALL) {
        char *buf = malloc(len + 1);
        size_t again = 0;
        js = retro_probe_json(tb, "chess", fen, buf, len + 1, &again);
        CHECK(js == RETRO_OK && again == len && strlen(buf) == len, "json of %s: status %d, %zu then %zu bytes", fen,
              js, len, again);
        printf(" json=%d:%zu:%016" PRIx64 "\n", js, len, fnv1a(buf));
        free(buf);
    } else {
        printf(" json=%d:-:-\n", js);
    }
}

/* What does not depend on a FEN: NULL arguments, bad directories, buffers too small, unknown games. */
static void general_checks(const char *dir, const retro_tablebase *tb) {
    retro_wdl wdl = RETRO_DRAW;
    int32_t dtm = 0;
    const char *fen = "8/8/8/8/8/2k5/8/KQ6 w - - 0 1";

    CHECK(retro_probe_wdl_fen(NULL, fen, &wdl) == RETRO_ERR_NULL, "NULL handle");
    CHECK(strstr(retro_last_error(), "NULL") != NULL, "message of a NULL handle: %s", retro_last_error());
    CHECK(retro_probe_wdl_fen(tb, NULL, &wdl) == RETRO_ERR_NULL, "NULL FEN");
    CHECK(retro_probe_wdl_fen(tb, fen, NULL) == RETRO_ERR_NULL, "NULL out-pointer");
    CHECK(retro_probe_dtm_fen(tb, fen, &wdl, NULL) == RETRO_ERR_NULL, "NULL dtm");
    CHECK(retro_probe_wdl_fen(tb, "\xff\xfe", &wdl) == RETRO_ERR_UTF8, "text that is not UTF-8");
    /* A success leaves the last error alone. */
    CHECK(retro_probe_dtm_fen(tb, fen, &wdl, &dtm) == RETRO_OK && wdl == RETRO_WIN && dtm > 0, "KQvK wins");
    CHECK(strstr(retro_last_error(), "UTF-8") != NULL, "last error after a success: %s", retro_last_error());

    /* Bitboards that do not describe a position. */
    uint64_t wk = 1u << 0, bk = (uint64_t)1 << 63, wq = 1u << 1;
    CHECK(retro_probe_wdl(tb, wk | wq, bk, wk | bk, wq, 0, 0, 0, 0, RETRO_NO_EP, true, &wdl) == RETRO_OK &&
              wdl == RETRO_WIN,
          "Ka1 Qb1 v Kh8 wins");
    CHECK(retro_probe_wdl(tb, wk | wq, bk | wq, wk | bk, wq, 0, 0, 0, 0, RETRO_NO_EP, true, &wdl) ==
              RETRO_ERR_BAD_POSITION,
          "a square of both colours");
    CHECK(retro_probe_wdl(tb, wk | wq, bk, wk | bk, 0, 0, 0, 0, 0, RETRO_NO_EP, true, &wdl) ==
              RETRO_ERR_BAD_POSITION,
          "a man of no role");
    CHECK(retro_probe_wdl(tb, wk, bk, wk | bk | wq, 0, 0, 0, 0, 0, RETRO_NO_EP, true, &wdl) ==
              RETRO_ERR_BAD_POSITION,
          "a role of no colour");
    CHECK(retro_probe_wdl(tb, wk | wq, bk, wk | bk, wq, 0, 0, 0, 0, 64, true, &wdl) == RETRO_ERR_BAD_POSITION,
          "en-passant square 64");
    CHECK(retro_probe_wdl(tb, wk | wq, bk, wk | bk, wq, 0, 0, 0, 0, 44, true, &wdl) == RETRO_ERR_BAD_POSITION,
          "an en-passant square no pawn explains");

    /* Root probes: room for no move asks the count. */
    size_t count = 0;
    CHECK(retro_probe_root_fen(tb, fen, NULL, 0, &count) == RETRO_ERR_TOO_SMALL && count > 0, "root count");
    CHECK(retro_probe_root_fen(tb, fen, NULL, 0, NULL) == RETRO_ERR_NULL, "root without a count");
    CHECK(retro_probe_root_fen(tb, "k7/1Q6/1K6/8/8/8/8/8 b - - 0 1", NULL, 0, &count) == RETRO_OK && count == 0,
          "a mated side has no moves");

    /* JSON: a buffer too small is still filled and terminated, the length is told. */
    char small[8];
    size_t len = 0;
    CHECK(retro_probe_json(tb, "chess", fen, small, sizeof small, &len) == RETRO_ERR_TOO_SMALL && len > 8 &&
              strlen(small) == 7 && strncmp(small, "{\"fen\":", 7) == 0,
          "JSON into 8 bytes: %zu, %s", len, small);
    CHECK(retro_probe_json(tb, "go", "anything", small, sizeof small, &len) == RETRO_ERR_UNKNOWN_GAME,
          "unknown game");
    CHECK(strstr(retro_last_error(), "tictactoe") != NULL, "the message lists the games: %s", retro_last_error());
    CHECK(retro_probe_json(tb, "tictactoe", "xx./oo./...", small, sizeof small, &len) == RETRO_ERR_MISSING_TABLE,
          "no tic-tac-toe table in a chess directory");

    CHECK(retro_largest(tb) == 4, "largest %u", retro_largest(tb));
    CHECK(retro_largest(NULL) == 0, "largest of NULL");

    /* Opening: a directory that is not there, NULL arguments; the out-pointer is left alone on failure. */
    retro_tablebase *bad = (retro_tablebase *)tb;
    CHECK(retro_open("/nonexistent/retro-c", &bad) == RETRO_ERR_UNREADABLE && bad == tb, "a missing directory");
    CHECK(strstr(retro_last_error(), "/nonexistent/retro-c") != NULL, "message names it: %s", retro_last_error());
    CHECK(retro_open(NULL, &bad) == RETRO_ERR_NULL, "NULL directory");
    CHECK(retro_open(dir, NULL) == RETRO_ERR_NULL, "NULL out-pointer of open");
    retro_tablebase *small_cache = NULL;
    CHECK(retro_open_with_cache(dir, 1 << 20, &small_cache) == RETRO_OK && small_cache != NULL, "a 1 MiB cache");
    CHECK(retro_probe_wdl_fen(small_cache, fen, &wdl) == RETRO_OK && wdl == RETRO_WIN, "the 1 MiB cache probes");
    retro_close(small_cache);
    retro_close(NULL);
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: %s DIR < FENS\n", argv[0]);
        return 2;
    }
    retro_tablebase *tb = NULL, *other = NULL;
    if (retro_open(argv[1], &tb) != RETRO_OK || retro_open(argv[1], &other) != RETRO_OK) {
        fprintf(stderr, "%s\n", retro_last_error());
        return 1;
    }
    char line[1024];
    while (fgets(line, sizeof line, stdin)) {
        line[strcspn(line, "\n")] = 0;
        probe_line(tb, other, line);
    }
    general_checks(argv[1], tb);
    retro_close(other);
    retro_close(tb);
    printf("checks %d failed %d\n", checks, failed);
    return failed == 0 ? 0 : 1;
}
