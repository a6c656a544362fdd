/* harness.c: the CUDA parity harness's runner (harness.h): the registry and its
 * completeness against the backend's families, the CPU side recorded through a
 * copy of the CPU backend's table (every family's plans reach it), the operand
 * generators, the comparison with its failure report, and main (one cmocka test
 * per case and launch setting, each over every CUDA device present). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "core/backend.h"
#include "helpers/th_cuda.h"
#include "parity/harness.h"

struct ph_run {
    const ph_case *c;
    aug_device dev;
    int threads;   /* 0: automatic, else the block size set for the run */
    uint64_t seed; /* the run's seed (AUG_PARITY_SEED) */
    uint64_t state;
    char inputs[512];
};

static uint64_t g_seed = 20261128;
static const char *g_filter; /* AUG_PARITY_FILTER: substrings separated by commas */
static long long g_comparisons, g_errors, g_bytes, g_runs;

/* ---- the registry -------------------------------------------------------------------- */

static const ph_case_list *const LISTS[] = {&ph_cases_elementwise, &ph_cases_reduce, &ph_cases_misc,
                                            &ph_cases_image, &ph_cases_resize, &ph_cases_colour,
                                            &ph_cases_normalize, &ph_cases_decode, &ph_cases_warp};
enum { NLISTS = sizeof LISTS / sizeof LISTS[0] };

/* Every family has a case (none is exempt: gemm compares within PH_ABS, JPEG
 * decoding within PH_MEAN), every elementwise op has its own, names are unique. */
static void test_registry_complete(void **state) {
    (void)state;
    for (int f = 0; f < AUG__NUM_FAMILIES; f++) {
        const char *name = aug__family_name((aug__family)f); /* the registry's (core/backend.h) */
        int n = 0;
        for (int l = 0; l < NLISTS; l++)
            for (size_t i = 0; i < LISTS[l]->n; i++) n += LISTS[l]->cases[i].family == f;
        if (n == 0) fail_msg("parity: backend family %d (%s) has no parity case in tests/c/parity/", f, name);
    }
    for (int op = 0; op < AUG_NUM_OPS; op++) {
        int n = 0;
        for (size_t i = 0; i < ph_cases_elementwise.n; i++)
            n += ph_cases_elementwise.cases[i].family == AUG__FAMILY_ELEMENTWISE &&
                 ph_cases_elementwise.cases[i].op == op;
        if (n == 0) fail_msg("parity: elementwise op %d (%s) has no parity case", op, aug_op_name((aug_op)op));
    }
    for (int l = 0; l < NLISTS; l++)
        for (size_t i = 0; i < LISTS[l]->n; i++) {
            const ph_case *c = &LISTS[l]->cases[i];
            if (c->family < -1 || c->family >= AUG__NUM_FAMILIES || !c->run || !c->name)
                fail_msg("parity: case %s: family %d out of range or no run", c->name ? c->name : "?", c->family);
            for (int m = 0; m < NLISTS; m++)
                for (size_t j = 0; j < LISTS[m]->n; j++)
                    if ((m != l || j != i) && strcmp(LISTS[m]->cases[j].name, c->name) == 0)
                        fail_msg("parity: two cases named %s", c->name);
        }
}

/* ---- the CPU side through a recording backend table ------------------------------------- */

/* Every case computes its reference on the CPU through this copy of the CPU
 * backend's table: each compute plan is counted by family and must name the cpu
 * and carry a stream (test_backend.c's check, here for every family, since each
 * family has a case). */
static aug__backend g_cpu_rec;
static long long g_cpu_calls[AUG__NUM_FAMILIES], g_cpu_bad_exec;

static aug_status cpu_rec_run(aug__family family, const void *plan) {
    const aug__exec *e = NULL;
    switch (family) {
#define X_(F, entry, plan_t, what)                                                                  \
    case AUG__FAMILY_##F: e = &((const plan_t *)plan)->exec; break;
        AUG__COMPUTE_FAMILIES(X_)
#undef X_
    default: break;
    }
    if (e && e->device.type == AUG_DEVICE_CPU && e->device.id == 0 && e->stream != NULL) g_cpu_calls[family]++;
    else g_cpu_bad_exec++;
    return aug__cpu_backend.run(family, plan);
}

