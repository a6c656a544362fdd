"""bench/pipelines.py: whole augmentation recipes, augpy against its peers, equal work.

Recipes (every pipeline decodes the JPEG bytes itself and returns a batch for PyTorch):
  imagenet  decode -> random resized crop 224 (scale 0.08-1, ratio 3/4-4/3) -> horizontal flip
            (p 0.5) -> colour jitter (brightness, contrast, saturation 0.4, hue 0.1) -> normalize
            (ImageNet mean/std) to float32 CHW.
  seed      the augpy manual's pipeline: decode -> random affine to 224x224 (angle +-20 deg, scale
            0.9-1.2, mirror p 0.5, one sample per pixel) -> contrast (+-0.3) and gamma (0.8-1.25)
            -> Gaussian blur (sigma 0.5-1.5) -> Gaussian noise (std 8) -> uint8 CHW.
  timm      DeiT / ConvNeXt training (issue 28): decode -> random resized crop 224 -> flip ->
            RandAugment 'rand-m9-mstd0.5-inc1' -> normalize -> RandomErasing (0.25, per-pixel
            noise) -> MixUp 0.8 / CutMix 1.0 (switch 0.5, label smoothing 0.1, 1000 classes):
            augpy.image.timm_train against timm's own create_transform + Mixup and torchvision v2
            (RandAugment(2, 9), RandomErasing, RandomChoice(MixUp, CutMix)); target 3x the fastest.
  randaugment  the policy part of it as DALI has it, run only when DALI imports: decode -> random
            resized crop 224 -> flip -> RandAugment (2 ops per image at magnitude 9 of 31 from
            torchvision's 14-op space, fill 128, bilinear) -> normalize: DALI's CPU operators with
            nvidia.dali.auto_aug.rand_augment (device_id=None) against augpy.image.timm_train with
            re_prob=0, no mixing and augpy.image.RandAugment(2, 9) as its policy, and torchvision v2.
Peers: DALI's CPU operators (device_id=None), torchvision v2, albumentations, OpenCV by hand and
Pillow (Pillow-SIMD when `make bench-peers` could build it; the report says which ran).
OpenCV by hand is the strongest version a user would write (issue 33): for `seed`, imdecode
straight to RGB, one warpAffine, one LUT for contrast and gamma, GaussianBlur with augpy's kernel
size (gaussian_ksize), randn into int16 and one saturating add, on HWC uint8, then the CHW copy.
The row before it cost 1.45x as much (4.6-5.0 against 3.1-3.5 CPU-ms per image on the same
run, 1 thread, build/photos), which is why this script reported augpy at 1.85-1.99x OpenCV where
the manual's pipeline timed by hand gave 1.07-1.21x: it converted BGR to RGB on the full decode
(cvtColor), blurred with OpenCV's default kernel (2*round(3 sigma)+1: 11 taps at sigma 1.5
where augpy's rule takes 7) and drew the noise as NumPy float32 normals added in float. What
remains between the two figures is the photos and the machine: the manual's run had 64 photos
and a quiet machine; --stages prints the seed recipe stage by stage for both. The peers
live only in the venv `make bench-peers` makes (.venv-peers); `make test` never runs this.

Reported per recipe, peer and thread count (1 and 2): CPU-ms per image (process CPU time over
the run, all threads: steady on a shared machine) and images/s (wall), the best of --reps
passes, the pipelines taking turns pass by pass (a slow spell hits them alike); augpy's
1 -> 2 thread scaling from augpy on 1 and on 2 threads taking turns the same way. Peers that work per image
run 2 threads as a thread pool over the images (OpenCV, torch, albumentations and Pillow release
the GIL in their kernels); DALI and augpy use their own thread options. Rows go to
bench/benchutil.py's record (ratio = peer CPU-ms / augpy CPU-ms), so bench/report.py puts them in
docs/benchmarks.md and its chart.

    python bench/pipelines.py [--photos build/photos] [--n 256] [--batch 32] [--threads 1 2]
                              [--recipes imagenet seed] [--peers dali torchvision albumentations opencv pillow]
    python bench/pipelines.py --stages    # the seed recipe stage by stage, augpy and OpenCV, 1 thread
"""
import argparse
import io
import os
import random
import time
from concurrent.futures import ThreadPoolExecutor

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # numpy's BLAS threads would spin in the CPU time
import numpy as np  # noqa: E402

