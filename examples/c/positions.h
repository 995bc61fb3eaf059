/* Random positions as bitboards, for the C benchmarks (examples/c/bench.c, scripts/fathom-bench.c): both draw the
 * same positions from the same generator and seed, so that their figures are of the same probes.
 *
 * A position of a material is drawn as random squares for the two kings, then for the material's men (a pawn not
 * on the first or last rank), and a random side to move; the caller keeps those its library accepts. */

#ifndef RETRO_EXAMPLE_POSITIONS_H
#define RETRO_EXAMPLE_POSITIONS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

typedef struct {
    uint64_t white, black, kings, queens, rooks, bishops, knights, pawns;
    bool white_to_move;
} board;

/* Each material's men besides the two kings: White's in capitals, Black's in lower case. A program's MEN,...
 * argument replaces them (materials_from). */
static const char *MATERIALS[64] = {
    "Q", "R", "P", "B", "N", "QR", "QB", "RB", "BN", "NN", "PP",
    "Qq", "Qr", "Qb", "Qn", "Qp", "Rr", "Rb", "Rn", "Rp", "Bb", "Bn", "Bp", "Nn", "Np", "Pp",
};

static uint64_t rng = 0x9e3779b97f4a7c15u;

static inline uint64_t next_random(void) {
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

/* A random square not in `taken` (and not on the first or last rank for a pawn). */
static inline int free_square(uint64_t taken, int pawn) {
    for (;;) {
        int sq = (int)(next_random() % 64);
        if (taken >> sq & 1) continue;
        if (pawn && (sq < 8 || sq >= 56)) continue;
        return sq;
    }
}

static inline void place(board *b, char man, int sq) {
    uint64_t bit = (uint64_t)1 << sq;
    if (man >= 'a') b->black |= bit; else b->white |= bit;
    switch (man | 0x20) {
    case 'k': b->kings |= bit; break;
    case 'q': b->queens |= bit; break;
    case 'r': b->rooks |= bit; break;
    case 'b': b->bishops |= bit; break;
    case 'n': b->knights |= bit; break;
    default: b->pawns |= bit; break;
    }
}

/* A random position of the material whose men besides the kings are `men`. */
static inline board random_board(const char *men) {
    board b;
    memset(&b, 0, sizeof b);
    uint64_t taken = 0;
    for (const char *m = "Kk"; *m; m++) {
        int sq = free_square(taken, 0);
        place(&b, *m, sq);
        taken |= (uint64_t)1 << sq;
    }
    for (const char *m = men; *m; m++) {
        int sq = free_square(taken, (*m | 0x20) == 'p');
        place(&b, *m, sq);
        taken |= (uint64_t)1 << sq;
    }
    b.white_to_move = next_random() & 1;
    return b;
}

/* The number of materials to draw from: MATERIALS' own, or (if `list` is not NULL) those of `list`, "Q,Rr"
 * style, which replace them; 0 (after a message) if `list` names none. */
static inline size_t materials_from(char *list) {
    size_t materials = 0;
    if (!list) {
        while (MATERIALS[materials]) materials++;
        return materials;
    }
    for (char *men = strtok(list, ","); men && materials < 63; men = strtok(NULL, ",")) MATERIALS[materials++] = men;
    if (materials == 0) fprintf(stderr, "no material in %s\n", list);
    return materials;
}

/* For qsort: doubles in increasing order. */
static inline int by_value(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

#endif
