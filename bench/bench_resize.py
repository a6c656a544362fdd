"""bench/bench_resize.py: augpy.resize against cv2.resize and Pillow's Image.resize on one core.

A 480x640x3 uint8 image to 224x224 (down) and to 960x1280 (up), each interpolation against its
peer: nearest, bilinear and area against OpenCV's INTER_NEAREST / INTER_LINEAR / INTER_AREA,
antialiased bilinear against Pillow's BILINEAR (which antialiases on downscale). Then the
same image times 257 as uint16 against OpenCV 16U (Pillow has no 3-channel 16-bit mode, so
the antialiased row is augpy's alone). CPU-ms per
call (process time, best of 3 x 30 calls; AUG_NUM_THREADS=1, cv2.setNumThreads(1)), with the
output preallocated for augpy. docs/resize.md quotes the figures.

    AUG_NUM_THREADS=1 .venv/bin/python bench/bench_resize.py
"""
import os
import time

import cv2
import numpy as np
from PIL import Image

os.environ.setdefault("AUG_NUM_THREADS", "1")
import augpy  # noqa: E402


def cpu_ms(fn, n=30, reps=3):
    fn()
    best = float("inf")
    for _ in range(reps):
        t0 = time.process_time()
        for _ in range(n):
            fn()
        best = min(best, (time.process_time() - t0) / n)
    return best * 1e3


def main():
    cv2.setNumThreads(1)
    img8 = np.random.default_rng(0).integers(0, 256, (480, 640, 3), dtype=np.uint8)
    print(f"{'case':45s} {'augpy':>7s} {'peer':>7s}  peer")
    for img, (label, (h, w)) in [(im, c) for im in (img8, img8.astype(np.uint16) * 257)
                                 for c in [("480x640 -> 224x224", (224, 224)), ("480x640 -> 960x1280", (960, 1280))]]:
        t = augpy.array_to_tensor(img).cpu()
        t.layout = "HWC"
        label = f"{img.dtype.name} {label}"
        out = augpy.array_to_tensor(np.zeros((h, w, 3), img.dtype)).cpu()
        cases = [
            ("nearest", dict(interpolation="nearest"), "cv2", lambda: cv2.resize(img, (w, h), interpolation=cv2.INTER_NEAREST)),
            ("bilinear", dict(antialias=False), "cv2", lambda: cv2.resize(img, (w, h), interpolation=cv2.INTER_LINEAR)),
            ("bilinear antialias", dict(antialias=True), "Pillow",
             (lambda: Image.fromarray(img).resize((w, h), Image.BILINEAR)) if img.dtype == np.uint8 else None),
            ("area", dict(interpolation="area"), "cv2", lambda: cv2.resize(img, (w, h), interpolation=cv2.INTER_AREA)),
        ]
        for name, kw, peer, peer_fn in cases:
            ours = cpu_ms(lambda: augpy.resize(t, (h, w), out=out, **kw))
            theirs = f"{cpu_ms(peer_fn):7.3f}  {peer}" if peer_fn else "      -  -"
            print(f"{label + ' ' + name:45s} {ours:7.3f} {theirs}")


if __name__ == "__main__":
    main()
