"""Bicubic warps (interpolation='cubic' / 'bicubic'; docs/warp.md "Bicubic"): warp_affine and
warp_perspective against an exact float64 NumPy evaluation of the definition (Keys' a = -0.75,
4 x 4 taps, the bounded coordinates and borders of the bilinear warp, the mean of s*s samples,
saturate_cast: round half to even), against OpenCV's INTER_CUBIC | WARP_INVERSE_MAP (recorded
in data/opencv_cubic.npz by data/record_opencv_cubic.py; within the documented bound), the
names and errors, and the stages' interpolation parameter (DecodeWarp, ImageNetTrain,
timm_train: 'random' draws per image and replays from the dict)."""
import io
import pathlib
import pickle

import numpy as np
import pytest
from PIL import Image

import augpy
from augpy.image import DecodeWarp, ImageNetTrain, timm_train

DATA = pathlib.Path(__file__).resolve().parent / "data" / "opencv_cubic.npz"
BORDERS = ["constant", "replicate", "reflect", "symmetric"]
A = -0.75


# ---- float64 reference of the definition ---------------------------------------------------------

def period(n, border):
    return {"reflect": 2 * n - 2, "symmetric": 2 * n}.get(border, 0)


def bound(v, n, border):
    p = period(n, border)
    if p == 0:
        return np.clip(v, -2.0, n + 1.0)
    r = np.fmod(v, float(p))
    return np.where(r < -2.0, r + p, r)


def index(i, n, border):
    """Source index of integer positions i (-1: outside, constant border)."""
    inside = (i >= 0) & (i < n)
    if border == "constant":
        return np.where(inside, i, -1)
    if border == "replicate" or n == 1:
        return np.clip(i, 0, n - 1)
    p = period(n, border)
    j = np.mod(i, p)
    return np.where(j < n, j, (p - j) if border == "reflect" else (p - 1 - j))


def weights(t):
    """Keys' weights of taps floor - 1 .. floor + 2 at fraction t, in scalar/warp.h's order."""
    t1, u = t + 1.0, 1.0 - t
    w0 = ((A * t1 - 5.0 * A) * t1 + 8.0 * A) * t1 - 4.0 * A
    w1 = ((A + 2.0) * t - (A + 3.0)) * t * t + 1.0
    w2 = ((A + 2.0) * u - (A + 3.0)) * u * u + 1.0
    return [w0, w1, w2, 1.0 - w0 - w1 - w2]


def points(m, Ht, Wt, s, i, j, H, W, border):
    """Bounded source points (sx, sy) of sample (i, j) and where they lie in the source plane."""
    m = np.asarray(m, np.float32).astype(np.float64)
    y, x = np.mgrid[0:Ht, 0:Wt].astype(np.float64)
    X, Y = x + (2 * i + 1 - s) / (2 * s), y + (2 * j + 1 - s) / (2 * s)
    sx, sy = m[0, 0] * X + (m[0, 1] * Y + m[0, 2]), m[1, 0] * X + (m[1, 1] * Y + m[1, 2])
    plane = np.ones_like(sx, bool)
    if m.shape[0] == 3:
        w = m[2, 0] * X + (m[2, 1] * Y + m[2, 2])
        plane = w > 0
        with np.errstate(all="ignore"):
            sx, sy = sx / w, sy / w
        plane &= np.isfinite(sx) & np.isfinite(sy)
        sx, sy = np.where(plane, sx, 0.0), np.where(plane, sy, 0.0)
    return bound(sx, W, border), bound(sy, H, border), plane


def ref_cubic(src, m, shape, bg, s, border):
    """(H, W, C) -> (C, Ht, Wt) float64: the mean of s*s bicubic samples."""
    H, W, C = src.shape
    srcf = src.astype(np.float64)
    bg = np.broadcast_to(np.asarray(bg, np.float64), (C,))
    acc = np.zeros(tuple(shape) + (C,))
    for j in range(s):
        for i in range(s):
            sx, sy, plane = points(m, shape[0], shape[1], s, i, j, H, W, border)
            fx0, fy0 = np.floor(sx), np.floor(sy)
            wx, wy = weights((sx - fx0)[..., None]), weights((sy - fy0)[..., None])
            ix, iy = fx0.astype(np.int64), fy0.astype(np.int64)
            outside = ~plane
            if border == "constant":
                outside |= (ix + 2 < 0) | (ix - 1 >= W) | (iy + 2 < 0) | (iy - 1 >= H)
            rows = []
            for q in range(4):
                jy = index(iy - 1 + q, H, border)
                r = None
                for u in range(4):
                    jx = index(ix - 1 + u, W, border)
                    a = np.where(((jx >= 0) & (jy >= 0))[..., None],
                                 srcf[np.clip(jy, 0, H - 1), np.clip(jx, 0, W - 1)], bg)
                    r = wx[u] * a if r is None else r + wx[u] * a
                rows.append(r)
            v = ((wy[0] * rows[0] + wy[1] * rows[1]) + wy[2] * rows[2]) + wy[3] * rows[3]
            acc += np.where(outside[..., None], bg, v)
    if s > 1:
        acc = acc / (s * s)
    return acc.transpose(2, 0, 1)


