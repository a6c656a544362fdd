"""augpy.demo: the main job: augment a folder of JPEGs in batches.

``python -m augpy.demo`` (also installed as ``augpy-demo``) reads JPEGs (by default
the small procedural sample set shipped in ``augpy/samples``), draws random
augmentation parameters from ``--seed`` and runs them batch by batch through

    DecodeWarp (decode + rotate/scale/aspect/shift/shear/mirror)
    -> Lighting (gamma, per-channel gamma, contrast)
    -> gaussian_blur (per-image sigma)
    -> Gaussian noise (RandomNumberGenerator + fma, saturating)

It shows a progress bar, prints throughput per stage and writes a contact sheet
(originals beside their augmented versions) as a PNG. The same seed gives the
same output bytes, whatever the thread count.

``--recipe imagenet`` runs the ImageNet training stage instead
(``augpy.image.ImageNetTrain``: RandomResizedCrop + horizontal flip decoded with
DCT-scaled region decodes) and times the evaluation stage (``ImageNetEval``:
resize 256 + centre crop) on the same files; colour jitter and normalisation are
the stages that follow (``transforms=``), not part of this recipe yet.
"""
import argparse
import os
import pathlib
import struct
import sys
import time
import zlib

import numpy as np

import augpy
from augpy.image import DecodeWarp, ImageNetEval, ImageNetTrain, Lighting

SAMPLES = pathlib.Path(__file__).resolve().parent / "samples"
MAX_KSIZE = 9            # blur kernel cap: sigma up to ~1.7 gets its full kernel
SHEET_PAIRS = 8          # original/augmented pairs on the contact sheet
SHEET_COLUMNS = 4        # pairs per row


def parse_args(argv):
    p = argparse.ArgumentParser(prog="augpy-demo", description=__doc__.split("\n\n")[0])
    p.add_argument("input", nargs="?", default=None,
                   help="folder of .jpg/.jpeg/.png/.webp/.tif/.tiff/.avif files (default: augpy's sample set)")
    p.add_argument("--images", type=int, default=64,
                   help="images to process; the inputs are cycled (default 64)")
    p.add_argument("--batch-size", type=int, default=16, help="images per batch (default 16)")
    p.add_argument("--size", type=int, nargs=2, default=(224, 224), metavar=("H", "W"),
                   help="output height and width (default 224 224)")
    p.add_argument("--threads", type=int, default=0,
                   help="decoder threads and CPU worker threads (default: all cores)")
    p.add_argument("--seed", type=int, default=0, help="seed of every random choice (default 0)")
    p.add_argument("--device", default="auto",
                   help="'cpu', 'cuda', 'cuda:N' or 'auto' (the default device; default)")
    p.add_argument("--output", default="out", help="output folder (default out/)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.add_argument("--recipe", choices=("default", "imagenet"), default="default",
                   help="'default': DecodeWarp -> Lighting -> blur -> noise; 'imagenet': ImageNetTrain "
                        "(RandomResizedCrop + flip, DCT-scaled decodes), ImageNetEval timed too")
    args = p.parse_args(argv)
    for name in ("images", "batch_size"):
        if getattr(args, name) < 1:
            p.error(f"--{name.replace('_', '-')} must be at least 1")
    if min(args.size) < 1:
        p.error("--size must be positive")
    if args.threads < 0:
        p.error("--threads must be >= 0")
    return args


def select_device(spec):
    """Activate the device named by spec; returns its name ('cpu' or 'cuda:N')."""
    if spec == "auto":
        return str(augpy.Tensor((1,)).device)
    if spec == "cpu":
        if str(augpy.Tensor((1,)).device) != "cpu":
            raise SystemExit("augpy-demo: this build runs on CUDA by default; use --device auto")
        return "cpu"
    if spec == "cuda" or spec.startswith("cuda:"):
        index = int(spec.partition(":")[2] or 0)
        probe = str(augpy.Tensor((1,)).device)
        if not probe.startswith("cuda"):
            raise SystemExit(f"augpy-demo: device {spec!r} is not available: augpy runs on the CPU here "
                             "(no CUDA build or no GPU)")
        augpy.CudaDevice(index).activate()
        return f"cuda:{index}"
    raise SystemExit(f"augpy-demo: unknown device {spec!r} (use cpu, cuda, cuda:N or auto)")


def list_inputs(folder):
    folder = pathlib.Path(folder) if folder else SAMPLES
    if not folder.is_dir():
        raise SystemExit(f"augpy-demo: input folder {str(folder)!r} does not exist")
    files = sorted(p for p in folder.iterdir() if p.suffix.lower() in augpy.data.IMAGE_EXTENSIONS)
    if not files:
        raise SystemExit(f"augpy-demo: no image files ({' '.join(augpy.data.IMAGE_EXTENSIONS)}) in {str(folder)!r}")
    return files


