"""The bicubic warp's AVX2 step (cpu/warp_cubic_avx2.c: uint8 and float32 sources, affine and
perspective) gives the portable C kernel's bytes: the same random cases (sizes from 1 px, odd
widths, rows longer than a 64-pixel block, every border, s = 1..3, strided and channel-sliced
sources, matrices that reach past the edges, homographies with a horizon) run under
AUG_SIMD=sse2 (the scalar kernel alone), AUG_SIMD=avx2 and the default (AVX-512 machines: still
the AVX2 step), each in its own process, and every output must be equal bit for bit."""
import os
import subprocess
import sys

import numpy as np
import pytest
from conftest import ON_CUDA

# NumPy arrays in and out: the CPU kernel in every session; the CPU sessions (plain, ASan) run it
pytestmark = pytest.mark.skipif(ON_CUDA, reason="the CPU kernel's SIMD paths; the CPU sessions run it")

CASES = r'''
import sys
import numpy as np
import augpy

rng = np.random.default_rng(2811)
outs = []
borders = ["constant", "replicate", "reflect", "symmetric"]
for case in range(int(sys.argv[2])):
    H, W = (int(v) for v in rng.integers(1, 48, 2))
    if case % 5 == 0:
        H, W = int(rng.integers(40, 90)), int(rng.integers(60, 140))
    C = int(rng.choice([1, 2, 3, 4, 5, 17]))
    dtype = np.uint8 if case % 3 else np.float32
    if dtype == np.uint8:
        full = rng.integers(0, 256, (H, 2 * W, C + 2)).astype(np.uint8)
    else:
        full = (rng.standard_normal((H, 2 * W, C + 2)) * 300).astype(np.float32)
    layout = case % 4
    src = full[:, :W, :C] if layout == 0 else full[:, ::2, :C] if layout == 1 else \
        full[:, 1:W + 1, 1:C + 1] if layout == 2 else np.ascontiguousarray(full[:, :W, :C])
    Ht, Wt = int(rng.integers(1, 40)), int(rng.integers(1, 150))
    ang, sc = rng.uniform(-np.pi, np.pi), rng.uniform(0.3, 2.5) * max(H, W) / max(Ht, Wt, 1)
    if case % 7 == 0:
        ang = 0.0
    ca, sa = np.cos(ang) * sc, np.sin(ang) * sc
    m = np.array([[ca, -sa, rng.uniform(-0.3, 1.3) * W], [sa, ca, rng.uniform(-0.3, 1.3) * H]])
    m[:, 2] -= m[:, :2] @ [Wt / 2, Ht / 2]
    if case % 2:
        m = np.vstack([m, [rng.uniform(-0.02, 0.02), rng.uniform(-0.02, 0.02), 1.0]])
    m = m.astype(np.float32)
    s = int(rng.choice([1, 1, 2, 3]))
    border = borders[case % 4] if case % 8 < 4 else borders[int(rng.integers(0, 4))]
    bg = [float(v) for v in rng.integers(0, 256, C)] if dtype == np.uint8 or case % 6 else \
        [float(v) for v in rng.uniform(-50, 300, C)]
    # float64 outputs keep every bit of the double sums (uint8 / float32 ones round most differences away)
    out_dtype = np.float64 if case % 4 == 1 else np.int16 if case % 9 == 0 else dtype
    dst = np.zeros((C, Ht, Wt), out_dtype)
    fn = augpy.warp_perspective if m.shape == (3, 3) else augpy.warp_affine
    fn(src, dst, m, bg, s, interpolation="cubic", border=border, layout="CHW", src_layout="HWC")
    outs.append(dst.reshape(-1).view(np.uint8))
np.save(sys.argv[1], np.concatenate(outs))
'''


def run_cases(tmp_path, simd, n):
    env = {k: v for k, v in os.environ.items() if k != "AUG_SIMD"}
    if simd != "auto":
        env["AUG_SIMD"] = simd
    path = tmp_path / f"{simd}.npy"
    subprocess.run([sys.executable, "-c", CASES, str(path), str(n)], check=True, env=env)
    return np.load(path)


def test_cubic_simd_equals_portable(tmp_path):
    n = 240
    ref = run_cases(tmp_path, "sse2", n)
    for simd in ("avx2", "auto"):
        got = run_cases(tmp_path, simd, n)
        assert got.shape == ref.shape
        bad = np.flatnonzero(got != ref)
        assert bad.size == 0, f"AUG_SIMD={simd}: {bad.size} bytes differ from the portable kernel's, first at {bad[:5]}"


def test_cubic_simd_bench_case_equals_portable(tmp_path):
    """bench/bench_warp.py's case (480x640x3 -> 224x224, 10 degrees), uint8 and float32, affine
    and a homography, into the source dtype and float64: rows the AVX2 step does almost entirely."""
    code = r'''
import sys
import numpy as np
import augpy
rng = np.random.default_rng(5)
img = rng.integers(0, 256, (480, 640, 3)).astype(np.uint8)
m, _ = augpy.make_transform(img.shape[:2], (224, 224), angle=10)
h = np.vstack([m, [1e-4, -2e-4, 1.0]]).astype(np.float32)
outs = []
for src in (img, img.astype(np.float32) * 1.5):
    for mat, out in ((m, src.dtype), (h, src.dtype), (m, np.float64), (h, np.float64)):
        dst = np.zeros((3, 224, 224), out)
        fn = augpy.warp_perspective if mat.shape == (3, 3) else augpy.warp_affine
        fn(src, dst, mat, [124, 116, 104], 1, interpolation="cubic", layout="CHW", src_layout="HWC")
        outs.append(dst.reshape(-1).view(np.uint8))
np.save(sys.argv[1], np.concatenate(outs))
'''
    res = {}
    for simd in ("sse2", "auto"):
        env = {k: v for k, v in os.environ.items() if k != "AUG_SIMD"}
        if simd != "auto":
            env["AUG_SIMD"] = simd
        subprocess.run([sys.executable, "-c", code, str(tmp_path / f"b_{simd}.npy")], check=True, env=env)
        res[simd] = np.load(tmp_path / f"b_{simd}.npy")
    np.testing.assert_array_equal(res["auto"], res["sse2"])
