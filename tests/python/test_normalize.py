"""augpy.crop_mirror_normalize against DALI's own CPU outputs (data/dali_cmn.npz, recorded by
data/record_dali_cmn.py) and against a NumPy reimplementation of DALI's arithmetic (crop by
indexing, DALI's float32 formula, saturate_cast per semantics §2), on the default device (CPU, or
the emulated cuda:0 under MODE=emu); plus views, batches and bad input."""
import json
import pathlib

import numpy as np
import pytest

import augpy
import filterref as R

DATA = np.load(pathlib.Path(__file__).with_name("data") / "dali_cmn.npz")


def tensor(a):
    return augpy.array_to_tensor(np.ascontiguousarray(a))


def consts(c, mean, std, scale, shift):
    """DALI's per-channel float constants: fma(-shift, std / scale, mean) and scale / std in double."""
    mean = np.broadcast_to(np.asarray(mean, np.float32).astype(np.float64), (c,))
    std = np.broadcast_to(np.asarray(std, np.float32).astype(np.float64), (c,))
    scale, shift = float(np.float32(scale)), float(np.float32(shift))
    # fma in double: -shift * (std / scale) + mean with one rounding; exact via Python fractions
    from fractions import Fraction
    m = np.array([float(Fraction(-shift) * Fraction(float(s / scale)) + Fraction(float(mv)))
                  for s, mv in zip(std, mean)]).astype(np.float32)
    inv = (scale / std).astype(np.float32)
    return m, inv


def reference(img, crop=None, pos=(0.5, 0.5), anchor=None, mirror=0, mean=0.0, std=1.0, scale=1.0, shift=0.0,
              fill=0.0, dtype="float32", in_chw=False, out_hwc=False, pad_output=False, oob="error"):
    """One image, float64-free: windows by indexing, DALI's float32 formula, semantics §2 saturation."""
    x = np.moveaxis(img, 0, 2) if in_chw else img
    h, w, c = x.shape
    ch, cw = crop if crop else (h, w)
    if anchor is None:
        ay = int(np.floor(abs(float(np.float32(pos[0])) * (h - ch)) + 0.5) * np.sign(h - ch))
        ax = int(np.floor(abs(float(np.float32(pos[1])) * (w - cw)) + 0.5) * np.sign(w - cw))
    else:
        ay, ax = anchor
    if oob == "trim_to_shape":
        y0, y1, x0, x1 = max(ay, 0), min(ay + ch, h), max(ax, 0), min(ax + cw, w)
        ay, ax, ch, cw = y0, x0, y1 - y0, x1 - x0
    cout = 1 << (c - 1).bit_length() if pad_output else c
    m, inv = consts(c, mean, std, scale, shift)
    normalize = np.any(m != 0) or np.any(inv != 1)
    fillv = np.zeros(cout)
    f = np.atleast_1d(np.asarray(fill, np.float32)).astype(np.float64)
    for k in range(cout):
        if k < c or oob == "pad":
            fillv[k] = f[0] if f.size == 1 else (f[k] if k < f.size else 0.0)
    out = np.empty((ch, cw, cout), np.float64)
    ys = ay + np.arange(ch)
    xs = ax + (np.arange(cw)[::-1] if mirror else np.arange(cw))
    inside = (ys[:, None] >= 0) & (ys[:, None] < h) & (xs[None, :] >= 0) & (xs[None, :] < w)
    src = x[np.clip(ys, 0, h - 1)][:, np.clip(xs, 0, w - 1)]
    for k in range(cout):
        if k >= c:
            out[..., k] = fillv[k]
            continue
        if normalize:
            v = (R.saturate(src[..., k].astype(np.float64), "float32").astype(np.float32) - m[k]) * inv[k]
            v = v.astype(np.float64)
        else:
            v = src[..., k].astype(np.float64)
        out[..., k] = np.where(inside, v, fillv[k])
    if dtype in ("float16", "bfloat16"):  # saturate_cast: finite values stop at the largest finite one
        big = float(np.finfo(np.float16).max) if dtype == "float16" else 3.3895313892515355e38
        out = np.where(np.isinf(out), out, np.clip(out, -big, big))
    res = R.saturate(out, dtype) if dtype != "float32" else out.astype(np.float32)
    res = np.asarray(res)
    return res if out_hwc else np.moveaxis(res, 2, 0)


