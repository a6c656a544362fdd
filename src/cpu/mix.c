/* cpu/mix.c: the CPU's aug_mix_mirror: MixUp / CutMix of a batch with its
 * mirror (scalar/mix.h's rule), in place, in one pass.
 *
 * A task is one mirrored pair (i, j = N - 1 - i), one channel and a band of
 * rows; each row is cut at its images' box edges into at most five segments in
 * which both images' parts are uniform (keep, cut, blend), and each segment is
 * one loop reading both images' values before writing either (a unit-stride
 * copy of it vectorises). Results do not depend on the split. */
#include "cpu.h"
#include "core/mix.h"
#include "cpu/pool.h"
#include "core/tensor_impl.h"

/* Values per task: 16 Ki (64 KiB of float32 per image, two images) amortise a
 * task's hand-out and split a 224 x 224 plane into about four bands. */
#define MIX_TASK_VALUES ((int64_t)1 << 14)

typedef struct {
    const aug__mix_plan *p;
    int64_t pairs, band, bands; /* pairs, rows per task, tasks per plane */
} mix_ctx;

/* One loop over a segment: BODY sees o, the offset of the x-th value, with a
 * unit stride spelt out so the compiler vectorises that case. */
#define MIX_LOOP(BODY)                                                                                   \
    do {                                                                                                 \
        if (s == 1) {                                                                                    \
            for (int64_t x = 0; x < len; x++) { const int64_t o = x; BODY }                              \
        } else {                                                                                         \
            for (int64_t x = 0; x < len; x++) { const int64_t o = x * s; BODY }                          \
        }                                                                                                \
    } while (0)

/* seg_<T>: one segment of len values of images A and B (stride s), A's part mi
 * and B's mj (AUG__MIX_*; A == B for the middle image of an odd batch, with mj
 * KEEP), the weights (wa, va) of A and (wb, vb) of B in the compute type CT. */
#define MIX_SEG(NAME, T, CT, MIX)                                                                        \
    static void NAME(T *A, T *B, int64_t len, int64_t s, int mi, int mj, CT wa, CT va, CT wb, CT vb) {  \
        if (mi == AUG__MIX_BLEND && mj == AUG__MIX_BLEND)                                                \
            MIX_LOOP(const T a = A[o]; const T b = B[o]; A[o] = MIX(a, b, wa, va); B[o] = MIX(b, a, wb, vb););\
        else if (mi == AUG__MIX_CUT && mj == AUG__MIX_CUT)                                               \
            MIX_LOOP(const T a = A[o]; const T b = B[o]; A[o] = b; B[o] = a;);                          \
        else if (mi == AUG__MIX_CUT && mj == AUG__MIX_KEEP && A != B)                                    \
            MIX_LOOP(A[o] = B[o];);                                                                      \
        else if (mi == AUG__MIX_KEEP && mj == AUG__MIX_CUT)                                              \
            MIX_LOOP(B[o] = A[o];);                                                                      \
        else if (mi == AUG__MIX_BLEND && mj == AUG__MIX_KEEP)                                            \
            MIX_LOOP(const T a = A[o]; const T b = B[o]; A[o] = MIX(a, b, wa, va););                     \
        else if (mi == AUG__MIX_KEEP && mj == AUG__MIX_BLEND)                                            \
            MIX_LOOP(const T a = A[o]; const T b = B[o]; B[o] = MIX(b, a, wb, vb););                     \
        else if (mi == AUG__MIX_BLEND && mj == AUG__MIX_CUT)                                             \
            MIX_LOOP(const T a = A[o]; const T b = B[o]; A[o] = MIX(a, b, wa, va); B[o] = a;);          \
        else if (mi == AUG__MIX_CUT && mj == AUG__MIX_BLEND)                                             \
            MIX_LOOP(const T a = A[o]; const T b = B[o]; A[o] = b; B[o] = MIX(b, a, wb, vb););          \
    }

MIX_SEG(seg_f32, float, float, aug__mix_f32)
MIX_SEG(seg_f64, double, double, aug__mix_f64)
MIX_SEG(seg_f16, aug__f16, float, aug__mix_f16)
MIX_SEG(seg_bf16, aug__bf16, float, aug__mix_bf16)

