"""Records torchvision's own results of the auto-augment policies' per-image colour ops
(torchvision.transforms.v2.functional on CPU tensors: invert, posterize, solarize, equalize,
autocontrast, adjust_sharpness) into torchvision_tone.npz, the oracle of tests/python/test_tone_torchvision.py.

Needs torch and torchvision, which `make test` does not install. Run it from the repository root
with the peers venv, .venv-peers (`make bench-peers` creates it with the Makefile's pinned
PEER_DEPS); it expects torch==2.15.0 and torchvision==0.29.2 and refuses to record with other
versions (peer_versions.py):
    .venv-peers/bin/python tests/python/data/record_torchvision_tone.py
The inputs are made here (a crop of augpy's sample photo, seeded NumPy draws, a flat image, a
two-value image, every gray level, and float32 images) and stored beside the outputs. Keys:
u8 (4, 3, 24, 32) uint8 and f32 (2, 3, 16, 24) float32 inputs; <op>_<dtype>_<param index>
outputs with the parameter lists <op>_params."""

from peer_versions import check_peers  # this folder's helper: the Makefile's pinned peer versions

check_peers(__doc__, "torch", "torchvision")  # before importing them

import pathlib

import numpy as np
import torch
import torchvision.transforms.v2.functional as F
from PIL import Image

HERE = pathlib.Path(__file__).parent
SAMPLE = HERE.parents[2] / "python" / "augpy" / "samples" / "sample_00.jpg"

PARAMS = {"invert": [None],
          "posterize": [0, 1, 2, 4, 5, 7, 8],
          "solarize_u8": [0.0, 1.0, 64.0, 127.5, 128.0, 200.0, 255.0],
          "solarize_f32": [0.0, 0.1, 0.3, 0.5, 0.75, 1.0],
          "equalize": [None],
          "autocontrast": [None],
          "sharpness": [0.0, 0.1, 0.5, 1.0, 1.7, 2.0, 5.0]}


def inputs():
    rng = np.random.default_rng(20261129)
    photo = np.asarray(Image.open(SAMPLE).convert("RGB"))
    y, x = photo.shape[0] // 2 - 12, photo.shape[1] // 2 - 16
    crop = photo[y:y + 24, x:x + 32].transpose(2, 0, 1)
    rand = rng.integers(0, 256, (3, 24, 32), dtype=np.uint8)
    # channel 0 flat (autocontrast's min == max), channel 1 two values, channel 2 every gray
    special = np.stack([np.full((24, 32), 77, np.uint8),
                        np.where(rng.random((24, 32)) < 0.3, 10, 200).astype(np.uint8),
                        np.resize(np.arange(256, dtype=np.uint8), (24, 32))])
    smooth = np.clip(rng.normal(128, 20, (3, 24, 32)), 0, 255).astype(np.uint8)  # a narrow range
    u8 = np.stack([crop, rand, special, smooth])
    f32 = np.stack([(crop[:, :16, :24] / np.float32(255)).astype(np.float32),
                    (rng.random((3, 16, 24), dtype=np.float32) * 0.6 + 0.2).astype(np.float32)])
    return u8, f32


def run(op, image, p):
    t = torch.from_numpy(image)
    if op == "invert":
        return F.invert(t)
    if op == "posterize":
        return F.posterize(t, p)
    if op.startswith("solarize"):
        return F.solarize(t, p)
    if op == "equalize":
        return F.equalize(t)
    if op == "autocontrast":
        return F.autocontrast(t)
    return F.adjust_sharpness(t, p)


def main():
    torch.set_num_threads(1)
    u8, f32 = inputs()
    out = {"u8": u8, "f32": f32}
    for op, params in PARAMS.items():
        out[f"{op}_params"] = np.array([np.nan if p is None else p for p in params], np.float64)
        for dname, images in (("u8", u8), ("f32", f32)):
            if op == "solarize_u8" and dname == "f32" or op == "solarize_f32" and dname == "u8":
                continue
            for i, p in enumerate(params):
                try:
                    res = np.stack([run(op, im, p).numpy() for im in images])
                except Exception as e:  # noqa: BLE001 - an op torchvision refuses for this dtype
                    print(f"{op} {dname} {p}: torchvision refuses: {e}")
                    break
                out[f"{op}_{dname}_{i}"] = res
    np.savez_compressed(HERE / "torchvision_tone.npz", **out)
    print(f"wrote {HERE / 'torchvision_tone.npz'}: {len(out)} arrays")


if __name__ == "__main__":
    main()
