#!/usr/bin/env python3
"""scripts/policy_grid.py [OUT]: draws docs/policy_ops.png, one photo (augpy's sample) under each
op of RandAugment's space at magnitude bin 9 of 31 (the sign +), through
augpy.image.apply_policy, in a grid of 3 x 5 tiles with the op's name under each; below it, the
ops of timm's RandAugment ('rand-m9-mstd0.5-inc1': its increasing set, then the '3a' set's
Desaturate and GaussianBlur) at magnitude 9 (the sign +), through augpy.image.apply_timm_policy,
each tile labelled with timm's op name ('Inc' for Increasing) and argument.

Run it with augpy importable (PYTHONPATH=BUILD/pkg after scripts/dev_build.sh) and OpenCV
(cv2, in the test venv)."""
import pathlib
import sys

import cv2
import numpy as np

import augpy
from augpy import _policies, _timm

ROOT = pathlib.Path(__file__).resolve().parent.parent
TILE = 128


def main(out=ROOT / "docs" / "policy_ops.png"):
    photo = cv2.imread(str(ROOT / "python" / "augpy" / "samples" / "sample_00.jpg"))[:, :, ::-1]
    h, w = photo.shape[:2]
    s = min(h, w)
    photo = cv2.resize(photo[(h - s) // 2:(h + s) // 2, (w - s) // 2:(w + s) // 2], (TILE, TILE),
                       interpolation=cv2.INTER_AREA)
    chw = np.ascontiguousarray(photo.transpose(2, 0, 1))
    tiles = []
    for op in _policies.OPS:
        table = _policies.RAND_AUGMENT.get(op, (None, False))[0]
        m = float(table(31, TILE, TILE)[9]) if table is not None else 0.0
        img = augpy.tensor_to_array(augpy.image.apply_policy(chw, [(op, m)])).transpose(1, 2, 0)
        tiles.append(_tile(img, op if table is None else f"{op} {m:g}"))
    timm_tiles = []
    for op in _timm.RAND_INCREASING_TRANSFORMS + ("Desaturate", "GaussianBlur"):
        arg = _timm.level_arg(op, 9.0, False, {"translate_pct": 0.45})
        img = augpy.tensor_to_array(augpy.image.apply_timm_policy(chw, [(op, arg)])).transpose(1, 2, 0)
        name = op.replace("Increasing", "Inc")
        timm_tiles.append(_tile(img, name if arg is None else f"{name} {arg:.3g}"))
    grid = np.concatenate([_banner("torchvision's RandAugment, bin 9 of 31 (augpy.image.RandAugment)"), _rows(tiles),
                           _banner("timm's RandAugment, m9, inc1 set + '3a' ops (augpy.image.rand_augment_transform)"),
                           _rows(timm_tiles)], 0)
    cv2.imwrite(str(out), np.ascontiguousarray(grid[:, :, ::-1]), [cv2.IMWRITE_PNG_COMPRESSION, 9])
    print(f"wrote {out}: {grid.shape[1]} x {grid.shape[0]}")


def _tile(img, label):
    tile = np.full((TILE + 22, TILE, 3), 255, np.uint8)
    tile[:TILE] = img
    cv2.putText(tile, label, (4, TILE + 16), cv2.FONT_HERSHEY_SIMPLEX, 0.36, (0, 0, 0), 1, cv2.LINE_AA)
    return tile


def _rows(tiles, per_row=5):
    """The tiles in rows of per_row, the last row filled with white."""
    blank = np.full_like(tiles[0], 255)
    tiles = tiles + [blank] * (-len(tiles) % per_row)
    return np.concatenate([np.concatenate(tiles[i:i + per_row], 1) for i in range(0, len(tiles), per_row)], 0)


def _banner(text, width=5 * TILE):
    band = np.full((24, width, 3), 255, np.uint8)
    cv2.putText(band, text, (4, 17), cv2.FONT_HERSHEY_SIMPLEX, 0.42, (0, 0, 0), 1, cv2.LINE_AA)
    return band


if __name__ == "__main__":
    main(*(pathlib.Path(a) for a in sys.argv[1:]))
