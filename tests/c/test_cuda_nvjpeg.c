/* test_cuda_nvjpeg.c: the CUDA decoder's nvJPEG path (cuda/jpeg.cu) with work
 * still queued: back-to-back decodes behind a busy stream, on one stream and on
 * two, with images of one size and of growing sizes, with and without
 * gpu_huffman; the decoder freed while its decodes are queued; truncated files
 * refused whatever nvJPEG says; every file kind; batches (aug_decoder_decode_batch)
 * back to back behind a busy stream.
 *
 * nvJPEG's pixels are compared with libjpeg-turbo's fast-upsampling decode
 * (helpers/th_jpeg.h: nvJPEG replicates chroma), the files it leaves to the CPU
 * (CMYK, the libjpeg fallback's) with the CPU decoder's. On the emulated devices
 * it needs the emulator's nvJPEG stand-in (tests/cuda_emu/emu_nvjpeg.cpp,
 * AUG_EMU_NVJPEG=1), which decodes with fast upsampling, so images compare
 * exactly; on a GPU within IDCT rounding (TH_NVJPEG_MEAN, TH_NVJPEG_MAX).
 * Without nvJPEG the tests skip, unless AUG_REQUIRE_NVJPEG=1 (ctest sets it
 * where the stand-in was built). */
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
#include "helpers/th_jpeg.h"

enum { IMAGES = 4 };

static int emulated(void) {
    const char *b = getenv("AUG_CUDA_BACKEND");
    return b && strcmp(b, "emu") == 0;
}

/* Rounds of doubling busy work: an H200 drained 128 fills of 4 MiB before two
 * decodes returned (the second gpu_check run), so a real device gets longer
 * fills (busy_tensor) and more doublings; the emulation is busy at once. */
#define TRIES (emulated() ? 6 : 11)

/* A CUDA decoder that uses nvJPEG, or a skip (a failure under AUG_REQUIRE_NVJPEG=1). */
static aug_decoder *nvjpeg_decoder(int gpu_huffman) {
    if (!th_have_cuda()) skip();
    aug_decoder *d = aug_decoder_new(TH_CUDA0, 0, 0, gpu_huffman);
    assert_non_null(d);
    if (strcmp(aug_decoder_engine(d), "nvjpeg") != 0) {
        const char *req = getenv("AUG_REQUIRE_NVJPEG");
        aug_decoder_free(d);
        if (req && strcmp(req, "1") == 0) fail_msg("the CUDA decoder does not use nvJPEG");
        skip();
    }
    return d;
}

/* A w x h JPEG of pf with gradients and noise from seed. */
static unsigned char *encode_jpeg(int w, int h, int pf, int subsamp, int flags, uint32_t seed, unsigned long *size) {
    int nc = tjPixelSize[pf];
    unsigned char *img = malloc((size_t)w * (size_t)h * (size_t)nc), *buf = NULL;
    uint32_t x = seed * 2654435761u + 777;
    for (int i = 0; i < w * h * nc; i++) {
        x = x * 1103515245u + 12345u;
        img[i] = (unsigned char)((i % (w * nc)) * 255 / (w * nc) + (int)((x >> 16) % 61) + (int)(seed * 37 % 101));
    }
    tjhandle tj = tjInitCompress();
    assert_int_equal(tjCompress2(tj, img, w, 0, h, pf, &buf, size, subsamp, 85, flags), 0);
    tjDestroy(tj);
    free(img);
    return buf;
}

/* What the 'nvjpeg' engine must give for a file: libjpeg-turbo's fast-upsampling
 * decode where nvJPEG decodes it, else (CMYK, the libjpeg fallback's files) the
 * CPU decoder's pixels; malloc'd, *n bytes. */
static unsigned char *expected(const unsigned char *jpeg, unsigned long size, size_t *n) {
    int w = 0, h = 0;
    unsigned char *px = th_nvjpeg_reference(jpeg, size, &w, &h);
    if (px != NULL) {
        *n = (size_t)w * (size_t)h * 3;
        return px;
    }
    aug_decoder *dc = aug_decoder_new(CPU, 0, 0, 0);
    aug_tensor *t = NULL;
    assert_int_equal(aug_decoder_decode(dc, jpeg, size, NULL, &t), AUG_OK);
    px = th_bytes_of(t, n);
    aug_tensor_free(t), aug_decoder_free(dc);
    return px;
}

