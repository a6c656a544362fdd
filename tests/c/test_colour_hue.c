/* test_colour_hue.c: the hue step's fast path against the rule it replaced.
 *
 * The oracle below is the torchvision transcription that scalar/colour.h
 * held before the hue step was sped up (three divisions in rgb_to_hsv, the
 * int32 sector floor(6h) mod 6 and a mask gather in hsv_to_rgb); the recorded
 * torchvision outputs of tests/python/test_colour.py validate it. Checked bit
 * for bit (any two NaNs match): adjust_hue on every one of the 2^24 uint8 RGB
 * triples for five factors, through the CPU block loops (aug_adjust_hue) and
 * through the per-pixel rule the CUDA kernel runs (aug__colour_step_hue);
 * float32 adjust_hue, rgb_to_hsv and hsv_to_rgb on random floats with zeros of
 * both signs, ones, equal channels, NaN, inf, subnormals and values outside
 * [0, 1]; adjust_hue in place (output = input) too. main runs itself once more
 * with AUG_SIMD=sse2, so the plain build of the block loops is checked as well
 * as the AVX2+FMA one (there the uint8 sweep takes one factor). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <spawn.h>
#include <sys/wait.h>
#include <cmocka.h>
#include "aug/aug.h"
#include "scalar/colour.h"

extern char **environ;

/* ---- the oracle: the rule before the fast path ----------------------------------------- */

static float ref_clamp(float v, float bound) { return v < 0.0f ? 0.0f : (v > bound ? bound : v); }
static float ref_frac(float a) { return a - truncf(a); }

static void ref_rgb_to_hsv(float r, float g, float b, float *h, float *s, float *v) {
    float maxc = r > g ? r : g, minc = r < g ? r : g;
    maxc = maxc > b ? maxc : b;
    minc = minc < b ? minc : b;
    const int eqc = maxc == minc;
    const float cr = maxc - minc;
    *s = cr / (eqc ? 1.0f : maxc);
    const float crd = eqc ? 1.0f : cr;
    const float rc = (maxc - r) / crd, gc = (maxc - g) / crd, bc = (maxc - b) / crd;
    const float hr = bc - gc, hg = (rc + 2.0f) - bc, hb = (gc + 4.0f) - rc;
    const float hh = maxc == r ? hr : (maxc == g ? hg : hb);
    *h = ref_frac(hh * 0.16666667f + 1.0f);
    *v = maxc;
}

static uint32_t bits(float x) {
    uint32_t u;
    memcpy(&u, &x, 4);
    return u;
}

static float from_bits(uint32_t u) {
    float x;
    memcpy(&x, &u, 4);
    return x;
}

static void ref_hsv_to_rgb(float h, float s, float v, float *r, float *g, float *b) {
    const float h6 = h * 6.0f, fi = floorf(h6), f = h6 - fi;
    const float fc = fi >= -1073741824.0f && fi <= 1073741824.0f ? fi : 0.0f;
    int i = (int)fc % 6;
    i = i < 0 ? i + 6 : i;
    const float sxf = s * f, oms = 1.0f - s;
    const uint32_t q = bits(ref_clamp((1.0f - sxf) * v, 1.0f));
    const uint32_t t = bits(ref_clamp((sxf + oms) * v, 1.0f));
    const uint32_t p = bits(ref_clamp(oms * v, 1.0f)), vv = bits(v);
    const uint32_t m0 = 0u - (uint32_t)(i == 0), m1 = 0u - (uint32_t)(i == 1), m2 = 0u - (uint32_t)(i == 2);
    const uint32_t m3 = 0u - (uint32_t)(i == 3), m4 = 0u - (uint32_t)(i == 4), m5 = 0u - (uint32_t)(i == 5);
    *r = from_bits((vv & (m0 | m5)) | (q & m1) | (p & (m2 | m3)) | (t & m4));
    *g = from_bits((t & m0) | (vv & (m1 | m2)) | (q & m3) | (p & (m4 | m5)));
    *b = from_bits((p & (m0 | m1)) | (t & m2) | (vv & (m3 | m4)) | (q & m5));
}

