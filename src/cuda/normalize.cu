/* cuda/normalize.cu: crop_mirror_normalize and the fused Gaussian noise on the
 * GPU (include/aug/normalize.h).
 *
 * One thread per output value, each through scalar/normalize.h's rules, the
 * CPU's own functions: crop_mirror_normalize is float32 IEEE arithmetic and
 * conversions (bit-identical to the CPU); the noise uses the float32 fill's
 * Box-Muller polynomials (bit-identical too), 8/16-bit integer images the
 * integer rule of scalar/noise_table.h with the host's tables. The per-image
 * window descriptors, per-channel constants and fill values (and per-image stds
 * or noise tables) are uploaded once per call. */
#include <stdlib.h>
#include <string.h>
#include "cuda/cuda.h"
#include "core/normalize.h"

/* ---- crop_mirror_normalize ------------------------------------------------------------ */

typedef struct cmn_args {
    const aug__cmn_image *images; /* device copies */
    const float *mean, *inv;
    const char *fill;             /* cout values of the output dtype */
    char *dst;
    int64_t c, cout, oh, ow, total;
    int in_dtype, out_dtype, osize, nhwc, normalize;
} cmn_args;

/* Copies one value of osize bytes (1, 2, 4 or 8). */
AUG_HD void copy_value(char *dst, const char *src, int osize) {
    AUG__MEM_STORE(dst, osize);
    switch (osize) {
    case 1: *dst = *src; break;
    case 2: { uint16_t v; memcpy(&v, src, 2); memcpy(dst, &v, 2); break; }
    case 4: { uint32_t v; memcpy(&v, src, 4); memcpy(dst, &v, 4); break; }
    default: { uint64_t v; memcpy(&v, src, 8); memcpy(dst, &v, 8); break; }
    }
}

AUG_GLOBAL void aug__k_cmn(cmn_args a) {
    const int64_t step = (int64_t)gridDim.x * blockDim.x, per = a.cout * a.oh * a.ow;
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < a.total; i += step) {
        const int64_t img = i / per, r = i - img * per;
        int64_t ch, x, y;
        if (a.nhwc) {
            ch = r % a.cout;
            const int64_t q = r / a.cout;
            x = q % a.ow;
            y = q / a.ow;
        } else {
            x = r % a.ow;
            const int64_t q = r / a.ow;
            y = q % a.oh;
            ch = q / a.oh;
        }
        const aug__cmn_image *im = a.images + img;
        char *dst = a.dst + i * a.osize;
        const int64_t sy = im->ay + y, sx = im->mirror ? im->ax + a.ow - 1 - x : im->ax + x;
        if (ch >= a.c || sy < 0 || sy >= im->h || sx < 0 || sx >= im->w)
            copy_value(dst, a.fill + ch * a.osize, a.osize);
        else
            aug__cmn_value(im->src + sy * im->sy + sx * im->sx + ch * im->sc, a.in_dtype, dst, a.out_dtype,
                           a.normalize, a.mean[ch], a.inv[ch]);
    }
}

static size_t align16(size_t n) { return (n + 15) & ~(size_t)15; }

aug_status aug__cuda_crop_mirror_normalize(const aug__cmn_plan *p) {
    const char *func = p->func;
    const aug__exec *e = &p->exec;
    const int dev = e->device.id;
    const cudaStream_t stream = aug__cuda_stream(e);
    aug_status st = aug__cuda_use(func, dev);
    if (st) return st;
    const int osize = aug__ctype_size(p->out_dtype);
    const size_t b_img = align16((size_t)p->n * sizeof(aug__cmn_image)), b_f = align16((size_t)p->cout * sizeof(float));
    const size_t bytes = b_img + 2 * b_f + align16((size_t)p->cout * (size_t)osize);
    char *host = (char *)calloc(1, bytes);
    char *blob = (char *)aug__cuda_tmp_alloc(func, dev, bytes, stream);
    st = !host ? AUG__NOMEM(func) : !blob ? AUG_ERR_MEMORY : AUG_OK; /* tmp_alloc records its error */
    if (st == AUG_OK) {
        memcpy(host, p->images, (size_t)p->n * sizeof(aug__cmn_image));
        memcpy(host + b_img, p->mean, (size_t)p->cout * sizeof(float));
        memcpy(host + b_img + b_f, p->inv, (size_t)p->cout * sizeof(float));
        memcpy(host + b_img + 2 * b_f, p->fill, (size_t)p->cout * (size_t)osize);
        st = aug__cuda_upload(func, blob, host, bytes, stream);
    }
    if (st == AUG_OK) {
        cmn_args a;
        memset(&a, 0, sizeof a);
        a.images = (const aug__cmn_image *)(const void *)blob;
        a.mean = (const float *)(const void *)(blob + b_img);
        a.inv = (const float *)(const void *)(blob + b_img + b_f);
        a.fill = blob + b_img + 2 * b_f;
        a.dst = p->dst;
        a.c = p->c, a.cout = p->cout, a.oh = p->oh, a.ow = p->ow, a.total = p->n * p->cout * p->oh * p->ow;
        a.in_dtype = p->in_dtype, a.out_dtype = p->out_dtype, a.osize = osize, a.nhwc = p->nhwc;
        a.normalize = p->normalize;
        aug__cuda_grid g = aug__cuda_grid_for(e, a.total, 256);
        AUG_LAUNCH(aug__k_cmn, g.blocks, g.threads, 0, stream, a);
        st = aug__cuda_launched(func, "aug__k_cmn", g.blocks, g.threads);
    }
    if (blob) aug__cuda_tmp_free(dev, blob, bytes, stream);
    free(host);
    return st;
}

