/* core/gemm.c: aug_gemm (semantics §9), C = alpha * (A @ B) + beta * C.
 *
 * Checks ranks, dtypes (float32/float64, all equal), devices and shapes, then hands
 * the backend operands in a layout BLAS takes directly: each of A and B row-major
 * (column stride 1) or column-major (row stride 1) with a leading dimension no
 * smaller than the extent, i.e. contiguous matrices, their transposes, and
 * sub-matrix views of either. Anything else (negative or zero strides, ...) is
 * first packed with aug_tensor_contiguous. C must be row-major in that sense; a
 * column-major C is handled as C^T = B^T @ A^T. Operands sharing storage with C
 * are packed into fresh copies, since BLAS reads them while writing C. The
 * backend gets an aug__gemm_plan in row-major BLAS terms (core/plan.h). */
#include <limits.h>
#include "backend.h"
#include <string.h>
#include "tensor_impl.h"

#define GEMM_FUNC "aug_gemm"

/* 1 if the matrix is row-major with column stride 1 (or a single column) and a
 * leading dimension >= its column count; `trans` checks the transposed pattern. */
static int blas_usable(const aug_tensor *t, int trans) {
    int64_t rows = t->shape[trans ? 1 : 0], cols = t->shape[trans ? 0 : 1];
    int64_t srow = t->strides[trans ? 1 : 0], scol = t->strides[trans ? 0 : 1];
    int64_t minld = cols > 1 ? cols : 1;
    return (cols <= 1 || scol == 1) && (rows <= 1 || srow >= minld);
}

/* Empty operands are never read, whatever their strides. */
static int gemm_layout_ok(const aug_tensor *t) {
    return t->shape[0] == 0 || t->shape[1] == 0 || blas_usable(t, 0) || blas_usable(t, 1);
}

/* A packed copy of t in new storage (aug_tensor_contiguous may return a view). */
static aug_tensor *gemm_copy(const aug_tensor *t) {
    aug_tensor *c = aug_tensor_empty(t->ndim, t->shape, t->dtype, t->device);
    if (c && aug__copy(GEMM_FUNC, t, c)) {
        aug_tensor_free(c);
        return NULL;
    }
    return c;
}

static aug_tensor transposed(const aug_tensor *t) {
    aug_tensor v = *t;
    v.shape[0] = t->shape[1];
    v.shape[1] = t->shape[0];
    v.strides[0] = t->strides[1];
    v.strides[1] = t->strides[0];
    v.layout[0] = '\0';
    return v;
}

static aug_status gemm_check(const aug_tensor *t, const char *name) {
    aug_status st = aug__tensor_check(GEMM_FUNC, t);
    if (st) return st;
    if (t->ndim != 2) {
        char s[160];
        return aug__error(AUG_ERR_VALUE, GEMM_FUNC, "gemm requires 2-D tensors, got %s with shape %s", name,
                          aug_shape_str(t->ndim, t->shape, s, sizeof s));
    }
    if (t->dtype != AUG_FLOAT32 && t->dtype != AUG_FLOAT64)
        return aug__error(AUG_ERR_TYPE, GEMM_FUNC, "gemm requires float32 or float64 tensors, got %s",
                          aug_dtype_name(t->dtype));
    return AUG_OK;
}

/* Transpose flag and leading dimension of t for a row-major BLAS call; 0 if the
 * layout is not one BLAS takes. */
static int blas_operand(const aug_tensor *t, int *trans, int64_t *ld) {
    int64_t rows = t->shape[0], cols = t->shape[1];
    int64_t mincols = cols > 1 ? cols : 1, minrows = rows > 1 ? rows : 1;
    if ((cols <= 1 || t->strides[1] == 1) && (rows <= 1 || t->strides[0] >= mincols)) {
        *trans = 0;
        *ld = rows <= 1 ? mincols : t->strides[0];
        return 1;
    }
    if ((rows <= 1 || t->strides[0] == 1) && (cols <= 1 || t->strides[1] >= minrows)) {
        *trans = 1;
        *ld = cols <= 1 ? minrows : t->strides[1];
        return 1;
    }
    return 0;
}

static const char *elem0(const aug_tensor *t) { return t->data + t->byte_offset; }

/* Runs C = alpha * A @ B + beta * C on the backend, operands BLAS-usable. */
static aug_status run_gemm(const aug__backend *be, const aug_tensor *A, const aug_tensor *B, aug_tensor *C,
                           double alpha, double beta) {
    aug__gemm_plan p;
    memset(&p, 0, sizeof p);
    p.func = GEMM_FUNC;
    p.dtype = C->dtype;
    p.m = C->shape[0];
    p.n = C->shape[1];
    p.k = A->shape[1];
    if (p.m == 0 || p.n == 0) return AUG_OK;
    int tc;
    if (!blas_operand(C, &tc, &p.ldc) || tc)
        return aug__error(AUG_ERR_VALUE, GEMM_FUNC, "C strides are not BLAS-compatible");
    if (p.k > 0 && (!blas_operand(A, &p.trans_a, &p.lda) || !blas_operand(B, &p.trans_b, &p.ldb)))
        return aug__error(AUG_ERR_VALUE, GEMM_FUNC, "operand strides are not BLAS-compatible");
    if (p.m > INT_MAX || p.n > INT_MAX || p.k > INT_MAX || p.lda > INT_MAX || p.ldb > INT_MAX || p.ldc > INT_MAX)
        return aug__error(AUG_ERR_VALUE, GEMM_FUNC, "matrix dimensions exceed the BLAS limit of %d", INT_MAX);
    p.a = elem0(A);
    p.b = elem0(B);
    p.c = C->data + C->byte_offset;
    p.alpha = alpha;
    p.beta = beta;
    p.exec = aug__exec_for(C->device);
    return aug__dispatch_gemm(be, &p);
}

