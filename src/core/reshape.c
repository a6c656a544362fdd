/* core/reshape.c: DALI's reshape / reinterpret (aug/reshape.h, semantics §12).
 *
 * Computes one sample's output shape exactly as DALI's Reshape operator does
 * (dali/operators/generic/reshape.cc: argument checks in the constructor's order,
 * then src_dims bounds, the relative shape, the wildcard inferred from the byte
 * size, the innermost extent rescaled for a dtype alone, the layout) and returns a
 * new view over the same storage. Error texts are DALI's; shapes are printed in
 * the project's tuple notation and multi-line DALI messages are joined into one
 * line. Pure metadata: no backend is involved, so every device behaves alike. */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "tensor_impl.h"
#include "aug/reshape.h"

static const char *const FUNC = "aug_reshape";

aug_reshape_args aug_reshape_args_init(void) {
    aug_reshape_args a;
    memset(&a, 0, sizeof a);
    a.dtype = AUG_DTYPE_AUTO;
    return a;
}

/* "(0.5, -1)" for a rel_shape (%g keeps what float32 holds readable). */
static char *rel_str(int n, const float *rel, char *buf, size_t len) {
    size_t o = (size_t)snprintf(buf, len, "(");
    for (int i = 0; i < n && o < len; i++)
        o += (size_t)snprintf(buf + o, len - o, "%s%g", i ? ", " : "", (double)rel[i]);
    if (o < len) snprintf(buf + o, len - o, n == 1 ? ",)" : ")");
    return buf;
}

/* Product of extents; 0 (and *ok = 0) when it overflows int64. */
static int64_t volume(int n, const int64_t *s, int *ok) {
    int64_t v = 1;
    *ok = 1;
    for (int i = 0; i < n; i++)
        if (__builtin_mul_overflow(v, s[i], &v)) {
            *ok = 0;
            return 0;
        }
    return v;
}

/* Checks that depend only on the arguments (DALI's constructor, in its order). */
static aug_status check_args(const aug_reshape_args *a) {
    int nsrc = !!a->has_shape_input + !!a->has_shape + !!a->has_rel_shape;
    if (nsrc > 1)
        return aug__error(AUG_ERR_VALUE, FUNC,
                          "Shape input, `shape` argument and `rel_shape` argument are mutually exclusive");
    if (!nsrc && !a->has_src_dims && !a->layout && a->dtype == AUG_DTYPE_AUTO)
        return aug__error(AUG_ERR_VALUE, FUNC,
                          "`reshape` is no-op: arguments specify neither new shape, layout nor type.");
    if (a->dtype != AUG_DTYPE_AUTO && !aug__dtype_ok(a->dtype))
        return aug__error(AUG_ERR_TYPE, FUNC, "invalid dtype %d", (int)a->dtype);
    if (a->has_src_dims && (a->has_shape || a->has_shape_input))
        return aug__error(AUG_ERR_VALUE, FUNC,
                          "`src_dims` cannot be combined with %s: it is used with `rel_shape` or alone",
                          a->has_shape ? "`shape`" : "a shape input");
    if (a->has_src_dims) {
        if (a->src_ndim < 0 || a->src_ndim > AUG_MAX_DIMS)
            return aug__error(AUG_ERR_VALUE, FUNC, "`src_dims` has %d elements; the output can have at most %d dimensions",
                              a->src_ndim, AUG_MAX_DIMS);
        if (a->src_ndim > 0 && !a->src_dims) return aug__error(AUG_ERR_VALUE, FUNC, "src_dims is NULL");
    }
    if (a->has_shape || a->has_shape_input) {
        const char *name = a->has_shape ? "`shape`" : "shape input";
        int n = a->has_shape ? a->shape_ndim : a->shape_input_ndim;
        const int64_t *s = a->has_shape ? a->shape : a->shape_input;
        if (n < 0 || n > AUG_MAX_DIMS)
            return aug__error(AUG_ERR_VALUE, FUNC, "%s has %d elements; the output can have at most %d dimensions", name,
                              n, AUG_MAX_DIMS);
        if (n > 0 && !s) return aug__error(AUG_ERR_VALUE, FUNC, "%s is NULL", name);
        int neg = 0;
        char sb[256];
        for (int i = 0; i < n; i++) {
            if (s[i] < 0) {
                if (++neg > 1)
                    return aug__error(AUG_ERR_VALUE, FUNC, "Only one negative extent is allowed; got: %s",
                                      aug_shape_str(n, s, sb, sizeof sb));
            } else if (s[i] == 0) {
                return aug__error(AUG_ERR_VALUE, FUNC, "Extent of 0 is illegal; got: %s",
                                  aug_shape_str(n, s, sb, sizeof sb));
            }
        }
    }
    if (a->has_rel_shape) {
        int n = a->rel_ndim;
        if (n == 0) return aug__error(AUG_ERR_VALUE, FUNC, "`rel_shape` specified as an empty list");
        if (n < 0 || n > AUG_MAX_DIMS)
            return aug__error(AUG_ERR_VALUE, FUNC, "`rel_shape` has %d elements; the output can have at most %d dimensions",
                              n, AUG_MAX_DIMS);
        if (!a->rel_shape) return aug__error(AUG_ERR_VALUE, FUNC, "rel_shape is NULL");
        int neg = 0;
        char rb[320];
        for (int i = 0; i < n; i++) {
            float r = a->rel_shape[i];
            if (!isfinite(r))
                return aug__error(AUG_ERR_VALUE, FUNC, "`rel_shape` must be finite; got: %s",
                                  rel_str(n, a->rel_shape, rb, sizeof rb));
            if (r < 0) {
                if (++neg > 1)
                    return aug__error(AUG_ERR_VALUE, FUNC, "Only one negative extent is allowed; got: %s",
                                      rel_str(n, a->rel_shape, rb, sizeof rb));
            } else if (r == 0) {
                return aug__error(AUG_ERR_VALUE, FUNC, "Extent of 0 is illegal; got: %s",
                                  rel_str(n, a->rel_shape, rb, sizeof rb));
            }
        }
    }
    if (a->layout && strnlen(a->layout, AUG_MAX_DIMS + 1) > AUG_MAX_DIMS)
        return aug__error(AUG_ERR_VALUE, FUNC, "Requested layout '%.*s...' is longer than %d characters",
                          AUG_MAX_DIMS, a->layout, AUG_MAX_DIMS);
    return AUG_OK;
}

