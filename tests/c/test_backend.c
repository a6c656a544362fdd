/* test_backend.c: every plan goes through the backend table, and the one
 * "not supported" error.
 *
 * A recording copy of the CPU backend's table (each compute entry counts its
 * calls and then runs the CPU's) serves the cpu device (aug__backend_override):
 * every op of AUG_OP_LIST, casts, copies and fills, every reduction, gemm, the
 * random fills, warp, lighting, the blurs, resize, colour, normalize, noise and
 * JPEG decoding must reach their entry, with the device and a stream in the
 * plan, and give the CPU's results (later families: the parity harness records
 * its CPU side through such a table, for every family).
 * Then tables that lack an entry, or whose supports() refuses a dtype, must
 * give "aug_x: <what> is not supported on cpu for dtype <dtype>" (AUG_ERR_TYPE)
 * for each family, without running anything. Last, a fake two-device CUDA
 * table (host memory, logging its stream and event entries) checks that every
 * stream and event call names the device of its stream or event, whatever
 * device is current, and that a copy from cuda:0 to cuda:1 is ordered after the
 * destination stream's earlier work and before its later work. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <turbojpeg.h>

#include "aug/aug.h"
#include "core/backend.h"
#include "core/blur.h"
#include "core/colour.h"
#include "core/lighting.h"
#include "core/normalize.h"
#include "core/random.h"
#include "core/warp.h"
#include "core/resize.h"

#define CPU aug_cpu_device()

static int calls[AUG__NUM_FAMILIES];
static int bad_exec;

/* The plan's execution context must name the cpu and carry a stream. */
static void check_exec(const aug__exec *e) {
    if (e->device.type != AUG_DEVICE_CPU || e->device.id != 0 || e->stream == NULL) bad_exec++;
}

/* Every compute family, from the registry: counted, its exec checked, then the CPU's run. */
static aug_status rec_run(aug__family family, const void *plan) {
    switch (family) {
#define X_(F, entry, plan_t, what)                                                                   \
    case AUG__FAMILY_##F: check_exec(&((const plan_t *)plan)->exec); break;
        AUG__COMPUTE_FAMILIES(X_)
#undef X_
    default: fail_msg("run() got family %d, not a compute family", (int)family);
    }
    calls[family]++;
    return aug__cpu_backend.run(family, plan);
}

static aug_status rec_jpeg_decode(const char *func, void *dec, const void *data, size_t size,
                                  const aug__jpeg_header *h, uint8_t *dst, const aug__exec *exec) {
    calls[AUG__FAMILY_JPEG]++;
    check_exec(exec);
    return aug__cpu_backend.jpeg_decode(func, dec, data, size, h, dst, exec);
}

static aug_status rec_jpeg_decode_region(const char *func, const void *data, size_t size, const aug__jpeg_header *h,
                                         aug__jpeg_region *r, uint8_t *dst) {
    calls[AUG__FAMILY_JPEG]++;
    return aug__cpu_backend.jpeg_decode_region(func, data, size, h, r, dst);
}

static aug__backend recording(void) {
    aug__backend be = aug__cpu_backend;
    be.run = rec_run;
    be.jpeg_decode = rec_jpeg_decode, be.jpeg_decode_region = rec_jpeg_decode_region;
    return be;
}

/* A tensor of v (or unset, where the table refuses the fill: test_supports_refuses). */
static aug_tensor *filled(int ndim, const int64_t *shape, aug_dtype dt, double v) {
    aug_scalar s = aug_scalar_float(v);
    aug_tensor *t = aug_tensor_full(ndim, shape, dt, CPU, &s);
    if (!t) t = aug_tensor_empty(ndim, shape, dt, CPU);
    assert_non_null(t);
    return t;
}

