"""The CUDA fixed-point affine warp's pixel path (src/cuda/warp.cu warp_pixels: uint8 HWC
images of 1-4 adjacent channels, one thread per output pixel, each tap row's pixels read as
aligned 8-byte words, byte loads at an image's first and last bytes) against the CPU, bit
for bit: views whose rows, columns or ends are not 8-byte aligned, flipped and cropped
views, every border, supersampling, both output layouts; and the same for the staged
per-value kernels (src/cuda/warp_stage.cuh, warp_stage_f32.cuh: the uint8 perspective warp
and the float32 affine warp), HWC and CHW sources, tilts whose horizon crosses the output.
On the CPU device the two runs are the same code (the test then checks nothing new)."""
import math

import numpy as np
import pytest

import augpy
from conftest import host_tensor


def _matrix(angle, scale, cx, cy, tx, ty):
    a = math.radians(angle)
    c, s = math.cos(a) / scale, math.sin(a) / scale
    return [[c, -s, cx - c * tx + s * ty], [s, c, cy - s * tx - c * ty]]


VIEWS = {  # a view of a (23, 37, C) image (37 * C bytes a row: rows and ends off 8-byte words)
    "whole": lambda t: t,
    "crop": lambda t: t[3:20, 5:34],
    "odd start": lambda t: t[1:, 1:],
    "x flipped": lambda t: t[:, ::-1],
    "y flipped": lambda t: t[::-1],
    "every other column": lambda t: t[:, ::2],
}


@pytest.mark.parametrize("C", [1, 2, 3, 4])
def test_pixel_path_equals_cpu(C):
    rng = np.random.default_rng(30 + C)
    base = rng.integers(0, 256, (23, 37, C), dtype=np.uint8)
    bg = [float(v) for v in rng.integers(0, 256, C)]
    for name, view in VIEWS.items():
        arr = view(base)
        h, w = arr.shape[:2]
        mats = [_matrix(0, 1, w / 2, h / 2, 9.5, 6.5), _matrix(30, 0.9, w / 2, h / 2, 10, 7),
                _matrix(-63, 2.1, w / 2, h / 2, 9.7, 6.2), _matrix(170, 0.45, w / 2, h / 2, 9, 7)]
        mats = np.array(mats, np.float32)
        for border in ("constant", "replicate", "reflect", "symmetric"):
            for s in (1, 2, 3):
                for layout in ("NCHW", "NHWC"):
                    shape = (4, C, 13, 19) if layout == "NCHW" else (4, 13, 19, C)
                    outs = []
                    for src in (view(augpy.array_to_tensor(base)), host_tensor(np.ascontiguousarray(arr))):
                        out = augpy.Tensor(shape, dtype=augpy.uint8)
                        out = out if out.device == src.device else out.to(src.device)
                        augpy.warp_affine([src] * 4, out, mats, bg, [s] * 4, border=border, layout=layout)
                        outs.append(augpy.tensor_to_array(out))
                    assert outs[0].tobytes() == outs[1].tobytes(), (name, border, s, layout)


@pytest.mark.parametrize("kind", ["perspective uint8", "affine float32", "perspective float32"])
@pytest.mark.parametrize("C", [1, 3, 4])
def test_staged_values_equal_cpu(kind, C):
    rng = np.random.default_rng(60 + C)
    persp, dt = kind.startswith("perspective"), kind.split()[1]
    chw_base = rng.integers(0, 256, (C, 23, 37)).astype(dt)
    base = np.ascontiguousarray(chw_base.transpose(1, 2, 0))
    if dt == "float32":
        base = base + rng.random(base.shape, dtype=np.float32)
    bg = [float(v) for v in rng.integers(0, 256, C)]
    views = dict(VIEWS, **({"CHW": None} if C > 1 else {}))
    for name, view in views.items():
        arr = chw_base if view is None else view(base)
        h, w = (arr.shape[1:] if view is None else arr.shape[:2])
        mats = [_matrix(0, 1, w / 2, h / 2, 9.5, 6.5), _matrix(30, 0.9, w / 2, h / 2, 10, 7),
                _matrix(-63, 2.1, w / 2, h / 2, 9.7, 6.2), _matrix(170, 0.45, w / 2, h / 2, 9, 7)]
        if persp:  # w = g (X - 9.5) + k (Y - 6.5) + 1: mild, strong, and a horizon through the output
            tilts = [(0.01, -0.02), (-0.05, 0.04), (0.0, 0.2), (0.12, 0.0)]
            mats = [np.vstack([m, [0, 0, 1]]) @ np.array([[1, 0, 0], [0, 1, 0], [g, k, 1 - 9.5 * g - 6.5 * k]])
                    for m, (g, k) in zip(mats, tilts)]
        mats = np.array(mats, np.float32)
        warp = augpy.warp_perspective if persp else augpy.warp_affine
        for border in ("constant", "replicate", "reflect", "symmetric"):
            for s in (1, 2):
                for layout in ("NCHW", "NHWC"):
                    shape = (4, C, 13, 19) if layout == "NCHW" else (4, 13, 19, C)
                    outs = []
                    dev = augpy.array_to_tensor(chw_base if view is None else base)
                    for src in (dev if view is None else view(dev), host_tensor(np.ascontiguousarray(arr))):
                        out = augpy.Tensor(shape, dtype=getattr(augpy, dt))
                        out = out if out.device == src.device else out.to(src.device)
                        warp([src] * 4, out, mats, bg, [s] * 4, border=border, layout=layout,
                             src_layout="CHW" if view is None else None)
                        outs.append(augpy.tensor_to_array(out))
                    assert outs[0].tobytes() == outs[1].tobytes(), (name, border, s, layout)
