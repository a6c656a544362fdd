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
 * boundary: a block whose box exceeds it stages the box's middle rows and reads
 * the other taps from global memory, beside blocks at the edges whose clamped
 * boxes fit). Run shuffled
 * (AUG_EMU_ORDER=shuffle), a block that sampled before its box was loaded (a
 * dropped barrier) reads the emulator's 0xFF fill and fails. The same cases with
 * nearest and bicubic interpolation (warp/staged_nearest, warp/staged_cubic) run
 * their staged kernels (src/cuda/warp_stage_interp.cuh).
 *
 * The per-value staged kernels alike: the fixed-point perspective warp
 * (aug__k_warp_persp_u8_tile: homographies mild and strong, a horizon crossing
 * the output, whose tiles where w changes sign stage nothing, and boxes over the
 * budget near it) and the float32 affine warp (aug__k_warp_f32_tile: float32 ->
 * float32, HWC of 1-4 channels and CHW, shrinks of 2-5x around its 24 KiB
 * budget), with the same views (reversed columns: the value path), borders,
 * samples and layouts; the perspective warp's nearest and bicubic kernels of
 * uint8 sources (warp/staged_persp_nearest, warp/staged_persp_cubic) on the
 * fixed-point one's homographies, with float32 / int16 outputs too. The float32
 * kernel's other sources and outputs (warp/staged_f32_dtypes: the *_f32_tile_e2 and
 * _e1 kernels of 2- and 1-byte sources, and float32 into other dtypes). */
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
    const int64_t H = t->shape[0], W = t->shape[1], C = t->shape[2], item = aug_tensor_itemsize(t);
    const aug_dtype dt = t->dtype;
    if (view == 1) {
        const int64_t shape[3] = {H, W, C}, str[3] = {-t->strides[0], t->strides[1], t->strides[2]};
        return aug_tensor_from_storage(t->storage, t->byte_offset + (H - 1) * t->strides[0] * item, 3, shape, str, dt);
    }
    if (view == 2) {
        const int64_t shape[3] = {H - 1, W - 1, C}, str[3] = {t->strides[0], t->strides[1], t->strides[2]};
        return aug_tensor_from_storage(t->storage, t->byte_offset + (t->strides[0] + t->strides[1]) * item, 3, shape,
                                       str, dt);
    }
    if (view == 3) {
        const int64_t shape[3] = {H, W, C}, str[3] = {t->strides[0], -t->strides[1], t->strides[2]};
        return aug_tensor_from_storage(t->storage, t->byte_offset + (W - 1) * t->strides[1] * item, 3, shape, str, dt);
    }
    return aug_tensor_view(t);
}

/* n = 2 images (H, W, C) of dtype dt (the second 3 rows and 5 columns smaller)
 * warped on both backends with interpolation interp into (2, C, Ht, Wt) of
 * dtype odt (hwc: (2, Ht, Wt, C)) by rotations of `angle` degrees (the second
 * 7 more, mirrored when `mirror`) about the centres shifted by (dx, dy), source
 * pixels per output pixel 1 / zoom, s samples; persp: by the perspective warp,
 * the rotation's matrix times one whose w = g (X - Wt/2) + h (Y - Ht/2) + 1
 * (persp[0], persp[1]; the second image's g and h negated). */