/* The CUDA decode of a file against the expected pixels (n bytes). */
static void same_pixels(const char *what, const unsigned char *want, size_t n, const aug_tensor *gpu) {
    size_t ng;
    unsigned char *got = th_bytes_of(gpu, &ng);
    assert_int_equal(n, ng);
    char why[160];
    if (!th_nvjpeg_matches(want, got, n, emulated(), why, sizeof why))
        fail_msg("%s: the CUDA decoder's pixels differ from the expected ones: %s", what, why);
    free(got);
}

/* IMAGES different files (one size, or growing sizes) and their expected pixels. */
typedef struct files {
    unsigned char *jpeg[IMAGES];
    unsigned long size[IMAGES];
    unsigned char *ref[IMAGES];
    size_t nref[IMAGES];
} files;

static void files_make(files *f, int growing) {
    for (int i = 0; i < IMAGES; i++) {
        int w = growing ? 24 + 16 * i : 64, h = growing ? 18 + 12 * i : 48;
        f->jpeg[i] = encode_jpeg(w, h, TJPF_RGB, TJSAMP_420, 0, (uint32_t)i + 1, &f->size[i]);
        f->ref[i] = expected(f->jpeg[i], f->size[i], &f->nref[i]);
    }
}

static void files_free(files *f) {
    for (int i = 0; i < IMAGES; i++) tjFree(f->jpeg[i]), free(f->ref[i]);
}

/* Makes s busy for a while: reps fills of busy_tensor (1 Mi float32 elements
 * emulated, 64 Mi on a GPU: about 65 us each on an H200), then records `after`. */
static void keep_busy(aug_stream *s, aug_tensor *x, int reps, aug_event *after) {
    aug_stream *prev = aug_current_stream(TH_CUDA0);
    assert_int_equal(aug_set_current_stream(s), AUG_OK);
    aug_scalar v = aug_scalar_float(1.0);
    for (int r = 0; r < reps; r++) assert_int_equal(aug_fill(x, &v), AUG_OK);
    assert_int_equal(aug_event_record(after, s), AUG_OK);
    assert_int_equal(aug_set_current_stream(prev), AUG_OK);
}

static aug_tensor *busy_tensor(void) {
    int64_t n = emulated() ? 1 << 20 : 1 << 26;
    aug_tensor *x = aug_tensor_empty(1, &n, AUG_FLOAT32, TH_CUDA0);
    assert_non_null(x);
    return x;
}

/* The files decoded back to back, image i on streams[i % nstreams], the first
 * stream busy in front of them, no synchronisation in between; compared with
 * the CPU's once the device is idle. A round counts only if the busy stream was
 * still busy after the second decode had returned (its host phase done while the
 * first image's transfer was still queued): otherwise it is tried again with a
 * longer wait. With one pinned buffer reused at once, image 0 gets a later
 * image's pixels (or, for growing sizes, reads freed memory). */
