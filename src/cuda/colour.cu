/* cuda/colour.cu: the colour ops on the GPU (aug/colour.h, docs/colour.md).
 *
 * Every pixel runs scalar/colour.h's steps, as on the CPU (whose uint8 tables
 * hold the same rule's results), so both backends store the same bits. The
 * rules use fmaf on purpose (torch's add with alpha is a fused multiply-add):
 * these kernels are in the Makefile's CUDA_FMA_ALLOWED list; everything else is
 * --fmad=false arithmetic. Contrast means: blocks of 32 rows read each row's
 * pixels coalesced (consecutive threads, consecutive pixels) and one thread
 * per row sums its grayscale left to right in double; one thread per image adds
 * the row sums in row order: the CPU's order, so float32 means agree bit for
 * bit. The row pass stores each pixel as it is before the contrast step in
 * the output, and the main pass goes on from there: no step runs twice.
 * aug_color_jitter_lighting's lighting runs in the jitter kernel after the
 * steps, as aug_lighting's kernels run it: uint8 through host-built
 * per-(image, channel) tables (aug__colour_light_table, uploaded), uint16 and
 * float32 per value on the device (aug__lighting_value, stored as aug_lighting
 * stores the dtype). uint16 values run the rules as floats holding integers,
 * as uint8 ones do, with the bound 65535 (scalar/colour.h). */
#include <stdlib.h>
#include "cuda/cuda.h"
#include "core/colour.h"

typedef struct colour_args {
    const char *src;
    char *dst;
    const aug__colour_image *img; /* n (device) */
    double *rowsum;               /* n * h (device) */
    float *means;                 /* n (device) */
    int64_t n, c, h, w, hw;
    int u8, out_c, kind;
    int light;            /* the fused lighting after the steps */
    const uint8_t *ltab;  /* uint8: n * c tables of 256 (device) */
    const double *lgamma; /* float32: n * c per-plane gammas, then n contrasts (device) */
    double vmin, vmax;
} colour_args;

/* The fused lighting of value v of plane (image, channel) `plane` (uint16:
 * stored with saturate_cast as aug_lighting stores it). */
AUG_DEV float light_value(const colour_args &a, int64_t plane, float v) {
    if (a.u8 == AUG__COLOUR_CLS_U8) return (float)a.ltab[plane * 256 + (uint8_t)v];
    const double y =
        aug__lighting_value((double)v, a.vmin, a.vmax, a.lgamma[a.n * a.c + plane / a.c], a.lgamma[plane]);
    if (a.u8 == AUG__COLOUR_CLS_U16) {
        uint16_t u;
        aug__store_f64(y, AUG__CT_UINT16, &u);
        return (float)u;
    }
    float f;
    aug__store_f64(y, AUG__CT_FLOAT32, &f);
    return f;
}

AUG_DEV void load_px(const colour_args &a, const char *from, int64_t i, int64_t q, float *r, float *g, float *b) {
    const int64_t base = i * a.c * a.hw + q;
    if (a.u8 == AUG__COLOUR_CLS_U8) {
        const uint8_t *s = (const uint8_t *)from;
        *r = AUG_LD(s + base);
        *g = a.c == 3 ? (float)AUG_LD(s + (base + a.hw)) : 0.0f;
        *b = a.c == 3 ? (float)AUG_LD(s + (base + 2 * a.hw)) : 0.0f;
    } else if (a.u8 == AUG__COLOUR_CLS_U16) {
        const uint16_t *s = (const uint16_t *)(const void *)from;
        *r = AUG_LD(s + base);
        *g = a.c == 3 ? (float)AUG_LD(s + (base + a.hw)) : 0.0f;
        *b = a.c == 3 ? (float)AUG_LD(s + (base + 2 * a.hw)) : 0.0f;
    } else {
        const float *s = (const float *)(const void *)from;
        *r = AUG_LD(s + base);
        *g = a.c == 3 ? AUG_LD(s + (base + a.hw)) : 0.0f;
        *b = a.c == 3 ? AUG_LD(s + (base + 2 * a.hw)) : 0.0f;
    }
}

