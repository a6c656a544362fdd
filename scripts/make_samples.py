"""Generate the demo's sample JPEGs (python/augpy/samples/), procedurally.

Run once with Pillow installed: `.venv/bin/python scripts/make_samples.py`. The
images are drawn from a fixed seed (sky gradients, a sun, mountain ridges,
trees and a big asymmetric "F" so rotations and mirrors are easy to see), so
they are license-clean and the same every time. A few are progressive or
grayscale so the demo exercises those decoder paths too.
"""
import pathlib

import numpy as np
from PIL import Image, ImageDraw

OUT = pathlib.Path(__file__).resolve().parent.parent / "python" / "augpy" / "samples"
SIZES = [(320, 240), (240, 320), (400, 300), (360, 240), (300, 300), (320, 200),
         (256, 320), (384, 256)]


def scene(rng, width, height):
    y = np.linspace(0.0, 1.0, height)[:, None, None]
    top = rng.uniform(40, 140, 3)
    bottom = rng.uniform(150, 255, 3)
    sky = top + (bottom - top) * y
    img = np.broadcast_to(sky, (height, width, 3)).copy()
    img += rng.normal(0, 4, img.shape)  # film grain, so the JPEGs are not trivially smooth
    im = Image.fromarray(np.clip(img, 0, 255).astype(np.uint8))
    draw = ImageDraw.Draw(im)
    r = rng.uniform(0.06, 0.12) * width
    cx, cy = rng.uniform(0.2, 0.8) * width, rng.uniform(0.1, 0.35) * height
    draw.ellipse([cx - r, cy - r, cx + r, cy + r], fill=tuple(int(v) for v in rng.uniform([220, 180, 0], [255, 240, 80])))
    for layer in range(3):
        base = height * (0.55 + 0.12 * layer)
        xs = np.linspace(0, width, 9)
        ys = base - rng.uniform(0.05, 0.3, xs.size) * height
        colour = tuple(int(v) for v in rng.uniform(20, 120, 3) * (1 - 0.2 * layer))
        draw.polygon([(0, height)] + list(zip(xs, ys)) + [(width, height)], fill=colour)
    for _ in range(int(rng.integers(3, 8))):
        tx, ty, s = rng.uniform(0, width), rng.uniform(0.7, 0.95) * height, rng.uniform(8, 20)
        draw.polygon([(tx, ty - 3 * s), (tx - s, ty), (tx + s, ty)], fill=(20, int(rng.integers(80, 140)), 40))
    # An "F": its mirror images and rotations all look different.
    fx, fy, u = 0.08 * width, 0.08 * height, max(4, int(0.03 * min(width, height)))
    colour = (230, 30, 60)
    draw.rectangle([fx, fy, fx + u, fy + 6 * u], fill=colour)
    draw.rectangle([fx, fy, fx + 4 * u, fy + u], fill=colour)
    draw.rectangle([fx, fy + 2.5 * u, fx + 3 * u, fy + 3.5 * u], fill=colour)
    return im


def main():
    OUT.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(20261121)
    for i, (w, h) in enumerate(SIZES):
        im = scene(rng, w, h)
        options = {"quality": 85}
        if i == 3:
            im = im.convert("L")
        if i in (2, 6):
            options["progressive"] = True
        im.save(OUT / f"sample_{i:02d}.jpg", **options)
    total = sum(p.stat().st_size for p in OUT.glob("*.jpg"))
    print(f"wrote {len(SIZES)} images, {total / 1024:.0f} KiB, to {OUT}")


if __name__ == "__main__":
    main()