static void check_staged_all(ph_run *r, aug_dtype dt, aug_dtype odt, aug_interp interp, int64_t H, int64_t W,
                             int64_t C, int64_t Ht, int64_t Wt, double angle, double zoom, double dx, double dy,
                             int mirror, int border, int s, int hwc, int view, uint64_t seed, const double *persp) {
    char what[280];
    snprintf(what, sizeof what,
             "staged warp %s -> %s %lldx%lldx%lld -> %lldx%lld, interp %d, angle %g, zoom %g, shift %g %g, mirror %d, "
             "border %d, s %d, %s, view %d, perspective %g %g",
             aug_dtype_name(dt), aug_dtype_name(odt), (long long)H, (long long)W, (long long)C, (long long)Ht,
             (long long)Wt, (int)interp, angle, zoom, dx, dy, mirror, border, s, hwc ? "NHWC" : "NCHW", view,
             persp ? persp[0] : 0.0, persp ? persp[1] : 0.0);
    aug_tensor *hs[2], *gs[2], *hv[2], *gv[2];
    float m[12], m9[18];
    int ss[2] = {s, s + 1 > 3 ? 1 : s + 1};
    for (int i = 0; i < 2; i++) {
        const int64_t shape[3] = {H - 3 * i, W - 5 * i, C}, planar[3] = {C, H - 3 * i, W - 5 * i};
        hs[i] = aug_tensor_empty(3, view == 4 ? planar : shape, dt, CPU);
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
        if (persp) { /* row (a, b, e) times [[1, 0, 0], [0, 1, 0], (g, h, w0)]: (a + e g, b + e h, e w0) */
            const double g = i ? -persp[0] : persp[0], h = i ? -persp[1] : persp[1], w0 = 1.0 - g * tx - h * ty;
            for (int k = 0; k < 2; k++) {
                const double *q = row + 3 * k;
                m9[9 * i + 3 * k] = (float)(q[0] + q[2] * g);
                m9[9 * i + 3 * k + 1] = (float)(q[1] + q[2] * h);
                m9[9 * i + 3 * k + 2] = (float)(q[2] * w0);
            }
            m9[9 * i + 6] = (float)g, m9[9 * i + 7] = (float)h, m9[9 * i + 8] = (float)w0;
        }
    }
    /* bytes (the fixed-point kernel's), and for nearest / bicubic also values saturate_cast rounds and clamps */
    const double bgv[4] = {7, 200, 31, 255}, bgx[4] = {7.5, 300.0, -3.0, 254.5};
    aug_tensor *hb = aug_tensor_empty(1, &C, AUG_FLOAT64, CPU);
    assert_non_null(hb);
    memcpy(aug_tensor_ptr(hb), interp != AUG_WARP_LINEAR && seed % 2 ? bgx : bgv, (size_t)C * sizeof(double));
    const int64_t dshape[4] = {2, C, Ht, Wt}, hshape[4] = {2, Ht, Wt, C};
    aug_tensor *hd = aug_tensor_empty(4, hwc ? hshape : dshape, odt, CPU);
    aug_tensor *gd = aug_tensor_empty(4, hwc ? hshape : dshape, odt, ph_dev(r));
    aug_warp_options o = aug_warp_options_default();
    o.border = (aug_warp_border)border;
    o.interpolation = interp;
    o.dst_layout = hwc ? AUG_WARP_LAYOUT_HWC : AUG_WARP_LAYOUT_CHW;
    if (persp) {
        assert_int_equal(aug_warp_perspective_batch(2, (const aug_tensor *const *)hv, hd, m9, hb, ss, &o), AUG_OK);
        assert_int_equal(aug_warp_perspective_batch(2, (const aug_tensor *const *)gv, gd, m9, hb, ss, &o), AUG_OK);
    } else {
        assert_int_equal(aug_warp_affine_batch_ex(2, (const aug_tensor *const *)hv, hd, m, hb, ss, &o), AUG_OK);
        assert_int_equal(aug_warp_affine_batch_ex(2, (const aug_tensor *const *)gv, gd, m, hb, ss, &o), AUG_OK);
    }
    ph_check(r, what, hd, gd);
    for (int i = 0; i < 2; i++)
        aug_tensor_free(hs[i]), aug_tensor_free(gs[i]), aug_tensor_free(hv[i]), aug_tensor_free(gv[i]);
    aug_tensor_free(hb), aug_tensor_free(hd), aug_tensor_free(gd);
}

/* The sweep of the staged cases: each of the n angles x every border x 1-4
 * channels, case k taking its turn of the outputs (outs), zooms, shifts,
 * mirrors, samples, layouts, views and pattern (seed + k); then outputs larger
 * than the source, tiles over every edge and beyond it, on every border (seed +
 * 40 + border). Sources dt, interpolation interp; mixed: every fifth case's
 * output float32 or int16 (else dt); pw: the perspective warp's tilts, taking
 * turns (NULL: the affine warp). */
