"""The smoke test of an installed augpy (scripts/wheel_check.sh runs it in a fresh venv holding
only the repaired wheel and NumPy, from a folder outside the checkout).

Decodes a JPEG (a sample shipped in the package), a PNG (written here with zlib) and an AVIF (its
bytes here: libavif and the AV1 decoder the wheel vendors), warps the
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


# an 8 x 8 lossless AVIF (avifenc --lossless) of pixels (32 y, 32 x, 128): decoded through the wheel's
# libavif and its AV1 decoder (dav1d)
AVIF_8X8 = bytes.fromhex(
    "00000020667479706176696600000000617669666d6966316d6961664d413141000000f26d6574610000000000000028"
    "68646c720000000000000000706963740000000000000000000000006c696261766966000000000e7069746d00000000"
    "00010000001e696c6f6300000000440000010001000000010000011a000000570000002869696e660000000000010000"
    "001a696e6665020000000001000061763031436f6c6f72000000006a697072700000004b6970636f0000001469737065"
    "000000000000000800000008000000107069786900000000030808080000000c617631438120000000000013636f6c72"
    "6e636c780001000d0000800000001769706d610000000000000001000104010283040000005f6d64617412000a083808"
    "bf61010d002032491000000047f534980029e4e6ec70a703eb6df3564ac49ea064b3d036a7e58c1fb7b9dee14321fc60"
    "e3ef2dee724b9fb954a938f90cac3abc8d93f14f70f912ad419057b479c2bb0840")


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

    y, x = np.mgrid[0:8, 0:8]
    want = np.stack([y * 32, x * 32, np.full((8, 8), 128)], -1).astype(np.uint8)
    avif = dec.decode(AVIF_8X8).numpy()
    assert np.array_equal(avif, want), "the AVIF's pixels differ"

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
    print(f"wheel_smoke: augpy {augpy.__version__} from {where}: JPEG {img.shape}, PNG {got.shape}, "
          f"AVIF {avif.shape}, warp, "
          f"DecodeWarp {batch.shape} ok; default device {device}; cuda_status: {status}")


if __name__ == "__main__":
    main()
