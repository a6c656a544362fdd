/* cuda/lighting.cu: contrast and gamma on the GPU (semantics §13).
 *
 * 8- and 16-bit images (and bool) go through per-plane lookup tables built on
 * the host with the CPU's function (scalar/lighting.h, then saturate_cast), so
 * their results are the CPU's bit for bit; the tables are uploaded and a kernel
 * maps every value. Other dtypes evaluate the curve per value on the device
 * (CUDA's exp, atanh and pow: within the ulp bounds of semantics §8 of the CPU's). */
#include <stdlib.h>
#include <string.h>
#include "cuda/cuda.h"
#include "core/lighting.h"

/* Planes whose tables are uploaded at once: at most 16 * 128 KiB of 16-bit tables. */
#define GROUP 16

typedef struct table_args {
    const char *src;
    char *dst;
    const char *tables; /* per plane of the group: 2^bits entries of esize bytes */
    int64_t hw, n;      /* values per plane, values in the group */
    int bits, esize;
    unsigned flip;      /* int8 / int16: the sign bit, so the index is x + 2^(bits-1) */
} table_args;

AUG_GLOBAL void aug__k_light_table(table_args a) {
    const int64_t step = (int64_t)gridDim.x * blockDim.x;
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < a.n; i += step) {
        const int64_t plane = i / a.hw;
        if (a.bits == 8) {
            uint8_t x = (uint8_t)(AUG_LD((const uint8_t *)a.src + i) ^ a.flip);
            AUG_ST((uint8_t *)a.dst + i, ((const uint8_t *)a.tables)[(plane << 8) + x]);
        } else {
            uint16_t x = (uint16_t)(AUG_LD((const uint16_t *)(const void *)a.src + i) ^ a.flip);
            AUG_ST((uint16_t *)(void *)a.dst + i, ((const uint16_t *)(const void *)a.tables)[(plane << 16) + x]);
        }
    }
}

typedef struct direct_args {
    const char *src;
    char *dst;
    const double *gamma; /* per plane */
    const double *contrast; /* per image */
    int64_t hw, c, n;
    int dtype;
    double vmin, vmax;
} direct_args;

AUG_GLOBAL void aug__k_light_direct(direct_args a) {
    const int64_t step = (int64_t)gridDim.x * blockDim.x;
    const int64_t esize = aug__ctype_size(a.dtype);
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < a.n; i += step) {
        const int64_t plane = i / a.hw;
        aug__i128 iv;
        double x;
        if (!aug__load_wide(a.src + i * esize, a.dtype, &iv, &x)) x = (double)iv;
        double v = aug__lighting_value(x, a.vmin, a.vmax, a.contrast[plane / a.c], a.gamma[plane]);
        aug__store_f64(v, a.dtype, a.dst + i * esize);
    }
}

/* The input value table index i stands for (signed types are offset). */
static double table_value(int dtype, int64_t i) {
    switch (dtype) {
    case AUG__CT_INT8: return (double)(i - 128);
    case AUG__CT_INT16: return (double)(i - 32768);
    case AUG__CT_BOOL: return i > 1 ? 1.0 : (double)i; /* any non-zero byte is true */
    default: return (double)i;
    }
}

aug_status aug__cuda_lighting(const aug__lighting_plan *p) {
    const char *func = p->func;
    const aug__exec *e = &p->exec;
    const int dev = e->device.id, dtype = (int)p->im->dtype;
    const cudaStream_t stream = aug__cuda_stream(e);
    aug_status st = aug__cuda_use(func, dev);
    if (st) return st;
    const int64_t nplanes = p->n * p->c, esize = aug__ctype_size(dtype);
    const char *src = p->src;
    char *dst = p->dst;
    int bits = dtype == AUG__CT_UINT8 || dtype == AUG__CT_INT8 || dtype == AUG__CT_BOOL       ? 8
               : dtype == AUG__CT_UINT16 || dtype == AUG__CT_INT16 ? 16 : 0;
    if (!bits) {
        size_t bytes = (size_t)(nplanes + p->n) * sizeof(double);
        double *params = (double *)malloc(bytes);
        double *dparams = (double *)aug__cuda_tmp_alloc(func, dev, bytes, stream);
        st = !params ? AUG__NOMEM(func) : !dparams ? AUG_ERR_MEMORY : AUG_OK; /* tmp_alloc records its error */
        for (int64_t q = 0; st == AUG_OK && q < nplanes; q++) params[q] = p->gg[q / p->c] * p->gc[q];
        if (st == AUG_OK) memcpy(params + nplanes, p->ct, (size_t)p->n * sizeof(double));
        if (st == AUG_OK) st = aug__cuda_upload(func, dparams, params, bytes, stream);
        if (st == AUG_OK) {
            direct_args a = {src, dst, dparams, dparams + nplanes, p->hw, p->c, nplanes * p->hw, dtype, p->vmin, p->vmax};
            aug__cuda_grid g = aug__cuda_grid_for(e, a.n, 256);
            AUG_LAUNCH(aug__k_light_direct, g.blocks, g.threads, 0, stream, a);
            st = aug__cuda_launched(func, "aug__k_light_direct", g.blocks, g.threads);
        }
        if (dparams) aug__cuda_tmp_free(dev, dparams, bytes, stream);
        free(params);
        return st;
    }
    const int64_t entries = (int64_t)1 << bits, group = nplanes < GROUP ? nplanes : GROUP;
    const size_t tbytes = (size_t)(group * entries * esize);
    char *tables = (char *)malloc(tbytes);
    char *dtables = (char *)aug__cuda_tmp_alloc(func, dev, tbytes, stream);
    st = !tables ? AUG__NOMEM(func) : !dtables ? AUG_ERR_MEMORY : AUG_OK;
    for (int64_t q0 = 0; st == AUG_OK && q0 < nplanes; q0 += group) {
        const int64_t m = nplanes - q0 < group ? nplanes - q0 : group;
        for (int64_t l = 0; l < m; l++) {
            const int64_t plane = q0 + l, img = plane / p->c;
            const double g = p->gg[img] * p->gc[plane], c = p->ct[img];
            for (int64_t i = 0; i < entries; i++)
                aug__store_f64(aug__lighting_value(table_value(dtype, i), p->vmin, p->vmax, c, g), dtype,
                               tables + (l * entries + i) * esize);
        }
        st = aug__cuda_upload(func, dtables, tables, (size_t)(m * entries * esize), stream);
        if (st) break;
        unsigned flip = dtype == AUG__CT_INT8 ? 0x80u : dtype == AUG__CT_INT16 ? 0x8000u : 0u;
        table_args a = {src + q0 * p->hw * esize, dst + q0 * p->hw * esize, dtables, p->hw, m * p->hw, bits,
                        (int)esize, flip};
        aug__cuda_grid g = aug__cuda_grid_for(e, a.n, 256);
        AUG_LAUNCH(aug__k_light_table, g.blocks, g.threads, 0, stream, a);
        st = aug__cuda_launched(func, "aug__k_light_table", g.blocks, g.threads);
        /* the next group's tables overwrite these in stream order, after this kernel */
    }
    if (dtables) aug__cuda_tmp_free(dev, dtables, tbytes, stream);
    free(tables);
    return st;
}
