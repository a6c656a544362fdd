"""Records OpenCV's 16U results for the 16-bit checks of tests/python/test_u16_filters.py
(issue 31) into opencv_u16_filters.npz, so that `make test` needs no cv2: GaussianBlur and blur
(boxFilter) with BORDER_REPLICATE on uint16 images, and cvtColor RGB2GRAY.

Run from the repository root with any Python that has opencv-python(-headless) 5.x and NumPy:
    python tests/python/data/record_opencv_u16_filters.py
The Gaussian kernels use augpy's size rule (max(3, int(6.6 sigma - 2.3) | 1)), so both sides
weigh the same window."""
import pathlib

import cv2
import numpy as np

HERE = pathlib.Path(__file__).parent
SIGMAS = [0.6, 1.5, 3.0]
BOXES = [2, 3, 4, 5, 9]


def ksize(sigma):
    return max(3, int(sigma * 6.6 - 2.3) | 1)


def main():
    rng = np.random.default_rng(20261129)
    noise = rng.integers(0, 65536, (24, 32, 3), dtype=np.uint16)
    yy, xx = np.mgrid[0:24, 0:32]
    smooth = np.stack([(xx * 2000 + yy * 500) % 65536, 65535 - yy * 2500, (xx * yy * 37) % 65536], -1)
    imgs = np.stack([noise, smooth.astype(np.uint16)])  # (2, H, W, 3)
    out = {"hwc": imgs, "sigmas": np.array(SIGMAS), "boxes": np.array(BOXES), "cv2_version": np.array(cv2.__version__)}
    for s in SIGMAS:
        k = ksize(s)
        out[f"gauss_{s}"] = np.stack([cv2.GaussianBlur(im, (k, k), s, sigmaY=s, borderType=cv2.BORDER_REPLICATE)
                                      for im in imgs])
    for k in BOXES:
        out[f"box_{k}"] = np.stack([cv2.blur(im, (k, k), borderType=cv2.BORDER_REPLICATE) for im in imgs])
    out["gray"] = np.stack([cv2.cvtColor(im, cv2.COLOR_RGB2GRAY) for im in imgs])
    np.savez_compressed(HERE / "opencv_u16_filters.npz", **out)


if __name__ == "__main__":
    main()
