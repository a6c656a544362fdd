"""Progressive JPEGs bounded by what the file claims (issue 32, item 2): a progressive decode
keeps the whole image's coefficients and reads the data once per scan, so the whole image is
held to max_pixels whatever the roi or scale (a region decode used to check only the region),
scans x pixels to max_scan_pixels, and a long progressive decode stops on Ctrl-C. Files with
many scans are made with jpegtran's scan scripts (libjpeg-turbo-progs, in the Makefile's
packages); the scan count is the file's, read independently from its SOS markers here."""
import io
import pickle
import shutil
import subprocess
import sys

import cv2
import numpy as np
import pytest
from PIL import Image

import augpy
from conftest import UNDER_ASAN

pytestmark = pytest.mark.skipif(shutil.which("jpegtran") is None, reason="jpegtran (libjpeg-turbo-progs)")


def gradient(h, w):
    y, x = np.mgrid[0:h, 0:w]
    return ((x * 3 + y * 5) % 256).astype(np.uint8)


def many_scans(tmp_path, h, w):
    """A grayscale progressive JPEG with 64 scans: DC, then each AC coefficient alone."""
    base, out, script = tmp_path / "base.jpg", tmp_path / "scans.jpg", tmp_path / "scans.txt"
    base.write_bytes(cv2.imencode(".jpg", gradient(h, w))[1].tobytes())
    script.write_text("".join(f"0: {k}-{k}, 0, 0;\n" for k in range(64)))
    subprocess.run(["jpegtran", "-scans", str(script), "-outfile", str(out), str(base)], check=True)
    return out.read_bytes()


def count_sos(data):
    """SOS markers of a file whose entropy-coded data has no FF other than FF 00 / RSTn."""
    n, i = 0, 2
    while i < len(data) - 1:
        if data[i] == 0xFF and data[i + 1] not in (0x00, 0xFF) and not 0xD0 <= data[i + 1] <= 0xD7:
            if data[i + 1] == 0xDA:
                n += 1
            if data[i + 1] == 0xD9:
                break
        i += 1
    return n


def test_many_scans_decode_and_match_pillow(tmp_path):
    data = many_scans(tmp_path, 96, 128)
    assert count_sos(data) == 64
    got = augpy.Decoder().decode(data).numpy()
    assert np.array_equal(got, np.asarray(Image.open(io.BytesIO(data)).convert("RGB")))


def test_scan_budget(tmp_path):
    """scans x pixels against max_scan_pixels: the 64-scan file of 96 x 128 needs 786 432."""
    data = many_scans(tmp_path, 96, 128)
    need = count_sos(data) * 96 * 128
    assert augpy.Decoder(max_scan_pixels=need).decode(data).shape == (96, 128, 3)
    small = augpy.Decoder(max_scan_pixels=need - 1)
    with pytest.raises(augpy.DecodeError, match=rf"Decoder.decode: progressive JPEG of 64 scans x 12288 pixels = "
                                                rf"{need} scan-pixels is over the decoder's limit of {need - 1} "
                                                r"\(raise it with aug_decoder_set_scan_limit / Decoder\(max_scan_pixels"):
        small.decode(data)
    with pytest.raises(augpy.DecodeError, match="scan-pixels is over"):
        small.decode(data, roi=(0, 0, 8, 8))
    assert small.max_scan_pixels == need - 1
    assert pickle.loads(pickle.dumps(small)).max_scan_pixels == need - 1
    for bad, exc in ((0, ValueError), (-5, ValueError), (1.5, TypeError), ("1", TypeError)):
        with pytest.raises(exc, match="Decoder: max_scan_pixels"):
            augpy.Decoder(max_scan_pixels=bad)
    baseline = cv2.imencode(".jpg", gradient(96, 128))[1].tobytes()  # one scan: not bounded by it
    assert augpy.Decoder(max_scan_pixels=1).decode(baseline).shape == (96, 128, 3)


def test_region_of_a_progressive_file_checks_the_whole_image(tmp_path):
    """max_pixels 10 000: a 50 x 50 region of a 400 x 400 baseline file decodes (its memory is the
    region's); of a progressive one it is refused (the coefficients are the whole image's)."""
    img = gradient(400, 400)
    baseline = cv2.imencode(".jpg", img)[1].tobytes()
    progressive = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_PROGRESSIVE, 1])[1].tobytes()
    dec = augpy.Decoder(max_pixels=10000)
    assert dec.decode(baseline, roi=(0, 0, 50, 50)).shape == (50, 50, 3)
    assert dec.decode(baseline, scale=(1, 8)).shape == (50, 50, 3)
    msg = r"image of 400 x 400 = 160000 pixels is larger than the decoder's limit of 10000 pixels"
    with pytest.raises(augpy.DecodeError, match=msg):
        dec.decode(progressive, roi=(0, 0, 50, 50))
    with pytest.raises(augpy.DecodeError, match=msg):
        dec.decode(progressive, scale=(1, 8))
    with pytest.raises(augpy.DecodeError, match=msg):
        dec.decode(progressive, roi=(0, 0, 50, 50), mode="gray")
    assert augpy.Decoder().decode(progressive, roi=(0, 0, 50, 50)).shape == (50, 50, 3)


CHILD = r'''
import signal, sys, time
import cv2, numpy as np
import augpy

y, x = np.mgrid[0:7000, 0:7000]
img = ((x * 3 + y * 5) % 256).astype(np.uint8)
data = cv2.imencode(".jpg", np.dstack([img, img.T, img // 2]), [cv2.IMWRITE_JPEG_PROGRESSIVE, 1])[1].tobytes()
dec = augpy.Decoder()
t0 = time.monotonic()
dec.decode(data)
full = time.monotonic() - t0


def stop(*args):
    raise KeyboardInterrupt


signal.signal(signal.SIGALRM, stop)
signal.setitimer(signal.ITIMER_REAL, 0.2)
t0 = time.monotonic()
try:
    dec.decode(data)
    print("not interrupted %.2f %.2f" % (time.monotonic() - t0, full))
except KeyboardInterrupt:
    print("interrupted %.2f %.2f" % (time.monotonic() - t0, full))
print(dec.decode(data).shape)  # the decoder still works
'''


@pytest.mark.skipif(UNDER_ASAN, reason="a 7000 x 7000 decode under ASan takes too long")
def test_ctrl_c_stops_a_long_progressive_decode():
    """A 7000 x 7000 progressive decode takes about a second or more; SIGALRM 0.2 s in raises
    KeyboardInterrupt from decode well before it would have ended."""
    out = subprocess.run([sys.executable, "-c", CHILD], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    first, second = out.stdout.splitlines()
    word, took, full = first.split()
    assert word == "interrupted", out.stdout
    assert float(took) < 0.2 + 0.25 and float(took) < float(full), out.stdout
    assert second == "(7000, 7000, 3)"