def store(v, dtype):
    """saturate_cast of the float64 values: integers round half to even and clamp."""
    dt = np.dtype(dtype)
    if dt.kind in "iu":
        info = np.iinfo(dt)
        return np.clip(np.rint(v), info.min, info.max).astype(dt)
    return v.astype(dt)


def warp(src, shape, m, bg=None, s=1, dtype=None, interpolation="cubic", border="constant"):
    dst = np.zeros((src.shape[2],) + tuple(shape), dtype or src.dtype)
    fn = augpy.warp_perspective if np.asarray(m).shape == (3, 3) else augpy.warp_affine
    fn(src, dst, np.asarray(m, np.float32), bg, s, interpolation=interpolation, border=border, layout="CHW",
       src_layout="HWC")
    return dst


def image(rng, h, w, c, dtype):
    y, x = np.mgrid[0:h, 0:w]
    base = np.stack([(x * 9 + y * 4) % 256, (x * y) % 251, 128 + 100 * np.sin(x / 3.0) * np.cos(y / 4.0)][:c], -1)
    noisy = base + rng.integers(-40, 41, base.shape)  # sharp edges: the overshoot saturates
    return np.clip(noisy, 0, 255).astype(dtype)


MATS = {
    "rotate_down": np.array([[1.3, -0.4, 3.5], [0.45, 1.25, -6.0]], np.float32),
    "enlarge": np.array([[0.37, 0.05, 9.2], [-0.04, 0.41, 4.7]], np.float32),
    "mirror_far": np.array([[-1.1, 0.2, 40.0], [0.1, 0.9, -25.0]], np.float32),
    "homography": np.array([[1.05, 0.12, -4.0], [0.03, 0.95, 1.5], [0.004, -0.003, 1.0]], np.float32),
    "horizon": np.array([[0.9, 0.0, 2.0], [0.0, 1.1, -1.0], [-0.06, 0.002, 1.0]], np.float32),  # w <= 0 inside
}


# ---- the definition, exactly ---------------------------------------------------------------------

@pytest.mark.parametrize("border", BORDERS)
@pytest.mark.parametrize("s", [1, 2, 3])
@pytest.mark.parametrize("which", list(MATS))
def test_cubic_float_exact(border, s, which):
    """float32 and float64 images equal the float64 reference (stored as the dtype) bit for bit."""
    rng = np.random.default_rng(s)
    m, bg = MATS[which], [7.5, -3.0, 300.25]
    src = image(rng, 21, 27, 3, np.float64) * 1.5 - 40.0
    ref = ref_cubic(src, m, (19, 23), bg, s, border)
    np.testing.assert_array_equal(warp(src, (19, 23), m, bg, s, border=border), ref)
    src32 = src.astype(np.float32)
    ref32 = ref_cubic(src32, m, (19, 23), bg, s, border)
    np.testing.assert_array_equal(warp(src32, (19, 23), m, bg, s, border=border), ref32.astype(np.float32))


@pytest.mark.parametrize("border", BORDERS)
@pytest.mark.parametrize("s", [1, 2])
@pytest.mark.parametrize("which", ["rotate_down", "enlarge", "homography"])
@pytest.mark.parametrize("dtype", ["uint8", "uint16", "int16"])
def test_cubic_integer_exact(border, s, which, dtype):
    """Integer outputs are the reference rounded half to even and saturated (cubic overshoots)."""
    rng = np.random.default_rng(3)
    src = image(rng, 18, 25, 3, np.uint8).astype(dtype)
    if dtype != "uint8":
        src = (src.astype(np.int64) * 120 - 9000).clip(np.iinfo(dtype).min, np.iinfo(dtype).max).astype(dtype)
    bg = [0, 255, 17]
    raw = ref_cubic(src, MATS[which], (16, 21), bg, s, border)
    got = warp(src, (16, 21), MATS[which], bg, s, border=border)
    np.testing.assert_array_equal(got, store(raw, dtype))
    if dtype == "uint8" and which == "rotate_down":
        assert (raw > 255.5).any() and (raw < -0.5).any()  # the overshoot saturates on both sides


