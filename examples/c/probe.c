/* Probe one chess position in retro's tables from C: prints its category for the side to move and the signed
 * distance to mate in plies ("win 69", "loss -36", "draw -").
 *
 * Build and run (from the repository's root):
 *
 *   cargo build --release -p retro-c
 *   cc -O2 examples/c/probe.c -Icrates/c/include -Ltarget/release -lretro_c -o probe
 *   LD_LIBRARY_PATH=target/release ./probe tablebases/chess "8/8/8/8/2r5/8/2k5/K6Q w - - 0 1"
 *
 * On an error (a directory that cannot be read, a malformed FEN, a missing table) it prints the library's one-line
 * message to stderr and exits with status 1. */

#include <stdio.h>

#include "retro.h"

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: %s TABLES_DIR FEN\n", argv[0]);
        return 2;
    }
    retro_tablebase *tb = NULL;
    if (retro_open(argv[1], &tb) != RETRO_OK) {
        fprintf(stderr, "%s\n", retro_last_error());
        return 1;
    }
    retro_wdl wdl;
    int32_t dtm;
    retro_status status = retro_probe_dtm_fen(tb, argv[2], &wdl, &dtm);
    if (status != RETRO_OK) {
        fprintf(stderr, "%s\n", retro_last_error());
        retro_close(tb);
        return 1;
    }
    switch (wdl) {
    case RETRO_WIN: printf("win %d\n", (int)dtm); break;
    case RETRO_LOSS: printf("loss %d\n", (int)dtm); break;
    default: printf("draw -\n"); break;
    }
    retro_close(tb);
    return 0;
}
