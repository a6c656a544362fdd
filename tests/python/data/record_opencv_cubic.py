"""Record OpenCV's bicubic warps (cv2.warpAffine / cv2.warpPerspective with INTER_CUBIC |
WARP_INVERSE_MAP) into opencv_cubic.npz, the OpenCV oracle of tests/python/test_warp_cubic.py.

Run it from the repository root with the peers venv, .venv-peers (`make bench-peers` creates it
with the Makefile's pinned PEER_DEPS); it expects opencv-python-headless==5.0.0.93 and
numpy==2.4.6 and refuses to record with other versions (peer_versions.py). It does not import
augpy:
    .venv-peers/bin/python tests/python/data/record_opencv_cubic.py

Input: a (40, 52, 3) crop of augpy's sample photo (sample_00.jpg decoded by OpenCV), stored as
"src_u8", and the same as float32 0..255 values plus a smooth ramp ("src_f32"). Cases: affine
matrices (rotations with downscale, an upscale at a corner, a shear, a mirror, a shift) and two
homographies (one whose w turns negative), most reaching past the source's edges, each under
the four borders (constant with the value 40, replicate, reflect-101,
reflect), into 24 x 30 outputs. Keys per case i: case<i>_m ((2, 3) or (3, 3) float32, the
inverse map), case<i>_border (0 constant, 1 replicate, 2 reflect-101, 3 reflect, augpy's
numbering), case<i>_u8 and, for the constant and reflect-101 borders, case<i>_f32 (OpenCV's
results)."""

from peer_versions import check_peers  # this folder's helper: the Makefile's pinned peer versions

check_peers(__doc__, "opencv-python-headless", "numpy")  # before importing them

import math
import pathlib

import cv2
import numpy as np

HERE = pathlib.Path(__file__).resolve().parent
SAMPLE = HERE.parents[2] / "python" / "augpy" / "samples" / "sample_00.jpg"
OUT = HERE / "opencv_cubic.npz"
H, W, HT, WT = 40, 52, 24, 30
BG = 40.0
BORDERS = [cv2.BORDER_CONSTANT, cv2.BORDER_REPLICATE, cv2.BORDER_REFLECT_101, cv2.BORDER_REFLECT]


def affine(angle, scale, shear=0.0, mirror=False, shift=(0.0, 0.0)):
    """An inverse map (output pixel -> source pixel) about the centres."""
    a = math.radians(angle)
    c, s = math.cos(a) / scale, math.sin(a) / scale
    m = np.array([[c, -s + shear, 0.0], [s, c, 0.0]])
    if mirror:
        m[:, 0] = -m[:, 0]
    ctr_out = np.array([(WT - 1) / 2, (HT - 1) / 2])
    ctr_in = np.array([(W - 1) / 2 + shift[0], (H - 1) / 2 + shift[1]])
    m[:, 2] = ctr_in - m[:, :2] @ ctr_out
    return m.astype(np.float32)


def main():
    photo = cv2.cvtColor(cv2.imread(str(SAMPLE)), cv2.COLOR_BGR2RGB)
    y, x = photo.shape[0] // 2 - H // 2, photo.shape[1] // 2 - W // 2
    src_u8 = np.ascontiguousarray(photo[y:y + H, x:x + W])
    ramp = (np.arange(W, dtype=np.float32)[None, :] * 2.5 + np.arange(H, dtype=np.float32)[:, None])
    src_f32 = src_u8.astype(np.float32)
    src_f32[:, :, 2] = ramp
    # most outputs reach past the source's edges, so that the borders matter
    mats = [affine(17, 0.5), affine(-30, 1.6, shift=(21, 13)), affine(5, 0.8, shear=0.3),
            affine(90, 0.6, mirror=True), affine(0, 1.0, shift=(14.37, -8.21)), affine(200, 0.45, shift=(6, -4))]
    h1 = np.array([[1.9, 0.1, -13.0], [0.02, 1.8, -9.0], [0.002, 0.001, 1.0]], np.float32)
    h2 = np.array([[0.8, -0.15, 8.0], [0.1, 0.9, -1.5], [-0.03, 0.003, 1.0]], np.float32)  # w <= 0 in part
    mats += [h1, h2]
    out = {"src_u8": src_u8, "src_f32": src_f32}
    i = 0
    for m in mats:
        for b, border in enumerate(BORDERS):
            flags = cv2.INTER_CUBIC | cv2.WARP_INVERSE_MAP
            kw = dict(flags=flags, borderMode=border, borderValue=(BG, BG, BG, BG))
            if m.shape == (2, 3):
                u8 = cv2.warpAffine(src_u8, m, (WT, HT), **kw)
                f32 = cv2.warpAffine(src_f32, m, (WT, HT), **kw)
            else:
                u8 = cv2.warpPerspective(src_u8, m, (WT, HT), **kw)
                f32 = cv2.warpPerspective(src_f32, m, (WT, HT), **kw)
            out[f"case{i}_m"], out[f"case{i}_border"] = m, np.int64(b)
            out[f"case{i}_u8"] = u8
            if b in (0, 2):
                out[f"case{i}_f32"] = f32
            i += 1
    np.savez_compressed(OUT, **out)
    print(f"wrote {OUT} ({i} cases)")


if __name__ == "__main__":
    main()
