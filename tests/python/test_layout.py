"""Layout strings (semantics §3, §5, §12): the settable Tensor.layout property, how views keep
letters (docs/decisions.md), and DALI's propagation through elementwise operators
(equal or suffix layouts; the result takes the highest-ndim operand's layout; a
mismatch is an error). Then the image functions' arguments (semantics, "Image arguments
and their layouts"): NumPy arrays, torch tensors and other DLPack / buffer objects used
without a copy, and the layout a tensor without a layout string is read with (its shape
when unambiguous, torch's channels first, else layout= for arrays)."""
import gc

import numpy as np
import pytest

import augpy
from conftest import DEVICE, host_tensor


def make(shape, layout="", dtype=np.uint8):
    t = augpy.array_to_tensor(np.arange(int(np.prod(shape)), dtype=np.int64).astype(dtype).reshape(shape))
    t.layout = layout
    return t


# ---- the property ---------------------------------------------------------------------------------


def test_property_set_get_clear():
    t = make((2, 3, 4))
    assert t.layout == ""
    t.layout = "HWC"
    assert t.layout == "HWC"
    t.layout = ""
    assert t.layout == ""
    t.layout = "CHW"
    t.layout = None
    assert t.layout == ""
    assert repr(t) == f"<Tensor shape=(2, 3, 4), device={DEVICE}, dtype=uint8>"
    t.layout = "HWC"
    assert repr(t) == f"<Tensor shape=(2, 3, 4), device={DEVICE}, dtype=uint8>"


@pytest.mark.parametrize("bad", ["HW", "HWCN", "ABCDEFGHI"])
def test_property_wrong_length(bad):
    t = make((2, 3, 4), "HWC")
    with pytest.raises(ValueError, match=rf"^Tensor.layout: layout \"{bad[:9]}\".* but the tensor has 3 dimensions"):
        t.layout = bad
    assert t.layout == "HWC"  # unchanged after an error


def test_property_bad_values():
    t = make((2, 3))
    with pytest.raises(TypeError, match=r"Tensor.layout: layout must be a str, got int"):
        t.layout = 3
    with pytest.raises(ValueError, match=r"Tensor.layout: layout 'Hé' must be ASCII"):
        t.layout = "Hé"  # two characters but three UTF-8 bytes
    with pytest.raises(ValueError, match=r"Tensor.layout: layout 'H\\x00' must be ASCII"):
        t.layout = "H\x00"
    with pytest.raises(AttributeError):
        del t.layout
    s = make(())
    s.layout = ""
    with pytest.raises(ValueError):
        s.layout = "A"


# ---- views (docs/decisions.md) ------------------------------------------------------------------


def test_views_keep_letters():
    t = make((4, 5, 3), "HWC")
    assert t[1:3].layout == "HWC"  # slices keep every letter
    assert t[::2, 1:, :].layout == "HWC"
    assert t[...].layout == "HWC"
    assert t[..., 0:2].layout == "HWC"
    assert t[1].layout == "WC"  # an int drops its dimension's letter
    assert t[:, 2].layout == "HC"
    assert t[..., 1].layout == "HW"
    assert t[1, 2, 0].layout == ""
    assert t[None].layout == ""  # a new axis has no letter: cleared
    assert t[:, None].layout == ""
    assert t.reshape(5, 4, 3).layout == "HWC"  # same ndim keeps
    assert t.reshape(20, 3).layout == ""  # another ndim clears
    assert t.contiguous().layout == "HWC"
    assert t[:, ::2].contiguous().layout == "HWC"
    assert augpy.empty_like(t).layout == "HWC"
    assert augpy.cast(t, augpy.float32).layout == "HWC"
    # the view's layout is its own
    v = t[1:3]
    v.layout = "abc"
    assert t.layout == "HWC"


# ---- elementwise propagation (semantics §5) -----------------------------------------------------------


def test_equal_layouts():
    a, b = make((2, 3, 4), "HWC"), make((2, 3, 4), "HWC")
    assert (a + b).layout == "HWC"
    assert augpy.add(a, b).layout == "HWC"