import benchutil  # bench/benchutil.py (the script's folder is on sys.path)
import photos  # bench/photos.py

MEAN = np.array([0.485, 0.456, 0.406]) * 255
STD = np.array([0.229, 0.224, 0.225]) * 255
SIZE = 224
# The targets (issue 16), per core: recipe (a) against the fastest peer of the run and DALI CPU,
# recipe (b) at one sample per pixel against OpenCV by hand.
TARGET_FASTEST = {"imagenet": 1.5, "timm": 3.0}
TARGET_DALI = {"imagenet": 2.5}
TARGET_OPENCV = {"seed": 1.6}  # issue 33: against the strongest hand-written row (was 1.3 against the old one)


# ---- shared parameter draws (the same distributions for every pipeline) ------------------------

def rrc_params(rng, h, w, scale=(0.08, 1.0), ratio=(3 / 4, 4 / 3)):
    """torchvision's RandomResizedCrop.get_params: (y, x, ch, cw)."""
    area = h * w
    lr = np.log(ratio)
    for _ in range(10):
        target = area * rng.uniform(*scale)
        ar = np.exp(rng.uniform(*lr))
        cw = int(round(np.sqrt(target * ar)))
        ch = int(round(np.sqrt(target / ar)))
        if 0 < cw <= w and 0 < ch <= h:
            return int(rng.integers(0, h - ch + 1)), int(rng.integers(0, w - cw + 1)), ch, cw
    in_ratio = w / h
    if in_ratio < ratio[0]:
        cw, ch = w, int(round(w / ratio[0]))
    elif in_ratio > ratio[1]:
        ch, cw = h, int(round(h * ratio[1]))
    else:
        cw, ch = w, h
    return (h - ch) // 2, (w - cw) // 2, ch, cw


def jitter_params(rng):
    """brightness, contrast, saturation factors in [0.6, 1.4], hue in [-0.1, 0.1], a random order."""
    b, c, s = rng.uniform(0.6, 1.4, 3)
    return b, c, s, rng.uniform(-0.1, 0.1), rng.permutation(4)


def seed_params(rng):
    return {"angle": rng.uniform(-20, 20), "scale": rng.uniform(0.9, 1.2), "mirror": rng.random() < 0.5,
            "contrast": rng.uniform(-0.3, 0.3), "gamma": rng.uniform(0.8, 1.25), "sigma": rng.uniform(0.5, 1.5)}


def affine_inverse(h, w, angle, scale, mirror):
    """The inverse map (output pixel -> source pixel) of the seed recipe's affine: rotate by angle
    about the centre, scale the shorter side to SIZE*scale, mirror."""
    s = SIZE / min(h, w) * scale
    a = np.deg2rad(angle)
    c, si = np.cos(a) / s, np.sin(a) / s
    fx = -1.0 if mirror else 1.0
    # source = R^-1 S^-1 (out - centre_out) + centre_src
    m = np.array([[c * fx, si, 0.0], [-si * fx, c, 0.0]])
    co = (SIZE - 1) / 2
    m[0, 2] = (w - 1) / 2 - m[0, 0] * co - m[0, 1] * co
    m[1, 2] = (h - 1) / 2 - m[1, 0] * co - m[1, 1] * co
    return m.astype(np.float32)


def gaussian_ksize(sigma, max_ksize=9):
    """augpy's kernel size (aug_gaussian_ksize): max(3, int(6.6 sigma - 2.3) | 1), at most
    max_ksize (the seed recipe's 9), so the peers blur with as many taps as augpy."""
    return min(max(3, int(sigma * 6.6 - 2.3) | 1), max_ksize)


