"""DCT-scaled region decodes under any affine (issue 33): DecodeWarp, ImageNetEval and the
functional augpy.image.decode_warp plan each JPEG's decode with augpy.plan_decode for the
full-image matrix of ANY warp (rotation, shear, flip, anisotropic scale, enlargement), record
the scale M in the image's dict as ``dct_scale`` and decode at a recorded one.

Checked here: the stage equals plan_decode + a scaled region decode + warp_affine by hand;
the scaled path stays within the bound docs/rrc.md states of a float64 reference of the same
warp (matrix and supersampling) on the full decode, itself checked against the library's
full-decode warp (within 1 of 255); cpu_threads 1 and 2, the CPU and the emulated CUDA
device give the same bytes; a recorded dict replays; dct_scale=False is the full decode
bit for bit; bad scales are clear errors."""
import hashlib
import io
import os
import subprocess
import sys

import numpy as np
import pytest
from PIL import Image

import augpy
from conftest import ON_CUDA, PLANS_BY_DEFAULT
from augpy.image import DecodeWarp, ImageNetEval, decode_warp

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = (48, 64)
BG = (124, 116, 104)


def photo(h, w, seed):
    """A photo-like JPEG: smooth shading, edges and some fine texture (quality 90, 4:2:0)."""
    rng = np.random.default_rng(seed)
    y, x = np.mgrid[0:h, 0:w] / max(h, w)
    img = np.stack([180 * x + 40 * np.sin(9 * y), 200 * y * (1 - x) + 30, 120 + 80 * np.cos(7 * x * y * 6)], -1)
    img += 40 * ((np.floor(x * 11) + np.floor(y * 7)) % 2)[..., None]  # a checker of edges
    img += rng.normal(0, 6, (h, w, 3))
    f = io.BytesIO()
    Image.fromarray(np.clip(img, 0, 255).astype(np.uint8)).save(f, "JPEG", quality=90)
    return f.getvalue()


IMAGES = [photo(360, 480, 1), photo(480, 360, 2), photo(300, 300, 3), photo(420, 560, 4), photo(360, 480, 5),
          photo(480, 640, 6)]
# make_transform keywords: rotations (45 degrees), flips, shears, anisotropic and enlarging warps
WARPS = [{"angle": 45.0, "scale": 0.5}, {"hmirror": True, "vmirror": True}, {"shear": (0.3, -0.2), "scale": 1.6},
         {"scale": 12.0, "angle": 10.0}, {"aspect": 2.5, "angle": 30.0, "scale": 1.3},
         {"angle": -45.0, "hmirror": True, "scale": 0.9, "shift": (0.1, -0.2)}]
# The bound (docs/rrc.md) of the scaled path against the float64 reference of the same warp on
# the full decode, in units of 255: mean and max absolute difference per image.
BOUND_MEAN, BOUND_MAX = 3.5, 96


def full_decode(data):
    return augpy.Decoder().decode(data).numpy().astype(np.float64)


def reference(img, m, s, shape=OUT, bg=BG):
    """The warp of docs/warp.md in float64: output pixel (x, y) is the mean of s*s samples at
    (x - o + i/s, y - o + j/s), o = (s-1)/(2s), mapped through m and sampled bilinearly, each
    neighbour outside the image taking the background. (C, H, W) float64."""
    h, w, c = img.shape
    m = np.asarray(m, np.float64).reshape(2, 3)
    ys, xs = np.mgrid[0:shape[0], 0:shape[1]].astype(np.float64)
    bgv = np.asarray(bg, np.float64)
    acc = np.zeros(shape + (c,))
    o = (s - 1) / (2 * s)
    for i in range(s):
        for j in range(s):
            X, Y = xs - o + i / s, ys - o + j / s
            sx, sy = m[0, 0] * X + m[0, 1] * Y + m[0, 2], m[1, 0] * X + m[1, 1] * Y + m[1, 2]
            x0, y0 = np.floor(sx), np.floor(sy)
            fx, fy = (sx - x0)[..., None], (sy - y0)[..., None]
            x0, y0 = x0.astype(np.int64), y0.astype(np.int64)

            def tap(yy, xx):
                inside = ((yy >= 0) & (yy < h) & (xx >= 0) & (xx < w))[..., None]
                return np.where(inside, img[np.clip(yy, 0, h - 1), np.clip(xx, 0, w - 1)], bgv)

            top = tap(y0, x0) * (1 - fx) + tap(y0, x0 + 1) * fx
            bottom = tap(y0 + 1, x0) * (1 - fx) + tap(y0 + 1, x0 + 1) * fx
            acc += top * (1 - fy) + bottom * fy
    return (acc / (s * s)).transpose(2, 0, 1)


