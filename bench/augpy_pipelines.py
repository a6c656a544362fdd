"""bench/augpy_pipelines.py: augpy's side of bench/pipelines.py's recipes.

runner(recipe, batch, threads) returns run(datas, seeds) -> the batch tensor, drawing the
same parameter distributions as the peers (bench/pipelines.py) from numpy generators seeded
per image, with `threads` decoder threads and `threads` pool threads for the batch ops.
"""
import time

import numpy as np

import augpy
from augpy.image import DecodeWarp, Lighting, RandAugment, imagenet_train, timm_train

SIZE = 224


class StageClock:
    """Process CPU time per stage: clock(name) charges the time since the last call to name
    (bench/pipelines.py --stages); a clock of None does nothing."""

    def __init__(self, totals):
        self.totals, self.t = totals, time.process_time()

    def __call__(self, name):
        if self.totals is not None:
            t = time.process_time()
            self.totals[name] = self.totals.get(name, 0.0) + t - self.t
            self.t = t


def seed_runner(batch, threads, timings=None):
    """timings: a dict that gets the CPU seconds of each stage added (None: not measured)."""
    dw = DecodeWarp(batch, (3, SIZE, SIZE), cpu_threads=threads, num_buffers=2)
    light = Lighting(batch)
    rng = augpy.RandomNumberGenerator(seed=1)

    def run(datas, seeds):
        clock = StageClock(timings)
        augs, lights, sigmas = [], [], []
        for s in seeds:
            r = np.random.default_rng(s)
            angle, scale, mirror = r.uniform(-20, 20), r.uniform(0.9, 1.2), r.random() < 0.5
            contrast, gamma, sigma = r.uniform(-0.3, 0.3), r.uniform(0.8, 1.25), r.uniform(0.5, 1.5)
            augs.append({"angle": angle, "scale": scale, "hmirror": mirror, "max_supersampling": 1})
            lights.append({"contrast": contrast, "gamma_gray": gamma})
            sigmas.append(sigma)
        clock("parameters")
        out = dw({"image": datas, "augmentation": augs})["image"]
        clock("decode + warp")
        light({"image": out, "augmentation": lights})
        clock("lighting")
        augpy.gaussian_blur(out, np.asarray(sigmas, np.float32), 9, out=out)
        clock("blur")
        out = rng.gaussian_noise(out, std=8.0, out=out)  # fused: draw, scale, add, saturate
        clock("noise")
        return out

    return run


class _Batch:
    """An indexable source over the batch run() was given (keys 'b<pass>_<i>')."""

    def __init__(self):
        self.datas, self.tag = [], 0

    def __len__(self):
        return len(self.datas)

    def __getitem__(self, i):
        return self.datas[i], f"b{self.tag}_{i}", {"class_index": 0}


def _same(stage):
    return stage


def imagenet_runner(batch, threads):
    """augpy.image.imagenet_train: region + DCT-scaled decode of the random resized crop, one
    warp with the flip, ColorJitter(0.4, 0.4, 0.4, 0.1) in random order, Normalize to float32
    NCHW; the stage draws its own parameters with the same distributions (the seed model).
    As a user trains with it: through augpy.torch.StageDataset (shuffle=True, a new epoch per
    call, the zero-copy hand-over a DataLoader worker makes) when torch is importable (the
    bench-peers venv has it), else the stage alone."""
    stage = imagenet_train(batch, size=SIZE, cpu_threads=threads, seed=1)
    try:
        import augpy.torch
    except ImportError:
        def run(datas, seeds):
            return stage({"image": datas})["image"]

        return run
    import functools
    source = _Batch()
    ds = augpy.torch.StageDataset(source, functools.partial(_same, stage), batch, seed=1, shuffle=True, copy=False)

    def run(datas, seeds):
        source.datas, source.tag = datas, source.tag + 1
        ds.set_epoch(source.tag)
        out = next(iter(ds))
        out["release"]()
        return out["image"]

    return run


def timm_runner(batch, threads):
    """augpy.image.timm_train, DeiT's recipe: RRC 224 + flip + 'rand-m9-mstd0.5-inc1' + Normalize +
    RandomErasing(0.25, 'pixel') + timm's Mixup (mixup 0.8, cutmix 1.0, switch 0.5, label smoothing
    0.1, 1000 classes), labels from the metadata as StageDataset gives them."""
    stage = timm_train(batch, size=SIZE, cpu_threads=threads, seed=1,
                       mixup=dict(mixup_alpha=0.8, cutmix_alpha=1.0, label_smoothing=0.1, num_classes=1000))

    def run(datas, seeds):
        out = stage({"image": datas, "metadata": [{"class_index": s % 1000} for s in seeds]})
        return out["image"], out["target"]

    return run


def randaugment_runner(batch, threads):
    """The RandAugment row beside DALI's auto_aug.rand_augment: augpy.image.timm_train (RRC 224 +
    flip + Normalize) with torchvision's RandAugment(2 ops, magnitude 9 of 31, bilinear, fill 128)
    as its policy, no erasing and no mixing."""
    stage = timm_train(batch, size=SIZE, cpu_threads=threads, seed=1, re_prob=0, mixup=None,
                       auto_augment=RandAugment(2, 9, interpolation="bilinear", fill=128, seed=1))

    def run(datas, seeds):
        return stage({"image": datas})["image"]

    return run


def runner(recipe, batch, threads):
    """run(datas, seeds) on `threads` threads; it sets augpy's pool size per call, so runners
    for different thread counts can take turns."""
    make = {"seed": seed_runner, "imagenet": imagenet_runner, "timm": timm_runner,
            "randaugment": randaugment_runner}.get(recipe)
    if make is None:
        raise ValueError(f"augpy_pipelines: unknown recipe {recipe!r}")
    run = make(batch, threads)

    def run_on_threads(datas, seeds):
        augpy.set_num_threads(threads)
        return run(datas, seeds)

    return run_on_threads
