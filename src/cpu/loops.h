/* cpu/loops.h: the 1-D loop machinery every CPU kernel family is written with
 * (private; included by the kernels_*.c files only).
 *
 * A family supplies scalar functions (add_u8, floordiv_i32, sinf, ...); the macros
 * here turn each into a kernel of the cpu/iter.h signature. Writing every kernel
 * through one set of loops keeps their fast paths alike: a run whose operands are
 * all contiguous, or whose only other operand is broadcast (stride 0), is a plain
 * indexed loop GCC vectorises; anything else takes the strided loop. Every path
 * visits the elements in order and computes the same values, so a fast path is an
 * optimisation, never a change of result. Elements are moved with memcpy (LOAD,
 * STORE): neither compute buffers nor tensors need be aligned to the ctype (i128
 * in particular), and the compiler emits plain loads and stores.
 *
 * The families' lookup functions index per-ctype tables by ctype (the order of
 * scalar/cast.h's AUG__CTYPE_LIST); rows of ctypes a family does not serve
 * (float16, bfloat16 never reach a kernel) stay NULL. */
#ifndef AUG_CPU_LOOPS_H
#define AUG_CPU_LOOPS_H

#include <string.h>
#include "cpu/iter.h"
#include "scalar/cast.h"

#define LOAD(v, p) memcpy(&(v), (p), sizeof(v))
#define STORE(p, v) memcpy((p), &(v), sizeof(v))

/* ---- unary: data[0] -> data[1] --------------------------------------------------- */

#define DEF_UNARY_KERNEL(NAME, T, FN)                                                            \
    static void NAME(char **data, int64_t n, const int64_t *strides, void *ctx) {                \
        (void)ctx;                                                                               \
        const char *pa = data[0];                                                                \
        char *po = data[1];                                                                      \
        const int64_t es = (int64_t)sizeof(T), sa = strides[0], so = strides[1];                 \
        T x, r;                                                                                  \
        if (sa == es && so == es) {                                                              \
            for (int64_t i = 0; i < n; i++) {                                                    \
                LOAD(x, pa + i * es);                                                            \
                r = FN(x);                                                                       \
                STORE(po + i * es, r);                                                           \
            }                                                                                    \
        } else {                                                                                 \
            for (int64_t i = 0; i < n; i++, pa += sa, po += so) {                                \
                LOAD(x, pa);                                                                     \
                r = FN(x);                                                                       \
                STORE(po, r);                                                                    \
            }                                                                                    \
        }                                                                                        \
    }

/* ---- binary: data[0], data[1] -> data[2] ------------------------------------------- */

/* The body of a binary kernel reading TA, TB and writing TO = (TO)FN(x, y): fast
 * paths for contiguous operands and for either input broadcast, then the strided
 * loop. A statement list over `data`, `n`, `strides`, for kernels that try a
 * special case of their own first (kernels_arith.c's SSE2, kernels_bitwise.c's
 * shifts by a broadcast count). */
#define BINARY_BODY(TA, TB, TO, FN)                                                              \
    const char *pa = data[0], *pb = data[1];                                                     \
    char *po = data[2];                                                                          \
    const int64_t ea = (int64_t)sizeof(TA), eb = (int64_t)sizeof(TB), eo = (int64_t)sizeof(TO);  \
    const int64_t sa = strides[0], sb = strides[1], so = strides[2];                             \
    TA x;                                                                                        \
    TB y;                                                                                        \
    TO r;                                                                                        \
    if (so == eo && sa == ea && sb == eb) {                                                      \
        for (int64_t i = 0; i < n; i++) {                                                        \
            LOAD(x, pa + i * ea);                                                                \
            LOAD(y, pb + i * eb);                                                                \
            r = (TO)(FN(x, y));                                                                  \
            STORE(po + i * eo, r);                                                               \
        }                                                                                        \
    } else if (so == eo && sa == ea && sb == 0) {                                                \
        LOAD(y, pb);                                                                             \
        for (int64_t i = 0; i < n; i++) {                                                        \
            LOAD(x, pa + i * ea);                                                                \
            r = (TO)(FN(x, y));                                                                  \
            STORE(po + i * eo, r);                                                               \
        }                                                                                        \
    } else if (so == eo && sa == 0 && sb == eb) {                                                \
        LOAD(x, pa);                                                                             \
        for (int64_t i = 0; i < n; i++) {                                                        \
            LOAD(y, pb + i * eb);                                                                \
            r = (TO)(FN(x, y));                                                                  \
            STORE(po + i * eo, r);                                                               \
        }                                                                                        \
    } else {                                                                                     \
        for (int64_t i = 0; i < n; i++, pa += sa, pb += sb, po += so) {                          \
            LOAD(x, pa);                                                                         \
            LOAD(y, pb);                                                                         \
            r = (TO)(FN(x, y));                                                                  \
            STORE(po, r);                                                                        \
        }                                                                                        \
    }

/* A binary kernel on one type T (inputs and output). */
#define DEF_BINARY_KERNEL(NAME, T, FN)                                                           \
    static void NAME(char **data, int64_t n, const int64_t *strides, void *ctx) {                \
        (void)ctx;                                                                               \
        BINARY_BODY(T, T, T, FN)                                                                 \
    }

/* A comparison kernel: inputs TA, TB, REL(x, y) yields 0 or 1, written as bool. */
#define DEF_CMP_KERNEL(NAME, TA, TB, REL)                                                        \
    static void NAME(char **data, int64_t n, const int64_t *strides, void *ctx) {                \
        (void)ctx;                                                                               \
        BINARY_BODY(TA, TB, uint8_t, REL)                                                        \
    }

/* ---- ternary: data[0], data[1], data[2] -> data[3] --------------------------------- */

/* Fast paths: all contiguous, and x contiguous with y and z broadcast (clamp(x, lo,
 * hi) with scalar bounds). */
#define DEF_TERNARY_KERNEL(NAME, T, FN)                                                          \
    static void NAME(char **data, int64_t n, const int64_t *strides, void *ctx) {                \
        (void)ctx;                                                                               \
        const char *pa = data[0], *pb = data[1], *pc = data[2];                                  \
        char *po = data[3];                                                                      \
        const int64_t es = (int64_t)sizeof(T);                                                   \
        const int64_t sa = strides[0], sb = strides[1], sc = strides[2], so = strides[3];        \
        T x, y, z, r;                                                                            \
        if (so == es && sa == es && sb == 0 && sc == 0) {                                        \
            LOAD(y, pb);                                                                         \
            LOAD(z, pc);                                                                         \
            for (int64_t i = 0; i < n; i++) {                                                    \
                LOAD(x, pa + i * es);                                                            \
                r = FN(x, y, z);                                                                 \
                STORE(po + i * es, r);                                                           \
            }                                                                                    \
        } else if (so == es && sa == es && sb == es && sc == es) {                               \
            for (int64_t i = 0; i < n; i++) {                                                    \
                LOAD(x, pa + i * es);                                                            \
                LOAD(y, pb + i * es);                                                            \
                LOAD(z, pc + i * es);                                                            \
                r = FN(x, y, z);                                                                 \
                STORE(po + i * es, r);                                                           \
            }                                                                                    \
        } else {                                                                                 \
            for (int64_t i = 0; i < n; i++, pa += sa, pb += sb, pc += sc, po += so) {            \
                LOAD(x, pa);                                                                     \
                LOAD(y, pb);                                                                     \
                LOAD(z, pc);                                                                     \
                r = FN(x, y, z);                                                                 \
                STORE(po, r);                                                                    \
            }                                                                                    \
        }                                                                                        \
    }

#endif