static float ref_rem1(float a) {
    const float m = ref_frac(a);
    return m < 0.0f ? m + 1.0f : m;
}

/* the hue turn and the way back, from the pixel's HSV */
static void ref_hue_from_hsv(float h, float s, float v, float hue, float *r, float *g, float *b) {
    ref_hsv_to_rgb(ref_rem1(h + hue), s, v, r, g, b);
}

/* ---- helpers ------------------------------------------------------------------------ */

#define CPU aug_cpu_device()

/* any two NaNs match, else the bits */
static int same(float a, float b) { return (isnan(a) && isnan(b)) || bits(a) == bits(b); }

static void check_same(const char *what, float got, float want, int64_t at, float x0, float x1, float x2) {
    if (same(got, want)) return;
    fail_msg("%s at %lld (input %a %a %a): got %a, want %a", what, (long long)at, (double)x0, (double)x1, (double)x2,
             (double)got, (double)want);
}

static uint64_t lcg(uint64_t *s) {
    *s = *s * 6364136223846793005ull + 1442695040888963407ull;
    return *s >> 32;
}

/* A float for the HSV tests: mostly in [0, 1] with repeats, often an edge value. */
static float random_value(uint64_t *st) {
    static const float edge[] = {0.0f,      -0.0f, 1.0f,   0.5f,           1e-40f,   -1e-40f, 0x1p-149f,
                                 2.0f,      -1.0f, -0.25f, 255.0f,         1e30f,    -1e30f,  INFINITY,
                                 -INFINITY, NAN,   -NAN,   0x1.fffffep-1f, 0x1p-24f, 3e38f};
    const uint32_t u = (uint32_t)lcg(st);
    switch (u % 8) {
    case 0: return edge[(u >> 3) % (sizeof edge / sizeof edge[0])];
    case 1: return (float)((u >> 3) % 256) / 255.0f;
    case 2: return from_bits((uint32_t)lcg(st)); /* any bits: NaNs, infs, huge and tiny */
    case 3: return ((float)(u >> 8) / 16777216.0f) * 4.0f - 2.0f;
    default: return (float)(u >> 8) / 16777216.0f;
    }
}

enum { NPIX = 1 << 20 }; /* pixels per chunk of the uint8 sweep */
static const double u8_factors[] = {-0.1, 0.5, -0.5, 0.03, 0.25};
#define NFAC ((int)(sizeof u8_factors / sizeof u8_factors[0]))

/* 1 in the AUG_SIMD=sse2 run: the block loops' sweep takes the first factor
 * and the rules (compiled into this program, the same in both runs) are not
 * checked again, which keeps the two runs within a few seconds. */
static int plain_run;

/* ---- tests -------------------------------------------------------------------------- */

/* Every uint8 RGB triple, five factors: aug_adjust_hue (the CPU block loops)
 * against the oracle, and for the first aug__colour_step_hue (the per-pixel
 * rule, as the CUDA kernel runs it). */
