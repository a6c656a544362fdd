"""Record albumentations' image, mask, boxes and keypoints through a padded random crop (its
BaseCropAndPad, the base of A.RandomCrop(pad_if_needed=True)) for
tests/python/test_crop_targets.py.

Run it from the repository root with the peers venv, .venv-peers (`make bench-peers` creates it
with the Makefile's pinned PEER_DEPS); it expects albumentations==2.0.8 and
opencv-python-headless==5.0.0.93 (numpy==2.4.6) and refuses to record with other versions
(peer_versions.py). It does not import augpy:
    .venv-peers/bin/python tests/python/data/record_albumentations_crop_targets.py

A.RandomCrop draws its corner and splits pad_if_needed's padding its own way (half before, half
after; torchvision pads the whole difference on both sides), so each case fixes both with a
subclass whose get_params_dependent_on_data returns given pad_params and crop_coords (as the
CustomFixedSizeCrop example of albumentations' BaseCropAndPad docstring): albumentations then pads
(border_mode BORDER_CONSTANT, fill 0, fill_mask 255: augpy's ignore_index) and crops with its own
code. Stored under "<case>/<field>": the inputs, the padding (left, top, right, bottom), the
corner (top, left) in the padded image, the crop size, and the outputs (image, mask, pascal_voc
boxes and their rows, xyas keypoints and their rows, remove_invisible=True).
"""

from peer_versions import check_peers  # this folder's helper: the Makefile's pinned peer versions

check_peers(__doc__, "albumentations", "opencv-python-headless", "numpy")  # before importing them

import pathlib

import albumentations as A
import cv2
import numpy as np
from albumentations.augmentations.crops.transforms import BaseCropAndPad

OUT = pathlib.Path(__file__).resolve().parent / "albumentations_crop_targets.npz"
FILL_MASK = 255


class FixedCropAndPad(BaseCropAndPad):
    """Pad by (left, top, right, bottom), then crop (ch, cw) at (top, left) of the padded image."""

    def __init__(self, padding, corner, size):
        super().__init__(pad_if_needed=True, border_mode=cv2.BORDER_CONSTANT, fill=0, fill_mask=FILL_MASK,
                         pad_position="center", p=1.0)
        self.padding, self.corner, self.size = padding, corner, size

    def get_params_dependent_on_data(self, params, data):
        left, top, right, bottom = self.padding
        y, x = self.corner
        ch, cw = self.size
        pad = {"pad_top": top, "pad_bottom": bottom, "pad_left": left, "pad_right": right}
        return {"crop_coords": (x, y, x + cw, y + ch), "pad_params": pad if any(self.padding) else None}


def main():
    rng = np.random.default_rng(20261129)
    record, names = {}, []
    cases = [((20, 30), (0, 0, 0, 0), (12, 16)),
             ((20, 30), (4, 4, 4, 4), (20, 30)),
             ((14, 11), (3, 6, 5, 2), (18, 16)),
             ((32, 32), (4, 4, 4, 4), (32, 32))]  # the CIFAR recipe
    for i, ((h, w), padding, size) in enumerate(cases):
        left, top, right, bottom = padding
        ph, pw = h + top + bottom, w + left + right
        corner = (int(rng.integers(0, ph - size[0] + 1)), int(rng.integers(0, pw - size[1] + 1)))
        image = rng.integers(0, 256, (h, w, 3)).astype(np.uint8)
        mask = rng.integers(0, 5, (h, w)).astype(np.uint8)
        x0, y0 = rng.uniform(-2, w, 10), rng.uniform(-2, h, 10)
        boxes = np.stack([x0, y0, x0 + rng.uniform(1, w / 2, 10), y0 + rng.uniform(1, h / 2, 10)], 1)
        boxes = np.clip(boxes, 0, [w, h, w, h]).round(2)
        boxes = boxes[(boxes[:, 2] > boxes[:, 0]) & (boxes[:, 3] > boxes[:, 1])]
        kps = np.stack([rng.uniform(0, w - 1e-3, 16), rng.uniform(0, h - 1e-3, 16), rng.uniform(0, 360, 16),
                        rng.uniform(0.5, 3, 16)], 1).round(3)
        comp = A.Compose([FixedCropAndPad(padding, corner, size)],
                         bbox_params=A.BboxParams(format="pascal_voc", label_fields=["rows"]),
                         keypoint_params=A.KeypointParams(format="xyas", label_fields=["kp_rows"],
                                                          remove_invisible=True, angle_in_degrees=True))
        res = comp(image=image, mask=mask, bboxes=boxes, rows=np.arange(len(boxes)), keypoints=kps,
                   kp_rows=np.arange(len(kps)))
        p = f"crop{i}/"
        record[p + "image_in"], record[p + "mask_in"] = image, mask
        record[p + "boxes_in"], record[p + "kp_in"] = boxes, kps
        record[p + "padding"], record[p + "corner"], record[p + "size"] = (np.array(padding), np.array(corner),
                                                                          np.array(size))
        record[p + "image_out"], record[p + "mask_out"] = res["image"], res["mask"]
        record[p + "boxes_out"] = np.asarray(res["bboxes"], np.float64).reshape(-1, 4)
        record[p + "rows"] = np.asarray(res["rows"], np.int64)
        record[p + "kp_out"] = np.asarray(res["keypoints"], np.float64).reshape(-1, 4)
        record[p + "kp_rows"] = np.asarray(res["kp_rows"], np.int64)
        names.append(f"crop{i}")
    record["cases"] = np.array(names)
    record["versions"] = np.array([A.__version__, cv2.__version__, np.__version__])
    np.savez_compressed(OUT, **record)
    print(f"wrote {OUT} ({OUT.stat().st_size} bytes, {len(names)} cases, albumentations {A.__version__})")


if __name__ == "__main__":
    main()
