/* test_cuda_hostwait.c: no image op waits on the host (docs/cuda.md, "No host
 * waits inside an op"). Each family (warp, batch warp, box, Gaussian and PIL's
 * blur, resize, crop-mirror-normalize, colour jitter with and without its fused
 * lighting, lighting of 8-bit, 16-bit and float images, take, Gaussian noise,
 * the tone ops with operands per image, equalize, adjust_sharpness,
 * aug_image_ops_batch with every op kind, and aug_mix_mirror) is called once to warm the pools
 * up, then behind a busy stream: the call must return while the stream is
 * still busy, with no host wait counted (on the
 * emulated devices, whose runtime counts the synchronisations, blocking copies,
 * pageable uploads and implicitly synchronising calls of each thread:
 * aug_emu_host_waits, found with dlsym in the loaded module), and its result
 * must equal the CPU's once the device is idle.
 *
 * The queued test calls every family many times back to back with different
 * parameters behind a busy stream, more calls than the staging ring has slots
 * (cuda/staging.cu), and checks every result at the end: a parameter slot
 * reused before the copy out of it had run gives a call another call's
 * parameters. test_host_buffers: the cache of page-locked host blocks
 * (numpy(blocking=False)) without host waits, and without handing out a block
 * that a queued copy still writes. test_fallback_decode: the CPU decoder's
 * fallback on a CUDA device uploads through two staging buffers in turn, and
 * through the staging ring while both are still queued. test_staged_uploads: a
 * blocking upload of at most AUG__STAGED_UPLOAD_MAX (4 MiB) bytes (aug_tensor_write,
 * aug_tensor_to from the CPU) goes through the staging ring and a copy within the
 * device is queued: no host wait behind a busy stream, the host buffer reusable at
 * once; uploads past the ring's size and larger uploads stay right. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <turbojpeg.h>

#include "aug/aug.h"
#include "helpers/th_cuda.h"

enum { TRIES = 6, QUEUED = 640 };

/* ---- the emulator's count of host waits -------------------------------------------- */

typedef long long (*waits_fn)(const char **last);
static waits_fn host_waits;

/* The emulated module's counter, or NULL on a GPU (whose module has none). */
static waits_fn counter(void) {
    if (!host_waits) host_waits = (waits_fn)(void (*)(void))th_emu_symbol("aug_emu_host_waits");
    return host_waits;
}

/* ---- the ops ------------------------------------------------------------------------ */

/* One call of a family on in (on in's device) with parameters that depend on k. */
typedef struct ctx {
    const aug_tensor *in;
    aug_rng *rng; /* the noise's, on in's device */
} ctx;
typedef aug_status (*op_fn)(const ctx *c, int k, aug_tensor **out);

static aug_tensor *floats(const float *v, int64_t n) { return th_floats_on(v, n, CPU); } /* host parameters */

static aug_status op_warp(const ctx *c, int k, aug_tensor **out) {
    const float m[6] = {1.0f + 0.01f * (float)(k % 17), 0.1f, (float)(k % 5) - 1.0f, 0.05f, 0.9f, 0.5f};
    *out = aug_tensor_empty(3, (int64_t[]){3, 8, 8}, AUG_UINT8, c->in->device);
    return aug_warp_affine(c->in, *out, m, NULL, 1 + k % 2);
}

static aug_status op_warp_batch(const ctx *c, int k, aug_tensor **out) {
    const float m[12] = {0.8f, 0.0f, 0.25f * (float)(k % 9), 0.0f, 0.8f, 1.0f,
                         1.1f, 0.2f * (float)(k % 3), 0.0f, 0.0f, 1.2f, -1.0f};
    const aug_tensor *src[2] = {c->in, c->in};
    const int ss[2] = {1, 2};
    *out = aug_tensor_empty(4, (int64_t[]){2, 3, 8, 8}, AUG_UINT8, c->in->device);
    return aug_warp_affine_batch(2, src, *out, m, NULL, ss);
}

static aug_status op_box_blur(const ctx *c, int k, aug_tensor **out) {
    return aug_box_blur_single(c->in, 2 + k % 4, out);
}

static aug_status op_gauss_blur(const ctx *c, int k, aug_tensor **out) {
    return aug_gaussian_blur_single(c->in, 0.4 + 0.15 * (k % 9), out);
}

static aug_status op_gauss_blur_batch(const ctx *c, int k, aug_tensor **out) {
    const float s[2] = {0.3f + 0.1f * (float)(k % 7), 1.5f - 0.1f * (float)(k % 5)};
    aug_tensor *sig = floats(s, 2);
    aug_status st = aug_gaussian_blur(c->in, sig, 7, out);
    aug_tensor_free(sig);
    return st;
}