/* The output shape of sample `idx` (DALI's CalculateOutputShape). */
static aug_status out_shape(const aug_tensor *t, const aug_reshape_args *a, int idx, int *ndim_out,
                            int64_t *out) {
    const int in_ndim = t->ndim;
    char sb[256], sb2[256];
    if (a->has_src_dims)
        for (int d = 0; d < a->src_ndim; d++)
            if (a->src_dims[d] < -1 || a->src_dims[d] >= in_ndim)
                return aug__error(AUG_ERR_VALUE, FUNC,
                                  "`src_dims[%d] == %d` is out of bounds. The indices in `src_dims` should be "
                                  "either valid dimension indices in range [0..%d] or -1 to insert a new dimension.",
                                  d, a->src_dims[d], in_ndim - 1);

    const int64_t in_vol = aug__shape_size(in_ndim, t->shape);
    const int64_t in_size = aug__dtype_size(t->dtype);
    const int64_t out_size = aug__dtype_size(a->dtype == AUG_DTYPE_AUTO ? t->dtype : a->dtype);
    const int64_t in_bytes = in_vol * in_size; /* fits: the tensor exists */
    int ndim = 0, wildcard = -1, ok;

    if (a->has_shape || a->has_shape_input) {
        ndim = a->has_shape ? a->shape_ndim : a->shape_input_ndim;
        const int64_t *s = a->has_shape ? a->shape : a->shape_input;
        for (int d = 0; d < ndim; d++) {
            out[d] = s[d];
            if (s[d] < 0) wildcard = d;
        }
    } else if (a->has_rel_shape) {
        ndim = a->rel_ndim;
        const float *rel = a->rel_shape;
        if (a->has_src_dims) {
            if (a->src_ndim != ndim)
                return aug__error(AUG_ERR_VALUE, FUNC, "`src_dims` and `rel_shape` have different lengths: %d vs %d",
                                  a->src_ndim, ndim);
        } else if (ndim > in_ndim + (rel[ndim - 1] < 0)) {
            return aug__error(AUG_ERR_VALUE, FUNC,
                              "`rel_shape` has more elements (%d) than there are dimensions in the input (%d). "
                              "To add new dimensions, use `src_dims` to specify the mapping between input and "
                              "output dimensions.",
                              ndim, in_ndim);
        }
        for (int d = 0; d < ndim; d++) {
            if (rel[d] < 0) {
                out[d] = -1;
                wildcard = d;
                continue;
            }
            int src = a->has_src_dims ? a->src_dims[d] : d;
            int64_t base = src < 0 ? 1 : t->shape[src];
            /* float32 product as DALI computes it (float * int64 -> float), then
             * roundf: half away from zero. */
            float e = roundf(rel[d] * (float)base);
            if (!(e < 9.2233715e18f)) /* largest float below 2^63 */
                return aug__error(AUG_ERR_VALUE, FUNC, "`rel_shape[%d]` == %g times the extent %lld is too large",
                                  d, (double)rel[d], (long long)base);
            out[d] = (int64_t)e;
        }
    } else if (a->has_src_dims) {
        ndim = a->src_ndim;
        for (int d = 0; d < ndim; d++) out[d] = a->src_dims[d] < 0 ? 1 : t->shape[a->src_dims[d]];
        int64_t v = volume(ndim, out, &ok); /* cannot overflow: a product of input extents */
        if (v != in_vol)
            return aug__error(AUG_ERR_VALUE, FUNC,
                              "The volume of the new shape should match the one of the original shape. Requested "
                              "a shape with %lld elements but the original shape has %lld elements.",
                              (long long)v, (long long)in_vol);
    } else {
        ndim = in_ndim;
        memcpy(out, t->shape, sizeof(int64_t) * (size_t)ndim);
    }

    if (a->has_shape || a->has_shape_input || a->has_rel_shape) {
        if (wildcard >= 0) {
            out[wildcard] = 1;
            int64_t other = volume(ndim, out, &ok), other_bytes = 0;
            if (!ok) return aug__error(AUG_ERR_VALUE, FUNC, "requested shape %s is too large",
                                       aug_shape_str(ndim, out, sb, sizeof sb));
            if (other == 0) {
                if (wildcard < in_ndim && ndim > in_ndim)
                    return aug__error(AUG_ERR_VALUE, FUNC,
                                      "Cannot infer the extent of dimension %d for %dD output and %dD input. Use "
                                      "`src_dims` to achieve more complex mapping of input to output dimensions.",
                                      wildcard, ndim, in_ndim);
                return aug__error(AUG_ERR_VALUE, FUNC,
                                  "Cannot infer the extent of dimension %d when the volume of remaining dimensions "
                                  "is 0. Input shape: %s",
                                  wildcard, aug_shape_str(in_ndim, t->shape, sb, sizeof sb));
            }
            /* If the division is not exact the byte check below fails. */
            out[wildcard] = __builtin_mul_overflow(other, out_size, &other_bytes) ? 0 : in_bytes / other_bytes;
        }
        int64_t req = volume(ndim, out, &ok), req_bytes = 0;
        if (ok) ok = !__builtin_mul_overflow(req, out_size, &req_bytes);
        if (!ok) return aug__error(AUG_ERR_VALUE, FUNC, "requested shape %s is too large",
                                   aug_shape_str(ndim, out, sb, sizeof sb));
        if (req_bytes != in_bytes)
            return aug__error(AUG_ERR_VALUE, FUNC,
                              "Input and output samples must occupy the same size in bytes. Sample index: %d, "
                              "actual volume: %lld (%lld bytes), requested volume: %lld (%lld bytes), input "
                              "shape: %s, requested shape: %s",
                              idx, (long long)in_vol, (long long)in_bytes, (long long)req, (long long)req_bytes,
                              aug_shape_str(in_ndim, t->shape, sb, sizeof sb),
                              aug_shape_str(ndim, out, sb2, sizeof sb2));
    } else if (out_size != in_size) {
        if (ndim == 0)
            return aug__error(AUG_ERR_VALUE, FUNC,
                              "cannot reinterpret a 0-d sample of %s (%lld bytes) as %s (%lld bytes) without a shape",
                              aug_dtype_name(t->dtype), (long long)in_size, aug_dtype_name(a->dtype),
                              (long long)out_size);
        int64_t inner_bytes = out[ndim - 1] * in_size;
        if (inner_bytes % out_size != 0)
            return aug__error(AUG_ERR_VALUE, FUNC,
                              "The size, in bytes, of the innermost dimension is not divisible by the sizes of the "
                              "requested output type. Innermost extent: %lld (%lld bytes); %s has %lld bytes.",
                              (long long)out[ndim - 1], (long long)inner_bytes, aug_dtype_name(a->dtype),
                              (long long)out_size);
        out[ndim - 1] = inner_bytes / out_size;
    }
    *ndim_out = ndim;
    return AUG_OK;
}

