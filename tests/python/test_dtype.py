"""augpy data types (semantics §1): DLDataType objects, DLDataTypeCode and the numpy mappings."""
import pickle

import numpy as np
import pytest

import augpy
from conftest import ALL_DTYPE_NAMES, DTYPE_NAMES, HAVE_ML_DTYPES, augpy_dtype

# name: (code, bits, temp)
TABLE = {
    "bool": (6, 8, "float32"), "int8": (0, 8, "float32"), "int16": (0, 16, "float32"),
    "int32": (0, 32, "float64"), "int64": (0, 64, "float64"), "uint8": (1, 8, "float32"),
    "uint16": (1, 16, "float32"), "uint32": (1, 32, "float64"), "uint64": (1, 64, "float64"),
    "float16": (2, 16, "float32"), "bfloat16": (4, 16, "float32"), "float32": (2, 32, "float32"),
    "float64": (2, 64, "float64"),
}


@pytest.mark.parametrize("name", ALL_DTYPE_NAMES)
def test_attributes(name):
    dt = augpy_dtype(name)
    code, bits, _ = TABLE[name]
    assert isinstance(dt, augpy.DLDataType)
    assert dt.code == code and isinstance(dt.code, augpy.DLDataTypeCode)
    assert dt.bits == bits
    assert dt.lanes == 1
    assert dt.itemsize == bits // 8
    assert dt.name == name
    assert repr(dt) == f"<DLDataType {name}>"
    assert str(dt) == f"{dt}" == name == dt.name


@pytest.mark.parametrize("name", ALL_DTYPE_NAMES)
def test_constructor_returns_singleton(name):
    dt = augpy_dtype(name)
    code, bits, _ = TABLE[name]
    assert augpy.DLDataType(code, bits) is dt
    assert augpy.DLDataType(code=code, bits=bits, lanes=1) is dt
    assert pickle.loads(pickle.dumps(dt)) is dt


@pytest.mark.parametrize("args", [(5, 64), (2, 8), (0, 7), (1, 8, 4)])
def test_constructor_rejects_unsupported(args):
    with pytest.raises(TypeError, match=r"DLDataType: unsupported data type"):
        augpy.DLDataType(*args)


@pytest.mark.parametrize("args, msg", [((300, 8), r"code = 300 is out of range \[0, 255\]"),
                                       ((-1, 8), r"code = -1 is out of range \[0, 255\]"),
                                       ((1, 2 ** 64), r"bits = 18446744073709551616 is out of range \[0, 255\]"),
                                       ((1, 8, -1), r"lanes = -1 is out of range \[0, 65535\]")])
def test_constructor_rejects_values_beyond_the_dlpack_fields(args, msg):
    # DLPack's code and bits are uint8, lanes uint16.
    with pytest.raises(ValueError, match=r"^DLDataType: " + msg):
        augpy.DLDataType(*args)


def test_equality_and_hash():
    assert augpy.uint8 == augpy.DLDataType(1, 8)
    assert augpy.uint8 != augpy.int8
    assert augpy.uint8 != np.uint8  # no implicit numpy comparison
    assert augpy.uint8 != 1
    table = {augpy_dtype(n): n for n in ALL_DTYPE_NAMES}
    assert len(table) == 13
    assert table[augpy.DLDataType(2, 32)] == "float32"


def test_codes():
    C = augpy.DLDataTypeCode
    assert (C.kDLInt, C.kDLUInt, C.kDLFloat, C.kDLBfloat, C.kDLBool) == (0, 1, 2, 4, 6)
    assert C(1) is C.kDLUInt
    assert augpy.float32.code is C.kDLFloat


@pytest.mark.parametrize("name", DTYPE_NAMES)
def test_numpy_mapping(name):
    dt = augpy_dtype(name)
    npt = np.dtype(name).type
    assert augpy.to_augpy_dtype(npt) is dt
    assert augpy.to_augpy_dtype(np.dtype(name)) is dt
    assert augpy.to_augpy_dtype(name) is dt
    assert augpy.to_augpy_dtype(dt) is dt
    assert augpy.to_numpy_dtype(dt) is npt
    assert augpy.swap_dtype(dt) is npt
    assert augpy.swap_dtype(npt) is dt
    assert augpy.swap_dtype(np.dtype(name)) is dt


def test_numpy_mapping_python_types():
    assert augpy.to_augpy_dtype(bool) is augpy.bool_
    assert augpy.to_augpy_dtype(float) is augpy.float64
    assert augpy.to_augpy_dtype("bool_") is augpy.bool_
    assert augpy.to_augpy_dtype("<u2") is augpy.uint16
    assert augpy.to_numpy_dtype(augpy.bool_) is np.bool_


@pytest.mark.parametrize("name", ALL_DTYPE_NAMES)
def test_temp_dtype(name):
    temp = TABLE[name][2]
    assert augpy.to_temp_dtype(augpy_dtype(name)) is augpy_dtype(temp)
    if name != "bfloat16":
        assert augpy.to_temp_dtype(np.dtype(name).type) is np.dtype(temp).type
        assert augpy.to_temp_dtype(np.dtype(name)) is np.dtype(temp).type


@pytest.mark.skipif(HAVE_ML_DTYPES, reason="ml_dtypes is installed")
def test_bfloat16_without_ml_dtypes():
    with pytest.raises(TypeError, match=r"to_numpy_dtype: numpy has no bfloat16.*ml_dtypes"):
        augpy.to_numpy_dtype(augpy.bfloat16)
    with pytest.raises(TypeError, match=r"swap_dtype: numpy has no bfloat16"):
        augpy.swap_dtype(augpy.bfloat16)


@pytest.mark.skipif(not HAVE_ML_DTYPES, reason="needs ml_dtypes")
def test_bfloat16_with_ml_dtypes():
    import ml_dtypes
    assert augpy.to_numpy_dtype(augpy.bfloat16) is ml_dtypes.bfloat16
    assert augpy.to_augpy_dtype(ml_dtypes.bfloat16) is augpy.bfloat16
    assert augpy.to_augpy_dtype(np.dtype(ml_dtypes.bfloat16)) is augpy.bfloat16


@pytest.mark.parametrize("bad", [np.complex64, np.dtype(">u2"), "foo", None, 3.5, np.dtype("U3"),
                                 np.float128 if hasattr(np, "float128") else np.complex128])
def test_unsupported(bad):
    with pytest.raises(TypeError, match=r"to_augpy_dtype: "):
        augpy.to_augpy_dtype(bad)


def test_non_native_message():
    with pytest.raises(TypeError, match=r"non-native byte order"):
        augpy.to_augpy_dtype(np.dtype(">i4"))