def lighting_lut(contrast, gamma):
    """augpy's lighting curve for uint8 (semantics §13) as a 256-entry table, contrast k then gamma."""
    v = np.arange(256) / 255.0
    k = contrast
    if k >= 0:
        f = 1.0037575963899724 / (1.0 + np.exp(6.279 - 12.558 * v)) - 0.0018787981949862
    else:
        f = 0.1755606108304832 * np.arctanh(1.986608 * v - 0.993304) + 0.5
    v = (1 - abs(k)) * v + abs(k) * f
    return np.clip(np.rint(np.power(np.clip(v, 0, 1), gamma) * 255), 0, 255).astype(np.uint8)


# ---- peers -----------------------------------------------------------------------------------

def _map(fn, items, threads):
    if threads == 1:
        return [fn(x) for x in items]
    with ThreadPoolExecutor(threads) as ex:
        return list(ex.map(fn, items))


def opencv_pipeline(recipe, timings=None):
    """timings (seed recipe): a dict that gets the CPU seconds of each stage added."""
    import cv2
    from augpy_pipelines import StageClock

    def decode(d):
        return cv2.cvtColor(cv2.imdecode(np.frombuffer(d, np.uint8), cv2.IMREAD_COLOR), cv2.COLOR_BGR2RGB)

    def gray_mean(img):
        return float(cv2.cvtColor(img, cv2.COLOR_RGB2GRAY).mean())

    def jitter(img, p):
        b, c, s, hue, order = p
        for step in order:
            if step == 0:
                img = cv2.convertScaleAbs(img, alpha=b)
            elif step == 1:
                m = gray_mean(img)
                img = cv2.addWeighted(img, c, img, 0, m * (1 - c))
            elif step == 2:
                g = cv2.cvtColor(cv2.cvtColor(img, cv2.COLOR_RGB2GRAY), cv2.COLOR_GRAY2RGB)
                img = cv2.addWeighted(img, s, g, 1 - s, 0)
            else:
                hsv = cv2.cvtColor(img, cv2.COLOR_RGB2HSV)
                lut = ((np.arange(256) + int(round(hue * 180))) % 180).astype(np.uint8)
                hsv[..., 0] = cv2.LUT(hsv[..., 0], lut)
                img = cv2.cvtColor(hsv, cv2.COLOR_HSV2RGB)
        return img

    def imagenet(item):
        d, seed = item
        rng = np.random.default_rng(seed)
        img = decode(d)
        y, x, h, w = rrc_params(rng, *img.shape[:2])
        img = cv2.resize(img[y:y + h, x:x + w], (SIZE, SIZE), interpolation=cv2.INTER_LINEAR)
        if rng.random() < 0.5:
            img = cv2.flip(img, 1)
        img = jitter(img, jitter_params(rng))
        out = (img.astype(np.float32) - MEAN.astype(np.float32)) * (1 / STD).astype(np.float32)
        return out.transpose(2, 0, 1).copy()

    def seed(item):
        """The strongest hand-written version (issue 33): the decode straight to RGB, one
        warpAffine, one LUT for contrast and gamma, GaussianBlur with augpy's kernel size,
        randn into int16 and one saturating add, all on HWC uint8, then the CHW copy."""
        d, s = item
        clock = StageClock(timings)
        p = seed_params(np.random.default_rng(s))
        clock("parameters")
        img = cv2.imdecode(np.frombuffer(d, np.uint8), COLOR_RGB)
        clock("decode")
        m = affine_inverse(*img.shape[:2], p["angle"], p["scale"], p["mirror"])
        img = cv2.warpAffine(img, m, (SIZE, SIZE), flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP)
        clock("warp")
        img = cv2.LUT(img, lighting_lut(p["contrast"], p["gamma"]))
        clock("lighting")
        k = gaussian_ksize(p["sigma"])
        img = cv2.GaussianBlur(img, (k, k), p["sigma"])
        clock("blur")
        noise = np.empty(img.shape, np.int16)
        cv2.setRNGSeed(s)
        cv2.randn(noise, 0, 8)
        img = cv2.add(img, noise, dtype=cv2.CV_8U)
        clock("noise")
        img = img.transpose(2, 0, 1).copy()
        clock("CHW copy")
        return img

    # OpenCV >= 4.10 decodes to RGB itself (libjpeg-turbo's own output order, no conversion);
    # before, BGR: the pipeline is the same per channel, the row then has the channels reversed
    COLOR_RGB = getattr(cv2, "IMREAD_COLOR_RGB", cv2.IMREAD_COLOR)
    cv2.setNumThreads(1)
    return imagenet if recipe == "imagenet" else seed