/* Last: every compute family whose cases ran reached the CPU table with a good
 * exec (so a new family needs no call in test_backend.c). */
static void test_cpu_table_reached(void **state) {
    const int *ran = *state;
    for (int f = 0; f < AUG__FAMILY_JPEG; f++)
        if (ran[f] && g_cpu_calls[f] == 0)
            fail_msg("parity: family %s never reached the CPU backend table", aug__family_name((aug__family)f));
    if (g_cpu_bad_exec) fail_msg("parity: %lld CPU plans without the cpu device or a stream", g_cpu_bad_exec);
}

/* ---- randomness and shapes ----------------------------------------------------------- */

aug_device ph_dev(const ph_run *r) { return r->dev; }

int ph_threads(const ph_run *r) { return r->threads; }

uint64_t ph_rand(ph_run *r) {
    uint64_t x = r->state;
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    return r->state = x;
}

int64_t ph_range(ph_run *r, int64_t lo, int64_t hi) {
    return lo + (int64_t)(ph_rand(r) % (uint64_t)(hi - lo + 1));
}

int ph_shape(ph_run *r, int max_ndim, int64_t max_extent, int64_t max_elems, int64_t *shape) {
    int nd = (int)ph_range(r, 1, max_ndim);
    for (int d = 0; d < nd; d++) shape[d] = ph_range(r, 1, max_extent);
    for (;;) {
        int64_t n = 1;
        int big = 0;
        for (int d = 0; d < nd; d++) n *= shape[d], big = shape[d] > shape[big] ? d : big;
        if (n <= max_elems) return nd;
        shape[big] = (shape[big] + 1) / 2;
    }
}

int ph_ndtypes(const ph_case *c) { return __builtin_popcount(c->dtypes); }

aug_dtype ph_dtype(const ph_case *c, int i) {
    for (int t = 0; t < 13; t++)
        if ((c->dtypes >> t & 1u) && i-- == 0) return (aug_dtype)t;
    fail_msg("ph_dtype: case %s has no dtype %d", c->name, i);
    return AUG_UINT8;
}

/* ---- operands ----------------------------------------------------------------------- */