static void staged_sweep(ph_run *r, aug_dtype dt, aug_interp interp, const double *angles, int n,
                         const int64_t (*outs)[2], int mixed, const double (*pw)[2], uint64_t seed) {
    int k = 0;
    for (int a = 0; a < n; a++)
        for (int border = 0; border < 4; border++)
            for (int64_t C = 1; C <= 4; C++, k++) {
                const int64_t *o = outs[k % 3];
                const double zoom = k % 4 == 0 ? 0.7 : k % 4 == 1 ? 1.3 : 1.0;
                const aug_dtype odt = mixed && k % 5 == 3 ? (k % 2 ? AUG_FLOAT32 : AUG_INT16) : dt;
                check_staged_all(r, dt, odt, interp, 45 + k % 5, 77 - k % 7, C, o[0], o[1], angles[a], zoom,
                                 (k % 2 ? 9.5 : -4.25), (k % 3 ? -6.0 : 3.5), k % 5 == 2, border, 1 + k % 3,
                                 k % 4 == 3, k % 5, seed + (uint64_t)k, pw ? pw[(a + k) % 4] : NULL);
            }
    for (int border = 0; border < 4; border++)
        check_staged_all(r, dt, dt, interp, 21, 26, 3, 40, 70, 30.0, 1.0, 0.0, 0.0, 0, border, 1, 0, border % 3,
                         seed + 40 + (uint64_t)border, pw ? pw[border] : NULL);
    /* NHWC outputs of 2 and 3 channels (the sweep's NHWC cases have 4): the staged uint8 kernels'
     * tile rows (stage_put_rows), partial tiles, rows of 2-3 x Wt bytes at any offset */
    for (int64_t C = 2; C <= 3; C++)
        for (int a = 1; a < 3 && a < n; a++)
            check_staged_all(r, dt, dt, interp, 45, 77, C, C == 2 ? 29 : 13, C == 2 ? 70 : 37, angles[a],
                             a == 1 ? 1.0 : 0.6, 2.5, -1.0, 0, (int)(C + a) % 4, a, 1, a - 1,
                             seed + 50 + (uint64_t)(2 * C + a), pw ? pw[a] : NULL);
}

static const double ANGLES[5] = {0.0, 30.0, 45.0, 90.0, 180.0};
static const int64_t OUTS[3][2] = {{13, 37}, {29, 70}, {8, 32}};

/* Rotations, mirrors, partial tiles and edges on 1-4 channels, every border. */
static void run_staged(ph_run *r, const ph_case *c) {
    (void)c;
    staged_sweep(r, AUG_UINT8, AUG_WARP_LINEAR, ANGLES, 5, OUTS, 0, NULL, 0);
}

/* Shrinks of 3-5x on 4 channels: boxes of about 10 KiB (3x, unrotated) to 24 KiB
 * (5x), over the 16 KiB budget from 4x unrotated and 3x at 20 degrees (their
 * middle rows staged), the blocks of one launch mixing shared and global reads. */
static void run_staged_fallback(ph_run *r, const ph_case *c) {
    (void)c;
    static const double inv[6] = {3.0, 3.5, 3.8, 4.0, 4.5, 5.0};
    for (int i = 0; i < 6; i++)
        for (int s = 1; s <= 2; s++)
            check_staged_all(r, AUG_UINT8, AUG_UINT8, AUG_WARP_LINEAR, 200, 260, 4, 41, 67, i % 2 ? 0.0 : 20.0,
                             1.0 / inv[i], 3.0, -2.0, 0, i % 4, s, i % 2, s == 2 && i > 2 ? 4 : 0, 60 + (uint64_t)i,
                             NULL);
}

/* The nearest and bicubic staged kernels of uint8 sources (warp_stage_interp.cuh):
 * run_staged's rotations, mirrors, partial tiles, edges, borders, views and
 * layouts, uint8 outputs and (every fifth) float32 / int16 ones, backgrounds
 * that are bytes or that saturate_cast rounds and clamps; then outputs larger
 * than the source, and shrinks of 3-5x on 4 channels around the 16 KiB box
 * (bicubic's box is 3 taps wider than bilinear's, its budget 24 KiB); then turned
 * shrinks of 1.5-3x (90-105 degrees). The tiles are 32 x 32 while their box's
 * bound fits the budget (the sweep; nearest here 1.5x on 4 channels, 2.5x planar;
 * NCHW outputs for bicubic) and 32 x 8 beyond it (nearest 2x on 4 channels, 3x
 * planar, the 3-5x shrinks). */
static void staged_interp(ph_run *r, aug_interp interp) {
    staged_sweep(r, AUG_UINT8, interp, ANGLES, 5, OUTS, 1, NULL, 0);
    static const double inv[6] = {3.0, 3.5, 3.8, 4.0, 4.5, 5.0};
    for (int i = 0; i < 6; i++)
        check_staged_all(r, AUG_UINT8, AUG_UINT8, interp, 200, 260, 4, 41, 67, i % 2 ? 0.0 : 20.0, 1.0 / inv[i], 3.0,
                         -2.0, 0, i % 4, 1 + i % 2, i % 2, i > 2 ? 4 : 0, 60 + (uint64_t)i, NULL);
    for (int i = 0; i < 4; i++)
        check_staged_all(r, AUG_UINT8, AUG_UINT8, interp, 200, 260, 4, 45, 67, 90.0 + 5.0 * i, 1.0 / (1.5 + 0.5 * i),
                         3.0, -2.0, i == 1, i, 1, i % 2, i >= 2 ? 4 : 0, 70 + (uint64_t)i, NULL);
}
static void run_staged_nearest(ph_run *r, const ph_case *c) {
    (void)c;
    staged_interp(r, AUG_WARP_NEAREST);
}
static void run_staged_cubic(ph_run *r, const ph_case *c) {
    (void)c;
    staged_interp(r, AUG_WARP_CUBIC);
}