def kwargs_of(params):
    kw = dict(params)
    if "dtype" in kw:
        kw["dtype"] = R.adtype(kw["dtype"])
    return kw


def ties(params, img, n_out):
    """Where DALI's float32 value is exactly halfway between integers (DALI's CPU rounds those away from
    zero, augpy half to even, as DALI's GPU)."""
    kw = dict(params)
    r = reference(img, crop=kw.get("crop"), pos=(kw.get("crop_pos_y", 0.5), kw.get("crop_pos_x", 0.5)),
                  mirror=0, mean=kw.get("mean", 0.0), std=kw.get("std", 1.0), scale=kw.get("scale", 1.0),
                  shift=kw.get("shift", 0.0), in_chw=kw.get("input_layout") == "CHW",
                  out_hwc=kw.get("output_layout") == "HWC", dtype="float32", fill=kw.get("fill_values", 0.0),
                  pad_output=kw.get("pad_output", False), oob=kw.get("out_of_bounds_policy", "error"))
    return np.abs(r - np.floor(r)) == 0.5


@pytest.mark.parametrize("case", json.loads(str(DATA["cases"])))
def test_matches_dali_recorded(case):
    params = json.loads(str(DATA[f"{case}/params"]))
    n = sum(1 for k in DATA.files if k.startswith(f"{case}/in"))
    imgs = [DATA[f"{case}/in{i}"] for i in range(n)]
    want = [DATA[f"{case}/out{i}"] for i in range(n)]
    got = augpy.crop_mirror_normalize([tensor(a) for a in imgs], **kwargs_of(params))
    got = got.numpy()
    assert got.shape == (n,) + want[0].shape
    for i in range(n):
        g, w = got[i], want[i]
        assert g.dtype == w.dtype
        if w.dtype.kind == "f":
            # DALI computes in float32 exactly as documented: bit-identical
            np.testing.assert_array_equal(g, w)
        else:
            mirror = params.get("mirror", [0] * n)[i]
            t = ties(params, imgs[i], n)
            if mirror:
                t = t[..., ::-1] if params.get("output_layout") != "HWC" else t[:, ::-1]
            np.testing.assert_array_equal(g[~t], w[~t])
            assert (np.abs(g[t].astype(np.int64) - w[t].astype(np.int64)) <= 1).all()


IN_DTYPES = ["uint8", "int8", "int16", "uint16", "int32", "int64", "float16", "float32", "float64", "bool"]
OUT_DTYPES = ["float32", "float16", "uint8", "int8", "int16", "int32", "uint16", "float64", "bfloat16"]


@pytest.mark.parametrize("din", IN_DTYPES)
@pytest.mark.parametrize("dout", OUT_DTYPES)
def test_reference_dtypes(rng, din, dout):
    imgs = [R.random_image(rng, (9 + i, 11 - i, 3), din) for i in range(3)]
    kw = dict(crop=(5, 6), pos=(0.2, 0.8), mean=[12.5, -3.0, 100.0], std=[3.0, 0.25, 40.0], scale=2.0, shift=-1.5)
    got = augpy.crop_mirror_normalize([R.make(a, din) for a in imgs], crop=(5, 6), crop_pos_y=0.2, crop_pos_x=0.8,
                                      mirror=[0, 1, 1], mean=kw["mean"], std=kw["std"], scale=2.0, shift=-1.5,
                                      dtype=R.adtype(dout))
    got = R.read(got)
    for i, a in enumerate(imgs):
        want = reference(a, crop=(5, 6), pos=(0.2, 0.8), mirror=(0, 1, 1)[i], mean=kw["mean"], std=kw["std"],
                         scale=2.0, shift=-1.5, dtype=dout)
        np.testing.assert_array_equal(np.asarray(got[i], np.float64), np.asarray(want, np.float64))