/* One sample: validated args, new view in *out. */
static aug_status reshape_one(const aug_tensor *t, const aug_reshape_args *a, int idx, aug_tensor **out) {
    aug_status st = aug__tensor_check(FUNC, t);
    if (st != AUG_OK) return st;
    int ndim = 0;
    int64_t shape[AUG_MAX_DIMS];
    st = out_shape(t, a, idx, &ndim, shape);
    if (st != AUG_OK) return st;

    /* DALI's GetOutputLayout. */
    char layout[AUG_MAX_DIMS + 1] = {0};
    if (a->layout && a->layout[0]) {
        size_t n = strlen(a->layout);
        if (n != (size_t)ndim)
            return aug__error(AUG_ERR_VALUE, FUNC, "Requested layout '%s' is not compatible with a %dD shape",
                              a->layout, ndim);
        memcpy(layout, a->layout, n);
    } else if (!a->layout && strnlen(t->layout, AUG_MAX_DIMS) == (size_t)ndim) {
        memcpy(layout, t->layout, (size_t)ndim);
    }

    if (!aug_tensor_is_contiguous(t))
        return aug__error(AUG_ERR_VALUE, FUNC, "tensor is not contiguous; call contiguous() first");
    aug_dtype dtype = a->dtype == AUG_DTYPE_AUTO ? t->dtype : a->dtype;
    int64_t isz = aug__dtype_size(dtype);
    if (dtype != t->dtype && t->data && (uintptr_t)(t->data + t->byte_offset) % (uintptr_t)isz != 0)
        return aug__error(AUG_ERR_VALUE, FUNC,
                          "the data at byte offset %lld is not aligned for %s (%lld bytes); a reinterpreted view "
                          "needs naturally aligned elements (make a contiguous() copy first)",
                          (long long)t->byte_offset, aug_dtype_name(dtype), (long long)isz);

    aug_tensor *v = aug__tensor_new_view(FUNC, t);
    if (!v) return aug_last_status();
    v->ndim = ndim;
    v->dtype = dtype;
    memset(v->shape, 0, sizeof v->shape);
    memset(v->strides, 0, sizeof v->strides);
    memcpy(v->shape, shape, sizeof(int64_t) * (size_t)ndim);
    aug__contiguous_strides(ndim, v->shape, v->strides);
    memcpy(v->layout, layout, sizeof v->layout);
    *out = v;
    return AUG_OK;
}

