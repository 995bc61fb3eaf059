/* How many win/draw/loss probes a second one thread makes through retro's C API, with the cache warm.
 *
 *   cargo build --release -p retro-c
 *   cc -O2 examples/c/bench.c -Icrates/c/include -Ltarget/release -lretro_c -lpthread -o bench
 *   LD_LIBRARY_PATH=target/release ./bench tablebases/chess [SECONDS] [THREADS] [wdl|dtm|both] [MEN,...]
 *
 * It first draws random legal positions of the 3- and 4-man materials of positions.h (random squares, kept when the
 * library accepts them: legal, and their table is in the directory) and holds them as bitboards, as an engine's
 * search holds its positions. It probes each once to warm the cache, then each thread probes them in a loop for
 * SECONDS (default 2) and the program prints the probes per second of each thread, for retro_probe_wdl and for
 * retro_probe_dtm (or only the one named). MEN,... replaces the materials drawn from, each given by its men besides
 * the kings, White's in capitals: "Q,Rr" draws from KQvK and KRvKR (a small working set, all in the processor's
 * caches, shows what a probe costs without the memory's latency).
 *
 * Mode "cold" times cold DTM probes instead, in two ways, over the first 1000 positions drawn; SECONDS and THREADS
 * are then ignored. First, for each position, a new handle (an empty block cache; the files stay in the operating
 * system's page cache), one timed retro_probe_dtm (which opens the table and decompresses one block of its distance
 * file), and the handle closed: the first probe of a program. Then, on one handle with a cache of zero bytes whose
 * tables are already open, one timed retro_probe_dtm per position, each of which decompresses its block: a probe
 * whose block is not cached, as in an engine that opened its tables at start. Each prints the median, the 90th
 * percentile and the slowest. */

#define _POSIX_C_SOURCE 200809L

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "positions.h"
#include "retro.h"

static retro_status probe_wdl(const retro_tablebase *tb, const board *b, retro_wdl *wdl) {
    return retro_probe_wdl(tb, b->white, b->black, b->kings, b->queens, b->rooks, b->bishops, b->knights, b->pawns,
                           RETRO_NO_EP, b->white_to_move, wdl);
}

static retro_status probe_dtm(const retro_tablebase *tb, const board *b, retro_wdl *wdl, int32_t *dtm) {
    return retro_probe_dtm(tb, b->white, b->black, b->kings, b->queens, b->rooks, b->bishops, b->knights, b->pawns,
                           RETRO_NO_EP, b->white_to_move, wdl, dtm);
}

/* Times one DTM probe on a new handle for each of `count` positions (at most 1000); prints what it saw. */
static int cold_probes(const char *dir, const board *boards, size_t count);
static void report(double *micros, size_t n, const char *what);

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

typedef struct {
    const retro_tablebase *tb;
    const board *boards;
    size_t count;
    double seconds;
    int dtm;
    size_t offset;
    double rate;
    long checksum;
    int errors;
} job;

static void *run(void *arg) {
    job *j = arg;
    uint64_t probes = 0;
    double start = now(), elapsed = 0;
    size_t i = j->offset % j->count;
    while (elapsed < j->seconds) {
        /* Check the clock every 4096 probes only. */
        for (int k = 0; k < 4096; k++) {
            retro_wdl wdl = RETRO_DRAW;
            int32_t dtm = 0;
            retro_status s = j->dtm ? probe_dtm(j->tb, &j->boards[i], &wdl, &dtm) : probe_wdl(j->tb, &j->boards[i], &wdl);
            j->errors += s != RETRO_OK;
            j->checksum += (long)wdl + dtm;
            if (++i == j->count) i = 0;
        }
        probes += 4096;
        elapsed = now() - start;
    }
    j->rate = (double)probes / elapsed;
    return NULL;
}

/* Runs `threads` threads probing for `seconds`; returns the mean probes per second of a thread. */
static double measure(const retro_tablebase *tb, const board *boards, size_t count, double seconds, int threads,
                      int dtm) {
    pthread_t ids[64];
    job jobs[64];
    for (int t = 0; t < threads; t++) {
        jobs[t] = (job){tb, boards, count, seconds, dtm, (size_t)t * count / (size_t)threads, 0, 0, 0};
        pthread_create(&ids[t], NULL, run, &jobs[t]);
    }
    double sum = 0;
    for (int t = 0; t < threads; t++) {
        pthread_join(ids[t], NULL);
        sum += jobs[t].rate;
        if (jobs[t].errors) fprintf(stderr, "%d probes failed: %s\n", jobs[t].errors, retro_last_error());
    }
    return sum / threads;
}

