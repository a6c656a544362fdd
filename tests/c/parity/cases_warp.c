/* cases_warp.c: parity cases of the fixed-point affine warp's staged pixel path
 * (src/cuda/warp_stage.cuh, aug__k_warp_u8_tile: each block loads its output
 * tile's source box into shared memory): uint8 HWC images of 1-4 channels,
 * rotations of 0, 30, 45, 90 and 180 degrees and mirrored matrices, zooms in and
 * out, outputs of partial tiles (sides not multiples of 32 x 8), footprints over
 * the image's edges (outputs larger than the source, shifted centres), every
 * border, s = 1-3, NCHW and NHWC outputs, views with reversed rows, odd starts,
 * reversed columns (the unstaged pixel path) and planar (CHW) sources, whose
 * planes the staged kernel warps one at a time, and shrinks of
 * 3-5x on 4 channels around the 16 KiB budget of a block's box (the fallback
 * boundary: a block whose box exceeds it reads from global memory, beside
 * blocks at the edges whose clamped boxes fit). Run shuffled
 * (AUG_EMU_ORDER=shuffle), a block that sampled before its box was loaded (a
 * dropped barrier) reads the emulator's 0xFF fill and fails. The same cases with
 * nearest and bicubic interpolation (warp/staged_nearest, warp/staged_cubic) run
 * their staged kernels (src/cuda/warp_stage_interp.cuh). */
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

/* view: 0 whole, 1 rows reversed, 2 rows and columns from 1 (odd start), 3 columns reversed,
 * 4 planar: t is (C, H, W), seen as (H, W, C). */
static aug_tensor *make_view(aug_tensor *t, int view) {
    if (view == 4) {
        const int perm[3] = {1, 2, 0};
        return aug_tensor_permute(t, perm);
    }
    const int64_t H = t->shape[0], W = t->shape[1], C = t->shape[2], item = 1;
    if (view == 1) {
        const int64_t shape[3] = {H, W, C}, str[3] = {-t->strides[0], t->strides[1], t->strides[2]};
        return aug_tensor_from_storage(t->storage, t->byte_offset + (H - 1) * t->strides[0] * item, 3, shape, str,
                                       AUG_UINT8);
    }
    if (view == 2) {
        const int64_t shape[3] = {H - 1, W - 1, C}, str[3] = {t->strides[0], t->strides[1], t->strides[2]};
        return aug_tensor_from_storage(t->storage, t->byte_offset + (t->strides[0] + t->strides[1]) * item, 3, shape,
                                       str, AUG_UINT8);
    }
    if (view == 3) {
        const int64_t shape[3] = {H, W, C}, str[3] = {t->strides[0], -t->strides[1], t->strides[2]};
        return aug_tensor_from_storage(t->storage, t->byte_offset + (W - 1) * t->strides[1] * item, 3, shape, str,
                                       AUG_UINT8);
    }
    return aug_tensor_view(t);
}

/* n = 2 images (H, W, C) (the second 3 rows and 5 columns smaller) warped on
 * both backends into (2, C, Ht, Wt) (hwc: (2, Ht, Wt, C)) by rotations of
 * `angle` degrees (the second 7 more, mirrored when `mirror`) about the centres
 * shifted by (dx, dy), source pixels per output pixel 1 / zoom, s samples. */