/* The perspective warp in fixed point: the homographies' w = g (X - Wt/2) +
 * h (Y - Ht/2) + 1 over an output of about 70 x 40: mild (w in 0.9-1.1), strong
 * (0.5-1.5), a horizon through the output (w <= 0 above it: those samples the
 * background, the tiles across it staging nothing, the ones next to it boxes
 * over the budget), on the rotations, zooms, borders, samples, channels, views
 * and layouts of run_staged; dt: uint8 (fixed point, 16 KiB boxes) or float32
 * (float32 -> float32, 24 KiB). */
static void staged_persp_interp(ph_run *r, aug_dtype dt, aug_interp interp, int mixed, uint64_t seed) {
    static const double angles[4] = {0.0, 30.0, 90.0, 160.0};
    static const double pw[4][2] = {{0.003, -0.002}, {-0.012, 0.01}, {0.001, 0.06}, {0.03, 0.0}};
    static const int64_t outs[3][2] = {{13, 37}, {29, 70}, {41, 67}};
    staged_sweep(r, dt, interp, angles, 4, outs, mixed, pw, seed);
    /* shrinks of 3-4x about the 16 KiB budget */
    for (int i = 0; i < 4; i++)
        check_staged_all(r, dt, dt, interp, 200, 260, 4, 41, 67, i % 2 ? 0.0 : 20.0, 1.0 / (3.0 + 0.5 * i), 3.0, -2.0,
                         0, i, 1 + i % 2, i % 2, i == 3 ? 4 : 0, seed + 50 + (uint64_t)i, pw[i % 2]);
}
static void staged_persp(ph_run *r, aug_dtype dt, uint64_t seed) {
    staged_persp_interp(r, dt, AUG_WARP_LINEAR, 0, seed);
}

static void run_staged_persp(ph_run *r, const ph_case *c) {
    (void)c;
    staged_persp(r, AUG_UINT8, 100);
}

/* The perspective warp of uint8 sources with nearest and bicubic interpolation
 * (aug__k_warp_persp_nearest_u8_tile, _cubic_u8_tile): staged_persp's homographies,
 * rotations, borders, samples, channels, views and layouts, uint8 outputs and
 * (every fifth) float32 / int16 ones, backgrounds that saturate_cast rounds and
 * clamps (odd seeds), then the shrinks about the 16 KiB budget. */
static void run_staged_persp_nearest(ph_run *r, const ph_case *c) {
    (void)c;
    staged_persp_interp(r, AUG_UINT8, AUG_WARP_NEAREST, 1, 400);
}
static void run_staged_persp_cubic(ph_run *r, const ph_case *c) {
    (void)c;
    staged_persp_interp(r, AUG_UINT8, AUG_WARP_CUBIC, 1, 500);
}

/* The float32 perspective warp (aug__k_warp_persp_f32_tile). */
static void run_staged_persp_f32(ph_run *r, const ph_case *c) {
    (void)c;
    staged_persp(r, AUG_FLOAT32, 300);
}

/* The float32 affine warp (float32 -> float32): run_staged's rotations, zooms,
 * borders, samples, channels, views and layouts, then shrinks of 2-5x about the
 * 24 KiB budget (an RGB pixel 12 bytes: the unrotated 2x box about 13 KiB, 3x 20 KiB,
 * 4x 36 KiB). */
static void run_staged_f32(ph_run *r, const ph_case *c) {
    (void)c;
    staged_sweep(r, AUG_FLOAT32, AUG_WARP_LINEAR, ANGLES, 4, OUTS, 0, NULL, 200);
    static const double inv[5] = {2.0, 2.5, 3.0, 4.0, 5.0};
    for (int i = 0; i < 5; i++)
        check_staged_all(r, AUG_FLOAT32, AUG_FLOAT32, AUG_WARP_LINEAR, 200, 260, 3, 41, 67, i % 2 ? 0.0 : 15.0,
                         1.0 / inv[i], 3.0, -2.0, 0, i % 4, 1 + i % 2, i % 2, i == 4 ? 4 : 0, 250 + (uint64_t)i, NULL);
}

