"""bench/bench_colour.py: augpy.color_jitter on a 64 x 3 x 224 x 224 uint8 batch (ColorJitter(0.4, 0.4,
0.4, 0.1): per-image factors and a random step order per image, sampled with color_jitter_params)
against torchvision v2 (when torch and torchvision import) doing the same work: per image, the
adjust_* functions in that image's order, which is what ColorJitter does per image.

CPU time (time.process_time) per image, one thread for both (augpy.set_num_threads(1),
torch.set_num_threads(1)), best of REPS runs; the machine may be shared. The torchvision run also
checks that both give the same bytes (uint8 results are bit-exact by design, docs/colour.md).

    python bench/bench_colour.py            # augpy alone
    PYTHONPATH=<augpy> <venv with torch>/bin/python bench/bench_colour.py
"""

import numpy as np

import benchutil  # bench/benchutil.py (the script's folder is on sys.path)

import augpy

REPS = 3
N = 64
STEPS = ["brightness", "contrast", "saturation", "hue"]


def cpu_ms(fn, reps=REPS):
    return benchutil.best_cpu_ms(fn, reps)


def main():
    augpy.set_num_threads(1)
    x = np.random.default_rng(0).integers(0, 256, (N, 3, 224, 224), dtype=np.uint8)
    t = augpy.array_to_tensor(x)
    out = augpy.empty_like(t)
    p = augpy.color_jitter_params(augpy.RandomNumberGenerator(seed=1), N, 0.4, 0.4, 0.4, 0.1)
    print(f"color_jitter, {N}x3x224x224 uint8, CPU ms per image, 1 thread")
    ours = {}
    for name in STEPS:
        ours[name] = cpu_ms(lambda: augpy.color_jitter(t, out=out, **{name: p[name]})) / N
    ours["all"] = cpu_ms(lambda: augpy.color_jitter(t, out=out, **p)) / N
    try:
        import torch
        import torchvision.transforms.v2.functional as F
    except ImportError:
        for k, v in ours.items():
            print(f"  {k:10s} augpy {v:7.3f}")
        return
    torch.set_num_threads(1)
    funcs = {"brightness": F.adjust_brightness, "contrast": F.adjust_contrast,
             "saturation": F.adjust_saturation, "hue": F.adjust_hue}
    xt = torch.from_numpy(x)

    def tv(steps):
        res = []
        for i in range(N):
            o = xt[i]
            for k in p["order"][i]:
                if STEPS[k] in steps:
                    o = funcs[STEPS[k]](o, p[STEPS[k]][i])
            res.append(o)
        return torch.stack(res)

    theirs = {name: cpu_ms(lambda: tv([name]), reps=1) / N for name in STEPS}
    theirs["all"] = cpu_ms(lambda: tv(STEPS), reps=1) / N
    augpy.color_jitter(t, out=out, **p)
    same = np.array_equal(augpy.tensor_to_array(out), tv(STEPS).numpy())
    for k in ours:
        print(f"  {k:10s} augpy {ours[k]:7.3f}  torchvision {theirs[k]:7.3f}  ({theirs[k] / ours[k]:5.1f}x)")
    print("  bit-identical to torchvision:", same)


if __name__ == "__main__":
    main()
