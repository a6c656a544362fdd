"""The smoke test of an installed augpy (scripts/wheel_check.sh runs it in a fresh venv holding
only the repaired wheel and NumPy, from a folder outside the checkout).

Decodes a JPEG (a sample shipped in the package) and a PNG (written here with zlib), warps the
JPEG, runs an augpy.image.DecodeWarp batch over both, and checks that the package is the
installed one and that augpy.__version__ is the installed metadata's version. Prints the CUDA
status; with --expect-cpu the status must give a reason and tensors must stay on the CPU."""
import argparse
import importlib.metadata
import os
import struct
import sys
import zlib

import numpy as np

import augpy


def png_rgb(pixels):
    """An 8-bit RGB PNG of pixels (H, W, 3 uint8), no filter."""
    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
    h, w, _ = pixels.shape
    raw = b"".join(b"\x00" + pixels[y].tobytes() for y in range(h))
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--site", help="the site-packages folder augpy must be imported from")
    ap.add_argument("--expect-cpu", action="store_true", help="no CUDA device: cuda_status() must say why")
    args = ap.parse_args()
    where = os.path.dirname(augpy.__file__)
    if args.site and os.path.realpath(os.path.dirname(where)) != os.path.realpath(args.site):
        sys.exit(f"wheel_smoke: augpy was imported from {where}, not from {args.site}")
    meta = importlib.metadata.version("augpy")
    if augpy.__version__ != meta:
        sys.exit(f"wheel_smoke: augpy.__version__ {augpy.__version__!r} != the metadata's {meta!r}")

    dec = augpy.Decoder()
    with open(os.path.join(where, "samples", "sample_00.jpg"), "rb") as f:
        jpg = f.read()
    img = dec.decode(jpg)
    h, w, c = img.shape
    assert c == 3 and h > 16 and w > 16, img.shape
    assert 0 < float(img.numpy().mean()) < 255

    rng = np.random.default_rng(7)
    pixels = rng.integers(0, 256, size=(13, 17, 3), dtype=np.uint8)
    png = png_rgb(pixels)
    got = dec.decode(png).numpy()
    assert np.array_equal(got, pixels), "the PNG's pixels differ"

    m, s = augpy.make_transform((h, w), (32, 48), angle=15.0, hmirror=True)
    dst = augpy.Tensor((3, 32, 48), dtype=augpy.uint8)
    augpy.warp_affine(img, dst, m, augpy.array_to_tensor(np.zeros(3, np.float64)), s)
    assert dst.numpy().any()

    stage = augpy.image.DecodeWarp(2, (3, 24, 24))
    out = stage({"image": [jpg, png], "augmentation": [{"angle": 5.0}, {"scale": 1.5}]})
    batch = out["image"].cpu().numpy() if out["image"].device != "cpu" else out["image"].numpy()
    assert batch.shape == (2, 3, 24, 24) and batch[0].any() and batch[1].any(), batch.shape

    status = augpy.cuda_status()
    device = augpy.zeros((1,), dtype=augpy.uint8).device
    if args.expect_cpu:
        if status.startswith("ok:") or not status:
            sys.exit(f"wheel_smoke: expected no CUDA device, cuda_status() is {status!r}")
        if device != "cpu":
            sys.exit(f"wheel_smoke: expected the CPU, a new tensor is on {device}")
    print(f"wheel_smoke: augpy {augpy.__version__} from {where}: JPEG {img.shape}, PNG {got.shape}, warp, "
          f"DecodeWarp {batch.shape} ok; default device {device}; cuda_status: {status}")


if __name__ == "__main__":
    main()
