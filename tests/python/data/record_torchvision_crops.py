"""Records torchvision's pad, RandomCrop, five_crop / ten_crop, rgb_to_grayscale and the
RandomCrop / GaussianBlur / JPEG samplers (transforms.v2 and its functional ops on uint8 CHW
tensors) into torchvision_crops.npz, the oracle of tests/python/test_pad_crop.py and
tests/python/test_random_stages.py:

- ``image``: a (3, 7, 9) uint8 image (seeded); ``pad_<mode>``: F.pad(image, [1, 2, 3, 4],
  fill=[10, 20, 30] (0 but in 'constant'), padding_mode=mode) for the four modes (padding below the image's size,
  where torch's reflect padding takes it);
- ``crop_cases``: rows (size h, size w, padding l, t, r, b (-1: None), pad_if_needed) and for
  each case ``crop_<i>_params`` (left, top, right, bottom padding, top, left) and
  ``crop_<i>_out``: RandomCrop(...).make_params then transform on ``image`` (fill 7, mode
  'reflect' when padded);
- ``five_<k>``, ``ten_h_<k>``, ``ten_v_<k>``: F.five_crop(big, [5, 6]) and F.ten_crop(big,
  [5, 6], vertical_flip) of a (3, 11, 13) image ``big``;
- ``gray3`` / ``gray3_float``: F.rgb_to_grayscale(x, 3) of a (3, 16, 20) uint8 image ``rgb``
  and of its float32 / 255;
- ``crop_tops``: 4000 draws of RandomCrop(4).make_params' top on a 1 x 13 image (10 values);
  ``blur_sigmas``: 4000 GaussianBlur(3, (0.1, 2.0)).make_params sigmas; ``jpeg_qualities``:
  4000 JPEG((20, 29)).make_params qualities.

Needs torch and torchvision, which `make test` does not install. Run it from the repository root
with the peers venv, .venv-peers (`make bench-peers` creates it with the Makefile's pinned
PEER_DEPS); it expects torch==2.15.0 and torchvision==0.29.2 and refuses to record with other
versions (peer_versions.py):
    .venv-peers/bin/python tests/python/data/record_torchvision_crops.py"""

from peer_versions import check_peers  # this folder's helper: the Makefile's pinned peer versions

check_peers(__doc__, "torch", "torchvision")  # before importing them

import pathlib

import numpy as np
import torch
from torchvision.transforms import v2
from torchvision.transforms.v2 import functional as F

HERE = pathlib.Path(__file__).parent

CROP_CASES = [  # size h, size w, padding l, t, r, b (-1: None), pad_if_needed
    (5, 6, -1, -1, -1, -1, 0),
    (7, 9, 2, 2, 2, 2, 0),
    (9, 12, 1, 0, 3, 2, 0),
    (10, 14, -1, -1, -1, -1, 1),
    (11, 12, 1, 1, 1, 1, 1),
]


def main():
    torch.manual_seed(20261129)
    out = {}
    image = torch.randint(0, 256, (3, 7, 9), dtype=torch.uint8)
    out["image"] = image.numpy()
    for mode in ("constant", "edge", "reflect", "symmetric"):
        fill = [10, 20, 30] if mode == "constant" else 0  # torchvision takes a vector fill in mode constant only
        out[f"pad_{mode}"] = F.pad(image, [1, 2, 3, 4], fill=fill, padding_mode=mode).numpy()
    out["crop_cases"] = np.array(CROP_CASES, np.int64)
    for i, (sh, sw, l, t, r, b, needed) in enumerate(CROP_CASES):
        padding = None if l < 0 else [l, t, r, b]
        rc = v2.RandomCrop((sh, sw), padding=padding, pad_if_needed=bool(needed), fill=7,
                           padding_mode="reflect" if padding else "constant")
        params = rc.make_params([image])
        out[f"crop_{i}_params"] = np.array(params["padding"] + [params["top"], params["left"]], np.int64)
        out[f"crop_{i}_out"] = rc.transform(image, params).numpy()
    big = torch.randint(0, 256, (3, 11, 13), dtype=torch.uint8)
    out["big"] = big.numpy()
    for k, c in enumerate(F.five_crop(big, [5, 6])):
        out[f"five_{k}"] = c.numpy()
    for tag, vertical in (("h", False), ("v", True)):
        for k, c in enumerate(F.ten_crop(big, [5, 6], vertical_flip=vertical)):
            out[f"ten_{tag}_{k}"] = c.numpy()
    rgb = torch.randint(0, 256, (3, 16, 20), dtype=torch.uint8)
    out["rgb"] = rgb.numpy()
    out["gray3"] = F.rgb_to_grayscale(rgb, 3).numpy()
    out["gray3_float"] = F.rgb_to_grayscale(rgb.float() / 255, 3).numpy()
    tiny = torch.zeros(3, 1, 13, dtype=torch.uint8)
    rc = v2.RandomCrop((1, 4))
    out["crop_lefts"] = np.array([rc.make_params([tiny])["left"] for _ in range(4000)], np.int64)
    gb = v2.GaussianBlur(3, (0.1, 2.0))
    out["blur_sigmas"] = np.array([gb.make_params([image])["sigma"][0] for _ in range(4000)], np.float64)
    jp = v2.JPEG((20, 29))
    out["jpeg_qualities"] = np.array([int(jp.make_params([image])["quality"]) for _ in range(4000)], np.int64)
    np.savez_compressed(HERE / "torchvision_crops.npz", **out)
    print(f"wrote {HERE / 'torchvision_crops.npz'}")


if __name__ == "__main__":
    main()