def stage(dct_scale=True, threads=1, n=len(IMAGES)):
    return DecodeWarp(n, (3,) + OUT, background=BG, cpu_threads=threads, dct_scale=dct_scale)


def run(dw, images=IMAGES, warps=WARPS):
    batch = dw({"image": list(images), "augmentation": [dict(w) for w in warps]})
    return batch["image"].numpy(), batch["augmentation"]


def test_any_affine_is_planned_and_recorded():
    got, aug = run(stage())
    dec = augpy.Decoder()
    scales = []
    for i, (data, w) in enumerate(zip(IMAGES, WARPS)):
        size = dec.info(data)["height"], dec.info(data)["width"]
        m, s = augpy.make_transform(size, OUT, **w)
        p = augpy.plan_decode(m, size, OUT, s)
        img = dec.decode(data, roi=p["roi"], scale=(p["scale"], 8))
        by_hand = augpy.zeros((3,) + OUT, augpy.uint8)
        augpy.warp_affine(img, by_hand, p["matrix"], list(BG), p["supersampling"])
        np.testing.assert_array_equal(got[i], by_hand.numpy(), err_msg=str(w))
        assert aug[i]["dct_scale"] == p["scale"], w
        assert aug[i]["source_size"] == size
        np.testing.assert_array_equal(np.array(aug[i]["matrix"], np.float32), m.reshape(-1))
        scales.append(p["scale"])
        # the rule: the largest M with sigma_min * M / 8 >= 1 (8 when the warp enlarges)
        smin = np.linalg.svd(m[:, :2].astype(np.float64), compute_uv=False)[-1]
        assert p["scale"] == min(k for k in (1, 2, 4, 8) if smin * k / 8 >= 1 - 1e-9 or k == 8), (w, smin)
        # a region smaller than the image when the footprint is (the enlargement here)
        if i == 3:
            assert p["roi"][2] * p["roi"][3] < size[0] * size[1] / 4
    assert sorted(set(scales)) == [1, 2, 4, 8], scales  # every scale is exercised


def gray_photo(h, w, seed, **save):
    """photo() as a grayscale (1-component) JPEG."""
    img = Image.open(io.BytesIO(photo(h, w, seed))).convert("L")
    f = io.BytesIO()
    img.save(f, "JPEG", quality=85, **save)
    return f.getvalue()


GRAY = [gray_photo(360, 480, 7), gray_photo(300, 300, 8, progressive=True), gray_photo(481, 359, 9),
        gray_photo(420, 560, 10), gray_photo(360, 480, 11), gray_photo(97, 131, 12)]


