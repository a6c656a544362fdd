/* cpu/tone.c: the tone ops on the CPU (core/tone.h's plan and rules).
 *
 * The values are cut into tasks of TASK values for the worker pool; a task
 * runs one loop per image it touches, over the rule of the plan's kind and
 * dtype with that image's operands held in a local, which the compiler
 * vectorises (src == dst, in place, is fine: each value is read before it is
 * written). The loops come from AUG__TONE_KINDS, one per kind and dtype. */
#include "cpu.h"
#include "core/tone.h"
#include "cpu/pool.h"

#define TASK ((int64_t)1 << 16) /* 64 Ki values (64-512 KiB): a task outweighs its scheduling */

typedef void (*tone_loop)(const char *src, char *dst, int64_t n, const aug__tone_arg *arg);

#define LOOP(name, sfx, T)                                                                                    \
    static void loop_##name##_##sfx(const char *src, char *dst, int64_t n, const aug__tone_arg *arg) {        \
        const T *s = (const T *)(const void *)src;                                                            \
        T *d = (T *)(void *)dst;                                                                              \
        const aug__tone_arg a = *arg;                                                                         \
        for (int64_t i = 0; i < n; i++) d[i] = aug__tone_##name##_##sfx(s[i], &a);                             \
    }
#define LOOPS(K, name) LOOP(name, u8, uint8_t) LOOP(name, u16, uint16_t) LOOP(name, f32, float) LOOP(name, f64, double)
AUG__TONE_KINDS(LOOPS)
#undef LOOPS
#undef LOOP

/* [kind][0 uint8, 1 uint16, 2 float32, 3 float64] */
static const tone_loop LOOPS[AUG__TONE_NKINDS][4] = {
#define ROW(K, name) [AUG__TONE_##K] = {loop_##name##_u8, loop_##name##_u16, loop_##name##_f32, loop_##name##_f64},
    AUG__TONE_KINDS(ROW)
#undef ROW
};

typedef struct tone_ctx {
    const aug__tone_plan *plan;
    tone_loop loop;
    int64_t size; /* bytes per value */
} tone_ctx;

static void tone_task(void *ctx, int64_t task, int worker) {
    (void)worker;
    const tone_ctx *c = ctx;
    const aug__tone_plan *p = c->plan;
    const int64_t n = p->images * p->per_image;
    int64_t s = task * TASK;
    const int64_t e = s + TASK < n ? s + TASK : n;
    while (s < e) { /* one run per image the task touches */
        const int64_t img = s / p->per_image, end = (img + 1) * p->per_image < e ? (img + 1) * p->per_image : e;
        c->loop(p->src + s * c->size, p->dst + s * c->size, end - s, &p->args[img]);
        s = end;
    }
}

aug_status aug__cpu_tone(const aug__tone_plan *plan) {
    int col;
    int64_t size;
    switch (plan->dtype) {
    case AUG_UINT8: col = 0, size = 1; break;
    case AUG_UINT16: col = 1, size = 2; break;
    case AUG_FLOAT32: col = 2, size = 4; break;
    case AUG_FLOAT64: col = 3, size = 8; break;
    default: return aug__error(AUG_ERR_TYPE, plan->func, "dtype %s is not supported", aug_dtype_name((aug_dtype)plan->dtype));
    }
    if (plan->kind < 0 || plan->kind >= AUG__TONE_NKINDS)
        return aug__error(AUG_ERR_VALUE, plan->func, "unknown tone operation %d", plan->kind);
    tone_ctx c = {plan, LOOPS[plan->kind][col], size};
    const int64_t n = plan->images * plan->per_image;
    aug__parallel_for((n + TASK - 1) / TASK, tone_task, &c);
    return AUG_OK;
}
