"""bench_warp.py: augpy.warp_affine against cv2.warpAffine (semantics §18: s = 1 >= 1.0x).

A 480x640x3 uint8 image is warped to 224x224 with the manual's example transform
(angle 10 degrees, make_transform's default scale). cv2 writes HWC, augpy CHW;
both are given preallocated outputs. Single-threaded figures first
(cv2.setNumThreads(1), augpy.set_num_threads(1)), then all cores. s = 2 and 3
are augpy-only timings (OpenCV has no supersampling) with the s = 1 cv2 time as
the reference. Also a uint16 image (the uint8 one times 257; cv2 16U, no target ratio:
augpy's float32 kernel) and a float32 image (cv2 on float32 too): augpy's float32
kernel (float32 interpolation, double coordinates) against cv2's float path;
and two options against cv2 with the same settings: the reflect-101 border
(uint8) and nearest on a one-channel uint8 label mask (no target ratio); and a
random resized crop with a flip (an axis-aligned matrix: cpu/warp_axis.c's
separable path) against cv2.resize of the crop + cv2.flip (no target ratio);
and warp_perspective on a 224x224x3 uint8 image (torchvision's RandomPerspective
corners at distortion_scale 0.5) against cv2.warpPerspective (INTER_LINEAR |
WARP_INVERSE_MAP, constant border; no target ratio), uint8 and uint16; and the bicubic
warp (interpolation='cubic', s = 1) against cv2.warpAffine with INTER_CUBIC (uint8, the
manual's transform; no target ratio; also its process CPU time per call: augpy's cubic is the
double kernel, 4 pixels per AVX2 step).

    PYTHONPATH=build/pkg python bench/bench_warp.py [--repeat N]
"""
import argparse
import os
import time

import cv2
import numpy as np

import benchutil  # bench/benchutil.py (the script's folder is on sys.path)

import augpy


def best_of(fn, repeat, number):
    """Best mean time per call in microseconds over `repeat` runs of `number` calls."""
    best = float("inf")
    for _ in range(repeat):
        t = time.perf_counter()
        for _ in range(number):
            fn()
        best = min(best, (time.perf_counter() - t) / number)
    return best * 1e6


def cpu_per_call(fn, repeat, number):
    """Best mean process CPU time (all threads) per call in microseconds."""
    best = float("inf")
    for _ in range(repeat):
        t = time.process_time()
        for _ in range(number):
            fn()
        best = min(best, (time.process_time() - t) / number)
    return best * 1e6


