"""Records torchvision's resize of small images into resize_torchvision.npz, the oracle of
test_resize.py::test_against_torchvision_recorded (`make test` has no torch).

Run it from the repository root with the peers venv, .venv-peers (`make bench-peers` creates it
with the Makefile's pinned PEER_DEPS); it expects torch==2.15.0 and torchvision==0.29.2 and
refuses to record with other versions (peer_versions.py):
    .venv-peers/bin/python tests/python/data/record_resize_torchvision.py
torchvision.transforms.v2.functional.resize on CHW tensors: bilinear with antialias=True and
False, nearest; uint8 and float32 inputs; odd sizes, up and down, non-integer ratios."""

from peer_versions import check_peers  # this folder's helper: the Makefile's pinned peer versions

check_peers(__doc__, "torch", "torchvision")  # before importing them

import pathlib

import numpy as np
import torch
import torchvision
import torchvision.transforms.v2.functional as F
from torchvision.transforms import InterpolationMode

SIZES = [((21, 29), (16, 24)), ((21, 29), (7, 33)), ((21, 29), (31, 1)), ((9, 11), (20, 17)), ((32, 24), (16, 12)),
         ((1, 7), (5, 3))]
MODES = {"bilinear_aa": (InterpolationMode.BILINEAR, True), "bilinear": (InterpolationMode.BILINEAR, False),
         "nearest": (InterpolationMode.NEAREST, False)}


def main():
    rng = np.random.default_rng(16)
    out = {"torch_version": np.array(torch.__version__), "torchvision_version": np.array(torchvision.__version__)}
    for k, ((H, W), (h, w)) in enumerate(SIZES):
        u8 = rng.integers(0, 256, (3, H, W), dtype=np.uint8)
        f32 = (u8.astype(np.float32) + rng.random((3, H, W), dtype=np.float32)).astype(np.float32)
        out[f"c{k}_u8"], out[f"c{k}_f32"], out[f"c{k}_size"] = u8, f32, np.array([h, w])
        for name, (mode, aa) in MODES.items():
            for tag, arr in (("u8", u8), ("f32", f32)):
                r = F.resize(torch.from_numpy(arr), [h, w], interpolation=mode, antialias=aa)
                out[f"c{k}_{tag}_{name}"] = r.numpy()
    path = pathlib.Path(__file__).with_name("resize_torchvision.npz")
    np.savez_compressed(path, **out)
    print(path, path.stat().st_size, "bytes")


if __name__ == "__main__":
    main()
