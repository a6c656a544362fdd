"""Targets through the geometric ops and the batch stages (augpy.targets, augpy.image).

The matrices of resize / flip / crop / center_crop are checked against the ops
themselves (a nearest-neighbour or bilinear warp with the matrix gives the op's
pixels); the stages' recorded matrices against the functions they compose
(make_transform, random_resized_crop, resize_center_crop_matrix), masks against
OpenCV's cv2.warpAffine (INTER_NEAREST, WARP_INVERSE_MAP), boxes and keypoints
against the pixels of a bright square that they must follow."""
import io

import cv2
import numpy as np
import pytest
from PIL import Image

import augpy
from augpy import targets as T
from augpy.image import DecodeWarp, ImageNetEval, ImageNetTrain

SIZES = [(5, 7), (4, 6), (1, 3), (9, 9), (8, 13)]


def rand(h, w, seed=0):
    return np.random.default_rng(seed).integers(0, 256, (h, w), dtype=np.uint8)


def nearest(a, m, out_hw, bg=0):
    out = augpy.zeros(tuple(out_hw), augpy.uint8)
    augpy.warp_affine(augpy.array_to_tensor(a), out, np.asarray(m, np.float32), [float(bg)],
                      interpolation="nearest")
    return out.numpy()


@pytest.mark.parametrize("hw", SIZES)
@pytest.mark.parametrize("hv", [(True, False), (False, True), (True, True), (False, False)])
def test_flip_matrix_is_the_flip(hw, hv):
    a = rand(*hw)
    want = augpy.flip(augpy.array_to_tensor(a), *hv).numpy()
    np.testing.assert_array_equal(nearest(a, T.flip_matrix(hw, *hv), hw), want)
    np.testing.assert_array_equal(want, a[::-1 if hv[1] else 1, ::-1 if hv[0] else 1])


