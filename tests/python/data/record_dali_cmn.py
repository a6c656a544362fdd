"""Records NVIDIA DALI's CPU fn.crop_mirror_normalize results into dali_cmn.npz, the oracle of
test_normalize.py::test_matches_dali_recorded.

Needs DALI, which `make test` does not install. Run it from the repository root with the peers
venv, .venv-peers (`make bench-peers` creates it with the Makefile's pinned PEER_DEPS); it
expects nvidia-dali-cuda130==2.4.0 and refuses to record with other versions (peer_versions.py):
    .venv-peers/bin/python tests/python/data/record_dali_cmn.py
DALI's CPU operators run without a GPU (device_id=None). Each case stores its parameters as JSON
(the augpy keyword names, which are DALI's), its input images and DALI's outputs."""

from peer_versions import check_peers  # this folder's helper: the Makefile's pinned peer versions

check_peers(__doc__, "nvidia-dali-cuda130")  # before importing them

import json
import pathlib

import numpy as np
from nvidia.dali import fn, pipeline_def, types

DTYPES = {"float32": types.FLOAT, "float16": types.FLOAT16, "uint8": types.UINT8, "int8": types.INT8,
          "int16": types.INT16, "int32": types.INT32}


def images(seed, sizes, dtype="uint8", layout="HWC", channels=3):
    rng = np.random.default_rng(seed)
    out = []
    for h, w in sizes:
        shape = (h, w, channels) if layout == "HWC" else (channels, h, w)
        if dtype == "uint8":
            out.append(rng.integers(0, 256, shape, dtype=np.uint8))
        elif dtype == "int16":
            out.append(rng.integers(-2000, 2000, shape, dtype=np.int16))
        else:
            out.append((rng.standard_normal(shape) * 100).astype(dtype))
    return out


# Not recorded: a scalar mean and std together with several fill_values. DALI 2.4's CPU kernel then
# widens only the mean to one value per channel and reads the 1/std of channels >= 1 beyond its array
# (it gets 0: every channel but the first comes out 0); augpy applies the scalar to every channel.
# (name, images, parameters): parameters use augpy's keyword names (DALI's), with "dtype" a name and
# "mirror" a list of one flag per image (DALI gets it as a per-sample argument).
CASES = [
    ("basic_f32_nchw", images(1, [(20, 24), (17, 30), (32, 25)]),
     dict(crop=[12, 16], crop_pos_x=0.3, crop_pos_y=0.7, mean=[123.675, 116.28, 103.53], std=[58.395, 57.12, 57.375])),
    ("mirror_scale_shift", images(2, [(15, 16), (16, 15), (21, 19), (9, 12)]),
     dict(crop=[8, 10], mirror=[1, 0, 1, 1], mean=[10.0, 20.0, 30.0], std=[3.0, 7.0, 11.0], scale=1.5, shift=0.25)),
    ("pad_output", images(3, [(10, 11), (12, 13)]),
     dict(crop=[6, 7], pad_output=True, mean=[1.0, 2.0, 3.0], std=[2.0, 2.0, 2.0], fill_values=[7.0])),
    ("pad_output_hwc_fill4", images(4, [(10, 11)]),
     dict(crop=[12, 14], crop_pos_x=0.25, pad_output=True, output_layout="HWC", out_of_bounds_policy="pad",
          mean=[100.0, 110.0, 120.0], std=[50.0], fill_values=[7.0, 8.0, 9.0, 10.0])),
    ("float16_out", images(5, [(14, 18), (20, 22)]),
     dict(crop=[9, 11], dtype="float16", mean=[123.675, 116.28, 103.53], std=[58.395, 57.12, 57.375], mirror=[0, 1])),
    ("uint8_out", images(6, [(13, 17), (15, 15)]),
     dict(crop=[10, 10], dtype="uint8", mean=[20.0, 40.0, 60.0], std=[0.7, 0.9, 1.3], shift=10.0)),
    ("nhwc_out", images(7, [(16, 16), (18, 20)]),
     dict(crop=[7, 9], crop_pos_x=0.9, crop_pos_y=0.1, output_layout="HWC", mean=[5.0], std=[9.0], mirror=[1, 1])),
    ("oob_pad_mirror", images(8, [(6, 9), (8, 5)]),
     dict(crop=[10, 12], crop_pos_x=0.625, out_of_bounds_policy="pad", fill_values=[-1.0, 255.0, 3.5],
          mean=[1.0, 2.0, 3.0], std=[4.0, 5.0, 6.0], mirror=[1, 0])),
    ("oob_trim", images(9, [(6, 9)]),
     dict(crop=[4, 12], crop_pos_x=0.2, out_of_bounds_policy="trim_to_shape", mean=[0.5], std=[2.0])),
    ("chw_in_hwc_out", images(10, [(11, 13), (12, 12)], layout="CHW"),
     dict(input_layout="CHW", output_layout="HWC", crop=[5, 6], mirror=[1, 0], mean=[3.0, 2.0, 1.0], std=[0.5])),
    ("int16_in_int8_out", images(11, [(9, 9), (10, 8)], dtype="int16"),
     dict(crop=[6, 6], dtype="int8", mean=[0.0], std=[16.0])),
    ("float32_in_int8_out_plain", images(12, [(8, 9)], dtype="float32"),
     dict(dtype="int8", crop=[5, 5])),
    ("int16_in_float16_identity", images(13, [(7, 8)], dtype="int16"),
     dict(dtype="float16", crop=[4, 6], crop_pos_x=1.0, crop_pos_y=0.0)),
    ("gray_one_channel", images(14, [(12, 10), (11, 14)], channels=1),
     dict(crop=[8, 8], pad_output=True, mean=[128.0], std=[64.0], mirror=[0, 1])),
]


def run_dali(imgs, params):
    kw = dict(params)
    layout = kw.pop("input_layout", "HWC")
    mirror = kw.pop("mirror", None)
    if "dtype" in kw:
        kw["dtype"] = DTYPES[kw["dtype"]]
    if "crop" in kw:
        kw["crop"] = [float(v) for v in kw["crop"]]

    @pipeline_def(batch_size=len(imgs), num_threads=1, device_id=None)
    def pipe():
        x = fn.external_source(source=lambda: imgs, batch=True, layout=layout)
        if mirror is not None:
            m = fn.external_source(source=lambda: [np.array(v, dtype=np.int32) for v in mirror], batch=True)
            return fn.crop_mirror_normalize(x, mirror=m, **kw)
        return fn.crop_mirror_normalize(x, **kw)
    p = pipe()
    p.build()
    out = p.run()[0]
    return [np.array(out[i]) for i in range(len(imgs))]


def main():
    data = {}
    names = []
    for name, imgs, params in CASES:
        outs = run_dali(imgs, params)
        names.append(name)
        data[f"{name}/params"] = np.array(json.dumps(params))
        for i, (a, o) in enumerate(zip(imgs, outs)):
            data[f"{name}/in{i}"] = a
            data[f"{name}/out{i}"] = o
        print(name, [o.shape for o in outs], outs[0].dtype)
    data["cases"] = np.array(json.dumps(names))
    path = pathlib.Path(__file__).with_name("dali_cmn.npz")
    np.savez_compressed(path, **data)
    print("wrote", path, path.stat().st_size, "bytes")


if __name__ == "__main__":
    main()