/* ---- Gaussian noise ------------------------------------------------------------------- */

typedef struct noise_args {
    aug__rand_params p;
    const double *stds; /* device copies, or NULL */
    int64_t per_image;
    const char *x;
    char *out;
    int ndim;
    int64_t shape[AUG_MAX_DIMS], xs[AUG_MAX_DIMS], os[AUG_MAX_DIMS];
    int64_t n;
    int x_dtype, out_dtype, ct;
    const uint32_t *table;    /* the integer rule's tables (device copy), or NULL */
    const uint32_t *table_of; /* per-image table offsets (device copy), or NULL */
} noise_args;

AUG_GLOBAL void aug__k_noise(noise_args a) {
    const int64_t step = (int64_t)gridDim.x * blockDim.x;
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < a.n; i += step) {
        int64_t r = i, xo = 0, oo = 0;
        for (int d = a.ndim - 1; d >= 0; d--) {
            const int64_t ext = a.shape[d], q = r / ext, k = r - q * ext;
            xo += k * a.xs[d];
            oo += k * a.os[d];
            r = q;
        }
        aug__rand_params p = a.p;
        if (a.stds) p.std = a.stds[i / a.per_image];
        aug__noise_value(&p, (uint64_t)i, a.x + xo, a.x_dtype, a.ct, a.out + oo, a.out_dtype);
    }
}

/* The integer rule (scalar/noise_table.h): one Philox block per thread, its
 * four words to elements 4b ... 4b + 3 (each with its image's table, in global
 * memory). */
AUG_GLOBAL void aug__k_noise_table(noise_args a) {
    const int64_t step = (int64_t)gridDim.x * blockDim.x, nb = (a.n + 3) >> 2;
    for (int64_t b = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; b < nb; b += step) {
        uint32_t w[4];
        aug__philox_element(a.p.key, a.p.call, (uint64_t)b, w);
        AUG_UNROLL
        for (int j = 0; j < 4; j++) {
            const int64_t i = 4 * b + j;
            if (i >= a.n) continue;
            /* the word by selects, not w[j]: a run-time index put w in local memory on sm_100 */
            const uint32_t wj = j == 0 ? w[0] : j == 1 ? w[1] : j == 2 ? w[2] : w[3];
            int64_t r = i, xo = 0, oo = 0;
            for (int d = a.ndim - 1; d >= 0; d--) {
                const int64_t ext = a.shape[d], q = r / ext, k = r - q * ext;
                xo += k * a.xs[d];
                oo += k * a.os[d];
                r = q;
            }
            const uint32_t *t = a.table_of ? a.table + a.table_of[i / a.per_image] : a.table;
            aug__noise_table_apply(t, wj, a.x + xo, a.x_dtype, a.out + oo, a.out_dtype);
        }
    }
}

aug_status aug__cuda_gaussian_noise(const aug__noise_plan *plan) {
    const char *func = plan->func;
    const aug__exec *e = &plan->exec;
    const int dev = e->device.id;
    const cudaStream_t stream = aug__cuda_stream(e);
    aug_status st = aug__cuda_use(func, dev);
    if (st) return st;
    noise_args a;
    memset(&a, 0, sizeof a);
    a.p = plan->p;
    a.per_image = plan->per_image;
    a.x = plan->x;
    a.out = plan->out;
    a.ndim = plan->ndim;
    memcpy(a.shape, plan->shape, sizeof a.shape);
    memcpy(a.xs, plan->xs, sizeof a.xs);
    memcpy(a.os, plan->os, sizeof a.os);
    a.n = plan->n;
    a.x_dtype = plan->x_dtype, a.out_dtype = plan->out_dtype, a.ct = plan->ct;
    double *dstds = NULL;
    size_t bytes = 0;
    if (plan->table) { /* the integer rule: the tables, and the per-image offsets */
        const size_t tb = (size_t)plan->table_words * sizeof(uint32_t);
        const size_t ob = plan->table_of ? (size_t)(plan->n / plan->per_image) * sizeof(uint32_t) : 0;
        void *dt = NULL, *dof = NULL;
        if ((st = aug__cuda_tmp_upload(func, dev, plan->table, tb, stream, &dt))) return st;
        if (ob && (st = aug__cuda_tmp_upload(func, dev, plan->table_of, ob, stream, &dof))) {
            aug__cuda_tmp_free(dev, dt, tb, stream);
            return st;
        }
        a.table = (const uint32_t *)dt, a.table_of = (const uint32_t *)dof;
        aug__cuda_grid g = aug__cuda_grid_for(e, (a.n + 3) / 4, 256);
        AUG_LAUNCH(aug__k_noise_table, g.blocks, g.threads, 0, stream, a);
        st = aug__cuda_launched(func, "aug__k_noise_table", g.blocks, g.threads);
        aug__cuda_tmp_free(dev, dt, tb, stream);
        if (dof) aug__cuda_tmp_free(dev, dof, ob, stream);
        return st;
    }
    if (plan->stds) {
        bytes = (size_t)(plan->n / plan->per_image) * sizeof(double);
        void *tmp = NULL;
        if ((st = aug__cuda_tmp_upload(func, dev, plan->stds, bytes, stream, &tmp))) return st;
        a.stds = dstds = (double *)tmp;
    }
    if (st == AUG_OK) {
        aug__cuda_grid g = aug__cuda_grid_for(e, a.n, 256);
        AUG_LAUNCH(aug__k_noise, g.blocks, g.threads, 0, stream, a);
        st = aug__cuda_launched(func, "aug__k_noise", g.blocks, g.threads);
    }
    if (dstds) aug__cuda_tmp_free(dev, dstds, bytes, stream);
    return st;
}
