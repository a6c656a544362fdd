"""Type stubs for augpy's C extension (augpy._augpy), re-exported by augpy.

Checked against the runtime by ``python -m mypy.stubtest augpy``
(tests/python/test_stubs.py); the docstrings of the extension carry the runtime
signatures (``__text_signature__``) that stubtest compares with these.
"""
import builtins
import enum
import fractions
import os
import sys
from types import TracebackType
from typing import Any, Callable, ClassVar, Dict, Iterator, List, Optional, Protocol, Sequence, SupportsIndex, Tuple, Type, Union, final, overload

import numpy
import numpy.typing
from typing_extensions import CapsuleType

__version__: str

_NDArray = numpy.ndarray[Any, Any]
_Shape = Union[SupportsIndex, Sequence[SupportsIndex]]
_DTypeLike = Union["DLDataType", type, numpy.dtype[Any], str]
_Number = Union[bool, int, float, numpy.bool_, numpy.number[Any], "Constant"]
# A tensor, a Python / numpy number (a weak scalar), an augpy.Constant, or an
# array-like (buffer-protocol object, numpy array, nested sequence), copied.
_Operand = Union["Tensor", _Number, numpy.typing.ArrayLike]
_Buffer = Union[bytes, bytearray, memoryview, _NDArray]


class _SupportsDLPack(Protocol):
    def __dlpack__(self, *args: Any, **kwargs: Any) -> Any: ...


# An image argument of the image functions: an augpy tensor as it is, or a NumPy array, a (CPU)
# torch tensor or any object with __dlpack__ / the buffer protocol, used without a copy
# (docs/semantics.md, layouts); an `out=` / dst array is written in place.
_Image = Union["Tensor", _NDArray, _SupportsDLPack, memoryview]
# JPEG data: bytes-like, a path (str / os.PathLike: the file is read) or a CPU DLPack uint8 tensor
_JpegData = Union[_Buffer, str, os.PathLike[str], os.PathLike[bytes], Any]
_Axis = Union[None, int, Sequence[int]]

# ---- data types -------------------------------------------------------------------------


class DLDataTypeCode(enum.IntEnum):
    """DLPack type code enum."""

    kDLInt = 0
    kDLUInt = 1
    kDLFloat = 2
    kDLOpaqueHandle = 3
    kDLBfloat = 4
    kDLComplex = 5
    kDLBool = 6


@final
class DLDataType:
    """DLPack data type of tensors; one object per supported type (``augpy.uint8``, ...).

    ``DLDataType(code, bits, lanes=1)`` returns that object; unsupported combinations
    raise TypeError. Equal objects are identical; hashable and picklable.
    """

    def __new__(cls, code: int, bits: int, lanes: int = 1) -> "DLDataType": ...
    def __reduce__(self) -> Tuple[Type["DLDataType"], Tuple[int, int, int]]: ...
    def __lt__(self, other: object, /) -> bool: ...
    def __le__(self, other: object, /) -> bool: ...
    def __gt__(self, other: object, /) -> bool: ...
    def __ge__(self, other: object, /) -> bool: ...
    def __hash__(self) -> int: ...
    @property
    def code(self) -> DLDataTypeCode:
        """DLPack type code."""
    @property
    def bits(self) -> int:
        """Number of bits."""
    @property
    def lanes(self) -> int:
        """Number of elements for vector types; always 1."""
    @property
    def itemsize(self) -> int:
        """Number of bytes per element."""
    @property
    def name(self) -> str:
        """Name of the type, e.g. ``'uint8'``."""


bool_: DLDataType
int8: DLDataType
int16: DLDataType
int32: DLDataType
int64: DLDataType
uint8: DLDataType
uint16: DLDataType
uint32: DLDataType
uint64: DLDataType
float16: DLDataType
bfloat16: DLDataType
float32: DLDataType
float64: DLDataType


def to_augpy_dtype(numpy_dtype: _DTypeLike) -> DLDataType:
    """Translate a numpy dtype, numpy type or name to the augpy data type."""


def to_numpy_dtype(augpy_dtype: _DTypeLike) -> type:
    """Translate an augpy data type to the numpy scalar type (bfloat16 needs ml_dtypes)."""


def swap_dtype(dtype: _DTypeLike) -> Union[DLDataType, type]:
    """augpy -> numpy, numpy -> augpy."""


def to_temp_dtype(dtype: _DTypeLike) -> Union[DLDataType, type]:
    """The temp type augpy computes in, of the same kind (augpy or numpy) as the argument."""


def _cast_limits(src: _DTypeLike, dst: _DTypeLike, /) -> Tuple[Optional[Union[int, float]], Optional[Union[int, float]]]:
    """Raw CAST_LIMITS entry; see augpy.numeric_limits."""

# ---- tensors ------------------------------------------------------------------------------


