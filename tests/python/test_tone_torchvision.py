"""The tone ops against torchvision's own results (data/torchvision_tone.npz, recorded with
torchvision.transforms.v2.functional 0.29.2 on CPU tensors by data/record_torchvision_tone.py):
invert, posterize, solarize, equalize, autocontrast and adjust_sharpness bit for bit on uint8 CHW
images and float32 images, each image alone and the whole batch in one call (with one parameter
per image where there is one), on the session's device."""
import pathlib

import numpy as np
import pytest

import augpy

DATA = np.load(pathlib.Path(__file__).parent / "data" / "torchvision_tone.npz")


def run(op, images, p):
    if op in ("invert", "equalize", "autocontrast"):
        return augpy.tensor_to_array(getattr(augpy, op)(augpy.array_to_tensor(images)))
    fn = {"posterize": augpy.posterize, "solarize": augpy.solarize, "sharpness": augpy.adjust_sharpness}[op]
    return augpy.tensor_to_array(fn(augpy.array_to_tensor(images), p))


CASES = [(op, d) for op, ds in (("invert", ("u8", "f32")), ("posterize", ("u8", "f32")),
                                ("solarize_u8", ("u8",)), ("solarize_f32", ("f32",)),
                                ("equalize", ("u8", "f32")), ("autocontrast", ("u8", "f32")),
                                ("sharpness", ("u8", "f32"))) for d in ds]
PLAIN = ("invert", "equalize", "autocontrast")


@pytest.mark.parametrize("op,dname", CASES)
def test_each_image_matches_torchvision(op, dname):
    images = DATA[dname]
    params = DATA[f"{op}_params"]
    name = op.split("_")[0]
    for i, p in enumerate(params):
        want = DATA[f"{op}_{dname}_{i}"]
        p = None if np.isnan(p) else (int(p) if name == "posterize" else float(p))
        for k in range(len(images)):  # one image (C, H, W)
            got = run(name, images[k], p)
            assert got.dtype == want.dtype and np.array_equal(got, want[k]), (op, dname, p, k)


@pytest.mark.parametrize("op,dname", CASES)
def test_batch_matches_torchvision(op, dname):
    images, params = DATA[dname], DATA[f"{op}_params"]
    p = None if np.isnan(params[0]) else (int(params[0]) if op == "posterize" else float(params[0]))
    got = run(op.split("_")[0], images, p)  # the batch (N, C, H, W) in one call
    assert np.array_equal(got, DATA[f"{op}_{dname}_0"]), (op, dname)


@pytest.mark.parametrize("op,dname", [c for c in CASES if c[0] not in PLAIN])
def test_batch_with_a_parameter_per_image(op, dname):
    images, params = DATA[dname], DATA[f"{op}_params"]
    name = op.split("_")[0]
    n = len(images)
    idx = [(k * 3 + 1) % len(params) for k in range(n)]  # a different parameter per image
    p = [int(params[i]) if name == "posterize" else float(params[i]) for i in idx]
    got = run(name, images, p)
    for k in range(n):
        assert np.array_equal(got[k], DATA[f"{op}_{dname}_{idx[k]}"][k]), (op, dname, k)
