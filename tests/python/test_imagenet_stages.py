"""DecodeWarp's dct_scale and the ImageNet stages (augpy.image.ImageNetTrain / ImageNetEval).

Each stage is checked against the functions it composes, called by hand
(augpy.random_resized_crop / resize_center_crop_matrix / plan_decode + Decoder.decode
with roi and scale + warp_affine), which have their own reference tests
(test_rrc.py: torchvision's sampler; test_jpeg_roi.py: libjpeg's scaled decode;
test_warp.py: the warp); with dct_scale=False they equal the full-decode warp; the
DCT-scaled results stay close to the full-resolution antialiased warp."""
import io
import os

import numpy as np
import pytest
from PIL import Image

import augpy
from conftest import DECODE_ENGINE, ON_CUDA, PLANS_BY_DEFAULT, UNDER_ASAN
from augpy.image import DecodeWarp, ImageNetEval, ImageNetTrain


def make(h, w, seed, fmt="JPEG"):
    rng = np.random.default_rng(seed)
    y, x = np.mgrid[0:h, 0:w]
    img = np.stack([x * 255 // w, y * 255 // h, (x * y // 37) % 256], -1) + rng.integers(-15, 16, (h, w, 3))
    f = io.BytesIO()
    Image.fromarray(np.clip(img, 0, 255).astype(np.uint8)).save(f, fmt, **({"quality": 90} if fmt == "JPEG" else {}))
    return f.getvalue()


IMAGES = [make(120, 160, 1), make(160, 100, 2), make(90, 90, 3), make(64, 80, 4, "PNG"), make(200, 150, 5)]
BG = (124, 116, 104)


def warp(img, m, s, shape, bg=BG):
    dst = augpy.zeros((3,) + tuple(shape), augpy.uint8)
    augpy.warp_affine(img, dst, np.asarray(m, np.float32).reshape(2, 3), list(bg), int(s))
    return dst.numpy()


def planned_by_hand(data, m, s, shape):
    dec = augpy.Decoder()
    info = dec.info(data)
    size = (info["height"], info["width"])
    if info["format"] != "jpeg":
        return warp(dec.decode(data), m, s, shape)
    p = augpy.plan_decode(m, size, shape, s)
    img = dec.decode(data, roi=p["roi"], scale=(p["scale"], 8))
    return warp(img, p["matrix"], p["supersampling"], shape)


PARAMS = [{"angle": 10.0, "scale": 1.2, "hmirror": True}, {"aspect": 1.3}, {}, {"angle": -5.0}, {"scale": 0.7}]


@pytest.mark.parametrize("threads", [1, 2])
def test_decode_warp_dct_scale_by_hand(threads):
    dw = DecodeWarp(5, (3, 30, 40), background=BG, cpu_threads=threads, dct_scale=True)
    got = dw({"image": IMAGES, "augmentation": PARAMS})["image"].numpy()
    full = DecodeWarp(5, (3, 30, 40), background=BG, dct_scale=False)({"image": IMAGES, "augmentation": PARAMS})
    full = full["image"].numpy().astype(int)
    # the default (dct_scale=None) plans unless the decoders' engine is 'nvjpeg'
    default = DecodeWarp(5, (3, 30, 40), background=BG, cpu_threads=threads)({"image": IMAGES, "augmentation": PARAMS})
    np.testing.assert_array_equal(default["image"].numpy(), got if PLANS_BY_DEFAULT else full)
    dec = augpy.Decoder()
    for i, (data, p) in enumerate(zip(IMAGES, PARAMS)):
        size = dec.decode(data).shape[:2]
        m, s = augpy.make_transform(size, (30, 40), **p)
        np.testing.assert_array_equal(got[i], planned_by_hand(data, m, s, (30, 40)))
        diff = np.abs(got[i].astype(int) - full[i])
        # (the fade to the background at the image border spans one scaled pixel: wider)
        assert diff.mean() < 4 and np.percentile(diff, 95) < 25, i
    assert np.array_equal(got[3], full[3])  # the PNG: always a full decode
    dw.close()


def test_decode_warp_dct_scale_option():
    assert DecodeWarp(1, (3, 8, 8)).dct_scale is None
    with pytest.raises(TypeError, match="DecodeWarp: dct_scale must be None, True or False"):
        DecodeWarp(1, (3, 8, 8), dct_scale="yes")
    big = make(300, 400, 9)
    with pytest.raises(augpy.NvJpegError, match="limit of 1000 pixels"):
        DecodeWarp(1, (3, 8, 8), max_pixels=1000, dct_scale=True)({"image": [big]})


def rrc_by_hand(seed, calls, images, size, dct=True, **kw):
    """Call `calls` of a stage seeded `seed` (seed model: image k of call c is sample
    c * len(images) + k of epoch 0, drawn on the stream 'ImageNetTrain')."""
    n = len(images)
    states = augpy.sample_rng_states([(seed, 0, calls * n + k) for k in range(n)], "ImageNetTrain")
    dec = augpy.Decoder()
    infos = [dec.info(d) for d in images]
    r = augpy.random_resized_crop(states, [(i["height"], i["width"]) for i in infos], size, **kw)
    out = []
    for k, (data, info) in enumerate(zip(images, infos)):
        if dct and info["format"] == "jpeg":
            img = dec.decode(data, roi=tuple(int(v) for v in r["roi"][k]), scale=(int(r["scale"][k]), 8))
            out.append(warp(img, r["roi_matrix"][k], r["roi_supersampling"][k], size, (0, 0, 0)))
        else:
            out.append(warp(dec.decode(data), r["matrix"][k], r["supersampling"][k], size, (0, 0, 0)))
    return np.stack(out), r


@pytest.mark.parametrize("threads,dct_scale", [(1, None), (2, None), (2, True)])
def test_imagenet_train(threads, dct_scale):
    """The stage equals the RRC by hand; the default plans DCT-scaled decodes unless the engine
    is 'nvjpeg' (then every image is decoded whole, dct_scale 8), dct_scale=True always."""
    stage = ImageNetTrain(5, size=(48, 40), seed=11, cpu_threads=threads, hflip=0.5, dct_scale=dct_scale)
    plan = PLANS_BY_DEFAULT if dct_scale is None else dct_scale
    for call in range(3):
        b = stage({"image": IMAGES})
        got = b["image"]
        assert got.shape == (5, 3, 48, 40) and got.dtype == augpy.uint8 and got.layout == "NCHW"
        want, r = rrc_by_hand(11, call, IMAGES, (48, 40), dct=plan, hflip=0.5)
        np.testing.assert_array_equal(got.numpy(), want)
        for k, a in enumerate(b["augmentation"]):
            assert a["crop"] == tuple(r["crop"][k]) and a["hflip"] == r["hflip"][k]
            assert a["dct_scale"] == (r["scale"][k] if k != 3 and plan else 8)
    stage.close()


def test_imagenet_train_full_decode_and_reproducible():
    a = ImageNetTrain(5, size=32, seed=3, dct_scale=False, scale=(0.3, 0.9), ratio=(0.5, 2.0))
    want, _ = rrc_by_hand(3, 0, IMAGES, (32, 32), dct=False, scale=(0.3, 0.9), ratio=(0.5, 2.0), hflip=0.5)
    np.testing.assert_array_equal(a({"image": IMAGES})["image"].numpy(), want)
    b1 = ImageNetTrain(5, size=32, seed=5, cpu_threads=2)({"image": IMAGES})["image"].numpy()
    b2 = ImageNetTrain(5, size=32, seed=5)({"image": IMAGES})["image"].numpy()
    assert np.array_equal(b1, b2)


def test_imagenet_train_hook_and_paths(tmp_path):
    seen = []

    def hook(batch):
        seen.append(batch["image"].shape)
        batch["hooked"] = True
        return batch

    paths = []
    for i, d in enumerate(IMAGES[:2]):
        p = tmp_path / f"{i}.jpg"
        p.write_bytes(d)
        paths.append(str(p))
    out = ImageNetTrain(2, size=16, seed=1, transforms=[hook])({"image": paths})
    assert out["hooked"] and seen == [(2, 3, 16, 16)]
    ref = ImageNetTrain(2, size=16, seed=1)({"image": IMAGES[:2]})["image"].numpy()
    assert np.array_equal(out["image"].numpy(), ref)


def test_imagenet_eval():
    got = ImageNetEval(5, size=(56, 48), resize=64, background=BG, dct_scale=True)({"image": IMAGES})["image"].numpy()
    full = ImageNetEval(5, size=(56, 48), resize=64, background=BG, dct_scale=False)({"image": IMAGES})
    full = full["image"].numpy()
    # the default (dct_scale=None) plans unless the decoders' engine is 'nvjpeg'
    default = ImageNetEval(5, size=(56, 48), resize=64, background=BG)({"image": IMAGES})["image"].numpy()
    np.testing.assert_array_equal(default, got if PLANS_BY_DEFAULT else full)
    dec = augpy.Decoder()
    for k, data in enumerate(IMAGES):
        img = dec.decode(data)
        m, s = augpy.resize_center_crop_matrix(img.shape[:2], (56, 48), 64)
        np.testing.assert_array_equal(full[k], warp(img, m, s, (56, 48)))
        np.testing.assert_array_equal(got[k], planned_by_hand(data, m, s, (56, 48)))
        # close to Pillow's Resize (box-filtered area average) + centre crop
        h, w = img.shape[:2]
        short = min(h, w)
        rh, rw = (64, int(64 * w / h)) if h <= w else (int(64 * h / w), 64)
        pil = np.asarray(Image.fromarray(img.numpy()).resize((rw, rh), Image.BOX)).astype(int)
        top, left = int(round((rh - 56) / 2.0)), int(round((rw - 48) / 2.0))
        ref = pil[top:top + 56, left:left + 48].transpose(2, 0, 1)
        if rh >= 56 and rw >= 48 and short > 64:
            assert np.abs(got[k].astype(int) - ref).mean() < 4, k


def test_bad_parameters():
    for kw, msg in [({"scale": (0.9, 0.1)}, "ImageNetTrain: scale range"),
                    ({"ratio": (0.0, 1.0)}, "ImageNetTrain: ratio range"),
                    ({"hflip": 2.0}, "ImageNetTrain: hflip"),
                    ({"size": 0}, "ImageNetTrain: size must be a positive int"),
                    ({"max_supersampling": 0}, "ImageNetTrain: max_supersampling")]:
        with pytest.raises(ValueError, match=msg):
            ImageNetTrain(2, **kw)
    with pytest.raises(ValueError, match="ImageNetEval: resize must be a positive int"):
        ImageNetEval(2, resize=0)
    with pytest.raises(ValueError, match="ImageNetTrain: 3 images for a batch size of 2"):
        ImageNetTrain(2)({"image": IMAGES[:3]})
    with pytest.raises(augpy.NvJpegError, match="Decoder"):
        ImageNetTrain(1)({"image": [b"\xff\xd8\xff garbage"]})
    with pytest.raises(augpy.NvJpegError, match="limit of 100 pixels"):
        ImageNetTrain(1, max_pixels=100)({"image": IMAGES[:1]})


@pytest.mark.skipif(not hasattr(os, "fork") or ON_CUDA or UNDER_ASAN,
                    reason="needs fork; a CUDA context cannot cross fork(); libasan is not fork-safe (test_fork.py)")
def test_imagenet_train_forked_workers_differ():
    """Without a seed, forked children (DataLoader workers) draw their own crops."""
    stage = ImageNetTrain(2, size=16)
    stage({"image": IMAGES[:2]})
    crops = []
    for _ in range(2):
        r, w = os.pipe()
        pid = os.fork()
        if pid == 0:
            try:
                out = stage({"image": IMAGES[:2]})["augmentation"]
                os.write(w, repr([a["crop"] for a in out]).encode())
            finally:
                os._exit(0)
        os.close(w)
        crops.append(os.read(r, 4096))
        os.close(r)
        os.waitpid(pid, 0)
    assert crops[0] and crops[0] != crops[1]
    seeded = ImageNetTrain(2, size=16, seed=4)
    assert seeded.seed == 4


def test_imagenet_eval_against_torchvision():
    """torchvision's Resize(64, bilinear, antialias) + CenterCrop(56) of the same JPEGs, recorded
    (data/record_imagenet_eval_torchvision.py). Different antialiasing filters (torchvision's
    triangle of the scale's width; here s x s bilinear samples, or the DCT prefilter): close,
    not equal."""
    ref = np.load(os.path.join(os.path.dirname(__file__), "data", "imagenet_eval_torchvision.npz"))
    files = [ref[f"jpeg_{k}"].tobytes() for k in range(4)]
    for dct, mean, p99 in [(False, 1.5, 16), (True, 2.5, 30)]:
        if not dct and DECODE_ENGINE == "nvjpeg":  # nvJPEG's chroma is replicated, torchvision's input
            mean, p99 = 2.5, 30                     # (Pillow's) interpolated: docs/jpeg.md "nvJPEG's pixels"
        out = ImageNetEval(4, size=56, resize=64, dct_scale=dct)({"image": files})["image"].numpy().astype(int)
        for k in range(4):
            d = np.abs(out[k] - ref[f"out_{k}"].astype(int))
            assert d.mean() < mean and np.percentile(d, 99) <= p99, (dct, k, d.mean())
