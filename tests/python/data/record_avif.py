"""Writes the AVIF files of formats/ and records independent decodes of them into
formats/avif_ref.npz, the oracle of test_avif.py.

Not part of `make test` (which has no AVIF-enabled Pillow). Run it from the repository root with a
scratch venv holding Pillow >= 11.3 (its wheels bundle libavif: PIL.features.check('avif')),
imagecodecs and numpy, and with libavif's avifenc on PATH (Debian: libavif-bin; the 10/12-bit,
lossless and 4:0:0 files come from it); the versions recorded are stored under "versions":
    python3 -m venv /tmp/venv-fmt && /tmp/venv-fmt/bin/pip install Pillow imagecodecs numpy
    /tmp/venv-fmt/bin/python tests/python/data/record_avif.py
The images are small synthetic gradients with noise (odd sizes, so 4:2:0 chroma ends part-way).
References, one array per file (key = file name):
- "<name>": Pillow's decode (libavif's avifImageYUVToRGB to 8 bits, its bundled libavif) as RGB, or
  RGBA for files with alpha: augpy's dtype='uint8' output;
- "<name>:native": imagecodecs' decode at the file's own depth (uint16 holding 0..1023 or
  0..4095 for 10/12-bit files; uint8 for 8-bit ones), from which augpy's dtype='uint16' output
  follows as round(v * 65535 / (2^d - 1));
- the lossless file also equals its source array (checked here before recording)."""
import io
import json
import pathlib
import subprocess
import tempfile

import imagecodecs
import numpy as np
import PIL
from PIL import Image, features

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


def pillow_avif(arr, **kw):
    f = io.BytesIO()
    Image.fromarray(arr).save(f, "AVIF", **kw)
    return f.getvalue()


def avifenc(arr, *args):
    """avifenc over a PNG of arr (16-bit PNGs for the 10/12-bit files: avifenc scales them down)."""
    with tempfile.TemporaryDirectory() as d:
        src, dst = pathlib.Path(d) / "in.png", pathlib.Path(d) / "out.avif"
        Image.fromarray(arr).save(src) if arr.dtype == np.uint8 else imagecodecs.imwrite(src, arr)
        subprocess.run(["avifenc", "-s", "8", *args, str(src), str(dst)], check=True, capture_output=True)
        return dst.read_bytes()


def hostile(data):
    """data with its 'ispe' (image spatial extents) box claiming 1000000 x 1000000 pixels."""
    k = data.index(b"ispe")
    return data[:k + 8] + (1000000).to_bytes(4, "big") * 2 + data[k + 16:]


def main():
    assert features.check("avif"), "this Pillow has no AVIF plugin"
    OUT.mkdir(exist_ok=True)
    rgb, rgba = image(29, 41, 3, 21), image(29, 41, 4, 22)
    rgb16, rgba16 = image(27, 35, 3, 23, 16), image(27, 35, 4, 24, 16)
    files = {
        "rgb8_lossy.avif": pillow_avif(rgb, quality=60),
        "rgba8_lossy.avif": pillow_avif(rgba, quality=70, subsampling="4:4:4"),
        "gray8.avif": avifenc(image(29, 41, 1, 25)[..., 0], "--yuv", "400", "--min", "10", "--max", "20"),
        "rgb8_lossless.avif": avifenc(rgb, "--lossless"),
        "rgb8_709_limited.avif": avifenc(rgb, "--yuv", "422", "--cicp", "1/13/1", "-r", "limited", "--min", "8",
                                         "--max", "16"),
        "rgb10.avif": avifenc(rgb16, "--depth", "10", "--yuv", "444", "--min", "4", "--max", "12"),
        "rgba12.avif": avifenc(rgba16, "--depth", "12", "--yuv", "420", "--min", "4", "--max", "12"),
    }
    refs = {}
    for name, data in files.items():
        alpha = "rgba" in name
        refs[name] = np.asarray(Image.open(io.BytesIO(data)).convert("RGBA" if alpha else "RGB"))
        native = imagecodecs.avif_decode(data)
        refs[name + ":native"] = native if native.ndim == 3 else native[..., None]
    assert np.array_equal(refs["rgb8_lossless.avif"], rgb), "the lossless file does not decode to its source"
    files["truncated.avif"] = files["rgb8_lossy.avif"][: len(files["rgb8_lossy.avif"]) * 2 // 3]
    files["hostile.avif"] = hostile(files["rgb8_lossy.avif"])
    for name, data in files.items():
        (OUT / name).write_bytes(data)
    versions = {"Pillow": PIL.__version__, "libavif (Pillow's)": features.version("avif"),
                "imagecodecs": imagecodecs.__version__, "libavif (imagecodecs')": imagecodecs.avif_version(),
                "avifenc": subprocess.run(["avifenc", "--version"], capture_output=True, text=True).stdout.split()[1],
                "numpy": np.__version__}
    np.savez_compressed(OUT / "avif_ref.npz", versions=json.dumps(versions), **refs)
    print(f"wrote {len(files)} files to {OUT} ({sum(len(v) for v in files.values())} bytes); {versions}")


if __name__ == "__main__":
    main()
