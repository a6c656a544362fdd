/* cases_elementwise.c: parity cases of the elementwise family: one case per op
 * of AUG_OP_LIST (generated from the list), each over every dtype combination
 * with random shapes and operand layouts (every layout pairing among them),
 * the pinned dtype pairs of the direct kernels and conversions over every
 * layout pairing, weak and typed scalars on either side of binary ops (these
 * two at the automatic block size only, as before); and
 * casts between every dtype pair, fills and an overlapping copy. Errors must
 * match (status and message). Math functions within semantics §8's ulps. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "core/backend.h"
#include "helpers/th_cuda.h"
#include "parity/harness.h"

/* The same op on the CPU and on the device: same status and message, same values. */
static void check_op(ph_run *r, aug_op op, int nin, const aug_operand *in_c, const aug_operand *in_g,
                     const char *what) {
    aug_tensor *rc = NULL, *rg = NULL;
    aug_clear_error();
    aug_status sc = aug_elementwise(NULL, op, nin, in_c, AUG_DTYPE_AUTO, AUG_DTYPE_AUTO, &rc);
    char msg[1024];
    snprintf(msg, sizeof msg, "%s", aug_last_error());
    aug_clear_error();
    aug_status sg = aug_elementwise(NULL, op, nin, in_g, AUG_DTYPE_AUTO, AUG_DTYPE_AUTO, &rg);
    ph_check_status(r, what, sc, msg, sg);
    if (sc == AUG_OK) ph_check(r, what, rc, rg);
    aug_tensor_free(rc), aug_tensor_free(rg);
}

/* nin operands of dtypes dt in layouts lay over a random shape of the case. */
static void tensors_op(ph_run *r, const ph_case *c, const aug_dtype *dt, const int *lay) {
    aug_op op = (aug_op)c->op;
    int nin = aug_op_arity(op);
    int64_t shape[AUG_MAX_DIMS];
    int nd = ph_shape(r, c->max_ndim, 6, 1 << 12, shape);
    aug_tensor *tc[3], *tg[3];
    aug_operand ic[3], ig[3];
    for (int i = 0; i < nin; i++) {
        ph_operand(r, dt[i], lay[i], nd, shape, &tc[i], &tg[i]);
        ic[i] = aug_operand_tensor(tc[i]), ig[i] = aug_operand_tensor(tg[i]);
    }
    ph_inputs(r, nin, (const aug_tensor *const *)tc);
    char what[96];
    snprintf(what, sizeof what, "%s layouts %d %d %d", aug_op_name(op), lay[0], lay[1], lay[2]);
    check_op(r, op, nin, ic, ig, what);
    for (int i = 0; i < nin; i++) aug_tensor_free(tc[i]), aug_tensor_free(tg[i]);
}

