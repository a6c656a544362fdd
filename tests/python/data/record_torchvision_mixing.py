"""Records torchvision's MixUp and CutMix (transforms.v2) for given lambdas and boxes into
torchvision_mixing.npz, the oracle of tests/python/test_mixing.py: a float32 (6, 3, 12, 16)
batch, its labels (10 classes), and for each case the mixed images and soft targets through the
transforms' own transform(inpt, params); plus 4000 CutMix boxes from its make_params (alpha 1,
a 12 x 16 image) for the distribution test.

Needs torch and torchvision, which `make test` does not install. Run it from the repository root
with the peers venv, .venv-peers (`make bench-peers` creates it with the Makefile's pinned
PEER_DEPS); it expects torch==2.15.0 and torchvision==0.29.2 and refuses to record with other
versions (peer_versions.py):
    .venv-peers/bin/python tests/python/data/record_torchvision_mixing.py"""

from peer_versions import check_peers  # this folder's helper: the Makefile's pinned peer versions

check_peers(__doc__, "torch", "torchvision")  # before importing them

import pathlib

import numpy as np
import torch
from torchvision.transforms import v2

HERE = pathlib.Path(__file__).parent
LAMS = [0.0, 0.2137, 0.5, 0.77, 1.0]
BOXES = [(0, 0, 0, 0), (3, 2, 9, 7), (0, 0, 16, 12), (10, 5, 16, 12)]


def main():
    torch.manual_seed(20261129)
    rng = np.random.default_rng(20261129)
    x = rng.standard_normal((6, 3, 12, 16)).astype(np.float32)
    labels = np.array([3, 0, 9, 3, 5, 1], np.int64)
    out = {"images": x, "labels": labels}
    mix, cut = v2.MixUp(alpha=1.0, num_classes=10), v2.CutMix(alpha=1.0, num_classes=10)
    for i, lam in enumerate(LAMS):
        lt = torch.from_numpy(labels)
        params = {"lam": lam, "labels": lt, "batch_size": 6}
        out[f"mixup{i}_lam"] = np.float64(lam)
        out[f"mixup{i}_images"] = mix.transform(torch.from_numpy(x.copy()), params).numpy()
        out[f"mixup{i}_targets"] = mix.transform(lt, params).numpy()
    for i, box in enumerate(BOXES):
        lt = torch.from_numpy(labels)
        x1, y1, x2, y2 = box
        lam = float(1.0 - (x2 - x1) * (y2 - y1) / (16 * 12))
        params = {"box": box, "lam_adjusted": lam, "labels": lt, "batch_size": 6}
        out[f"cutmix{i}_box"] = np.array(box, np.int64)
        out[f"cutmix{i}_images"] = cut.transform(torch.from_numpy(x.copy()), params).numpy()
        out[f"cutmix{i}_targets"] = cut.transform(lt, params).numpy()
    image = torch.zeros(2, 3, 12, 16)
    out["cutmix_boxes"] = np.array([cut.make_params([image])["box"]
                                    for _ in range(4000)], np.int32)
    np.savez_compressed(HERE / "torchvision_mixing.npz", **out)
    print(f"wrote {HERE / 'torchvision_mixing.npz'}")


if __name__ == "__main__":
    main()