static void queued_round(int gpu_huffman, int nstreams, int growing) {
    aug_decoder *dg = nvjpeg_decoder(gpu_huffman);
    files f;
    files_make(&f, growing);
    aug_stream *streams[2] = {aug_stream_new(TH_CUDA0, 0), aug_stream_new(TH_CUDA0, 0)};
    aug_stream *prev = aug_current_stream(TH_CUDA0);
    aug_event *busy_done = aug_event_new(TH_CUDA0);
    aug_tensor *x = busy_tensor();
    assert_non_null(streams[0]), assert_non_null(streams[1]), assert_non_null(busy_done);
    int valid = 0;
    for (int t = 0, reps = 4; t < TRIES && !valid; t++, reps *= 2) {
        aug_tensor *out[IMAGES] = {NULL};
        keep_busy(streams[0], x, reps, busy_done);
        for (int i = 0; i < IMAGES; i++) {
            assert_int_equal(aug_set_current_stream(streams[i % nstreams]), AUG_OK);
            assert_int_equal(aug_decoder_decode(dg, f.jpeg[i], f.size[i], NULL, &out[i]), AUG_OK);
            if (i == 1) valid = aug_event_query(busy_done) == 0;
        }
        assert_int_equal(aug_set_current_stream(prev), AUG_OK);
        assert_int_equal(aug_synchronize(TH_CUDA0), AUG_OK);
        for (int i = 0; i < IMAGES && valid; i++) {
            char what[96];
            snprintf(what, sizeof what, "gpu_huffman %d, %d stream(s), %s sizes, image %d", gpu_huffman, nstreams,
                     growing ? "growing" : "equal", i);
            same_pixels(what, f.ref[i], f.nref[i], out[i]);
        }
        for (int i = 0; i < IMAGES; i++) aug_tensor_free(out[i]);
    }
    if (!valid) fail_msg("the stream never stayed busy for two decodes (%d tries)", TRIES);
    aug_tensor_free(x);
    aug_event_free(busy_done);
    aug_stream_free(streams[0]), aug_stream_free(streams[1]);
    aug_decoder_free(dg);
    files_free(&f);
}

static void test_queued_one_stream(void **state) {
    (void)state;
    queued_round(0, 1, 0);
    queued_round(1, 1, 0);
}

static void test_queued_two_streams(void **state) {
    (void)state;
    queued_round(0, 2, 0);
    queued_round(1, 2, 0);
}

static void test_queued_growing(void **state) {
    (void)state;
    queued_round(0, 1, 1);
    queued_round(1, 2, 1);
}

/* aug_decoder_free with decodes still queued: they complete with the right
 * pixels, and nothing they read is freed under them (ASan). */
static void test_free_while_queued(void **state) {
    (void)state;
    aug_decoder *probe = nvjpeg_decoder(0);
    aug_decoder_free(probe);
    files f;
    files_make(&f, 0); /* one size: no device buffer grows (cudaFree would wait for the stream) */
    aug_stream *s = aug_stream_new(TH_CUDA0, 0), *prev = aug_current_stream(TH_CUDA0);
    aug_event *busy_done = aug_event_new(TH_CUDA0);
    aug_tensor *x = busy_tensor();
    int valid = 0;
    for (int t = 0, reps = 4; t < TRIES && !valid; t++, reps *= 2) {
        aug_decoder *dg = aug_decoder_new(TH_CUDA0, 0, 0, 0);
        aug_tensor *out[2] = {NULL, NULL};
        /* its buffers first: a new decoder's first decode allocates pinned memory,
         * which synchronises the device on real hardware (the H200 run's "never
         * stayed busy"), so the busy stream would drain before the decodes */
        for (int i = 0; i < 2; i++) {
            assert_int_equal(aug_decoder_decode(dg, f.jpeg[i], f.size[i], NULL, &out[i]), AUG_OK);
            aug_tensor_free(out[i]), out[i] = NULL;
        }
        assert_int_equal(aug_synchronize(TH_CUDA0), AUG_OK);
        keep_busy(s, x, reps, busy_done);
        assert_int_equal(aug_set_current_stream(s), AUG_OK);
        for (int i = 0; i < 2; i++)
            assert_int_equal(aug_decoder_decode(dg, f.jpeg[i], f.size[i], NULL, &out[i]), AUG_OK);
        valid = aug_event_query(busy_done) == 0;
        aug_decoder_free(dg);
        assert_int_equal(aug_set_current_stream(prev), AUG_OK);
        assert_int_equal(aug_stream_synchronize(s), AUG_OK);
        for (int i = 0; i < 2 && valid; i++) same_pixels("decoded before the decoder was freed", f.ref[i], f.nref[i], out[i]);
        aug_tensor_free(out[0]), aug_tensor_free(out[1]);
    }
    if (!valid) fail_msg("the stream never stayed busy for two decodes (%d tries)", TRIES);
    aug_tensor_free(x);
    aug_event_free(busy_done);
    aug_stream_free(s);
    files_free(&f);
}

/* Every file kind, with and without gpu_huffman: nvJPEG's pixels (fast
 * upsampling), or the fallback's for those nvJPEG refuses (CMYK). For the
 * subsampled kinds the two references differ, so the comparison tells fast
 * upsampling from the CPU decoder's fancy upsampling. */
