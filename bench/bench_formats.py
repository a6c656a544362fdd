"""WebP, TIFF and AVIF decode benchmark (docs/formats.md): augpy.Decoder against Pillow and
OpenCV, one core each.

One 640x480 image (gradients + noise) in each variant: WebP lossy (quality 90), lossless, lossy
with alpha; TIFF uncompressed, LZW, deflate (one strip each, written by Pillow) and 16-bit
deflate (written by OpenCV); AVIF 8-bit 4:2:0 quality 75 and 4:4:4 with alpha (written by
Pillow, when its AVIF plugin is there) and 10-bit 4:4:4 (written by avifenc, when it is on
PATH). Each is decoded to an (H, W, C) array:
augpy Decoder.decode (mode 'unchanged'; the TIFF 16-bit file with dtype='uint16', the 10-bit AVIF
both ways), Pillow Image.open().load() + np.asarray (convert('RGB') is not needed: the same
channels; its AVIF decoder on one thread, AvifImagePlugin.DEFAULT_MAX_THREADS = 1; a 10-bit AVIF
comes out 8-bit), OpenCV cv2.imdecode(IMREAD_UNCHANGED) with cv2.setNumThreads(1) (a peer that
cannot read a file gets '-'). The calls alternate (best of several rounds); the ratios are peer
time / augpy time (> 1: augpy ahead). All three use the same kind of libraries (libwebp,
libtiff + zlib, libavif + dav1d), in different versions: augpy Debian's, Pillow's and OpenCV's
wheels their own.

    PYTHONPATH=build/pkg python bench/bench_formats.py [--reps 30]
"""
import argparse
import io
import os
import shutil
import subprocess
import tempfile

import numpy as np
from PIL import Image, features

import benchutil  # bench/benchutil.py (the script's folder is on sys.path)

import augpy


def image(h, w, c, seed=0):
    rng = np.random.default_rng(seed)
    y, x = np.mgrid[0:h, 0:w]
    base = [x * 255 // (w - 1), y * 255 // (h - 1), (x + y) * 127 // (h + w - 2), 255 - x * 200 // (w - 1)]
    img = np.stack(base[:c], -1) + rng.integers(-25, 26, (h, w, c))
    return np.clip(img, 0, 255).astype(np.uint8)


def pil_bytes(arr, fmt, **kw):
    f = io.BytesIO()
    Image.fromarray(arr).save(f, fmt, **kw)
    return f.getvalue()


def avifenc(arr, *args):
    """arr as an AVIF written by avifenc (Debian: libavif-bin), or None without it."""
    if shutil.which("avifenc") is None:
        return None
    with tempfile.TemporaryDirectory() as d:
        Image.fromarray(arr).save(os.path.join(d, "in.png"))
        r = subprocess.run(["avifenc", *args, os.path.join(d, "in.png"), os.path.join(d, "out.avif")],
                           capture_output=True)
        return open(os.path.join(d, "out.avif"), "rb").read() if r.returncode == 0 else None


def files(cv2):
    h, w = 480, 640
    rgb, rgba = image(h, w, 3), image(h, w, 4, 1)
    out = {
        "WebP lossy q90": pil_bytes(rgb, "WEBP", quality=90),
        "WebP lossless": pil_bytes(rgb, "WEBP", lossless=True),
        "WebP lossy + alpha": pil_bytes(rgba, "WEBP", quality=90),
        "TIFF uncompressed": pil_bytes(rgb, "TIFF"),
        "TIFF LZW": pil_bytes(rgb, "TIFF", compression="tiff_lzw"),
        "TIFF deflate": pil_bytes(rgb, "TIFF", compression="tiff_adobe_deflate"),
    }
    if features.check("avif"):  # Pillow >= 11.3 built with libavif
        from PIL import AvifImagePlugin
        AvifImagePlugin.DEFAULT_MAX_THREADS = 1
        out["AVIF 4:2:0 q75"] = pil_bytes(rgb, "AVIF", quality=75)
        out["AVIF 4:4:4 + alpha q75"] = pil_bytes(rgba, "AVIF", quality=75, subsampling="4:4:4")
    ten = avifenc(rgb, "--depth", "10", "--yuv", "444", "--min", "20", "--max", "30")
    out["AVIF 10-bit 4:4:4"] = ten
    out["AVIF 10-bit 4:4:4 (uint16)"] = ten
    if cv2 is not None:
        ok, b = cv2.imencode(".tiff", (rgb.astype(np.uint16) * 257)[..., ::-1],
                             [cv2.IMWRITE_TIFF_COMPRESSION, 32946])  # deflate
        out["TIFF 16-bit deflate"] = b.tobytes() if ok else None
    return {k: v for k, v in out.items() if v is not None}


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--reps", type=int, default=30)
    args = p.parse_args()
    try:
        import cv2
        cv2.setNumThreads(1)
    except ImportError:
        cv2 = None
    os.environ.setdefault("AUG_NUM_THREADS", "1")
    dec = augpy.Decoder()
    print(f"640x480 images, one core; augpy {augpy.__version__}; times in ms (best of {args.reps})")
    print(f"{'file':30s} {'bytes':>8s} {'augpy':>8s} {'Pillow':>8s} {'OpenCV':>8s} {'Pillow/augpy':>13s} "
          f"{'OpenCV/augpy':>13s}")
    for name, data in files(cv2).items():
        wide = "16-bit" in name or "uint16" in name
        fns = [lambda: dec.decode(data, mode="unchanged", dtype="uint16" if wide else None).numpy(),
               lambda: np.asarray(Image.open(io.BytesIO(data)))]
        if cv2 is not None:
            fns.append(lambda: cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_UNCHANGED))
        try:
            Image.open(io.BytesIO(data)).load()
        except (OSError, ValueError):
            fns[1] = None  # Pillow cannot open 16-bit RGB TIFFs (nor AVIF without its plugin)
        if cv2 is not None and cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_UNCHANGED) is None:
            fns[2] = None  # an OpenCV built without AVIF
        times = benchutil.best_ms_interleaved([f for f in fns if f is not None], args.reps)
        ours = times[0]
        pil = times[1] if fns[1] is not None else None
        ocv = times[-1] if cv2 is not None and fns[-1] is not None else None
        for peer, t in (("Pillow", pil), ("OpenCV", ocv)):
            if t is not None:
                benchutil.record(f"{name} decode 640x480", 1, ours, peer, t, None)
        fmt = lambda t: f"{t:8.2f}" if t is not None else f"{'-':>8s}"  # noqa: E731
        rat = lambda t: f"{t / ours:12.2f}x" if t is not None else f"{'-':>13s}"  # noqa: E731
        print(f"{name:30s} {len(data):8d} {ours:8.2f} {fmt(pil)} {fmt(ocv)} {rat(pil)} {rat(ocv)}")


if __name__ == "__main__":
    main()
