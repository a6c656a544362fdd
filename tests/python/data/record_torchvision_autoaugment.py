"""Records torchvision's AutoAugment and AugMix (transforms.v2) into torchvision_autoaugment.npz,
the oracle of tests/python/test_autoaugment.py: their magnitude tables (10 bins, for a 24 x 32
image) and whole runs of the transforms' own forward on uint8 and float32 CHW images, with the
ops and magnitudes each run drew (logged from _apply_image_or_video_transform) and, for AugMix,
its Dirichlet draws (logged from _sample_dirichlet) and the combined weights as forward computes
them. augpy replays the logged choices and must give the recorded images.

Needs torch and torchvision, which `make test` does not install. Run it from the repository root
with the peers venv, .venv-peers (`make bench-peers` creates it with the Makefile's pinned
PEER_DEPS); it expects torch==2.15.0 and torchvision==0.29.2 and refuses to record with other
versions (peer_versions.py):
    .venv-peers/bin/python tests/python/data/record_torchvision_autoaugment.py
Keys: u8 (3, 24, 32), f32; table_<AutoAugment|AugMix>_<op>; aa<i>_policy (its name), aa<i>_dtype,
aa<i>_ops (JSON [[op, magnitude], ...]), aa<i>_out; am<i>_params (JSON: severity, mixture_width,
chain_depth, alpha, all_ops, interpolation), am<i>_dtype, am<i>_chains (JSON [[[op, magnitude],
...], ...]), am<i>_m (float32 (2,)), am<i>_weights (float32 (mixture_width,)), am<i>_out."""

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


class Logged:
    """Wraps a transform's _apply_image_or_video_transform (and _sample_dirichlet) to log what
    forward drew; a chain of AugMix starts where the op's input is the original image."""

    def __init__(self, transform, image):
        self.t, self.image, self.chains, self.dirichlet = transform, image, [], []
        apply, sample = transform._apply_image_or_video_transform, getattr(transform, "_sample_dirichlet", None)

        def logged_apply(inpt, op, magnitude, **kw):
            if inpt.data_ptr() == self.image.data_ptr() or not self.chains:
                self.chains.append([])
            self.chains[-1].append([op, float(magnitude)])
            out = apply(inpt, op, magnitude, **kw)
            assert out.data_ptr() != self.image.data_ptr()
            return out

        transform._apply_image_or_video_transform = logged_apply
        if sample is not None:
            def logged_sample(params):
                d = sample(params)
                self.dirichlet.append(d.clone())
                return d
            transform._sample_dirichlet = logged_sample


def main():
    torch.set_num_threads(1)
    photo = np.asarray(Image.open(SAMPLE).convert("RGB"))
    y, x = photo.shape[0] // 2 - 12, photo.shape[1] // 2 - 16
    u8 = np.ascontiguousarray(photo[y:y + 24, x:x + 32].transpose(2, 0, 1))
    f32 = (u8 / np.float32(255)).astype(np.float32)
    out = {"u8": u8, "f32": f32}
    for name, cls in (("AutoAugment", v2.AutoAugment), ("AugMix", v2.AugMix)):
        for op, (fn, _) in cls._AUGMENTATION_SPACE.items():
            table = fn(10, 24, 32)
            if table is not None:
                out[f"table_{name}_{op}"] = table.numpy()
    torch.manual_seed(2029)
    i = 0
    for policy in ("imagenet", "cifar10", "svhn"):
        for k in range(16):
            dname = "f32" if k % 4 == 3 else "u8"
            image = torch.from_numpy(out[dname].copy())
            t = v2.AutoAugment(v2.AutoAugmentPolicy(policy))
            log = Logged(t, image)
            res = t(image)
            ops = [op for chain in log.chains for op in chain]
            if not ops and k % 2:
                continue  # keep some empty runs, not many
            out[f"aa{i}_policy"], out[f"aa{i}_dtype"] = np.array(policy), np.array(dname)
            out[f"aa{i}_ops"], out[f"aa{i}_out"] = np.array(json.dumps(ops)), res.numpy()
            i += 1
    j = 0
    for params in (dict(), dict(severity=10, chain_depth=2), dict(mixture_width=4, alpha=0.5, all_ops=False),
                   dict(interpolation="nearest"), dict(severity=5, interpolation="nearest", alpha=2.0)):
        for k in range(6):
            dname = "f32" if k == 5 else "u8"
            image = torch.from_numpy(out[dname].copy())
            t = v2.AugMix(**params)
            log = Logged(t, image)
            res = t(image)
            m, d = log.dirichlet
            weights = d * m[:, 1].reshape([1, -1])  # forward's combined_weights
            full = dict(severity=3, mixture_width=3, chain_depth=-1, alpha=1.0, all_ops=True, interpolation="bilinear")
            full.update(params)
            out[f"am{j}_params"], out[f"am{j}_dtype"] = np.array(json.dumps(full)), np.array(dname)
            out[f"am{j}_chains"] = np.array(json.dumps(log.chains))
            out[f"am{j}_m"], out[f"am{j}_weights"] = m[0].numpy(), weights[0].numpy()
            out[f"am{j}_out"] = res.numpy()
            j += 1
    np.savez_compressed(HERE / "torchvision_autoaugment.npz", **out)
    print(f"wrote {HERE / 'torchvision_autoaugment.npz'}: {i} AutoAugment runs, {j} AugMix runs")


if __name__ == "__main__":
    main()