static void test_u8_every_triple(void **state) {
    (void)state;
    aug_tensor *x = aug_tensor_empty(4, (int64_t[]){1, 3, 1024, 1024}, AUG_UINT8, CPU);
    aug_tensor *o = aug_tensor_empty(4, (int64_t[]){1, 3, 1024, 1024}, AUG_UINT8, CPU);
    float *hsv = malloc(3 * sizeof(float) * NPIX);
    assert_non_null(x), assert_non_null(o), assert_non_null(hsv);
    uint8_t *px = aug_tensor_ptr(x), *po = aug_tensor_ptr(o);
    for (int chunk = 0; chunk < (1 << 24) / NPIX; chunk++) {
        for (int64_t j = 0; j < NPIX; j++) {
            const int64_t p = (int64_t)chunk * NPIX + j;
            px[j] = (uint8_t)(p >> 16), px[NPIX + j] = (uint8_t)(p >> 8), px[2 * NPIX + j] = (uint8_t)p;
            ref_rgb_to_hsv((float)px[j] * AUG__COLOUR_U8_TO_F, (float)px[NPIX + j] * AUG__COLOUR_U8_TO_F,
                           (float)px[2 * NPIX + j] * AUG__COLOUR_U8_TO_F, &hsv[3 * j], &hsv[3 * j + 1],
                           &hsv[3 * j + 2]);
        }
        for (int k = 0; k < (plain_run ? 1 : NFAC); k++) {
            const float hue = (float)u8_factors[k];
            const int rule_too = !plain_run && k == 0;
            assert_int_equal(aug_adjust_hue(x, u8_factors[k], &o), AUG_OK);
            if (chunk == 0) { /* in place (the output is the input) gives the same bytes */
                aug_tensor *y = aug_tensor_empty(4, (int64_t[]){1, 3, 1024, 1024}, AUG_UINT8, CPU), *yo;
                assert_non_null(y);
                memcpy(aug_tensor_ptr(y), px, 3 * NPIX);
                yo = y;
                assert_int_equal(aug_adjust_hue(y, u8_factors[k], &yo), AUG_OK);
                assert_ptr_equal(yo, y);
                assert_memory_equal(aug_tensor_ptr(y), po, 3 * NPIX);
                aug_tensor_free(y);
            }
            for (int64_t j = 0; j < NPIX; j++) {
                float r, g, b;
                ref_hue_from_hsv(hsv[3 * j], hsv[3 * j + 1], hsv[3 * j + 2], hue, &r, &g, &b);
                const uint8_t want[3] = {(uint8_t)truncf(r * AUG__COLOUR_F_TO_U8),
                                         (uint8_t)truncf(g * AUG__COLOUR_F_TO_U8),
                                         (uint8_t)truncf(b * AUG__COLOUR_F_TO_U8)};
                float rule[3] = {px[j], px[NPIX + j], px[2 * NPIX + j]};
                if (rule_too) aug__colour_step_hue(1, hue, &rule[0], &rule[1], &rule[2]);
                for (int c = 0; c < 3; c++) {
                    if (po[c * NPIX + j] != want[c] || (rule_too && rule[c] != (float)want[c]))
                        fail_msg("hue %g, rgb (%d, %d, %d), channel %d: block loop %d, rule %g, want %d", (double)hue,
                                 px[j], px[NPIX + j], px[2 * NPIX + j], c, po[c * NPIX + j], (double)rule[c], want[c]);
                }
            }
        }
    }
    free(hsv);
    aug_tensor_free(x), aug_tensor_free(o);
}

/* float32 adjust_hue on random floats and edge values (every factor sign, the
 * range ends, -1e-9 that turns h = 0 into h = 1 (sector 6, counted as 0), and
 * a block tail: the width is not a multiple of 8 or 256). */
