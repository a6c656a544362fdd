"""Records timm's Mixup (timm.data.mixup) into timm_mixup.npz, the oracle of
tests/python/test_timm_mixup.py: whole calls of timm's Mixup in each mode on a float32 batch,
with what each call drew (the per-batch or per-element lam and CutMix flag, logged from
_params_per_batch / _params_per_elem, and each box from cutmix_bbox_and_lam), the mixed images
and the soft targets; mixup_target on its own for given lams; and rand_bbox's boxes for fixed
lams (for a KS test of augpy's box sampler).

Needs torch and timm, which `make test` does not install. Run it from the repository root
with the peers venv, .venv-peers (`make bench-peers` creates it with the Makefile's pinned
PEER_DEPS); it expects torch==2.15.0 and timm==1.0.31 and refuses to record with other
versions (peer_versions.py):
    .venv-peers/bin/python tests/python/data/record_timm_mixup.py
Keys: images (8, 3, 12, 16) float32, labels (8,); call<i>_params (JSON of Mixup's arguments),
call<i>_records (JSON, per image: {"lam": float, "box": [x1, y1, x2, y2] or null}),
call<i>_images, call<i>_targets; target<i>_lam (float64 scalar, or float32 (8, 1)),
target<i>_smoothing, target<i>_out (num_classes 10); bbox_lam (lams), bbox<k> (int (2000, 4):
x1, y1, x2, y2 of rand_bbox((12, 16), bbox_lam[k]))."""

from peer_versions import check_peers  # this folder's helper: the Makefile's pinned peer versions

check_peers(__doc__, "torch", "timm")  # before importing them

import json
import pathlib

import numpy as np
import torch
import timm.data.mixup as tm

HERE = pathlib.Path(__file__).parent

CALLS = [
    dict(mixup_alpha=0.8, cutmix_alpha=1.0, mode="batch"),
    dict(mixup_alpha=0.8, cutmix_alpha=1.0, mode="pair"),
    dict(mixup_alpha=0.8, cutmix_alpha=1.0, mode="elem"),
    dict(mixup_alpha=0.0, cutmix_alpha=1.0, mode="batch", correct_lam=False),
    dict(mixup_alpha=0.0, cutmix_alpha=1.0, mode="elem", correct_lam=False, label_smoothing=0.0),
    dict(mixup_alpha=0.4, cutmix_alpha=0.0, mode="batch", label_smoothing=0.2),
    dict(mixup_alpha=0.4, cutmix_alpha=0.0, mode="pair", prob=0.6),
    dict(mixup_alpha=1.0, cutmix_minmax=(0.3, 0.8), mode="elem", switch_prob=0.7),
    dict(mixup_alpha=1.0, cutmix_minmax=(0.2, 0.9), mode="batch", switch_prob=1.0),
]


def logged_call(mix, x, target):
    """Mixup(x, target) and its draws as per-image records."""
    log = {"params": [], "boxes": []}
    per_batch, per_elem, bbox = mix._params_per_batch, mix._params_per_elem, tm.cutmix_bbox_and_lam

    def log_batch():
        lam, cut = per_batch()
        log["params"].append((np.array([lam]), np.array([cut])))
        return lam, cut

    def log_elem(n):
        lam, cut = per_elem(n)
        log["params"].append((lam.copy(), cut.copy()))
        return lam, cut

    def log_bbox(*args, **kw):
        (yl, yh, xl, xh), lam = bbox(*args, **kw)
        log["boxes"].append((int(xl), int(yl), int(xh), int(yh), float(lam)))
        return (yl, yh, xl, xh), lam

    mix._params_per_batch, mix._params_per_elem, tm.cutmix_bbox_and_lam = log_batch, log_elem, log_bbox
    try:
        x, t = mix(x, target)
    finally:
        tm.cutmix_bbox_and_lam = bbox
    (lams, cuts), boxes = log["params"][0], iter(log["boxes"])
    records = []
    for lam, cut in zip(lams.tolist(), cuts.tolist()):
        if lam != 1.0 and cut:
            x1, y1, x2, y2, lam = next(boxes)
            records.append({"lam": float(np.float32(lam)) if mix.mode != "batch" else lam, "box": [x1, y1, x2, y2]})
        else:
            records.append({"lam": float(lam), "box": None})
    n = len(target)
    if mix.mode == "batch":
        records = records * n
    elif mix.mode == "pair":
        records = records + records[::-1]
    return x, t, records


def main():
    torch.set_num_threads(1)
    np.random.seed(31)
    images = np.random.default_rng(8).standard_normal((8, 3, 12, 16)).astype(np.float32)
    labels = np.array([3, 1, 4, 1, 5, 9, 2, 6])
    out = {"images": images, "labels": labels}
    i = 0
    for params in CALLS:
        for _ in range(4):
            full = dict(params, num_classes=10)
            x, t, records = logged_call(tm.Mixup(**full), torch.from_numpy(images.copy()), torch.from_numpy(labels))
            out[f"call{i}_params"] = np.array(json.dumps(full))
            out[f"call{i}_records"] = np.array(json.dumps(records))
            out[f"call{i}_images"], out[f"call{i}_targets"] = x.numpy(), t.numpy()
            i += 1
    target = torch.from_numpy(labels)
    for k, (lam, smoothing) in enumerate([(1.0, 0.1), (0.3, 0.1), (0.7312, 0.0), (0.05, 0.25)]):
        out[f"target{k}_lam"], out[f"target{k}_smoothing"] = np.float64(lam), np.float64(smoothing)
        out[f"target{k}_out"] = tm.mixup_target(target, 10, lam, smoothing).numpy()
    lam32 = torch.from_numpy(np.random.default_rng(9).uniform(0, 1, (8, 1)).astype(np.float32))
    out["target4_lam"], out["target4_smoothing"] = lam32.numpy(), np.float64(0.1)
    out["target4_out"] = tm.mixup_target(target, 10, lam32, 0.1).numpy()
    out["bbox_lam"] = np.array([0.2, 0.5, 0.9])
    for k, lam in enumerate(out["bbox_lam"]):
        yl, yh, xl, xh = tm.rand_bbox((12, 16), lam, count=2000)
        out[f"bbox{k}"] = np.stack([xl, yl, xh, yh], 1)
    np.savez_compressed(HERE / "timm_mixup.npz", **out)
    print(f"wrote {HERE / 'timm_mixup.npz'}: {i} calls")


if __name__ == "__main__":
    main()