@pytest.mark.parametrize("din,dout", [("uint8", "int32"), ("int64", "int64"), ("int32", "float32"),
                                      ("float64", "float32"), ("uint16", "uint8")])
def test_no_normalization_converts_directly(rng, din, dout):
    """mean 0, std 1: values are converted directly, exactly (DALI's ConvertSat of the element)."""
    a = R.random_image(rng, (6, 7, 2), din)
    got = R.read(augpy.crop_mirror_normalize(R.make(a, din), crop=(4, 5), dtype=R.adtype(dout), mirror=1))
    want = reference(a, crop=(4, 5), mirror=1, dtype=dout)
    np.testing.assert_array_equal(np.asarray(got, np.float64), np.asarray(want, np.float64))


@pytest.mark.parametrize("oob", ["pad", "trim_to_shape"])
@pytest.mark.parametrize("out_hwc", [False, True])
@pytest.mark.parametrize("in_chw", [False, True])
def test_reference_layouts_and_policies(rng, oob, out_hwc, in_chw):
    imgs = [rng.integers(0, 256, (3, 7, 8) if in_chw else (7, 8, 3), dtype=np.uint8) for _ in range(2)]
    anchors = [(-2, 3), (1, -4)] if oob == "pad" else [(-2, 3), (-2, 3)]
    got = augpy.crop_mirror_normalize([tensor(a) for a in imgs], crop=(9, 8), anchor=anchors, mirror=[1, 0],
                                      mean=[10, 20, 30], std=2.0, fill_values=[-1, -2, -3, -4], pad_output=True,
                                      out_of_bounds_policy=oob, input_layout="CHW" if in_chw else "HWC",
                                      output_layout="HWC" if out_hwc else "CHW")
    assert got.layout == ("NHWC" if out_hwc else "NCHW")
    for i, a in enumerate(imgs):
        want = reference(a, crop=(9, 8), anchor=anchors[i], mirror=(1, 0)[i], mean=[10, 20, 30], std=2.0,
                         fill=[-1, -2, -3, -4], pad_output=True, oob=oob, in_chw=in_chw, out_hwc=out_hwc)
        np.testing.assert_array_equal(got.numpy()[i], want)


def test_single_image_and_defaults(rng):
    a = rng.integers(0, 256, (5, 6, 3), dtype=np.uint8)
    got = augpy.crop_mirror_normalize(tensor(a))
    assert got.shape == (3, 5, 6) and got.dtype == augpy.float32 and got.layout == "CHW"
    np.testing.assert_array_equal(got.numpy(), a.transpose(2, 0, 1).astype(np.float32))
    got = augpy.crop_mirror_normalize(tensor(a), output_layout="HWC", dtype=augpy.uint8, mirror=True)
    np.testing.assert_array_equal(got.numpy(), a[:, ::-1])


def test_views_equal_contiguous(rng):
    """Strided inputs (a crop of a batch, a flipped view, a transposed CHW view) are read in place."""
    base = rng.integers(0, 256, (4, 12, 14, 3), dtype=np.uint8)
    t = tensor(base)
    kw = dict(crop=(6, 7), crop_pos_x=0.3, mean=[1, 2, 3], std=[4, 5, 6], mirror=[1, 0, 1])
    views = [t[1:, 2:11, ::-1], t[:3, ::-2, 1:13], t[:3, :, :, ::-1]]
    for v in views:
        want = augpy.crop_mirror_normalize(v.contiguous(), **kw).numpy()
        np.testing.assert_array_equal(augpy.crop_mirror_normalize(v, **kw).numpy(), want)
        np.testing.assert_array_equal(augpy.crop_mirror_normalize([v[i] for i in range(3)], **kw).numpy(), want)
    chw = t[0].permute(2, 0, 1)  # a (C, H, W) view of an HWC image
    want = augpy.crop_mirror_normalize(t[0], crop=(5, 5), output_layout="HWC").numpy()
    got = augpy.crop_mirror_normalize(chw, crop=(5, 5), input_layout="CHW", output_layout="HWC").numpy()
    np.testing.assert_array_equal(got, want)