@pytest.mark.parametrize("background", [None, (50, 50, 50), BG])
def test_grayscale_files_equal_the_rgb_decode(background):
    """A grayscale JPEG goes through one channel (decoded with mode 'unchanged', warped once, copied)
    when every channel's background is the same: the bytes of its RGB decode warped by hand, at
    every scale, with supersampling and the full decode; another background takes the RGB path."""
    warps = [dict(w) for w in WARPS]
    warps[1]["max_supersampling"] = 3
    warps[4]["dct_scale"] = 8  # a recorded full-size decode
    for dct_scale in (True, False):
        dw = DecodeWarp(len(GRAY), (3,) + OUT, background=background, dct_scale=dct_scale)
        got, aug = run(dw, GRAY, warps)
        dec = augpy.Decoder()
        for i, (data, w) in enumerate(zip(GRAY, warps)):
            assert dec.info(data)["components"] == 1
            size = dec.info(data)["height"], dec.info(data)["width"]
            m = np.array(aug[i]["matrix"], np.float32).reshape(2, 3)
            _, s = augpy.make_transform(size, OUT, **{k: v for k, v in w.items() if k != "dct_scale"})
            by_hand = augpy.zeros((3,) + OUT, augpy.uint8)
            bg = [0, 0, 0] if background is None else list(background)
            if dct_scale:
                p = augpy.plan_decode(m, size, OUT, s, dct_scale=aug[i]["dct_scale"])
                img = dec.decode(data, roi=p["roi"], scale=(p["scale"], 8))
                augpy.warp_affine(img, by_hand, p["matrix"], bg, p["supersampling"])
            else:
                augpy.warp_affine(dec.decode(data), by_hand, m, bg, s)
            np.testing.assert_array_equal(got[i], by_hand.numpy(), err_msg=f"{w} {dct_scale}")
        # the one-channel decode: the samples the RGB decode repeats
        for data in GRAY:
            a = dec.decode(data, roi=(3, 5, 40, 61), scale=(4, 8), mode="unchanged").numpy()
            b = dec.decode(data, roi=(3, 5, 40, 61), scale=(4, 8)).numpy()
            assert a.shape == (40, 61, 1)
            np.testing.assert_array_equal(a[..., 0], b[..., 1])
            np.testing.assert_array_equal(dec.decode(data, mode="unchanged").numpy()[..., 0],
                                          dec.decode(data).numpy()[..., 2])


@pytest.mark.parametrize("stage", ["train", "train-bicubic", "eval"])
def test_imagenet_stages_take_the_one_channel_path(stage, monkeypatch):
    """ImageNetTrain and ImageNetEval decode a grayscale JPEG's planned region in one channel too
    (_decode_plan_warp with gray=True on the CPU) and give the bytes of the RGB path, which a stage
    whose backgrounds differ per channel takes (forced here, the crops being inside the image)."""
    from augpy import _decode_stage, _imagenet_stages
    from augpy.image import ImageNetTrain
    taken = []
    real = _decode_stage._decode_plan_warp

    def spy(*args):
        taken.append(args[-1])
        return real(*args)

    monkeypatch.setattr(_imagenet_stages, "_decode_plan_warp", spy)
    monkeypatch.setattr(_decode_stage, "_decode_plan_warp", spy)
    files = GRAY + IMAGES[:2]

    def make():
        if stage == "eval":
            return ImageNetEval(len(files), 40, 46, dct_scale=True)
        return ImageNetTrain(len(files), 40, seed=5, dct_scale=True,
                             interpolation="bicubic" if stage == "train-bicubic" else "bilinear")

    one = make()
    got = one({"image": files})["image"].numpy().copy()
    assert taken == [True] * len(GRAY) + [False, False] or ON_CUDA
    rgb = make()
    rgb._gray_once = False
    taken.clear()
    want = rgb({"image": files})["image"].numpy()
    assert True not in taken
    np.testing.assert_array_equal(got, want)
    assert (got[:len(GRAY), 0] == got[:len(GRAY), 2]).all()


@pytest.mark.parametrize("i", range(len(IMAGES)))
def test_error_bound_against_float64_reference(i):
    """The documented bound: |scaled path - float64 warp of the full decode| per image, mean and
    max; the full-decode path is within rounding of the same reference (the reference's check)."""
    planned, _ = run(stage(), IMAGES[i:i + 1], WARPS[i:i + 1])
    full, _ = run(stage(False), IMAGES[i:i + 1], WARPS[i:i + 1])
    img = full_decode(IMAGES[i])
    m, s = augpy.make_transform(img.shape[:2], OUT, **WARPS[i])
    ref = reference(img, m, s)
    assert np.abs(full[0] - ref).max() <= 1.0, WARPS[i]
    diff = np.abs(planned[0] - ref)
    assert diff.mean() <= BOUND_MEAN and diff.max() <= BOUND_MAX, (WARPS[i], diff.mean(), diff.max())


