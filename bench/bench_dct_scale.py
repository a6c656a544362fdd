"""bench/bench_dct_scale.py: DecodeWarp's DCT-scaled region decodes (dct_scale) against full decodes.

32 JPEGs (480x640, quality 90, 4:2:0, generated as bench_pipeline.py does) are decoded and
warped to 3x224x224 uint8 with random rotations/scales, one decoder thread:

- full decode, s = 1 (dct_scale=False, max_supersampling=1): the baseline "s=1 time"
- full decode, s from make_transform (dct_scale=False, antialiased, max_supersampling=3)
- the default: DCT-scaled region decode, s recomputed for it (antialiased, max 3)
- the DCT-scaled region decode with s = 1
plus ImageNetTrain / ImageNetEval (one thread). Quality: the mean absolute difference of each
case's pixels from a reference warp of the full decode with s = 8 (64 bilinear samples per pixel).

Times are CPU time of the process (all work runs in one thread), best of --repeat rounds
with the cases interleaved: the development machine is shared and its wall times vary 2x.

    python bench/bench_dct_scale.py [--repeat 15]
"""
import argparse
import time

import numpy as np

import benchutil  # bench/benchutil.py
from bench_pipeline import BATCH, make_jpegs

import augpy
from augpy.image import DecodeWarp, ImageNetEval, ImageNetTrain


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=15)
    args = ap.parse_args()
    augpy.set_num_threads(1)
    data = make_jpegs(BATCH)
    rng = np.random.default_rng(1)
    params = [{"angle": float(rng.uniform(-20, 20)), "scale": float(rng.uniform(0.9, 1.2)),
               "hmirror": bool(rng.random() < 0.5)} for _ in range(BATCH)]
    ref = np.zeros((BATCH, 3, 224, 224))
    dec = augpy.Decoder()
    for i, (d, p) in enumerate(zip(data, params)):
        img = dec.decode(d)
        m, _ = augpy.make_transform(img.shape[:2], (224, 224), **p)
        dst = augpy.zeros((3, 224, 224), augpy.uint8)
        augpy.warp_affine(img, dst, m, None, 8)
        ref[i] = dst.numpy()

    dws = {}

    def job(dct, max_ss):
        p = [dict(q, max_supersampling=max_ss) for q in params]
        if (dct, max_ss) not in dws:
            dws[(dct, max_ss)] = DecodeWarp(BATCH, (3, 224, 224), dct_scale=dct)
        dw = dws[(dct, max_ss)]
        return lambda: dw({"image": data, "augmentation": p})

    cases = [("full decode, s=1 (baseline)", False, 1), ("full decode, antialiased (max_supersampling=3)", False, 3),
             ("DEFAULT: DCT-scaled region decode, antialiased", None, 3), ("DCT-scaled region decode, s=1", None, 1)]
    stages = [("ImageNetTrain (RRC + flip)", ImageNetTrain(BATCH, seed=0)),
              ("ImageNetEval (resize 256 + centre crop 224)", ImageNetEval(BATCH))]
    fns = [job(dct, ss) for _, dct, ss in cases] + [(lambda st=st: st({"image": data})) for _, st in stages]
    # The machine is shared: CPU time of this process (one thread does all the work), the
    # best of `repeat` rounds, the cases interleaved within each round.
    best = [float("inf")] * len(fns)
    for fn in fns:
        fn()
    for _ in range(args.repeat):
        for i, fn in enumerate(fns):
            t0 = time.process_time()
            fn()
            best[i] = min(best[i], time.process_time() - t0)
    outs = [job(dct, ss)()["image"].numpy().astype(np.float64) for _, dct, ss in cases]
    t1 = best[0]
    print(f"{'case (1 thread, 32 x 480x640 -> 224x224)':<50}{'images/s':>10}{'time / s=1':>12}{'MAE vs s=8':>12}")
    for (name, _, _), t, out in zip(cases, best, outs):
        mae = np.abs(out - ref).mean()
        print(f"{name:<50}{BATCH / t:10.1f}{t / t1:11.2f}x{mae:12.2f}")
        benchutil.record(f"DecodeWarp {name}", 1, BATCH / t, "full decode, s=1", BATCH / t1,
                         1 / 1.3 if name.startswith("DEFAULT") else None, unit="images/s")
    for (name, stage), t in zip(stages, best[len(cases):]):
        print(f"{name:<50}{BATCH / t:10.1f}{t / t1:11.2f}x")
        benchutil.record(name, 1, BATCH / t, "DecodeWarp full decode, s=1", BATCH / t1, None, unit="images/s")
        stage.close()
    for dw in dws.values():
        dw.close()


if __name__ == "__main__":
    main()