def test_out_argument(rng):
    a = rng.integers(0, 256, (2, 6, 6, 3), dtype=np.uint8)
    out = augpy.Tensor((2, 3, 4, 4), augpy.float16) if hasattr(augpy, "Tensor") else None
    out = augpy.empty((2, 3, 4, 4), dtype=augpy.float16)
    r = augpy.crop_mirror_normalize(tensor(a), crop=(4, 4), dtype=augpy.float16, out=out)
    assert r is out
    np.testing.assert_array_equal(out.numpy(), augpy.crop_mirror_normalize(tensor(a), crop=(4, 4),
                                                                           dtype=augpy.float16).numpy())


def test_dtype_names_accepted(rng):
    a = tensor(rng.integers(0, 256, (4, 4, 3), dtype=np.uint8))
    assert augpy.crop_mirror_normalize(a, output_layout="NHWC").shape == (4, 4, 3)


BAD = [
    (dict(std=0.0), ValueError, "std[0] must not be 0"),
    (dict(std=float("nan")), ValueError, "must be finite"),
    (dict(mean=[1.0, float("inf"), 2.0]), ValueError, "mean[1]"),
    (dict(mean=[1.0, 2.0]), ValueError, "mean has 2 values but the images have 3 channels"),
    (dict(std=[1.0, 2.0, 3.0, 4.0]), ValueError, "std has 4 values"),
    (dict(fill_values=[1.0, 2.0]), ValueError, "fill_values has 2 values"),
    (dict(fill_values=float("nan")), ValueError, "fill_values[0] is NaN"),
    (dict(scale=0.0), ValueError, "scale"),
    (dict(shift=float("inf")), ValueError, "shift"),
    (dict(crop=(9, 4)), ValueError, "reaches outside"),
    (dict(crop=(4, 4), anchor=(0, 5)), ValueError, "columns [5, 9) of 8"),
    (dict(crop=(2, 2), crop_pos_x=1.5), ValueError, "crop_pos_x"),
    (dict(crop=(2, 2), crop_pos_y=-0.1), ValueError, "crop_pos_y"),
    (dict(crop=(-1, 2)), ValueError, "must not be negative"),
    (dict(crop=(1, 2, 3)), ValueError, "crop must be a (h, w) pair"),
    (dict(crop=(2, 2), crop_h=3), ValueError, "not both"),
    (dict(crop=(2, 2), anchor=(0, 0), crop_pos_x=0.1), ValueError, "not both"),
    (dict(output_layout="WHC"), ValueError, "out_layout 'WHC' is not supported (HWC, CHW, NHWC, NCHW)"),
    (dict(out_layout="WHC"), ValueError, "out_layout 'WHC' is not supported"),
    (dict(input_layout="NCWH"), ValueError, "layout 'NCWH' is not supported"),
    (dict(layout="NCWH"), ValueError, "layout 'NCWH' is not supported"),
    (dict(out_of_bounds_policy="wrap"), ValueError, "out_of_bounds_policy"),
    (dict(dtype="float31"), TypeError, "float31"),
    (dict(mirror=2), ValueError, "mirror values must be 0 or 1"),
    (dict(mean="abc"), TypeError, "mean"),
]


@pytest.mark.parametrize("kw,exc,msg", BAD, ids=[str(b[0]) for b in BAD])
def test_bad_input(rng, kw, exc, msg):
    a = tensor(rng.integers(0, 256, (6, 8, 3), dtype=np.uint8))
    with pytest.raises(exc) as e:
        augpy.crop_mirror_normalize(a, **kw)
    assert "crop_mirror_normalize" in str(e.value) and msg in str(e.value), str(e.value)