static void run_op(ph_run *r, const ph_case *c) {
    aug_op op = (aug_op)c->op;
    int nin = aug_op_arity(op), nd = ph_ndtypes(c);
    enum { L = PH_L_COUNT };
    /* every dtype combination (the third operand's derived), the layouts cycling
     * so that every pairing of the first two is among them */
    int k = 0;
    for (int a = 0; a < nd; a++)
        for (int b = 0; b < (nin >= 2 ? nd : 1); b++, k++) {
            aug_dtype dt[3] = {ph_dtype(c, a), ph_dtype(c, b), ph_dtype(c, (a + b) % nd)};
            if (op == AUG_OP_CLAMP) dt[2] = dt[1];
            int lay[3] = {k % L, k / L % L, (int)ph_range(r, 0, L - 1)};
            tensors_op(r, c, dt, lay);
        }
    /* the direct kernels (same dtype) and the conversions into compute types over
     * every layout pairing, for the ops of the former layout test (the others see
     * every pairing in the sweep above) */
    static const aug_op swept[] = {AUG_OP_ADD, AUG_OP_MUL,  AUG_OP_FLOORDIV, AUG_OP_LT,  AUG_OP_AND, AUG_OP_SQRT,
                                   AUG_OP_NEG, AUG_OP_CLAMP, AUG_OP_FMA,     AUG_OP_COPY, AUG_OP_POW, AUG_OP_LSHIFT};
    int all_pairs = 0;
    for (size_t i = 0; i < sizeof swept / sizeof swept[0]; i++) all_pairs |= swept[i] == op;
    static const aug_dtype pairs[][2] = {{AUG_UINT8, AUG_UINT8}, {AUG_FLOAT32, AUG_FLOAT32},
                                         {AUG_INT64, AUG_UINT64}, {AUG_FLOAT16, AUG_INT32},
                                         {AUG_BOOL, AUG_INT8},    {AUG_FLOAT64, AUG_BFLOAT16}};
    if (ph_threads(r)) return; /* the layouts and scalars reach the same kernels: once, at the automatic block size */
    for (size_t p = 0; p < (all_pairs ? sizeof pairs / sizeof pairs[0] : 0); p++)
        for (int la = 0; la < L; la++)
            for (int lb = 0; lb < (nin > 1 ? L : 1); lb++) {
                aug_dtype dt[3] = {pairs[p][0], pairs[p][1], pairs[p][1]};
                int lay[3] = {la, lb, (la + lb) % L};
                tensors_op(r, c, dt, lay);
            }
    if (nin != 2) return;
    /* weak Python scalars and a typed constant on either side: every one with
     * every dtype for the ops of the former scalar test, one in turn for the others */
    static const aug_op scalar_ops[] = {AUG_OP_ADD, AUG_OP_SUB, AUG_OP_MUL,    AUG_OP_TRUEDIV, AUG_OP_FLOORDIV,
                                        AUG_OP_MOD, AUG_OP_POW, AUG_OP_EQ,     AUG_OP_LT,      AUG_OP_AND,
                                        AUG_OP_RSHIFT, AUG_OP_MAX};
    int all_scalars = 0;
    for (size_t i = 0; i < sizeof scalar_ops / sizeof scalar_ops[0]; i++) all_scalars |= scalar_ops[i] == op;
    aug_scalar sc[5] = {aug_scalar_int(300), aug_scalar_int(-7), aug_scalar_float(2.5), aug_scalar_uint(UINT64_MAX)};
    assert_int_equal(aug_scalar_typed_int(3, AUG_INT16, &sc[4]), AUG_OK);
    for (int d = 0; d < nd; d++)
        for (int s = 0; s < 5; s++)
            for (int rev = 0; rev < 2; rev++) {
                if (!all_scalars && (d * 2 + rev) % 10 != s * 2 + rev) continue;
                int64_t shape[AUG_MAX_DIMS];
                int n = ph_shape(r, c->max_ndim, 6, 1 << 12, shape);
                aug_tensor *tc, *tg;
                ph_operand(r, ph_dtype(c, d), (int)ph_range(r, PH_L_CONTIG, PH_L_PERMUTED), n, shape, &tc, &tg);
                ph_inputs(r, 1, (const aug_tensor *const *)&tc);
                aug_operand ic[2], ig[2];
                ic[rev] = aug_operand_tensor(tc), ig[rev] = aug_operand_tensor(tg);
                ic[!rev] = ig[!rev] = aug_operand_scalar(sc[s]);
                char what[96];
                snprintf(what, sizeof what, "%s with scalar %d %s", aug_op_name(op), s, rev ? "first" : "second");
                check_op(r, op, 2, ic, ig, what);
                aug_tensor_free(tc), aug_tensor_free(tg);
            }
}