AUG_DEV void store_px(const colour_args &a, int64_t oc, int64_t i, int64_t q, float r, float g, float b) {
    const int64_t base = i * oc * a.hw + q;
    if (a.u8 == AUG__COLOUR_CLS_U8) {
        uint8_t *d = (uint8_t *)a.dst;
        AUG_ST(d + base, (uint8_t)r);
        if (oc == 3) AUG_ST(d + (base + a.hw), (uint8_t)g), AUG_ST(d + (base + 2 * a.hw), (uint8_t)b);
    } else if (a.u8 == AUG__COLOUR_CLS_U16) {
        uint16_t *d = (uint16_t *)(void *)a.dst;
        AUG_ST(d + base, (uint16_t)r);
        if (oc == 3) AUG_ST(d + (base + a.hw), (uint16_t)g), AUG_ST(d + (base + 2 * a.hw), (uint16_t)b);
    } else {
        float *d = (float *)(void *)a.dst;
        AUG_ST(d + base, r);
        if (oc == 3) AUG_ST(d + (base + a.hw), g), AUG_ST(d + (base + 2 * a.hw), b);
    }
}

/* The grayscale sums of rows after the steps before the contrast step. A block
 * takes ROWSUM_ROWS consecutive rows (of any images) at a time and walks them
 * in chunks of ROWSUM_COLS columns: its threads run the steps on the chunk's
 * pixels with consecutive threads on consecutive pixels of a row (coalesced
 * loads, and stores when the steps before the contrast are kept), writing each
 * pixel's mean term into a shared tile; then the thread owning a row (row r:
 * thread r % blockDim.x) adds that row's terms left to right to its running
 * double sum. Each row is still summed in the CPU's order, so float32 terms
 * (whose double sums depend on the order) agree bit for bit. */
#define ROWSUM_ROWS 32
#define ROWSUM_COLS 32

AUG_GLOBAL void aug__k_colour_rowsum(colour_args a) {
    AUG_SHARED(float, term, ROWSUM_ROWS * (ROWSUM_COLS + 1)); /* +1: a row's owner reads across banks */
    AUG_SHARED(double, acc, ROWSUM_ROWS);
    const int64_t rows = a.n * a.h, groups = (rows + ROWSUM_ROWS - 1) / ROWSUM_ROWS, tid = threadIdx.x;
    for (int64_t grp = blockIdx.x; grp < groups; grp += gridDim.x) {
        const int64_t t0 = grp * ROWSUM_ROWS;
        for (int64_t r = tid; r < ROWSUM_ROWS; r += blockDim.x) acc[r] = 0.0;
        for (int64_t x0 = 0; x0 < a.w; x0 += ROWSUM_COLS) {
            const int64_t cols = a.w - x0 < ROWSUM_COLS ? a.w - x0 : ROWSUM_COLS;
            for (int64_t e = tid; e < ROWSUM_ROWS * cols; e += blockDim.x) {
                const int64_t r = e / cols, x = x0 + (e - r * cols), t = t0 + r;
                if (t >= rows) break; /* later e are later rows */
                const int64_t i = t / a.h, y = t - i * a.h;
                const aug__colour_image *d = a.img + i;
                const int at = d->contrast_at;
                if (at < 0) continue;
                float cr, cg, cb;
                load_px(a, a.src, i, y * a.w + x, &cr, &cg, &cb);
                aug__colour_steps(d, 0, at, (int)a.c, a.u8, 0.0f, &cr, &cg, &cb);
                term[r * (ROWSUM_COLS + 1) + (e - r * cols)] = aug__colour_mean_term((int)a.c, a.u8, cr, cg, cb);
                if (at > 0) store_px(a, a.c, i, y * a.w + x, cr, cg, cb); /* the main pass goes on from here */
            }
            __syncthreads();
            for (int64_t r = tid; r < ROWSUM_ROWS && t0 + r < rows; r += blockDim.x) {
                const float *row = term + r * (ROWSUM_COLS + 1);
                double sum = acc[r];
                for (int64_t c = 0; c < cols; c++) sum += (double)row[c];
                acc[r] = sum;
            }
            __syncthreads(); /* the next chunk overwrites the tile */
        }
        for (int64_t r = tid; r < ROWSUM_ROWS && t0 + r < rows; r += blockDim.x)
            if (a.img[(t0 + r) / a.h].contrast_at >= 0) AUG_ST(a.rowsum + (t0 + r), acc[r]);
        __syncthreads(); /* acc is reset for the next group */
    }
}

