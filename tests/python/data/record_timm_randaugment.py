"""Records timm's RandAugment pieces (timm.data.auto_augment) into timm_randaugment.npz, the
oracle of tests/python/test_timm_randaugment.py: each op of timm's RandAugment sets at several
magnitudes, its argument by timm's own LEVEL_TO_ARG (the sign fixed: both signs for a signed
op) and its result by timm's own PIL op (NAME_TO_OP, fill (128, 128, 128), bilinear) on a
uint8 RGB crop of augpy's sample photo; and what rand_augment_transform makes of a set of
config strings (its ops, their prob / magnitude / magnitude_std / magnitude_max, num_layers
and choice weights).

Needs timm and Pillow, which `make test` does not install. Run it from the repository root
with the peers venv, .venv-peers (`make bench-peers` creates it with the Makefile's pinned
PEER_DEPS); it expects torch==2.15.0 (timm imports it) and timm==1.0.31 and refuses to record
with other versions (peer_versions.py):
    .venv-peers/bin/python tests/python/data/record_timm_randaugment.py
Keys: u8 (3, 24, 32); op<i>_name, op<i>_magnitude, op<i>_negated, op<i>_args (JSON list), op<i>_out;
config<i> (the string), config<i>_made (JSON: names, prob, magnitude, magnitude_std,
magnitude_max, num_layers, weights or null); posterize0_<name>_<magnitude>: where Pillow refused 0 bits.
Recorded with Pillow 13.0.0 (the PIL ops are the reference; Pillow-SIMD may differ by 1)."""

from peer_versions import check_peers  # this folder's helper: the Makefile's pinned peer versions

check_peers(__doc__, "torch", "timm")  # before importing them

import json
import pathlib
import random
from unittest import mock

import numpy as np
from PIL import Image
import timm.data.auto_augment as ta

HERE = pathlib.Path(__file__).parent
SAMPLE = HERE.parents[2] / "python" / "augpy" / "samples" / "sample_00.jpg"
CONFIGS = ["rand-m9-mstd0.5-inc1", "rand-m9-mstd0.5", "rand-m7-n3-p0.8", "rand-m10-n1-mstd101-inc1",
           "rand-m9-mstd1-tweights", "rand-m15-mmax20-n2", "rand-inc1", "rand-m6-p1.0-mstd0.3-inc0"]


def main():
    photo = Image.open(SAMPLE).convert("RGB")
    w, h = photo.size
    crop = photo.crop((w // 2 - 16, h // 2 - 12, w // 2 + 16, h // 2 + 12))
    out = {"u8": np.ascontiguousarray(np.asarray(crop).transpose(2, 0, 1))}
    hparams = dict(ta._HPARAMS_DEFAULT, translate_pct=0.45)
    names = sorted(set(ta._RAND_TRANSFORMS) | set(ta._RAND_INCREASING_TRANSFORMS))
    i = 0
    for name in names:
        level_fn = ta.LEVEL_TO_ARG[name]
        for magnitude in (0.0, 3.0, 5.5, 9.0, 10.0):
            for draw in (0.0, 0.9):  # random.random() in _randomly_negate: 0.9 negates
                with mock.patch.object(random, "random", return_value=draw):
                    args = level_fn(magnitude, hparams) if level_fn is not None else ()
                if i and args == tuple(json.loads(str(out[f"op{i - 1}_args"]))) and \
                        str(out[f"op{i - 1}_name"]) == name:
                    continue  # an unsigned op: one draw
                try:
                    img = ta.NAME_TO_OP[name](crop, *args, fillcolor=(128, 128, 128), resample=Image.BILINEAR)
                except ValueError:  # Pillow >= 10's posterize refuses 0 bits (timm's Posterize below m 2.5)
                    assert name.startswith("Posterize") and args == (0,), (name, args)
                    out[f"posterize0_{name}_{magnitude:g}"] = np.array(1)
                    continue
                out[f"op{i}_name"], out[f"op{i}_magnitude"] = np.array(name), np.float64(magnitude)
                out[f"op{i}_args"] = np.array(json.dumps(list(args)))
                out[f"op{i}_negated"] = np.bool_(draw > 0.5)  # what _randomly_negate was told
                out[f"op{i}_out"] = np.ascontiguousarray(np.asarray(img).transpose(2, 0, 1))
                i += 1
    for k, config in enumerate(CONFIGS):
        ra = ta.rand_augment_transform(config, dict(ta._HPARAMS_DEFAULT))
        op = ra.ops[0]
        made = dict(names=[o.name for o in ra.ops], prob=op.prob, magnitude=op.magnitude,
                    magnitude_std=op.magnitude_std, magnitude_max=op.magnitude_max, num_layers=ra.num_layers,
                    weights=None if ra.choice_weights is None else list(map(float, ra.choice_weights)))
        out[f"config{k}"], out[f"config{k}_made"] = np.array(config), np.array(json.dumps(made))
    np.savez_compressed(HERE / "timm_randaugment.npz", **out)
    print(f"wrote {HERE / 'timm_randaugment.npz'}: {i} op results, {len(CONFIGS)} configs")


if __name__ == "__main__":
    main()