static aug_status op_pil_blur_batch(const ctx *c, int k, aug_tensor **out) {
    const float r[2] = {0.2f + 0.3f * (float)(k % 7), 2.0f - 0.2f * (float)(k % 5)};
    aug_tensor *radii = floats(r, 2);
    aug_status st = aug_pil_gaussian_blur(c->in, radii, out);
    aug_tensor_free(radii);
    return st;
}

static aug_status op_resize(const ctx *c, int k, aug_tensor **out) {
    return aug_resize(c->in, "HWC", 5 + k % 6, 7 + k % 4, AUG_RESIZE_LINEAR, 1, out);
}

static aug_status op_cmn(const ctx *c, int k, aug_tensor **out) {
    aug_cmn_params p = aug_cmn_params_default();
    const float mean[3] = {(float)(k % 11), 2.0f, 3.0f}, std[3] = {1.0f + 0.5f * (float)(k % 3), 2.0f, 4.0f};
    p.crop_h = 6, p.crop_w = 7;
    p.crop_pos_y = 0.1f * (float)(k % 10), p.crop_pos_x = 0.25f;
    p.mean = mean, p.nmean = 3, p.std = std, p.nstd = 3;
    return aug_crop_mirror_normalize(c->in, AUG_FLOAT32, &p, out);
}

static aug_status op_jitter(const ctx *c, int k, aug_tensor **out) {
    const double b[2] = {0.9 + 0.01 * (k % 13), 1.2}, ct[2] = {1.3, 0.7 + 0.02 * (k % 7)}, s[2] = {0.8, 1.1};
    const double h[2] = {0.01 * (k % 5), -0.05};
    return aug_color_jitter(c->in, b, ct, s, h, NULL, out);
}

static aug_status op_jitter_lighting(const ctx *c, int k, aug_tensor **out) {
    const double b[2] = {1.1, 0.95}, ct[2] = {0.8 + 0.03 * (k % 5), 1.2};
    const double gg[2] = {0.9 + 0.02 * (k % 9), 1.1}, gc[6] = {1.0, 0.95, 1.05, 1.1, 1.0, 0.9}, lc[2] = {0.1, -0.2};
    aug_jitter_lighting l = {gg, gc, lc, 0.0, 255.0};
    return aug_color_jitter_lighting(c->in, b, ct, NULL, NULL, NULL, &l, out);
}

static aug_status op_lighting(const ctx *c, int k, aug_tensor **out) {
    const float gg[2] = {0.8f + 0.01f * (float)(k % 19), 1.2f}, gc[6] = {1.0f, 0.9f, 1.1f, 1.05f, 0.95f, 1.0f};
    const float ct[2] = {0.05f * (float)(k % 7), -0.3f};
    aug_tensor *tg = floats(gg, 2), *tc = floats(gc, 6), *tt = floats(ct, 2);
    const double vmax = c->in->dtype == AUG_FLOAT32 ? 1.0 : c->in->dtype == AUG_UINT16 ? 65535.0 : 255.0;
    aug_status st = aug_lighting(c->in, tg, tc, tt, 0.0, vmax, out);
    aug_tensor_free(tg), aug_tensor_free(tc), aug_tensor_free(tt);
    return st;
}

static aug_status op_take(const ctx *c, int k, aug_tensor **out) {
    enum { N = 24 };
    int64_t i0[N], i1[N];
    for (int b = 0; b < N; b++) i0[b] = (b * 7 + k) % 6 - 3, i1[b] = (b * 5 + 3 * k) % 24 - 12;
    const int64_t *idx[2] = {i0, i1};
    return aug_take(c->in, 2, idx, N, out);
}

static aug_status op_noise(const ctx *c, int k, aug_tensor **out) {
    return aug_rng_gaussian_noise(c->rng, c->in, 0.5 * (k % 3), 2.0 + k % 4, NULL, out);
}

static aug_status op_noise_stds(const ctx *c, int k, aug_tensor **out) {
    const float s[2] = {1.0f + (float)(k % 6), 3.0f};
    aug_tensor *stds = floats(s, 2);
    aug_status st = aug_rng_gaussian_noise(c->rng, c->in, 0.0, 1.0, stds, out);
    aug_tensor_free(stds);
    return st;
}

/* the tone family with one operand per image (uploaded), and the per-channel ones */
static aug_status op_posterize(const ctx *c, int k, aug_tensor **out) {
    const int32_t bits[2] = {1 + k % 8, 3};
    return aug_posterize(c->in, bits, 2, out);
}
static aug_status op_solarize(const ctx *c, int k, aug_tensor **out) {
    const double t[2] = {0.1 * (k % 9), 0.5};
    return aug_solarize(c->in, t, 2, out);
}
static aug_status op_equalize(const ctx *c, int k, aug_tensor **out) {
    (void)k;
    return aug_equalize(c->in, out);
}
static aug_status op_sharpness(const ctx *c, int k, aug_tensor **out) {
    const double f[2] = {0.5 * (k % 5), 2.0};
    return aug_adjust_sharpness(c->in, f, 2, out);
}

