"""Records timm's three-augment pieces (timm.data.auto_augment) into timm_3a.npz, the oracle of
tests/python/test_timm_3a.py: timm's Desaturate and GaussianBlur ops (NAME_TO_OP: PIL's
ImageEnhance.Color and ImageFilter.GaussianBlur) at several arguments on uint8 RGB crops of
augpy's sample photo and on a noise image, their LEVEL_TO_ARG values at several magnitudes, what
rand_augment_transform makes of the 't3a' / 't3aw' config strings and auto_augment_transform of
'3a' / '3a-mstd0.5' (op names, prob, magnitude, magnitude_std, num_layers, weights), and 6000
draws of timm's own AutoAugment('3a') (random seeded; the sub-policy each call ran and, for the
blur, the radius it gave PIL).

Needs timm and Pillow, which `make test` does not install. Run it from the repository root
with the peers venv, .venv-peers (`make bench-peers` creates it with the Makefile's pinned
PEER_DEPS); it expects torch==2.15.0 (timm imports it) and timm==1.0.31 and refuses to record
with other versions (peer_versions.py):
    .venv-peers/bin/python tests/python/data/record_timm_3a.py
Recorded with Pillow 13.0.0 (the PIL ops are the reference; Pillow-SIMD may differ)."""

from peer_versions import check_peers  # this folder's helper: the Makefile's pinned peer versions

check_peers(__doc__, "torch", "timm")  # before importing them

import json
import pathlib
import random
from unittest import mock

import numpy as np
from PIL import Image, ImageFilter
import timm.data.auto_augment as ta

HERE = pathlib.Path(__file__).parent
SAMPLE = HERE.parents[2] / "python" / "augpy" / "samples" / "sample_00.jpg"
RA_CONFIGS = ["rand-m9-t3a", "rand-m9-mstd0.5-inc1-t3a", "rand-m9-n2-t3aw", "rand-m7-n3-p1.0-mstd0.5-t3aw"]
AA_CONFIGS = ["3a", "3a-mstd0.5"]


def chw(img):
    a = np.asarray(img)
    return np.ascontiguousarray(a[None] if a.ndim == 2 else a.transpose(2, 0, 1))


def main():
    photo = Image.open(SAMPLE).convert("RGB")
    w, h = photo.size
    crop = photo.crop((w // 2 - 16, h // 2 - 12, w // 2 + 16, h // 2 + 12))
    noise = Image.fromarray(np.random.default_rng(3).integers(0, 256, (17, 23, 3), dtype=np.uint8))
    out = {"photo": chw(crop), "noise": chw(noise)}
    i = 0
    for src in ("photo", "noise"):
        img = crop if src == "photo" else noise
        for name, args in (("Desaturate", (0.5, 0.62, 0.75, 0.95, 1.0)),
                           ("GaussianBlur", (0.1, 0.25, 0.3, 0.577, 1.0, 1.33, 1.81, 2.0))):
            for arg in args:
                out[f"op{i}_src"], out[f"op{i}_name"] = np.array(src), np.array(name)
                out[f"op{i}_arg"] = np.float64(arg)
                out[f"op{i}_out"] = chw(ta.NAME_TO_OP[name](img, arg))
                i += 1
    levels = []
    for name in ("Desaturate", "GaussianBlur", "GaussianBlurRand"):
        for m in (0.0, 2.5, 5.0, 9.0, 10.0):
            levels.append([name, m, ta.LEVEL_TO_ARG[name](m, {})[0]])
    out["levels"] = np.array(json.dumps(levels))
    for k, config in enumerate(RA_CONFIGS):
        ra = ta.rand_augment_transform(config, dict(ta._HPARAMS_DEFAULT))
        op = ra.ops[0]
        made = dict(names=[o.name for o in ra.ops], prob=op.prob, magnitude=op.magnitude,
                    magnitude_std=op.magnitude_std, magnitude_max=op.magnitude_max, num_layers=ra.num_layers,
                    weights=None if ra.choice_weights is None else list(map(float, ra.choice_weights)))
        out[f"ra{k}"], out[f"ra{k}_made"] = np.array(config), np.array(json.dumps(made))
    for k, config in enumerate(AA_CONFIGS):
        aa = ta.auto_augment_transform(config, dict(ta._HPARAMS_DEFAULT))
        made = [[[o.name, o.prob, o.magnitude, o.magnitude_std] for o in sub] for sub in aa.policy]
        out[f"aa{k}"], out[f"aa{k}_made"] = np.array(config), np.array(json.dumps(made))
    # timm's own draws: which sub-policy ran, and the radius GaussianBlurRand gave PIL
    aa = ta.auto_augment_transform("3a", dict(ta._HPARAMS_DEFAULT))
    tiny = Image.new("RGB", (4, 4))
    ran, radii = [], []
    real_blur = ImageFilter.GaussianBlur

    def spy(radius=2):
        radii.append(radius)
        return real_blur(radius)
    names = [sub[0].name for sub in aa.policy]
    random.seed(20261129)
    with mock.patch.object(ta.ImageFilter, "GaussianBlur", spy):
        for _ in range(6000):
            chosen = []
            with mock.patch.object(ta.AugmentOp, "__call__", autospec=True,
                                   side_effect=lambda op, img: chosen.append(op.name) or
                                   ta.NAME_TO_OP[op.name](img, *op.level_fn(op.magnitude, op.hparams))):
                aa(tiny)
            ran.append(names.index(chosen[0]))
    out["aa_choices"], out["aa_blur_radii"] = np.array(ran, np.uint8), np.array(radii, np.float32)
    np.savez_compressed(HERE / "timm_3a.npz", **out)
    print(f"wrote {HERE / 'timm_3a.npz'}: {i} op results, {len(RA_CONFIGS) + len(AA_CONFIGS)} configs, "
          f"{len(ran)} draws")


if __name__ == "__main__":
    main()