@final
class Tensor:
    """augpy's tensor: a DLPack-compatible strided view over reference-counted memory.

    ``Tensor(shape, dtype=uint8, device_id=0)`` allocates uninitialised memory on the
    default device (cuda:0 when available, else the CPU). NumPy basic indexing,
    saturating broadcasting math, the buffer protocol (CPU tensors) and DLPack.
    """

    __array_ufunc__: ClassVar[None]  # numpy defers `ndarray op tensor` to the reflected operators
    __hash__: ClassVar[None]  # type: ignore[assignment]

    def __new__(cls, shape: _Shape, dtype: Optional[_DTypeLike] = None, device_id: int = 0) -> "Tensor": ...
    @property
    def shape(self) -> Tuple[int, ...]:
        """Tensor shape."""
    @property
    def strides(self) -> Tuple[int, ...]:
        """Strides in elements (may be 0 or negative)."""
    @property
    def ndim(self) -> int:
        """Number of dimensions."""
    @property
    def size(self) -> int:
        """Number of elements."""
    @property
    def itemsize(self) -> int:
        """Bytes per element."""
    @property
    def nbytes(self) -> int:
        """size * itemsize."""
    @property
    def dtype(self) -> DLDataType:
        """Tensor data type."""
    @property
    def ptr(self) -> int:
        """Address of the first element (already includes byte_offset)."""
    @property
    def byte_offset(self) -> int:
        """Offset of the first element from the start of the memory block."""
    @property
    def is_contiguous(self) -> bool:
        """True if the elements are packed in C order."""
    @property
    def device(self) -> str:
        """'cpu' or 'cuda:N'."""
    @property
    def device_id(self) -> int:
        """Device index."""
    @property
    def layout(self) -> str:
        """DALI layout string ('HWC', ...) or ''; settable."""
    @layout.setter
    def layout(self, value: str) -> None: ...

    def reshape(self, shape: _Shape, *extents: SupportsIndex) -> "Tensor":
        """View with a new shape (one -1 inferred): reshape((6, 4)), reshape(shape=[6, 4]) or
        reshape(6, 4); contiguous tensors only."""
    def transpose(self, *axes: Union[int, Sequence[int]]) -> "Tensor":
        """A view with permuted dimensions, as numpy.transpose (none: reversed)."""
    def contiguous(self) -> "Tensor":
        """self if C-contiguous, else a packed copy."""
    def numpy(self, array: Any = None, blocking: bool = True) -> _NDArray:
        """Copy into a new numpy array, or into the writable buffer ``array``; blocking=False
        queues a CUDA tensor's copy into page-locked memory (synchronise before reading)."""
    def to(self, device: Union[str, int, _DTypeLike, None] = None, dtype: Optional[_DTypeLike] = None) -> "Tensor":
        """This tensor on 'cpu', 'cuda', 'cuda:N' or a device_id and/or as dtype (torch's forms
        to(device), to(dtype), to(device, dtype)): itself when nothing changes, else a packed copy."""
    def cpu(self) -> "Tensor":
        """This tensor on the cpu: itself or a copy."""
    def cuda(self, device_id: Optional[int] = 0) -> "Tensor":
        """This tensor on cuda:device_id: itself or a copy."""
    def __array__(self, dtype: Any = None, copy: Optional[bool] = None) -> _NDArray: ...
    def __dlpack__(self, *, stream: Optional[int] = None, max_version: Optional[Tuple[int, int]] = None,
                   dl_device: Optional[Tuple[int, int]] = None, copy: Optional[bool] = None) -> CapsuleType:
        """DLPack capsule (versioned when max_version >= (1, 0))."""
    def __dlpack_device__(self) -> Tuple[int, int]: ...

    # ---- NumPy / PyTorch conveniences (tensor_methods.c) ----
    def astype(self, dtype: _DTypeLike, copy: bool = True) -> "Tensor":
        """A new tensor of dtype with the values saturate_cast (copy=False: self when the dtype matches)."""
    def clone(self) -> "Tensor":
        """A packed copy on the same device."""
    def copy(self) -> "Tensor":
        """A packed copy on the same device (= clone())."""
    def __copy__(self) -> "Tensor": ...
    def __deepcopy__(self, memo: Any, /) -> "Tensor": ...
    def tolist(self) -> Any:
        """The values as nested lists of Python bool/int/float (0-d: one value)."""
    def item(self, *index: SupportsIndex) -> Union[bool, int, float]:
        """One value: item() of a one-element tensor (ValueError otherwise), item(flat), item(i, j, ...)."""
    @property
    def T(self) -> "Tensor":
        """The view with the dimensions reversed."""
    def permute(self, *dims: Union[SupportsIndex, Sequence[SupportsIndex]]) -> "Tensor":
        """A view with the dimensions permuted (every dimension once), as torch.permute."""
    def squeeze(self, axis: Union[None, SupportsIndex, Sequence[SupportsIndex]] = None) -> "Tensor":
        """A view without extent-1 dimensions (all, or the given ones)."""
    def unsqueeze(self, axis: SupportsIndex) -> "Tensor":
        """A view with a new extent-1 dimension at axis (of the result)."""
    def ravel(self) -> "Tensor":
        """C-contiguous 1-D, as numpy.ravel: a view of a contiguous tensor, else a copy."""
    def flatten(self) -> "Tensor":
        """1-D copy in C order."""
    def view(self, *args: Union[_DTypeLike, _Shape]) -> "Tensor":
        """view(dtype): the same bytes as another dtype (NumPy's rules); view(*shape): a reshape view."""
    def clip(self, min: Optional[_Operand] = None, max: Optional[_Operand] = None,
             out: Optional["Tensor"] = None) -> "Tensor":
        """Values limited to [min, max], as augpy.math.clamp."""
    def __reduce__(self) -> Tuple[Any, Tuple[bytes, Tuple[int, ...], str, str, str]]: ...
    @property
    def __array_interface__(self) -> dict[str, Any]:
        """NumPy's array interface v3 (CPU tensors; AttributeError otherwise and for bfloat16)."""
    @property
    def __cuda_array_interface__(self) -> dict[str, Any]:
        """The CUDA array interface v3 with the stream to order on (CUDA tensors only)."""
    def __getitem__(self, key: Any, /) -> "Tensor": ...
    def __setitem__(self, key: Any, value: _Operand, /) -> None: ...
    def __delitem__(self, key: Any, /) -> None:
        """Not supported (TypeError): tensors have a fixed shape."""
    def __len__(self) -> int: ...
    def __iter__(self) -> Iterator["Tensor"]: ...
    def __bool__(self) -> bool: ...
    def __int__(self) -> int: ...
    def __float__(self) -> float: ...
    def __index__(self) -> int: ...
    if sys.version_info >= (3, 12):
        def __buffer__(self, flags: int, /) -> memoryview: ...
        def __release_buffer__(self, buffer: memoryview, /) -> None: ...

    # ---- op methods (ops.c, reduce.c, mathfuncs.c) ----
    def fill(self, value: _Operand, blocks_per_sm: int = 8, threads: int = 0) -> "Tensor":
        """Fill with a scalar, or copy a tensor / array (broadcast) into this tensor; returns self."""
    def sum(self, axis: _Axis = None, keepdim: bool = False, upcast: bool = False, out: Optional["Tensor"] = None,
            blocks_per_sm: int = 8, threads: int = 0) -> "Tensor": ...
    def min(self, axis: _Axis = None, keepdim: bool = False, out: Optional["Tensor"] = None,
            blocks_per_sm: int = 8, threads: int = 0) -> "Tensor": ...
    def max(self, axis: _Axis = None, keepdim: bool = False, out: Optional["Tensor"] = None,
            blocks_per_sm: int = 8, threads: int = 0) -> "Tensor": ...
    def mean(self, axis: _Axis = None, keepdim: bool = False, out: Optional["Tensor"] = None,
             blocks_per_sm: int = 8, threads: int = 0) -> "Tensor": ...
    def all(self, axis: _Axis = None, keepdim: bool = False, out: Optional["Tensor"] = None,
            blocks_per_sm: int = 8, threads: int = 0) -> "Tensor": ...
    def any(self, axis: _Axis = None, keepdim: bool = False, out: Optional["Tensor"] = None,
            blocks_per_sm: int = 8, threads: int = 0) -> "Tensor": ...
    def argmin(self, axis: Optional[int] = None, keepdim: bool = False, out: Optional["Tensor"] = None,
               blocks_per_sm: int = 8, threads: int = 0) -> "Tensor": ...
    def argmax(self, axis: Optional[int] = None, keepdim: bool = False, out: Optional["Tensor"] = None,
               blocks_per_sm: int = 8, threads: int = 0) -> "Tensor": ...
    def abs(self, out: Optional["Tensor"] = None) -> "Tensor": ...
    def fabs(self, out: Optional["Tensor"] = None) -> "Tensor": ...
    def floor(self, out: Optional["Tensor"] = None) -> "Tensor": ...
    def ceil(self, out: Optional["Tensor"] = None) -> "Tensor": ...
    def pow(self, exponent: _Operand, out: Optional["Tensor"] = None) -> "Tensor": ...
    def sqrt(self, out: Optional["Tensor"] = None) -> "Tensor": ...
    def cbrt(self, out: Optional["Tensor"] = None) -> "Tensor": ...
    def exp(self, out: Optional["Tensor"] = None) -> "Tensor": ...
    def log(self, out: Optional["Tensor"] = None) -> "Tensor": ...
    def log2(self, out: Optional["Tensor"] = None) -> "Tensor": ...
    def log10(self, out: Optional["Tensor"] = None) -> "Tensor": ...
    def sin(self, out: Optional["Tensor"] = None) -> "Tensor": ...
    def cos(self, out: Optional["Tensor"] = None) -> "Tensor": ...
    def tan(self, out: Optional["Tensor"] = None) -> "Tensor": ...
    def asin(self, out: Optional["Tensor"] = None) -> "Tensor": ...
    def acos(self, out: Optional["Tensor"] = None) -> "Tensor": ...
    def atan(self, out: Optional["Tensor"] = None) -> "Tensor": ...
    def atan2(self, right: _Operand, out: Optional["Tensor"] = None) -> "Tensor": ...
    def sinh(self, out: Optional["Tensor"] = None) -> "Tensor": ...
    def cosh(self, out: Optional["Tensor"] = None) -> "Tensor": ...
    def tanh(self, out: Optional["Tensor"] = None) -> "Tensor": ...
    def asinh(self, out: Optional["Tensor"] = None) -> "Tensor": ...
    def acosh(self, out: Optional["Tensor"] = None) -> "Tensor": ...
    def atanh(self, out: Optional["Tensor"] = None) -> "Tensor": ...

    # ---- operators (semantics §7): elementwise, broadcasting, saturating ----
    def __add__(self, other: _Operand, /) -> "Tensor": ...
    def __radd__(self, other: _Operand, /) -> "Tensor": ...
    def __sub__(self, other: _Operand, /) -> "Tensor": ...
    def __rsub__(self, other: _Operand, /) -> "Tensor": ...
    def __mul__(self, other: _Operand, /) -> "Tensor": ...
    def __rmul__(self, other: _Operand, /) -> "Tensor": ...
    def __truediv__(self, other: _Operand, /) -> "Tensor": ...
    def __rtruediv__(self, other: _Operand, /) -> "Tensor": ...
    def __floordiv__(self, other: _Operand, /) -> "Tensor": ...
    def __rfloordiv__(self, other: _Operand, /) -> "Tensor": ...
    def __mod__(self, other: _Operand, /) -> "Tensor": ...
    def __rmod__(self, other: _Operand, /) -> "Tensor": ...
    def __divmod__(self, other: _Operand, /) -> Tuple["Tensor", "Tensor"]: ...
    def __rdivmod__(self, other: _Operand, /) -> Tuple["Tensor", "Tensor"]: ...
    def __pow__(self, other: _Operand, mod: None = None, /) -> "Tensor": ...
    def __rpow__(self, other: _Operand, mod: None = None, /) -> "Tensor": ...
    def __and__(self, other: _Operand, /) -> "Tensor": ...
    def __rand__(self, other: _Operand, /) -> "Tensor": ...
    def __or__(self, other: _Operand, /) -> "Tensor": ...
    def __ror__(self, other: _Operand, /) -> "Tensor": ...
    def __xor__(self, other: _Operand, /) -> "Tensor": ...
    def __rxor__(self, other: _Operand, /) -> "Tensor": ...
    def __lshift__(self, other: _Operand, /) -> "Tensor": ...
    def __rlshift__(self, other: _Operand, /) -> "Tensor": ...
    def __rshift__(self, other: _Operand, /) -> "Tensor": ...
    def __rrshift__(self, other: _Operand, /) -> "Tensor": ...
    def __matmul__(self, other: "Tensor", /) -> "Tensor": ...
    def __rmatmul__(self, other: "Tensor", /) -> "Tensor": ...
    def __iadd__(self, other: _Operand, /) -> "Tensor": ...
    def __isub__(self, other: _Operand, /) -> "Tensor": ...
    def __imul__(self, other: _Operand, /) -> "Tensor": ...
    def __itruediv__(self, other: _Operand, /) -> "Tensor": ...
    def __ifloordiv__(self, other: _Operand, /) -> "Tensor": ...
    def __imod__(self, other: _Operand, /) -> "Tensor": ...
    def __ipow__(self, other: _Operand, mod: None = None, /) -> "Tensor": ...  # see tests/python/stubtest_allowlist.txt
    def __iand__(self, other: _Operand, /) -> "Tensor": ...
    def __ior__(self, other: _Operand, /) -> "Tensor": ...
    def __ixor__(self, other: _Operand, /) -> "Tensor": ...
    def __ilshift__(self, other: _Operand, /) -> "Tensor": ...
    def __irshift__(self, other: _Operand, /) -> "Tensor": ...
    def __neg__(self) -> "Tensor": ...
    def __pos__(self) -> "Tensor": ...
    def __abs__(self) -> "Tensor": ...
    def __invert__(self) -> "Tensor": ...
    def __eq__(self, other: object, /) -> "Tensor": ...  # type: ignore[override]
    def __ne__(self, other: object, /) -> "Tensor": ...  # type: ignore[override]
    def __lt__(self, other: _Operand, /) -> "Tensor": ...
    def __le__(self, other: _Operand, /) -> "Tensor": ...
    def __gt__(self, other: _Operand, /) -> "Tensor": ...
    def __ge__(self, other: _Operand, /) -> "Tensor": ...