static void check_staged_as(ph_run *r, int64_t H, int64_t W, int64_t C, int64_t Ht, int64_t Wt, double angle,
                            double zoom, double dx, double dy, int mirror, int border, int s, int hwc, int view,
                            uint64_t seed, aug_interp interp, aug_dtype dt) {
    char what[240];
    snprintf(what, sizeof what,
             "staged warp %lldx%lldx%lld -> %lldx%lld, angle %g, zoom %g, shift %g %g, mirror %d, border %d, s %d, "
             "%s, view %d, interp %d, dtype %d",
             (long long)H, (long long)W, (long long)C, (long long)Ht, (long long)Wt, angle, zoom, dx, dy, mirror,
             border, s, hwc ? "NHWC" : "NCHW", view, (int)interp, (int)dt);
    aug_tensor *hs[2], *gs[2], *hv[2], *gv[2];
    float m[12];
    int ss[2] = {s, s + 1 > 3 ? 1 : s + 1};
    for (int i = 0; i < 2; i++) {
        const int64_t shape[3] = {H - 3 * i, W - 5 * i, C}, planar[3] = {C, H - 3 * i, W - 5 * i};
        hs[i] = aug_tensor_empty(3, view == 4 ? planar : shape, AUG_UINT8, CPU);
        assert_non_null(hs[i]);
        th_fill_pattern(hs[i], seed + (uint64_t)i);
        gs[i] = aug_tensor_to(hs[i], ph_dev(r));
        assert_non_null(gs[i]);
        ph_inputs(r, 1, (const aug_tensor *const *)&hs[i]);
        hv[i] = make_view(hs[i], view), gv[i] = make_view(gs[i], view);
        assert_non_null(hv[i]);
        assert_non_null(gv[i]);
        const double a = (angle + 7.0 * i) * 3.14159265358979323846 / 180.0;
        const double c = cos(a) / zoom, sn = sin(a) / zoom, f = mirror && i ? -1.0 : 1.0;
        const double cx = (double)hv[i]->shape[1] / 2 + dx, cy = (double)hv[i]->shape[0] / 2 + dy;
        const double tx = (double)Wt / 2, ty = (double)Ht / 2;
        const double row[6] = {f * c, -sn, cx - f * c * tx + sn * ty, f * sn, c, cy - f * sn * tx - c * ty};
        for (int k = 0; k < 6; k++) m[6 * i + k] = (float)row[k];
    }
    /* bytes (the fixed-point kernel's), and for nearest / bicubic also values saturate_cast rounds and clamps */
    const double bgv[4] = {7, 200, 31, 255}, bgx[4] = {7.5, 300.0, -3.0, 254.5};
    aug_tensor *hb = aug_tensor_empty(1, &C, AUG_FLOAT64, CPU);
    assert_non_null(hb);
    memcpy(aug_tensor_ptr(hb), interp != AUG_WARP_LINEAR && seed % 2 ? bgx : bgv, (size_t)C * sizeof(double));
    const int64_t dshape[4] = {2, C, Ht, Wt}, hshape[4] = {2, Ht, Wt, C};
    aug_tensor *hd = aug_tensor_empty(4, hwc ? hshape : dshape, dt, CPU);
    aug_tensor *gd = aug_tensor_empty(4, hwc ? hshape : dshape, dt, ph_dev(r));
    aug_warp_options o = aug_warp_options_default();
    o.border = (aug_warp_border)border;
    o.interpolation = interp;
    o.dst_layout = hwc ? AUG_WARP_LAYOUT_HWC : AUG_WARP_LAYOUT_CHW;
    assert_int_equal(aug_warp_affine_batch_ex(2, (const aug_tensor *const *)hv, hd, m, hb, ss, &o), AUG_OK);
    assert_int_equal(aug_warp_affine_batch_ex(2, (const aug_tensor *const *)gv, gd, m, hb, ss, &o), AUG_OK);
    ph_check(r, what, hd, gd);
    for (int i = 0; i < 2; i++)
        aug_tensor_free(hs[i]), aug_tensor_free(gs[i]), aug_tensor_free(hv[i]), aug_tensor_free(gv[i]);
    aug_tensor_free(hb), aug_tensor_free(hd), aug_tensor_free(gd);
}

static void check_staged(ph_run *r, int64_t H, int64_t W, int64_t C, int64_t Ht, int64_t Wt, double angle, double zoom,
                         double dx, double dy, int mirror, int border, int s, int hwc, int view, uint64_t seed) {
    check_staged_as(r, H, W, C, Ht, Wt, angle, zoom, dx, dy, mirror, border, s, hwc, view, seed, AUG_WARP_LINEAR,
                    AUG_UINT8);
}

/* Rotations, mirrors, partial tiles and edges on 1-4 channels, every border. */
static void run_staged(ph_run *r, const ph_case *c) {
    (void)c;
    static const double angles[5] = {0.0, 30.0, 45.0, 90.0, 180.0};
    static const int64_t outs[3][2] = {{13, 37}, {29, 70}, {8, 32}};
    int k = 0;
    for (int a = 0; a < 5; a++)
        for (int border = 0; border < 4; border++)
            for (int64_t C = 1; C <= 4; C++, k++) {
                const int64_t *o = outs[k % 3];
                const double zoom = k % 4 == 0 ? 0.7 : k % 4 == 1 ? 1.3 : 1.0;
                check_staged(r, 45 + k % 5, 77 - k % 7, C, o[0], o[1], angles[a], zoom, (k % 2 ? 9.5 : -4.25),
                             (k % 3 ? -6.0 : 3.5), k % 5 == 2, border, 1 + k % 3, k % 4 == 3, k % 5, (uint64_t)k);
            }
    /* outputs larger than the source: tiles over every edge and beyond it */
    for (int border = 0; border < 4; border++)
        check_staged(r, 21, 26, 3, 40, 70, 30.0, 1.0, 0.0, 0.0, 0, border, 1, 0, border % 3, 40 + (uint64_t)border);
}

