"""Record torchvision's evaluation transform for tests/python/test_imagenet_stages.py.

Run it from the repository root with the peers venv, .venv-peers (`make bench-peers` creates it
with the Makefile's pinned PEER_DEPS); it expects torch==2.15.0 and torchvision==0.29.2 and
refuses to record with other versions (peer_versions.py):
    .venv-peers/bin/python tests/python/data/record_imagenet_eval_torchvision.py
(Pillow is whichever that venv has: Pillow-SIMD when it builds; its version is not pinned).
Writes imagenet_eval_torchvision.npz next to this script: a few JPEGs (their bytes, made
here with Pillow) and torchvision's Resize(RESIZE) (bilinear, antialias=True) +
CenterCrop(SIZE) of Pillow's RGB decode of each, as uint8 (3, SIZE, SIZE); and, for the
first image, torchvision's resize of the whole image to (SIZE, SIZE) and its horizontal flip
(resized_crop of the full-image crop: RandomResizedCrop's warp with scale = ratio range = 1).
"""

from peer_versions import check_peers  # this folder's helper: the Makefile's pinned peer versions

check_peers(__doc__, "torch", "torchvision")  # before importing them

import io
import os

import numpy as np
import torch
import torchvision
from PIL import Image
from torchvision.transforms import v2

SIZES = [(120, 160), (200, 150), (97, 131), (256, 256)]
RESIZE, SIZE = 64, 56


def main():
    rng = np.random.default_rng(0)
    out = {"resize": np.array(RESIZE), "size": np.array(SIZE), "torchvision_version": np.array(torchvision.__version__)}
    tf = v2.Compose([v2.Resize(RESIZE, antialias=True), v2.CenterCrop(SIZE)])
    for k, (h, w) in enumerate(SIZES):
        y, x = np.mgrid[0:h, 0:w]
        img = np.stack([x * 255 // w, y * 255 // h, (x * y // 37) % 256], -1) + rng.integers(-15, 16, (h, w, 3))
        f = io.BytesIO()
        Image.fromarray(np.clip(img, 0, 255).astype(np.uint8)).save(f, "JPEG", quality=90)
        data = f.getvalue()
        rgb = np.asarray(Image.open(io.BytesIO(data)).convert("RGB"))
        res = tf(torch.from_numpy(rgb.copy()).permute(2, 0, 1).contiguous())
        out[f"jpeg_{k}"] = np.frombuffer(data, np.uint8)
        out[f"out_{k}"] = res.numpy()
        if k == 0:
            t = torch.from_numpy(rgb.copy()).permute(2, 0, 1).contiguous()
            full = v2.functional.resized_crop(t, 0, 0, h, w, [SIZE, SIZE], antialias=True)
            out["rrc_full"] = full.numpy()
            out["rrc_full_flip"] = v2.functional.horizontal_flip(full).numpy()
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "imagenet_eval_torchvision.npz")
    np.savez_compressed(path, **out)
    print("wrote", path, "torchvision", torchvision.__version__)


if __name__ == "__main__":
    main()
