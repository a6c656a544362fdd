"""bench/photos.py: the benchmark photo set, JPEG and PNG at ImageNet-like sizes.

The photos are the ones scikit-image's wheel bundles (astronaut, coffee, chelsea,
rocket, motorcycle, retina, hubble, and the grayscale camera, coins, moon, page).
Each output image is a random crop of one of them, resized (Lanczos) to a size
drawn from the shapes ImageNet photos have most (500x375, 375x500, 500x333,
333x500, 500x500, 640x480, 800x600), then saved as JPEG (quality 75-95; about one
in eight progressive, one in eight grayscale, a few 4:4:4) and as PNG (RGB, some
grayscale). Deterministic for a seed. Needs numpy, Pillow and scikit-image (the
bench-peers venv has them).

    python bench/photos.py [--out build/photos] [--n 256] [--seed 0]
"""
import argparse
import io
import os

import numpy as np
from PIL import Image

SIZES = [(500, 375), (375, 500), (500, 333), (333, 500), (500, 500), (640, 480), (800, 600)]  # (w, h)
RGB = ["astronaut.png", "coffee.png", "chelsea.png", "rocket.jpg", "motorcycle_left.png", "retina.jpg",
       "hubble_deep_field.jpg", "color.png", "ihc.png"]
GRAY = ["camera.png", "coins.png", "moon.png", "page.png"]


def sources():
    import skimage.data  # the photos live beside this module in the wheel
    folder = os.path.dirname(skimage.data.__file__)
    out = []
    for name in RGB + GRAY:
        path = os.path.join(folder, name)
        if os.path.exists(path):
            out.append(Image.open(path).convert("RGB" if name in RGB else "L"))
    if not out:
        raise SystemExit("bench/photos.py: no scikit-image photos found")
    return out


def make(out_dir, n, seed):
    rng = np.random.default_rng(seed)
    photos = sources()
    os.makedirs(os.path.join(out_dir, "jpeg"), exist_ok=True)
    os.makedirs(os.path.join(out_dir, "png"), exist_ok=True)
    for i in range(n):
        src = photos[int(rng.integers(len(photos)))]
        w, h = SIZES[int(rng.integers(len(SIZES)))]
        # a random crop of the source with the target's aspect ratio, at least half its short side
        sw, sh = src.size
        ar = w / h
        cw = int(min(sw, sh * ar) * rng.uniform(0.5, 1.0))
        ch = max(1, int(round(cw / ar)))
        cw, ch = min(cw, sw), min(ch, sh)
        x0, y0 = int(rng.integers(0, sw - cw + 1)), int(rng.integers(0, sh - ch + 1))
        im = src.crop((x0, y0, x0 + cw, y0 + ch)).resize((w, h), Image.LANCZOS)
        if im.mode == "RGB" and rng.random() < 0.08:
            im = im.convert("L")
        kw = {"quality": int(rng.integers(75, 96))}
        r = rng.random()
        if r < 0.125:
            kw["progressive"] = True
        elif r < 0.2:
            kw["subsampling"] = 0  # 4:4:4
        buf = io.BytesIO()
        im.save(buf, format="JPEG", **kw)
        with open(os.path.join(out_dir, "jpeg", f"{i:04d}.jpg"), "wb") as f:
            f.write(buf.getvalue())
        im.save(os.path.join(out_dir, "png", f"{i:04d}.png"), compress_level=6)


def load(out_dir, kind="jpeg", n=None):
    """The files' bytes, in name order (n: the first n)."""
    folder = os.path.join(out_dir, kind)
    names = sorted(os.listdir(folder))[:n]
    data = []
    for name in names:
        with open(os.path.join(folder, name), "rb") as f:
            data.append(f.read())
    return data


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                                  "build", "photos"))
    ap.add_argument("--n", type=int, default=256)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    make(args.out, args.n, args.seed)
    print(f"bench/photos.py: {args.n} JPEGs and PNGs in {args.out}")


if __name__ == "__main__":
    main()
