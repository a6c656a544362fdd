/* th_cuda.h: what the CUDA tests share (the parity harness tests/c/parity/,
 * test_cuda_*.c): the device check, value patterns with every dtype's edge
 * values, packed bytes of a tensor on any device, the launch settings of a
 * cmocka test, and a plain byte comparison with the ulp bounds of semantics §8
 * (the harness has its own, with the failure report of harness.h). */
#ifndef TH_CUDA_H
#define TH_CUDA_H

#include <stddef.h>
#include <stdint.h>
#include "aug/aug.h"

#define CPU aug_cpu_device()
extern const aug_device TH_CUDA0;

/* 1 when a CUDA device (real or emulated) is present; without one fails the
 * test when AUG_REQUIRE_CUDA=1, else returns 0. */
int th_have_cuda(void);
#define NEED_CUDA()                   \
    do {                              \
        if (!th_have_cuda()) skip();  \
    } while (0)

/* cmocka setup / teardown: the calling thread's launch settings at 1024 threads
 * per block (the most the API accepts), and back to automatic. */
int th_threads_1024(void **state);
int th_threads_auto(void **state);
#define AT_1024(t) cmocka_unit_test_setup_teardown(t, th_threads_1024, th_threads_auto)

/* The loaded CUDA module's symbol `name` (the emulation's test hooks, aug_emu_*,
 * found with dlsym in the module already loaded), or NULL where it has none (a
 * GPU's module); under AUG_CUDA_BACKEND=emu a missing hook fails the test. */
void *th_emu_symbol(const char *name);
/* The emulator's launches so far of kernel `name` (aug_emu_launches), or -1 on a
 * GPU. */
long long th_emu_launches(const char *name);

/* A float32 1-D tensor of the n values v on dev. */
aug_tensor *th_floats_on(const float *v, int64_t n, aug_device dev);
/* A tensor of dtype dt and the given shape on dev holding the doubles v (C
 * order), converted with aug_copy's saturating casts. */
aug_tensor *th_from_doubles(const double *v, int ndim, const int64_t *shape, aug_dtype dt, aug_device dev);

/* A deterministic pattern with the edge values of the dtype first. */
void th_fill_pattern(aug_tensor *t, uint64_t seed);
/* Packed bytes of t (any device) in C order; caller frees. */
unsigned char *th_bytes_of(const aug_tensor *t, size_t *n);
/* Fails unless a (cpu) and b (cuda) match byte for byte, except that any two
 * NaNs match; with tolerant, float elements may differ by the ulp bounds of
 * semantics §8. */
void th_compare(const char *what, aug_dtype t, const unsigned char *a, const unsigned char *b, size_t n,
                int tolerant);

#endif
