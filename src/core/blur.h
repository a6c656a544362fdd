/* core/blur.h: the blur plan handed to the backends, and the 1-D filter taps
 * every backend uses (private).
 *
 * A blur is separable: a vertical pass over H and a horizontal pass over W, each
 * out[x] = sum_i w[i] * in[clamp(x + i, 0, L - 1)] (edges replicated). Offsets
 * that can only ever read the first or last element (|i| >= L) are folded into
 * two tail weights, so the tap list never exceeds 2L - 1 entries however large
 * the kernel (no upper limit on sigma). */
#ifndef AUG_CORE_BLUR_H
#define AUG_CORE_BLUR_H

#include "backend.h"
#include "scalar/blur.h"

typedef enum aug__blur_kind {
    AUG__BLUR_BOX = 0,      /* ksize x ksize mean */
    AUG__BLUR_GAUSSIAN = 1, /* per-image sigma, optional max_ksize */
    AUG__BLUR_PIL = 2       /* PIL's GaussianBlur(radius): 3 extended box passes per axis, uint8 */
} aug__blur_kind;

/* One image's PIL box (Pillow's extended box blur, semantics §13): each pass
 * maps a line x to out[j] = (ww * sum_{|k| <= r} x[j + k] + fw * (x[j - r - 1]
 * + x[j + r + 1]) + 2^23) >> 24, indices clamped to the line; copy: radius 0. */
#define AUG__PIL_RADIUS_MAX 1e6 /* keeps the window sums (2 r + 1) * 255 within uint32, as Pillow's */
typedef struct aug__pilbox {
    int64_t r;               /* int(box radius) */
    uint32_t ww, fw;         /* (2 r + 1) ww + 2 fw <= 2^24 */
    int copy;
} aug__pilbox;

/* Taps of one 1-D pass over an axis of length L >= 1. */
typedef struct aug__taps {
    int64_t lo, hi;          /* offsets lo..hi, within [-(L-1), L-1]; w has hi - lo + 1 entries */
    double *w;               /* weights (box: 1 per offset, the sum is divided by ksize^2 at the end) */
    double tail_lo, tail_hi; /* summed weight of offsets < lo (they read element 0) and > hi (element L-1) */
    int sym;                 /* lo == -hi and the float32 weights mirror: the 8-bit Gaussian sums pairs */
} aug__taps;

/* How a plan's values are computed (every backend the same way, see
 * scalar/blur.h): the exact 8-bit box mean, the 8-bit Gaussian's float32 order,
 * or the generic separable sums in float32 or float64. */
typedef enum aug__blur_path {
    AUG__BLUR_GENERIC = 0,
    AUG__BLUR_BOX8 = 1,      /* uint8 / int8 box, ksize <= AUG__BOX8_MAX */
    AUG__BLUR_GAUSS8 = 2,    /* uint8 / int8 Gaussian */
    AUG__BLUR_PIL8 = 3       /* uint8 PIL box passes (kind PIL; ks, tv, th unset) */
} aug__blur_path;

/* The core has read the sigmas (from the image's device), checked them, and
 * computed every image's kernel size and taps on the host: nt is 1 (one kernel
 * for every image) or n (per image); ks[i] == 1 means image i is copied. */
struct aug__blur_plan {
    const char *func;
    aug__blur_kind kind;
    const aug_tensor *in;    /* (N, C, H, W) view, contiguous; never shares memory with out */
    aug_tensor *out;         /* (N, C, H, W) view, contiguous, same dtype */
    const char *src;         /* in's first value (the backend's device memory) */
    char *dst;               /* out's first value */
    aug__blur_path path;
    int acc;                 /* GENERIC: AUG_FLOAT32 or AUG_FLOAT64, the accumulation type */
    int64_t n, c, h, w;
    int64_t ksize;           /* BOX: >= 1 */
    int64_t nt;              /* 1 or n */
    const int64_t *ks;       /* nt kernel sizes */
    const aug__taps *tv, *th;/* nt vertical (over H) and horizontal (over W) taps (unset where ks == 1) */
    int64_t kmax;            /* the largest ks */
    const aug__pilbox *pil;  /* PIL8: nt boxes */
    aug__exec exec;
};

/* Fills *t for a kernel of size k (window -k/2 .. -k/2 + k - 1) over an axis of
 * length L: box weights (1 each) when sigma is 0, else exp(-i^2 / (2 sigma^2))
 * normalised over the window. t->w is malloc'd (caller frees); NULL with an
 * error naming func on allocation failure. */
/* The PIL box of a radius (Pillow's _gaussian_blur_radius and box weights, in
 * float32 as its C); radius >= 0 and finite. */
AUG__HIDDEN aug__pilbox aug__pil_box(float radius);

AUG__HIDDEN aug_status aug__blur_taps(const char *func, int64_t k, double sigma, int64_t L, aug__taps *t);

#endif