void ph_operand(ph_run *r, aug_dtype t, int layout, int ndim, const int64_t *shape_in, aug_tensor **cpu,
                aug_tensor **dev) {
    int64_t shape[AUG_MAX_DIMS], st[AUG_MAX_DIMS];
    for (int d = 0; d < ndim; d++) shape[d] = shape_in[d];
    if (layout == PH_L_ZERO_D) ndim = 0;
    if (layout == PH_L_EMPTY) {
        if (ndim == 0) ndim = 1, shape[0] = 3;
        shape[ph_range(r, 0, ndim - 1)] = 0;
    }
    int zero_stride[AUG_MAX_DIMS] = {0};
    if (layout == PH_L_BROADCAST && ndim > 0) { /* extent-1 dims, or stride 0 over the full extent */
        int stride0 = (int)(ph_rand(r) & 1), any = 0;
        for (int d = 0; d < ndim; d++)
            if (ph_rand(r) % 2 || (d == ndim - 1 && !any)) {
                any = 1;
                if (stride0) zero_stride[d] = 1;
                else shape[d] = 1;
            }
    }
    /* element strides: C order over a (permuted) order of the dims, times a step */
    int order[AUG_MAX_DIMS];
    for (int d = 0; d < ndim; d++) order[d] = d;
    if (layout == PH_L_PERMUTED)
        for (int d = ndim - 1; d > 0; d--) {
            int k = (int)ph_range(r, 0, d), tmp = order[d];
            order[d] = order[k], order[k] = tmp;
        }
    int64_t span = 1;
    for (int k = ndim - 1; k >= 0; k--) {
        int d = order[k];
        int64_t step = layout == PH_L_STRIDED ? ph_range(r, 2, 3) : layout == PH_L_NEGATIVE ? ph_range(r, 1, 2) : 1;
        st[d] = span * step;
        span *= (shape[d] ? shape[d] : 1) * step;
    }
    int64_t off = layout == PH_L_STRIDED ? ph_range(r, 0, 2) : 0, size = off + span;
    for (int d = 0; d < ndim; d++) {
        if (zero_stride[d]) st[d] = 0;
        if (layout == PH_L_NEGATIVE && shape[d] > 1 && ph_rand(r) % 4 != 0) { /* most dims reversed */
            off += (shape[d] - 1) * st[d];
            st[d] = -st[d];
        }
    }
    int64_t n = size + (layout == PH_L_NEGATIVE ? span : 0);
    aug_tensor *base = aug_tensor_empty(1, &n, t, CPU);
    assert_non_null(base);
    th_fill_pattern(base, ph_rand(r) % 1000);
    aug_tensor *gbase = aug_tensor_to(base, r->dev);
    if (!gbase) fail_msg("ph_operand: copy to cuda:%d: %s", r->dev.id, aug_last_error());
    int64_t item = aug_tensor_itemsize(base);
    *cpu = aug_tensor_from_storage(base->storage, base->byte_offset + off * item, ndim, shape, st, t);
    *dev = aug_tensor_from_storage(gbase->storage, gbase->byte_offset + off * item, ndim, shape, st, t);
    if (!*cpu || !*dev) fail_msg("ph_operand: a view of layout %d: %s", layout, aug_last_error());
    aug_tensor_free(base), aug_tensor_free(gbase);
}

void ph_pair(ph_run *r, int ndim, const int64_t *shape, aug_dtype t, aug_tensor **cpu, aug_tensor **dev) {
    *cpu = aug_tensor_empty(ndim, shape, t, CPU);
    assert_non_null(*cpu);
    th_fill_pattern(*cpu, ph_rand(r) % 1000);
    *dev = aug_tensor_to(*cpu, r->dev);
    if (!*dev) fail_msg("ph_pair: copy to cuda:%d: %s", r->dev.id, aug_last_error());
}

static int describe(char *buf, size_t size, const aug_tensor *t) {
    int n = snprintf(buf, size, "%s (", aug_dtype_name(t->dtype));
    for (int d = 0; d < t->ndim && n < (int)size; d++) n += snprintf(buf + n, size - (size_t)n, d ? ", %lld" : "%lld", (long long)t->shape[d]);
    if (n < (int)size) n += snprintf(buf + n, size - (size_t)n, ") strides (");
    for (int d = 0; d < t->ndim && n < (int)size; d++) n += snprintf(buf + n, size - (size_t)n, d ? ", %lld" : "%lld", (long long)t->strides[d]);
    if (n < (int)size) n += snprintf(buf + n, size - (size_t)n, ")");
    return n;
}

void ph_inputs(ph_run *r, int n, const aug_tensor *const *t) {
    size_t used = 0;
    r->inputs[0] = 0;
    for (int i = 0; i < n && used < sizeof r->inputs - 2; i++) {
        if (i) used += (size_t)snprintf(r->inputs + used, sizeof r->inputs - used, "; ");
        if (used < sizeof r->inputs) used += (size_t)describe(r->inputs + used, sizeof r->inputs - used, t[i]);
    }
}

/* ---- comparison ---------------------------------------------------------------------- */

