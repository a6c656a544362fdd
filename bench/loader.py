"""bench/loader.py: what the training loader costs on top of its stage.

The ImageNet training recipe (augpy.image.imagenet_train: region + DCT-scaled decode of
the random resized crop, flip, ColorJitter, Normalize) over the bench photo set
(bench/photos.py), one epoch at a time, three ways taking turns pass by pass:

  stage       the stage called on the same batches with the same augmentation dicts (each
              image's rng) as the dataset's epoch, prepared beforehand: the same decodes and
              warps, without the loader's machinery
  dataset     augpy.torch.StageDataset(shuffle=True, seed, copy=False): the epoch's
              permutation, the batch dicts with each sample's rng, the stages, the zero-copy
              hand-over to torch (num_workers=0: what each DataLoader worker runs)
  dataset+copy  the same with copy=True (the batch cloned for the consumer)

CPU-ms and wall-ms per image, 1 thread (AUG_NUM_THREADS / --threads). Needs torch (a
DataLoader worker's side only: IterableDataset and from_dlpack). The ratio dataset / stage
is the loader's overhead.

    python bench/loader.py [--photos build/photos] [--n 256] [--batch 64] [--reps 4]
"""
import argparse
import functools
import os
import sys
import time
import warnings

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import benchutil  # noqa: E402
import photos  # noqa: E402

import augpy  # noqa: E402
import augpy.data  # noqa: E402
import augpy.image  # noqa: E402
import augpy.torch  # noqa: E402


class MemorySource:
    """An indexable source of in-memory files (keys 'p000', ...)."""

    def __init__(self, datas):
        self.datas = datas

    def __len__(self):
        return len(self.datas)

    def __getitem__(self, i):
        return self.datas[i], f"p{i:03d}", {"class_index": i % 10}


def _stage(stage):
    return stage


def main():
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    ap = argparse.ArgumentParser()
    ap.add_argument("--photos", default=os.path.join(root, "build", "photos"))
    ap.add_argument("--n", type=int, default=256)
    ap.add_argument("--batch", type=int, default=64)
    ap.add_argument("--reps", type=int, default=4)
    ap.add_argument("--threads", type=int, default=1)
    args = ap.parse_args()
    augpy.set_num_threads(args.threads)
    if not os.path.isdir(os.path.join(args.photos, "jpeg")):
        photos.make(args.photos, args.n, 0)
    datas = photos.load(args.photos, "jpeg", args.n)
    n, b = len(datas), args.batch
    warnings.filterwarnings("ignore", message=".*without set_epoch")  # the same epoch on purpose
    stage = augpy.image.imagenet_train(b, size=224, seed=1, cpu_threads=args.threads)

    # every pass is epoch 1 (the same crops, so the same work for every row)
    source = MemorySource(datas)
    order = augpy.data.epoch_order(n, 1, 1, True)
    prepared = [([datas[i] for i in order[k:k + b]],
                 [(1, 1, augpy.sample_id(source[int(i)][1])) for i in order[k:k + b]]) for k in range(0, n, b)]

    def direct():
        for images, rngs in prepared:
            stage({"image": images, "augmentation": [{"rng": r} for r in rngs]})

    def loader(copy):
        ds = augpy.torch.StageDataset(source, functools.partial(_stage, stage), b, seed=1, shuffle=True, copy=copy)
        ds.set_epoch(1)

        def run():
            for batch in ds:
                if not copy:
                    batch["release"]()

        return run

    runs = {"stage": direct, "dataset": loader(False), "dataset+copy": loader(True)}
    for fn in runs.values():
        fn()  # warm-up
    cpu = {k: float("inf") for k in runs}
    wall = dict(cpu)
    for _ in range(args.reps):
        for k, fn in runs.items():
            c0, w0 = time.process_time(), time.perf_counter()
            fn()
            cpu[k] = min(cpu[k], (time.process_time() - c0) * 1e3 / n)
            wall[k] = min(wall[k], (time.perf_counter() - w0) * 1e3 / n)
    print(f"{n} JPEGs, batches of {b}, {args.threads} thread(s), best of {args.reps} epochs")
    print(f"{'pipeline':<14}{'CPU-ms/img':>12}{'wall-ms/img':>13}{'CPU / stage':>13}")
    for k in runs:
        print(f"{k:<14}{cpu[k]:12.3f}{wall[k]:13.3f}{cpu[k] / cpu['stage']:13.3f}")
    # the loader's cost over the stage alone (CPU-ms per image; target: at most 3% more)
    benchutil.record("imagenet recipe through StageDataset(shuffle=True)", args.threads, cpu["dataset"],
                     "the stage alone", cpu["stage"], target=0.97)


if __name__ == "__main__":
    main()
