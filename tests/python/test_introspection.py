"""Introspection and the manual's spellings: inspect.signature and a docstring for
every public callable of augpy, augpy.math and augpy.image and every method of
their public classes; `from augpy import *` shadows no builtin; the manual's
keyword names are accepted; tuples are sequences of values everywhere."""
import builtins
import inspect
import pydoc
import types

import numpy as np
import pytest

import augpy
import augpy.image
import augpy.math
from conftest import DEVICE

MODULES = [augpy, augpy.math, augpy.image]


def public_callables():
    for mod in MODULES:
        for name in dir(mod):
            obj = getattr(mod, name)
            if name.startswith("_") or isinstance(obj, types.ModuleType) or not callable(obj):
                continue
            if getattr(obj, "__module__", "augpy").split(".")[0] != "augpy" and not isinstance(
                    obj, types.BuiltinFunctionType):
                continue  # imported helpers (augpy.image's ThreadPoolExecutor)
            yield f"{mod.__name__}.{name}", obj
            if isinstance(obj, type):
                for attr, member in vars(obj).items():
                    if attr.startswith("_") and not (attr.startswith("__") and attr.endswith("__")):
                        continue
                    if attr in ("__new__", "__init_subclass__", "__subclasshook__", "__class_getitem__"):
                        continue
                    member = getattr(obj, attr)
                    if callable(member) and not isinstance(member, type):
                        yield f"{mod.__name__}.{name}.{attr}", member


def test_every_public_callable_has_a_signature():
    missing = []
    for name, obj in public_callables():
        try:
            inspect.signature(obj)
        except (ValueError, TypeError) as e:
            missing.append(f"{name} ({e})")
    assert missing == []


def test_every_public_callable_has_a_docstring():
    missing = []
    for name, obj in public_callables():
        if name.split(".")[-1].startswith("__"):
            continue  # operators: the slot wrappers' own docs
        doc = inspect.getdoc(obj) or ""
        if len(doc.strip()) < 10:
            missing.append(name)
    assert missing == []
    assert "Sum over" in augpy.Tensor.sum.__doc__
    assert "Square root" in augpy.Tensor.sqrt.__doc__


# Public callables whose docstring (in a file of another change in flight) is still one line;
# remove a name here once its docstring has a second line.
ONE_LINE_DOCS_PENDING: set = set()  # public functions whose docstring is still one line


def test_every_public_function_documents_more_than_one_line():
    """help(augpy.X) shows real documentation: every public callable of augpy (augpy.__all__
    and dir(augpy)), augpy.math, augpy.targets and augpy.rrc has a docstring of at least two
    lines (a one-line summary alone hid the Python wrappers' arguments)."""
    short = []
    for mod in (augpy, augpy.math, augpy.targets, augpy.rrc):
        names = set(getattr(mod, "__all__", [])) | {n for n in dir(mod) if not n.startswith("_")}
        for name in sorted(names):
            obj = getattr(mod, name)
            if isinstance(obj, types.ModuleType) or not callable(obj) or name in ONE_LINE_DOCS_PENDING:
                continue
            if isinstance(obj, type) and issubclass(obj, BaseException):
                continue  # exceptions: their class docstring is their message's subject
            if getattr(obj, "__module__", "augpy").split(".")[0] not in ("augpy", "builtins") and \
                    not isinstance(obj, types.BuiltinFunctionType):
                continue  # imported helpers (numpy's functions in augpy.targets' namespace)
            if len((inspect.getdoc(obj) or "").strip().splitlines()) < 2:
                short.append(f"{mod.__name__}.{name}")
    assert short == []


@pytest.mark.parametrize("name", ["resize", "flip", "hflip", "vflip", "crop", "center_crop", "warp_affine"])
def test_geometry_wrappers_show_the_full_documentation(name):
    """The targets= wrappers (augpy/_geometry.py) carry the extension function's whole docstring
    and a signature with targets=."""
    wrapper, cfunc = getattr(augpy, name), getattr(augpy._augpy, name)
    assert wrapper is not cfunc and wrapper.__module__ == "augpy._geometry"
    assert cfunc.__doc__.strip() in wrapper.__doc__ and "targets:" in wrapper.__doc__
    assert len(wrapper.__doc__.splitlines()) > 10
    sig = inspect.signature(wrapper)
    assert sig.parameters["targets"].kind is inspect.Parameter.KEYWORD_ONLY
    assert list(sig.parameters)[:-1] == [p for p in inspect.signature(cfunc).parameters]
    text = pydoc.render_doc(wrapper, renderer=pydoc.plaintext)
    assert "targets=None" in text and cfunc.__doc__.strip().splitlines()[0] in text


def test_unknown_keywords_are_type_errors():
    """An unknown keyword names the function and itself; it is never silently ignored."""
    with pytest.raises(TypeError, match=r"augpy.make_transform\(\) got an unexpected keyword argument 'rotation'"):
        augpy.make_transform((20, 30), (20, 30), rotation=30)
    with pytest.raises(TypeError, match=r"augpy.resize\(\) got an unexpected keyword argument 'interp'"):
        augpy._augpy.resize(augpy.zeros((8, 8, 3)), (4, 4), interp="nearest")
    with pytest.raises(TypeError, match=r"unexpected keyword argument 'interp'"):
        augpy.resize(augpy.zeros((8, 8, 3)), (4, 4), interp="nearest")
    with pytest.raises(TypeError, match=r"augpy.crop: unknown targets key 'box' \(accepted: boxes, labels, "
                                        r"keypoints, keypoint_labels, mask, box_format, box_params, ignore_index\)"):
        augpy.crop(augpy.zeros((8, 8, 3)), 0, 0, 4, 4, targets={"box": [[0, 0, 2, 2]]})