def array_to_tensor(array: Any, device_id: Union[int, Tensor] = 0, tensor: Optional[Tensor] = None) -> Tensor:
    """Copy a buffer / array-like into a new tensor on ``device_id``, or into ``tensor``
    (also given in place of device_id, the seed's form)."""


def tensor_to_array(tensor: Tensor, array: Any = None) -> _NDArray:
    """Copy a tensor into a new numpy array, or into the writable buffer ``array``."""


def empty_like(tensor: Tensor, dtype: Optional[_DTypeLike] = None) -> Tensor:
    """New uninitialised tensor with the shape, device and (unless given) dtype of ``tensor``."""

CudaTensor = Tensor  # the augpy manual's name for the same class


# ---- creation and Constant (create.c) --------------------------------------------------------


@final
class Constant:
    """A typed (non-weak) scalar operand, like DALI's ``types.Constant``: it promotes like a
    0-d tensor of ``dtype``. dtype None: bool -> bool, int -> int32 (int64 / uint64 when
    needed), float -> float32, a numpy scalar -> its dtype."""

    def __new__(cls, value: Union[_Number, numpy.generic], dtype: Optional[_DTypeLike] = None) -> "Constant": ...
    @property
    def dtype(self) -> DLDataType:
        """The constant's dtype."""
    @property
    def value(self) -> Any:
        """The value as given."""
    def item(self) -> Union[bool, int, float]:
        """The value after saturate_cast to dtype, as a Python number."""


def zeros(shape: _Shape, dtype: Optional[_DTypeLike] = None, device_id: Optional[int] = None) -> Tensor:
    """A new tensor of zeros (dtype None: uint8)."""


def ones(shape: _Shape, dtype: Optional[_DTypeLike] = None, device_id: Optional[int] = None) -> Tensor:
    """A new tensor of ones (dtype None: uint8)."""


def full(shape: _Shape, value: _Number, dtype: Optional[_DTypeLike] = None,
         device_id: Optional[int] = None) -> Tensor:
    """A new tensor filled with value (dtype None: uint8 for an int, float32 for a float, ...)."""


def empty(shape: _Shape, dtype: Optional[_DTypeLike] = None, device_id: Optional[int] = None) -> Tensor:
    """A new tensor with uninitialised values (dtype None: uint8)."""


def arange(start: Union[int, float, None] = None, stop: Union[int, float, None] = None,
           step: Union[int, float, None] = None, dtype: Optional[_DTypeLike] = None,
           device_id: Optional[int] = None) -> Tensor:
    """Evenly spaced values in [start, stop) as numpy.arange (dtype None: int64 for ints, else float32)."""


def asarray(a: _Operand, dtype: Optional[_DTypeLike] = None, device_id: Optional[int] = None) -> Tensor:
    """a as a tensor: a tensor of that dtype and device itself, else a new tensor."""


def tensor(data: _Operand, dtype: Optional[_DTypeLike] = None, device_id: Optional[int] = None) -> Tensor:
    """A new tensor with a copy of data's values."""


def stack(arrays: Sequence[Union[Tensor, numpy.typing.ArrayLike]], axis: int = 0,
          out: Optional[Tensor] = None, dtype: Optional[_DTypeLike] = None) -> Tensor:
    """Join tensors of one shape along a new axis (numpy.stack)."""


def concatenate(arrays: Sequence[Union[Tensor, numpy.typing.ArrayLike]], axis: int = 0,
                out: Optional[Tensor] = None, dtype: Optional[_DTypeLike] = None) -> Tensor:
    """Join tensors along an existing axis (numpy.concatenate)."""