static double value_of(aug_dtype t, const unsigned char *p) {
    switch (t) {
    case AUG_BOOL: return *p != 0;
    case AUG_INT8: return *(const int8_t *)p;
    case AUG_UINT8: return *p;
    case AUG_INT16: { int16_t v; memcpy(&v, p, 2); return v; }
    case AUG_UINT16: { uint16_t v; memcpy(&v, p, 2); return v; }
    case AUG_INT32: { int32_t v; memcpy(&v, p, 4); return v; }
    case AUG_UINT32: { uint32_t v; memcpy(&v, p, 4); return v; }
    case AUG_INT64: { int64_t v; memcpy(&v, p, 8); return (double)v; }
    case AUG_UINT64: { uint64_t v; memcpy(&v, p, 8); return (double)v; }
    case AUG_FLOAT16: { uint16_t v; memcpy(&v, p, 2); return aug_f16_to_f64(v); }
    case AUG_BFLOAT16: { uint16_t v; memcpy(&v, p, 2); return aug_bf16_to_f64(v); }
    case AUG_FLOAT32: { float v; memcpy(&v, p, 4); return v; }
    default: { double v; memcpy(&v, p, 8); return v; }
    }
}

static int mant_bits(aug_dtype t) {
    return t == AUG_FLOAT64 ? 52 : t == AUG_FLOAT32 ? 23 : t == AUG_FLOAT16 ? 10 : t == AUG_BFLOAT16 ? 7 : 0;
}

/* |x - y| in ulps of the larger magnitude (integers: the plain difference). */
static double ulp_distance(aug_dtype t, double x, double y) {
    int mb = mant_bits(t);
    if (!mb) return fabs(x - y);
    if (isnan(x) || isnan(y) || isinf(x) || isinf(y)) return INFINITY;
    int e;
    frexp(fmax(fmax(fabs(x), fabs(y)), 0x1p-1022), &e);
    return fabs(x - y) / ldexp(1.0, e - 1 - mb);
}

static void fail_at(ph_run *r, const char *what, const aug_tensor *a, int64_t i, double x, double y, aug_dtype t,
                    const char *extra) {
    char shape[160];
    describe(shape, sizeof shape, a);
    int64_t idx[AUG_MAX_DIMS], rest = i;
    char at[96] = "";
    int n = 0;
    for (int d = a->ndim - 1; d >= 0; d--) idx[d] = a->shape[d] ? rest % a->shape[d] : 0, rest = a->shape[d] ? rest / a->shape[d] : 0;
    for (int d = 0; d < a->ndim && n < (int)sizeof at; d++) n += snprintf(at + n, sizeof at - (size_t)n, d ? ", %lld" : "%lld", (long long)idx[d]);
    char launch[32] = "automatic launch";
    if (r->threads) snprintf(launch, sizeof launch, "%d threads", r->threads);
    fail_msg("parity FAILED: seed %llu, case %s on cuda:%d (%s): %s: element %lld [%s] of the result %s: "
             "cpu %.17g, device %.17g (%g ulp)%s; inputs: %s\n  replay: AUG_PARITY_SEED=%llu AUG_PARITY_FILTER=%s",
             (unsigned long long)r->seed, r->c->name, r->dev.id, launch, what, (long long)i, at, shape, x, y,
             ulp_distance(t, x, y), extra, r->inputs[0] ? r->inputs : "(not recorded)", (unsigned long long)r->seed,
             r->c->name);
}