aug_status aug_reshape(const aug_tensor *t, const aug_reshape_args *a, aug_tensor **out) {
    if (!out) return aug__error(AUG_ERR_VALUE, FUNC, "out is NULL");
    if (*out) return aug__error(AUG_ERR_VALUE, FUNC, "*out must be NULL: reshape returns a new view");
    if (!a) return aug__error(AUG_ERR_VALUE, FUNC, "args is NULL");
    aug_status st = check_args(a);
    if (st != AUG_OK) return st;
    return reshape_one(t, a, 0, out);
}

aug_status aug_reshape_batch(int n, const aug_tensor *const *in, const aug_reshape_args *args, int nargs,
                             aug_tensor **out) {
    if (!out) return aug__error(AUG_ERR_VALUE, FUNC, "out is NULL");
    if (n < 0) return aug__error(AUG_ERR_VALUE, FUNC, "negative batch size %d", n);
    for (int i = 0; i < n; i++) out[i] = NULL;
    if (n > 0 && !in) return aug__error(AUG_ERR_VALUE, FUNC, "in is NULL");
    if (!args) return aug__error(AUG_ERR_VALUE, FUNC, "args is NULL");
    if (nargs < 0) return aug__error(AUG_ERR_VALUE, FUNC, "negative number of argument sets %d", nargs);
    for (int j = 0; j < nargs; j++) {
        aug_status st = check_args(&args[j]);
        if (st != AUG_OK) return st;
    }
    if (nargs != 1 && nargs != n)
        return aug__error(AUG_ERR_VALUE, FUNC, "The new shape must have same number of samples. Got %d, expected %d",
                          nargs, n);
    for (int i = 0; i < n; i++) {
        aug_status st = reshape_one(in[i], &args[nargs == 1 ? 0 : i], i, &out[i]);
        if (st != AUG_OK) {
            for (int k = 0; k < i; k++) {
                aug_tensor_free(out[k]);
                out[k] = NULL;
            }
            return st;
        }
    }
    return AUG_OK;
}
