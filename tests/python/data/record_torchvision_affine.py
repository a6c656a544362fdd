"""Records torchvision's own affine and rotate (torchvision.transforms.v2.functional on CPU
tensors) into torchvision_affine.npz, the oracle of tests/python/test_affine.py: each case's
inverse matrix (the private _get_inverse_affine_matrix, as affine_image / rotate_image call it),
the output size, and the warped uint8 and float32 images with nearest and bilinear sampling.

Needs torch and torchvision, which `make test` does not install. Run it from the repository root
with the peers venv, .venv-peers (`make bench-peers` creates it with the Makefile's pinned
PEER_DEPS); it expects torch==2.15.0 and torchvision==0.29.2 and refuses to record with other
versions (peer_versions.py):
    .venv-peers/bin/python tests/python/data/record_torchvision_affine.py
Inputs: a (3, 24, 32) crop of augpy's sample photo (u8) and the same scaled to [0, 1] (f32).
Keys: u8, f32; case<i>_kind ('affine' | 'rotate'), case<i>_args (angle, tx, ty, scale, shx,
shy, cx, cy, expand; cx = cy = nan: no centre), case<i>_matrix, case<i>_<u8|f32>_<nearest|bilinear>."""

from peer_versions import check_peers  # this folder's helper: the Makefile's pinned peer versions

check_peers(__doc__, "torch", "torchvision")  # before importing them

import math
import pathlib

import numpy as np
import torch
import torchvision.transforms.v2.functional as F
from torchvision.transforms.v2.functional._geometry import _get_inverse_affine_matrix
from PIL import Image

HERE = pathlib.Path(__file__).parent
SAMPLE = HERE.parents[2] / "python" / "augpy" / "samples" / "sample_00.jpg"
NAN = float("nan")

# (kind, angle, tx, ty, scale, shx, shy, cx, cy, expand): RandAugment's ops among them
CASES = [("rotate", 15.0, 0, 0, 1.0, 0, 0, NAN, NAN, 0), ("rotate", -30.0, 0, 0, 1.0, 0, 0, NAN, NAN, 0),
         ("rotate", 90.0, 0, 0, 1.0, 0, 0, NAN, NAN, 1), ("rotate", 180.0, 0, 0, 1.0, 0, 0, NAN, NAN, 0),
         ("rotate", 37.0, 0, 0, 1.0, 0, 0, NAN, NAN, 1), ("rotate", 10.0, 0, 0, 1.0, 0, 0, 5.0, 7.0, 0),
         ("affine", 0.0, 5, 0, 1.0, 0, 0, NAN, NAN, 0), ("affine", 0.0, 0, -7, 1.0, 0, 0, NAN, NAN, 0),
         ("affine", 0.0, 0, 0, 1.0, math.degrees(math.atan(0.3)), 0, 0.0, 0.0, 0),
         ("affine", 0.0, 0, 0, 1.0, 0, math.degrees(math.atan(-0.2)), 0.0, 0.0, 0),
         ("affine", 12.0, 3, -2, 0.8, 10, 5, NAN, NAN, 0), ("affine", -25.0, 0, 0, 1.3, 0, 0, 10.0, 4.0, 0)]


def run(kind, image, args, interp):
    angle, tx, ty, scale, shx, shy, cx, cy, expand = args
    center = None if math.isnan(cx) else [cx, cy]
    mode = F.InterpolationMode.NEAREST if interp == "nearest" else F.InterpolationMode.BILINEAR
    t = torch.from_numpy(image)
    if kind == "rotate":
        return F.rotate(t, angle, interpolation=mode, expand=bool(expand), center=center).numpy()
    return F.affine(t, angle=angle, translate=[tx, ty], scale=scale, shear=[shx, shy], interpolation=mode,
                    center=center).numpy()


def matrix(kind, args, h, w):
    angle, tx, ty, scale, shx, shy, cx, cy, _ = args
    c = [0.0, 0.0] if math.isnan(cx) else [cx - w * 0.5, cy - h * 0.5]
    if kind == "rotate":
        return _get_inverse_affine_matrix(c, -(angle % 360), [0.0, 0.0], 1.0, [0.0, 0.0])
    return _get_inverse_affine_matrix(c, angle, [float(tx), float(ty)], scale, [shx, shy])


def main():
    torch.set_num_threads(1)
    photo = np.asarray(Image.open(SAMPLE).convert("RGB"))
    y, x = photo.shape[0] // 2 - 12, photo.shape[1] // 2 - 16
    u8 = np.ascontiguousarray(photo[y:y + 24, x:x + 32].transpose(2, 0, 1))
    f32 = (u8 / np.float32(255)).astype(np.float32)
    out = {"u8": u8, "f32": f32}
    for i, (kind, *args) in enumerate(CASES):
        out[f"case{i}_kind"] = np.array(kind)
        out[f"case{i}_args"] = np.array(args, np.float64)
        out[f"case{i}_matrix"] = np.array(matrix(kind, args, 24, 32), np.float64)
        for name, image in (("u8", u8), ("f32", f32)):
            for interp in ("nearest", "bilinear"):
                out[f"case{i}_{name}_{interp}"] = run(kind, image, args, interp)
    np.savez_compressed(HERE / "torchvision_affine.npz", **out)
    print(f"wrote {HERE / 'torchvision_affine.npz'}: {len(CASES)} cases")


if __name__ == "__main__":
    main()
