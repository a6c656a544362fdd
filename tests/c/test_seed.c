/* test_seed.c: the per-sample streams of aug/random.h (aug_stream_seed,
 * aug_sample_id) against values computed by an independent Python
 * implementation of splitmix64 / FNV-1a (tests/python/test_seed_primitives.py
 * has the same reference), and the per-image-state samplers
 * aug_random_resized_crop_states / aug_color_jitter_sample_states against the
 * generator ones run on a generator set to each state with n = 1. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "aug/aug.h"

static void test_stream_seed_known(void **state) {
    (void)state;
    assert_true(aug_stream_seed(0, 0, "") == 0x7dc2c42b173ebf65ull);
    assert_true(aug_stream_seed(0, 0, NULL) == 0x7dc2c42b173ebf65ull); /* NULL is "" */
    assert_true(aug_stream_seed(0, 0, "ImageNetTrain") == 0x73cfcb930db507e7ull);
    assert_true(aug_stream_seed(1234, 5, "ColorJitter") == 0xcb79add8d5e619caull);
    assert_true(aug_stream_seed(UINT64_MAX, UINT64_MAX, "augment") == 0xf1f3704b123c5d2bull);
    assert_true(aug_stream_seed(42, 3, "h\xc3\xa9llo") == 0xa304b93763bb92fdull); /* "héllo" in UTF-8 */
    /* every input matters */
    assert_true(aug_stream_seed(1, 0, "x") != aug_stream_seed(0, 1, "x"));
    assert_true(aug_stream_seed(7, 1, "x") != aug_stream_seed(7, 1, "y"));
}

static void test_sample_id_known(void **state) {
    (void)state;
    assert_true(aug_sample_id("", 0) == 0xc3817c016ba4ff30ull);
    assert_true(aug_sample_id(NULL, 0) == 0xc3817c016ba4ff30ull);
    assert_true(aug_sample_id(NULL, 5) == 0xc3817c016ba4ff30ull); /* NULL: the empty key */
    assert_true(aug_sample_id("a", 1) == 0x5f29c2aadd9b8527ull);
    static const char key[] = "train/n01440764/img_0001.JPEG";
    assert_true(aug_sample_id(key, strlen(key)) == 0x1897b4aac84fe40dull);
    assert_true(aug_sample_id("h\xc3\xa9llo", 6) == 0x4019771ffd0488f9ull);
    static const unsigned char bin[3] = {0, 255, 0}; /* NUL bytes count */
    assert_true(aug_sample_id(bin, 3) == 0x352f87b54d6f13adull);
    assert_true(aug_sample_id(bin, 1) != aug_sample_id("", 0));
}

static const aug_rng_state STATES[] = {
    {0, 0}, {1, 1}, {0x0123456789abcdefull, 17}, {UINT64_MAX, UINT64_MAX}, {99, 1ull << 40}, {5, 3}, {0xfeedull, 0}};
enum { NS = sizeof STATES / sizeof STATES[0] };

/* Field by field (the structs have padding). */
static void assert_rrc_equal(const aug_rrc *a, const aug_rrc *b) {
    assert_memory_equal(a->crop, b->crop, sizeof a->crop);
    assert_int_equal(a->hflip, b->hflip);
    assert_memory_equal(a->matrix, b->matrix, sizeof a->matrix);
    assert_int_equal(a->supersampling, b->supersampling);
    assert_int_equal(a->plan.scale_m, b->plan.scale_m);
    assert_memory_equal(a->plan.roi, b->plan.roi, sizeof a->plan.roi);
    assert_memory_equal(a->plan.matrix, b->plan.matrix, sizeof a->plan.matrix);
    assert_int_equal(a->plan.supersampling, b->plan.supersampling);
}

static void test_rrc_states(void **state) {
    (void)state;
    int64_t hs[NS], ws[NS];
    for (int k = 0; k < NS; k++) hs[k] = 40 + 37 * k, ws[k] = 300 - 29 * k;
    aug_rrc_params p = aug_rrc_params_default();
    p.hflip = 0.5;
    p.scale_min = 0.02; /* some tries fail on the narrow images: the fallback too */
    p.ratio_min = 0.2, p.ratio_max = 5.0;
    aug_rrc got[NS];
    assert_int_equal(aug_random_resized_crop_states(STATES, NS, hs, ws, 24, 32, &p, got), AUG_OK);
    aug_rng *rng = aug_rng_new(aug_cpu_device(), NULL);
    assert_non_null(rng);
    int flips = 0;
    for (int k = 0; k < NS; k++) {
        aug_rrc want;
        assert_int_equal(aug_rng_set_state(rng, &STATES[k]), AUG_OK);
        assert_int_equal(aug_random_resized_crop(rng, 1, &hs[k], &ws[k], 24, 32, &p, &want), AUG_OK);
        assert_rrc_equal(&got[k], &want);
        flips += got[k].hflip;
        aug_rng_state after;
        assert_int_equal(aug_rng_get_state(rng, &after), AUG_OK);
        assert_true(after.calls == STATES[k].calls + 1); /* the generator variant counts its call */
    }
    assert_true(flips > 0 && flips < NS);
    /* image k depends only on states[k]: drawn alone it is the same */
    aug_rrc one;
    assert_int_equal(aug_random_resized_crop_states(&STATES[3], 1, &hs[3], &ws[3], 24, 32, &p, &one), AUG_OK);
    assert_rrc_equal(&one, &got[3]);
    /* n = 0 needs no arrays */
    assert_int_equal(aug_random_resized_crop_states(NULL, 0, NULL, NULL, 24, 32, &p, NULL), AUG_OK);
    /* errors, out untouched */
    aug_rrc keep = got[0];
    assert_int_equal(aug_random_resized_crop_states(NULL, 1, hs, ws, 24, 32, &p, got), AUG_ERR_VALUE);
    assert_non_null(strstr(aug_last_error(), "aug_random_resized_crop_states"));
    assert_int_equal(aug_random_resized_crop_states(STATES, -1, hs, ws, 24, 32, &p, got), AUG_ERR_VALUE);
    assert_int_equal(aug_random_resized_crop_states(STATES, 1, hs, ws, 0, 32, &p, got), AUG_ERR_VALUE);
    assert_int_equal(aug_random_resized_crop_states(STATES, 1, hs, ws, 24, 32, NULL, got), AUG_ERR_VALUE);
    int64_t bad = 0;
    assert_int_equal(aug_random_resized_crop_states(STATES, 1, &bad, ws, 24, 32, &p, got), AUG_ERR_VALUE);
    aug_rrc_params q = p;
    q.hflip = NAN;
    assert_int_equal(aug_random_resized_crop_states(STATES, 1, hs, ws, 24, 32, &q, got), AUG_ERR_VALUE);
    assert_rrc_equal(&keep, &got[0]);
    aug_rng_free(rng);
}