def albumentations_pipeline(recipe):
    import albumentations as A
    import cv2

    cv2.setNumThreads(1)
    if recipe == "imagenet":
        t = A.Compose([A.RandomResizedCrop((SIZE, SIZE)), A.HorizontalFlip(),
                       A.ColorJitter(0.4, 0.4, 0.4, 0.1, p=1.0), A.Normalize(), A.Transpose(p=0)])
    else:
        t = A.Compose([A.Resize(SIZE, SIZE), A.Affine(rotate=(-20, 20), scale=(0.9, 1.2), p=1.0),
                       A.HorizontalFlip(), A.RandomBrightnessContrast(0, 0.3, p=1.0),
                       A.RandomGamma((80, 125), p=1.0), A.GaussianBlur(sigma_limit=(0.5, 1.5), p=1.0),
                       A.GaussNoise(std_range=(8 / 255, 8 / 255), p=1.0)])

    def run(item):
        d, _ = item
        img = cv2.cvtColor(cv2.imdecode(np.frombuffer(d, np.uint8), cv2.IMREAD_COLOR), cv2.COLOR_BGR2RGB)
        return np.ascontiguousarray(t(image=img)["image"].transpose(2, 0, 1))

    return run


def torchvision_pipeline(recipe):
    import torch
    from torchvision.io import decode_jpeg, ImageReadMode
    from torchvision.transforms import v2
    from torchvision.transforms.v2 import functional as F

    torch.set_num_threads(1)
    if recipe in ("imagenet", "randaugment"):
        middle = v2.ColorJitter(0.4, 0.4, 0.4, 0.1) if recipe == "imagenet" else \
            v2.RandAugment(2, 9, interpolation=v2.InterpolationMode.BILINEAR, fill=128)
        t = v2.Compose([v2.RandomResizedCrop(SIZE, antialias=True), v2.RandomHorizontalFlip(), middle,
                        v2.ToDtype(torch.float32, scale=True),
                        v2.Normalize([0.485, 0.456, 0.406], [0.229, 0.224, 0.225])])
    else:
        base = v2.Compose([v2.Resize((SIZE, SIZE), antialias=False),
                           v2.RandomAffine(20, scale=(0.9, 1.2)), v2.RandomHorizontalFlip(),
                           v2.ColorJitter(contrast=0.3)])
        blur = v2.GaussianBlur(5, sigma=(0.5, 1.5))

        def t(img):
            img = base(img)
            img = F.adjust_gamma(img, float(torch.empty(1).uniform_(0.8, 1.25)))
            img = blur(img)
            noisy = img.to(torch.int16) + (torch.randn(img.shape) * 8).to(torch.int16)
            return noisy.clamp_(0, 255).to(torch.uint8)

    def run(item):
        d, _ = item
        img = decode_jpeg(torch.frombuffer(bytearray(d), dtype=torch.uint8), mode=ImageReadMode.RGB)
        return t(img)

    return run


