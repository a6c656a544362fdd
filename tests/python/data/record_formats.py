"""Writes the WebP and TIFF files of formats/ and records independent decodes of them into
formats/formats_ref.npz, the oracle of test_formats.py.

Not part of `make test` (which has no tifffile). Run it from the repository root with a scratch
venv holding Pillow, tifffile, imagecodecs and numpy (the versions it recorded with are stored in
the .npz under "versions"):
    python3 -m venv /tmp/venv-fmt && /tmp/venv-fmt/bin/pip install Pillow tifffile imagecodecs numpy
    /tmp/venv-fmt/bin/python tests/python/data/record_formats.py
The images are small synthetic gradients with noise (odd sizes, so strips and tiles end part-way).
References, one array per file (key = file name):
- WebP: Pillow's decode (its own libwebp) as RGB, or RGBA for files with alpha; lossless files also
  equal the source array, which is checked here before recording. An animation: Pillow's frame 0.
- TIFF: tifffile's decode of the page (planar files transposed to (H, W, C)); the lossless ones
  equal their source arrays (checked here); MinIsWhite files hold their stored samples (augpy
  inverts them); palette files hold the indices and, under "<name>:cmap", the colour map."""
import io
import json
import pathlib

import numpy as np
import PIL
import tifffile
from PIL import Image

OUT = pathlib.Path(__file__).resolve().parent / "formats"


def image(h, w, c, seed, bits=8):
    rng = np.random.default_rng(seed)
    y, x = np.mgrid[0:h, 0:w]
    top = (1 << bits) - 1
    base = [x * top // max(w - 1, 1), y * top // max(h - 1, 1), (x + y) * (top // 2) // max(h + w - 2, 1),
            top - x * (top * 3 // 4) // max(w - 1, 1)]
    noise = rng.integers(-(top // 10), top // 10 + 1, (h, w, c))
    img = np.clip(np.stack(base[:c], -1) + noise, 0, top)
    return img.astype(np.uint16 if bits == 16 else np.uint8)


def webp(arr, **kw):
    f = io.BytesIO()
    Image.fromarray(arr).save(f, "WEBP", **kw)
    return f.getvalue()


def pil_decode(data, mode):
    return np.asarray(Image.open(io.BytesIO(data)).convert(mode))


def tiff(arr, **kw):
    f = io.BytesIO()
    tifffile.imwrite(f, arr, **kw)
    return f.getvalue()


def main():
    OUT.mkdir(exist_ok=True)
    files, refs = {}, {}
    rgb, rgba = image(29, 41, 3, 1), image(29, 41, 4, 2)
    # ---- WebP
    files["lossless_rgb.webp"] = webp(rgb, lossless=True)
    files["lossless_rgba.webp"] = webp(rgba, lossless=True, exact=True)
    files["lossy_rgb.webp"] = webp(rgb, quality=80)
    files["lossy_rgba.webp"] = webp(rgba, quality=80, alpha_quality=100)
    frames = [Image.fromarray(image(21, 17, 4, 3 + i)) for i in range(3)]
    f = io.BytesIO()
    frames[0].save(f, "WEBP", save_all=True, append_images=frames[1:], lossless=True, duration=40)
    files["anim.webp"] = f.getvalue()
    for name, data in list(files.items()):
        im = Image.open(io.BytesIO(data))
        refs[name] = pil_decode(data, "RGBA" if ("rgba" in name or "anim" in name) else "RGB")
    assert np.array_equal(refs["lossless_rgb.webp"], rgb) and np.array_equal(refs["lossless_rgba.webp"], rgba)
    # ---- TIFF: (file name, array, tifffile.imwrite keywords)
    g8, g16 = image(37, 45, 1, 4)[..., 0], image(37, 45, 1, 5, 16)[..., 0]
    rgb16, rgba16 = image(37, 45, 3, 6, 16), image(37, 45, 4, 7, 16)
    la8 = image(37, 45, 2, 8)
    tiffs = [
        ("gray8_strips.tif", g8, dict(rowsperstrip=5)),
        ("gray16_lzw.tif", g16, dict(compression="lzw", rowsperstrip=8)),
        ("gray_alpha8.tif", la8, dict(photometric="minisblack", extrasamples=["unassalpha"], rowsperstrip=7)),
        ("rgb8_deflate_tiles.tif", image(37, 45, 3, 9), dict(compression="deflate", tile=(16, 16))),
        ("rgb16_planar_deflate.tif", np.moveaxis(rgb16, -1, 0),
         dict(photometric="rgb", planarconfig="separate", compression="deflate", rowsperstrip=6)),
        ("rgba8_packbits.tif", image(37, 45, 4, 10),
         dict(photometric="rgb", extrasamples=["unassalpha"], compression="packbits", rowsperstrip=4)),
        ("rgba16_planar_tiles.tif", np.moveaxis(rgba16, -1, 0),
         dict(photometric="rgb", planarconfig="separate", extrasamples=["unassalpha"], compression="lzw",
              tile=(16, 32))),
        ("rgb16_tiles_bigendian.tif", rgb16, dict(byteorder=">", tile=(32, 16))),
        ("miniswhite8.tif", g8, dict(photometric="miniswhite")),
    ]
    for name, arr, kw in tiffs:
        files[name] = tiff(arr, **kw)
        back = tifffile.imread(io.BytesIO(files[name]))
        assert np.array_equal(back, arr), name
        refs[name] = np.moveaxis(back, 0, -1) if kw.get("planarconfig") == "separate" else back
    # two pages of different sizes and kinds
    f = io.BytesIO()
    with tifffile.TiffWriter(f) as t:
        t.write(image(19, 23, 3, 11), photometric="rgb", compression="lzw")
        t.write(image(13, 31, 1, 12, 16)[..., 0], compression="deflate")
    files["pages.tif"] = f.getvalue()
    with tifffile.TiffFile(io.BytesIO(files["pages.tif"])) as t:
        refs["pages.tif:0"] = t.pages[0].asarray()
        refs["pages.tif:1"] = t.pages[1].asarray()
    # an 8-bit palette (colour map values v * 257)
    idx = (image(37, 45, 1, 13)[..., 0] // 16).astype(np.uint8)
    cmap = (np.random.default_rng(14).integers(0, 256, (3, 256)) * 257).astype(np.uint16)
    files["palette8.tif"] = tiff(idx, photometric="palette", colormap=cmap)
    refs["palette8.tif"] = tifffile.imread(io.BytesIO(files["palette8.tif"]))
    refs["palette8.tif:cmap"] = cmap
    # JPEG-in-TIFF (YCbCr): tifffile's decode through imagecodecs' libjpeg-turbo
    files["rgb8_jpeg.tif"] = tiff(image(40, 48, 3, 15), compression="jpeg", photometric="rgb", rowsperstrip=16)
    refs["rgb8_jpeg.tif"] = tifffile.imread(io.BytesIO(files["rgb8_jpeg.tif"]))
    for name, data in files.items():
        (OUT / name).write_bytes(data)
    versions = {"Pillow": PIL.__version__, "tifffile": tifffile.__version__, "numpy": np.__version__,
                "libwebp (Pillow's)": PIL.features.version("webp")}
    np.savez_compressed(OUT / "formats_ref.npz", versions=json.dumps(versions), **refs)
    print(f"wrote {len(files)} files to {OUT} ({sum(len(v) for v in files.values())} bytes); {versions}")


if __name__ == "__main__":
    main()