/* aug_image_ops_batch on a copy of in (3 images): every op kind, each image its own list */
static aug_status op_image_ops(const ctx *c, int k, aug_tensor **out) {
    const float kf = (float)(k % 7);
    const aug_image_op ops[] = {
        {AUG_IMAGE_OP_WARP_AFFINE, 0, {0.9f, 0.05f * kf, 0.5f, 0.0f, 1.1f, -1.0f}},
        {AUG_IMAGE_OP_PIL_GAUSSIAN_BLUR, 0.3 + 0.25 * (k % 6), {0}},
        {AUG_IMAGE_OP_SATURATION, 0.0, {0}}, /* timm's Desaturate at 1 */
        {AUG_IMAGE_OP_SHARPNESS, 0.5 * (k % 5), {0}},
        {AUG_IMAGE_OP_POSTERIZE, 1 + k % 8, {0}},
        {AUG_IMAGE_OP_SOLARIZE, 20.0 * (k % 9), {0}},
        {AUG_IMAGE_OP_SOLARIZE_ADD, 10 * (k % 5), {0}},
        {AUG_IMAGE_OP_AUTOCONTRAST, 0, {0}},
        {AUG_IMAGE_OP_EQUALIZE, 0, {0}},
        {AUG_IMAGE_OP_BRIGHTNESS, 0.8 + 0.05 * (k % 9), {0}},
        {AUG_IMAGE_OP_CONTRAST, 1.3 - 0.05 * (k % 7), {0}},
        {AUG_IMAGE_OP_INVERT, 0, {0}},
        {AUG_IMAGE_OP_IDENTITY, 0, {0}},
    };
    const int64_t offsets[4] = {0, 5, 9, 13};
    const float fill[3] = {10.0f * kf, 128.0f, 255.0f};
    aug_tensor *bg = floats(fill, 3); /* on the host: the warps read it without a wait */
    *out = aug_tensor_empty(c->in->ndim, c->in->shape, c->in->dtype, c->in->device);
    aug_status st = *out && bg ? aug_copy(c->in, *out) : AUG_ERR_MEMORY;
    if (!st) st = aug_image_ops_batch(*out, ops, offsets, bg, AUG_INTERP_LINEAR);
    aug_tensor_free(bg);
    return st;
}

/* aug_mix_mirror on a copy of in (3 images): a MixUp pair, a CutMix box, the middle image blended with itself */
static aug_status op_mix_mirror(const ctx *c, int k, aug_tensor **out) {
    const double lam = 0.1 * (k % 9) + 0.05, w[6] = {lam, 1.0 - lam, 1.0, 0.0, 0.3, 0.7};
    const int64_t boxes[12] = {0, 0, 0, 0, 0, 0, 0, 0, k % 5, 1, 5 + k % 6, 8};
    *out = aug_tensor_empty(c->in->ndim, c->in->shape, c->in->dtype, c->in->device);
    aug_status st = *out ? aug_copy(c->in, *out) : AUG_ERR_MEMORY;
    if (!st) st = aug_mix_mirror(*out, w, boxes, 3);
    return st;
}

typedef struct family {
    const char *name;
    op_fn run;
    aug_dtype dtype;
    int ndim;
    int64_t shape[4];
} family;

static const family FAMILIES[] = {
    {"warp", op_warp, AUG_UINT8, 3, {12, 10, 3}},
    {"warp batch", op_warp_batch, AUG_UINT8, 3, {12, 10, 3}},
    {"box blur", op_box_blur, AUG_UINT8, 3, {3, 12, 10}},
    {"gaussian blur", op_gauss_blur, AUG_FLOAT32, 3, {3, 12, 10}},
    {"gaussian blur, per-image sigmas", op_gauss_blur_batch, AUG_UINT8, 4, {2, 3, 9, 11}},
    {"PIL's gaussian blur, per-image radii", op_pil_blur_batch, AUG_UINT8, 4, {2, 3, 9, 11}},
    {"resize", op_resize, AUG_UINT8, 3, {12, 10, 3}},
    {"crop_mirror_normalize", op_cmn, AUG_UINT8, 3, {12, 10, 3}},
    {"color_jitter", op_jitter, AUG_UINT8, 4, {2, 3, 9, 11}},
    {"color_jitter_lighting", op_jitter_lighting, AUG_UINT8, 4, {2, 3, 9, 11}},
    {"lighting uint8", op_lighting, AUG_UINT8, 4, {2, 3, 9, 11}},
    {"lighting uint16", op_lighting, AUG_UINT16, 4, {2, 3, 5, 7}},
    {"lighting float32", op_lighting, AUG_FLOAT32, 4, {2, 3, 9, 11}},
    {"take", op_take, AUG_INT32, 4, {3, 12, 10, 2}},
    {"gaussian_noise", op_noise, AUG_UINT8, 3, {2, 9, 11}},
    {"gaussian_noise, per-image stds", op_noise_stds, AUG_FLOAT32, 3, {2, 9, 11}},
    {"posterize, per-image bits", op_posterize, AUG_UINT8, 4, {2, 3, 9, 11}},
    {"solarize, per-image thresholds", op_solarize, AUG_FLOAT32, 4, {2, 3, 9, 11}},
    {"equalize", op_equalize, AUG_UINT8, 4, {2, 3, 9, 11}},
    {"adjust_sharpness, per-image factors", op_sharpness, AUG_FLOAT32, 4, {2, 3, 9, 11}},
    {"image_ops_batch, every op kind", op_image_ops, AUG_UINT8, 4, {3, 3, 9, 11}},
    {"mix_mirror, per image", op_mix_mirror, AUG_FLOAT32, 4, {3, 3, 9, 11}},
};
enum { NFAM = sizeof FAMILIES / sizeof FAMILIES[0] };