@pytest.mark.parametrize("hw", SIZES)
def test_crop_and_center_crop_matrix(hw):
    a = rand(*hw, 1)
    t = augpy.array_to_tensor(a)
    h, w = hw
    for y, x, ch, cw in [(0, 0, h, w), (h // 2, w // 3, h - h // 2, w - w // 3), (h - 1, w - 1, 1, 1)]:
        want = augpy.crop(t, y, x, ch, cw).numpy()
        np.testing.assert_array_equal(nearest(a, T.crop_matrix(y, x), (ch, cw)), want)
    for size in [(1, 1), (max(h - 1, 1), max(w - 2, 1)), (h + 3, w + 2), (h + 2, max(w - 1, 1))]:
        want = augpy.center_crop(t, size).numpy()
        np.testing.assert_array_equal(nearest(a, T.center_crop_matrix(hw, size), size), want)


@pytest.mark.parametrize("src,dst", [((9, 15), (3, 5)), ((7, 11), (7, 11)), ((6, 9), (2, 3))])
def test_resize_matrix_nearest_on_odd_factors(src, dst):
    # an odd integer factor puts each output centre on a source centre: the nearest warp
    # takes that pixel, which area resize averages around; check the centre itself
    a = rand(*src, 2)
    fy, fx = src[0] // dst[0], src[1] // dst[1]
    got = nearest(a, T.resize_matrix(src, dst), dst)
    assert fy % 2 and fx % 2
    np.testing.assert_array_equal(got, a[(fy - 1) // 2::fy, (fx - 1) // 2::fx][:dst[0], :dst[1]])


@pytest.mark.parametrize("src,dst", [((5, 7), (11, 16)), ((9, 9), (4, 6)), ((8, 13), (8, 5)), ((3, 3), (10, 10))])
def test_resize_matrix_bilinear_equals_resize(src, dst):
    # bilinear without antialias is 2-tap and centre-aligned (cv2.INTER_LINEAR): the
    # bilinear warp with the matrix (replicated border) gives the same pixels (+-1 rounding)
    a = rand(*src, 3)
    want = augpy.resize(augpy.array_to_tensor(a), dst, "bilinear", antialias=False).numpy().astype(int)
    out = augpy.zeros(dst, augpy.uint8)
    augpy.warp_affine(augpy.array_to_tensor(a), out, T.resize_matrix(src, dst).astype(np.float32), [0.0], 1,
                      border="replicate")
    assert np.abs(out.numpy().astype(int) - want).max() <= 1
    np.testing.assert_allclose(want, cv2.resize(a, dst[::-1], interpolation=cv2.INTER_LINEAR), atol=1)
    # the whole image's box becomes the whole output
    b, _ = augpy.transform_boxes([[0, 0, src[1], src[0]]], T.resize_matrix(src, dst), src, dst)
    np.testing.assert_allclose(b, [[0, 0, dst[1], dst[0]]], atol=1e-6)


def test_flip_twice_and_identity_keep_targets():
    hw = (30, 40)
    boxes = np.array([[1.0, 2.0, 11.0, 9.0], [20.0, 5.0, 40.0, 30.0]])
    kps = np.array([[3.0, 4.0], [39.0, 29.0]])
    for hv in [(True, False), (False, True), (True, True)]:
        m = T.flip_matrix(hw, *hv)
        b1, _ = augpy.transform_boxes(boxes, m, hw, hw)
        b2, keep = augpy.transform_boxes(b1, m, hw, hw)
        np.testing.assert_allclose(b2, boxes, atol=1e-9)
        k2, _ = augpy.transform_keypoints(augpy.transform_keypoints(kps, m, hw)[0], m, hw)
        np.testing.assert_allclose(k2, kps, atol=1e-9)
    b, keep = augpy.transform_boxes(boxes, T.crop_matrix(0, 0), hw, hw)
    np.testing.assert_allclose(b, boxes)


def test_matrix_bad_arguments():
    with pytest.raises(ValueError, match="augpy.resize_matrix: src_hw"):
        T.resize_matrix((0, 3), (2, 2))
    with pytest.raises(TypeError, match="augpy.flip_matrix: hw"):
        T.flip_matrix("ab c")
    with pytest.raises(ValueError, match="augpy.crop_matrix: x"):
        T.crop_matrix(1, float("nan"))
    with pytest.raises(ValueError, match="augpy.center_crop_matrix: size"):
        T.center_crop_matrix((4, 4), (2, -1))


# --- the stages -------------------------------------------------------------------------------------------

def square_png(h, w, y0, x0, y1, x1):
    """A dark PNG with a bright square rows y0..y1-1, columns x0..x1-1; its box, mask, centre."""
    a = np.full((h, w, 3), 20, np.uint8)
    a[y0:y1, x0:x1] = 235
    f = io.BytesIO()
    Image.fromarray(a).save(f, "PNG")
    mask = np.zeros((h, w), np.uint8)
    mask[y0:y1, x0:x1] = 1
    return f.getvalue(), np.array([[x0, y0, x1, y1]], np.float64), mask, np.array([[(x0 + x1 - 1) / 2,
                                                                                    (y0 + y1 - 1) / 2]])


IMGS = [square_png(60, 80, 10, 20, 30, 50), square_png(70, 50, 30, 5, 50, 30), square_png(64, 64, 20, 20, 44, 44)]


def batch_of(imgs=IMGS, **extra):
    b = {"image": [i[0] for i in imgs], "boxes": [i[1] for i in imgs], "labels": [["sq"] for _ in imgs],
         "keypoints": [i[3] for i in imgs], "masks": [i[2] for i in imgs]}
    b.update(extra)
    return b


def check_follow(batch, imgs=IMGS, ignore=255):
    images = batch["image"].numpy()
    masks = batch["masks"].numpy()
    assert batch["masks"].shape == (len(imgs),) + images.shape[2:]
    for i, (a, (_, _, mask, _)) in enumerate(zip(batch["augmentation"], imgs)):
        m = np.array(a["matrix"], np.float64).reshape(2, 3)
        h, w = a["source_size"]
        assert (h, w) == mask.shape
        ht, wt = images.shape[2:]
        # the mask equals OpenCV's nearest warp with the recorded matrix (ties may round apart)
        cv = cv2.warpAffine(mask, m, (wt, ht), flags=cv2.INTER_NEAREST | cv2.WARP_INVERSE_MAP,
                            borderMode=cv2.BORDER_CONSTANT, borderValue=ignore)
        assert np.mean(cv != masks[i]) <= 0.01, (i, np.mean(cv != masks[i]))
        bright = images[i, 0] > 128
        if bright.sum() < 4:
            continue
        assert len(batch["boxes"][i]) == 1 and batch["labels"][i] == ["sq"]
        x0, y0, x1, y1 = batch["boxes"][i][0]
        ys, xs = np.nonzero(bright)
        # pixel j covers [j, j + 1): every bright pixel lies in the box, one pixel of antialiasing margin
        assert x0 - 1 <= xs.min() and xs.max() <= x1 and y0 - 1 <= ys.min() and ys.max() <= y1, i
        # the bright pixels are where the warped mask says 1
        assert np.mean(bright == (masks[i] == 1)) > 0.97
        if len(batch["keypoints"][i]):
            kx, ky = batch["keypoints"][i][0][:2]
            assert masks[i][int(round(ky)), int(round(kx))] == 1


PARAMS = [{"angle": 12.0, "scale": 1.3}, {"hmirror": True, "shift": (0.1, -0.05)}, {"angle": -30.0, "vmirror": True}]


@pytest.mark.parametrize("threads", [1, 2])
def test_decode_warp_targets_follow_the_image(threads):
    dw = DecodeWarp(3, (3, 48, 56), dct_scale=False, cpu_threads=threads)
    out = dw(batch_of(augmentation=PARAMS))
    assert all("matrix" not in p for p in PARAMS)      # the caller's dicts are not changed
    for a, p, img in zip(out["augmentation"], PARAMS, IMGS):
        want, _ = augpy.make_transform(img[2].shape, (48, 56), **p)
        np.testing.assert_allclose(np.array(a["matrix"]).reshape(2, 3), want, rtol=0, atol=1e-6)
    check_follow(out)


def test_decode_warp_identity_keeps_everything():
    img = IMGS[2]
    out = DecodeWarp(1, (3, 64, 64))(batch_of([img]))
    np.testing.assert_allclose(np.array(out["augmentation"][0]["matrix"]), [1, 0, 0, 0, 1, 0], atol=1e-6)
    np.testing.assert_allclose(out["boxes"][0], img[1], atol=1e-5)
    np.testing.assert_allclose(out["keypoints"][0], img[3], atol=1e-5)
    np.testing.assert_array_equal(out["masks"].numpy()[0], img[2])


@pytest.mark.parametrize("dct_scale", [None, False])
def test_imagenet_train_targets(dct_scale):
    st = ImageNetTrain(3, size=(40, 48), scale=(0.3, 1.0), hflip=0.5, seed=7, dct_scale=dct_scale)
    out = st(batch_of())
    states = augpy.sample_rng_states([(7, 0, k) for k in range(3)], "ImageNetTrain")  # the seed model's draws
    r = augpy.random_resized_crop(states, [i[2].shape for i in IMGS], (40, 48), (0.3, 1.0), hflip=0.5)
    np.testing.assert_allclose(np.array([a["matrix"] for a in out["augmentation"]]).reshape(3, 2, 3), r["matrix"],
                               atol=1e-6)
    assert [a["source_size"] for a in out["augmentation"]] == [i[2].shape for i in IMGS]
    check_follow(out)


def test_imagenet_eval_targets_and_box_that_leaves_is_dropped():
    wide = square_png(40, 120, 5, 2, 15, 12)      # a square near the left edge: centre crop cuts it off
    imgs = IMGS + [wide]
    st = ImageNetEval(4, size=32, resize=32)
    st.ignore_index = 7
    out = st(batch_of(imgs))
    for a, img in zip(out["augmentation"], imgs):
        m, _ = augpy.resize_center_crop_matrix(img[2].shape, 32, 32)
        np.testing.assert_allclose(np.array(a["matrix"]).reshape(2, 3), m, atol=1e-6)
    assert len(out["boxes"][3]) == 0 and out["labels"][3] == [] and len(out["keypoints"][3]) == 0
    check_follow(out, imgs, ignore=7)


def test_no_targets_no_keys():
    out = DecodeWarp(2, (3, 20, 20))({"image": [IMGS[0][0], IMGS[1][0]]})
    assert set(out) == {"image", "augmentation"}
    assert out["augmentation"][0]["source_size"] == (60, 80)


def test_box_format_setting_and_tensor_masks():
    dw = DecodeWarp(1, (3, 60, 80))
    dw.box_format = "xywh"
    dw.box_params = {"min_area": 1.0}
    img = IMGS[0]
    b = batch_of([img])
    b["boxes"] = [np.array([[20.0, 10.0, 30.0, 20.0]])]
    b["masks"] = [augpy.array_to_tensor(img[2].astype(np.int32))]
    out = dw(b)
    np.testing.assert_allclose(out["boxes"][0], [[20, 10, 30, 20]], atol=1e-5)
    assert out["masks"].dtype == augpy.int32
    np.testing.assert_array_equal(out["masks"].numpy()[0], img[2])


def test_bad_targets():
    dw = DecodeWarp(3, (3, 20, 20))
    with pytest.raises(ValueError, match=r"DecodeWarp: batch\['boxes'\] must be a list of 3"):
        dw(batch_of(boxes=[IMGS[0][1]]))
    with pytest.raises(ValueError, match=r"DecodeWarp: batch\['masks'\]\[1\] has shape"):
        dw(batch_of(masks=[IMGS[0][2], IMGS[0][2], IMGS[2][2]]))
    with pytest.raises(TypeError, match=r"DecodeWarp: batch\['masks'\]\[0\] must be an integer mask"):
        dw(batch_of(masks=[i[2].astype(np.float32) for i in IMGS]))
    with pytest.raises(ValueError, match=r"DecodeWarp: batch\['boxes'\]\[2\] holds NaN"):
        dw(batch_of(boxes=[IMGS[0][1], IMGS[1][1], np.array([[0, 0, np.nan, 3]])]))
    dw.box_params = {"min_areaa": 1}
    with pytest.raises(ValueError, match="DecodeWarp: box_params"):
        dw(batch_of())
