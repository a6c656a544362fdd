/* cpu/invert.c: aug_invert on the CPU (core/invert.h's plan and rule).
 *
 * The n contiguous values are cut into tasks of TASK values for the worker
 * pool; each task is one loop over the rule that the compiler vectorises
 * (src == dst, in place, is fine: each value is read before it is written). */
#include "cpu.h"
#include "core/invert.h"
#include "cpu/pool.h"

#define TASK ((int64_t)1 << 16) /* 64 Ki values (64-512 KiB): a task outweighs its scheduling */

#define INVERT_RUN(name, T, rule)                                                     \
    static void name(const char *src, char *dst, int64_t n) {                        \
        const T *s = (const T *)(const void *)src;                                    \
        T *d = (T *)(void *)dst;                                                      \
        for (int64_t i = 0; i < n; i++) d[i] = rule(s[i]);                            \
    }
INVERT_RUN(run_u8, uint8_t, aug__invert_u8)
INVERT_RUN(run_u16, uint16_t, aug__invert_u16)
INVERT_RUN(run_f32, float, aug__invert_f32)
INVERT_RUN(run_f64, double, aug__invert_f64)
#undef INVERT_RUN

typedef struct invert_ctx {
    const aug__invert_plan *plan;
    void (*run)(const char *src, char *dst, int64_t n);
    int64_t size; /* bytes per value */
} invert_ctx;

static void invert_task(void *ctx, int64_t task, int worker) {
    (void)worker;
    const invert_ctx *c = ctx;
    const int64_t s = task * TASK, e = s + TASK < c->plan->n ? s + TASK : c->plan->n;
    c->run(c->plan->src + s * c->size, c->plan->dst + s * c->size, e - s);
}

aug_status aug__cpu_invert(const aug__invert_plan *plan) {
    invert_ctx c = {plan, NULL, 0};
    switch (plan->dtype) {
    case AUG_UINT8: c.run = run_u8, c.size = 1; break;
    case AUG_UINT16: c.run = run_u16, c.size = 2; break;
    case AUG_FLOAT32: c.run = run_f32, c.size = 4; break;
    case AUG_FLOAT64: c.run = run_f64, c.size = 8; break;
    default: return aug__error(AUG_ERR_TYPE, plan->func, "invert of dtype %s is not supported",
                               aug_dtype_name((aug_dtype)plan->dtype));
    }
    aug__parallel_for((plan->n + TASK - 1) / TASK, invert_task, &c);
    return AUG_OK;
}
