/* bench/bench_core.c: times the core's elementwise and reduction hot paths.
 *
 * Prints one line per case, "name best_ms", best of several repetitions.
 * bench/bench_core.py runs this binary and the OpenCV/NumPy peers in the same
 * run and prints the ratios (semantics §18); timings alone mean little. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <aug/aug.h>

static double now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static void die(const char *what) {
    fprintf(stderr, "bench_core: %s: %s\n", what, aug_last_error());
    exit(1);
}

static aug_tensor *filled(int64_t n, aug_dtype dt, unsigned seed) {
    aug_tensor *t = aug_tensor_empty(1, &n, dt, aug_cpu_device());
    if (!t) die("alloc");
    srand(seed);
    if (dt == AUG_UINT8) {
        uint8_t *p = aug_tensor_ptr(t);
        for (int64_t i = 0; i < n; i++) p[i] = (uint8_t)(rand() & 255);
    } else if (dt == AUG_FLOAT32) {
        float *p = aug_tensor_ptr(t);
        for (int64_t i = 0; i < n; i++) p[i] = (float)(rand() % 600) - 150.0f + 0.25f;
    }
    return t;
}

#define REPS 15

int main(int argc, char **argv) {
    const int64_t n8 = 64LL << 20, nf = 16LL << 20;
    aug_tensor *a = filled(n8, AUG_UINT8, 1), *b = filled(n8, AUG_UINT8, 2), *o = filled(n8, AUG_UINT8, 3);
    aug_tensor *f = filled(nf, AUG_FLOAT32, 4), *fo = filled(nf, AUG_UINT8, 5);
    double best;

    best = 1e30;
    for (int r = 0; r < REPS; r++) {
        double t0 = now_ms();
        if (aug_binary(AUG_OP_ADD, a, b, &o)) die("add");
        double dt = now_ms() - t0;
        if (dt < best) best = dt;
    }
    printf("add_u8_64MiB %.3f\n", best);

    best = 1e30;
    for (int r = 0; r < REPS; r++) {
        double t0 = now_ms();
        if (aug_cast(f, AUG_UINT8, &fo)) die("cast");
        double dt = now_ms() - t0;
        if (dt < best) best = dt;
    }
    printf("cast_f32_u8_16Mi %.3f\n", best);

    best = 1e30;
    for (int r = 0; r < REPS; r++) {
        aug_tensor *s = NULL;
        double t0 = now_ms();
        if (aug_reduce(AUG_REDUCE_SUM, a, -1, NULL, 0, 1, &s)) die("sum");
        double dt = now_ms() - t0;
        if (dt < best) best = dt;
        aug_tensor_free(s);
    }
    printf("sum_u8_64MiB %.3f\n", best);

    aug_tensor_free(a); aug_tensor_free(b); aug_tensor_free(o);
    aug_tensor_free(f); aug_tensor_free(fo);
    (void)argc; (void)argv;
    return 0;
}
