#!/usr/bin/env python3
"""scripts/policy_grid.py [OUT]: draws docs/policy_ops.png, one photo (augpy's sample) under each
op of RandAugment's space at magnitude bin 9 of 31 (the sign +), through
augpy.image.apply_policy, in a grid of 3 x 5 tiles with the op's name under each.

Run it with augpy importable (PYTHONPATH=BUILD/pkg after scripts/dev_build.sh) and OpenCV
(cv2, in the test venv)."""
import pathlib
import sys

import cv2
import numpy as np

import augpy
from augpy import _policies

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
        tile = np.full((TILE + 22, TILE, 3), 255, np.uint8)
        tile[:TILE] = img
        label = op if table is None else f"{op} {m:g}"
        cv2.putText(tile, label, (4, TILE + 16), cv2.FONT_HERSHEY_SIMPLEX, 0.36, (0, 0, 0), 1, cv2.LINE_AA)
        tiles.append(tile)
    rows = [np.concatenate(tiles[i:i + 5], 1) for i in range(0, len(tiles), 5)]
    grid = np.concatenate(rows, 0)
    cv2.imwrite(str(out), np.ascontiguousarray(grid[:, :, ::-1]), [cv2.IMWRITE_PNG_COMPRESSION, 9])
    print(f"wrote {out}: {grid.shape[1]} x {grid.shape[0]}")


if __name__ == "__main__":
    main(*(pathlib.Path(a) for a in sys.argv[1:]))