static void test_kinds(void **state) {
    (void)state;
    const int kinds[6][3] = {{TJPF_RGB, TJSAMP_420, 0}, {TJPF_RGB, TJSAMP_444, TJFLAG_PROGRESSIVE},
                             {TJPF_GRAY, TJSAMP_GRAY, 0}, {TJPF_CMYK, TJSAMP_444, 0},
                             {TJPF_RGB, TJSAMP_422, 0},   {TJPF_RGB, TJSAMP_411, 0}};
    aug_decoder *dc = aug_decoder_new(CPU, 0, 0, 0);
    for (int g = 0; g < 2; g++) {
        aug_decoder *dg = nvjpeg_decoder(g);
        for (int k = 0; k < 6; k++) {
            char what[64];
            snprintf(what, sizeof what, "kind %d, gpu_huffman %d", k, g);
            unsigned long size;
            unsigned char *j = encode_jpeg(45, 31, kinds[k][0], kinds[k][1], kinds[k][2], (uint32_t)k, &size);
            aug_tensor *a = NULL, *b = NULL;
            assert_int_equal(aug_decoder_decode(dc, j, size, NULL, &a), AUG_OK);
            assert_int_equal(aug_decoder_decode(dg, j, size, NULL, &b), AUG_OK);
            assert_int_equal(aug_synchronize(TH_CUDA0), AUG_OK);
            size_t n, nc;
            unsigned char *want = expected(j, size, &n), *cpu = th_bytes_of(a, &nc);
            assert_int_equal(n, nc);
            const int subsampled = kinds[k][1] == TJSAMP_420 || kinds[k][1] == TJSAMP_422; /* 4:1:1: libjpeg replicates too */
            if (subsampled && memcmp(want, cpu, n) == 0) fail_msg("%s: fast and fancy upsampling agree", what);
            same_pixels(what, want, n, b);
            free(want), free(cpu);
            aug_tensor_free(a), aug_tensor_free(b);
            tjFree(j);
        }
        aug_decoder_free(dg);
    }
    aug_decoder_free(dc);
}

/* A file whose header reads but whose data is cut, at many points: refused
 * with libjpeg-turbo's words before nvJPEG (which decodes such a file without
 * an error, on an H200 and on the emulator's stand-in) sees it, no tensor; the
 * decoder (and its slots) still decode correctly afterwards. A corrupt segment
 * length after the header: refused too. */
static void test_bad_jpeg(void **state) {
    (void)state;
    aug_decoder *dg = nvjpeg_decoder(0);
    files f;
    files_make(&f, 0);
    for (int round = 0; round < 3; round++) { /* the error in either slot */
        aug_tensor *t = NULL;
        const unsigned long cuts[5] = {f.size[0] / 2, f.size[0] - 1, f.size[0] - 2, f.size[0] * 7 / 8,
                                       f.size[0] / 2 + (unsigned long)round};
        for (int c = 0; c < 5; c++) {
            assert_int_equal(aug_decoder_decode(dg, f.jpeg[0], cuts[c], NULL, &t), AUG_ERR_JPEG);
            assert_null(t);
            const char *want = "aug_decoder_decode: Premature end of JPEG file (its ";
            if (strncmp(aug_last_error(), want, strlen(want)) != 0)
                fail_msg("cut to %lu of %lu bytes: %s", cuts[c], f.size[0], aug_last_error());
        }
        /* a COM segment of length 1 between the scan and EOI */
        unsigned char *bogus = malloc(f.size[0] + 4);
        memcpy(bogus, f.jpeg[0], f.size[0] - 2);
        memcpy(bogus + f.size[0] - 2, "\xff\xfe\x00\x01\xff\xd9", 6);
        assert_int_equal(aug_decoder_decode(dg, bogus, f.size[0] + 4, NULL, &t), AUG_ERR_JPEG);
        assert_null(t);
        char want[128];
        snprintf(want, sizeof want,
                 "aug_decoder_decode: Corrupt JPEG data: the segment of marker 0xfe at byte %lu has a length below 2",
                 f.size[0] - 2);
        assert_string_equal(aug_last_error(), want);
        free(bogus);
        for (int i = 0; i <= round; i++) {
            assert_int_equal(aug_decoder_decode(dg, f.jpeg[i + 1], f.size[i + 1], NULL, &t), AUG_OK);
            assert_int_equal(aug_synchronize(TH_CUDA0), AUG_OK);
            same_pixels("after an error", f.ref[i + 1], f.nref[i + 1], t);
            aug_tensor_free(t);
            t = NULL;
        }
    }
    aug_decoder_free(dg);
    files_free(&f);
}