def random_augmentation(rng):
    """One image's parameters (for DecodeWarp, Lighting, blur and noise)."""
    return {
        "angle": float(rng.uniform(-25, 25)),
        "scale": float(rng.uniform(0.85, 1.3)),
        "aspect": float(np.exp(rng.uniform(-0.2, 0.2))),
        "shift": (float(rng.uniform(-1, 1)), float(rng.uniform(-1, 1))),
        "shear": (float(rng.uniform(-0.15, 0.15)), float(rng.uniform(-0.15, 0.15))),
        "hmirror": bool(rng.random() < 0.5),
        "vmirror": bool(rng.random() < 0.1),
        "gamma_gray": float(np.exp(rng.normal(0, 0.25))),
        "gamma_color": [float(v) for v in np.exp(rng.normal(0, 0.1, 3))],
        "contrast": float(rng.uniform(-0.5, 0.5)),
        "sigma": float(rng.uniform(0.5, 2.0)) if rng.random() < 0.5 else 0.0,
        "noise": float(rng.uniform(0, 12)),
    }


def progress(done, total, start, enabled):
    if not enabled:
        return
    width = 30
    filled = width * done // total
    elapsed = time.perf_counter() - start
    rate = done / elapsed if elapsed > 0 else 0.0
    line = f"[{'#' * filled}{'.' * (width - filled)}] {done}/{total} images {rate:7.1f} img/s"
    if sys.stderr.isatty():  # redraw in place; a log gets one line per batch
        sys.stderr.write("\r" + line + ("\n" if done == total else ""))
    else:
        sys.stderr.write(line + "\n")
    sys.stderr.flush()


def hwc(tensor):
    """(C, H, W) tensor -> (H, W, 3) uint8 numpy image (grey repeated if C == 1)."""
    a = augpy.cast(tensor, augpy.uint8).numpy() if tensor.dtype != augpy.uint8 else tensor.numpy()
    a = np.moveaxis(a, 0, -1)
    if a.shape[2] == 1:
        a = np.repeat(a, 3, axis=2)
    return np.ascontiguousarray(a[:, :, :3])


def write_png(path, rgb):
    """A minimal RGB PNG writer (zlib from the standard library): no image package needed."""
    height, width, _ = rgb.shape
    raw = b"".join(b"\x00" + rgb[y].tobytes() for y in range(height))

    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    png = (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
           + chunk(b"IDAT", zlib.compress(raw, 6)) + chunk(b"IEND", b""))
    pathlib.Path(path).write_bytes(png)


