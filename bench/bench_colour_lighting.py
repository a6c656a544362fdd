"""bench/bench_colour_lighting.py: ColorJitter + Lighting on a 32 x 3 x 224 x 224 batch, as two passes
(augpy.color_jitter, then augpy.lighting) and fused (augpy.color_jitter with the lighting's parameters,
docs/colour.md), uint8 and float32. ColorJitter(0.4, 0.4, 0.4, 0.1) factors and random orders from
color_jitter_params; per-image gammas in [0.5, 2] and contrasts in [-1, 1]; also the jitter with only
brightness + contrast (the fused lighting then composes into the jitter's table) and the lighting alone.

CPU time (time.process_time) per image, one thread (augpy.set_num_threads(1)), best of REPS runs; the
machine may be shared. Checks that the fused and the two-pass results have the same bytes.

    OPENBLAS_NUM_THREADS=1 PYTHONPATH=<augpy> python bench/bench_colour_lighting.py
"""

import numpy as np

import benchutil  # bench/benchutil.py (the script's folder is on sys.path)

import augpy

REPS = 5
N = 32


def cpu_ms(fn, reps=REPS):
    return benchutil.best_cpu_ms(fn, reps)


def main():
    augpy.set_num_threads(1)
    rng = np.random.default_rng(0)
    p = augpy.color_jitter_params(augpy.RandomNumberGenerator(seed=1), N, 0.4, 0.4, 0.4, 0.1)
    bc = dict(p, saturation=None, hue=None)
    light = {"gammagrays": rng.uniform(0.5, 2.0, N).astype(np.float32),
             "gammacolors": rng.uniform(0.5, 2.0, (N, 3)).astype(np.float32),
             "contrasts": rng.uniform(-1.0, 1.0, N).astype(np.float32)}
    print(f"ColorJitter + Lighting, {N}x3x224x224, CPU ms per image, 1 thread (best of {REPS})")
    for dtype, vmax in ((np.uint8, 255), (np.float32, 1.0)):
        x = rng.integers(0, 256, (N, 3, 224, 224), dtype=np.uint8)
        if dtype == np.float32:
            x = rng.random((N, 3, 224, 224), dtype=np.float32)
        t = augpy.array_to_tensor(x)
        out = augpy.empty_like(t)
        lt = [augpy.array_to_tensor(np.ascontiguousarray(light[k]).reshape(-1))
              for k in ("gammagrays", "gammacolors", "contrasts")]
        fused_kw = dict(light, vmin=0, vmax=vmax)

        def two(params):
            augpy.color_jitter(t, out=out, **params)
            augpy.lighting(out, *lt, 0, vmax, out=out)

        def fused(params):
            augpy.color_jitter(t, out=out, **params, **fused_kw)

        for name, params in (("all four steps", p), ("brightness+contrast", bc)):
            two(params)
            want = augpy.tensor_to_array(out).tobytes()
            fused(params)
            assert augpy.tensor_to_array(out).tobytes() == want, "fused != two passes"
            a = cpu_ms(lambda: two(params)) / N
            b = cpu_ms(lambda: fused(params)) / N
            j = cpu_ms(lambda: augpy.color_jitter(t, out=out, **params)) / N
            print(f"  {np.dtype(dtype).name:7s} {name:20s} jitter {j:6.3f}  jitter+lighting {a:6.3f}  "
                  f"fused {b:6.3f}  ({a / b:.2f}x)")
        li = cpu_ms(lambda: augpy.lighting(t, *lt, 0, vmax, out=out)) / N
        print(f"  {np.dtype(dtype).name:7s} lighting alone {li:6.3f}")


if __name__ == "__main__":
    main()
