"""examples/demo.py: augpy's tensor math on one synthetic image, the first step of `make demo`
(which then runs `augpy-demo`, the batch augmentation pipeline: README.md, "The demo").

Brightens and darkens a synthetic uint8 image with saturating math, blends two
images with fma, and shows that the result is exact and handed to NumPy without a
copy. Prints the time of each step against NumPy's saturating emulation.

    .venv/bin/python examples/demo.py
"""
import time

import numpy as np

import augpy


def best_ms(fn, reps=5):
    best = float("inf")
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        best = min(best, (time.perf_counter() - t0) * 1e3)
    return best


def main():
    h, w = 1080, 1920
    y, x = np.mgrid[0:h, 0:w]
    img = np.stack([(x * 255 // (w - 1)), (y * 255 // (h - 1)), ((x + y) % 256)], axis=-1).astype(np.uint8)
    print(f"augpy {augpy.__version__} on device {augpy.CudaTensor((1,)).device}; image {img.shape} uint8")

    t = augpy.array_to_tensor(img)
    out = augpy.empty_like(t)

    # Saturating brightness: +80 clips at 255 instead of wrapping around.
    augpy.add(t, 80, out=out)
    ref = np.clip(img.astype(np.int16) + 80, 0, 255).astype(np.uint8)
    assert np.array_equal(out.numpy(), ref)
    ms_aug = best_ms(lambda: augpy.add(t, 80, out=out))
    ms_np = best_ms(lambda: np.clip(img.astype(np.int16) + 80, 0, 255).astype(np.uint8))
    print(f"brighten +80      augpy {ms_aug:7.2f} ms   numpy clip {ms_np:7.2f} ms   ({ms_np / ms_aug:4.1f}x)")

    # Darken with a weak scalar: uint8 - 200 stays uint8 and stops at 0.
    dark = t - 200
    assert dark.dtype == augpy.uint8 and int(dark.numpy().min()) == 0

    # Blend: out = 0.5 * t + dark, one rounding (half to even), saturated to uint8.
    augpy.fma(0.5, t, dark, out=out)
    blend_ref = np.clip(np.rint(0.5 * img.astype(np.float32) + dark.numpy()), 0, 255).astype(np.uint8)
    assert np.array_equal(out.numpy(), blend_ref)
    print("blend 0.5*img + dark: exact against NumPy's float reference")

    # Exact integer sum, and zero-copy hand-off to NumPy via DLPack.
    total = int(t.sum(upcast=True))
    assert total == int(img.sum(dtype=np.uint64))
    view = np.from_dlpack(out)
    assert view.ctypes.data == out.ptr
    print(f"sum of all pixels {total} (exact); np.from_dlpack shares memory: {view.ctypes.data == out.ptr}")

    # Mistakes are exceptions with a message, never a crash.
    try:
        t + augpy.CudaTensor((3, 3))
    except ValueError as e:
        print(f"error, as expected: {e}")


if __name__ == "__main__":
    main()