void ph_check_bound(ph_run *r, const char *what, const aug_tensor *a, const aug_tensor *b, ph_bound bound) {
    if (a->ndim != b->ndim || a->dtype != b->dtype)
        fail_msg("parity FAILED: seed %llu, case %s: %s: cpu gives %s of %d dims, cuda:%d %s of %d dims",
                 (unsigned long long)r->seed, r->c->name, what, aug_dtype_name(a->dtype), a->ndim, r->dev.id,
                 aug_dtype_name(b->dtype), b->ndim);
    for (int d = 0; d < a->ndim; d++)
        if (a->shape[d] != b->shape[d])
            fail_msg("parity FAILED: seed %llu, case %s: %s: dim %d is %lld on the cpu, %lld on cuda:%d",
                     (unsigned long long)r->seed, r->c->name, what, d, (long long)a->shape[d],
                     (long long)b->shape[d], r->dev.id);
    if (b->device.type != r->dev.type || b->device.id != r->dev.id)
        fail_msg("parity FAILED: case %s: %s: the device's result is on device %d:%d", r->c->name, what,
                 (int)b->device.type, b->device.id);
    size_t na, nb;
    unsigned char *x = th_bytes_of(a, &na), *y = th_bytes_of(b, &nb);
    assert_int_equal(na, nb);
    g_comparisons++, g_bytes += (long long)na;
    aug_dtype t = a->dtype;
    int64_t item = aug_dtype_info(t)->size, cnt = (int64_t)na / item;
    double sum = 0, worst = 0;
    int64_t worst_i = -1;
    int same = memcmp(x, y, na) == 0;
    for (int64_t i = 0; i < cnt && !same; i++) {
        const unsigned char *p = x + i * item, *q = y + i * item;
        if (memcmp(p, q, (size_t)item) == 0) continue;
        double u = value_of(t, p), v = value_of(t, q);
        if (mant_bits(t) && isnan(u) && isnan(v)) continue; /* NaN payloads and signs are not specified */
        double diff = fabs(u - v);
        if (bound.kind == PH_MEAN) {
            sum += isnan(diff) ? INFINITY : diff;
            if (!(diff <= worst)) worst = diff, worst_i = i;
            if (bound.max <= 0 || diff <= bound.max) continue;
            char extra[64];
            snprintf(extra, sizeof extra, " (the difference exceeds %g)", bound.max);
            free(x), free(y);
            fail_at(r, what, a, i, u, v, t, extra);
        }
        if (bound.kind == PH_ULP && mant_bits(t)) {
            double lim = (t == AUG_FLOAT64 ? 4 : t == AUG_FLOAT32 ? 2 : 1);
            if (ulp_distance(t, u, v) <= lim) continue;
        }
        if (bound.kind == PH_ABS && diff <= bound.tol) continue;
        free(x), free(y);
        fail_at(r, what, a, i, u, v, t, bound.kind == PH_EXACT ? " (bit-exact expected)" : " (outside the bound)");
    }
    if (bound.kind == PH_MEAN && cnt && sum / (double)cnt > bound.tol) {
        char extra[96];
        snprintf(extra, sizeof extra, " (the largest difference; the mean %g exceeds %g)", sum / (double)cnt,
                 bound.tol);
        double u = value_of(t, x + worst_i * item), v = value_of(t, y + worst_i * item);
        free(x), free(y);
        fail_at(r, what, a, worst_i, u, v, t, extra);
    }
    free(x), free(y);
}

void ph_check(ph_run *r, const char *what, const aug_tensor *a, const aug_tensor *b) {
    ph_check_bound(r, what, a, b, r->c->bound);
}

void ph_check_status(ph_run *r, const char *what, aug_status sc, const char *cpu_msg, aug_status sg) {
    g_errors += sc != AUG_OK; /* an error compared (a result is counted by ph_check) */
    if (sc != sg)
        fail_msg("parity FAILED: seed %llu, case %s on cuda:%d: %s: cpu status %d (%s), device %d (%s); inputs: %s",
                 (unsigned long long)r->seed, r->c->name, r->dev.id, what, sc, cpu_msg, sg, aug_last_error(),
                 r->inputs);
    if (sc != AUG_OK && strcmp(cpu_msg, aug_last_error()) != 0)
        fail_msg("parity FAILED: case %s on cuda:%d: %s: cpu says \"%s\", device \"%s\"", r->c->name, r->dev.id, what,
                 cpu_msg, aug_last_error());
}

/* ---- the runner ------------------------------------------------------------------------ */

static uint64_t hash_name(const char *s) {
    uint64_t h = 1469598103934665603ull;
    while (*s) h = (h ^ (unsigned char)*s++) * 1099511628211ull;
    return h;
}

/* Whether the case's name has one of the filter's comma-separated substrings. */
static int selected(const char *name) {
    if (!g_filter || !*g_filter) return 1;
    const char *f = g_filter;
    for (;;) {
        size_t n = strcspn(f, ",");
        char part[128];
        snprintf(part, sizeof part, "%.*s", (int)(n < sizeof part ? n : sizeof part - 1), f);
        if (n && strstr(name, part)) return 1;
        if (!f[n]) return 0;
        f += n + 1;
    }
}