AUG_GLOBAL void aug__k_colour_mean(colour_args a) {
    const int64_t step = (int64_t)gridDim.x * blockDim.x;
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < a.n; i += step) {
        if (a.img[i].contrast_at < 0) continue;
        double sum = 0.0;
        for (int64_t y = 0; y < a.h; y++) sum += a.rowsum[i * a.h + y];
        a.means[i] = aug__colour_mean(sum, a.hw);
    }
}

AUG_GLOBAL void aug__k_colour_jitter(colour_args a) {
    const int64_t step = (int64_t)gridDim.x * blockDim.x;
    for (int64_t t = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; t < a.n * a.hw; t += step) {
        const int64_t i = t / a.hw, q = t % a.hw;
        const aug__colour_image *d = a.img + i;
        float r, g, b;
        const int from = d->contrast_at > 0 ? d->contrast_at : 0; /* the pre-pass stored the steps before */
        load_px(a, from > 0 ? a.dst : a.src, i, q, &r, &g, &b);
        const float mean = d->contrast_at >= 0 ? a.means[i] : 0.0f;
        aug__colour_steps(d, from, d->nsteps, (int)a.c, a.u8, mean, &r, &g, &b);
        if (a.light) {
            r = light_value(a, i * a.c, r);
            if (a.c == 3) g = light_value(a, i * a.c + 1, g), b = light_value(a, i * a.c + 2, b);
        }
        store_px(a, a.c, i, q, r, g, b);
    }
}

/* rgb_to_grayscale, rgb_to_hsv, hsv_to_rgb. */
AUG_GLOBAL void aug__k_colour_convert(colour_args a) {
    const int64_t step = (int64_t)gridDim.x * blockDim.x;
    for (int64_t t = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; t < a.n * a.hw; t += step) {
        const int64_t i = t / a.hw, q = t % a.hw;
        float r, g, b, o0, o1, o2;
        load_px(a, a.src, i, q, &r, &g, &b);
        if (a.kind == AUG__COLOUR_GRAY) {
            float gray = a.c == 3 ? aug__colour_gray(r, g, b) : r;
            o0 = o1 = o2 = a.u8 ? truncf(gray) : gray;
        } else if (a.kind == AUG__COLOUR_TO_HSV) {
            aug__colour_rgb_to_hsv(r, g, b, &o0, &o1, &o2);
        } else {
            aug__colour_hsv_to_rgb(r, g, b, &o0, &o1, &o2);
        }
        store_px(a, a.out_c, i, q, o0, o1, o2);
    }
}

