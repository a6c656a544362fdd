"""Records torchvision's colour results on uint16 images (torchvision.transforms.v2.functional on
CPU tensors: adjust_brightness / contrast / saturation / hue, rgb_to_grayscale, autocontrast and
adjust_sharpness, bound 65535) into torchvision_colour_u16.npz, the oracle of tests/python/test_u16_colour.py and
test_u16_autotone.py (torchvision's equalize bins uint16 values in 256 levels; augpy's uses 65536
bins, checked against NumPy there).

Needs torch and torchvision, which `make test` does not install. Run it from the repository root
with the peers venv (torch==2.15.0, torchvision==0.29.2, peer_versions.py):
    .venv-peers/bin/python tests/python/data/record_torchvision_colour_u16.py
The images are 12 x 16: torchvision sums the contrast step's float32 grayscale in float32, which is
exact (so its mean is augpy's) while the sum stays below 2^24 (192 * 65535 does)."""

from peer_versions import check_peers  # this folder's helper: the Makefile's pinned peer versions

check_peers(__doc__, "torch", "torchvision")  # before importing them

import pathlib

import numpy as np
import torch
import torchvision
import torchvision.transforms.v2.functional as F
from PIL import Image

HERE = pathlib.Path(__file__).parent
SAMPLE = HERE.parents[2] / "python" / "augpy" / "samples" / "sample_00.jpg"

FACTORS = {"brightness": [0.0, 0.37, 1.0, 1.23, 3.7],
           "contrast": [0.0, 0.41, 1.0, 1.17, 2.9],
           "saturation": [0.0, 0.33, 1.0, 1.29, 4.1],
           "hue": [-0.5, -0.31, 0.0, 0.037, 0.25, 0.5]}
SHARPNESS = [0.0, 0.5, 1.0, 2.0, 3.7]
FUNCS = {"brightness": F.adjust_brightness, "contrast": F.adjust_contrast,
         "saturation": F.adjust_saturation, "hue": F.adjust_hue}


def inputs():
    rng = np.random.default_rng(20261129)
    photo = np.asarray(Image.open(SAMPLE).convert("RGB"))
    y, x = photo.shape[0] // 2 - 6, photo.shape[1] // 2 - 8
    crop = photo[y:y + 12, x:x + 16].transpose(2, 0, 1).astype(np.uint16) * 257  # 8 -> 16 bits
    rand = rng.integers(0, 65536, (3, 12, 16), dtype=np.uint16)
    # hand-picked pixels, two images' worth (384): every mix of 0, 1, 255, 32768, 65534, 65535
    # (216), then 168 grays from 0 to 65535
    vals = np.array([0, 1, 255, 32768, 65534, 65535], np.uint16)
    grid = np.stack(np.meshgrid(vals, vals, vals, indexing="ij")).reshape(3, -1)
    gray = np.repeat(np.linspace(0, 65535, 384 - grid.shape[1]).astype(np.uint16)[None], 3, 0)
    special = np.concatenate([grid, gray], 1).reshape(3, 2, 12, 16)
    smooth = np.clip(rng.normal(30000, 9000, (3, 12, 16)), 0, 65535).astype(np.uint16)
    return np.stack([crop, rand, special[:, 0], special[:, 1], smooth])


def main():
    torch.set_num_threads(1)
    u16 = inputs()
    out = {"u16": u16, "torch_version": np.array(torch.__version__),
           "torchvision_version": np.array(torchvision.__version__)}
    t = torch.from_numpy(u16)
    for name, fn in FUNCS.items():
        out[f"{name}_factors"] = np.array(FACTORS[name], np.float64)
        out[name] = np.stack([fn(t, f).numpy() for f in FACTORS[name]])
        out[f"{name}_c1"] = np.stack([fn(t[:, :1], f).numpy() for f in FACTORS[name]])
    out["gray1"] = F.rgb_to_grayscale(t, 1).numpy()
    out["gray3"] = F.rgb_to_grayscale(t, 3).numpy()
    out["autocontrast"] = F.autocontrast(t).numpy()
    out["sharpness_factors"] = np.array(SHARPNESS, np.float64)
    out["sharpness"] = np.stack([F.adjust_sharpness(t, f).numpy() for f in SHARPNESS])
    np.savez_compressed(HERE / "torchvision_colour_u16.npz", **out)


if __name__ == "__main__":
    main()