/* The inputs of every family on the CPU and on cuda:0, and a generator on each
 * (the same seed: call i of one draws what call i of the other draws). */
typedef struct inputs {
    aug_tensor *cpu[NFAM], *gpu[NFAM];
    ctx c[NFAM], g[NFAM];
} inputs;

static void inputs_make(inputs *in) {
    const uint64_t seed = 1234, fill_seed = 99;
    aug_rng *rc = aug_rng_new(CPU, &seed), *rg = aug_rng_new(TH_CUDA0, &seed), *rf = aug_rng_new(CPU, &fill_seed);
    assert_non_null(rc), assert_non_null(rg), assert_non_null(rf);
    for (int f = 0; f < NFAM; f++) {
        const family *fm = &FAMILIES[f];
        in->cpu[f] = aug_tensor_empty(fm->ndim, fm->shape, fm->dtype, CPU);
        assert_non_null(in->cpu[f]);
        th_fill_pattern(in->cpu[f], 11 + (uint64_t)f);
        if (fm->dtype == AUG_FLOAT32) assert_int_equal(aug_rng_uniform(rf, in->cpu[f], 0.0, 1.0), AUG_OK); /* images in [0, 1] */
        in->gpu[f] = aug_tensor_to(in->cpu[f], TH_CUDA0);
        assert_non_null(in->gpu[f]);
        in->c[f] = (ctx){in->cpu[f], rc};
        in->g[f] = (ctx){in->gpu[f], rg};
    }
    aug_rng_free(rf);
    assert_int_equal(aug_synchronize(TH_CUDA0), AUG_OK);
}

static void inputs_free(inputs *in) {
    aug_rng_free(in->c[0].rng), aug_rng_free(in->g[0].rng);
    for (int f = 0; f < NFAM; f++) aug_tensor_free(in->cpu[f]), aug_tensor_free(in->gpu[f]);
}

/* The device's result of a call against the CPU's (the same call number k). */
static void same_result(const char *what, int k, const aug_tensor *want, const aug_tensor *got) {
    size_t na, nb;
    unsigned char *a = th_bytes_of(want, &na), *b = th_bytes_of(got, &nb);
    assert_int_equal(na, nb);
    char msg[160];
    snprintf(msg, sizeof msg, "%s (call %d)", what, k);
    const char *be = getenv("AUG_CUDA_BACKEND");
    th_compare(msg, want->dtype, a, b, na, !(be && strcmp(be, "emu") == 0)); /* a GPU's libm: the ulp bounds */
    free(a), free(b);
}

/* ---- keeping a stream busy --------------------------------------------------------- */

/* Queues reps fills of x on the current stream, then records `after`. */
static void keep_busy(aug_tensor *x, int reps, aug_event *after) {
    aug_scalar v = aug_scalar_float(1.0);
    for (int r = 0; r < reps; r++) assert_int_equal(aug_fill(x, &v), AUG_OK);
    assert_int_equal(aug_event_record(after, NULL), AUG_OK);
}

/* 1 Mi float32 elements on the emulated device; 64 Mi (about 65 us a fill on an
 * H200) on a GPU, which drained 4096 fills of 4 MiB before lighting's uint16
 * call returned (the third gpu_check run). */
static aug_tensor *busy_tensor(void) {
    const char *b = getenv("AUG_CUDA_BACKEND");
    int64_t n = b && strcmp(b, "emu") == 0 ? 1 << 20 : 1 << 26;
    aug_tensor *x = aug_tensor_empty(1, &n, AUG_FLOAT32, TH_CUDA0);
    assert_non_null(x);
    return x;
}

/* ---- the tests --------------------------------------------------------------------- */

