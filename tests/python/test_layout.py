"""Layout strings (semantics §3, §5, §12): the settable Tensor.layout property, how views keep
letters (docs/decisions.md), and DALI's propagation through elementwise operators
(equal or suffix layouts; the result takes the highest-ndim operand's layout; a
mismatch is an error)."""
import numpy as np
import pytest

import augpy
from conftest import DEVICE


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
    assert repr(t) == f"<CudaTensor shape=(2, 3, 4), device={DEVICE}, dtype=uint8>"
    t.layout = "HWC"
    assert repr(t) == f"<CudaTensor shape=(2, 3, 4), device={DEVICE}, dtype=uint8>"


@pytest.mark.parametrize("bad", ["HW", "HWCN", "ABCDEFGHI"])
def test_property_wrong_length(bad):
    t = make((2, 3, 4), "HWC")
    with pytest.raises(ValueError, match=rf"^CudaTensor.layout: layout \"{bad[:9]}\".* but the tensor has 3 dimensions"):
        t.layout = bad
    assert t.layout == "HWC"  # unchanged after an error


def test_property_bad_values():
    t = make((2, 3))
    with pytest.raises(TypeError, match=r"CudaTensor.layout: layout must be a str, got int"):
        t.layout = 3
    with pytest.raises(ValueError, match=r"CudaTensor.layout: layout 'Hé' must be ASCII"):
        t.layout = "Hé"  # two characters but three UTF-8 bytes
    with pytest.raises(ValueError, match=r"CudaTensor.layout: layout 'H\\x00' must be ASCII"):
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