@overload
def where(condition: _Operand, x: None = None, y: None = None, out: None = None) -> Tuple[Tensor, ...]: ...
@overload
def where(condition: _Operand, x: _Operand, y: _Operand, out: Optional[Tensor] = None) -> Tensor: ...


def zeros_like(tensor: Tensor, dtype: Optional[_DTypeLike] = None) -> Tensor:
    """Zeros with tensor's shape, device and (default) dtype."""


def ones_like(tensor: Tensor, dtype: Optional[_DTypeLike] = None) -> Tensor:
    """Ones with tensor's shape, device and (default) dtype."""


def full_like(tensor: Tensor, value: _Number, dtype: Optional[_DTypeLike] = None) -> Tensor:
    """value with tensor's shape, device and (default) dtype."""

# ---- functional API (ops.c, semantics §9) ---------------------------------------------------------------
# `other` is a scalar (the result has the tensor's dtype) or a tensor (broadcast); with
# `out` the result is stored there with saturate_cast and `out` is returned.


def add(tensor: Tensor, other: _Operand, out: Optional[Tensor] = None, blocks_per_sm: int = 8,
        threads: int = 512) -> Tensor:
    """tensor + other."""


def sub(tensor: Tensor, other: _Operand, out: Optional[Tensor] = None, blocks_per_sm: int = 8,
        threads: int = 512) -> Tensor:
    """tensor - other."""


def rsub(tensor: Tensor, other: _Operand, out: Optional[Tensor] = None, blocks_per_sm: int = 8,
         threads: int = 512) -> Tensor:
    """other - tensor."""


def mul(tensor: Tensor, other: _Operand, out: Optional[Tensor] = None, blocks_per_sm: int = 8,
        threads: int = 512) -> Tensor:
    """tensor * other."""


def div(tensor: Tensor, other: _Operand, out: Optional[Tensor] = None, blocks_per_sm: int = 8,
        threads: int = 512) -> Tensor:
    """tensor / other, integers rounded half to even."""


def rdiv(tensor: Tensor, other: _Operand, out: Optional[Tensor] = None, blocks_per_sm: int = 8,
         threads: int = 512) -> Tensor:
    """other / tensor, integers rounded half to even."""


def lt(tensor: Tensor, other: _Operand, out: Optional[Tensor] = None, blocks_per_sm: int = 8,
       threads: int = 512) -> Tensor:
    """tensor < other as a bool tensor."""


def le(tensor: Tensor, other: _Operand, out: Optional[Tensor] = None, blocks_per_sm: int = 8,
       threads: int = 512) -> Tensor:
    """tensor <= other as a bool tensor."""


def gt(tensor: Tensor, other: _Operand, out: Optional[Tensor] = None, blocks_per_sm: int = 8,
       threads: int = 512) -> Tensor:
    """tensor > other as a bool tensor."""


def ge(tensor: Tensor, other: _Operand, out: Optional[Tensor] = None, blocks_per_sm: int = 8,
       threads: int = 512) -> Tensor:
    """tensor >= other as a bool tensor."""


def eq(tensor: Tensor, other: _Operand, out: Optional[Tensor] = None, blocks_per_sm: int = 8,
       threads: int = 512) -> Tensor:
    """tensor == other as a bool tensor."""


def ne(tensor: Tensor, other: _Operand, out: Optional[Tensor] = None, blocks_per_sm: int = 8,
       threads: int = 512) -> Tensor:
    """tensor != other as a bool tensor."""


def fma(scalar: Union[_Number, Tensor, _NDArray, Sequence[float]], tensor1: Tensor,
        tensor2: Union[Tensor, _Number], out: Optional[Tensor] = None, blocks_per_sm: int = 8,
        threads: int = 512) -> Tensor:
    """scalar * tensor1 + tensor2 with one rounding; scalar may be a broadcasting tensor, tensor2 a number."""


def gemm(A: Tensor, B: Tensor, C: Optional[Tensor] = None, alpha: _Number = 1.0,
         beta: _Number = 0.0) -> Tensor:
    """C = alpha * (A @ B) + beta * C for 2-D float32/float64 tensors; returns C."""


def fill(scalar: _Operand, dst: Tensor, blocks_per_sm: int = 8, threads: int = 0) -> Tensor:
    """Fill dst with scalar (or copy a tensor / array into it, broadcast), saturate_cast; returns dst."""


def copy(src: Union[Tensor, numpy.typing.ArrayLike], dst: Tensor, blocks_per_sm: int = 8,
         threads: int = 0) -> Tensor:
    """Copy src into dst, broadcasting, with saturate_cast; returns dst."""


def cast(tensor: Tensor, dtype: Union[_DTypeLike, Tensor], blocks_per_sm: int = 8,
         threads: int = 0) -> Tensor:
    """Saturating cast to a dtype (new tensor), or into an output tensor given in place of dtype."""

# ---- reductions (reduce.c, semantics §10) ------------------------------------------------------------------


def sum(tensor: Tensor, axis: _Axis = None, keepdim: bool = False, upcast: bool = False,
        out: Optional[Tensor] = None, blocks_per_sm: int = 8, threads: int = 0) -> Tensor:
    """Sum over axis (None: all, a 0-d result); upcast=True gives int64 / uint64 / float64.
    ``sum(tensor, upcast)`` with a bool second argument is the seed's form."""


def min(tensor: Tensor, axis: _Axis = None, keepdim: bool = False, out: Optional[Tensor] = None,
        blocks_per_sm: int = 8, threads: int = 0) -> Tensor:
    """Minimum over axis (NaN propagates)."""


def max(tensor: Tensor, axis: _Axis = None, keepdim: bool = False, out: Optional[Tensor] = None,
        blocks_per_sm: int = 8, threads: int = 0) -> Tensor:
    """Maximum over axis (NaN propagates)."""


def mean(tensor: Tensor, axis: _Axis = None, keepdim: bool = False, out: Optional[Tensor] = None,
         blocks_per_sm: int = 8, threads: int = 0) -> Tensor:
    """Mean over axis (integers give float64)."""


def all(tensor: Tensor, axis: _Axis = None, keepdim: bool = False, out: Optional[Tensor] = None,
        blocks_per_sm: int = 8, threads: int = 0) -> Tensor:
    """True where every element is nonzero (bool tensor)."""


def any(tensor: Tensor, axis: _Axis = None, keepdim: bool = False, out: Optional[Tensor] = None,
        blocks_per_sm: int = 8, threads: int = 0) -> Tensor:
    """True where some element is nonzero (bool tensor)."""


def argmin(tensor: Tensor, axis: Optional[int] = None, keepdim: bool = False, out: Optional[Tensor] = None,
           blocks_per_sm: int = 8, threads: int = 0) -> Tensor:
    """int64 index of the first minimum (None: flat index); a NaN wins (the first NaN)."""


def argmax(tensor: Tensor, axis: Optional[int] = None, keepdim: bool = False, out: Optional[Tensor] = None,
           blocks_per_sm: int = 8, threads: int = 0) -> Tensor:
    """int64 index of the first maximum (None: flat index); a NaN wins (the first NaN)."""


def _rebuild_tensor(data: _Buffer, shape: Sequence[int], dtype: _DTypeLike, device: str, layout: str) -> Tensor:
    """pickle's reconstructor of a Tensor."""

# ---- math functions (mathfuncs.c; re-exported by augpy.math under their DALI names) ---------