/* Each family behind a busy stream: no host wait, the stream still busy when the
 * call returns, and the CPU's result. */
static void test_no_host_wait(void **state) {
    (void)state;
    if (!th_have_cuda()) skip();
    waits_fn waits = counter();
    inputs in;
    inputs_make(&in);
    aug_tensor *x = busy_tensor();
    aug_event *busy_done = aug_event_new(TH_CUDA0);
    assert_non_null(busy_done);
    int failures = 0;
    for (int f = 0; f < NFAM; f++) {
        const family *fm = &FAMILIES[f];
        aug_tensor *warm = NULL, *want = NULL;
        if (fm->run(&in.g[f], 0, &warm) != AUG_OK) { /* the pools, the ring, the events */
            print_error("%s: %s\n", fm->name, aug_last_error());
            failures++;
            continue;
        }
        assert_int_equal(fm->run(&in.c[f], 0, &want), AUG_OK);
        same_result(fm->name, 0, want, warm);
        aug_tensor_free(warm), aug_tensor_free(want);
        int busy = 0, reps = 4;
        for (int t = 0; t < TRIES && !busy; t++, reps *= 4) {
            assert_int_equal(aug_synchronize(TH_CUDA0), AUG_OK);
            aug_tensor *got = NULL;
            want = NULL;
            keep_busy(x, reps, busy_done);
            const char *last = NULL;
            long long w0 = waits ? waits(NULL) : 0;
            assert_int_equal(fm->run(&in.g[f], t + 1, &got), AUG_OK);
            long long w1 = waits ? waits(&last) : 0;
            busy = aug_event_query(busy_done) == 0;
            if (w1 != w0) {
                print_error("%s: %lld host wait(s) in the call, the last in %s\n", fm->name, w1 - w0, last);
                failures++;
                busy = 1; /* counted: no need to try longer */
            } else if (!busy && t == TRIES - 1) {
                print_error("%s: the stream was never still busy when the call returned (%d tries): it waits\n",
                            fm->name, TRIES);
                failures++;
            }
            assert_int_equal(fm->run(&in.c[f], t + 1, &want), AUG_OK);
            assert_int_equal(aug_synchronize(TH_CUDA0), AUG_OK);
            same_result(fm->name, t + 1, want, got);
            aug_tensor_free(got), aug_tensor_free(want);
        }
    }
    aug_event_free(busy_done);
    aug_tensor_free(x);
    inputs_free(&in);
    if (failures) fail_msg("%d famil%s waited on the host (or failed)", failures, failures == 1 ? "y" : "ies");
}

/* QUEUED calls, every family in turn with its own parameters per call, behind a
 * busy stream and read only at the end. On the emulated devices a round counts
 * only if the ring ran full (a host wait in the calls, for the oldest slot, whose
 * copy had not run yet): otherwise it is tried again with a longer busy stream. */
static void test_queued_calls(void **state) {
    (void)state;
    if (!th_have_cuda()) skip();
    waits_fn waits = counter();
    aug_tensor *x = busy_tensor();
    aug_event *busy_done = aug_event_new(TH_CUDA0);
    assert_non_null(busy_done);
    aug_tensor **got = calloc(QUEUED, sizeof *got);
    assert_non_null(got);
    int full = 0, reps = 16;
    for (int t = 0; t < TRIES && !full; t++, reps *= 4) {
        inputs in;
        inputs_make(&in);
        keep_busy(x, reps, busy_done);
        long long w0 = waits ? waits(NULL) : 0;
        for (int k = 0; k < QUEUED; k++)
            if (FAMILIES[k % NFAM].run(&in.g[k % NFAM], k, &got[k]) != AUG_OK)
                fail_msg("%s (call %d): %s", FAMILIES[k % NFAM].name, k, aug_last_error());
        full = !waits || waits(NULL) > w0; /* a wait for a slot whose copy had not run yet */
        assert_int_equal(aug_synchronize(TH_CUDA0), AUG_OK);
        for (int k = 0; k < QUEUED; k++) {
            aug_tensor *want = NULL;
            assert_int_equal(FAMILIES[k % NFAM].run(&in.c[k % NFAM], k, &want), AUG_OK);
            same_result(FAMILIES[k % NFAM].name, k, want, got[k]);
            aug_tensor_free(want), aug_tensor_free(got[k]);
            got[k] = NULL;
        }
        inputs_free(&in);
    }
    if (!full) fail_msg("the staging ring never ran full behind the busy stream (%d tries)", TRIES);
    free(got);
    aug_event_free(busy_done);
    aug_tensor_free(x);
}

/* aug_host_alloc's page-locked blocks (numpy(blocking=False)) come from a cache:
 * allocating and freeing one costs no host wait, and a block freed while a copy
 * into it is still queued (on a busy stream) is not handed out again before that
 * copy has run (a copy on another, idle stream into a block handed out too early
 * would be overwritten by the late one). */
