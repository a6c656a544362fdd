"""Records torchvision's RandomErasing sampler (transforms.v2.RandomErasing.make_params on a
(3, 32, 40) image, p=1, scale (0.02, 1/3), ratio (0.3, 1/0.3)) into torchvision_erasing.npz:
4000 rectangles (top, left, height, width; (0, 0, 32, 40) where torchvision gave up), the
oracle of the distribution test in tests/python/test_erasing.py.

Needs torch and torchvision, which `make test` does not install. Run it from the repository root
with the peers venv, .venv-peers (`make bench-peers` creates it with the Makefile's pinned
PEER_DEPS); it expects torch==2.15.0 and torchvision==0.29.2 and refuses to record with other
versions (peer_versions.py):
    .venv-peers/bin/python tests/python/data/record_torchvision_erasing.py"""

from peer_versions import check_peers  # this folder's helper: the Makefile's pinned peer versions

check_peers(__doc__, "torch", "torchvision")  # before importing them

import pathlib

import numpy as np
import torch
from torchvision.transforms import v2

HERE = pathlib.Path(__file__).parent


def main():
    torch.manual_seed(20261129)
    t = v2.RandomErasing(p=1.0, scale=(0.02, 1 / 3), ratio=(0.3, 1 / 0.3))
    image = torch.zeros(3, 32, 40, dtype=torch.uint8)
    rects = []
    for _ in range(4000):
        params = t.make_params([image])
        rects.append((params["i"], params["j"], params["h"], params["w"]))
    np.savez_compressed(HERE / "torchvision_erasing.npz", rects=np.array(rects, np.int32))
    print(f"wrote {HERE / 'torchvision_erasing.npz'}")


if __name__ == "__main__":
    main()