/* aug_decoder_decode_batch: with the hardware backend (AUG_EMU_NVJPEG_HW=1 on
 * the emulation) three batches of the files in turn (rotated, so a slot's
 * buffers hold other images each time; growing sizes, so they grow) back to
 * back behind a busy stream: every image decoded in the batch, each the
 * expected pixels once the device is idle (a slot reused before its batch's
 * queued copies ran gives another image's pixels). Without it every out[i] is
 * NULL. The arguments' checks. */
static void test_batches_queued(void **state) {
    (void)state;
    aug_decoder *dg = nvjpeg_decoder(0);
    const int hw = strncmp(aug_decoder_jpeg_backend(dg), "hardware", 8) == 0;
    files f;
    files_make(&f, 1);
    aug_event *busy_done = aug_event_new(TH_CUDA0);
    aug_tensor *x = busy_tensor();
    assert_non_null(busy_done);
    enum { BATCHES = 3 };
    int valid = 0;
    for (int t = 0, reps = 4; t < TRIES && !valid; t++, reps *= 2) {
        aug_tensor *out[BATCHES][IMAGES];
        keep_busy(aug_current_stream(TH_CUDA0), x, reps, busy_done);
        for (int b = 0; b < BATCHES; b++) {
            const void *data[IMAGES];
            size_t size[IMAGES];
            for (int i = 0; i < IMAGES; i++) data[i] = f.jpeg[(i + b) % IMAGES], size[i] = f.size[(i + b) % IMAGES];
            assert_int_equal(aug_decoder_decode_batch(dg, IMAGES, data, size, out[b]), AUG_OK);
            if (b == 1) valid = aug_event_query(busy_done) == 0;
        }
        assert_int_equal(aug_synchronize(TH_CUDA0), AUG_OK);
        for (int b = 0; b < BATCHES; b++)
            for (int i = 0; i < IMAGES; i++) {
                const int k = (i + b) % IMAGES;
                if (!hw) {
                    assert_null(out[b][i]);
                    continue;
                }
                assert_non_null(out[b][i]);
                char what[64];
                snprintf(what, sizeof what, "batch %d, image %d (file %d)", b, i, k);
                if (valid) same_pixels(what, f.ref[k], f.nref[k], out[b][i]);
                aug_tensor_free(out[b][i]);
            }
        if (!hw) valid = 1;
    }
    if (!valid) fail_msg("the stream never stayed busy for two batches (%d tries)", TRIES);
    aug_tensor *o[1] = {NULL};
    const void *d1[1] = {f.jpeg[0]};
    size_t s1[1] = {f.size[0]};
    assert_int_equal(aug_decoder_decode_batch(NULL, 1, d1, s1, o), AUG_ERR_VALUE);
    assert_int_equal(aug_decoder_decode_batch(dg, -1, d1, s1, o), AUG_ERR_VALUE);
    assert_int_equal(aug_decoder_decode_batch(dg, 1, NULL, s1, o), AUG_ERR_VALUE);
    assert_int_equal(aug_decoder_decode_batch(dg, 0, NULL, NULL, NULL), AUG_OK);
    aug_tensor_free(x);
    aug_event_free(busy_done);
    aug_decoder_free(dg);
    files_free(&f);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_kinds),
        cmocka_unit_test(test_queued_one_stream),
        cmocka_unit_test(test_queued_two_streams),
        cmocka_unit_test(test_queued_growing),
        cmocka_unit_test(test_free_while_queued),
        cmocka_unit_test(test_bad_jpeg),
        cmocka_unit_test(test_batches_queued),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