static void test_host_buffers(void **state) {
    (void)state;
    if (!th_have_cuda()) skip();
    waits_fn waits = counter();
    int64_t n = 1 << 15;
    const size_t nbytes = (size_t)n * sizeof(float);
    aug_tensor *a = aug_tensor_empty(1, &n, AUG_FLOAT32, TH_CUDA0), *b = aug_tensor_empty(1, &n, AUG_FLOAT32, TH_CUDA0);
    aug_tensor *x = busy_tensor();
    aug_event *busy_done = aug_event_new(TH_CUDA0);
    aug_stream *s1 = aug_stream_new(TH_CUDA0, 0), *s2 = aug_stream_new(TH_CUDA0, 0), *prev = aug_current_stream(TH_CUDA0);
    assert_non_null(a), assert_non_null(b), assert_non_null(busy_done), assert_non_null(s1), assert_non_null(s2);
    aug_scalar one = aug_scalar_float(1.0), two = aug_scalar_float(2.0);
    assert_int_equal(aug_fill(a, &one), AUG_OK);
    assert_int_equal(aug_fill(b, &two), AUG_OK);
    void *p = aug_host_alloc(TH_CUDA0, nbytes); /* the first block: cudaMallocHost */
    assert_non_null(p);
    aug_host_free(TH_CUDA0, p);
    assert_int_equal(aug_synchronize(TH_CUDA0), AUG_OK);
    int valid = 0, reps = 4;
    for (int t = 0; t < TRIES && !valid; t++, reps *= 4) {
        assert_int_equal(aug_set_current_stream(s1), AUG_OK);
        keep_busy(x, reps, busy_done);
        long long w0 = waits ? waits(NULL) : 0;
        void *q = aug_host_alloc(TH_CUDA0, nbytes);
        assert_non_null(q);
        assert_int_equal(aug_tensor_read(a, q, nbytes, 0), AUG_OK); /* queued behind the busy work on s1 */
        aug_host_free(TH_CUDA0, q);
        const char *last = NULL;
        if (waits && waits(&last) != w0) fail_msg("%lld host wait(s) in aug_host_alloc/aug_host_free, the last in %s",
                                                  waits(NULL) - w0, last);
        assert_int_equal(aug_set_current_stream(s2), AUG_OK);
        float *r = (float *)aug_host_alloc(TH_CUDA0, nbytes);
        assert_non_null(r);
        assert_int_equal(aug_tensor_read(b, r, nbytes, 0), AUG_OK);
        assert_int_equal(aug_stream_synchronize(s2), AUG_OK);
        valid = aug_event_query(busy_done) == 0; /* s1's copy into q had not run when r was handed out */
        assert_int_equal(aug_set_current_stream(prev), AUG_OK);
        assert_int_equal(aug_synchronize(TH_CUDA0), AUG_OK);
        for (int64_t i = 0; i < n; i++)
            if (r[i] != 2.0f) fail_msg("r[%lld] = %g, not 2: a block was handed out with a copy into it still queued",
                                       (long long)i, (double)r[i]);
        aug_host_free(TH_CUDA0, r);
    }
    if (!valid) fail_msg("the stream was never still busy when the second block was handed out (%d tries)", TRIES);
    aug_stream_free(s1), aug_stream_free(s2);
    aug_event_free(busy_done);
    aug_tensor_free(x), aug_tensor_free(a), aug_tensor_free(b);
}

/* A w x h RGB JPEG with gradients from seed (tjFree it). */
static unsigned char *make_jpeg(int w, int h, unsigned seed, unsigned long *size) {
    unsigned char *img = malloc((size_t)w * (size_t)h * 3), *buf = NULL;
    assert_non_null(img);
    for (int i = 0; i < w * h * 3; i++) img[i] = (unsigned char)((i * 7 + (int)seed * 31) % 251);
    tjhandle tj = tjInitCompress();
    assert_int_equal(tjCompress2(tj, img, w, 0, h, TJPF_RGB, &buf, size, TJSAMP_420, 90, 0), 0);
    tjDestroy(tj);
    free(img);
    return buf;
}

/* The CPU decoder's fallback on a CUDA device (the decoder of the emulated
 * devices without nvJPEG): NDEC decodes behind a busy stream wait for nothing (two
 * page-locked staging buffers in turn, then, both still queued, the staging ring),
 * and every image equals the CPU's. With
 * nvJPEG (a GPU) the decoder is cuda/jpeg.cu's, whose slot rule is
 * test_cuda_nvjpeg's: skipped here. */