def test_cubic_shift_reproduces_source():
    """An integer shift samples at fraction 0: weights (0, 1, 0, 0), the source exactly."""
    rng = np.random.default_rng(5)
    src = image(rng, 20, 24, 3, np.uint8)
    m = np.array([[1, 0, 2], [0, 1, 3]], np.float32)
    got = warp(src, (15, 20), m)
    np.testing.assert_array_equal(got, src[3:18, 2:22].transpose(2, 0, 1))


def test_cubic_perspective_affine_rows_equal_affine():
    rng = np.random.default_rng(6)
    src = image(rng, 23, 19, 3, np.uint8)
    m = MATS["rotate_down"]
    m3 = np.vstack([m, [0, 0, 1]]).astype(np.float32)
    for border in BORDERS:
        for s in (1, 2):
            np.testing.assert_array_equal(warp(src, (17, 21), m3, [5, 6, 7], s, border=border),
                                          warp(src, (17, 21), m, [5, 6, 7], s, border=border))


def test_cubic_batch_and_layouts_equal_single_calls():
    rng = np.random.default_rng(8)
    imgs = [image(rng, 20 + k, 26 - k, 3, np.uint8) for k in range(3)]
    mats = np.stack([MATS["rotate_down"], MATS["enlarge"], MATS["mirror_far"]])
    out = np.zeros((3, 3, 14, 17), np.uint8)
    augpy.warp_affine(imgs, out, mats, [1, 2, 3], [1, 2, 3], interpolation="bicubic", src_layout="HWC",
                      layout="NCHW")
    hwc = np.zeros((3, 14, 17, 3), np.uint8)
    augpy.warp_affine(imgs, hwc, mats, [1, 2, 3], [1, 2, 3], interpolation="cubic", src_layout="HWC", layout="NHWC")
    for k in range(3):
        one = warp(imgs[k], (14, 17), mats[k], [1, 2, 3], k + 1)
        np.testing.assert_array_equal(out[k], one)
        np.testing.assert_array_equal(hwc[k].transpose(2, 0, 1), one)


# ---- against OpenCV --------------------------------------------------------------------------------

# Measured on these 32 cases (OpenCV 5.0.0): uint8 equal except 9 of 68040 values, which differ
# by 1 (a shift by 14.37 px: OpenCV's positions are rounded to 1/32 px there), float32 (0..255
# values) within 8.5e-4. Excluded: perspective points farther than one source side beyond the
# edge (there OpenCV's reflecting borders are not periodic: up to 157 apart on case 30; augpy
# reflects as its bilinear warp does, tested against the definition above).
U8_MAX, U8_EQUAL, F32_MAX = 1, 0.999, 2e-3
CV_BORDER = {0: "constant", 1: "replicate", 2: "reflect", 3: "symmetric"}


def near_source(m, shape, H, W):
    """Output pixels whose source point lies within one side of the source (w > 0)."""
    y, x = np.mgrid[0:shape[0], 0:shape[1]].astype(np.float64)
    m = np.vstack([np.asarray(m, np.float64), [0.0, 0.0, 1.0]])[:3]
    w = m[2, 0] * x + m[2, 1] * y + m[2, 2]
    with np.errstate(all="ignore"):
        sx, sy = (m[0, 0] * x + m[0, 1] * y + m[0, 2]) / w, (m[1, 0] * x + m[1, 1] * y + m[1, 2]) / w
    return (w > 0) & (sx >= -W) & (sx < 2 * W) & (sy >= -H) & (sy < 2 * H)