def _math_abs(input: _Operand, out: Optional[Tensor] = None) -> Tensor: ...
def _math_fabs(input: _Operand, out: Optional[Tensor] = None) -> Tensor: ...
def _math_floor(input: _Operand, out: Optional[Tensor] = None) -> Tensor: ...
def _math_ceil(input: _Operand, out: Optional[Tensor] = None) -> Tensor: ...
def _math_pow(base: _Operand, exponent: _Operand, out: Optional[Tensor] = None) -> Tensor: ...
def _math_fpow(base: _Operand, exponent: _Operand, out: Optional[Tensor] = None) -> Tensor: ...
def _math_min(left: _Operand, right: _Operand, out: Optional[Tensor] = None) -> Tensor: ...
def _math_max(left: _Operand, right: _Operand, out: Optional[Tensor] = None) -> Tensor: ...
def _math_clamp(value: _Operand, lo: _Operand, hi: _Operand, out: Optional[Tensor] = None) -> Tensor: ...
def _math_sqrt(input: _Operand, out: Optional[Tensor] = None) -> Tensor: ...
def _math_rsqrt(input: _Operand, out: Optional[Tensor] = None) -> Tensor: ...
def _math_cbrt(input: _Operand, out: Optional[Tensor] = None) -> Tensor: ...
def _math_exp(input: _Operand, out: Optional[Tensor] = None) -> Tensor: ...
def _math_log(input: _Operand, out: Optional[Tensor] = None) -> Tensor: ...
def _math_log2(input: _Operand, out: Optional[Tensor] = None) -> Tensor: ...
def _math_log10(input: _Operand, out: Optional[Tensor] = None) -> Tensor: ...
def _math_sin(input: _Operand, out: Optional[Tensor] = None) -> Tensor: ...
def _math_cos(input: _Operand, out: Optional[Tensor] = None) -> Tensor: ...
def _math_tan(input: _Operand, out: Optional[Tensor] = None) -> Tensor: ...
def _math_asin(input: _Operand, out: Optional[Tensor] = None) -> Tensor: ...
def _math_acos(input: _Operand, out: Optional[Tensor] = None) -> Tensor: ...
def _math_atan(input: _Operand, out: Optional[Tensor] = None) -> Tensor: ...
def _math_atan2(left: _Operand, right: _Operand, out: Optional[Tensor] = None) -> Tensor: ...
def _math_sinh(input: _Operand, out: Optional[Tensor] = None) -> Tensor: ...
def _math_cosh(input: _Operand, out: Optional[Tensor] = None) -> Tensor: ...
def _math_tanh(input: _Operand, out: Optional[Tensor] = None) -> Tensor: ...
def _math_asinh(input: _Operand, out: Optional[Tensor] = None) -> Tensor: ...
def _math_acosh(input: _Operand, out: Optional[Tensor] = None) -> Tensor: ...
def _math_atanh(input: _Operand, out: Optional[Tensor] = None) -> Tensor: ...

# ---- DLPack -------------------------------------------------------------------------------------


def export_dltensor(tensor: Tensor, name: str = "dltensor", destruct: bool = True) -> CapsuleType:
    """Export as a DLPack capsule stored under ``name`` (zero copy)."""


def import_dltensor(tensor_capsule: CapsuleType, name: str = "dltensor") -> Tensor:
    """Wrap the tensor in a DLPack capsule (zero copy); the capsule is renamed 'used_...'."""


def from_dlpack(x: Any, /, *, device: Any = None, copy: Optional[bool] = None) -> Tensor:
    """Zero-copy tensor over any ``__dlpack__`` producer or DLPack capsule."""

# ---- devices, streams, events (device.c, semantics §4) ---------------------------------------------------


@final
class CudaDevice:
    """A device of the default backend (cuda:N on a GPU, else the CPU, where only 0
    exists); activate() / deactivate() switch this thread's current device; a context manager."""

    def __new__(cls, device_id: int = 0) -> "CudaDevice": ...
    def activate(self) -> None: ...
    def deactivate(self) -> None: ...
    def get_device(self) -> int: ...
    def get_properties(self) -> "CudaDeviceProp": ...
    def synchronize(self) -> None: ...
    def __enter__(self) -> "CudaDevice": ...
    def __exit__(self, *exc_info: Union[Optional[Type[BaseException]], Optional[BaseException],
                                        Optional[TracebackType]]) -> None: ...


@final
class CudaStream:
    """A stream on a device of the default backend; lower priorities are more urgent and a
    priority outside [greatestStreamPriority, leastStreamPriority] raises ValueError (the CPU
    has only 0). ``CudaStream(-1, -1)`` is ``default_stream``. activate() / deactivate()
    switch this thread's current stream of the stream's device; a context manager."""

    def __new__(cls, device_id: int = 0, priority: int = 0) -> "CudaStream": ...
    @property
    def device_id(self) -> int:
        """The stream's device (default_stream: the current device)."""
    @property
    def priority(self) -> int:
        """The stream's priority."""
    @property
    def handle(self) -> int:
        """The backend's stream handle (a cudaStream_t as an int; 0 on the CPU and for default streams)."""
    def activate(self) -> None: ...
    def deactivate(self) -> None: ...
    def synchronize(self, microseconds: int = 100) -> None:
        """Wait for the stream's work, polling every ``microseconds`` with the GIL released (<= 0: block)."""
    def query(self) -> bool: ...
    def wait_event(self, event: "CudaEvent", /) -> None:
        """Make later work on this stream wait for the event."""
    def __enter__(self) -> "CudaStream": ...
    def __exit__(self, *exc_info: Union[Optional[Type[BaseException]], Optional[BaseException],
                                        Optional[TracebackType]]) -> None: ...


@final
class CudaEvent:
    """An event on this thread's current device (on the CPU a recorded point is always reached)."""

    def __new__(cls) -> "CudaEvent": ...
    def record(self, stream: Optional[CudaStream] = None) -> None:
        """Record the point reached by ``stream`` (None: the current stream of the event's device)."""
    def query(self) -> bool: ...
    def synchronize(self, microseconds: int = 100) -> None:
        """Wait until the recorded point is reached, polling every ``microseconds`` (<= 0: block)."""
    def elapsed_time(self, end_event: "CudaEvent", /) -> float:
        """Milliseconds from this event's recorded point to end_event's (PyTorch's
        ``Event.elapsed_time``); both recorded on one device and completed."""


@final
class CudaDeviceProp:
    """cudaDeviceProp fields plus stream priorities, cores per SM and maxGridSize.

    ``CudaDeviceProp()`` describes the current device. On the CPU: the host's model name,
    multiProcessorCount = numCudaCores = usable cores, totalGlobalMem = host memory,
    warp/thread sizes 1, CUDA's grid limits, the rest 0.
    """

    def __new__(cls) -> "CudaDeviceProp": ...
    @property
    def name(self) -> str: ...
    @property
    def totalGlobalMem(self) -> int: ...
    @property
    def sharedMemPerBlock(self) -> int: ...
    @property
    def sharedMemPerMultiprocessor(self) -> int: ...
    @property
    def totalConstMem(self) -> int: ...
    @property
    def l2CacheSize(self) -> int: ...
    @property
    def major(self) -> int: ...
    @property
    def minor(self) -> int: ...
    @property
    def multiProcessorCount(self) -> int: ...
    @property
    def coresPerMultiprocessor(self) -> int: ...
    @property
    def coresPerSM(self) -> int: ...
    @property
    def numCudaCores(self) -> int: ...
    @property
    def warpSize(self) -> int: ...
    @property
    def maxThreadsPerBlock(self) -> int: ...
    @property
    def maxThreadsPerMultiProcessor(self) -> int: ...
    @property
    def maxThreadsDim(self) -> Tuple[int, int, int]: ...
    @property
    def maxGridSize(self) -> Tuple[int, int, int]: ...
    @property
    def regsPerBlock(self) -> int: ...
    @property
    def regsPerMultiprocessor(self) -> int: ...
    @property
    def leastStreamPriority(self) -> int: ...
    @property
    def greatestStreamPriority(self) -> int: ...
    @property
    def streamPrioritiesSupported(self) -> bool: ...