/* Image m's part at column x of row y. */
static int part_at(const aug__mix_image *m, int64_t y, int64_t x) {
    if (m->kind != AUG__MIX_CUT) return m->kind;
    return y >= m->y1 && y < m->y2 && x >= m->x1 && x < m->x2 ? AUG__MIX_CUT : AUG__MIX_KEEP;
}

static void seg(const aug__mix_plan *p, char *A, char *B, int64_t len, int mi, int mj, const aug__mix_image *ma,
                const aug__mix_image *mb) {
    const int64_t s = p->sw;
    switch (p->dtype) {
    case AUG_FLOAT32:
        seg_f32((float *)(void *)A, (float *)(void *)B, len, s, mi, mj, (float)ma->w, (float)ma->v, (float)mb->w,
                (float)mb->v);
        break;
    case AUG_FLOAT64:
        seg_f64((double *)(void *)A, (double *)(void *)B, len, s, mi, mj, ma->w, ma->v, mb->w, mb->v);
        break;
    case AUG_FLOAT16:
        seg_f16((aug__f16 *)(void *)A, (aug__f16 *)(void *)B, len, s, mi, mj, (float)ma->w, (float)ma->v,
                (float)mb->w, (float)mb->v);
        break;
    default:
        seg_bf16((aug__bf16 *)(void *)A, (aug__bf16 *)(void *)B, len, s, mi, mj, (float)ma->w, (float)ma->v,
                 (float)mb->w, (float)mb->v);
        break;
    }
}

static void mix_task(void *ctx, int64_t task, int worker) {
    (void)worker;
    const mix_ctx *k = ctx;
    const aug__mix_plan *p = k->p;
    const int64_t band = task % k->bands, plane = task / k->bands, ch = plane % p->c, i = plane / p->c;
    const int64_t j = p->n - 1 - i, es = aug__dtype_size(p->dtype);
    const aug__mix_image *mi = &p->images[i], *mj = &p->images[j];
    const int middle = i == j;
    const int64_t y0 = band * k->band, y1 = y0 + k->band < p->h ? y0 + k->band : p->h;
    for (int64_t y = y0; y < y1; y++) {
        char *A = p->base + (i * p->sn + ch * p->sc + y * p->sh) * es;
        char *B = p->base + (j * p->sn + ch * p->sc + y * p->sh) * es;
        /* the segments' edges: 0, W and the boxes' columns on this row, sorted */
        int64_t e[6] = {0, p->w, 0, 0, 0, 0};
        int ne = 2;
        if (mi->kind == AUG__MIX_CUT && y >= mi->y1 && y < mi->y2) e[ne++] = mi->x1, e[ne++] = mi->x2;
        if (!middle && mj->kind == AUG__MIX_CUT && y >= mj->y1 && y < mj->y2) e[ne++] = mj->x1, e[ne++] = mj->x2;
        for (int a = 1; a < ne; a++)
            for (int b = a; b > 0 && e[b - 1] > e[b]; b--) {
                int64_t t = e[b];
                e[b] = e[b - 1], e[b - 1] = t;
            }
        for (int a = 0; a + 1 < ne; a++) {
            const int64_t x0 = e[a], len = e[a + 1] - x0;
            if (len <= 0) continue;
            const int pi = part_at(mi, y, x0), pj = middle ? AUG__MIX_KEEP : part_at(mj, y, x0);
            if (pi == AUG__MIX_KEEP && pj == AUG__MIX_KEEP) continue;
            seg(p, A + x0 * p->sw * es, B + x0 * p->sw * es, len, pi, pj, mi, mj);
        }
    }
}

aug_status aug__cpu_mix_mirror(const aug__mix_plan *p) {
    mix_ctx k = {p, (p->n + 1) / 2, 1, 1};
    if (p->h == 0 || p->w == 0 || p->c == 0 || p->n == 0) return AUG_OK;
    k.band = MIX_TASK_VALUES / p->w;
    if (k.band < 1) k.band = 1;
    if (k.band > p->h) k.band = p->h;
    k.bands = (p->h + k.band - 1) / k.band;
    aug__parallel_for(k.pairs * p->c * k.bands, mix_task, &k);
    return AUG_OK;
}