def test_cubic_against_opencv():
    with np.load(DATA) as z:
        d = dict(z)
    n = sum(1 for k in d if k.endswith("_border"))
    assert n == 32
    H, W = d["src_u8"].shape[:2]
    du8, df32, far = [], [], 0
    for i in range(n):
        m, border = d[f"case{i}_m"], CV_BORDER[int(d[f"case{i}_border"])]
        cv = d[f"case{i}_u8"]
        keep = near_source(m, cv.shape[:2], H, W)
        far += (~keep).sum()
        got = warp(d["src_u8"], cv.shape[:2], m, 40.0, 1, border=border).transpose(1, 2, 0)
        du8.append(np.abs(got.astype(int) - cv.astype(int))[keep].ravel())
        if f"case{i}_f32" in d:
            gotf = warp(d["src_f32"], cv.shape[:2], m, 40.0, 1, border=border).transpose(1, 2, 0)
            df32.append(np.abs(gotf.astype(np.float64) - d[f"case{i}_f32"])[keep].ravel())
    du8, df32 = np.concatenate(du8), np.concatenate(df32)
    assert far < 0.05 * n * 24 * 30  # the exclusion is small
    assert du8.max() <= U8_MAX, du8.max()
    assert (du8 == 0).mean() >= U8_EQUAL, (du8 == 0).mean()
    assert df32.max() <= F32_MAX, df32.max()


# ---- names and errors ----------------------------------------------------------------------------

def test_cubic_names_and_errors():
    rng = np.random.default_rng(9)
    src = image(rng, 12, 13, 3, np.uint8)
    m = MATS["rotate_down"]
    a = warp(src, (9, 10), m, interpolation="cubic")
    for name in ("bicubic", "CUBIC", "inter_cubic"):
        np.testing.assert_array_equal(warp(src, (9, 10), m, interpolation=name), a)
    assert not np.array_equal(a, warp(src, (9, 10), m, interpolation="linear"))
    with pytest.raises(ValueError, match=r"augpy\.warp_affine: unknown interpolation 'lanczos' "
                                         r"\(expected 'linear', 'nearest', 'area' or 'cubic'\)"):
        warp(src, (9, 10), m, interpolation="lanczos")
    with pytest.raises(ValueError, match=r"augpy\.warp_perspective: unknown interpolation 'bicubicc'"):
        warp(src, (9, 10), MATS["homography"], interpolation="bicubicc")
    with pytest.raises(ValueError, match=r"augpy\.resize\w*: interpolation 'cubic' is not supported "
                                         r"\(linear, nearest, area\)"):
        augpy.resize(augpy.array_to_tensor(src), (4, 4), "cubic")


# ---- the stages ------------------------------------------------------------------------------------

def jpeg(h, w, seed):
    rng = np.random.default_rng(seed)
    f = io.BytesIO()
    Image.fromarray(image(rng, h, w, 3, np.uint8)).save(f, "JPEG", quality=92)
    return f.getvalue()


FILES = [jpeg(90, 120, 1), jpeg(120, 80, 2), jpeg(70, 70, 3), jpeg(100, 130, 4)]


def by_hand(data, a, shape, interp, planned=False):
    """Full decode (or the planned region decode) + warp_affine with make_transform's matrix."""
    dec = augpy.Decoder()
    info = dec.info(data)
    size = (info["height"], info["width"])
    m, s = augpy.make_transform(size, shape, **{k: a[k] for k in ("angle", "scale") if k in a})
    if planned:
        p = augpy.plan_decode(m, size, shape, s)
        img, m, s = dec.decode(data, roi=p["roi"], scale=(p["scale"], 8)), p["matrix"], p["supersampling"]
    else:
        img = dec.decode(data)
    dst = augpy.zeros((3,) + shape, augpy.uint8)  # on the decoder's device
    augpy.warp_affine(img, dst, np.asarray(m, np.float32).reshape(2, 3), [0, 0, 0], int(s), interpolation=interp)
    return dst.numpy()


def test_decode_warp_interpolation():
    params = [{"angle": 10.0}, {"scale": 1.3}, {}, {"angle": -20.0, "scale": 0.8}]
    shape = (30, 40)
    stage = DecodeWarp(4, (3,) + shape, dct_scale=False, interpolation="bicubic")
    out = stage({"image": FILES, "augmentation": params})
    got = out["image"].numpy()
    for k in range(4):
        assert out["augmentation"][k]["interpolation"] == "bicubic"
        np.testing.assert_array_equal(got[k], by_hand(FILES[k], params[k], shape, "cubic"))
    # a dict's interpolation wins; a bilinear stage records nothing for its own images
    lin = DecodeWarp(4, (3,) + shape, dct_scale=False)
    back = lin({"image": FILES, "augmentation": [dict(p, interpolation="bicubic") if k == 1 else p
                                                  for k, p in enumerate(params)]})
    np.testing.assert_array_equal(back["image"].numpy()[1], got[1])
    assert "interpolation" not in back["augmentation"][0]
    np.testing.assert_array_equal(back["image"].numpy()[0], by_hand(FILES[0], params[0], shape, "linear"))
    # the planned (region, DCT-scaled) decode reads every bicubic tap: it equals the region by hand
    planned = DecodeWarp(4, (3,) + shape, dct_scale=True, interpolation="cubic")
    assert planned.interpolation == "bicubic"
    pl = planned({"image": FILES, "augmentation": params})["image"].numpy()
    for k in range(4):
        np.testing.assert_array_equal(pl[k], by_hand(FILES[k], params[k], shape, "cubic", planned=True))
    with pytest.raises(ValueError, match=r"DecodeWarp: interpolation must be 'bilinear', 'bicubic', 'nearest', "
                                         r"got 'random'"):
        DecodeWarp(4, (3,) + shape, interpolation="random")
    with pytest.raises(ValueError, match=r"DecodeWarp: augmentation\[1\]\['interpolation'\] must be"):
        lin({"image": FILES[:2], "augmentation": [{}, {"interpolation": "lanczos"}]})