def run(threads, repeat, number):
    cv2.setNumThreads(threads)
    augpy.set_num_threads(threads)
    rng = np.random.default_rng(0)
    img = cv2.GaussianBlur(rng.integers(0, 256, (480, 640, 3), dtype=np.uint8), (5, 5), 1.5)
    bg = (124, 116, 104)
    m, s_rec = augpy.make_transform(img.shape[:2], (224, 224), angle=10)
    rows = []
    for dtype in (np.uint8, np.uint16, np.float32):
        src_np = img.astype(dtype) * 257 if dtype == np.uint16 else img.astype(dtype)
        src = augpy.array_to_tensor(src_np)
        dst = augpy.CudaTensor((3, 224, 224), dtype=augpy.to_augpy_dtype(dtype))
        cvdst = np.empty((224, 224, 3), dtype)
        bgt = augpy.array_to_tensor(np.array(bg, dtype))

        def cv():
            cv2.warpAffine(src_np, m, (224, 224), dst=cvdst, flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                           borderMode=cv2.BORDER_CONSTANT, borderValue=bg)

        t_cv = best_of(cv, repeat, number)
        for s in (1, 2, 3):
            t_aug = best_of(lambda: augpy.warp_affine(src, dst, m, bgt, s), repeat, number)
            rows.append((np.dtype(dtype).name, s, t_aug, t_cv))
    # the options (s = 1): the reflect-101 border, and nearest on a one-channel label mask
    src = augpy.array_to_tensor(img)
    dst = augpy.CudaTensor((3, 224, 224), dtype=augpy.uint8)
    cvdst = np.empty((224, 224, 3), np.uint8)
    t_cv = best_of(lambda: cv2.warpAffine(img, m, (224, 224), dst=cvdst, flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                                          borderMode=cv2.BORDER_REFLECT_101), repeat, number)
    t_aug = best_of(lambda: augpy.warp_affine(src, dst, m, None, 1, border="reflect"), repeat, number)
    rows.append(("uint8 reflect", 1, t_aug, t_cv))
    mask = rng.integers(0, 21, (480, 640)).astype(np.uint8)
    msrc, mdst, mcv = augpy.array_to_tensor(mask), augpy.CudaTensor((224, 224), dtype=augpy.uint8), np.empty((224, 224), np.uint8)
    t_cv = best_of(lambda: cv2.warpAffine(mask, m, (224, 224), dst=mcv, flags=cv2.INTER_NEAREST | cv2.WARP_INVERSE_MAP,
                                          borderValue=255), repeat, number)
    t_aug = best_of(lambda: augpy.warp_affine(msrc, mdst, m, 255, 1, interpolation="nearest"), repeat, number)
    rows.append(("mask nearest", 1, t_aug, t_cv))
    # a random-resized-crop warp: axis-aligned with a flip (cpu/warp_axis.c), against
    # cv2.resize of the crop (INTER_LINEAR) and cv2.flip into preallocated outputs
    y0, x0, h, w = 60, 100, 300, 380
    crop = np.array([[-w / 224, 0, x0 + w], [0, h / 224, y0]], np.float32)
    rs, fl = np.empty((224, 224, 3), np.uint8), np.empty((224, 224, 3), np.uint8)
    t_cv = best_of(lambda: cv2.flip(cv2.resize(img[y0:y0 + h, x0:x0 + w], (224, 224), dst=rs,
                                               interpolation=cv2.INTER_LINEAR), 1, dst=fl), repeat, number)
    t_aug = best_of(lambda: augpy.warp_affine(src, dst, crop, None, 1), repeat, number)
    rows.append(("uint8 crop+flip", 1, t_aug, t_cv))
    # the perspective warp, 224x224x3 -> 224x224 (augpy CHW output, cv2 HWC)
    small = np.ascontiguousarray(img[100:324, 200:424])
    hm = augpy.perspective_matrix([[0, 0], [223, 0], [223, 223], [0, 223]],
                                  [[20, 31], [200, 4], [223, 190], [9, 215]]).astype(np.float32)
    psrc, pdst, pcv = augpy.array_to_tensor(small), augpy.CudaTensor((3, 224, 224), dtype=augpy.uint8), \
        np.empty((224, 224, 3), np.uint8)
    t_cv = best_of(lambda: cv2.warpPerspective(small, hm, (224, 224), dst=pcv,
                                               flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                                               borderMode=cv2.BORDER_CONSTANT, borderValue=bg), repeat, number)
    t_aug = best_of(lambda: augpy.warp_perspective(psrc, pdst, hm, bg, 1), repeat, number)
    rows.append(("uint8 persp", 1, t_aug, t_cv))
    small16 = small.astype(np.uint16) * 257
    psrc, pdst, pcv = augpy.array_to_tensor(small16), augpy.CudaTensor((3, 224, 224), dtype=augpy.uint16), \
        np.empty((224, 224, 3), np.uint16)
    t_cv = best_of(lambda: cv2.warpPerspective(small16, hm, (224, 224), dst=pcv,
                                               flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                                               borderMode=cv2.BORDER_CONSTANT, borderValue=bg), repeat, number)
    t_aug = best_of(lambda: augpy.warp_perspective(psrc, pdst, hm, bg, 1), repeat, number)
    rows.append(("uint16 persp", 1, t_aug, t_cv))
    # bicubic, uint8, the manual's transform (s = 1) against INTER_CUBIC
    t_cv = best_of(lambda: cv2.warpAffine(img, m, (224, 224), dst=cvdst, flags=cv2.INTER_CUBIC | cv2.WARP_INVERSE_MAP,
                                          borderMode=cv2.BORDER_CONSTANT, borderValue=bg), repeat, number)
    bgt = augpy.array_to_tensor(np.array(bg, np.uint8))
    t_aug = best_of(lambda: augpy.warp_affine(src, dst, m, bgt, 1, interpolation="cubic"), repeat, number)
    rows.append(("uint8 cubic", 1, t_aug, t_cv))
    cpu_cv = cpu_per_call(lambda: cv2.warpAffine(img, m, (224, 224), dst=cvdst,
                                                 flags=cv2.INTER_CUBIC | cv2.WARP_INVERSE_MAP,
                                                 borderMode=cv2.BORDER_CONSTANT, borderValue=bg), repeat, number)
    cpu_aug = cpu_per_call(lambda: augpy.warp_affine(src, dst, m, bgt, 1, interpolation="cubic"), repeat, number)
    label = "1 thread" if threads == 1 else f"{threads} threads"
    simd = os.environ.get("AUG_SIMD", "auto")
    print(f"--- {label} (480x640x3 -> 224x224, recommended supersampling {s_rec}, AUG_SIMD={simd})")
    for name, s, t_aug, t_cv in rows:
        crop_row, persp_row = name.endswith("crop+flip"), name.endswith("persp")
        what = f"warp {name} 300x380 of 480x640 -> 224^2" if crop_row else f"warp {name} 480x640 -> 224^2, s = {s}"
        cubic_row = name.endswith("cubic")
        peer_name = ("cv2.resize + cv2.flip" if crop_row else "cv2.warpAffine INTER_CUBIC" if cubic_row
                     else "cv2.warpAffine (s = 1)")
        if persp_row:
            what, peer_name = f"warp_perspective {name.split()[0]} 224x224x3 -> 224^2", "cv2.warpPerspective"
        target = 1.0 if s == 1 and name in ("uint8", "float32") else None  # uint16: informational (issue 31)
        benchutil.record(what, threads, t_aug, peer_name, t_cv, target, unit="us")
        peer = ("cv2.resize+flip    " if crop_row else "cv2.warpPersp.     " if persp_row
                else "cv2 INTER_CUBIC    " if cubic_row else "cv2.warpAffine(s=1)")
        print(f"{name:15s} s={s}  augpy {t_aug:8.1f} us   {peer} {t_cv:8.1f} us   ratio cv2/augpy {t_cv / t_aug:5.2f}x")
    print(f"uint8 cubic CPU time (process): augpy {cpu_aug:8.1f} us   cv2 INTER_CUBIC {cpu_cv:8.1f} us   "
          f"ratio cv2/augpy {cpu_cv / cpu_aug:5.2f}x")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=7)
    ap.add_argument("--number", type=int, default=100)
    args = ap.parse_args()
    run(1, args.repeat, args.number)
    ncpu = len(os.sched_getaffinity(0))
    if ncpu > 1:
        run(ncpu, args.repeat, args.number)
    print("target (SPEC 18): uint8 s=1 ratio >= 1.0x; float32 s=1 ratio >= 1.0x (float32 kernel, AVX2)")
    print("AUG_SIMD=sse2 in the environment times the portable C kernels instead")


if __name__ == "__main__":
    main()