/* A case at the launch setting of the cmocka test's setup: the automatic one on
 * every CUDA device but the last, blocks of 1024 threads on the last (cuda:1 of
 * the emulation; with one GPU both on cuda:0), so that every case runs on every
 * device and every kernel again in blocks of 1024 threads (every kernel must take
 * them, which its registers decide: the emulation refuses a block of more than
 * 64 Ki registers, counted from the fatbinary, tests/cuda_emu/kernel_registers.txt). */
static int g_case_ran[AUG__NUM_FAMILIES];

static void run_case(void **state) {
    const ph_case *c = *state;
    NEED_CUDA();
    int ndev = aug_device_count(AUG_DEVICE_CUDA);
    int threads = 0, blocks = 0;
    aug_get_launch(&blocks, &threads);
    int first = threads ? ndev - 1 : 0, end = threads || ndev == 1 ? ndev : ndev - 1;
    for (int d = first; d < end; d++) {
        ph_run r = {.c = c, .dev = {AUG_DEVICE_CUDA, d}, .threads = threads, .seed = g_seed};
        r.state = (g_seed ^ hash_name(c->name)) * 0x9e3779b97f4a7c15ull | 1;
        c->run(&r, c);
        g_runs++;
        if (c->family >= 0) g_case_ran[c->family]++;
        assert_int_equal(aug_synchronize(r.dev), AUG_OK);
    }
}

int main(void) {
    const char *s = getenv("AUG_PARITY_SEED");
    if (s && *s) g_seed = strtoull(s, NULL, 0);
    g_filter = getenv("AUG_PARITY_FILTER");
    size_t total = 0, ncases = 0;
    for (int l = 0; l < NLISTS; l++) total += LISTS[l]->n;
    struct CMUnitTest *tests = calloc(2 * total + 2, sizeof *tests);
    g_cpu_rec = aug__cpu_backend;
    g_cpu_rec.run = cpu_rec_run;
    aug__backend_override(AUG_DEVICE_CPU, &g_cpu_rec);
    size_t nt = 0;
    tests[nt++] = (struct CMUnitTest)cmocka_unit_test(test_registry_complete);
    for (int setting = 0; setting < 2; setting++) /* automatic, then blocks of 1024 threads */
        for (int l = 0; l < NLISTS; l++)
            for (size_t i = 0; i < LISTS[l]->n; i++) {
                const ph_case *c = &LISTS[l]->cases[i];
                if (!selected(c->name)) continue;
                ncases += setting == 0;
                char *name = malloc(strlen(c->name) + 16);
                sprintf(name, "%s%s", c->name, setting ? " @1024" : "");
                tests[nt].name = name;
                tests[nt].test_func = run_case;
                tests[nt].setup_func = setting ? th_threads_1024 : th_threads_auto;
                tests[nt].teardown_func = th_threads_auto;
                tests[nt].initial_state = (void *)c;
                nt++;
            }
    tests[nt] = (struct CMUnitTest)cmocka_unit_test(test_cpu_table_reached);
    tests[nt++].initial_state = g_case_ran;
    int rc = _cmocka_run_group_tests("test_cuda_parity", tests, nt, NULL, NULL);
    aug__backend_override(AUG_DEVICE_CPU, NULL);
    printf("parity: seed %llu: %zu cases (of %zu), %lld runs (%d devices: automatic launch settings on all but the last, 1024 threads on the last), "
           "%lld results compared (%lld bytes) and %lld errors\n",
           (unsigned long long)g_seed, ncases, total, g_runs, aug_device_count(AUG_DEVICE_CUDA), g_comparisons,
           g_bytes, g_errors);
    for (size_t i = 1; i + 1 < nt; i++) free((char *)tests[i].name);
    free(tests);
    return rc;
}