default_stream: CudaStream


def get_current_device() -> int:
    """The current device ID of this thread."""


def get_current_stream() -> CudaStream:
    """The current stream of this thread on its current device."""


def get_device_properties(device_id: Optional[int] = None) -> CudaDeviceProp:
    """Properties of a device (None: the current one)."""


def meminfo(device_id: int = 0) -> Tuple[int, int, int]:
    """(used, free, total) memory of the device in bytes (CPU: host memory)."""


def release() -> None:
    """Return the device memory cached for reuse to every device (no-op on the CPU)."""


def cuda_status() -> str:
    """'ok: N CUDA device(s)' when the CUDA backend runs, else why not."""


def synchronize(device_id: Optional[int] = None) -> None:
    """Wait for all work on the device (None: the current one)."""


def _get_launch() -> Tuple[int, int]:
    """This thread's launch settings (blocks_per_sm, threads)."""


def _set_launch(blocks_per_sm: int, threads: int, /) -> None:
    """Set this thread's launch settings."""


def get_num_threads() -> int:
    """Worker threads of the CPU backend."""


def set_num_threads(n: int, /) -> None:
    """Set the CPU worker count; n <= 0 restores the default."""


def get_thread_num_threads() -> int:
    """This thread's cap on the CPU workers of its own calls (0: none)."""


def set_thread_num_threads(n: int, /) -> None:
    """Cap the CPU workers of this thread's calls at n (1: this thread alone); n <= 0: no cap."""

# ---- random numbers (random.c, semantics §11) ------------------------------------------------------------


@final
class RandomNumberGenerator:
    """Counter-based Philox-4x32-10 generator (semantics §11): element i of the n-th fill draws
    from counter (i, n) under key seed, so results never depend on threads, strides or backend."""

    def __new__(cls, device_id: Optional[int] = None, seed: Optional[int] = None) -> "RandomNumberGenerator": ...
    @property
    def seed(self) -> int: ...
    @property
    def device_id(self) -> int: ...
    def uniform(self, target: Union[Tensor, _NDArray], vmin: float, vmax: float,
                blocks_per_sm: int = 8, threads: int = 0) -> None:
        """Fill target with values uniform in [vmin, vmax) (integers: every integer equally likely)."""
    def gaussian(self, target: Union[Tensor, _NDArray], mean: float = 0.0, std: float = 1.0,
                 blocks_per_sm: int = 8, threads: int = 0) -> None:
        """Fill target with normal values (Box-Muller); integers round half to even and saturate."""
    def gaussian_noise(self, x: Tensor, std: Union[float, _ParamLike] = 1.0, mean: float = 0.0,
                       out: Optional[Tensor] = None, blocks_per_sm: int = 8, threads: int = 0) -> Tensor:
        """x + the float32 Gaussian fill of this state (std a number or one per image), saturated, one pass."""
    def get_state(self) -> Tuple[int, int]:
        """(seed, calls): set_state of it replays the following fills."""
    def set_state(self, state: Tuple[int, int], /) -> None: ...
    def __reduce__(self) -> Tuple[Any, ...]: ...
    def __setstate__(self, state: Tuple[int, int], /) -> None: ...


# ---- per-sample streams (random.c; docs/random.md "Per-sample streams") ------------------------------

# one generator state (seed, calls) per image, in place of a RandomNumberGenerator
_RngStates = Union[Sequence[Tuple[int, int]], Sequence[Sequence[int]], _NDArray]


def stream_seed(seed: int, epoch: int, stream: str) -> int:
    """The Philox seed of stream `stream` of epoch `epoch` of a pipeline seeded `seed`:
    splitmix64(splitmix64(splitmix64(seed) ^ epoch) ^ fnv1a64(stream's UTF-8))."""


def sample_id(key: Union[str, bytes, bytearray, memoryview, int, numpy.integer[Any], _NDArray]) -> int:
    """splitmix64(fnv1a64(bytes)) of a str's UTF-8 or a bytes-like key; an int in [0, 2**64) is its own id."""

# ---- reshape (DALI fn.reshape, reshape.c) -----------------------------------------------------------

_ShapeArg = Union[int, Sequence[int], Sequence[Sequence[int]], Tensor, _NDArray]
_RelShapeArg = Union[float, Sequence[float], Sequence[Sequence[float]], Tensor, _NDArray]


@overload
def reshape(data: Tensor, shape_input: Optional[_ShapeArg] = None, *, shape: Optional[_ShapeArg] = None,
            rel_shape: Optional[_RelShapeArg] = None, src_dims: Optional[Union[int, Sequence[int]]] = None,
            layout: Optional[str] = None, dtype: Optional[_DTypeLike] = None) -> Tensor: ...
@overload
def reshape(data: Sequence[Tensor], shape_input: Optional[_ShapeArg] = None, *,
            shape: Optional[_ShapeArg] = None, rel_shape: Optional[_RelShapeArg] = None,
            src_dims: Optional[Union[int, Sequence[int]]] = None, layout: Optional[str] = None,
            dtype: Optional[_DTypeLike] = None) -> List[Tensor]: ...

# ---- image: lighting and blur (semantics §13) -------------------------------------------------------

# a number or one per image: a float32 tensor, a numpy array or a sequence
_ParamLike = Union[float, Tensor, Sequence[float], _NDArray]


def lighting(imtensor: _Image, gammagrays: _ParamLike, gammacolors: _ParamLike, contrasts: _ParamLike,
             vmin: float, vmax: float, out: Optional[_Image] = None) -> Tensor:
    """Contrast and gamma per image/channel of an (N, C, H, W) (or (C, H, W)) batch; out may be imtensor."""


def box_blur_single(input: _Image, ksize: int, out: Optional[_Image] = None) -> Tensor:
    """Mean over the ksize x ksize window of a (C, H, W) image, edges replicated."""


def gaussian_blur_single(input: _Image, sigma: float, out: Optional[_Image] = None) -> Tensor:
    """Gaussian blur of a (C, H, W) image; ksize = max(3, int(sigma*6.6 - 2.3) | 1); sigma <= 0 copies."""


def gaussian_blur(input: _Image, sigmas: _ParamLike, max_ksize: int,
                  out: Optional[_Image] = None) -> Tensor:
    """Gaussian blur of an (N, C, H, W) batch, one sigma per image, ksize clipped at max_ksize."""

def crop_mirror_normalize(images: Union[_Image, Sequence[_Image]],
                          crop: Optional[Sequence[int]] = None, crop_h: Optional[int] = None,
                          crop_w: Optional[int] = None,
                          crop_pos_x: Union[float, Sequence[float], None] = None,
                          crop_pos_y: Union[float, Sequence[float], None] = None,
                          anchor: Union[Sequence[int], Sequence[Sequence[int]], None] = None,
                          mirror: Union[int, bool, Sequence[int], Sequence[bool], None] = None,
                          mean: Union[float, Sequence[float]] = 0.0, std: Union[float, Sequence[float]] = 1.0,
                          scale: float = 1.0, shift: float = 0.0,
                          fill_values: Union[float, Sequence[float]] = 0.0, dtype: Optional[_DTypeLike] = None,
                          layout: Optional[str] = None, out_layout: str = "CHW", pad_output: bool = False,
                          out_of_bounds_policy: str = "error", out: Optional[_Image] = None) -> Tensor:
    """DALI's fn.crop_mirror_normalize: crop, mirror, (x - mean) / std * scale + shift, convert (docs/normalize.md)."""