def contact_sheet(pairs, size):
    h, w = size
    gap = 4
    rows = (len(pairs) + SHEET_COLUMNS - 1) // SHEET_COLUMNS
    cols = min(len(pairs), SHEET_COLUMNS)
    sheet = np.full((rows * (h + gap) + gap, cols * (2 * w + 3 * gap) + gap, 3), 255, np.uint8)
    for k, (orig, aug) in enumerate(pairs):
        y = gap + (k // SHEET_COLUMNS) * (h + gap)
        x = gap + (k % SHEET_COLUMNS) * (2 * w + 3 * gap)
        sheet[y:y + h, x:x + w] = orig
        sheet[y:y + h, x + w + gap:x + 2 * w + gap] = aug
    return sheet


def run_imagenet(args, device, threads, files, data):
    """--recipe imagenet: ImageNetTrain batches (and ImageNetEval timed on the same files)."""
    h, w = args.size
    bs = args.batch_size
    train = ImageNetTrain(bs, size=(h, w), seed=args.seed, cpu_threads=threads)
    evaluate = ImageNetEval(bs, size=(h, w), resize=max(h, w) * 256 // 224, cpu_threads=threads)
    thumbs = DecodeWarp(1, (3, h, w), background=(255, 255, 255))
    stages = {"train": 0.0, "eval": 0.0}
    scales = []
    pairs = []
    done = 0
    show = not args.no_progress
    start = time.perf_counter()
    while done < args.images:
        n = min(bs, args.images - done)
        index = [(done + i) % len(data) for i in range(n)]
        t0 = time.perf_counter()
        try:
            batch = train({"image": [data[i] for i in index]})
            augpy.synchronize()
            t1 = time.perf_counter()
            evaluate({"image": [data[i] for i in index]})
            augpy.synchronize()
        except augpy.NvJpegError as e:
            names = ", ".join(sorted({files[i].name for i in index}))
            raise augpy.NvJpegError(f"cannot decode one of {names}: {e}") from e
        t2 = time.perf_counter()
        stages["train"] += t1 - t0
        stages["eval"] += t2 - t1
        scales += [a["dct_scale"] for a in batch["augmentation"]]
        for i in range(n):
            if len(pairs) == SHEET_PAIRS:
                break
            original = thumbs({"image": [data[index[i]]], "augmentation": [{"scale_mode": "longest"}]})["image"]
            pairs.append((hwc(original[0]), hwc(batch["image"][i])))
        done += n
        progress(done, args.images, start, show)
    total = time.perf_counter() - start
    train.close()
    evaluate.close()
    outdir = pathlib.Path(args.output)
    outdir.mkdir(parents=True, exist_ok=True)
    sheet_path = outdir / "contact_sheet.png"
    write_png(sheet_path, contact_sheet(pairs, (h, w)))
    print(f"augpy {augpy.__version__} on {device}, {threads} thread(s), recipe imagenet: {args.images} images "
          f"from {len(files)} file(s), batches of {bs}, output {h}x{w}, seed {args.seed}")
    for name, seconds in stages.items():
        rate = args.images / seconds if seconds > 0 else float("inf")
        print(f"  {name:<12} {seconds * 1000:9.1f} ms  {rate:9.1f} images/s")
    hist = ", ".join(f"{m}/8: {scales.count(m)}" for m in sorted(set(scales)))
    print(f"  DCT scales of the training decodes: {hist}")
    print(f"  {'total':<12} {total * 1000:9.1f} ms  {args.images / total:9.1f} images/s (incl. contact sheet)")
    print(f"contact sheet: {sheet_path}")
    return 0


def run(args):
    device = select_device(args.device)
    threads = args.threads or os.cpu_count() or 1
    augpy.set_num_threads(threads)
    files = list_inputs(args.input)
    data = [f.read_bytes() for f in files]
    if args.recipe == "imagenet":
        return run_imagenet(args, device, threads, files, data)
    h, w = args.size
    bs = args.batch_size
    rng = np.random.default_rng(args.seed)
    gen = augpy.RandomNumberGenerator(seed=args.seed)

    decode_warp = DecodeWarp(bs, (3, h, w), background=(124, 116, 104), cpu_threads=threads)
    lighting = Lighting(bs, channels=3)
    # Originals for the contact sheet: the whole image fitted into the canvas.
    thumbs = DecodeWarp(1, (3, h, w), background=(255, 255, 255))
    noise = augpy.Tensor((bs, 3, h, w), dtype=augpy.float32)
    blurred = augpy.Tensor((bs, 3, h, w), dtype=augpy.uint8)

    stages = {"decode+warp": 0.0, "lighting": 0.0, "blur": 0.0, "noise": 0.0}
    pairs = []
    done = 0
    show = not args.no_progress
    start = time.perf_counter()
    while done < args.images:
        n = min(bs, args.images - done)
        index = [(done + i) % len(data) for i in range(n)]
        params = [random_augmentation(rng) for _ in range(n)]

        t0 = time.perf_counter()
        try:
            batch = decode_warp({"image": [data[i] for i in index], "augmentation": params})
        except augpy.NvJpegError as e:
            names = ", ".join(sorted({files[i].name for i in index}))
            raise augpy.NvJpegError(f"cannot decode one of {names}: {e}") from e
        images = batch["image"]
        # on a GPU the stages queue work and return: wait for each one so that the
        # figures say where the time goes (a pipeline without the waits overlaps them)
        augpy.synchronize()
        t1 = time.perf_counter()
        lighting(batch)
        augpy.synchronize()
        t2 = time.perf_counter()
        out = blurred[:n]
        sigmas = augpy.array_to_tensor(np.array([p["sigma"] for p in params], np.float32))
        augpy.gaussian_blur(images, sigmas, MAX_KSIZE, out=out)
        augpy.synchronize()
        t3 = time.perf_counter()
        gen.gaussian(noise[:n])
        for i, p in enumerate(params):
            augpy.fma(p["noise"], noise[i], out[i], out=out[i])
        augpy.synchronize()
        t4 = time.perf_counter()
        for name, dt in zip(stages, (t1 - t0, t2 - t1, t3 - t2, t4 - t3)):
            stages[name] += dt

        for i in range(n):
            if len(pairs) == SHEET_PAIRS:
                break
            original = thumbs({"image": [data[index[i]]], "augmentation": [{"scale_mode": "longest"}]})["image"]
            pairs.append((hwc(original[0]), hwc(out[i])))
        done += n
        progress(done, args.images, start, show)
    total = time.perf_counter() - start

    outdir = pathlib.Path(args.output)
    outdir.mkdir(parents=True, exist_ok=True)
    sheet_path = outdir / "contact_sheet.png"
    write_png(sheet_path, contact_sheet(pairs, (h, w)))

    print(f"augpy {augpy.__version__} on {device}, {threads} thread(s): {args.images} images from "
          f"{len(files)} file(s), batches of {bs}, output {h}x{w}, seed {args.seed}")
    busy = sum(stages.values())
    for name, seconds in stages.items():
        rate = args.images / seconds if seconds > 0 else float("inf")
        print(f"  {name:<12} {seconds * 1000:9.1f} ms  {rate:9.1f} images/s  {100 * seconds / busy:5.1f}%")
    print(f"  {'total':<12} {total * 1000:9.1f} ms  {args.images / total:9.1f} images/s (incl. contact sheet)")
    print(f"contact sheet: {sheet_path}")
    return 0


def main(argv=None):
    args = parse_args(sys.argv[1:] if argv is None else argv)
    try:
        return run(args)
    except (augpy.NvJpegError, ValueError) as e:
        print(f"augpy-demo: {e}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