def test_suffix_layout_highest_ndim_wins():
    a, b = make((2, 3, 4), "HWC"), make((3, 4), "WC")
    assert (a + b).layout == "HWC"
    assert (b + a).layout == "HWC"
    c = make((4,), "C")
    assert (c * a).layout == "HWC"
    assert (a - c).layout == "HWC"


def test_one_side_without_layout():
    a, b = make((2, 3, 4), "HWC"), make((3, 4))
    assert (a + b).layout == "HWC"
    assert (b + a).layout == "HWC"
    assert (a + 1).layout == "HWC"
    assert (2 * a).layout == "HWC"


def test_shorter_layout_does_not_name_broadcast_dims():
    # the highest-ndim operand has no layout: the result has none (a shorter layout
    # does not describe the leading dimensions)
    a, b = make((2, 3, 4)), make((3, 4), "WC")
    assert (a + b).layout == ""
    assert (b + a).layout == ""
    # the broadcast result has more dims than either operand
    c, d = make((3, 1), "HW"), make((2, 1, 4), "")
    assert (c + d).layout == ""


def test_mismatch_is_an_error():
    a, b = make((2, 3, 4), "HWC"), make((2, 3, 4), "CHW")
    with pytest.raises(ValueError, match=r'layouts "HWC" and "CHW" are incompatible: one must be a suffix of the other'):
        a + b
    c = make((3, 4), "HW")
    with pytest.raises(ValueError, match=r'layouts "HWC" and "HW" are incompatible'):
        a * c
    with pytest.raises(ValueError, match=r"incompatible"):
        augpy.add(c, a)


def test_out_keeps_its_layout():
    a, b = make((2, 3), "HW"), make((2, 3), "HW")
    out = make((2, 3), "ab")
    augpy.add(a, b, out=out)
    assert out.layout == "ab"


def test_reshape_then_broadcast():
    img = make((4, 6, 3), "HWC")
    flat = augpy.reshape(img, shape=[4, -1], layout="HX")
    assert flat.layout == "HX"
    row = augpy.reshape(make((18,)), layout="X")
    assert (flat + row).layout == "HX"
    with pytest.raises(ValueError, match=r'layouts "HX" and "Y" are incompatible'):
        flat + augpy.reshape(make((18,)), layout="Y")



# ---- image arguments: foreign arrays without a copy --------------------------------------------------


class FakeTorch:
    """Stands in for a CPU torch.Tensor (its type's module is 'torch'; torch is never imported):
    DLPack delegated to a NumPy array."""
    __module__ = "torch"

    def __init__(self, array):
        self.array = array

    def __dlpack__(self, *args, **kwargs):
        return self.array.__dlpack__(*args, **kwargs)

    def __dlpack_device__(self):
        return self.array.__dlpack_device__()


def rand(shape, seed=0):
    return np.random.default_rng(seed).integers(0, 256, shape, dtype=np.uint8)


def test_numpy_views_share_memory():
    img = rand((9, 11, 3))
    v = augpy.hflip(img)                       # a view of the NumPy memory, an augpy tensor
    assert isinstance(v, augpy.Tensor) and v.layout == "HWC" and v.device == "cpu"
    np.testing.assert_array_equal(v.numpy(), img[:, ::-1])
    img[0, 0, 0] = 17 if img[0, 0, 0] != 17 else 18
    assert v.numpy()[0, -1, 0] == img[0, 0, 0]  # no copy: a write shows through the view
    c = augpy.crop(img, 2, 3, 4, 5)
    keep = img.copy()
    del img
    gc.collect()                               # the view keeps the array's memory alive
    np.testing.assert_array_equal(c.numpy(), keep[2:6, 3:8])


def test_numpy_equals_the_tensor_path():
    img = rand((16, 24, 3))
    t = host_tensor(img)
    np.testing.assert_array_equal(augpy.resize(img, (8, 12)).numpy(), augpy.resize(t, (8, 12)).numpy())
    np.testing.assert_array_equal(augpy.center_crop(img, 10).numpy(), augpy.center_crop(t, 10).numpy())
    assert augpy.image_dims(img) == (1, 16, 24, 3)
    m, s = augpy.make_transform((16, 24), (8, 8), angle=20)
    want = host_tensor(np.zeros((3, 8, 8), np.uint8))
    augpy.warp_affine(t, want, m, None, s)
    dst = np.zeros((3, 8, 8), np.uint8)          # a NumPy dst, written in place
    assert augpy.warp_affine(img, dst, m, None, s) is dst
    np.testing.assert_array_equal(dst, want.numpy())
    hwc = np.zeros((8, 8, 3), np.uint8)          # channels last, from its shape
    augpy.warp_affine(img, hwc, m, None, s)
    np.testing.assert_array_equal(hwc, want.numpy().transpose(1, 2, 0))