aug_status aug__cuda_colour(const aug__colour_plan *p) {
    const char *func = p->func;
    const aug__exec *e = &p->exec;
    const int dev = e->device.id;
    const cudaStream_t stream = aug__cuda_stream(e);
    aug_status st = aug__cuda_use(func, dev);
    if (st) return st;
    colour_args a = {p->src, p->dst, NULL,         NULL, NULL, p->n, p->c, p->h, p->w, p->h * p->w, p->u8, p->out_c,
                     (int)p->kind, 0, NULL, NULL, p->light_vmin, p->light_vmax};
    if (p->kind != AUG__COLOUR_JITTER) {
        aug__cuda_grid g = aug__cuda_grid_for(e, p->n * a.hw, 256);
        AUG_LAUNCH(aug__k_colour_convert, g.blocks, g.threads, 0, stream, a);
        return aug__cuda_launched(func, "aug__k_colour_convert", g.blocks, g.threads);
    }
    /* device scratch: the step lists, the row sums, the means, the lighting's values */
    const size_t img_bytes = (size_t)p->n * sizeof(aug__colour_image);
    const size_t sum_bytes = p->any_contrast ? (size_t)(p->n * p->h) * sizeof(double) : 0;
    const size_t mean_bytes = ((size_t)p->n * sizeof(float) + 7) / 8 * 8;
    const int u8 = p->u8 == AUG__COLOUR_CLS_U8;
    const size_t light_bytes = !p->light_gamma ? 0
                               : u8            ? (size_t)(p->n * p->c) * 256
                                               : (size_t)(p->n * p->c + p->n) * sizeof(double);
    const size_t bytes = img_bytes + sum_bytes + mean_bytes + light_bytes;
    char *scratch = (char *)aug__cuda_tmp_alloc(func, dev, bytes, stream);
    if (!scratch) return AUG_ERR_MEMORY; /* tmp_alloc records its error */
    /* doubles first (8-byte aligned), then the step lists, then the means */
    a.rowsum = (double *)(void *)scratch;
    a.img = (const aug__colour_image *)(const void *)(scratch + sum_bytes);
    a.means = (float *)(void *)(scratch + sum_bytes + img_bytes);
    st = AUG_OK;
    st = aug__cuda_upload(func, scratch + sum_bytes, p->img, img_bytes, stream); /* p->img is freed after the call */
    if (st == AUG_OK && p->light_gamma) {
        /* after the means (8-byte aligned): the tables, or the gammas and contrasts */
        char *light = scratch + sum_bytes + img_bytes + mean_bytes;
        const size_t gbytes = (size_t)(p->n * p->c) * sizeof(double);
        a.light = 1;
        if (u8) { /* the tables, built on the host as the CPU builds them */
            a.ltab = (const uint8_t *)light;
            uint8_t *tables = (uint8_t *)malloc(light_bytes);
            st = tables ? AUG_OK : AUG__NOMEM(func);
            for (int64_t q = 0; st == AUG_OK && q < p->n * p->c; q++) aug__colour_light_table(p, q, tables + q * 256);
            if (st == AUG_OK) st = aug__cuda_upload(func, light, tables, light_bytes, stream);
            free(tables);
        } else {
            a.lgamma = (const double *)(const void *)light;
            st = aug__cuda_upload(func, light, p->light_gamma, gbytes, stream);
            if (st == AUG_OK) st = aug__cuda_upload(func, light + gbytes, p->light_contrast, light_bytes - gbytes, stream);
        }
    }
    if (st == AUG_OK && p->any_contrast) {
        aug__cuda_grid g = aug__cuda_grid_for(e, p->n * p->h * p->w, 128); /* one thread per pixel of a chunk */
        AUG_LAUNCH(aug__k_colour_rowsum, g.blocks, g.threads, 0, stream, a);
        st = aug__cuda_launched(func, "aug__k_colour_rowsum", g.blocks, g.threads);
        if (st == AUG_OK) {
            g = aug__cuda_grid_for(e, p->n, 128);
            AUG_LAUNCH(aug__k_colour_mean, g.blocks, g.threads, 0, stream, a);
            st = aug__cuda_launched(func, "aug__k_colour_mean", g.blocks, g.threads);
        }
    }
    if (st == AUG_OK) {
        aug__cuda_grid g = aug__cuda_grid_for(e, p->n * a.hw, 256);
        AUG_LAUNCH(aug__k_colour_jitter, g.blocks, g.threads, 0, stream, a);
        st = aug__cuda_launched(func, "aug__k_colour_jitter", g.blocks, g.threads);
    }
    aug__cuda_tmp_free(dev, scratch, bytes, stream);
    return st;
}