int main(int argc, char **argv) {
    if (argc < 2 || argc > 6) {
        fprintf(stderr, "usage: %s TABLES_DIR [SECONDS] [THREADS] [wdl|dtm|both] [MEN,...]\n", argv[0]);
        return 2;
    }
    double seconds = argc > 2 ? atof(argv[2]) : 2.0;
    int threads = argc > 3 ? atoi(argv[3]) : 1;
    const char *only = argc > 4 && strcmp(argv[4], "both") != 0 ? argv[4] : "";
    if (seconds <= 0 || threads < 1 || threads > 64 ||
        (*only && strcmp(only, "wdl") && strcmp(only, "dtm") && strcmp(only, "cold"))) {
        fprintf(stderr, "SECONDS must be positive, THREADS 1 to 64, and the mode wdl, dtm, both or cold\n");
        return 2;
    }
    size_t materials = materials_from(argc > 5 ? argv[5] : NULL);
    if (materials == 0) return 2;
    retro_tablebase *tb = NULL;
    if (retro_open(argv[1], &tb) != RETRO_OK) {
        fprintf(stderr, "%s\n", retro_last_error());
        return 1;
    }

    enum { COUNT = 1 << 16 };
    board *boards = malloc(COUNT * sizeof *boards);
    size_t count = 0, tries = 0;
    while (count < COUNT && tries < 100 * (size_t)COUNT) {
        board b = random_board(MATERIALS[tries++ % materials]);
        retro_wdl wdl;
        if (probe_wdl(tb, &b, &wdl) == RETRO_OK) boards[count++] = b;
    }
    if (count == 0) {
        fprintf(stderr, "no position of the benchmark's materials could be probed in %s\n", argv[1]);
        return 1;
    }
    if (strcmp(only, "cold") == 0) {
        int status = cold_probes(argv[1], boards, count);
        free(boards);
        retro_close(tb);
        return status;
    }
    printf("%zu positions of %zu materials, %d thread%s, %.1f s each\n", count, materials, threads,
           threads == 1 ? "" : "s", seconds);
    if (strcmp(only, "dtm") != 0) {
        /* Warm already: every position was probed once when it was drawn. */
        double rate = measure(tb, boards, count, seconds, threads, 0);
        printf("retro_probe_wdl: %.2f million probes/s per thread (%.0f ns a probe)\n", rate / 1e6, 1e9 / rate);
        fflush(stdout);
    }
    if (strcmp(only, "wdl") != 0) {
        for (size_t i = 0; i < count; i++) {
            retro_wdl wdl;
            int32_t dtm;
            probe_dtm(tb, &boards[i], &wdl, &dtm);
        }
        double rate = measure(tb, boards, count, seconds, threads, 1);
        printf("retro_probe_dtm: %.2f million probes/s per thread (%.0f ns a probe)\n", rate / 1e6, 1e9 / rate);
    }
    free(boards);
    retro_close(tb);
    return 0;
}

static int cold_probes(const char *dir, const board *boards, size_t count) {
    enum { MAX = 1000 };
    static double micros[MAX];
    size_t n = count < MAX ? count : MAX;
    for (size_t i = 0; i < n; i++) {
        retro_tablebase *fresh = NULL;
        if (retro_open(dir, &fresh) != RETRO_OK) {
            fprintf(stderr, "%s\n", retro_last_error());
            return 1;
        }
        retro_wdl wdl;
        int32_t dtm;
        double start = now();
        retro_status s = probe_dtm(fresh, &boards[i], &wdl, &dtm);
        micros[i] = (now() - start) * 1e6;
        retro_close(fresh);
        if (s != RETRO_OK) {
            fprintf(stderr, "a cold probe failed: %s\n", retro_last_error());
            return 1;
        }
    }
    report(micros, n, "cold retro_probe_dtm, each on a new handle (the table opened by the probe)");

    retro_tablebase *uncached = NULL;
    if (retro_open_with_cache(dir, 0, &uncached) != RETRO_OK) {
        fprintf(stderr, "%s\n", retro_last_error());
        return 1;
    }
    /* Every table opened before the timing. */
    for (size_t i = 0; i < n; i++) {
        retro_wdl wdl;
        int32_t dtm;
        probe_dtm(uncached, &boards[i], &wdl, &dtm);
    }
    for (size_t i = 0; i < n; i++) {
        retro_wdl wdl;
        int32_t dtm;
        double start = now();
        retro_status s = probe_dtm(uncached, &boards[i], &wdl, &dtm);
        micros[i] = (now() - start) * 1e6;
        if (s != RETRO_OK) {
            fprintf(stderr, "a cold probe failed: %s\n", retro_last_error());
            retro_close(uncached);
            return 1;
        }
    }
    retro_close(uncached);
    report(micros, n, "cold retro_probe_dtm on open tables, no block cached");
    return 0;
}

static void report(double *micros, size_t n, const char *what) {
    qsort(micros, n, sizeof micros[0], by_value);
    printf("%zu %s: median %.1f us, 90th percentile %.1f us, slowest %.1f us\n", n, what, micros[n / 2],
           micros[n * 9 / 10], micros[n - 1]);
    fflush(stdout);
}