def pillow_pipeline(recipe):
    from PIL import Image, ImageEnhance, ImageFilter

    def jitter(img, p):
        b, c, s, hue, order = p
        for step in order:
            if step == 0:
                img = ImageEnhance.Brightness(img).enhance(b)
            elif step == 1:
                img = ImageEnhance.Contrast(img).enhance(c)
            elif step == 2:
                img = ImageEnhance.Color(img).enhance(s)
            else:
                h, s_, v = img.convert("HSV").split()
                h = h.point(lambda i, d=int(round(hue * 255)): (i + d) % 256)
                img = Image.merge("HSV", (h, s_, v)).convert("RGB")
        return img

    def imagenet(item):
        d, seed = item
        rng = np.random.default_rng(seed)
        img = Image.open(io.BytesIO(d))
        y, x, h, w = rrc_params(rng, img.height, img.width)
        img = img.convert("RGB").resize((SIZE, SIZE), Image.BILINEAR, box=(x, y, x + w, y + h))
        if rng.random() < 0.5:
            img = img.transpose(Image.FLIP_LEFT_RIGHT)
        img = jitter(img, jitter_params(rng))
        out = (np.asarray(img, np.float32) - MEAN.astype(np.float32)) * (1 / STD).astype(np.float32)
        return out.transpose(2, 0, 1).copy()

    def seed(item):
        d, s = item
        rng = np.random.default_rng(s)
        p = seed_params(rng)
        img = Image.open(io.BytesIO(d)).convert("RGB")
        m = affine_inverse(img.height, img.width, p["angle"], p["scale"], p["mirror"]).astype(np.float64)
        # Pillow's AFFINE maps output pixel centres too (its data is the inverse map, x then y)
        img = img.transform((SIZE, SIZE), Image.AFFINE, tuple(m.reshape(-1)), Image.BILINEAR)
        img = img.point(list(lighting_lut(p["contrast"], p["gamma"])) * 3)
        img = img.filter(ImageFilter.GaussianBlur(p["sigma"]))
        a = np.asarray(img, np.int16) + (rng.standard_normal((SIZE, SIZE, 3), np.float32) * 8).astype(np.int16)
        return np.clip(a, 0, 255).astype(np.uint8).transpose(2, 0, 1).copy()

    return imagenet if recipe == "imagenet" else seed


class DaliRunner:
    """One DALI CPU pipeline per (recipe, threads), fed the encoded bytes batch by batch."""

    def __init__(self, recipe, batch, threads):
        from nvidia.dali import fn, pipeline_def, types

        self.batch, self.recipe = batch, recipe
        self._queue = []

        @pipeline_def(batch_size=batch, num_threads=threads, device_id=None, seed=1,
                      prefetch_queue_depth=1, exec_dynamic=True, enable_conditionals=recipe == "randaugment")
        def pipe():
            enc = fn.external_source(source=self._next, batch=True, dtype=types.UINT8, name="enc")
            if recipe == "randaugment":
                from nvidia.dali.auto_aug import rand_augment
                img = fn.decoders.image_random_crop(enc, device="cpu", output_type=types.RGB,
                                                     random_area=[0.08, 1.0], random_aspect_ratio=[3 / 4, 4 / 3],
                                                     num_attempts=10)
                img = fn.resize(img, resize_x=SIZE, resize_y=SIZE)
                img = rand_augment.rand_augment(img, n=2, m=9, num_magnitude_bins=31, fill_value=128)
                return fn.crop_mirror_normalize(img, dtype=types.FLOAT, output_layout="CHW",
                                                mean=list(MEAN), std=list(STD),
                                                mirror=fn.random.coin_flip(probability=0.5))
            if recipe == "imagenet":
                img = fn.decoders.image_random_crop(enc, device="cpu", output_type=types.RGB,
                                                     random_area=[0.08, 1.0], random_aspect_ratio=[3 / 4, 4 / 3],
                                                     num_attempts=10)
                img = fn.resize(img, resize_x=SIZE, resize_y=SIZE)
                img = fn.color_twist(img, brightness=fn.random.uniform(range=[0.6, 1.4]),
                                     contrast=fn.random.uniform(range=[0.6, 1.4]),
                                     saturation=fn.random.uniform(range=[0.6, 1.4]),
                                     hue=fn.random.uniform(range=[-36.0, 36.0]))
                return fn.crop_mirror_normalize(img, dtype=types.FLOAT, output_layout="CHW",
                                                mean=list(MEAN), std=list(STD),
                                                mirror=fn.random.coin_flip(probability=0.5))
            mat = fn.external_source(source=self._next_mat, batch=True, dtype=types.FLOAT, name="mat")
            img = fn.decoders.image(enc, device="cpu", output_type=types.RGB)
            img = fn.warp_affine(img, matrix=mat, size=[SIZE, SIZE], fill_value=0, inverse_map=True)
            img = fn.brightness_contrast(img, contrast=fn.random.uniform(range=[0.7, 1.3]))
            img = fn.gaussian_blur(img, sigma=fn.random.uniform(range=[0.5, 1.5]))
            img = fn.noise.gaussian(img, stddev=8.0)
            return fn.transpose(img, perm=[2, 0, 1])

        self.pipe = pipe()
        self.pipe.build()

    def _next(self):
        return self._queue[0]

    def _next_mat(self):
        return self._queue[1]

    def run_batch(self, datas, seeds):
        if self.recipe == "randaugment":
            self._queue = [[np.frombuffer(d, np.uint8) for d in datas]]
            (out,) = self.pipe.run()
            return out
        mats = []
        for d, s in zip(datas, seeds):
            rng = np.random.default_rng(s)
            p = seed_params(rng)
            from PIL import Image
            w, h = Image.open(io.BytesIO(d)).size  # header only
            mats.append(affine_inverse(h, w, p["angle"], p["scale"], p["mirror"]))
        self._queue = [[np.frombuffer(d, np.uint8) for d in datas], mats]
        (out,) = self.pipe.run()
        return out