def digest():
    """The bytes of the planned batch on this session's device (the CPU-session child prints it)."""
    got, aug = run(stage())
    return hashlib.sha256(got.tobytes()).hexdigest() + " " + ",".join(str(a["dct_scale"]) for a in aug)


def test_threads_and_device_give_the_same_bytes():
    one, aug1 = run(stage(threads=1))
    two, aug2 = run(stage(threads=2))
    np.testing.assert_array_equal(one, two)
    assert [a["dct_scale"] for a in aug1] == [a["dct_scale"] for a in aug2]
    if not ON_CUDA:
        return
    env = dict(os.environ, AUG_CUDA_BACKEND="off")
    env.pop("AUG_REQUIRE_CUDA", None)
    env.pop("AUG_DEVICE", None)
    code = "import test_decode_warp_dct as t; print(t.digest())"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=HERE,
                         timeout=300)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split()[-2:] == digest().split(), "the emulated device differs from the CPU"


def test_recorded_scale_replays():
    got, aug = run(stage())
    # the recorded dicts (warp keys, matrix, source_size, dct_scale) given back: the same bytes
    again = stage()({"image": IMAGES, "augmentation": aug})
    np.testing.assert_array_equal(again["image"].numpy(), got)
    assert [a["dct_scale"] for a in again["augmentation"]] == [a["dct_scale"] for a in aug]
    # a recorded scale is used as given: image 0 (planned at 1) decoded at 2 and at 8
    for m in (2, 8):
        forced = [dict(a) for a in aug]
        forced[0]["dct_scale"] = m
        out = stage()({"image": IMAGES, "augmentation": forced})
        assert out["augmentation"][0]["dct_scale"] == m
        np.testing.assert_array_equal(out["image"].numpy()[1:], got[1:])
        data, w = IMAGES[0], WARPS[0]
        dec = augpy.Decoder()
        size = dec.info(data)["height"], dec.info(data)["width"]
        mat, s = augpy.make_transform(size, OUT, **w)
        p = augpy.plan_decode(mat, size, OUT, s, dct_scale=m)
        by_hand = augpy.zeros((3,) + OUT, augpy.uint8)
        augpy.warp_affine(dec.decode(data, roi=p["roi"], scale=(m, 8)), by_hand, p["matrix"], list(BG),
                          p["supersampling"])
        np.testing.assert_array_equal(out["image"].numpy()[0], by_hand.numpy())
    # ImageNetEval records and replays the same way
    ev = ImageNetEval(len(IMAGES), size=OUT, resize=56, background=BG, dct_scale=True)
    first = ev({"image": IMAGES})
    assert [a["dct_scale"] for a in first["augmentation"]] == [2, 2, 2, 2, 2, 1]
    again = ev({"image": IMAGES, "augmentation": first["augmentation"]})
    np.testing.assert_array_equal(again["image"].numpy(), first["image"].numpy())


def test_off_switch_is_the_full_decode():
    off, aug = run(stage(False))
    assert [a["dct_scale"] for a in aug] == [8] * len(IMAGES)
    # a dict's dct_scale does not turn a stage that does not plan back on
    forced, _ = run(stage(False), warps=[dict(w, dct_scale=1) for w in WARPS])
    np.testing.assert_array_equal(forced, off)
    dec = augpy.Decoder()
    for i, (data, w) in enumerate(zip(IMAGES, WARPS)):
        img = dec.decode(data)
        m, s = augpy.make_transform(img.shape[:2], OUT, **w)
        by_hand = augpy.zeros((3,) + OUT, augpy.uint8)
        augpy.warp_affine(img, by_hand, m, list(BG), s)
        np.testing.assert_array_equal(off[i], by_hand.numpy())
    default, _ = run(stage(None))
    np.testing.assert_array_equal(default, run(stage())[0] if PLANS_BY_DEFAULT else off)


