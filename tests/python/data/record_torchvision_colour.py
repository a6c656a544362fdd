"""Records torchvision's own colour results (torchvision.transforms.v2.functional on CPU tensors:
adjust_brightness / contrast / saturation / hue, rgb_to_grayscale, the private _rgb_to_hsv /
_hsv_to_rgb, and ColorJitter's per-image step sequence) into torchvision_colour.npz, the oracle of
tests/python/test_colour.py.

Needs torch and torchvision, which `make test` does not install. Run it from the repository root
with the peers venv, .venv-peers (`make bench-peers` creates it with the Makefile's pinned
PEER_DEPS); it expects torch==2.15.0 and torchvision==0.29.2 and refuses to record with other
versions (peer_versions.py):
    .venv-peers/bin/python tests/python/data/record_torchvision_colour.py
The inputs are made here (seeded NumPy draws, a crop of augpy's sample photo, and hand-picked
pixels: grays, primaries, values at 0 and 255) and stored beside the outputs."""

from peer_versions import check_peers  # this folder's helper: the Makefile's pinned peer versions

check_peers(__doc__, "torch", "torchvision")  # before importing them

import pathlib

import numpy as np
import torch
import torchvision
import torchvision.transforms.v2.functional as F
from torchvision.transforms.v2.functional._color import _hsv_to_rgb, _rgb_to_hsv
from PIL import Image

HERE = pathlib.Path(__file__).parent
SAMPLE = HERE.parents[2] / "python" / "augpy" / "samples" / "sample_00.jpg"

FACTORS = {"brightness": [0.0, 0.37, 0.6, 1.0, 1.23, 1.4, 3.7],
           "contrast": [0.0, 0.41, 0.6, 1.0, 1.17, 1.4, 2.9],
           "saturation": [0.0, 0.33, 0.6, 1.0, 1.29, 1.4, 4.1],
           "hue": [-0.5, -0.31, -0.1, 0.0, 0.037, 0.1, 0.25, 0.5]}
FUNCS = {"brightness": F.adjust_brightness, "contrast": F.adjust_contrast,
         "saturation": F.adjust_saturation, "hue": F.adjust_hue}
STEPS = ["brightness", "contrast", "saturation", "hue"]


def inputs():
    rng = np.random.default_rng(20261124)
    photo = np.asarray(Image.open(SAMPLE).convert("RGB"))
    y, x = photo.shape[0] // 2 - 12, photo.shape[1] // 2 - 16
    crop = photo[y:y + 24, x:x + 32].transpose(2, 0, 1)
    rand = rng.integers(0, 256, (3, 24, 32), dtype=np.uint8)
    # hand-picked pixels: all grays, primaries and secondaries, mixes with 0 and 255
    vals = np.array([0, 1, 63, 64, 127, 128, 191, 255], np.uint8)
    grid = np.stack(np.meshgrid(vals, vals, vals, indexing="ij")).reshape(3, -1)
    gray = np.repeat(np.arange(256, dtype=np.uint8)[None], 3, 0)
    special = np.concatenate([grid, gray], 1).reshape(3, 24, 32)
    smooth = np.clip(rng.normal(128, 30, (3, 24, 32)), 0, 255).astype(np.uint8)
    u8 = np.stack([crop, rand, special, smooth])
    # float32: the photo crop scaled to [0, 1] and uniform floats, 16 x 24 (float data compresses badly)
    f32 = np.stack([(crop[:, :16, :24] / np.float32(255)).astype(np.float32),
                    rng.random((3, 16, 24), dtype=np.float32)])
    return u8, f32


def main():
    torch.set_num_threads(1)
    u8, f32 = inputs()
    out = {"u8": u8, "f32": f32, "torch_version": np.array(torch.__version__),
           "torchvision_version": np.array(torchvision.__version__)}
    for name, fn in FUNCS.items():
        for dt, x in (("u8", u8), ("f32", f32)):
            t = torch.from_numpy(x)
            factors = FACTORS[name] if dt == "u8" else FACTORS[name][1::2]
            out[f"{name}_{dt}_factors"] = np.array(factors, np.float64)
            # the batch per factor (torchvision's contrast mean is per image of a batch)
            out[f"{name}_{dt}"] = np.stack([fn(t, f).numpy() for f in factors])
            # one channel
            out[f"{name}_{dt}_c1"] = np.stack([fn(t[:, :1], f).numpy() for f in factors])
    for dt, x in (("u8", u8), ("f32", f32)):
        t = torch.from_numpy(x)
        out[f"gray1_{dt}"] = F.rgb_to_grayscale(t, 1).numpy()
        out[f"gray3_{dt}"] = F.rgb_to_grayscale(t, 3).numpy()
        out[f"gray1_{dt}_c1"] = F.rgb_to_grayscale(t[:, :1], 1).numpy()
        out[f"gray3_{dt}_c1"] = F.rgb_to_grayscale(t[:, :1], 3).numpy()
    t = torch.from_numpy(f32)
    hsv = _rgb_to_hsv(t)
    out["hsv_f32"] = hsv.numpy()
    out["rgb_from_hsv_f32"] = _hsv_to_rgb(hsv).numpy()
    # ColorJitter's per-image sequences: the jitter batch is 8 images (the inputs repeated),
    # each with its own factors and step order, applied one image at a time as
    # ColorJitter.transform does (F.adjust_* in fn_idx order, a None factor skipped).
    g = torch.Generator().manual_seed(7)
    n = 8
    params = {}
    for name, lo, hi in (("brightness", 0.6, 1.4), ("contrast", 0.6, 1.4), ("saturation", 0.6, 1.4),
                         ("hue", -0.1, 0.1)):
        params[name] = (lo + (hi - lo) * torch.rand(n, generator=g, dtype=torch.float64)).numpy()
    order = np.stack([torch.randperm(4, generator=g).numpy() for _ in range(n)]).astype(np.int32)
    order[0] = [0, 1, 2, 3]
    order[1] = [3, 2, 1, 0]
    skip = np.zeros((n, 4), bool)
    out["jitter_factors"] = np.stack([params[s] for s in STEPS], 1)
    out["jitter_order"] = order
    for dt, x in (("u8", u8), ("f32", f32)):
        batch = np.concatenate([x] * (n // len(x)))
        res = []
        for i in range(n):
            o = torch.from_numpy(batch[i])
            for k in order[i]:
                o = FUNCS[STEPS[k]](o, float(params[STEPS[k]][i]))
            res.append(o.numpy())
        out[f"jitter_{dt}"] = np.stack(res)
        # the same with saturation and hue skipped (None) for every image
        res = []
        for i in range(n):
            o = torch.from_numpy(batch[i])
            for k in order[i]:
                if k < 2:
                    o = FUNCS[STEPS[k]](o, float(params[STEPS[k]][i]))
            res.append(o.numpy())
        out[f"jitter_bc_{dt}"] = np.stack(res)
        # one channel images
        res = []
        for i in range(n):
            o = torch.from_numpy(batch[i, :1])
            for k in order[i]:
                o = FUNCS[STEPS[k]](o, float(params[STEPS[k]][i]))
            res.append(o.numpy())
        out[f"jitter_c1_{dt}"] = np.stack(res)
    np.savez_compressed(HERE / "torchvision_colour.npz", **out)
    print("wrote", HERE / "torchvision_colour.npz", "torch", torch.__version__, "torchvision", torchvision.__version__)


if __name__ == "__main__":
    main()