static void test_fallback_decode(void **state) {
    (void)state;
    if (!th_have_cuda()) skip();
    waits_fn waits = counter();
    aug_decoder *dg = aug_decoder_new(TH_CUDA0, 0, 0, 0), *dc = aug_decoder_new(CPU, 0, 0, 0);
    assert_non_null(dg), assert_non_null(dc);
    if (strcmp(aug_decoder_engine(dg), "nvjpeg") == 0) {
        aug_decoder_free(dg), aug_decoder_free(dc);
        skip();
    }
    enum { NDEC = 5 };
    unsigned long size[NDEC];
    unsigned char *jpeg[NDEC];
    for (int i = 0; i < NDEC; i++) jpeg[i] = make_jpeg(40 + 3 * i, 32 + i, (unsigned)i + 1, &size[i]);
    aug_tensor *x = busy_tensor();
    aug_event *busy_done = aug_event_new(TH_CUDA0);
    assert_non_null(busy_done);
    for (int w = 0; w < NDEC; w++) { /* both staging buffers allocated */
        aug_tensor *t = NULL;
        assert_int_equal(aug_decoder_decode(dg, jpeg[w], size[w], NULL, &t), AUG_OK);
        aug_tensor_free(t);
    }
    int busy = 0, reps = 4;
    for (int t = 0; t < TRIES && !busy; t++, reps *= 4) {
        assert_int_equal(aug_synchronize(TH_CUDA0), AUG_OK);
        aug_tensor *got[NDEC] = {NULL};
        keep_busy(x, reps, busy_done);
        const char *last = NULL;
        long long w0 = waits ? waits(NULL) : 0;
        for (int i = 0; i < NDEC; i++)
            assert_int_equal(aug_decoder_decode(dg, jpeg[i], size[i], NULL, &got[i]), AUG_OK);
        if (waits && waits(&last) != w0)
            fail_msg("%lld host wait(s) in %d decodes, the last in %s", waits(NULL) - w0, NDEC, last);
        busy = aug_event_query(busy_done) == 0;
        assert_int_equal(aug_synchronize(TH_CUDA0), AUG_OK);
        for (int i = 0; i < NDEC; i++) {
            aug_tensor *want = NULL;
            assert_int_equal(aug_decoder_decode(dc, jpeg[i], size[i], NULL, &want), AUG_OK);
            same_result("the fallback decode", i, want, got[i]);
            aug_tensor_free(want), aug_tensor_free(got[i]);
        }
    }
    if (!busy) fail_msg("the stream was never still busy after %d decodes (%d tries)", NDEC, TRIES);
    for (int i = 0; i < NDEC; i++) tjFree(jpeg[i]);
    aug_event_free(busy_done);
    aug_tensor_free(x);
    aug_decoder_free(dg), aug_decoder_free(dc);
}

/* n bytes of a pattern from seed. */
static void pattern(unsigned char *p, size_t n, unsigned seed) {
    for (size_t i = 0; i < n; i++) p[i] = (unsigned char)((i * 131u + seed * 29u + (i >> 12)) % 253u);
}

/* Whether t's bytes (read back) are pattern(seed); names the first difference. */
static void check_bytes(const char *what, const aug_tensor *t, size_t n, unsigned seed) {
    unsigned char *want = malloc(n), *got = malloc(n);
    assert_non_null(want), assert_non_null(got);
    pattern(want, n, seed);
    assert_int_equal(aug_tensor_read(t, got, n, 1), AUG_OK);
    for (size_t i = 0; i < n; i++)
        if (got[i] != want[i]) fail_msg("%s: byte %zu of %zu is %d, not %d", what, i, n, got[i], want[i]);
    free(want), free(got);
}

/* Blocking uploads (aug_tensor_write, aug_tensor_to from the CPU) of at most 4 MiB
 * and a copy within the device behind a busy stream: no host wait, the stream still
 * busy on return, the host buffer overwritten at once and the device bytes still
 * the original ones. Then STAGED_ROUNDS uploads of 1 MiB back to back behind the
 * busy stream (more than the ring's 8 MiB: it runs full and waits for its oldest
 * slot, never overwriting a slot still queued) and an upload of 4 MiB + 1 (the
 * blocking copy, which waits): all right. */
enum { STAGED_ROUNDS = 24 };
/* aug_tensor_to's uploads: at most 64 KiB each, so that a round's uploads (5 MiB and
 * these) fit in the 8 MiB ring with room for a chunk left unused at its end. */
