"""Record albumentations' box and keypoint outputs for tests/python/test_targets.py.

Run it from the repository root with the peers venv, .venv-peers (`make bench-peers` creates it
with the Makefile's pinned PEER_DEPS); it expects albumentations==2.0.8 and
opencv-python-headless==5.0.0.93 and refuses to record with other versions (peer_versions.py):
    .venv-peers/bin/python tests/python/data/record_albumentations_targets.py

For each case it stores, under "<case>/<field>": the source and target sizes, the
warp matrix augpy takes (the INVERSE map, output -> source, float64: the inverse
of the forward matrix albumentations warps the image with), the input boxes in
several formats and keypoints (x, y, angle in degrees, scale), the filter
settings, and albumentations' outputs: the kept boxes per format and the kept
input rows (from label fields holding the row numbers), the keypoints with
remove_invisible=True and False. The forward matrix of A.Affine is rebuilt with
albumentations' own create_affine_transformation_matrix and checked by warping
an image with cv2.warpAffine, which must equal A.Affine's output exactly.
"""

from peer_versions import check_peers  # this folder's helper: the Makefile's pinned peer versions

check_peers(__doc__, "albumentations", "opencv-python-headless")  # before importing them

import pathlib

import albumentations as A
import cv2
import numpy as np
from albumentations.augmentations.geometric import functional as fgeometric

OUT = pathlib.Path(__file__).resolve().parent / "albumentations_targets.npz"
H, W = 60, 80
FORMATS = {"pascal_voc": ("xyxy", False), "coco": ("xywh", False), "yolo": ("cxcywh", True),
           "albumentations": ("xyxy", True)}


def convert(xyxy, ours, normalized, h, w):
    b = xyxy.astype(np.float64).copy()
    if normalized:
        b[:, [0, 2]] /= w
        b[:, [1, 3]] /= h
    x0, y0, x1, y1 = b.T
    if ours == "xyxy":
        return np.stack([x0, y0, x1, y1], 1)
    if ours == "xywh":
        return np.stack([x0, y0, x1 - x0, y1 - y0], 1)
    return np.stack([(x0 + x1) / 2, (y0 + y1) / 2, x1 - x0, y1 - y0], 1)


def random_boxes(rng, n, h, w):
    x0 = rng.uniform(0, w - 8, n)
    y0 = rng.uniform(0, h - 8, n)
    x1 = np.minimum(x0 + rng.uniform(4, w / 2, n), w)
    y1 = np.minimum(y0 + rng.uniform(4, h / 2, n), h)
    return np.round(np.stack([x0, y0, x1, y1], 1), 2)


def random_keypoints(rng, n, h, w):
    return np.stack([rng.uniform(0, w - 1, n), rng.uniform(0, h - 1, n), rng.uniform(0, 360, n),
                     rng.uniform(0.5, 3, n)], 1).round(3)


def run(name, transform, forward, out_size, rng, record, min_area=0.0, min_visibility=0.0):
    boxes = random_boxes(rng, 12, H, W)
    kps = random_keypoints(rng, 16, H, W)
    image = rng.integers(0, 256, (H, W, 3), dtype=np.uint8)
    rows = np.arange(len(boxes))
    prefix = f"{name}/"
    for fmt, (ours, normalized) in FORMATS.items():
        inp = convert(boxes, ours, normalized, H, W)
        for remove in (True, False):
            comp = A.Compose([transform],
                             bbox_params=A.BboxParams(format=fmt, label_fields=["rows"], min_area=min_area,
                                                      min_visibility=min_visibility),
                             keypoint_params=A.KeypointParams(format="xyas", label_fields=["kp_rows"],
                                                              remove_invisible=remove, angle_in_degrees=True))
            res = comp(image=image, bboxes=inp, rows=rows, keypoints=kps, kp_rows=np.arange(len(kps)))
            if forward is not None and fmt == "pascal_voc" and remove:
                ref = cv2.warpAffine(image, forward[:2], (out_size[1], out_size[0]), flags=cv2.INTER_LINEAR,
                                     borderMode=cv2.BORDER_CONSTANT, borderValue=0)
                assert np.array_equal(ref, res["image"]), name
            record[prefix + f"kp_out_remove{int(remove)}"] = np.asarray(res["keypoints"], np.float64).reshape(-1, 4)
            record[prefix + f"kp_rows_remove{int(remove)}"] = np.asarray(res["kp_rows"], np.int64)
        record[prefix + f"boxes_in_{fmt}"] = inp
        record[prefix + f"boxes_out_{fmt}"] = np.asarray(res["bboxes"], np.float64).reshape(-1, 4)
        record[prefix + f"rows_{fmt}"] = np.asarray(res["rows"], np.int64)
    record[prefix + "kp_in"] = kps
    record[prefix + "source_size"] = np.array([H, W])
    record[prefix + "target_size"] = np.array(out_size)
    record[prefix + "min_area"] = np.float64(min_area)
    record[prefix + "min_visibility"] = np.float64(min_visibility)
    return boxes


def affine_forward(rotate, scale, tx, ty):
    return fgeometric.create_affine_transformation_matrix(
        translate={"x": tx, "y": ty}, shear={"x": 0.0, "y": 0.0}, scale={"x": scale, "y": scale}, rotate=rotate,
        shift=fgeometric.center((H, W)))


def main():
    rng = np.random.default_rng(20261124)
    record = {}
    cases = []
    for i, (rotate, scale, tx, ty, min_area, min_vis) in enumerate([
            (30.0, 1.0, 0, 0, 0.0, 0.0), (-75.0, 0.8, 5, -3, 0.0, 0.0), (10.0, 1.3, -12, 6, 20.0, 0.0),
            (120.0, 0.7, 10, 10, 0.0, 0.4), (45.0, 1.1, 25, 0, 0.0, 0.0)]):
        fwd = affine_forward(rotate, scale, tx, ty)
        t = A.Affine(rotate=(rotate, rotate), scale=(scale, scale), translate_px={"x": (tx, tx), "y": (ty, ty)},
                     shear=0, fit_output=False, keep_ratio=False, rotate_method="largest_box",
                     border_mode=cv2.BORDER_CONSTANT, fill=0, interpolation=cv2.INTER_LINEAR, p=1.0)
        name = f"affine{i}"
        run(name, t, fwd, (H, W), rng, record, min_area, min_vis)
        cases.append((name, fwd))
    hflip = np.array([[-1.0, 0, W - 1], [0, 1, 0], [0, 0, 1]])
    run("hflip", A.HorizontalFlip(p=1.0), None, (H, W), rng, record)
    cases.append(("hflip", hflip))
    vflip = np.array([[1.0, 0, 0], [0, -1, H - 1], [0, 0, 1]])
    run("vflip", A.VerticalFlip(p=1.0), None, (H, W), rng, record)
    cases.append(("vflip", vflip))
    x0, y0, x1, y1 = 15, 10, 65, 45
    crop = np.array([[1.0, 0, -x0], [0, 1, -y0], [0, 0, 1]])
    run("crop", A.Crop(x_min=x0, y_min=y0, x_max=x1, y_max=y1, p=1.0), None, (y1 - y0, x1 - x0), rng, record,
        min_visibility=0.3)
    cases.append(("crop", crop))
    for name, fwd in cases:
        record[f"{name}/inverse"] = np.linalg.inv(fwd)[:2]
    record["cases"] = np.array([name for name, _ in cases])
    record["albumentations_version"] = np.array(A.__version__)
    np.savez_compressed(OUT, **record)
    print(f"wrote {OUT} ({len(cases)} cases, albumentations {A.__version__})")


if __name__ == "__main__":
    main()