def test_imagenet_train_random_interpolation_draws_and_replays():
    stage = ImageNetTrain(8, 32, seed=11, interpolation="random")
    files = FILES * 2
    out = stage({"image": files})
    names = [a["interpolation"] for a in out["augmentation"]]
    assert set(names) <= {"bilinear", "bicubic"}
    first = out["image"].numpy().copy()
    recorded = [dict(a) for a in out["augmentation"]]
    # replayed by a stage with another setting: the dicts decide
    again = ImageNetTrain(8, 32, seed=99, interpolation="bilinear")({"image": files, "augmentation": recorded})
    np.testing.assert_array_equal(again["image"].numpy(), first)
    # a pure function of the seed model: the same rng gives the same draws
    same = ImageNetTrain(8, 32, seed=11, interpolation="random")({"image": files})
    assert [a["interpolation"] for a in same["augmentation"]] == names
    # forcing one image's interpolation changes only that image
    forced = [dict(a) for a in recorded]
    k = 3
    forced[k]["interpolation"] = "bicubic" if names[k] == "bilinear" else "bilinear"
    other = ImageNetTrain(8, 32, interpolation="random")({"image": files, "augmentation": forced})["image"].numpy()
    assert not np.array_equal(other[k], first[k])
    np.testing.assert_array_equal(np.delete(other, k, 0), np.delete(first, k, 0))


def test_imagenet_train_random_is_a_fair_draw():
    """Each image draws bilinear or bicubic with probability 1/2 (timm's random.choice)."""
    n = 400
    stage = ImageNetTrain(n, 8, seed=5, interpolation="random")
    rng_dicts = [{"rng": (5, 0, k)} for k in range(n)]
    stage._rng_states(rng_dicts)
    stage._draw_interpolations(rng_dicts, "ImageNetTrain")
    bicubic = sum(d["interpolation"] == "bicubic" for d in rng_dicts)
    assert abs(bicubic - n / 2) < 4 * (n / 4) ** 0.5  # 4 sigma of Binomial(400, 1/2)


def test_imagenet_train_bicubic_and_errors():
    a = ImageNetTrain(4, 24, seed=3, interpolation="bicubic")({"image": FILES})
    b = ImageNetTrain(4, 24, seed=3)({"image": FILES})
    assert all(d["interpolation"] == "bicubic" for d in a["augmentation"])
    assert all("interpolation" not in d for d in b["augmentation"])
    assert [d["crop"] for d in a["augmentation"]] == [d["crop"] for d in b["augmentation"]]
    assert not np.array_equal(a["image"].numpy(), b["image"].numpy())  # the same crops, another kernel
    with pytest.raises(ValueError, match=r"ImageNetTrain: interpolation must be 'bilinear', 'bicubic', "
                                         r"'nearest' or 'random', got 'area'"):
        ImageNetTrain(4, 24, interpolation="area")
    st = ImageNetTrain(4, 24, interpolation="random")
    assert pickle.loads(pickle.dumps(st)).interpolation == "random"


def test_timm_train_interpolation():
    stage = timm_train(4, 24, seed=1, interpolation="random", auto_augment=None, re_prob=0.0)
    assert isinstance(stage, ImageNetTrain) and stage.interpolation == "random"
    out = stage({"image": FILES})
    assert {a["interpolation"] for a in out["augmentation"]} <= {"bilinear", "bicubic"}
    assert timm_train(4, 24, auto_augment=None, re_prob=0.0).interpolation == "bilinear"
    with pytest.raises(ValueError, match=r"ImageNetTrain: interpolation must be"):
        timm_train(4, 24, interpolation="lanczos")