def test_bad_images(rng):
    a = tensor(rng.integers(0, 256, (6, 8, 3), dtype=np.uint8))
    b = tensor(rng.integers(0, 256, (6, 9, 3), dtype=np.uint8))
    with pytest.raises(ValueError, match="one output size"):
        augpy.crop_mirror_normalize([a, b])
    with pytest.raises(ValueError, match="channels"):
        augpy.crop_mirror_normalize([a, tensor(np.zeros((6, 8, 4), np.uint8))], crop=(2, 2))
    with pytest.raises(TypeError, match="image 1 is int16"):
        augpy.crop_mirror_normalize([a, tensor(np.zeros((6, 8, 3), np.int16))], crop=(2, 2))
    with pytest.raises(ValueError, match="2-D"):
        augpy.crop_mirror_normalize(tensor(np.zeros((6, 8), np.uint8)))
    with pytest.raises(ValueError, match="no images"):
        augpy.crop_mirror_normalize([])
    with pytest.raises(TypeError, match="images"):
        augpy.crop_mirror_normalize(5)
    with pytest.raises(ValueError, match="crop_pos_x has 1 values for 2 images"):
        augpy.crop_mirror_normalize([a, a], crop=(2, 2), crop_pos_x=[0.5])
    with pytest.raises(ValueError, match="out has shape"):
        augpy.crop_mirror_normalize(a, out=augpy.empty((3, 6, 7), dtype=augpy.float32))
    with pytest.raises(TypeError, match="out has dtype"):
        augpy.crop_mirror_normalize(a, out=augpy.empty((3, 6, 8), dtype=augpy.float16))
    with pytest.raises(ValueError, match="out shares memory"):
        big = augpy.empty((3, 6, 8), dtype=augpy.uint8)
        augpy.crop_mirror_normalize(big.permute(1, 2, 0), dtype=augpy.uint8, out=big)


@pytest.mark.parametrize("din", ["uint8", "int8", "bool"])
@pytest.mark.parametrize("dout", OUT_DTYPES)
def test_reference_8bit_tables(rng, din, dout):
    """8-bit inputs of more than 256 values per batch go through per-channel tables on the CPU."""
    imgs = [R.random_image(rng, (30, 33, 3), din) for _ in range(2)]
    kw = dict(mean=[12.5, -3.0, 100.0], std=[3.0, 0.25, 40.0], scale=2.0, shift=-1.5)
    got = R.read(augpy.crop_mirror_normalize([R.make(a, din) for a in imgs], crop=(20, 21), mirror=[1, 0],
                                             dtype=R.adtype(dout), **kw))
    for i, a in enumerate(imgs):
        want = reference(a, crop=(20, 21), mirror=(1, 0)[i], dtype=dout, **kw)
        np.testing.assert_array_equal(np.asarray(got[i], np.float64), np.asarray(want, np.float64))


@pytest.mark.parametrize("w", [1, 7, 65, 300])
@pytest.mark.parametrize("layout,c", [("CHW", 3), ("HWC", 3), ("HWC", 4)])
def test_uint8_to_float32_vector_path(rng, w, layout, c):
    """uint8 CHW planes or HWC pixels (3 or 4 channels) into float32 CHW rows, unmirrored and
    mirrored, take vectorised loops on the CPU: the same values as the reference, crop windows
    and padding included."""
    shape = (c, 9, w) if layout == "CHW" else (9, w, c)
    imgs = [rng.integers(0, 256, shape, dtype=np.uint8) for _ in range(3)]
    kw = dict(mean=[123.675, 116.28, 103.53, 10.0][:c], std=[58.395, 57.12, 57.375, 3.0][:c])
    cw = max(1, w - 2)
    for crop, pad in (((9, w), False), ((5, cw), False), ((5, cw), True)):
        got = R.read(augpy.crop_mirror_normalize([augpy.asarray(a) for a in imgs], crop=crop, mirror=[1, 0, 1],
                                                 input_layout=layout, pad_output=pad, **kw))
        for i, a in enumerate(imgs):
            want = reference(a, crop=crop, mirror=(1, 0, 1)[i], dtype="float32", pad_output=pad,
                             in_chw=layout == "CHW", **kw)
            np.testing.assert_array_equal(got[i], want)
