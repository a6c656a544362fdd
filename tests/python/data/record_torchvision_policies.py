"""Records torchvision's RandAugment and TrivialAugmentWide (transforms.v2) pieces into
torchvision_policies.npz, the oracle of tests/python/test_policies.py: their magnitude tables
(31 bins, for a 24 x 32 image) and the result of each op at several magnitudes, and of two-op
chains, through the policies' own _apply_image_or_video_transform on uint8 and float32 CHW
images (nearest sampling, fill None: torchvision's defaults).

Needs torch and torchvision, which `make test` does not install. Run it from the repository root
with the peers venv, .venv-peers (`make bench-peers` creates it with the Makefile's pinned
PEER_DEPS); it expects torch==2.15.0 and torchvision==0.29.2 and refuses to record with other
versions (peer_versions.py):
    .venv-peers/bin/python tests/python/data/record_torchvision_policies.py
Keys: u8 (3, 24, 32), f32; table_<policy>_<op>; chain<i>_ops (a JSON list of [op, magnitude]),
chain<i>_<u8|f32>."""

from peer_versions import check_peers  # this folder's helper: the Makefile's pinned peer versions

check_peers(__doc__, "torch", "torchvision")  # before importing them

import json
import pathlib

import numpy as np
import torch
from torchvision.transforms import v2
from PIL import Image

HERE = pathlib.Path(__file__).parent
SAMPLE = HERE.parents[2] / "python" / "augpy" / "samples" / "sample_00.jpg"


def main():
    torch.set_num_threads(1)
    photo = np.asarray(Image.open(SAMPLE).convert("RGB"))
    y, x = photo.shape[0] // 2 - 12, photo.shape[1] // 2 - 16
    u8 = np.ascontiguousarray(photo[y:y + 24, x:x + 32].transpose(2, 0, 1))
    f32 = (u8 / np.float32(255)).astype(np.float32)
    out = {"u8": u8, "f32": f32}
    ra, ta = v2.RandAugment(), v2.TrivialAugmentWide()
    for name, policy in (("RandAugment", ra), ("TrivialAugmentWide", ta)):
        for op, (fn, _) in policy._AUGMENTATION_SPACE.items():
            table = fn(31, 24, 32)
            if table is not None:
                out[f"table_{name}_{op}"] = table.numpy()
    chains = []
    for op, (fn, signed) in ra._AUGMENTATION_SPACE.items():
        table = fn(31, 24, 32)
        if table is None:
            chains.append([[op, 0.0]])
            continue
        for b in (0, 9, 30):
            m = float(table[b])
            chains.append([[op, m]])
            if signed and b == 9:
                chains.append([[op, -m]])
    chains += [[["Invert", 0.0]], [["Rotate", 9.0], ["Posterize", 6.0]], [["Solarize", 0.7], ["Contrast", -0.27]],
               [["ShearX", 0.09], ["Brightness", 0.27]], [["Equalize", 0.0], ["TranslateY", -4.0]],
               [["Color", 0.5], ["AutoContrast", 0.0]], [["Sharpness", -0.6], ["Rotate", -21.0]]]
    for i, ops in enumerate(chains):
        out[f"chain{i}_ops"] = np.array(json.dumps(ops))
        for dname, image in (("u8", u8), ("f32", f32)):
            t = torch.from_numpy(image)
            for op, m in ops:
                t = ra._apply_image_or_video_transform(t, op, m, interpolation=v2.InterpolationMode.NEAREST,
                                                       fill=ra._fill)
            out[f"chain{i}_{dname}"] = t.numpy()
    np.savez_compressed(HERE / "torchvision_policies.npz", **out)
    print(f"wrote {HERE / 'torchvision_policies.npz'}: {len(chains)} chains")


if __name__ == "__main__":
    main()
