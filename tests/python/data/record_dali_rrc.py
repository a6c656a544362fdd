"""Records NVIDIA DALI's CPU fn.decoders.image_random_crop into dali_rrc.npz, the oracle of
tests/python/test_dali_rrc.py.

Needs DALI, which `make test` does not install. Run it from the repository root with the peers
venv, .venv-peers (`make bench-peers` creates it with the Makefile's pinned PEER_DEPS); it
expects nvidia-dali-cuda130==2.4.0 and refuses to record with other versions (peer_versions.py):
    .venv-peers/bin/python tests/python/data/record_dali_rrc.py
DALI's CPU operators run without a GPU (device_id=None).

1. Sampler: for each image size in SIZES, N crops of `image_random_crop(random_area=[0.08, 1],
   random_aspect_ratio=[3/4, 4/3], num_attempts=10, seed=1000 + k)` (DALI's defaults, the ratio
   written as 3/4, 4/3) on one deterministic noisy JPEG of that size (not stored: only the
   shapes and anchors are). DALI does not return the anchor; each crop is located in DALI's
   own full decode of the same file (an interior 4x4 block of the crop matched exactly, then
   the whole crop compared: `located_exact` says whether the ROI decode equals the full
   decode's cut). Stored: `crops_k` (N, 4) int16 (y, x, h, w).
2. Pixels: small JPEGs made with Pillow (4:2:0, 4:2:2, 4:4:4, grayscale, progressive 4:2:0 with
   odd sizes; stored as bytes),
   DALI's random crops of them (4 each, `image_random_crop`, located as above) and explicit crops
   (`decoders.image_slice` with absolute anchor/shape at odd offsets); stored the crop
   window and DALI's decoded pixels, and DALI's full decode."""

from peer_versions import check_peers  # this folder's helper: the Makefile's pinned peer versions

check_peers(__doc__, "nvidia-dali-cuda130")  # before importing them

import io
import json
import pathlib

import numpy as np
import nvidia.dali as dali
from nvidia.dali import fn, pipeline_def, types
from PIL import Image

N = 3000
BATCH = 250
SIZES = [(480, 640), (375, 500), (500, 333), (100, 1000), (333, 50)]
AREA = [0.08, 1.0]
RATIO = [3.0 / 4.0, 4.0 / 3.0]