aug_status aug_gemm(const aug_tensor *A, const aug_tensor *B, aug_tensor **C, double alpha, double beta) {
    aug_status st;
    if (!C) return aug__error(AUG_ERR_VALUE, GEMM_FUNC, "C is NULL");
    if ((st = gemm_check(A, "A")) || (st = gemm_check(B, "B"))) return st;
    if (*C && (st = gemm_check(*C, "C"))) return st;
    if (A->dtype != B->dtype || (*C && (*C)->dtype != A->dtype))
        return aug__error(AUG_ERR_TYPE, GEMM_FUNC, "gemm requires tensors of one dtype, got %s, %s and %s",
                          aug_dtype_name(A->dtype), aug_dtype_name(B->dtype),
                          *C ? aug_dtype_name((*C)->dtype) : aug_dtype_name(A->dtype));
    char s1[160], s2[160];
    if (A->shape[1] != B->shape[0])
        return aug__error(AUG_ERR_VALUE, GEMM_FUNC, "shapes %s and %s are not aligned: %lld (dim 1) != %lld (dim 0)",
                          aug_shape_str(2, A->shape, s1, sizeof s1), aug_shape_str(2, B->shape, s2, sizeof s2),
                          (long long)A->shape[1], (long long)B->shape[0]);
    int64_t cshape[2] = {A->shape[0], B->shape[1]};
    if (*C && ((*C)->shape[0] != cshape[0] || (*C)->shape[1] != cshape[1]))
        return aug__error(AUG_ERR_VALUE, GEMM_FUNC, "C has shape %s but A @ B has shape %s",
                          aug_shape_str(2, (*C)->shape, s1, sizeof s1), aug_shape_str(2, cshape, s2, sizeof s2));
    if (!aug__device_eq(A->device, B->device) || (*C && !aug__device_eq(A->device, (*C)->device))) {
        char d1[48], d2[48], d3[48];
        return aug__error(AUG_ERR_VALUE, GEMM_FUNC, "tensors are on different devices: A on %s, B on %s, C on %s",
                          aug__device_str(A->device, d1, sizeof d1), aug__device_str(B->device, d2, sizeof d2),
                          aug__device_str(*C ? (*C)->device : A->device, d3, sizeof d3));
    }
    int ccol = 0;
    if (*C && !blas_usable(*C, 0)) {
        if (!blas_usable(*C, 1))
            return aug__error(AUG_ERR_VALUE, GEMM_FUNC, "C must be contiguous (or a transposed contiguous matrix)");
        ccol = 1;
    }
    aug__need need = {AUG__FAMILY_GEMM, 0, A->dtype, AUG_DTYPE_AUTO};
    const aug__backend *be = aug__backend_supporting(GEMM_FUNC, A->device, &need);
    if (!be) return aug_last_status();

    aug_tensor *res = *C, *newc = NULL, *pa = NULL, *pb = NULL;
    if (!res) {
        newc = aug_tensor_empty(2, cshape, A->dtype, A->device);
        if (!newc) return aug_last_status();
        res = newc;
        beta = 0.0;
    }
    /* Pack operands BLAS cannot take, or that C would overwrite while read. */
    const aug_tensor *a = A, *b = B;
    int alias_a = !newc && A->storage && A->storage == res->storage;
    int alias_b = !newc && B->storage && B->storage == res->storage;
    st = AUG_OK;
    if (alias_a || !gemm_layout_ok(A)) {
        pa = alias_a ? gemm_copy(A) : aug_tensor_contiguous(A);
        if (!pa) st = aug_last_status();
        a = pa;
    }
    if (!st && (alias_b || !gemm_layout_ok(B))) {
        pb = alias_b ? gemm_copy(B) : aug_tensor_contiguous(B);
        if (!pb) st = aug_last_status();
        b = pb;
    }
    if (!st) {
        if (ccol) {
            aug_tensor at = transposed(a), bt = transposed(b), ct = transposed(res);
            st = run_gemm(be, &bt, &at, &ct, alpha, beta);
        } else {
            st = run_gemm(be, a, b, res, alpha, beta);
        }
    }
    aug_tensor_free(pa);
    aug_tensor_free(pb);
    if (st) {
        aug_tensor_free(newc);
        return st;
    }
    if (newc) *C = newc;
    return AUG_OK;
}