# ---- exceptions -----------------------------------------------------------------------------------


class CudaError(RuntimeError): ...
class CuRandError(RuntimeError): ...
class CuBlasError(RuntimeError): ...
class MemoryError(builtins.MemoryError): ...
class NvJpegError(RuntimeError):
    """JPEG decoding failed (alias JpegError); every decode error is its subclass DecodeError,
    whatever the decoder's engine."""
class DecodeError(NvJpegError):
    """An image could not be decoded (libjpeg-turbo, libspng or nvJPEG, whatever the engine) or
    its header read: corrupt, truncated or unsupported data (the decoder's reason; nvJPEG's read
    "nvJPEG failed in <call>: NVJPEG_STATUS_X"), an image over max_pixels, or data neither JPEG
    nor PNG ("not a JPEG or PNG file (starts with 3c 68 74 6d 6c 3e 0a 3c)")."""

# ---- JPEG decoding (jpeg.c) ---------------------------------------------------------------------------


@final
class Decoder:
    """JPEG and PNG decoder on the current device (CPU: libjpeg-turbo / libspng; CUDA: nvJPEG, PNG uploaded). One per thread for parallel
    decoding."""

    def __new__(cls, device_padding: int = 16777216, host_padding: int = 8388608,
                gpu_huffman: bool = False, *, max_pixels: int = 268435456) -> "Decoder": ...
    @property
    def device_padding(self) -> int: ...
    @property
    def max_pixels(self) -> int:
        """The largest image (height * width) decoded; larger ones raise DecodeError."""
    @property
    def host_padding(self) -> int: ...
    @property
    def gpu_huffman(self) -> bool: ...
    @property
    def engine(self) -> str:
        """'libjpeg-turbo', 'nvjpeg' or 'libjpeg-turbo+upload'."""
    def decode(self, data: _JpegData, buffer: Optional[Tensor] = None,
               roi: Optional[Sequence[SupportsIndex]] = None,
               scale: Union[None, float, fractions.Fraction, Tuple[int, int]] = None,
               mode: Optional[str] = None, contiguous: bool = True) -> Tensor:
        """Decode to an (H, W, 3) uint8 RGB tensor with layout 'HWC' (pixels equal Pillow's
        convert('RGB')). buffer: contiguous uint8 tensor of >= H*W*3 elements; the result shares it.
        scale: one of libjpeg-turbo's factors M/8, M in 1..16 (DCT-domain scaling; the image becomes
        ceil(H*M/8) x ceil(W*M/8)); roi: (y, x, h, w) in pixels of the scaled image, the result is
        (h, w, 3) and equals the full (scaled) decode cut to roi. max_pixels bounds the output.
        data: bytes-like, a path, or a CPU uint8 DLPack tensor. contiguous=False: a JPEG region or
        scaled decode on a CPU decoder may return a strided view of the band libjpeg decoded (rows
        (w + 68) * 3 bytes apart), saving the copy of each row.
        Raises DecodeError (a subclass of NvJpegError, whatever the engine; on 'nvjpeg' with nvJPEG's
        message for the JPEG files it fails on) on corrupt or non-image data, ValueError/TypeError on
        a bad buffer, roi or scale."""
    def info(self, data: _JpegData) -> Dict[str, Any]:
        """The header's description (JPEG or PNG, key 'format'): {'height', 'width', 'channels' (3), 'components' (1, 3, 4),
        'colour_space' ('Grayscale', 'YCbCr', 'RGB', 'CMYK', 'YCCK'), 'sampling' ('4:2:0', ...),
        'progressive' (bool)}."""
    def __reduce__(self) -> Tuple[Callable[[str, int, int, bool, int], "Decoder"], Tuple[str, int, int, bool, int]]:
        """Pickle as (_decoder_restore, (device, device_padding, host_padding, gpu_huffman, max_pixels))."""


def _decoder_restore(device: str, device_padding: int, host_padding: int, gpu_huffman: bool, max_pixels: int,
                     /) -> Decoder:
    """Unpickle a Decoder: a new one for device ('cpu' or 'cuda:N')."""


def jpeg_info(data: _JpegData) -> Tuple[int, int]:
    """(height, width) of a JPEG from its header."""

# ---- affine warp (warp.c) -------------------------------------------------------------------------


@final
class WarpScaleMode:
    """Enum whether to scale relative to the shortest or longest side of the image.

    ``WarpScaleMode(0)`` is ``WARP_SCALE_SHORTEST``, ``WarpScaleMode(1)`` is ``WARP_SCALE_LONGEST``.
    """

    WARP_SCALE_SHORTEST: ClassVar["WarpScaleMode"]
    WARP_SCALE_LONGEST: ClassVar["WarpScaleMode"]
    __members__: ClassVar[Any]

    def __new__(cls, value: Union[int, str, "WarpScaleMode"]) -> "WarpScaleMode": ...
    @property
    def name(self) -> str: ...
    @property
    def value(self) -> int: ...
    def __int__(self) -> int: ...
    def __index__(self) -> int: ...
    def __hash__(self) -> int: ...
    def __lt__(self, other: object, /) -> bool: ...
    def __le__(self, other: object, /) -> bool: ...
    def __gt__(self, other: object, /) -> bool: ...
    def __ge__(self, other: object, /) -> bool: ...
    def __reduce__(self) -> Tuple[Type["WarpScaleMode"], Tuple[int]]: ...


WARP_SCALE_SHORTEST: WarpScaleMode
WARP_SCALE_LONGEST: WarpScaleMode

_ScaleModeLike = Union[str, int, WarpScaleMode]


def make_affine_matrix(out: Any, source_height: int, source_width: int, target_height: int, target_width: int,
                       angle: float = 0.0, scale: float = 1.0, aspect: float = 1.0, shifty: float = 0.0,
                       shiftx: float = 0.0, sheary: float = 0.0, shearx: float = 0.0, hmirror: bool = False,
                       vmirror: bool = False, scale_mode: _ScaleModeLike = "shortest",
                       max_supersampling: int = 3) -> int:
    """Write the 2x3 inverse map into the writable float32 (2, 3) buffer `out`; returns the recommended supersampling."""


def make_transform(source_size: Sequence[int], target_size: Sequence[int], angle: float = 0, scale: float = 1,
                   aspect: float = 1, shift: Optional[Sequence[float]] = None, shear: Optional[Sequence[float]] = None,
                   hmirror: bool = False, vmirror: bool = False, scale_mode: _ScaleModeLike = "shortest",
                   max_supersampling: int = 3, out: Optional[_NDArray] = None) -> Tuple[_NDArray, int]:
    """(matrix, supersampling) for make_affine_matrix's parameters; an unknown keyword is a TypeError."""


def warp_affine(src: Union[_Image, Sequence[_Image]], dst: _Image, matrix: Any,
                background: Any = None, supersampling: Union[int, Sequence[int]] = 1, *,
                interpolation: str = 'linear', border: str = 'constant', layout: Optional[str] = None,
                src_layout: Optional[str] = None) -> _Image:
    """Affine warp of (H, W, C) / (C, H, W) / (H, W) image(s) into (C, Ht, Wt) / (Ht, Wt, C) (or a batch),
    bilinear with supersampling or nearest; constant, replicate, reflect or symmetric borders.
    Returns dst (the object given), as the other image ops return their out=."""


# ---- co-transforms of boxes and keypoints (targets.c; public API in augpy.targets) ----

def _boxes_affine(boxes: Any, matrix: Sequence[float], source_size: Sequence[int], target_size: Sequence[int],
                  format: str = "xyxy", normalized: bool = False, min_area: float = 0.0,
                  min_visibility: float = 0.0, func: Optional[str] = None) -> Tuple[Tensor, Tensor]:
    """Boxes (n, 4) through the warp matrix: (boxes (k, 4), kept rows int64 (k,))."""