static void test_float_hue(void **state) {
    (void)state;
    enum { H = 67, W = 301, N = H * W };
    aug_tensor *x = aug_tensor_empty(4, (int64_t[]){1, 3, H, W}, AUG_FLOAT32, CPU);
    aug_tensor *o = aug_tensor_empty(4, (int64_t[]){1, 3, H, W}, AUG_FLOAT32, CPU);
    aug_tensor *y = aug_tensor_empty(4, (int64_t[]){1, 3, H, W}, AUG_FLOAT32, CPU);
    assert_non_null(x), assert_non_null(o), assert_non_null(y);
    float *px = aug_tensor_ptr(x), *po = aug_tensor_ptr(o), *py = aug_tensor_ptr(y);
    const double factors[] = {-0.5, -0.37, -0.1, -1e-7, -1e-9, 0.0, 0x1p-30, 0.03, 0.25, 0.4999999, 0.5};
    for (int rep = 0; rep < 4; rep++) {
        uint64_t st = 77 + (uint64_t)rep;
        for (int64_t j = 0; j < N; j++) {
            const uint32_t mode = (uint32_t)lcg(&st) % 4;
            px[j] = random_value(&st);
            /* equal channels and pairs, for the max/min ties */
            px[N + j] = mode == 0 ? px[j] : random_value(&st);
            px[2 * N + j] = mode == 1 ? px[j] : (mode == 2 ? px[N + j] : random_value(&st));
        }
        for (size_t k = 0; k < sizeof factors / sizeof factors[0]; k++) {
            const float hue = (float)factors[k];
            assert_int_equal(aug_adjust_hue(x, factors[k], &o), AUG_OK);
            /* in place (the output is the input) gives the same bytes */
            memcpy(py, px, sizeof(float) * 3 * N);
            aug_tensor *yo = y;
            assert_int_equal(aug_adjust_hue(y, factors[k], &yo), AUG_OK);
            assert_ptr_equal(yo, y);
            assert_memory_equal(py, po, sizeof(float) * 3 * N);
            for (int64_t j = 0; j < N; j++) {
                const float x0 = px[j], x1 = px[N + j], x2 = px[2 * N + j];
                float h, s, v, want[3];
                ref_rgb_to_hsv(x0, x1, x2, &h, &s, &v);
                ref_hue_from_hsv(h, s, v, hue, &want[0], &want[1], &want[2]);
                float y[3] = {x0, x1, x2};
                aug__colour_hue(&y[0], &y[1], &y[2], hue);
                for (int c = 0; c < 3; c++) {
                    check_same("adjust_hue block loop", po[c * N + j], want[c], j, x0, x1, x2);
                    check_same("adjust_hue rule", y[c], want[c], j, x0, x1, x2);
                }
            }
        }
    }
    aug_tensor_free(x), aug_tensor_free(o), aug_tensor_free(y);
}

/* Every pixel of the n-pixel planes out against ref applied to the planes in. */
static void check_planes(const char *what, void (*ref)(float, float, float, float *, float *, float *),
                         const float *in, const float *out, int64_t n) {
    for (int64_t j = 0; j < n; j++) {
        float want[3];
        ref(in[j], in[n + j], in[2 * n + j], &want[0], &want[1], &want[2]);
        for (int c = 0; c < 3; c++) check_same(what, out[c * n + j], want[c], j, in[j], in[n + j], in[2 * n + j]);
    }
}

/* rgb_to_hsv (its divisions rearranged) and hsv_to_rgb (its gather rewritten,
 * for any h) on the same kind of values; h also far outside [0, 1]. */
static void test_float_hsv(void **state) {
    (void)state;
    enum { N = 50021 };
    aug_tensor *x = aug_tensor_empty(4, (int64_t[]){1, 3, 1, N}, AUG_FLOAT32, CPU);
    aug_tensor *o = aug_tensor_empty(4, (int64_t[]){1, 3, 1, N}, AUG_FLOAT32, CPU);
    assert_non_null(x), assert_non_null(o);
    float *px = aug_tensor_ptr(x), *po = aug_tensor_ptr(o);
    uint64_t st = 4242;
    for (int rep = 0; rep < 4; rep++) {
        for (int64_t j = 0; j < N; j++) {
            const uint32_t mode = (uint32_t)lcg(&st) % 4;
            px[j] = random_value(&st);
            px[N + j] = mode == 0 ? px[j] : random_value(&st);
            px[2 * N + j] = mode == 1 ? px[j] : (mode == 2 ? px[N + j] : random_value(&st));
            if (rep == 3) px[j] = (float)((int32_t)lcg(&st)) * 0x1p-20f; /* h in +-2^11, every sector */
        }
        assert_int_equal(aug_rgb_to_hsv(x, &o), AUG_OK);
        check_planes("rgb_to_hsv", ref_rgb_to_hsv, px, po, N);
        assert_int_equal(aug_hsv_to_rgb(x, &o), AUG_OK);
        check_planes("hsv_to_rgb", ref_hsv_to_rgb, px, po, N);
    }
    aug_tensor_free(x), aug_tensor_free(o);
}