def test_decode_warp_function():
    got, aug = run(stage())
    dec = augpy.Decoder()
    for i, (data, w) in enumerate(zip(IMAGES, WARPS)):
        out = augpy.zeros((3,) + OUT, augpy.uint8)
        rec = decode_warp(data, out, list(BG), decoder=dec, dct_scale=True, **w)
        np.testing.assert_array_equal(out.numpy(), got[i])
        assert rec == {k: aug[i][k] for k in ("matrix", "source_size", "dct_scale")}
        # the default plans unless the decoder's engine is 'nvjpeg', as DecodeWarp's
        default = augpy.zeros((3,) + OUT, augpy.uint8)
        decode_warp(data, default, list(BG), decoder=dec, **w)
        want = got[i] if PLANS_BY_DEFAULT else run(stage(False), [data], [w])[0][0]
        np.testing.assert_array_equal(default.numpy(), want)
        # a matrix of one's own, and the off switch
        full = augpy.zeros((3,) + OUT, augpy.uint8)
        m, s = augpy.make_transform(rec["source_size"], OUT, **w)
        assert decode_warp(data, full, list(BG), matrix=m, supersampling=s, dct_scale=False)["dct_scale"] == 8
        np.testing.assert_array_equal(full.numpy(), run(stage(False), [data], [w])[0][0])
    png = io.BytesIO()
    Image.new("RGB", (200, 100), (9, 8, 7)).save(png, "PNG")
    out = augpy.zeros((3,) + OUT, augpy.uint8)
    assert decode_warp(png.getvalue(), out, scale=0.5)["dct_scale"] == 8  # PNG: always whole


def test_bad_scales_and_arguments():
    dw = stage(n=2)
    for bad, exc in ((3, ValueError), (0, ValueError), (16, ValueError), (True, TypeError), (2.0, TypeError),
                     ("4", TypeError)):
        with pytest.raises(exc, match=r"DecodeWarp: augmentation\[1\]\['dct_scale'\] must be"):
            dw({"image": IMAGES[:2], "augmentation": [{}, {"dct_scale": bad}]})
    with pytest.raises(ValueError, match=r"ImageNetEval: augmentation\[0\]\['dct_scale'\] must be 1, 2, 4 or 8"):
        ImageNetEval(1, size=OUT)({"image": IMAGES[:1], "augmentation": [{"dct_scale": 5}]})
    out = augpy.zeros((3,) + OUT, augpy.uint8)
    with pytest.raises(ValueError, match="decode_warp: dct_scale must be 1, 2, 4 or 8.*got 6"):
        decode_warp(IMAGES[0], out, dct_scale=6)
    with pytest.raises(ValueError, match="plan_decode: dct_scale must be 1, 2, 4 or 8.*got 3"):
        augpy.plan_decode(np.eye(2, 3), (100, 100), (10, 10), dct_scale=3)
    with pytest.raises(TypeError, match="decode_warp: give matrix or make_transform's keywords"):
        decode_warp(IMAGES[0], out, matrix=np.eye(2, 3), angle=3.0)
    with pytest.raises(ValueError, match=r"decode_warp: matrix must be a \(2, 3\) array"):
        decode_warp(IMAGES[0], out, matrix=[1.0, 2.0])
    with pytest.raises(ValueError, match=r"decode_warp: out must be a \(C, H, W\) tensor"):
        decode_warp(IMAGES[0], augpy.zeros(OUT, augpy.uint8))
    with pytest.raises(ValueError, match=r"decode_warp: matrix must be finite, got \[\[nan"):
        decode_warp(IMAGES[0], out, matrix=[[np.nan, 0, 0], [0, 1, 0]])