def timm_recipe_peer(name, threads):
    """DeiT's recipe by a peer, as a user writes it: timm's own ``create_transform`` (PIL per image,
    interpolation 'random') or torchvision v2 (decode_jpeg, RRC, flip, RandAugment(2, 9), normalize,
    RandomErasing(0.25, 'random')), per image on `threads` threads, then the batch mixed: timm's
    Mixup(0.8, 1.0, switch 0.5, label smoothing 0.1), torchvision's RandomChoice(MixUp(0.8), CutMix(1.0)).
    The DataLoader's own work (collate: torch.stack) is in the timing."""
    import torch
    torch.set_num_threads(1)
    if name == "timm":
        from PIL import Image, ImageOps
        from timm.data import Mixup, create_transform
        _pil_posterize = ImageOps.posterize
        if not getattr(_pil_posterize, "keeps_zero_bits", False):
            # timm's increasing Posterize reaches 0 bits at magnitude 10 (m9 + mstd noise), which
            # Pillow 13 refuses ("bits must be between or equal to 1 and 8"); older Pillow
            # posterized to 0 (black). The peer keeps running as a user on older Pillow saw it.
            def posterize(img, bits):
                return img.point([0] * 256 * len(img.getbands())) if bits == 0 else _pil_posterize(img, bits)
            posterize.keeps_zero_bits = True
            ImageOps.posterize = posterize
        t = create_transform(SIZE, is_training=True, auto_augment="rand-m9-mstd0.5-inc1", re_prob=0.25,
                             re_mode="pixel", re_count=1, interpolation="random")
        mix = Mixup(mixup_alpha=0.8, cutmix_alpha=1.0, switch_prob=0.5, label_smoothing=0.1, num_classes=1000)

        def one(item):
            return t(Image.open(io.BytesIO(item[0])).convert("RGB"))
    else:
        from torchvision.io import ImageReadMode, decode_jpeg
        from torchvision.transforms import v2
        t = v2.Compose([v2.RandomResizedCrop(SIZE, antialias=True), v2.RandomHorizontalFlip(),
                        v2.RandAugment(2, 9), v2.ToDtype(torch.float32, scale=True),
                        v2.Normalize([0.485, 0.456, 0.406], [0.229, 0.224, 0.225]),
                        v2.RandomErasing(0.25, value="random")])
        choice = v2.RandomChoice([v2.MixUp(alpha=0.8, num_classes=1000), v2.CutMix(alpha=1.0, num_classes=1000)])

        def mix(x, y):
            return choice(x, y)

        def one(item):
            return t(decode_jpeg(torch.frombuffer(bytearray(item[0]), dtype=torch.uint8), mode=ImageReadMode.RGB))

    def run_batch(datas, seeds):
        # The peers draw from the global generators (timm: Python's random and NumPy's, torchvision:
        # torch's); seeded from the batch, every pass over the photos draws the same ops, crops and
        # mixes, as augpy's per-sample seeds do, so the best pass is the same work, not the pass
        # whose random draws happened to be cheapest.
        random.seed(seeds[0])
        np.random.seed(seeds[0])
        torch.manual_seed(seeds[0])
        x = torch.stack(_map(one, list(zip(datas, seeds)), threads))
        return mix(x, torch.tensor([s % 1000 for s in seeds]))

    return run_batch