def _boxes_affine_batch(boxes: Any, counts: Optional[Sequence[int]], matrices: Sequence[float],
                        source_sizes: Sequence[int], target_size: Sequence[int], format: str = "xyxy",
                        normalized: bool = False, min_area: float = 0.0, min_visibility: float = 0.0,
                        func: Optional[str] = None) -> Tuple[Tensor, List[int], Tensor]:
    """Padded boxes (N, M, 4): (boxes (N, M, 4), counts, kept rows (N, M))."""

def _keypoints_affine(keypoints: Any, matrix: Sequence[float], target_size: Sequence[int],
                      remove_invisible: bool = False, func: Optional[str] = None) -> Tuple[Tensor, Tensor]:
    """Keypoints (n, 2|3|4) through the warp matrix: (keypoints, visible rows int64)."""
# ---- resize, flip, crop (docs/resize.md) ----

_Interp = str  # 'linear' (also 'bilinear', 'inter_linear'), 'nearest', 'area' (aug_interp_from_name)
_SizeLike = Union[SupportsIndex, Sequence[SupportsIndex]]


def resize(image: _Image, size: _SizeLike, interpolation: _Interp = "linear", antialias: bool = True,
           layout: Optional[str] = None, out: Optional[_Image] = None) -> Tensor:
    """Resize an image (HW, HWC, CHW) or batch (NHWC, NCHW) to (h, w), or an int: the shorter side."""


def resize_batch(images: Sequence[_Image], size: _SizeLike, interpolation: _Interp = "linear",
                 antialias: bool = True, layout: Optional[str] = None, out_layout: Optional[str] = "NCHW",
                 dtype: Any = None, out: Optional[_Image] = None) -> Tensor:
    """Resize images of any sizes into one (N, C, H, W) / (N, H, W, C) batch."""


def flip(image: _Image, horizontal: bool = True, vertical: bool = False,
         layout: Optional[str] = None) -> Tensor:
    """A mirrored view (negative strides, no copy)."""


def hflip(image: _Image, layout: Optional[str] = None) -> Tensor:
    """A left-right mirrored view."""


def vflip(image: _Image, layout: Optional[str] = None) -> Tensor:
    """An upside-down view."""


def crop(image: _Image, y: SupportsIndex, x: SupportsIndex, h: SupportsIndex, w: SupportsIndex,
         layout: Optional[str] = None) -> Tensor:
    """A view of rows y .. y+h-1 and columns x .. x+w-1."""


def center_crop(image: _Image, size: _SizeLike, layout: Optional[str] = None) -> Tensor:
    """torchvision's CenterCrop: a view when it fits, else the image centred on zeros (a new tensor)."""


def flip_batch(batch: _Image, flags: Sequence[Any], horizontal: bool = True, vertical: bool = False,
               layout: Optional[str] = None, out: Optional[_Image] = None) -> Tensor:
    """A copy of an NCHW / NHWC batch with image i flipped where flags[i] is true; out may be batch."""


def image_dims(image: _Image, layout: Optional[str] = None) -> Tuple[int, int, int, int]:
    """(N, H, W, C) of an image or batch under its layout."""
# ---- colour (colour.c, docs/colour.md) ------------------------------------------------------------------

_FactorsLike = Optional[Union[float, Sequence[float], _NDArray]]  # a number or one per image, or None: step skipped
_RangeLike = Optional[Union[float, Tuple[float, float], Sequence[float]]]


def adjust_brightness(imtensor: _Image, brightness_factor: float, out: Optional[_Image] = None) -> Tensor:
    """torchvision's adjust_brightness of a uint8/float32 (N, C, H, W) or (C, H, W) image, C = 1 or 3."""


def adjust_contrast(imtensor: _Image, contrast_factor: float, out: Optional[_Image] = None) -> Tensor:
    """torchvision's adjust_contrast: blend with each image's grayscale mean."""


def adjust_saturation(imtensor: _Image, saturation_factor: float,
                      out: Optional[_Image] = None) -> Tensor:
    """torchvision's adjust_saturation: blend with each pixel's grayscale."""


def adjust_hue(imtensor: _Image, hue_factor: float, out: Optional[_Image] = None) -> Tensor:
    """torchvision's adjust_hue: rotate the hue by hue_factor in [-0.5, 0.5] turns."""


def rgb_to_grayscale(imtensor: _Image, num_output_channels: int = 1,
                     out: Optional[_Image] = None) -> Tensor:
    """torchvision's rgb_to_grayscale: 0.2989 R + 0.587 G + 0.114 B into 1 or 3 channels."""


def invert(imtensor: _Image, out: Optional[_Image] = None) -> Tensor:
    """torchvision's invert: 255 - x (uint8), 65535 - x (uint16), 1 - x (float32/float64), any image layout."""


def rgb_to_hsv(imtensor: _Image, out: Optional[_Image] = None) -> Tensor:
    """float32 RGB -> HSV (torchvision's _rgb_to_hsv)."""


def hsv_to_rgb(imtensor: _Image, out: Optional[_Image] = None) -> Tensor:
    """float32 HSV -> RGB (torchvision's _hsv_to_rgb)."""


def color_jitter(imtensor: _Image, brightness: _FactorsLike = None, contrast: _FactorsLike = None,
                 saturation: _FactorsLike = None, hue: _FactorsLike = None,
                 order: Optional[Union[Sequence[Sequence[int]], _NDArray]] = None,
                 out: Optional[_Image] = None, gammagrays: _FactorsLike = None,
                 gammacolors: Optional[Union[Sequence[float], Sequence[Sequence[float]], _NDArray]] = None,
                 contrasts: _FactorsLike = None, vmin: Optional[float] = None,
                 vmax: Optional[float] = None) -> Tensor:
    """ColorJitter on a batch in one pass, with per-image factors and step order; with gammagrays,
    gammacolors, contrasts, vmin and vmax, lighting() of the result in the same pass."""


def color_jitter_params(rng: Union[RandomNumberGenerator, _RngStates], n: int, brightness: _RangeLike = None,
                        contrast: _RangeLike = None, saturation: _RangeLike = None, hue: _RangeLike = None,
                        random_order: bool = True) -> Dict[str, Any]:
    """ColorJitter's sampling of n images' factors and orders from rng (for color_jitter(im, **params))."""


# ---- RandomResizedCrop and decode plans (rrc.c; public wrappers in augpy.rrc) ----------------------

def _random_resized_crop(rng: Union[RandomNumberGenerator, _RngStates], heights: Sequence[int], widths: Sequence[int],
                         out_height: int, out_width: int, scale: Sequence[float], ratio: Sequence[float],
                         hflip: float, max_supersampling: int, dct_scale: bool, roi: bool) -> List[Any]:
    """aug_random_resized_crop: per image (crop, hflip, matrix, supersampling, (scale_m, roi, matrix, supersampling))."""


def _plan_decode(matrix: Sequence[float], src_height: int, src_width: int, out_height: int, out_width: int,
                 supersampling: int, dct_scale: bool, roi: bool) -> Tuple[int, Tuple[int, int, int, int],
                                                                     Tuple[float, ...], int]:
    """aug_plan_decode: (scale_m, roi, matrix, supersampling)."""


def _resize_center_crop_matrix(src_height: int, src_width: int, resize: int, out_height: int, out_width: int,
                               max_supersampling: int) -> Tuple[Tuple[float, ...], int]:
    """aug_resize_center_crop_matrix: (matrix, supersampling)."""
