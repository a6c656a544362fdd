/* cpu/take.c: the CPU backend's advanced-index copies (aug__take_plan, core/plan.h):
 * row by row, each row's elements moved over the rest dims in C order, the
 * innermost dim as a strided loop of the item size. */
#include <string.h>
#include "cpu.h"

/* n elements of T from src (byte stride ss) to dst (byte stride ds). */
#define MOVE_RUN(T)                                                                              \
    for (int64_t x = 0; x < n; x++) {                                                            \
        T v;                                                                                     \
        memcpy(&v, src + x * ss, sizeof v);                                                      \
        memcpy(dst + x * ds, &v, sizeof v);                                                      \
    }

static void move_run(char *dst, int64_t ds, const char *src, int64_t ss, int64_t n, int es) {
    switch (es) {
    case 1: MOVE_RUN(uint8_t) break;
    case 2: MOVE_RUN(uint16_t) break;
    case 4: MOVE_RUN(uint32_t) break;
    default: MOVE_RUN(uint64_t) break;
    }
}

aug_status aug__cpu_take(const aug__take_plan *p) {
    const int nd = p->ndim, inner = nd > 0 ? nd - 1 : 0;
    const int64_t len = nd > 0 ? p->shape[inner] : 1, tst = nd > 0 ? p->t_st[inner] : 0,
                  ost = nd > 0 ? p->o_st[inner] : 0, outer = len > 0 ? p->rest / len : 0;
    for (int64_t j = 0; j < p->n; j++) {
        char *t = p->t_base + p->t_off[j], *o = p->o_base + p->o_off[j];
        int64_t idx[AUG_MAX_DIMS] = {0};
        for (int64_t r = 0; r < outer; r++) {
            int64_t ts = 0, os = 0;
            for (int d = 0; d < inner; d++) {
                ts += idx[d] * p->t_st[d];
                os += idx[d] * p->o_st[d];
            }
            if (p->put) move_run(t + ts, tst, o + os, ost, len, p->itemsize);
            else move_run(o + os, ost, t + ts, tst, len, p->itemsize);
            for (int d = inner - 1; d >= 0; d--) { /* odometer over the outer rest dims */
                if (++idx[d] < p->shape[d]) break;
                idx[d] = 0;
            }
        }
    }
    return AUG_OK;
}