/* Shrinks of 3-5x on 4 channels: boxes of about 10 KiB (3x, unrotated) to 24 KiB
 * (5x), over the 16 KiB budget from 4x unrotated and 3x at 20 degrees, the
 * blocks of one launch mixing shared and global reads. */
static void run_staged_fallback(ph_run *r, const ph_case *c) {
    (void)c;
    static const double inv[6] = {3.0, 3.5, 3.8, 4.0, 4.5, 5.0};
    for (int i = 0; i < 6; i++)
        for (int s = 1; s <= 2; s++)
            check_staged(r, 200, 260, 4, 41, 67, i % 2 ? 0.0 : 20.0, 1.0 / inv[i], 3.0, -2.0, 0, i % 4, s, i % 2,
                         s == 2 && i > 2 ? 4 : 0, 60 + (uint64_t)i);
}

/* The nearest and bicubic staged kernels of uint8 sources (warp_stage_interp.cuh):
 * run_staged's rotations, mirrors, partial tiles, edges, borders, views and
 * layouts, uint8 outputs and (every fifth) float32 / int16 ones, backgrounds
 * that are bytes or that saturate_cast rounds and clamps; then outputs larger
 * than the source, and shrinks of 3-5x on 4 channels around the 16 KiB box
 * (bicubic's box is 3 taps wider than bilinear's). */
static void staged_interp(ph_run *r, aug_interp interp) {
    static const double angles[5] = {0.0, 30.0, 45.0, 90.0, 180.0};
    static const int64_t outs[3][2] = {{13, 37}, {29, 70}, {8, 32}};
    int k = 0;
    for (int a = 0; a < 5; a++)
        for (int border = 0; border < 4; border++)
            for (int64_t C = 1; C <= 4; C++, k++) {
                const int64_t *o = outs[k % 3];
                const double zoom = k % 4 == 0 ? 0.7 : k % 4 == 1 ? 1.3 : 1.0;
                const aug_dtype dt = k % 5 == 3 ? (k % 2 ? AUG_FLOAT32 : AUG_INT16) : AUG_UINT8;
                check_staged_as(r, 45 + k % 5, 77 - k % 7, C, o[0], o[1], angles[a], zoom, (k % 2 ? 9.5 : -4.25),
                                (k % 3 ? -6.0 : 3.5), k % 5 == 2, border, 1 + k % 3, k % 4 == 3, k % 5, (uint64_t)k,
                                interp, dt);
            }
    for (int border = 0; border < 4; border++)
        check_staged_as(r, 21, 26, 3, 40, 70, 30.0, 1.0, 0.0, 0.0, 0, border, 1, 0, border % 3, 40 + (uint64_t)border,
                        interp, AUG_UINT8);
    static const double inv[6] = {3.0, 3.5, 3.8, 4.0, 4.5, 5.0};
    for (int i = 0; i < 6; i++)
        check_staged_as(r, 200, 260, 4, 41, 67, i % 2 ? 0.0 : 20.0, 1.0 / inv[i], 3.0, -2.0, 0, i % 4, 1 + i % 2,
                        i % 2, i > 2 ? 4 : 0, 60 + (uint64_t)i, interp, AUG_UINT8);
}
static void run_staged_nearest(ph_run *r, const ph_case *c) {
    (void)c;
    staged_interp(r, AUG_WARP_NEAREST);
}
static void run_staged_cubic(ph_run *r, const ph_case *c) {
    (void)c;
    staged_interp(r, AUG_WARP_CUBIC);
}

static const ph_case CASES[] = {
    {"warp/staged", AUG__FAMILY_WARP, -1, 1u << AUG_UINT8, 0, 3, NULL, PH_BOUND_EXACT, run_staged},
    {"warp/staged_fallback", AUG__FAMILY_WARP, -1, 1u << AUG_UINT8, 0, 3, NULL, PH_BOUND_EXACT, run_staged_fallback},
    {"warp/staged_nearest", AUG__FAMILY_WARP, -1, 1u << AUG_UINT8, 0, 3, NULL, PH_BOUND_EXACT, run_staged_nearest},
    {"warp/staged_cubic", AUG__FAMILY_WARP, -1, 1u << AUG_UINT8, 0, 3, NULL, PH_BOUND_EXACT, run_staged_cubic},
};
const ph_case_list ph_cases_warp = {CASES, sizeof CASES / sizeof CASES[0]};