/* The float32 kernel's other sources (aug__warp_float_source: uint16, int16,
 * float16, bfloat16 on aug__k_warp_f32_tile_e2 and its perspective kernel;
 * int8, bool and uint8 where the fixed-point kernel does not apply on *_e1)
 * into uint8, uint16, float16 and float32 (float32 -> uint8 / uint16 / float16 on
 * aug__k_warp_f32_tile): each pair twice, taking turns of the rotations, zooms,
 * borders, samples, 1-4 channels, mirrors, layouts, views (each source every
 * view: whole, rows reversed, odd starts, columns reversed, CHW) and the
 * perspective warp's tilts (every third). */
static void run_staged_f32_dtypes(ph_run *r, const ph_case *c) {
    (void)c;
    static const aug_dtype src[8] = {AUG_UINT16, AUG_INT16, AUG_FLOAT16, AUG_BFLOAT16,
                                     AUG_INT8,   AUG_BOOL,  AUG_UINT8,   AUG_FLOAT32};
    static const aug_dtype dst[4] = {AUG_UINT8, AUG_UINT16, AUG_FLOAT16, AUG_FLOAT32};
    static const double pw[3][2] = {{0.003, -0.002}, {-0.012, 0.01}, {0.001, 0.06}};
    int k = 0;
    for (int pass = 0; pass < 2; pass++)
        for (int i = 0; i < 8; i++)
            for (int j = 0; j < 4; j++) {
                if ((src[i] == AUG_UINT8 && dst[j] == AUG_UINT8) || (src[i] == AUG_FLOAT32 && dst[j] == AUG_FLOAT32))
                    continue; /* the fixed-point kernel; warp/staged_f32 */
                const int64_t *o = OUTS[k % 3];
                const double zoom = k % 4 == 0 ? 0.7 : k % 4 == 1 ? 1.3 : k % 4 == 2 ? 0.4 : 1.0;
                check_staged_all(r, src[i], dst[j], AUG_WARP_LINEAR, 45 + k % 5, 77 - k % 7, 1 + (i + j + pass) % 4,
                                 o[0], o[1], ANGLES[k % 5], zoom, k % 2 ? 9.5 : -4.25, k % 3 ? -6.0 : 3.5, k % 5 == 2,
                                 k % 4, 1 + k % 3, k % 4 == 3, (i + j + 2 * pass) % 5, 600 + (uint64_t)k,
                                 k % 3 == 1 ? pw[k % 9 / 3] : NULL);
                k++;
            }
}

static const ph_case CASES[] = {
    {"warp/staged", AUG__FAMILY_WARP, -1, 1u << AUG_UINT8, 0, 3, NULL, PH_BOUND_EXACT, run_staged},
    {"warp/staged_fallback", AUG__FAMILY_WARP, -1, 1u << AUG_UINT8, 0, 3, NULL, PH_BOUND_EXACT, run_staged_fallback},
    {"warp/staged_nearest", AUG__FAMILY_WARP, -1, 1u << AUG_UINT8, 0, 3, NULL, PH_BOUND_EXACT, run_staged_nearest},
    {"warp/staged_cubic", AUG__FAMILY_WARP, -1, 1u << AUG_UINT8, 0, 3, NULL, PH_BOUND_EXACT, run_staged_cubic},
    {"warp/staged_persp", AUG__FAMILY_WARP, -1, 1u << AUG_UINT8, 0, 3, NULL, PH_BOUND_EXACT, run_staged_persp},
    {"warp/staged_f32", AUG__FAMILY_WARP, -1, 1u << AUG_FLOAT32, 0, 3, NULL, PH_BOUND_EXACT, run_staged_f32},
    {"warp/staged_f32_dtypes", AUG__FAMILY_WARP, -1,
     (1u << AUG_UINT16) | (1u << AUG_INT16) | (1u << AUG_FLOAT16) | (1u << AUG_BFLOAT16) | (1u << AUG_INT8) |
         (1u << AUG_BOOL) | (1u << AUG_UINT8) | (1u << AUG_FLOAT32),
     0, 3, NULL, PH_BOUND_EXACT, run_staged_f32_dtypes},
    {"warp/staged_persp_f32", AUG__FAMILY_WARP, -1, 1u << AUG_FLOAT32, 0, 3, NULL, PH_BOUND_EXACT,
     run_staged_persp_f32},
    {"warp/staged_persp_nearest", AUG__FAMILY_WARP, -1, 1u << AUG_UINT8, 0, 3, NULL, PH_BOUND_EXACT,
     run_staged_persp_nearest},
    {"warp/staged_persp_cubic", AUG__FAMILY_WARP, -1, 1u << AUG_UINT8, 0, 3, NULL, PH_BOUND_EXACT,
     run_staged_persp_cubic},
};
const ph_case_list ph_cases_warp = {CASES, sizeof CASES / sizeof CASES[0]};