def peer_runner(name, recipe, batch, threads):
    """A function batch(datas, seeds) -> list of outputs."""
    if recipe == "timm":
        if name not in ("timm", "torchvision"):
            raise LookupError(f"{name} has no DeiT recipe here")
        return timm_recipe_peer(name, threads)
    if name == "timm":
        raise LookupError("timm is a peer of the timm recipe only")
    if recipe == "randaugment" and name not in ("dali", "torchvision"):
        raise LookupError(f"{name} has no RandAugment here")
    if name == "dali":
        dali = DaliRunner(recipe, batch, threads)
        return dali.run_batch
    make = {"opencv": opencv_pipeline, "albumentations": albumentations_pipeline,
            "torchvision": torchvision_pipeline, "pillow": pillow_pipeline}[name]
    fn = make(recipe)
    return lambda datas, seeds: _map(fn, list(zip(datas, seeds)), threads)


# ---- augpy -----------------------------------------------------------------------------------

def augpy_runner(recipe, batch, threads):
    import augpy_pipelines  # bench/augpy_pipelines.py: augpy's side of the two recipes
    return augpy_pipelines.runner(recipe, batch, threads)


# ---- timing ----------------------------------------------------------------------------------

def measure_all(runners, datas, batch, reps):
    """{name: (CPU-ms per image, images/s)}: each runner warmed up on one batch, then reps
    rounds in which every runner makes one pass over datas in turn; the best pass of each.
    Interleaved, so that a slow spell of this shared machine hits every pipeline alike."""
    batches = [(datas[i:i + batch], list(range(i, i + len(datas[i:i + batch]))))
               for i in range(0, len(datas) - batch + 1, batch)]
    n = sum(len(b[0]) for b in batches)
    for run_batch in runners.values():
        run_batch(*batches[0])
    best = {name: [float("inf"), float("inf")] for name in runners}
    for _ in range(reps):
        for name, run_batch in runners.items():
            c0, w0 = time.process_time(), time.perf_counter()
            for b in batches:
                run_batch(*b)
            cpu, wall = (time.process_time() - c0) * 1e3 / n, time.perf_counter() - w0
            best[name] = [min(best[name][0], cpu), min(best[name][1], wall)]
    return {name: (cpu, n / wall) for name, (cpu, wall) in best.items()}


def measure_stages(datas, batch, reps):
    """The seed recipe at 1 thread, CPU-ms per image per stage, augpy and OpenCV by hand taking
    turns pass by pass; per stage the best pass."""
    import augpy
    import augpy_pipelines
    runs = {}
    for name in ("augpy", "opencv"):
        totals = {}
        if name == "augpy":
            run = augpy_pipelines.seed_runner(batch, 1, totals)
        else:
            fn = opencv_pipeline("seed", totals)
            run = lambda ds, ss, fn=fn: [fn(x) for x in zip(ds, ss)]  # noqa: E731
        runs[name] = (run, totals)
    augpy.set_num_threads(1)
    batches = [(datas[i:i + batch], list(range(i, i + batch))) for i in range(0, len(datas) - batch + 1, batch)]
    n = sum(len(b[0]) for b in batches)
    best = {name: {} for name in runs}
    for rep in range(reps + 1):
        for name, (run, totals) in runs.items():
            totals.clear()
            c0 = time.process_time()
            for b in batches:
                run(*b)
            totals["total"] = time.process_time() - c0
            if rep:  # the first pass warms up
                for k, v in totals.items():
                    best[name][k] = min(best[name].get(k, float("inf")), v * 1e3 / n)
    return best


def _dali_imports():
    try:
        import nvidia.dali  # noqa: F401
    except ImportError:
        return False
    return True


def pillow_name():
    import PIL
    return "Pillow-SIMD" if "post" in PIL.__version__ else "Pillow"