#define MOVED_MAX ((size_t)64 << 10)
static void test_staged_uploads(void **state) {
    (void)state;
    if (!th_have_cuda()) skip();
    waits_fn waits = counter();
    static const size_t sizes[] = {1, 1000, (size_t)1 << 20, (size_t)4 << 20};
    enum { NS = sizeof sizes / sizeof sizes[0] };
    unsigned char *host = malloc(((size_t)4 << 20) + 1);
    assert_non_null(host);
    aug_tensor *x = busy_tensor();
    aug_event *busy_done = aug_event_new(TH_CUDA0);
    assert_non_null(busy_done);
    aug_tensor *dev[NS], *moved[NS], *copied[NS];
    for (int i = 0; i < NS; i++) {
        int64_t n = (int64_t)sizes[i];
        assert_non_null(dev[i] = aug_tensor_empty(1, &n, AUG_UINT8, TH_CUDA0));
        pattern(host, sizes[i], 0);
        assert_int_equal(aug_tensor_write(dev[i], host, sizes[i]), AUG_OK); /* warm: the ring, the pool */
    }
    int busy = 0, reps = 4;
    for (int t = 0; t < TRIES && !busy; t++, reps *= 4) {
        assert_int_equal(aug_synchronize(TH_CUDA0), AUG_OK);
        keep_busy(x, reps, busy_done);
        const char *last = NULL;
        long long w0 = waits ? waits(NULL) : 0;
        for (int i = 0; i < NS; i++) {
            pattern(host, sizes[i], (unsigned)(2 * t + 1));
            assert_int_equal(aug_tensor_write(dev[i], host, sizes[i]), AUG_OK);
            memset(host, 0xEE, sizes[i]); /* the ring holds its own copy */
            int64_t n = (int64_t)(sizes[i] < MOVED_MAX ? sizes[i] : MOVED_MAX);
            aug_tensor *h = aug_tensor_empty(1, &n, AUG_UINT8, CPU);
            assert_non_null(h);
            pattern(aug_tensor_ptr(h), (size_t)n, (unsigned)(2 * t + 2));
            assert_non_null(moved[i] = aug_tensor_to(h, TH_CUDA0));
            memset(aug_tensor_ptr(h), 0xDD, (size_t)n);
            aug_tensor_free(h);
            assert_non_null(copied[i] = aug_tensor_to(dev[i], TH_CUDA0)); /* within the device */
        }
        long long w1 = waits ? waits(&last) : 0;
        busy = aug_event_query(busy_done) == 0;
        if (w1 != w0) fail_msg("%lld host wait(s) in the staged uploads, the last in %s", w1 - w0, last);
        if (!busy && t == TRIES - 1) fail_msg("the stream was never still busy after the uploads (%d tries)", TRIES);
        assert_int_equal(aug_synchronize(TH_CUDA0), AUG_OK);
        for (int i = 0; i < NS; i++) {
            check_bytes("aug_tensor_write", dev[i], sizes[i], (unsigned)(2 * t + 1));
            check_bytes("aug_tensor_to", moved[i], sizes[i] < MOVED_MAX ? sizes[i] : MOVED_MAX, (unsigned)(2 * t + 2));
            check_bytes("a copy within the device", copied[i], sizes[i], (unsigned)(2 * t + 1));
            aug_tensor_free(moved[i]), aug_tensor_free(copied[i]);
        }
    }
    /* past the ring's size, behind a long busy stream: every slot's bytes arrive */
    int64_t mib = 1 << 20;
    aug_tensor *many[STAGED_ROUNDS];
    keep_busy(x, reps, busy_done);
    for (int k = 0; k < STAGED_ROUNDS; k++) {
        assert_non_null(many[k] = aug_tensor_empty(1, &mib, AUG_UINT8, TH_CUDA0));
        pattern(host, (size_t)mib, 100u + (unsigned)k);
        assert_int_equal(aug_tensor_write(many[k], host, (size_t)mib), AUG_OK);
    }
    memset(host, 0, (size_t)mib);
    for (int k = 0; k < STAGED_ROUNDS; k++) {
        check_bytes("uploads past the ring's size", many[k], (size_t)mib, 100u + (unsigned)k);
        aug_tensor_free(many[k]);
    }
    /* above the bound: the blocking copy */
    int64_t big = ((int64_t)4 << 20) + 1;
    aug_tensor *b = aug_tensor_empty(1, &big, AUG_UINT8, TH_CUDA0);
    assert_non_null(b);
    pattern(host, (size_t)big, 7);
    keep_busy(x, 4, busy_done);
    long long w0 = waits ? waits(NULL) : 0;
    assert_int_equal(aug_tensor_write(b, host, (size_t)big), AUG_OK);
    if (waits && waits(NULL) == w0) fail_msg("an upload of 4 MiB + 1 did not wait (it must copy from the caller's memory)");
    memset(host, 0, (size_t)big);
    check_bytes("an upload of 4 MiB + 1", b, (size_t)big, 7);
    aug_tensor_free(b);
    for (int i = 0; i < NS; i++) aug_tensor_free(dev[i]);
    aug_event_free(busy_done);
    aug_tensor_free(x);
    free(host);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_no_host_wait),
        cmocka_unit_test(test_queued_calls),
        cmocka_unit_test(test_host_buffers),
        cmocka_unit_test(test_fallback_decode),
        cmocka_unit_test(test_staged_uploads),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