def noisy(h, w, seed, amp):
    """A gradient with uniform noise in [-amp, amp] (the noise makes every crop locatable)."""
    rng = np.random.default_rng(seed)
    y, x = np.mgrid[0:h, 0:w]
    img = np.stack([x * 255 // max(w - 1, 1), y * 255 // max(h - 1, 1), (x + y) * 127 // max(h + w - 2, 1)], -1)
    return np.clip(img + rng.integers(-amp, amp + 1, (h, w, 3)), 0, 255).astype(np.uint8)


def jpeg(arr, mode="RGB", **kw):
    b = io.BytesIO()
    Image.fromarray(arr).convert(mode).save(b, "JPEG", quality=90, **kw)
    return b.getvalue()


def decode_batches(data, n, seed, batch):
    """n crops of image_random_crop (CPU) of one file, and DALI's full decode of it."""
    buf = np.frombuffer(data, np.uint8)

    @pipeline_def(batch_size=batch, num_threads=1, device_id=None, seed=seed)
    def pipe():
        x = fn.external_source(source=lambda: [buf] * batch, batch=True)
        crop = fn.decoders.image_random_crop(x, device="cpu", random_area=AREA, random_aspect_ratio=RATIO,
                                             num_attempts=10, seed=seed)
        return crop, fn.decoders.image(x, device="cpu")
    p = pipe()
    p.build()
    full = None
    for _ in range(0, n, batch):
        crops, fulls = p.run()
        full = np.array(fulls[0])
        for i in range(batch):
            yield full, np.array(crops[i])


def locate(full, crop):
    """(y, x, exact) of crop in full: an interior 4x4 block matched exactly."""
    H, W = full.shape[:2]
    h, w = crop.shape[:2]
    cy, cx = h // 2, w // 2
    key = crop[cy, cx]
    hits = np.argwhere((full[cy:H - h + cy + 1, cx:W - w + cx + 1] == key).all(-1))
    by, bx = min(4, h - cy), min(4, w - cx)
    found = [(y, x) for y, x in hits
             if np.array_equal(full[y + cy:y + cy + by, x + cx:x + cx + bx], crop[cy:cy + by, cx:cx + bx])]
    if len(found) != 1:
        # ambiguous or not found by the block: the position with the fewest differing pixels
        cand = found or [tuple(v) for v in hits]
        if not cand:
            raise RuntimeError(f"crop {h}x{w} not found")
        cost = [np.count_nonzero(full[y:y + h, x:x + w] != crop) for y, x in cand]
        found = [cand[int(np.argmin(cost))]]
    y, x = (int(v) for v in found[0])
    return y, x, bool(np.array_equal(full[y:y + h, x:x + w], crop))


def record_sampler(out):
    out["sizes"] = np.array(SIZES, np.int64)
    for k, (h, w) in enumerate(SIZES):
        data = jpeg(noisy(h, w, 10 + k, 40))
        rows, exact = [], 0
        for full, crop in decode_batches(data, N, 1000 + k, BATCH):
            y, x, ok = locate(full, crop)
            rows.append((y, x, crop.shape[0], crop.shape[1]))
            exact += ok
        out[f"crops_{k}"] = np.array(rows, np.int16)
        out[f"located_exact_{k}"] = np.array(exact)
        c = out[f"crops_{k}"].astype(np.int64)
        print((h, w), "area", np.mean(c[:, 2] * c[:, 3]) / (h * w), "exact", exact, "/", len(rows))


# small files for the pixel reference: (name, h, w, Pillow mode, save keywords)
PIXEL_FILES = [("s420", 72, 96, "RGB", dict(subsampling=2)),
               ("s422", 64, 82, "RGB", dict(subsampling=1)),
               ("s444", 58, 70, "RGB", dict(subsampling=0)),
               ("gray", 66, 60, "L", {}),
               ("prog420", 73, 97, "RGB", dict(subsampling=2, progressive=True))]
# explicit windows (y, x, h, w) through decoders.image_slice, at odd offsets and sizes
SLICES = [(1, 3, 17, 21), (9, 15, 31, 27), (0, 0, 16, 16), (7, 1, 40, 33)]


def record_pixels(out):
    names = []
    for j, (name, h, w, mode, kw) in enumerate(PIXEL_FILES):
        data = jpeg(noisy(h, w, 50 + j, 6), mode, **kw)
        out[f"px/{name}/jpeg"] = np.frombuffer(data, np.uint8)
        windows, crops = [], []
        for full, crop in decode_batches(data, 4, 2000 + j, 4):
            y, x, ok = locate(full, crop)
            windows.append((y, x, crop.shape[0], crop.shape[1]))
            crops.append(crop)
        out[f"px/{name}/full"] = full
        buf = np.frombuffer(data, np.uint8)

        @pipeline_def(batch_size=len(SLICES), num_threads=1, device_id=None)
        def pipe():
            x = fn.external_source(source=lambda: [buf] * len(SLICES), batch=True)
            anchor = fn.external_source(source=lambda: [np.array(s[:2], np.int32) for s in SLICES], batch=True)
            shape = fn.external_source(source=lambda: [np.array(s[2:], np.int32) for s in SLICES], batch=True)
            return fn.decoders.image_slice(x, anchor, shape, device="cpu", axis_names="HW",
                                           normalized_anchor=False, normalized_shape=False)
        p = pipe()
        p.build()
        sl = p.run()[0]
        for i, s in enumerate(SLICES):
            windows.append(s)
            crops.append(np.array(sl[i]))
            assert crops[-1].shape[:2] == s[2:], (crops[-1].shape, s)
        out[f"px/{name}/windows"] = np.array(windows, np.int16)
        for i, c in enumerate(crops):
            out[f"px/{name}/crop{i}"] = c
        same = [np.array_equal(full[y:y + hh, x:x + ww], c) for (y, x, hh, ww), c in zip(windows, crops)]
        print(name, len(data), "bytes; crops equal to the full decode's cut:", same)
        names.append(name)
    out["px_names"] = np.array(json.dumps(names))


def main():
    out = {"dali_version": np.array(dali.__version__), "area": np.array(AREA), "ratio": np.array(RATIO)}
    record_sampler(out)
    record_pixels(out)
    path = pathlib.Path(__file__).with_name("dali_rrc.npz")
    np.savez_compressed(path, **out)
    print("wrote", path, path.stat().st_size, "bytes, DALI", dali.__version__, types.DALIImageType.RGB)


if __name__ == "__main__":
    main()