/* A w x h RGB JPEG. */
static unsigned char *tiny_jpeg(unsigned long *size) {
    unsigned char px[8 * 6 * 3], *buf = NULL;
    for (int i = 0; i < (int)sizeof px; i++) px[i] = (unsigned char)(i * 7);
    tjhandle tj = tjInitCompress();
    assert_int_equal(tjCompress2(tj, px, 8, 0, 6, TJPF_RGB, &buf, size, TJSAMP_420, 90, 0), 0);
    tjDestroy(tj);
    return buf;
}

/* One call of each family (every op of the list); returns the last status seen
 * that was not AUG_OK, or AUG_OK. With expect_ok each call must succeed. */
static aug_status run_families(aug_dtype dt, int expect_ok) {
    const int64_t s4[4] = {1, 3, 6, 8}, s3[3] = {6, 8, 3}, s2[2] = {4, 4}, one = 1;
    aug_tensor *a = filled(2, s2, dt, 2), *b = filled(2, s2, dt, 3), *c = filled(2, s2, dt, 1), *out = NULL;
    aug_status last = AUG_OK, st;
#define CALL(expr)                                                                             \
    do {                                                                                       \
        st = (expr);                                                                           \
        if (expect_ok && st != AUG_OK) fail_msg("%s failed: %s", #expr, aug_last_error());     \
        if (st != AUG_OK) last = st;                                                           \
    } while (0)
    for (int op = 0; op < AUG_NUM_OPS; op++) {
        int n = aug_op_arity((aug_op)op);
        aug_operand in[3] = {aug_operand_tensor(a), aug_operand_tensor(b), aug_operand_tensor(c)};
        if (op == AUG_OP_LSHIFT || op == AUG_OP_RSHIFT || op == AUG_OP_AND || op == AUG_OP_OR ||
            op == AUG_OP_XOR || op == AUG_OP_INVERT) {
            if (aug_dtype_info(dt)->kind == AUG_KIND_FLOAT) continue; /* integer-only operators */
        }
        out = NULL;
        CALL(aug_elementwise("aug_test", (aug_op)op, n, in, AUG_DTYPE_AUTO, AUG_DTYPE_AUTO, &out));
        aug_tensor_free(out);
    }
    out = NULL;
    CALL(aug_cast(a, AUG_INT16, &out));
    aug_tensor_free(out);
    CALL(aug_copy(a, b));
    aug_scalar v = aug_scalar_float(5);
    CALL(aug_fill(b, &v));
    for (int r = AUG_REDUCE_SUM; r <= AUG_REDUCE_ARGMAX; r++) {
        out = NULL;
        CALL(aug_reduce((aug_reduce_op)r, a, -1, NULL, 0, 0, &out));
        aug_tensor_free(out);
    }
    if (dt == AUG_FLOAT32) {
        out = NULL;
        CALL(aug_gemm(a, b, &out, 1.0, 0.0));
        aug_tensor_free(out);
    }
    aug_rng *rng = aug_rng_new(CPU, NULL);
    CALL(aug_rng_uniform(rng, a, 0, 10));
    aug_rng_free(rng);
    aug_tensor *src = filled(3, s3, dt, 9), *dst = aug_tensor_empty(3, (int64_t[]){3, 4, 4}, dt, CPU);
    const float m[6] = {1, 0, 0, 0, 1, 0};
    CALL(aug_warp_affine(src, dst, m, NULL, 1));
    aug_tensor *im = filled(4, s4, dt, 50), *g = filled(1, &one, AUG_FLOAT32, 1);
    aug_tensor *gc = filled(1, (int64_t[]){3}, AUG_FLOAT32, 1), *k = filled(1, &one, AUG_FLOAT32, 0);
    out = NULL;
    CALL(aug_lighting(im, g, gc, k, 0, 255, &out));
    aug_tensor_free(out);
    out = NULL;
    CALL(aug_gaussian_blur(im, g, 5, &out));
    aug_tensor_free(out);
    const int64_t rows[2] = {3, 0}, *idx[1] = {rows};
    out = NULL;
    CALL(aug_take(a, 1, idx, 2, &out));
    if (out) CALL(aug_put(a, 1, idx, 2, out));
    aug_tensor_free(out);
    out = NULL;
    CALL(aug_resize(src, NULL, 3, 5, AUG_RESIZE_LINEAR, 1, &out));
    aug_tensor_free(out);
    out = NULL;
    aug_cmn_params cp = aug_cmn_params_default();
    CALL(aug_crop_mirror_normalize(src, AUG_FLOAT32, &cp, &out));
    aug_tensor_free(out);
    out = NULL;
    rng = aug_rng_new(CPU, NULL);
    CALL(aug_rng_gaussian_noise(rng, src, 0.0, 2.0, NULL, &out));
    aug_rng_free(rng);
    aug_tensor_free(out);
    aug_tensor_free(src), aug_tensor_free(dst), aug_tensor_free(im), aug_tensor_free(g), aug_tensor_free(gc);
    aug_tensor_free(k), aug_tensor_free(a), aug_tensor_free(b), aug_tensor_free(c);
    if (dt == AUG_UINT8 || dt == AUG_FLOAT32) { /* the colour family takes these two */
        const double f[1] = {1.2}, hue[1] = {0.1};
        const int32_t order[4] = {3, 1, 0, 2};
        aug_tensor *cim = filled(4, s4, dt, dt == AUG_UINT8 ? 50 : 0.5);
        out = NULL;
        CALL(aug_color_jitter(cim, f, f, f, hue, order, &out));
        aug_tensor_free(out), aug_tensor_free(cim);
    }
#undef CALL
    return last;
}

static void test_every_plan_goes_through_the_table(void **state) {
    (void)state;
    aug__backend be = recording();
    memset(calls, 0, sizeof calls);
    bad_exec = 0;
    aug__backend_override(AUG_DEVICE_CPU, &be);
    run_families(AUG_FLOAT32, 1);
    run_families(AUG_UINT8, 1);
    unsigned long size;
    unsigned char *jpg = tiny_jpeg(&size);
    aug_decoder *d = aug_decoder_new(CPU, 0, 0, 0);
    aug_tensor *img = NULL;
    assert_int_equal(aug_decoder_decode(d, jpg, size, NULL, &img), AUG_OK);
    aug_tensor_free(img);
    int before = calls[AUG__FAMILY_JPEG];
    int64_t roi[4] = {1, 1, 2, 2}; /* in the 3 x 4 half-size image */
    assert_int_equal(aug_decoder_decode_region(d, jpg, size, roi, 1, 2, NULL, &img), AUG_OK);
    assert_int_equal(calls[AUG__FAMILY_JPEG], before + 1); /* the region decode went through the table too */
    aug_tensor_free(img), aug_decoder_free(d), tjFree(jpg);
    aug__backend_override(AUG_DEVICE_CPU, NULL);
    assert_true(calls[AUG__FAMILY_ELEMENTWISE] >= 2 * AUG_NUM_OPS - 6);
    /* the families called above (up to the Gaussian noise); the parity harness
     * records every family's CPU plans the same way, so a family added after
     * these needs no call here (tests/c/parity/harness.c) */
    for (int f = AUG__FAMILY_REDUCE; f <= AUG__FAMILY_NOISE; f++)
        if (calls[f] == 0) fail_msg("family %s never reached the backend table", aug__family_name((aug__family)f));
    assert_int_equal(bad_exec, 0);
}

/* No run entry: every compute family is "not supported", nothing runs. */
static void test_missing_entries(void **state) {
    (void)state;
    aug__backend be = recording();
    be.run = NULL;
    memset(calls, 0, sizeof calls);
    aug__backend_override(AUG_DEVICE_CPU, &be);
    aug_tensor *a = aug_tensor_empty(1, (int64_t[]){4}, AUG_FLOAT32, CPU), *b = NULL;
    assert_non_null(a);
    assert_int_equal(aug_binary(AUG_OP_ADD, a, a, &b), AUG_ERR_TYPE);
    assert_string_equal(aug_last_error(), "aug_add: + is not supported on cpu for dtype float32");
    assert_int_equal(aug_reduce(AUG_REDUCE_SUM, a, -1, NULL, 0, 0, &b), AUG_ERR_TYPE);
    assert_string_equal(aug_last_error(), "aug_sum: reduction is not supported on cpu for dtype float32");
    aug_rng *rng = aug_rng_new(CPU, NULL);
    assert_int_equal(aug_rng_uniform(rng, a, 0, 1), AUG_ERR_TYPE);
    assert_string_equal(aug_last_error(), "aug_rng_uniform: random fill is not supported on cpu for dtype float32");
    aug_rng_free(rng);
    aug_tensor *im = aug_tensor_empty(3, (int64_t[]){1, 4, 4}, AUG_UINT8, CPU);
    assert_int_equal(aug_box_blur_single(im, 3, &b), AUG_ERR_TYPE);
    assert_string_equal(aug_last_error(), "aug_box_blur_single: blur is not supported on cpu for dtype uint8");
    assert_null(b);
    assert_int_equal(aug_adjust_hue(im, 0.1, &b), AUG_ERR_TYPE);
    assert_string_equal(aug_last_error(), "aug_adjust_hue: colour is not supported on cpu for dtype uint8");
    assert_null(b);
    aug_cmn_params cp = aug_cmn_params_default();
    cp.in_chw = 1;
    assert_int_equal(aug_crop_mirror_normalize(im, AUG_FLOAT32, &cp, &b), AUG_ERR_TYPE);
    assert_string_equal(aug_last_error(),
                        "aug_crop_mirror_normalize: crop_mirror_normalize is not supported on cpu for dtype float32");
    assert_null(b);
    rng = aug_rng_new(CPU, NULL);
    assert_int_equal(aug_rng_gaussian_noise(rng, im, 0.0, 1.0, NULL, &b), AUG_ERR_TYPE);
    assert_string_equal(aug_last_error(), "aug_rng_gaussian_noise: gaussian_noise is not supported on cpu for dtype uint8");
    assert_null(b);
    aug_rng_free(rng);
    aug__backend_override(AUG_DEVICE_CPU, NULL);
    for (int f = 0; f < AUG__NUM_FAMILIES; f++) assert_int_equal(calls[f], 0);
    aug_tensor_free(a), aug_tensor_free(im);
}

/* supports() refusing float16: the same error from every family, dtype named. */
static int no_float16(const aug__need *need) { return need->dtype != AUG_FLOAT16 && need->dtype2 != AUG_FLOAT16; }

static void test_supports_refuses(void **state) {
    (void)state;
    aug__backend be = recording();
    be.supports = no_float16;
    memset(calls, 0, sizeof calls);
    aug__backend_override(AUG_DEVICE_CPU, &be);
    assert_int_equal(run_families(AUG_FLOAT16, 0), AUG_ERR_TYPE);
    assert_true(strstr(aug_last_error(), " is not supported on cpu for dtype float16") != NULL);
    /* no float16 plan ran: only casts from the float32 parameters could have */
    for (int f = AUG__FAMILY_REDUCE; f < AUG__NUM_FAMILIES; f++) assert_int_equal(calls[f], 0);
    run_families(AUG_FLOAT32, 1); /* other dtypes still run */
    aug__backend_override(AUG_DEVICE_CPU, NULL);
}

/* ---- a fake two-device CUDA table: the device each stream / event entry gets ---- */

static char seen[1024]; /* "entry:device stream-or-event ..." */

static void log_call(const char *what, int device_id, const void *handle) {
    size_t n = strlen(seen);
    snprintf(seen + n, sizeof seen - n, "%s%s:%d:%s", n ? " " : "", what, device_id, handle ? "h" : "0");
}

static int two(void) { return 2; }
static void *fake_alloc(int device_id, size_t nbytes, void *stream) {
    (void)device_id, (void)stream;
    return malloc(nbytes ? nbytes : 1);
}
static void fake_free(int device_id, void *ptr, size_t nbytes, void *stream) {
    (void)device_id, (void)nbytes, (void)stream;
    free(ptr);
}
static aug_status fake_memcpy(void *dst, aug_device dst_dev, const void *src, aug_device src_dev, size_t n,
                              void *stream, int blocking) {
    (void)blocking;
    if (dst_dev.type == AUG_DEVICE_CUDA && src_dev.type == AUG_DEVICE_CUDA) log_call("copy", src_dev.id, stream);
    memmove(dst, src, n);
    return AUG_OK;
}
static aug_status fake_stream_new(int device_id, int priority, void **handle) {
    (void)priority;
    *handle = malloc(1);
    log_call("stream_new", device_id, *handle);
    return AUG_OK;
}
static void fake_stream_free(int device_id, void *handle) {
    log_call("stream_free", device_id, handle);
    free(handle);
}
static aug_status fake_stream_sync(int device_id, void *handle) {
    log_call("sync", device_id, handle);
    return AUG_OK;
}
static int fake_stream_query(int device_id, void *handle) {
    log_call("query", device_id, handle);
    return 1;
}
static aug_status fake_stream_wait(int device_id, void *stream, void *event) {
    (void)event;
    log_call("wait", device_id, stream);
    return AUG_OK;
}
static aug_status fake_event_new(int device_id, void **handle) {
    *handle = malloc(1);
    log_call("event_new", device_id, *handle);
    return AUG_OK;
}
static void fake_event_free(int device_id, void *handle) {
    log_call("event_free", device_id, handle);
    free(handle);
}
static aug_status fake_event_record(int device_id, void *event, void *stream) {
    (void)event;
    log_call("record", device_id, stream);
    return AUG_OK;
}
static int fake_event_query(int device_id, void *event) {
    log_call("event_query", device_id, event);
    return 1;
}
static aug_status fake_event_sync(int device_id, void *event) {
    log_call("event_sync", device_id, event);
    return AUG_OK;
}
static aug_status fake_event_elapsed(int device_id, void *start, void *end, float *ms) {
    (void)end;
    log_call("elapsed", device_id, start);
    *ms = 0;
    return AUG_OK;
}

static aug__backend two_devices(void) {
    aug__backend be = aug__cpu_backend;
    be.name = "cuda", be.type = AUG_DEVICE_CUDA, be.device_count = two;
    be.alloc = fake_alloc, be.free = fake_free, be.memcpy = fake_memcpy;
    be.stream_new = fake_stream_new, be.stream_free = fake_stream_free, be.stream_sync = fake_stream_sync;
    be.stream_query = fake_stream_query, be.stream_wait = fake_stream_wait;
    be.event_new = fake_event_new, be.event_free = fake_event_free, be.event_record = fake_event_record;
    be.event_query = fake_event_query, be.event_sync = fake_event_sync, be.event_elapsed = fake_event_elapsed;
    return be;
}

#define EXPECT_SEEN(want)                                                                                              \
    do {                                                                                                               \
        if (strcmp(seen, want) != 0) fail_msg("saw \"%s\", want \"%s\"", seen, want);                                  \
        seen[0] = '\0';                                                                                                \
    } while (0)

static void test_streams_and_events_name_their_device(void **state) {
    (void)state;
    aug__backend be = two_devices();
    aug__backend_override(AUG_DEVICE_CUDA, &be);
    const aug_device d0 = {AUG_DEVICE_CUDA, 0}, d1 = {AUG_DEVICE_CUDA, 1};
    assert_int_equal(aug_set_current_device(d0), AUG_OK);
    seen[0] = '\0';
    aug_stream *def1 = aug_default_stream(d1), *s1 = aug_stream_new(d1, 0);
    assert_non_null(def1), assert_non_null(s1);
    EXPECT_SEEN("stream_new:1:h");
    /* cuda:0 current: the default (NULL) stream of cuda:1 is still cuda:1's */
    assert_int_equal(aug_stream_synchronize(def1), AUG_OK);
    assert_int_equal(aug_stream_query(def1), 1);
    assert_int_equal(aug_stream_synchronize(s1), AUG_OK);
    EXPECT_SEEN("sync:1:0 query:1:0 sync:1:h");
    aug_event *e0 = aug_event_new(d0), *e1 = aug_event_new(d1), *f1 = aug_event_new(d1);
    assert_non_null(e0), assert_non_null(e1), assert_non_null(f1);
    EXPECT_SEEN("event_new:0:h event_new:1:h event_new:1:h");
    assert_int_equal(aug_event_record(e1, NULL), AUG_OK); /* cuda:1's current stream: its default */
    assert_int_equal(aug_event_record(f1, s1), AUG_OK);
    assert_int_equal(aug_event_record(e0, NULL), AUG_OK);
    EXPECT_SEEN("record:1:0 record:1:h record:0:0");
    assert_int_equal(aug_event_query(e1), 1);
    assert_int_equal(aug_event_synchronize(e1), AUG_OK);
    float ms = -1;
    assert_int_equal(aug_event_elapsed_ms(e1, f1, &ms), AUG_OK);
    EXPECT_SEEN("event_query:1:h event_sync:1:h elapsed:1:h");
    /* a stream of cuda:1 may wait for an event of cuda:0 (CUDA orders devices so) */
    assert_int_equal(aug_stream_wait_event(s1, e0), AUG_OK);
    assert_int_equal(aug_stream_wait_event(def1, e0), AUG_OK);
    EXPECT_SEEN("wait:1:h wait:1:0");
    /* ... but events of two devices have no elapsed time, and a stream records only its device's events */
    assert_int_equal(aug_event_elapsed_ms(e0, e1, &ms), AUG_ERR_VALUE);
    assert_int_equal(aug_event_record(e0, s1), AUG_ERR_VALUE);
    assert_string_equal(aug_last_error(), "aug_event_record: the stream is on cuda:1 but the event on cuda:0");
    aug_event *cpu_ev = aug_event_new(CPU);
    assert_int_equal(aug_stream_wait_event(s1, cpu_ev), AUG_ERR_VALUE);
    assert_string_equal(aug_last_error(), "aug_stream_wait_event: the stream is on cuda:1 but the event on cpu");
    aug_event_free(cpu_ev);
    EXPECT_SEEN("");
    aug_event_free(e0), aug_event_free(e1), aug_event_free(f1);
    EXPECT_SEEN("event_free:0:h event_free:1:h event_free:1:h");

    /* cuda:0 -> cuda:1 on cuda:0's current stream, after cuda:1's earlier work
     * and before its later work; s1 is cuda:1's current stream here */
    assert_int_equal(aug_set_current_stream(s1), AUG_OK);
    const int64_t shape[1] = {5};
    aug_scalar v = aug_scalar_float(7);
    aug_tensor *a = aug_tensor_full(1, shape, AUG_FLOAT32, CPU, &v), *a0 = aug_tensor_to(a, d0);
    assert_non_null(a0);
    seen[0] = '\0';
    aug_tensor *a1 = aug_tensor_to(a0, d1);
    assert_non_null(a1);
    EXPECT_SEEN("event_new:1:h record:1:h wait:0:0 event_free:1:h copy:0:0 "
                "event_new:0:h record:0:0 wait:1:h event_free:0:h");
    float back[5];
    assert_int_equal(aug_tensor_read(a1, back, sizeof back, 1), AUG_OK);
    for (int i = 0; i < 5; i++) assert_true(back[i] == 7.0f);
    aug_tensor_free(a), aug_tensor_free(a0), aug_tensor_free(a1);
    aug_stream_free(s1);
    seen[0] = '\0';
    aug__backend_override(AUG_DEVICE_CUDA, NULL);
    assert_int_equal(aug_set_current_device(CPU), AUG_OK);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_plan_goes_through_the_table),
        cmocka_unit_test(test_missing_entries),
        cmocka_unit_test(test_supports_refuses),
        cmocka_unit_test(test_streams_and_events_name_their_device),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