def main():
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    ap = argparse.ArgumentParser()
    ap.add_argument("--photos", default=os.path.join(root, "build", "photos"))
    ap.add_argument("--n", type=int, default=256)
    ap.add_argument("--batch", type=int, default=32)
    ap.add_argument("--reps", type=int, default=4)
    ap.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    ap.add_argument("--recipes", nargs="+", default=["imagenet", "seed", "timm", "randaugment"])
    ap.add_argument("--peers", nargs="*", default=["dali", "torchvision", "albumentations", "opencv", "pillow", "timm"])
    ap.add_argument("--stages", action="store_true",
                    help="only the seed recipe's stages at 1 thread, augpy and OpenCV by hand (CPU-ms per image)")
    args = ap.parse_args()
    if not os.path.isdir(os.path.join(args.photos, "jpeg")):
        photos.make(args.photos, args.n, 0)
    datas = photos.load(args.photos, "jpeg", args.n)
    if args.stages:
        best = measure_stages(datas, args.batch, args.reps)
        print(f"seed recipe, 1 thread, {len(datas)} JPEGs, CPU-ms per image per stage (best of {args.reps} passes)")
        for name, stages in best.items():
            print(f"  {name:<8}" + "  ".join(f"{k} {v:.3f}" for k, v in stages.items()))
        return
    label = {"dali": "DALI CPU", "torchvision": "torchvision v2", "albumentations": "albumentations",
             "opencv": "OpenCV by hand", "pillow": pillow_name(), "timm": "timm create_transform"}
    print(f"{len(datas)} JPEGs from {args.photos}; batches of {args.batch}")
    print(f"{'recipe':<12}{'pipeline':<18}{'threads':>8}{'CPU-ms/img':>12}{'images/s':>10}{'peer/augpy':>12}")
    for recipe in args.recipes:
        if recipe == "randaugment" and not _dali_imports():
            print(f"{recipe:<12}skipped (DALI does not import: the recipe is DALI's auto_aug.rand_augment row)")
            continue
        if 1 in args.threads and 2 in args.threads:
            # scaling: augpy on 2 threads over 1 (target 1.8), the two taking turns pass by pass
            both = measure_all({t: augpy_runner(recipe, args.batch, t) for t in (1, 2)}, datas, args.batch,
                               args.reps)
            print(f"{recipe:<12}{'augpy 1 -> 2 threads':<26}{both[2][1] / both[1][1]:12.2f}x images/s")
            benchutil.record(f"{recipe} recipe, augpy 2 threads vs 1", 2, both[2][1], "augpy, 1 thread", both[1][1],
                             1.8, unit="images/s")
        for threads in args.threads:
            runners = {"augpy": augpy_runner(recipe, args.batch, threads)}
            for peer in args.peers:
                try:
                    runners[peer] = peer_runner(peer, recipe, args.batch, threads)
                except (ImportError, LookupError) as e:
                    print(f"{recipe:<12}{label[peer]:<18}{threads:>8}  skipped ({e})")
            results = measure_all(runners, datas, args.batch, args.reps)
            ours, ips = results.pop("augpy")
            print(f"{recipe:<12}{'augpy':<18}{threads:>8}{ours:12.2f}{ips:10.1f}")
            figures = {}
            for peer, (cpu, pips) in results.items():
                figures[peer] = cpu
                print(f"{recipe:<12}{label[peer]:<18}{threads:>8}{cpu:12.2f}{pips:10.1f}{cpu / ours:11.2f}x")
            if not figures:
                continue
            fastest = min(figures, key=figures.get)
            for peer, cpu in figures.items():
                target = None
                if peer == fastest:
                    target = TARGET_FASTEST.get(recipe)
                if peer == "dali" and recipe in TARGET_DALI:
                    target = TARGET_DALI[recipe]
                if peer == "opencv" and recipe in TARGET_OPENCV:
                    target = TARGET_OPENCV[recipe]
                benchutil.record(f"{recipe} recipe, CPU-ms per image", threads, ours, label[peer], cpu,
                                 target if threads == 1 else None, unit="ms")

if __name__ == "__main__":
    main()
