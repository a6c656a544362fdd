"""tests/fuzz/make_seeds.py: writes the small JPEG seeds of fuzz_jpeg (and the PNG seeds of
fuzz_png into tests/fuzz/seeds/fuzz_png/: every colour type, 1 and 16 bits, tRNS, a
truncated file) into
tests/fuzz/seeds/fuzz_jpeg/ (each well under 5 KiB): the JPEG variants the decoder
handles (gray, 4:2:0 / 4:2:2 / 4:4:4, progressive, restart markers, CMYK, odd
sizes) plus a truncated file, so the fuzzer starts from every code path.
The WebP, TIFF and AVIF seeds (seeds/fuzz_webp/, seeds/fuzz_tiff/, seeds/fuzz_avif/) are the
small files of tests/python/data/formats/ (written by its record_formats.py and record_avif.py)
and one truncated file each.
Run with the project's venv: python tests/fuzz/make_seeds.py (needs Pillow, NumPy)."""
import io
import os

import numpy as np
from PIL import Image

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "seeds", "fuzz_jpeg")


def jpeg(img, **kw):
    b = io.BytesIO()
    img.save(b, "JPEG", **kw)
    return b.getvalue()


def png(img, **kw):
    b = io.BytesIO()
    img.save(b, "PNG", **kw)
    return b.getvalue()


def png_seeds():
    out = os.path.join(os.path.dirname(OUT), "fuzz_png")
    os.makedirs(out, exist_ok=True)
    rng = np.random.default_rng(12)
    rgb = Image.fromarray(rng.integers(0, 256, (11, 9, 3), dtype=np.uint8), "RGB")
    rgba = Image.fromarray(rng.integers(0, 256, (7, 5, 4), dtype=np.uint8), "RGBA")
    seeds = {
        "rgb.png": png(rgb),
        "rgba.png": png(rgba),
        "gray.png": png(rgb.convert("L")),
        "gray_alpha.png": png(rgba.convert("LA")),
        "palette.png": png(rgb.quantize(5)),
        "palette_trns.png": png(rgb.quantize(5), transparency=2),
        "gray_trns.png": png(rgb.convert("L"), transparency=7),
        "bilevel.png": png(rgb.convert("1")),
        "gray16.png": png(Image.fromarray(rng.integers(0, 65536, (6, 10), dtype=np.uint16))),
    }
    seeds["truncated.png"] = seeds["rgb.png"][: len(seeds["rgb.png"]) * 2 // 3]
    for name, data in seeds.items():
        assert len(data) < 5120, (name, len(data))
        with open(os.path.join(out, name), "wb") as f:
            f.write(data)


def format_seeds():
    src = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python", "data", "formats")
    for target, ext in (("fuzz_webp", ".webp"), ("fuzz_tiff", ".tif"), ("fuzz_avif", ".avif")):
        out = os.path.join(os.path.dirname(OUT), target)
        os.makedirs(out, exist_ok=True)
        names = sorted(n for n in os.listdir(src) if n.endswith(ext) and os.path.getsize(os.path.join(src, n)) < 8192)
        for name in names:
            with open(os.path.join(src, name), "rb") as f:
                data = f.read()
            with open(os.path.join(out, name), "wb") as f:
                f.write(data)
        with open(os.path.join(out, "truncated" + ext), "wb") as f:
            f.write(data[: len(data) * 2 // 3])


def main():
    png_seeds()
    format_seeds()
    os.makedirs(OUT, exist_ok=True)
    rng = np.random.default_rng(11)  # fixed: the seeds are committed and must not churn
    rgb = Image.fromarray(rng.integers(0, 256, (13, 17, 3), dtype=np.uint8), "RGB")
    seeds = {
        "gray_1x1.jpg": jpeg(Image.new("L", (1, 1), 77)),
        "rgb_420.jpg": jpeg(rgb, quality=80, subsampling=2),
        "rgb_422.jpg": jpeg(rgb, quality=60, subsampling=1),
        "rgb_444.jpg": jpeg(rgb, quality=95, subsampling=0),
        "progressive.jpg": jpeg(rgb, quality=75, progressive=True),
        "restart.jpg": jpeg(rgb.resize((40, 24)), quality=50, restart_marker_blocks=1),
        "cmyk.jpg": jpeg(rgb.convert("CMYK"), quality=70),
        "gray_9x31.jpg": jpeg(rgb.resize((9, 31)).convert("L"), quality=40),
    }
    seeds["truncated.jpg"] = seeds["rgb_420.jpg"][: len(seeds["rgb_420.jpg"]) * 2 // 3]
    for name, data in seeds.items():
        assert len(data) < 5120, (name, len(data))
        with open(os.path.join(OUT, name), "wb") as f:
            f.write(data)
    # The C array embedded in fuzz_jpeg.c (a valid file decoded after every failure).
    good = jpeg(Image.new("RGB", (3, 2), (200, 30, 90)), quality=90)
    print("/* %d bytes: Pillow, 3x2 RGB (200, 30, 90), quality 90 */" % len(good))
    print(",".join(str(b) for b in good))


if __name__ == "__main__":
    main()