/* The rules straight, every uint8-scaled triple: rgb_to_hsv, and hsv_to_rgb_unit
 * (the hue step's) against hsv_to_rgb for h in [0, 1] and NaN. */
static void test_rules_every_triple(void **state) {
    (void)state;
    if (plain_run) skip();
    for (int64_t p = 0; p < (1 << 24); p++) {
        const float r = (float)(p >> 16) * AUG__COLOUR_U8_TO_F, g = (float)((p >> 8) & 255) * AUG__COLOUR_U8_TO_F,
                    b = (float)(p & 255) * AUG__COLOUR_U8_TO_F;
        float h, s, v, h2, s2, v2;
        ref_rgb_to_hsv(r, g, b, &h, &s, &v);
        aug__colour_rgb_to_hsv(r, g, b, &h2, &s2, &v2);
        if (bits(h) != bits(h2) || bits(s) != bits(s2) || bits(v) != bits(v2))
            fail_msg("rgb_to_hsv(%a, %a, %a)", (double)r, (double)g, (double)b);
    }
    uint64_t st = 9;
    for (int64_t j = 0; j < (1 << 22); j++) {
        const uint32_t u = (uint32_t)lcg(&st);
        /* h: every float in [0, 1) at the sector edges, 1 itself, NaN; s and v random */
        float h = (u & 7) == 0 ? 1.0f : ((u & 7) == 1 ? NAN : (float)(u >> 8) / 16777216.0f);
        if ((u & 7) == 2) h = nextafterf((float)((u >> 3) % 7) / 6.0f, (u >> 6) & 1 ? 2.0f : -1.0f);
        if (h < 0.0f) h = 0.0f;
        const float s = random_value(&st), v = random_value(&st);
        float w[3], y[3], z[3];
        ref_hsv_to_rgb(h, s, v, &w[0], &w[1], &w[2]);
        aug__colour_hsv_to_rgb_unit(h, s, v, &y[0], &y[1], &y[2]);
        aug__colour_hsv_to_rgb(h, s, v, &z[0], &z[1], &z[2]);
        for (int c = 0; c < 3; c++) {
            check_same("hsv_to_rgb_unit", y[c], w[c], j, h, s, v);
            check_same("hsv_to_rgb", z[c], w[c], j, h, s, v);
        }
    }
}

/* Runs this program again with AUG_SIMD=sse2 (the plain block loops); 0 when it passed. */
static int run_plain(char **argv) {
    char *env[256];
    int n = 0;
    for (char **e = environ; *e && n < 254; e++)
        if (strncmp(*e, "AUG_SIMD=", 9) != 0) env[n++] = *e;
    env[n++] = "AUG_SIMD=sse2";
    env[n] = NULL;
    pid_t pid;
    if (posix_spawn(&pid, "/proc/self/exe", NULL, NULL, argv, env) != 0) return 1;
    int status = 0;
    if (waitpid(pid, &status, 0) != pid) return 1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

int main(int argc, char **argv) {
    (void)argc;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_u8_every_triple),
        cmocka_unit_test(test_float_hue),
        cmocka_unit_test(test_float_hsv),
        cmocka_unit_test(test_rules_every_triple),
    };
    plain_run = getenv("AUG_SIMD") != NULL;
    const int failed = cmocka_run_group_tests_name(plain_run ? "AUG_SIMD=sse2" : "native SIMD", tests, NULL, NULL);
    return failed ? failed : (plain_run ? 0 : run_plain(argv));
}