def test_new_functions_signatures():
    assert str(inspect.signature(augpy.arange)) == "(start=None, stop=None, step=None, dtype=None, device_id=None)"
    assert str(inspect.signature(augpy.where)) == "(condition, x=None, y=None, out=None)"
    assert str(inspect.signature(augpy.stack)) == "(arrays, axis=0, out=None, dtype=None)"
    assert str(inspect.signature(augpy.CudaError)) == "(*args)"


def test_star_import_shadows_no_builtin():
    ns = {}
    exec("from augpy import *", ns)
    shadowed = sorted(n for n in ns if n != "__builtins__" and hasattr(builtins, n))
    assert shadowed == []
    for name in ("zeros", "CudaTensor", "Tensor", "JpegError", "where", "arange", "image", "numeric_limits"):
        assert name in ns
    assert "math" not in ns  # the standard library's math stays
    public = {n for n in dir(augpy) if not n.startswith("_")}
    assert set(augpy.__all__) <= public
    # augpy.torch and augpy.ray (imported only on request: they need torch / ray) become
    # attributes of the package once another test has imported them
    assert public - set(augpy.__all__) - {"torch", "ray"} == {"all", "any", "min", "max", "sum", "MemoryError", "math"}


def test_extension_all():
    """The extension's __all__ (which augpy's and its stub's are built on): every public
    name of augpy._augpy but those that shadow a builtin, sorted; each one reaches augpy."""
    ext = augpy._augpy
    public = sorted(n for n in vars(ext) if not n.startswith("_"))
    assert ext.__all__ == [n for n in public if not hasattr(builtins, n)]
    assert set(public) - set(ext.__all__) == {"all", "any", "min", "max", "sum", "MemoryError"}
    assert set(ext.__all__) <= set(augpy.__all__)
    for name in public:
        assert getattr(augpy, name) is getattr(ext, name) or name in ("crop", "center_crop", "flip", "hflip", "vflip",
                                                                      "resize", "warp_affine", "warp_perspective")


def test_manual_keyword_names():
    assert augpy.to_augpy_dtype(numpy_dtype=np.uint8) == augpy.uint8
    assert augpy.to_numpy_dtype(augpy_dtype=augpy.uint8) is np.uint8
    assert augpy.swap_dtype(dtype=augpy.uint8) is np.uint8
    assert augpy.swap_dtype(dtype=np.float32) == augpy.float32
    assert augpy.to_temp_dtype(dtype=augpy.uint8) == augpy.float32
    t = augpy.zeros((4, 6))
    assert t.reshape(shape=[6, 4]).shape == (6, 4)
    assert t.reshape((3, 8)).shape == (3, 8)
    assert t.reshape(2, 12).shape == (2, 12)
    with pytest.raises(TypeError, match="Tensor.reshape"):
        t.reshape(6, shape=[4])
    with pytest.raises(TypeError, match="Tensor.reshape"):
        t.reshape(size=[4])
    assert augpy.DLDataTypeCode(value=1) == augpy.DLDataTypeCode.kDLUInt
    assert augpy.WarpScaleMode(value=0) == augpy.WARP_SCALE_SHORTEST
    assert list(inspect.signature(augpy.to_augpy_dtype).parameters) == ["numpy_dtype"]


# ---- tuples are sequences of values (regressions of PyObject_CallMethod's "O") ---------------

def test_tuples_everywhere():
    assert augpy.array_to_tensor((5,)).shape == (1,)
    np.testing.assert_array_equal(augpy.array_to_tensor((1, 2, 3)).numpy(), [1, 2, 3])
    t = augpy.zeros((3,), augpy.uint8)
    t[:] = (1, 2, 3)
    np.testing.assert_array_equal(t.numpy(), [1, 2, 3])
    np.testing.assert_array_equal((t + (1, 2, 3)).numpy(), [2, 4, 6])
    np.testing.assert_array_equal(((4, 5, 6) - t).numpy(), [3, 3, 3])
    assert t.fill((4, 5, 6)) is t
    np.testing.assert_array_equal(t.numpy(), [4, 5, 6])
    augpy.fill((7, 8, 9), t)
    np.testing.assert_array_equal(t.numpy(), [7, 8, 9])
    np.testing.assert_array_equal(augpy.math.clamp(t, (0, 8, 0), 8).numpy(), [7, 8, 8])
    np.testing.assert_array_equal(augpy.math.clamp(t, 0, (5,)).numpy(), [5, 5, 5])


def test_tuples_in_warp_affine():
    img = augpy.array_to_tensor(np.arange(8 * 8 * 3, dtype=np.uint8).reshape(8, 8, 3))
    out = augpy.zeros((3, 8, 8), augpy.uint8)
    # shift everything out of the image: every pixel is the background, given as a tuple;
    # the matrix is a tuple of tuples
    augpy.warp_affine(img, out, ((1.0, 0.0, 100.0), (0.0, 1.0, 0.0)), background=(1, 2, 3))
    assert out.device == DEVICE
    np.testing.assert_array_equal(out.numpy(), np.broadcast_to(np.array([1, 2, 3], np.uint8)[:, None, None],
                                                               (3, 8, 8)))
    # the identity, as tuples, reproduces the image
    augpy.warp_affine(img, out, ((1.0, 0.0, 0.0), (0.0, 1.0, 0.0)), background=(0, 0, 0))
    np.testing.assert_array_equal(out.numpy(), img.numpy().transpose(2, 0, 1))