def test_out_arrays_are_written_in_place():
    img = rand((16, 24, 3))
    out = np.zeros((8, 12, 3), np.uint8)
    assert augpy.resize(img, (8, 12), out=out) is out
    np.testing.assert_array_equal(out, augpy.resize(host_tensor(img), (8, 12)).numpy())
    ro = np.zeros((8, 12, 3), np.uint8)
    ro.setflags(write=False)
    with pytest.raises(ValueError, match="augpy.resize: .*read-only"):
        augpy.resize(img, (8, 12), out=ro)
    batch = rand((2, 3, 8, 8))
    want = augpy.flip_batch(host_tensor(batch), [True, False]).numpy()
    assert augpy.flip_batch(batch, [True, False], out=batch) is batch  # in place on the array
    np.testing.assert_array_equal(batch, want)


def test_read_only_input_is_copied():
    img = rand((16, 24, 3))
    img.setflags(write=False)
    np.testing.assert_array_equal(augpy.resize(img, (8, 12)).numpy(), augpy.resize(host_tensor(img), (8, 12)).numpy())


def test_buffer_protocol_objects():
    base = rand((10, 10, 3))
    v = augpy.vflip(memoryview(base))          # no __dlpack__: the buffer protocol
    np.testing.assert_array_equal(v.numpy(), base[::-1])
    base[0, 0, 0] ^= 1
    assert v.numpy()[-1, 0, 0] == base[0, 0, 0]
    with pytest.raises(ValueError, match="augpy.resize: .*read-only"):
        augpy.resize(base, (5, 5), out=memoryview(bytes(75)).cast("B", (5, 5, 3)))


@pytest.mark.parametrize("bad", [b"jpeg bytes", "image", None, [[1, 2], [3, 4]], 3])
def test_non_arrays_are_type_errors(bad):
    with pytest.raises(TypeError, match="augpy.flip: image must be a Tensor or an array"):
        augpy.flip(bad)


# ---- the layout of a tensor without a layout string -----------------------------------------------


@pytest.mark.parametrize("shape,layout", [((16, 24, 3), "HWC"), ((3, 16, 24), "CHW"), ((16, 24, 1), "HWC"),
                                          ((2, 16, 24, 3), "NHWC"), ((2, 3, 16, 24), "NCHW"),
                                          ((16, 24), "HW")])
def test_layout_from_the_shape(shape, layout):
    img = rand(shape)
    r = augpy.resize(img, (8, 12))
    want = augpy.resize(host_tensor(img), (8, 12), layout=layout)
    assert r.layout == want.layout == layout and r.shape == want.shape
    np.testing.assert_array_equal(r.numpy(), want.numpy())


def test_asarray_chw_resizes_as_chw():
    """The trap of the issue: augpy.asarray of a CHW array was read as HWC (3 rows, 24 channels)."""
    chw = rand((3, 16, 24))
    for x in (chw, augpy.asarray(chw), host_tensor(chw)):
        r = augpy.resize(x, (8, 12))
        assert r.shape == (3, 8, 12) and r.layout == "CHW"
    assert augpy.image_dims(augpy.asarray(chw)) == (1, 16, 24, 3)


