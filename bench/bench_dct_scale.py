"""bench/bench_dct_scale.py: DecodeWarp's DCT-scaled region decodes (dct_scale) against full decodes.

32 JPEGs (480x640, quality 90, 4:2:0, generated as bench_pipeline.py does) are decoded and
warped to 3x224x224 uint8 with random rotations/scales, one decoder thread:

- full decode, s = 1 (dct_scale=False, max_supersampling=1): the baseline "s=1 time"
- full decode, s from make_transform (dct_scale=False, antialiased, max_supersampling=3)
- the default: DCT-scaled region decode, s recomputed for it (antialiased, max 3)
- the DCT-scaled region decode with s = 1
plus ImageNetTrain / ImageNetEval (one thread). Quality: the mean absolute difference of each
case's pixels from a reference warp of the full decode with s = 8 (64 bilinear samples per pixel).

    python bench/bench_dct_scale.py [--repeat 5]
"""
import argparse

import numpy as np

import benchutil  # bench/benchutil.py
from bench_pipeline import BATCH, make_jpegs

import augpy
from augpy.image import DecodeWarp, ImageNetEval, ImageNetTrain


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    augpy.set_num_threads(1)
    data = make_jpegs(BATCH)
    rng = np.random.default_rng(1)
    params = [{"angle": float(rng.uniform(-20, 20)), "scale": float(rng.uniform(0.9, 1.2)),
               "hmirror": bool(rng.random() < 0.5)} for _ in range(BATCH)]

    def run(dct, max_ss, reps):
        p = [dict(q, max_supersampling=max_ss) for q in params]
        dw = DecodeWarp(BATCH, (3, 224, 224), dct_scale=dct)
        t = benchutil.best_ms(lambda: dw({"image": data, "augmentation": p}), reps) / 1e3
        out = dw({"image": data, "augmentation": p})["image"].numpy().astype(np.float64)
        dw.close()
        return t, out

    t1, _ = run(False, 1, args.repeat)
    ref = np.zeros((BATCH, 3, 224, 224))
    dec = augpy.Decoder()
    for i, (d, p) in enumerate(zip(data, params)):
        img = dec.decode(d)
        m, _ = augpy.make_transform(img.shape[:2], (224, 224), **p)
        dst = augpy.zeros((3, 224, 224), augpy.uint8)
        augpy.warp_affine(img, dst, m, None, 8)
        ref[i] = dst.numpy()
    rows = [("full decode, s=1 (baseline)", t1, run(False, 1, 1)[1]),
            ("full decode, antialiased (max_supersampling=3)", *run(False, 3, args.repeat)),
            ("DEFAULT: DCT-scaled region decode, antialiased", *run(None, 3, args.repeat)),
            ("DCT-scaled region decode, s=1", *run(None, 1, args.repeat))]
    print(f"{'case (1 thread, 32 x 480x640 -> 224x224)':<50}{'images/s':>10}{'time / s=1':>12}{'MAE vs s=8':>12}")
    for name, t, out in rows:
        mae = np.abs(out - ref).mean()
        print(f"{name:<50}{BATCH / t:10.1f}{t / t1:11.2f}x{mae:12.2f}")
        benchutil.record(f"DecodeWarp {name}", 1, BATCH / t, "full decode, s=1", BATCH / t1,
                         1 / 1.3 if name.startswith("DEFAULT") else None, unit="images/s")
    for name, stage in [("ImageNetTrain (RRC + flip)", ImageNetTrain(BATCH, seed=0)),
                        ("ImageNetEval (resize 256 + centre crop 224)", ImageNetEval(BATCH))]:
        t = benchutil.best_ms(lambda: stage({"image": data}), args.repeat) / 1e3
        print(f"{name:<50}{BATCH / t:10.1f}{t / t1:11.2f}x")
        benchutil.record(name, 1, BATCH / t, "DecodeWarp full decode, s=1", BATCH / t1, None, unit="images/s")
        stage.close()


if __name__ == "__main__":
    main()