/* Casts between every pair of dtypes over every layout, then fills of the results. */
static void run_cast_fill(ph_run *r, const ph_case *c) {
    int nd = ph_ndtypes(c);
    for (int a = 0; a < nd; a++)
        for (int b = 0; b < nd; b++)
            for (int l = 0; l < PH_L_COUNT; l++) {
                int64_t shape[AUG_MAX_DIMS];
                int n = ph_shape(r, c->max_ndim, 7, 1 << 12, shape);
                aug_tensor *t, *g, *rc = NULL, *rg = NULL;
                ph_operand(r, ph_dtype(c, a), l, n, shape, &t, &g);
                ph_inputs(r, 1, (const aug_tensor *const *)&t);
                assert_int_equal(aug_cast(t, ph_dtype(c, b), &rc), AUG_OK);
                assert_int_equal(aug_cast(g, ph_dtype(c, b), &rg), AUG_OK);
                ph_check(r, "cast", rc, rg);
                aug_scalar v = aug_scalar_float(-1234.5);
                assert_int_equal(aug_fill(rc, &v), AUG_OK);
                assert_int_equal(aug_fill(rg, &v), AUG_OK);
                ph_check(r, "fill", rc, rg);
                aug_tensor_free(rc), aug_tensor_free(rg), aug_tensor_free(t), aug_tensor_free(g);
            }
}

/* An overlapping copy t[1:] = t[:-1] reads the old values on both. */
static void run_overlap(ph_run *r, const ph_case *c) {
    int64_t n = ph_range(r, 2, 3000);
    aug_tensor *t, *g;
    ph_pair(r, 1, &n, AUG_INT32, &t, &g);
    aug_index lo = {AUG_INDEX_SLICE, 0, 0, -1, 1, 0, 1}, hi = {AUG_INDEX_SLICE, 0, 1, 0, 1, 1, 0};
    aug_tensor *cs = aug_tensor_index(t, 1, &lo), *cd = aug_tensor_index(t, 1, &hi);
    aug_tensor *gs = aug_tensor_index(g, 1, &lo), *gd = aug_tensor_index(g, 1, &hi);
    assert_int_equal(aug_copy(cs, cd), AUG_OK);
    assert_int_equal(aug_copy(gs, gd), AUG_OK);
    ph_inputs(r, 1, (const aug_tensor *const *)&t);
    ph_check(r, "overlapping copy", t, g);
    aug_tensor_free(cs), aug_tensor_free(cd), aug_tensor_free(gs), aug_tensor_free(gd);
    aug_tensor_free(t), aug_tensor_free(g);
}

/* the bound of an op of each family of AUG_OP_LIST: math functions and the
 * divisions through float (pow, truediv, floordiv, mod) within semantics §8 */
#define BOUND_ARITH(e) PH_BOUND_EXACT
#define BOUND_DIV(e) {AUG_OP_##e == AUG_OP_DIV_RNE ? PH_EXACT : PH_ULP, 0, 0}
#define BOUND_CMP(e) PH_BOUND_EXACT
#define BOUND_BITWISE(e) PH_BOUND_EXACT
#define BOUND_MATH(e) PH_BOUND_ULP8
#define BOUND_WHERE(e) PH_BOUND_EXACT

static const ph_case CASES[] = {
#define X_(e, sym, arity, name, cls, fam, b, py) \
    {"elementwise/" #name, AUG__FAMILY_ELEMENTWISE, AUG_OP_##e, PH_DTYPES_ALL, PH_LAYOUTS_ALL, 4, NULL, BOUND_##fam(e), run_op},
    AUG_OP_LIST(X_)
#undef X_
    {"elementwise/cast+fill", AUG__FAMILY_ELEMENTWISE, -1, PH_DTYPES_ALL, PH_LAYOUTS_ALL, 3, NULL, PH_BOUND_EXACT,
     run_cast_fill},
    {"elementwise/copy-overlap", AUG__FAMILY_ELEMENTWISE, -1, 1u << AUG_INT32, 1u << PH_L_CONTIG, 1, NULL,
     PH_BOUND_EXACT, run_overlap},
};
const ph_case_list ph_cases_elementwise = {CASES, sizeof CASES / sizeof CASES[0]};