@pytest.mark.parametrize("shape", [(3, 4, 4), (4, 3, 2), (8, 9, 10), (2, 3, 4, 4)])
def test_ambiguous_arrays_need_layout(shape):
    img = rand(shape)
    with pytest.raises(ValueError, match=rf"augpy.resize: cannot tell the layout of image from its shape "
                                         rf"\({', '.join(map(str, shape))}\).*pass layout="):
        augpy.resize(img, (2, 2))
    with pytest.raises(ValueError, match=r"augpy.crop: cannot tell the layout"):
        augpy.crop(img, 0, 0, 1, 1)
    hwc = "HWC" if len(shape) == 3 else "NHWC"
    r = augpy.resize(img, (2, 2), layout=hwc)  # the layout= override
    assert r.layout == hwc
    # an augpy tensor without a layout string keeps the documented default (HWC / NCHW)
    assert augpy.resize(host_tensor(img), (2, 2)).layout == ("HWC" if len(shape) == 3 else "NCHW")


def test_torch_tensors_are_channels_first():
    t = FakeTorch(rand((3, 4, 4)))             # ambiguous for NumPy; torch's convention decides
    r = augpy.resize(t, (2, 2))
    assert r.layout == "CHW" and r.shape == (3, 2, 2)
    assert augpy.image_dims(FakeTorch(rand((2, 3, 4, 4)))) == (2, 4, 4, 3)
    assert augpy.image_dims(FakeTorch(rand((8, 8, 3)))) == (1, 8, 8, 3)  # channels first impossible: HWC
    np.testing.assert_array_equal(r.numpy(), augpy.resize(host_tensor(t.array), (2, 2), layout="CHW").numpy())
    assert augpy.hflip(t, layout="HWC").layout == "HWC"  # layout= still overrides


def test_layout_contradicting_the_op():
    nhwc = rand((2, 16, 16, 3))
    with pytest.raises(ValueError, match=r"augpy.gaussian_blur: input of shape \(2, 16, 16, 3\) is laid out as "
                                         r"'NHWC' .*but augpy.gaussian_blur takes 'NCHW'"):
        augpy.gaussian_blur(nhwc, [1.0, 1.0], 7)
    with pytest.raises(ValueError, match=r"augpy.lighting: imtensor .* 'NHWC' .*takes 'CHW' or 'NCHW'"):
        augpy.lighting(nhwc, [1, 1], [1] * 6, [0, 0], 0, 255)
    with pytest.raises(ValueError, match=r"augpy.color_jitter: imtensor .* 'NHWC' .*takes 'CHW' or 'NCHW'"):
        augpy.color_jitter(nhwc, brightness=[1.0, 1.0])
    t = host_tensor(nhwc)
    t.layout = "NHWC"                          # a layout string says it as well
    with pytest.raises(ValueError, match=r"augpy.gaussian_blur: input has layout 'NHWC' but augpy.gaussian_blur "
                                         r"takes 'NCHW'"):
        augpy.gaussian_blur(t, [1.0, 1.0], 7)
    hwc = host_tensor(rand((16, 16, 3)))
    hwc.layout = "HWC"
    with pytest.raises(ValueError, match=r"augpy.gaussian_blur_single: input has layout 'HWC'"):
        augpy.gaussian_blur_single(hwc, 1.0)
    with pytest.raises(ValueError, match=r"augpy.flip_batch: cannot tell the layout of batch from its shape "
                                         r"\(2, 4, 4, 3\).*\('NHWC' or 'NCHW'\)"):
        augpy.flip_batch(rand((2, 4, 4, 3)), [True, False])


def test_lists_of_arrays():
    imgs = [rand((10, 12, 3), 1), rand((14, 9, 3), 2)]
    got = augpy.resize_batch(imgs, (6, 6))
    want = augpy.resize_batch([host_tensor(i) for i in imgs], (6, 6))
    np.testing.assert_array_equal(got.numpy(), want.numpy())
    with pytest.raises(ValueError, match=r"augpy.resize_batch: images\[0\] is laid out as 'HWC' but images\[1\] "
                                         r"as 'CHW': pass layout="):
        augpy.resize_batch([rand((10, 12, 3)), rand((3, 10, 12))], (6, 6))
    chw = [np.ascontiguousarray(i.transpose(2, 0, 1)) for i in imgs]
    out = augpy.crop_mirror_normalize(chw, crop=(8, 8), dtype=augpy.uint8)  # CHW from the shapes
    ref = augpy.crop_mirror_normalize([host_tensor(i) for i in imgs], crop=(8, 8), dtype=augpy.uint8)
    np.testing.assert_array_equal(out.numpy(), ref.numpy())
