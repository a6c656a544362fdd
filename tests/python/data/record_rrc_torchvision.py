"""Record torchvision's RandomResizedCrop.get_params samples for tests/python/test_rrc.py.

Run it from the repository root with the peers venv, .venv-peers (`make bench-peers` creates it
with the Makefile's pinned PEER_DEPS); it expects torch==2.15.0 and torchvision==0.29.2 and
refuses to record with other versions (peer_versions.py):
    .venv-peers/bin/python tests/python/data/record_rrc_torchvision.py
Writes rrc_torchvision.npz next to this script: for each image size (H, W) in SIZES,
N crops (i, j, h, w) drawn with torch.manual_seed(0) and the default scale (0.08, 1.0) and
ratio (3/4, 4/3), plus one set with scale (0.5, 0.9), ratio (0.5, 2.0).
"""

from peer_versions import check_peers  # this folder's helper: the Makefile's pinned peer versions

check_peers(__doc__, "torch", "torchvision")  # before importing them

import math
import os

import numpy as np
import torch
import torchvision
from torchvision.transforms import RandomResizedCrop

N = 4000
SIZES = [(480, 640), (224, 224), (100, 1000), (333, 50)]
CASES = [((0.08, 1.0), (3.0 / 4.0, 4.0 / 3.0)), ((0.5, 0.9), (0.5, 2.0))]


def main():
    torch.manual_seed(0)
    out = {"sizes": np.array(SIZES, dtype=np.int64),
           "cases": np.array([[s[0], s[1], r[0], r[1]] for s, r in CASES], dtype=np.float64),
           "torch_version": np.array(torch.__version__), "torchvision_version": np.array(torchvision.__version__)}
    img = {}
    for c, (scale, ratio) in enumerate(CASES):
        for k, (h, w) in enumerate(SIZES):
            if (h, w) not in img:
                img[(h, w)] = torch.zeros((1, h, w), dtype=torch.uint8)
            crops = [RandomResizedCrop.get_params(img[(h, w)], list(scale), list(ratio)) for _ in range(N)]
            out[f"crops_{c}_{k}"] = np.array(crops, dtype=np.int16)
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "rrc_torchvision.npz")
    np.savez_compressed(path, **out)
    print("wrote", path, "torch", torch.__version__, "torchvision", torchvision.__version__, math.nan)


if __name__ == "__main__":
    main()