static void test_color_jitter_states(void **state) {
    (void)state;
    const double br[2] = {0.6, 1.4}, co[2] = {0.0, 2.0}, sa[2] = {0.5, 1.5}, hu[2] = {-0.2, 0.3};
    double b[NS], c[NS], s[NS], h[NS];
    int32_t order[4 * NS];
    assert_int_equal(aug_color_jitter_sample_states(STATES, NS, br, co, sa, hu, 1, b, c, s, h, order), AUG_OK);
    aug_rng *rng = aug_rng_new(aug_cpu_device(), NULL);
    assert_non_null(rng);
    int shuffled = 0;
    for (int k = 0; k < NS; k++) {
        double wb, wc, ws, wh;
        int32_t wo[4];
        assert_int_equal(aug_rng_set_state(rng, &STATES[k]), AUG_OK);
        assert_int_equal(aug_color_jitter_sample(rng, 1, br, co, sa, hu, 1, &wb, &wc, &ws, &wh, wo), AUG_OK);
        assert_true(b[k] == wb && c[k] == wc && s[k] == ws && h[k] == wh);
        assert_memory_equal(&order[4 * k], wo, sizeof wo);
        shuffled += wo[0] != 0 || wo[1] != 1 || wo[2] != 2 || wo[3] != 3;
        /* and the uniforms are those of a float64 fill of 7 values at that state */
        int64_t shape[1] = {7};
        aug_tensor *t = aug_tensor_empty(1, shape, AUG_FLOAT64, aug_cpu_device());
        assert_non_null(t);
        assert_int_equal(aug_rng_set_state(rng, &STATES[k]), AUG_OK);
        assert_int_equal(aug_rng_uniform(rng, t, 0.0, 1.0), AUG_OK);
        const double *u = aug_tensor_ptr(t);
        assert_true(b[k] == br[0] + u[0] * (br[1] - br[0]));
        assert_true(h[k] == hu[0] + u[3] * (hu[1] - hu[0]));
        aug_tensor_free(t);
    }
    assert_true(shuffled > 0);
    /* random_order 0, NULL ranges skip their outputs */
    double b2[NS];
    int32_t o2[4 * NS];
    assert_int_equal(aug_color_jitter_sample_states(STATES, NS, br, NULL, NULL, NULL, 0, b2, NULL, NULL, NULL, o2),
                     AUG_OK);
    assert_memory_equal(b2, b, sizeof b2);
    for (int k = 0; k < NS; k++)
        for (int j = 0; j < 4; j++) assert_int_equal(o2[4 * k + j], j);
    assert_int_equal(aug_color_jitter_sample_states(NULL, 0, br, NULL, NULL, NULL, 1, b2, NULL, NULL, NULL, o2),
                     AUG_OK);
    /* errors, outputs untouched */
    double keep = b2[0];
    assert_int_equal(aug_color_jitter_sample_states(NULL, 1, br, NULL, NULL, NULL, 1, b2, NULL, NULL, NULL, o2),
                     AUG_ERR_VALUE);
    assert_non_null(strstr(aug_last_error(), "aug_color_jitter_sample_states"));
    assert_int_equal(aug_color_jitter_sample_states(STATES, -1, br, NULL, NULL, NULL, 1, b2, NULL, NULL, NULL, o2),
                     AUG_ERR_VALUE);
    assert_int_equal(aug_color_jitter_sample_states(STATES, 1, br, NULL, NULL, NULL, 1, NULL, NULL, NULL, NULL, o2),
                     AUG_ERR_VALUE);
    assert_int_equal(aug_color_jitter_sample_states(STATES, 1, br, NULL, NULL, NULL, 1, b2, NULL, NULL, NULL, NULL),
                     AUG_ERR_VALUE);
    const double bad_hue[2] = {-0.6, 0.0};
    assert_int_equal(aug_color_jitter_sample_states(STATES, 1, NULL, NULL, NULL, bad_hue, 1, NULL, NULL, NULL, h, o2),
                     AUG_ERR_VALUE);
    assert_true(b2[0] == keep);
    aug_rng_free(rng);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_stream_seed_known),
        cmocka_unit_test(test_sample_id_known),
        cmocka_unit_test(test_rrc_states),
        cmocka_unit_test(test_color_jitter_states),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
