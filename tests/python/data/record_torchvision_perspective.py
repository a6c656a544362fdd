"""Records torchvision's own perspective (torchvision.transforms.v2.functional.perspective on
CPU tensors) into torchvision_perspective.npz, the oracle of tests/python/test_perspective.py:
each case's startpoints and endpoints, torchvision's coefficients (_get_perspective_coeffs, the
float32 values perspective_image uses) and the warped uint8 and float32 images with nearest and
bilinear sampling. Some cases' endpoints come from torchvision's RandomPerspective sampler
(make_params, torch.manual_seed(i)) with distortion_scale 0.5 and 0.9.

Needs torch and torchvision, which `make test` does not install. Run it from the repository root
with the peers venv, .venv-peers (`make bench-peers` creates it with the Makefile's pinned
PEER_DEPS); it expects torch==2.15.0 and torchvision==0.29.2 and refuses to record with other
versions (peer_versions.py):
    .venv-peers/bin/python tests/python/data/record_torchvision_perspective.py
Inputs: a (3, 24, 32) crop of augpy's sample photo (u8) and the same scaled to [0, 1] (f32).
Keys: u8, f32; case<i>_start, case<i>_end ((4, 2) int), case<i>_coeffs (8 float64 holding
float32 values), case<i>_<u8|f32>_<nearest|bilinear>."""

from peer_versions import check_peers  # this folder's helper: the Makefile's pinned peer versions

check_peers(__doc__, "torch", "torchvision")  # before importing them

import pathlib

import numpy as np
import torch
import torchvision.transforms.v2 as T
import torchvision.transforms.v2.functional as F
from torchvision.transforms.functional import _get_perspective_coeffs
from PIL import Image

HERE = pathlib.Path(__file__).parent
SAMPLE = HERE.parents[2] / "python" / "augpy" / "samples" / "sample_00.jpg"
H, W = 24, 32
START = [[0, 0], [W - 1, 0], [W - 1, H - 1], [0, H - 1]]
FIXED = [[[3, 2], [28, 1], [30, 22], [1, 20]],      # inward
         [[0, 0], [31, 4], [31, 19], [0, 23]],      # a turn about the vertical axis
         [[-4, -3], [35, 0], [31, 23], [0, 26]],    # outward: the source's border shows
         [[6, 5], [25, 5], [31, 23], [0, 23]]]      # a keystone


def sampled(seed, scale):
    torch.manual_seed(seed)
    t = T.RandomPerspective(distortion_scale=scale, p=1.0)
    # make_params computes the coefficients from these endpoints; recorded for the test
    height, width = H, W
    bh, bw = int(scale * (height // 2)) + 1, int(scale * (width // 2)) + 1
    torch.manual_seed(seed)
    end = [[int(torch.randint(0, bw, (1,))), int(torch.randint(0, bh, (1,)))],
           [int(torch.randint(width - bw, width, (1,))), int(torch.randint(0, bh, (1,)))],
           [int(torch.randint(width - bw, width, (1,))), int(torch.randint(height - bh, height, (1,)))],
           [int(torch.randint(0, bw, (1,))), int(torch.randint(height - bh, height, (1,)))]]
    torch.manual_seed(seed)
    coeffs = t.make_params([torch.zeros(3, H, W, dtype=torch.uint8)])["coefficients"]
    assert np.allclose(coeffs, _get_perspective_coeffs(START, end)), "sampler replay differs from make_params"
    return end


def main():
    torch.set_num_threads(1)
    photo = np.asarray(Image.open(SAMPLE).convert("RGB"))
    y, x = photo.shape[0] // 2 - H // 2, photo.shape[1] // 2 - W // 2
    u8 = np.ascontiguousarray(photo[y:y + H, x:x + W].transpose(2, 0, 1))
    f32 = (u8 / np.float32(255)).astype(np.float32)
    cases = FIXED + [sampled(s, 0.5) for s in range(3)] + [sampled(s, 0.9) for s in range(3, 6)]
    out = {"u8": u8, "f32": f32}
    for i, end in enumerate(cases):
        out[f"case{i}_start"] = np.array(START, np.int64)
        out[f"case{i}_end"] = np.array(end, np.int64)
        out[f"case{i}_coeffs"] = np.array(_get_perspective_coeffs(START, end), np.float64)
        for name, image in (("u8", u8), ("f32", f32)):
            for interp, mode in (("nearest", F.InterpolationMode.NEAREST), ("bilinear", F.InterpolationMode.BILINEAR)):
                out[f"case{i}_{name}_{interp}"] = F.perspective(torch.from_numpy(image), START, end,
                                                                interpolation=mode).numpy()
    np.savez_compressed(HERE / "torchvision_perspective.npz", **out)
    print(f"wrote {HERE / 'torchvision_perspective.npz'}: {len(cases)} cases")


if __name__ == "__main__":
    main()
