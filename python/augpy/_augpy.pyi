"""Type stubs for augpy's C extension (augpy._augpy), re-exported by augpy.

Checked against the runtime by ``python -m mypy.stubtest augpy``
(tests/python/test_stubs.py); the docstrings of the extension carry the runtime
signatures (``__text_signature__``) that stubtest compares with these. The
docstrings below are the extension's own, copied by scripts/gen_pyi.py
(tests/python/test_pyi_sync.py checks them and the signatures): edit the C text.
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

# the public names that shadow no builtin (written by scripts/gen_pyi.py from the runtime)
__all__ = [
    "Constant", "CuBlasError", "CuRandError", "CudaDevice", "CudaDeviceProp", "CudaError", "CudaEvent",
    "CudaStream", "CudaTensor", "DLDataType", "DLDataTypeCode", "DecodeError", "Decoder", "NvJpegError",
    "RandomNumberGenerator", "Tensor", "WARP_SCALE_LONGEST", "WARP_SCALE_SHORTEST", "WarpScaleMode", "add",
    "adjust_brightness", "adjust_contrast", "adjust_hue", "adjust_saturation", "adjust_sharpness", "arange",
    "argmax", "argmin", "array_to_tensor", "asarray", "autocontrast", "bfloat16", "bool_", "box_blur_single",
    "cast", "center_crop", "color_jitter", "color_jitter_params", "concatenate", "copy", "crop",
    "crop_mirror_normalize", "cuda_status", "default_stream", "div", "empty", "empty_like", "encode_jpeg", "eq",
    "equalize", "export_dltensor", "fill", "flip", "flip_batch", "float16", "float32", "float64", "fma",
    "from_dlpack", "full", "full_like", "gaussian_blur", "gaussian_blur_single", "ge", "gemm", "get_current_device",
    "get_current_stream", "get_device_properties", "get_num_threads", "get_thread_num_threads", "gt", "hflip",
    "hsv_to_rgb", "image_dims", "import_dltensor", "int16", "int32", "int64", "int8", "invert", "jpeg_info", "le",
    "lighting", "lt", "make_affine_matrix", "make_transform", "mean", "meminfo", "mix_mirror", "mul", "ne", "ones",
    "ones_like", "pil_gaussian_blur", "pil_gaussian_blur_single", "posterize", "rdiv", "release", "reshape",
    "resize", "resize_batch", "rgb_to_grayscale", "rgb_to_hsv", "rsub", "sample_id", "set_num_threads",
    "set_thread_num_threads", "solarize", "stack", "stream_seed", "sub", "supported_formats", "swap_dtype",
    "synchronize", "tensor", "tensor_to_array", "to_augpy_dtype", "to_numpy_dtype", "to_temp_dtype", "uint16",
    "uint32", "uint64", "uint8", "vflip", "warp_affine", "warp_perspective", "where", "zeros", "zeros_like",
]

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
    """DLPack type code enum (kDLInt, kDLUInt, kDLFloat, kDLBfloat, kDLBool, ...).
    The `code` of a DLDataType (an IntEnum with DLPack's values)."""

    kDLInt = 0
    kDLUInt = 1
    kDLFloat = 2
    kDLOpaqueHandle = 3
    kDLBfloat = 4
    kDLComplex = 5
    kDLBool = 6


@final
class DLDataType:
    """DLPack data type of tensors. One object exists per supported type (augpy.uint8, ...);
    the constructor returns it (TypeError for an unsupported combination). lanes must be 1.
    str() is the name ('uint8'), repr() <DLDataType uint8>.
    Equal objects are identical; hashable and picklable."""

    def __new__(cls, code: int, bits: int, lanes: int = 1) -> "DLDataType": ...
    def __reduce__(self) -> Tuple[Type["DLDataType"], Tuple[int, int, int]]:
        """Pickle as DLDataType(code, bits, 1)."""
    def __lt__(self, other: object, /) -> bool: ...
    def __le__(self, other: object, /) -> bool: ...
    def __gt__(self, other: object, /) -> bool: ...
    def __ge__(self, other: object, /) -> bool: ...
    def __hash__(self) -> int: ...
    @property
    def code(self) -> DLDataTypeCode:
        """DLPack type code, see DLDataTypeCode."""
    @property
    def bits(self) -> int:
        """Number of bits."""
    @property
    def lanes(self) -> int:
        """Number of elements for vector types; always 1."""
    @property
    def itemsize(self) -> int:
        """Number of bytes per element with this data type."""
    @property
    def name(self) -> str:
        """Name of the data type, e.g. 'uint8'."""


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
    """Translate a numpy dtype (or type, or name) to the augpy data type:
    ``to_augpy_dtype(numpy.uint8) == augpy.uint8``."""


def to_numpy_dtype(augpy_dtype: _DTypeLike) -> type:
    """Translate an augpy data type to the numpy scalar type:
    ``to_numpy_dtype(augpy.uint8) == numpy.uint8``. bfloat16 needs the ml_dtypes package
    (TypeError otherwise)."""


def swap_dtype(dtype: _DTypeLike) -> Union[DLDataType, type]:
    """Translate augpy -> numpy and numpy -> augpy data types:
    ``swap_dtype(augpy.uint8) == numpy.uint8``, ``swap_dtype(numpy.uint8) == augpy.uint8``."""


def to_temp_dtype(dtype: _DTypeLike) -> Union[DLDataType, type]:
    """The temp type augpy computes in for the given augpy or numpy dtype (float32 for types
    of up to 16 bits, float64 for 32- and 64-bit types and float64 itself); the result is
    of the same kind (augpy or numpy) as the argument."""


def _cast_limits(src: _DTypeLike, dst: _DTypeLike, /) -> Tuple[Optional[Union[int, float]], Optional[Union[int, float]]]:
    """(vmin, vmax): the lowest and highest values a saturating cast src -> dst can produce; None where every
    source value is representable. See augpy.numeric_limits.CAST_LIMITS."""

# ---- tensors ------------------------------------------------------------------------------


@final
class Tensor:
    """augpy's tensor: a DLPack-compatible strided view over reference-counted memory on the
    default device (cuda:0 when available, else the CPU). The memory is not initialised.
    dtype None is uint8.
    NumPy basic indexing, broadcasting saturating math, the buffer protocol (CPU) and
    DLPack are supported. augpy.Tensor is the same class."""

    __array_ufunc__: ClassVar[None]  # numpy defers `ndarray op tensor` to the reflected operators
    __hash__: ClassVar[None]  # type: ignore[assignment]

    def __new__(cls, shape: _Shape, dtype: Optional[_DTypeLike] = None, device_id: int = 0) -> "Tensor": ...
    @property
    def shape(self) -> Tuple[int, ...]:
        """Tensor shape (tuple of ints)."""
    @property
    def strides(self) -> Tuple[int, ...]:
        """Tensor strides in elements (not bytes): the number of elements to skip to reach the next
        element along each dimension. May be 0 (broadcast) or negative."""
    @property
    def ndim(self) -> int:
        """Number of dimensions."""
    @property
    def size(self) -> int:
        """Number of elements in the tensor."""
    @property
    def itemsize(self) -> int:
        """Size of one element in bytes."""
    @property
    def nbytes(self) -> int:
        """size * itemsize."""
    @property
    def dtype(self) -> DLDataType:
        """Tensor data type (DLDataType)."""
    @property
    def ptr(self) -> int:
        """Address of the first element (element [0, ..., 0]); it already includes byte_offset."""
    @property
    def byte_offset(self) -> int:
        """Offset in bytes of the first element from the start of the tensor's memory block
        (the DLPack data pointer is ptr - byte_offset)."""
    @property
    def is_contiguous(self) -> bool:
        """True if the elements are packed in C order (extent-1 dimensions ignored)."""
    @property
    def device(self) -> str:
        """Device the memory lives on: 'cpu' or 'cuda:N'."""
    @property
    def device_id(self) -> int:
        """Device index (0 for the CPU)."""
    @property
    def layout(self) -> str:
        """DALI-style layout string, one character per dimension (e.g. 'HWC'), or ''. Settable."""
    @layout.setter
    def layout(self, value: str) -> None: ...

    def reshape(self, shape: _Shape, *extents: SupportsIndex) -> "Tensor":
        """A view with the same memory and a different shape with the same number of elements;
        one extent may be -1 (inferred). Only contiguous tensors can be reshaped (ValueError
        naming contiguous() otherwise). The shape is one sequence (or shape=[6, 4], the manual's
        form) or the extents as separate arguments (reshape(6, 4))."""
    def transpose(self, *axes: Union[int, Sequence[int]]) -> "Tensor":
        """A view with the dimensions permuted, as numpy.transpose: axes (separate ints or one sequence)
        name the source dimension of each result dimension, negative ones counted from the end; none
        reverses the order. A layout string is permuted with the dimensions ("HWC" -> "CHW")."""
    def contiguous(self) -> "Tensor":
        """This tensor if it is C-contiguous, else a packed copy."""
    def numpy(self, array: Any = None, blocking: bool = True) -> _NDArray:
        """Copy the tensor into a new numpy array, or into `array` (any writable buffer) and return
        it as a numpy array. Returns once the data is there. With blocking=False and no array, a
        CUDA tensor's copy is queued on the current stream into page-locked memory and the array
        returned at once: synchronise the stream (or device) before reading it. On the CPU every
        copy is synchronous."""
    def to(self, device: Union[str, int, _DTypeLike, None] = None, dtype: Optional[_DTypeLike] = None) -> "Tensor":
        """This tensor on `device` ('cpu', 'cuda', 'cuda:N', or a device_id of the default backend) and/or
        as `dtype` (saturating, as astype), as torch's Tensor.to: to(device), to(dtype) (a dtype in the
        first place), to(device, dtype). Itself when nothing changes, else a packed copy (queued on
        the current stream; a copy to the cpu returns once the data is there)."""
    def cpu(self) -> "Tensor":
        """This tensor on the cpu: itself, or a copy (returns once the data is there)."""
    def cuda(self, device_id: Optional[int] = 0) -> "Tensor":
        """This tensor on cuda:device_id: itself, or a copy. ValueError without such a device."""
    def __array__(self, dtype: Any = None, copy: Optional[bool] = None) -> _NDArray:
        """numpy array protocol: a numpy.ndarray with a copy of the values."""
    def __dlpack__(self, *, stream: Optional[int] = None, max_version: Optional[Tuple[int, int]] = None,
                   dl_device: Optional[Tuple[int, int]] = None, copy: Optional[bool] = None) -> CapsuleType:
        """Export the tensor as a DLPack capsule (zero copy): 'dltensor_versioned' when max_version
        >= (1, 0), else the legacy 'dltensor'. A CUDA tensor's consumer stream (None or 1: the legacy
        default stream, 2: per-thread, -1: no synchronisation, else a cudaStream_t) waits for the work
        queued so far. dl_device may ask for another device (a packed copy, unless copy=False); copy=True
        always copies. A view with negative strides (t[::-1]), which PyTorch and TensorFlow reject, is
        exported as a packed copy (BufferError naming contiguous() with copy=False)."""
    def __dlpack_device__(self) -> Tuple[int, int]:
        """(device_type, device_id) as DLPack codes: (1, 0) for the CPU."""

    # ---- NumPy / PyTorch conveniences (tensor_methods.c) ----
    def astype(self, dtype: _DTypeLike, copy: bool = True) -> "Tensor":
        """A new tensor of `dtype` with the values saturate_cast (as augpy.cast: out-of-range values
        clamp, NaN becomes 0 in integers). copy=False returns the tensor itself when it already has
        that dtype."""
    def clone(self) -> "Tensor":
        """A packed (C-contiguous) copy on the same device, with the layout (on a CUDA
        device queued on the current stream, as an op)."""
    def copy(self) -> "Tensor":
        """A packed (C-contiguous) copy on the same device, with the layout (= clone(); on a
        CUDA device queued on the current stream, as an op)."""
    def __copy__(self) -> "Tensor":
        """copy.copy(): a packed copy (= clone())."""
    def __deepcopy__(self, memo: Any, /) -> "Tensor":
        """copy.deepcopy(): a packed copy (= clone())."""
    def tolist(self) -> Any:
        """The values as nested lists of Python bool/int/float (a 0-d tensor: one
        value), as numpy.ndarray.tolist."""
    def item(self, *index: SupportsIndex) -> Union[bool, int, float]:
        """One value as a Python bool/int/float, as numpy.ndarray.item: item() needs exactly one element
        (ValueError otherwise), item(i) takes element i in C order, item(i0, ..., in-1) that element."""
    @property
    def T(self) -> "Tensor":
        """The view with the dimensions reversed (numpy.ndarray.T)."""
    def permute(self, *dims: Union[SupportsIndex, Sequence[SupportsIndex]]) -> "Tensor":
        """A view with the dimensions permuted, as torch.permute: every dimension once (separate ints
        or one sequence, negative counted from the end). Same as transpose(*dims) with all axes."""
    def squeeze(self, axis: Union[None, SupportsIndex, Sequence[SupportsIndex]] = None) -> "Tensor":
        """A view without the extent-1 dimensions (axis None), or without the given ones (an int or a
        tuple; ValueError for an axis whose extent is not 1). Layout letters follow."""
    def unsqueeze(self, axis: SupportsIndex) -> "Tensor":
        """A view with a new extent-1 dimension at `axis` of the result (-ndim-1 <= axis <= ndim), as
        torch.unsqueeze / numpy.expand_dims. Clears the layout."""
    def ravel(self) -> "Tensor":
        """The elements as a C-contiguous 1-D tensor, as numpy.ravel: a view of a contiguous tensor,
        else a packed copy (reshape(-1) / view(-1) never copy)."""
    def flatten(self) -> "Tensor":
        """The elements as a new 1-D tensor in C order: always a copy (numpy.ndarray.flatten)."""
    def view(self, *args: Union[_DTypeLike, _Shape]) -> "Tensor":
        """view(dtype): the same memory as another dtype, NumPy's rules: with the same itemsize any
        strides; otherwise the last axis must be contiguous and its bytes a multiple of the new
        itemsize (its extent scales), and the other strides multiples of it. view(*shape): torch's
        view, a reshape without a copy (contiguous tensors only). view(): the same view."""
    def clip(self, min: Optional[_Operand] = None, max: Optional[_Operand] = None,
             out: Optional["Tensor"] = None) -> "Tensor":
        """Values limited to [min, max], as augpy.math.clamp (promoted type, NaN propagates); with one
        bound augpy.math.max / min, with none a copy. Bounds are numbers, tensors or arrays."""
    def __reduce__(self) -> Tuple[Any, Tuple[bytes, Tuple[int, ...], str, str, str]]:
        """pickle support: the values (C order, a CUDA tensor's copied to the host), shape, dtype,
        device and layout. A CUDA tensor unpickles onto the same device index, ValueError when
        there is no such device."""
    @property
    def __array_interface__(self) -> dict[str, Any]:
        """NumPy's array interface (version 3) of a CPU tensor: shape, typestr, data (ptr, readonly),
        strides in bytes (None when C-contiguous), descr. AttributeError on a CUDA tensor and for
        bfloat16 (no NumPy typestr), so consumers fall back to __array__ / DLPack."""
    @property
    def __cuda_array_interface__(self) -> dict[str, Any]:
        """The CUDA array interface (version 3) of a CUDA tensor: as __array_interface__ plus `stream`,
        the calling thread's current augpy stream of the device (1: CUDA's legacy default stream) on
        which the consumer must order its use of the data. AttributeError on a CPU tensor and for
        bfloat16."""
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
        """Fill with a scalar, or copy a tensor / array (broadcast) into this tensor, with saturate_cast. Returns this tensor."""
    def sum(self, axis: _Axis = None, keepdim: bool = False, upcast: bool = False, out: Optional["Tensor"] = None,
            blocks_per_sm: int = 8, threads: int = 0) -> "Tensor":
        """Sum over `axis` (None: all axes, giving a 0-d tensor; an int or a tuple of ints). Integers accumulate exactly and saturate to the input dtype, or with upcast=True are returned as int64 / uint64 / float64. sum(tensor, upcast) with a bool second argument is the seed's form.
        keepdim keeps the reduced axes with extent 1; out receives the result (saturate_cast) and is returned;
        blocks_per_sm / threads: the CUDA launch settings of this call (the CPU backend ignores them)."""
    def min(self, axis: _Axis = None, keepdim: bool = False, out: Optional["Tensor"] = None,
            blocks_per_sm: int = 8, threads: int = 0) -> "Tensor":
        """Minimum (NaN propagates; an empty reduction raises ValueError) over `axis` (None: all axes, giving a 0-d tensor; an int or a tuple of ints, negative allowed).
        keepdim keeps the reduced axes with extent 1; out receives the result (saturate_cast) and is returned;
        blocks_per_sm / threads: the CUDA launch settings of this call (the CPU backend ignores them)."""
    def max(self, axis: _Axis = None, keepdim: bool = False, out: Optional["Tensor"] = None,
            blocks_per_sm: int = 8, threads: int = 0) -> "Tensor":
        """Maximum (NaN propagates; an empty reduction raises ValueError) over `axis` (None: all axes, giving a 0-d tensor; an int or a tuple of ints, negative allowed).
        keepdim keeps the reduced axes with extent 1; out receives the result (saturate_cast) and is returned;
        blocks_per_sm / threads: the CUDA launch settings of this call (the CPU backend ignores them)."""
    def mean(self, axis: _Axis = None, keepdim: bool = False, out: Optional["Tensor"] = None,
             blocks_per_sm: int = 8, threads: int = 0) -> "Tensor":
        """Mean (float inputs keep their dtype, integers give float64) over `axis` (None: all axes, giving a 0-d tensor; an int or a tuple of ints, negative allowed).
        keepdim keeps the reduced axes with extent 1; out receives the result (saturate_cast) and is returned;
        blocks_per_sm / threads: the CUDA launch settings of this call (the CPU backend ignores them)."""
    def all(self, axis: _Axis = None, keepdim: bool = False, out: Optional["Tensor"] = None,
            blocks_per_sm: int = 8, threads: int = 0) -> "Tensor":
        """True where every element is nonzero, as a bool tensor, over `axis` (None: all axes, giving a 0-d tensor; an int or a tuple of ints, negative allowed).
        keepdim keeps the reduced axes with extent 1; out receives the result (saturate_cast) and is returned;
        blocks_per_sm / threads: the CUDA launch settings of this call (the CPU backend ignores them)."""
    def any(self, axis: _Axis = None, keepdim: bool = False, out: Optional["Tensor"] = None,
            blocks_per_sm: int = 8, threads: int = 0) -> "Tensor":
        """True where some element is nonzero, as a bool tensor, over `axis` (None: all axes, giving a 0-d tensor; an int or a tuple of ints, negative allowed).
        keepdim keeps the reduced axes with extent 1; out receives the result (saturate_cast) and is returned;
        blocks_per_sm / threads: the CUDA launch settings of this call (the CPU backend ignores them)."""
    def argmin(self, axis: Optional[int] = None, keepdim: bool = False, out: Optional["Tensor"] = None,
               blocks_per_sm: int = 8, threads: int = 0) -> "Tensor":
        """The int64 index of the first minimum over `axis` (None: the flat index in C order, a 0-d tensor; an int: the index along that axis), as numpy.argmin: a NaN counts as the minimum (the first NaN wins), -0.0 equals 0.0. An empty reduction raises ValueError.
        keepdim keeps the reduced axes with extent 1; out receives the result (saturate_cast) and is returned;
        blocks_per_sm / threads: the CUDA launch settings of this call (the CPU backend ignores them)."""
    def argmax(self, axis: Optional[int] = None, keepdim: bool = False, out: Optional["Tensor"] = None,
               blocks_per_sm: int = 8, threads: int = 0) -> "Tensor":
        """The int64 index of the first maximum over `axis` (None: the flat index in C order, a 0-d tensor; an int: the index along that axis), as numpy.argmax: a NaN counts as the maximum (the first NaN wins), -0.0 equals 0.0. An empty reduction raises ValueError.
        keepdim keeps the reduced axes with extent 1; out receives the result (saturate_cast) and is returned;
        blocks_per_sm / threads: the CUDA launch settings of this call (the CPU backend ignores them)."""
    def abs(self, out: Optional["Tensor"] = None) -> "Tensor":
        """Absolute value; same dtype, saturating (abs(int8 -128) = 127).
        Operands: tensors, numbers (weak scalars), augpy.Constant values or arrays, at least one a tensor,
        broadcast together. Returns a new tensor, or writes into out (saturate_cast) and returns it."""
    def fabs(self, out: Optional["Tensor"] = None) -> "Tensor":
        """Absolute value as a float (integers -> float32).
        Operands: tensors, numbers (weak scalars), augpy.Constant values or arrays, at least one a tensor,
        broadcast together. Returns a new tensor, or writes into out (saturate_cast) and returns it."""
    def floor(self, out: Optional["Tensor"] = None) -> "Tensor":
        """Round down; integers -> float32.
        Operands: tensors, numbers (weak scalars), augpy.Constant values or arrays, at least one a tensor,
        broadcast together. Returns a new tensor, or writes into out (saturate_cast) and returns it."""
    def ceil(self, out: Optional["Tensor"] = None) -> "Tensor":
        """Round up; integers -> float32.
        Operands: tensors, numbers (weak scalars), augpy.Constant values or arrays, at least one a tensor,
        broadcast together. Returns a new tensor, or writes into out (saturate_cast) and returns it."""
    def pow(self, exponent: _Operand, out: Optional["Tensor"] = None) -> "Tensor":
        """base ** exponent (promoted type; integers exact, saturated).
        Operands: tensors, numbers (weak scalars), augpy.Constant values or arrays, at least one a tensor,
        broadcast together. Returns a new tensor, or writes into out (saturate_cast) and returns it."""
    def sqrt(self, out: Optional["Tensor"] = None) -> "Tensor":
        """Square root; integers -> float32.
        Operands: tensors, numbers (weak scalars), augpy.Constant values or arrays, at least one a tensor,
        broadcast together. Returns a new tensor, or writes into out (saturate_cast) and returns it."""
    def cbrt(self, out: Optional["Tensor"] = None) -> "Tensor":
        """Cube root; integers -> float32.
        Operands: tensors, numbers (weak scalars), augpy.Constant values or arrays, at least one a tensor,
        broadcast together. Returns a new tensor, or writes into out (saturate_cast) and returns it."""
    def exp(self, out: Optional["Tensor"] = None) -> "Tensor":
        """e ** x; integers -> float32.
        Operands: tensors, numbers (weak scalars), augpy.Constant values or arrays, at least one a tensor,
        broadcast together. Returns a new tensor, or writes into out (saturate_cast) and returns it."""
    def log(self, out: Optional["Tensor"] = None) -> "Tensor":
        """Natural logarithm; integers -> float32.
        Operands: tensors, numbers (weak scalars), augpy.Constant values or arrays, at least one a tensor,
        broadcast together. Returns a new tensor, or writes into out (saturate_cast) and returns it."""
    def log2(self, out: Optional["Tensor"] = None) -> "Tensor":
        """Base-2 logarithm; integers -> float32.
        Operands: tensors, numbers (weak scalars), augpy.Constant values or arrays, at least one a tensor,
        broadcast together. Returns a new tensor, or writes into out (saturate_cast) and returns it."""
    def log10(self, out: Optional["Tensor"] = None) -> "Tensor":
        """Base-10 logarithm; integers -> float32.
        Operands: tensors, numbers (weak scalars), augpy.Constant values or arrays, at least one a tensor,
        broadcast together. Returns a new tensor, or writes into out (saturate_cast) and returns it."""
    def sin(self, out: Optional["Tensor"] = None) -> "Tensor":
        """Sine (radians); integers -> float32.
        Operands: tensors, numbers (weak scalars), augpy.Constant values or arrays, at least one a tensor,
        broadcast together. Returns a new tensor, or writes into out (saturate_cast) and returns it."""
    def cos(self, out: Optional["Tensor"] = None) -> "Tensor":
        """Cosine (radians); integers -> float32.
        Operands: tensors, numbers (weak scalars), augpy.Constant values or arrays, at least one a tensor,
        broadcast together. Returns a new tensor, or writes into out (saturate_cast) and returns it."""
    def tan(self, out: Optional["Tensor"] = None) -> "Tensor":
        """Tangent (radians); integers -> float32.
        Operands: tensors, numbers (weak scalars), augpy.Constant values or arrays, at least one a tensor,
        broadcast together. Returns a new tensor, or writes into out (saturate_cast) and returns it."""
    def asin(self, out: Optional["Tensor"] = None) -> "Tensor":
        """Arc sine; integers -> float32.
        Operands: tensors, numbers (weak scalars), augpy.Constant values or arrays, at least one a tensor,
        broadcast together. Returns a new tensor, or writes into out (saturate_cast) and returns it."""
    def acos(self, out: Optional["Tensor"] = None) -> "Tensor":
        """Arc cosine; integers -> float32.
        Operands: tensors, numbers (weak scalars), augpy.Constant values or arrays, at least one a tensor,
        broadcast together. Returns a new tensor, or writes into out (saturate_cast) and returns it."""
    def atan(self, out: Optional["Tensor"] = None) -> "Tensor":
        """Arc tangent; integers -> float32.
        Operands: tensors, numbers (weak scalars), augpy.Constant values or arrays, at least one a tensor,
        broadcast together. Returns a new tensor, or writes into out (saturate_cast) and returns it."""
    def atan2(self, right: _Operand, out: Optional["Tensor"] = None) -> "Tensor":
        """Arc tangent of left / right using both signs (C atan2(left, right)); integers -> float32.
        Operands: tensors, numbers (weak scalars), augpy.Constant values or arrays, at least one a tensor,
        broadcast together. Returns a new tensor, or writes into out (saturate_cast) and returns it."""
    def sinh(self, out: Optional["Tensor"] = None) -> "Tensor":
        """Hyperbolic sine; integers -> float32.
        Operands: tensors, numbers (weak scalars), augpy.Constant values or arrays, at least one a tensor,
        broadcast together. Returns a new tensor, or writes into out (saturate_cast) and returns it."""
    def cosh(self, out: Optional["Tensor"] = None) -> "Tensor":
        """Hyperbolic cosine; integers -> float32.
        Operands: tensors, numbers (weak scalars), augpy.Constant values or arrays, at least one a tensor,
        broadcast together. Returns a new tensor, or writes into out (saturate_cast) and returns it."""
    def tanh(self, out: Optional["Tensor"] = None) -> "Tensor":
        """Hyperbolic tangent; integers -> float32.
        Operands: tensors, numbers (weak scalars), augpy.Constant values or arrays, at least one a tensor,
        broadcast together. Returns a new tensor, or writes into out (saturate_cast) and returns it."""
    def asinh(self, out: Optional["Tensor"] = None) -> "Tensor":
        """Inverse hyperbolic sine; integers -> float32.
        Operands: tensors, numbers (weak scalars), augpy.Constant values or arrays, at least one a tensor,
        broadcast together. Returns a new tensor, or writes into out (saturate_cast) and returns it."""
    def acosh(self, out: Optional["Tensor"] = None) -> "Tensor":
        """Inverse hyperbolic cosine; integers -> float32.
        Operands: tensors, numbers (weak scalars), augpy.Constant values or arrays, at least one a tensor,
        broadcast together. Returns a new tensor, or writes into out (saturate_cast) and returns it."""
    def atanh(self, out: Optional["Tensor"] = None) -> "Tensor":
        """Inverse hyperbolic tangent; integers -> float32.
        Operands: tensors, numbers (weak scalars), augpy.Constant values or arrays, at least one a tensor,
        broadcast together. Returns a new tensor, or writes into out (saturate_cast) and returns it."""

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
    """Copy a buffer-protocol object or array-like (any strides, any supported dtype) into a new
    tensor on the given device, or into `tensor` (broadcast, saturate_cast), which is returned.
    The seed's form array_to_tensor(array, tensor) also works. `array` may be changed or freed
    as soon as this returns; on a CUDA device the copy is then queued on the current stream
    (up to 4 MiB staged through page-locked memory, no host wait), which ops and reads on that
    stream follow (another stream: record an event)."""


def tensor_to_array(tensor: Tensor, array: Any = None) -> _NDArray:
    """Copy a tensor into a new numpy array, or into the writable buffer `array`: one of the
    tensor's shape (values saturate-cast to its dtype), or a packed byte buffer / buffer of the
    tensor's dtype with enough room (viewed with the tensor's shape and dtype). Returns the array."""


def empty_like(tensor: Tensor, dtype: Optional[_DTypeLike] = None) -> Tensor:
    """A new uninitialised C-contiguous tensor with the shape, device and (unless given) dtype
    of `tensor`."""

CudaTensor = Tensor  # the augpy manual's name for the same class


# ---- creation and Constant (create.c) --------------------------------------------------------


@final
class Constant:
    """A typed (non-weak) scalar operand, like DALI's types.Constant: it promotes like a 0-d tensor of `dtype`
    instead of taking the other operand's type. dtype None: int32 for an int (DALI; int64 / uint64 when the value needs it), float32 for a float, bool for a bool,
    a numpy scalar's or Constant's own dtype."""

    def __new__(cls, value: Union[_Number, numpy.generic], dtype: Optional[_DTypeLike] = None) -> "Constant": ...
    @property
    def dtype(self) -> DLDataType:
        """The constant's dtype (a DLDataType)."""
    @property
    def value(self) -> Any:
        """The value as given."""
    def item(self) -> Union[bool, int, float]:
        """The value after saturate_cast to dtype, as a Python number."""


def zeros(shape: _Shape, dtype: Optional[_DTypeLike] = None, device_id: Optional[int] = None) -> Tensor:
    """A new tensor of zeros (dtype None: uint8).
    shape: an int or a sequence of ints; device_id: an index into the default backend's devices (None: the default device)."""


def ones(shape: _Shape, dtype: Optional[_DTypeLike] = None, device_id: Optional[int] = None) -> Tensor:
    """A new tensor of ones (dtype None: uint8).
    shape: an int or a sequence of ints; device_id: an index into the default backend's devices (None: the default device)."""


def full(shape: _Shape, value: _Number, dtype: Optional[_DTypeLike] = None,
         device_id: Optional[int] = None) -> Tensor:
    """A new tensor filled with value.
    dtype None: uint8 for an int, float32 for a float, bool for a bool, a Constant's dtype.
    shape: an int or a sequence of ints; device_id: an index into the default backend's devices (None: the default device)."""


def empty(shape: _Shape, dtype: Optional[_DTypeLike] = None, device_id: Optional[int] = None) -> Tensor:
    """New tensor of the given shape and dtype (default uint8, as zeros) on device_id (default: the
    current device), its values uninitialised."""


def arange(start: Union[int, float, None] = None, stop: Union[int, float, None] = None,
           step: Union[int, float, None] = None, dtype: Optional[_DTypeLike] = None,
           device_id: Optional[int] = None) -> Tensor:
    """Evenly spaced values in [start, stop), as numpy.arange: arange(stop), arange(start, stop[, step]);
    ceil((stop - start) / step) elements, value i = start + i * step. dtype None: int64 when start,
    stop and step are ints, else float32 (augpy's float default, as full()); a given dtype receives
    the values saturate-cast (computed in int64 or float64). step 0 is a ValueError."""


def asarray(a: _Operand, dtype: Optional[_DTypeLike] = None, device_id: Optional[int] = None) -> Tensor:
    """a as a tensor: a tensor of that dtype on that device is returned itself; otherwise a new
    tensor (saturate-cast to dtype, copied to device_id). Arrays, nested lists and tuples and
    numbers take NumPy's dtype (Python ints int64, floats float64) unless dtype is given;
    device_id None: the tensor's own device, else the current device."""


def tensor(data: _Operand, dtype: Optional[_DTypeLike] = None, device_id: Optional[int] = None) -> Tensor:
    """A new tensor with a copy of data's values (as asarray, but always a copy).
    data: a tensor, a NumPy array or any array-like; dtype None keeps data's dtype; device_id None: the default device."""


def stack(arrays: Sequence[Union[Tensor, numpy.typing.ArrayLike]], axis: int = 0,
          out: Optional[Tensor] = None, dtype: Optional[_DTypeLike] = None) -> Tensor:
    """Join tensors of one shape along a new axis (numpy.stack). Items may be tensors (all on one
    device) or arrays (copied there). The result dtype is the promotion of the items' dtypes
    unless dtype is given; out receives the values saturate-cast."""


def concatenate(arrays: Sequence[Union[Tensor, numpy.typing.ArrayLike]], axis: int = 0,
                out: Optional[Tensor] = None, dtype: Optional[_DTypeLike] = None) -> Tensor:
    """Join tensors along an existing axis (numpy.concatenate); shapes must match except on axis.
    Items, dtype and out as in stack."""


@overload
def where(condition: _Operand, x: None = None, y: None = None, out: None = None) -> Tuple[Tensor, ...]:
    """Elementwise x where condition else y, broadcast together (numpy.where). condition may be of
    any dtype (non-zero, NaN included, is true); the result dtype is the promotion of x and y
    (augpy's rules; Python numbers are weak, two of them resolve as in full()); out receives the
    selected values saturate-cast. where(condition) alone returns numpy.nonzero's tuple of int64
    index tensors (on condition's device)."""
@overload
def where(condition: _Operand, x: _Operand, y: _Operand, out: Optional[Tensor] = None) -> Tensor: ...


def zeros_like(tensor: Tensor, dtype: Optional[_DTypeLike] = None) -> Tensor:
    """Zeros with tensor's shape, device and (default) dtype.
    A new C-contiguous tensor (tensor's strides are not kept)."""


def ones_like(tensor: Tensor, dtype: Optional[_DTypeLike] = None) -> Tensor:
    """Ones with tensor's shape, device and (default) dtype.
    A new C-contiguous tensor (tensor's strides are not kept)."""


def full_like(tensor: Tensor, value: _Number, dtype: Optional[_DTypeLike] = None) -> Tensor:
    """value with tensor's shape, device and (default) dtype.
    A new C-contiguous tensor (tensor's strides are not kept)."""

# ---- functional API (ops.c, semantics §9) ---------------------------------------------------------------
# `other` is a scalar (the result has the tensor's dtype) or a tensor (broadcast); with
# `out` the result is stored there with saturate_cast and `out` is returned.


def add(tensor: Tensor, other: _Operand, out: Optional[Tensor] = None, blocks_per_sm: int = 8,
        threads: int = 512) -> Tensor:
    """tensor + other.
    `other` is a scalar (result has the tensor's dtype) or a tensor (broadcast);
    with `out` the result is stored there with saturate_cast and `out` is returned."""


def sub(tensor: Tensor, other: _Operand, out: Optional[Tensor] = None, blocks_per_sm: int = 8,
        threads: int = 512) -> Tensor:
    """tensor - other.
    `other` is a scalar (result has the tensor's dtype) or a tensor (broadcast);
    with `out` the result is stored there with saturate_cast and `out` is returned."""


def rsub(tensor: Tensor, other: _Operand, out: Optional[Tensor] = None, blocks_per_sm: int = 8,
         threads: int = 512) -> Tensor:
    """other - tensor.
    `other` is a scalar (result has the tensor's dtype) or a tensor (broadcast);
    with `out` the result is stored there with saturate_cast and `out` is returned."""


def mul(tensor: Tensor, other: _Operand, out: Optional[Tensor] = None, blocks_per_sm: int = 8,
        threads: int = 512) -> Tensor:
    """tensor * other.
    `other` is a scalar (result has the tensor's dtype) or a tensor (broadcast);
    with `out` the result is stored there with saturate_cast and `out` is returned."""


def div(tensor: Tensor, other: _Operand, out: Optional[Tensor] = None, blocks_per_sm: int = 8,
        threads: int = 512) -> Tensor:
    """tensor / other, integers rounded half to even.
    `other` is a scalar (result has the tensor's dtype) or a tensor (broadcast);
    with `out` the result is stored there with saturate_cast and `out` is returned."""


def rdiv(tensor: Tensor, other: _Operand, out: Optional[Tensor] = None, blocks_per_sm: int = 8,
         threads: int = 512) -> Tensor:
    """other / tensor, integers rounded half to even.
    `other` is a scalar (result has the tensor's dtype) or a tensor (broadcast);
    with `out` the result is stored there with saturate_cast and `out` is returned."""


def lt(tensor: Tensor, other: _Operand, out: Optional[Tensor] = None, blocks_per_sm: int = 8,
       threads: int = 512) -> Tensor:
    """tensor < other as a bool tensor.
    `other` is a scalar (result has the tensor's dtype) or a tensor (broadcast);
    with `out` the result is stored there with saturate_cast and `out` is returned."""


def le(tensor: Tensor, other: _Operand, out: Optional[Tensor] = None, blocks_per_sm: int = 8,
       threads: int = 512) -> Tensor:
    """tensor <= other as a bool tensor.
    `other` is a scalar (result has the tensor's dtype) or a tensor (broadcast);
    with `out` the result is stored there with saturate_cast and `out` is returned."""


def gt(tensor: Tensor, other: _Operand, out: Optional[Tensor] = None, blocks_per_sm: int = 8,
       threads: int = 512) -> Tensor:
    """tensor > other as a bool tensor.
    `other` is a scalar (result has the tensor's dtype) or a tensor (broadcast);
    with `out` the result is stored there with saturate_cast and `out` is returned."""


def ge(tensor: Tensor, other: _Operand, out: Optional[Tensor] = None, blocks_per_sm: int = 8,
       threads: int = 512) -> Tensor:
    """tensor >= other as a bool tensor.
    `other` is a scalar (result has the tensor's dtype) or a tensor (broadcast);
    with `out` the result is stored there with saturate_cast and `out` is returned."""


def eq(tensor: Tensor, other: _Operand, out: Optional[Tensor] = None, blocks_per_sm: int = 8,
       threads: int = 512) -> Tensor:
    """tensor == other as a bool tensor.
    `other` is a scalar (result has the tensor's dtype) or a tensor (broadcast);
    with `out` the result is stored there with saturate_cast and `out` is returned."""


def ne(tensor: Tensor, other: _Operand, out: Optional[Tensor] = None, blocks_per_sm: int = 8,
       threads: int = 512) -> Tensor:
    """tensor != other as a bool tensor.
    `other` is a scalar (result has the tensor's dtype) or a tensor (broadcast);
    with `out` the result is stored there with saturate_cast and `out` is returned."""


def fma(scalar: Union[_Number, Tensor, _NDArray, Sequence[float]], tensor1: Tensor,
        tensor2: Union[Tensor, _Number], out: Optional[Tensor] = None, blocks_per_sm: int = 8,
        threads: int = 512) -> Tensor:
    """scalar * tensor1 + tensor2 in the temp type with one rounding; new results have tensor2's dtype.
    scalar may also be a tensor (or array) that broadcasts against tensor1 (per-channel coefficients), and tensor2 a number; a tensor scalar joins the compute type's promotion, and with a number tensor2 new results have tensor1's dtype."""


def gemm(A: Tensor, B: Tensor, C: Optional[Tensor] = None, alpha: _Number = 1.0,
         beta: _Number = 0.0) -> Tensor:
    """C = alpha * (A @ B) + beta * C for 2-D float32/float64 tensors (contiguous or transposed views);
    returns C. With C None a new (m, n) tensor is returned (beta ignored)."""


def fill(scalar: _Operand, dst: Tensor, blocks_per_sm: int = 8, threads: int = 0) -> Tensor:
    """Fill dst with scalar (saturate_cast); returns dst.
    blocks_per_sm / threads: the CUDA launch settings of this call (the CPU backend ignores them)."""


def copy(src: Union[Tensor, numpy.typing.ArrayLike], dst: Tensor, blocks_per_sm: int = 8,
         threads: int = 0) -> Tensor:
    """Copy src into dst, broadcasting, with saturate_cast; returns dst.
    blocks_per_sm / threads: the CUDA launch settings of this call (the CPU backend ignores them)."""


def cast(tensor: Tensor, dtype: Union[_DTypeLike, Tensor], blocks_per_sm: int = 8,
         threads: int = 0) -> Tensor:
    """Saturating cast to a dtype (new tensor), or with an output tensor in place of dtype (or out=) into it (returned).
    blocks_per_sm / threads: the CUDA launch settings of this call (the CPU backend ignores them)."""

# ---- reductions (reduce.c, semantics §10) ------------------------------------------------------------------


def sum(tensor: Tensor, axis: _Axis = None, keepdim: bool = False, upcast: bool = False,
        out: Optional[Tensor] = None, blocks_per_sm: int = 8, threads: int = 0) -> Tensor:
    """Sum over `axis` (None: all axes, giving a 0-d tensor; an int or a tuple of ints). Integers accumulate exactly and saturate to the input dtype, or with upcast=True are returned as int64 / uint64 / float64. sum(tensor, upcast) with a bool second argument is the seed's form.
    keepdim keeps the reduced axes with extent 1; out receives the result (saturate_cast) and is returned;
    blocks_per_sm / threads: the CUDA launch settings of this call (the CPU backend ignores them)."""


def min(tensor: Tensor, axis: _Axis = None, keepdim: bool = False, out: Optional[Tensor] = None,
        blocks_per_sm: int = 8, threads: int = 0) -> Tensor:
    """Minimum (NaN propagates; an empty reduction raises ValueError) over `axis` (None: all axes, giving a 0-d tensor; an int or a tuple of ints, negative allowed).
    keepdim keeps the reduced axes with extent 1; out receives the result (saturate_cast) and is returned;
    blocks_per_sm / threads: the CUDA launch settings of this call (the CPU backend ignores them)."""


def max(tensor: Tensor, axis: _Axis = None, keepdim: bool = False, out: Optional[Tensor] = None,
        blocks_per_sm: int = 8, threads: int = 0) -> Tensor:
    """Maximum (NaN propagates; an empty reduction raises ValueError) over `axis` (None: all axes, giving a 0-d tensor; an int or a tuple of ints, negative allowed).
    keepdim keeps the reduced axes with extent 1; out receives the result (saturate_cast) and is returned;
    blocks_per_sm / threads: the CUDA launch settings of this call (the CPU backend ignores them)."""


def mean(tensor: Tensor, axis: _Axis = None, keepdim: bool = False, out: Optional[Tensor] = None,
         blocks_per_sm: int = 8, threads: int = 0) -> Tensor:
    """Mean (float inputs keep their dtype, integers give float64) over `axis` (None: all axes, giving a 0-d tensor; an int or a tuple of ints, negative allowed).
    keepdim keeps the reduced axes with extent 1; out receives the result (saturate_cast) and is returned;
    blocks_per_sm / threads: the CUDA launch settings of this call (the CPU backend ignores them)."""


def all(tensor: Tensor, axis: _Axis = None, keepdim: bool = False, out: Optional[Tensor] = None,
        blocks_per_sm: int = 8, threads: int = 0) -> Tensor:
    """True where every element is nonzero, as a bool tensor, over `axis` (None: all axes, giving a 0-d tensor; an int or a tuple of ints, negative allowed).
    keepdim keeps the reduced axes with extent 1; out receives the result (saturate_cast) and is returned;
    blocks_per_sm / threads: the CUDA launch settings of this call (the CPU backend ignores them)."""


def any(tensor: Tensor, axis: _Axis = None, keepdim: bool = False, out: Optional[Tensor] = None,
        blocks_per_sm: int = 8, threads: int = 0) -> Tensor:
    """True where some element is nonzero, as a bool tensor, over `axis` (None: all axes, giving a 0-d tensor; an int or a tuple of ints, negative allowed).
    keepdim keeps the reduced axes with extent 1; out receives the result (saturate_cast) and is returned;
    blocks_per_sm / threads: the CUDA launch settings of this call (the CPU backend ignores them)."""


def argmin(tensor: Tensor, axis: Optional[int] = None, keepdim: bool = False, out: Optional[Tensor] = None,
           blocks_per_sm: int = 8, threads: int = 0) -> Tensor:
    """The int64 index of the first minimum over `axis` (None: the flat index in C order, a 0-d tensor; an int: the index along that axis), as numpy.argmin: a NaN counts as the minimum (the first NaN wins), -0.0 equals 0.0. An empty reduction raises ValueError.
    keepdim keeps the reduced axes with extent 1; out receives the result (saturate_cast) and is returned;
    blocks_per_sm / threads: the CUDA launch settings of this call (the CPU backend ignores them)."""


def argmax(tensor: Tensor, axis: Optional[int] = None, keepdim: bool = False, out: Optional[Tensor] = None,
           blocks_per_sm: int = 8, threads: int = 0) -> Tensor:
    """The int64 index of the first maximum over `axis` (None: the flat index in C order, a 0-d tensor; an int: the index along that axis), as numpy.argmax: a NaN counts as the maximum (the first NaN wins), -0.0 equals 0.0. An empty reduction raises ValueError.
    keepdim keeps the reduced axes with extent 1; out receives the result (saturate_cast) and is returned;
    blocks_per_sm / threads: the CUDA launch settings of this call (the CPU backend ignores them)."""


def _rebuild_tensor(data: _Buffer, shape: Sequence[int], dtype: _DTypeLike, device: str, layout: str) -> Tensor:
    """pickle's reconstructor of a Tensor: a new packed tensor on `device` ('cpu' or 'cuda:N';
    ValueError when that device does not exist here) with the C-ordered bytes `data`."""

# ---- math functions (mathfuncs.c; re-exported by augpy.math under their DALI names) ---------


def _math_abs(input: _Operand, out: Optional[Tensor] = None) -> Tensor:
    """Absolute value; same dtype, saturating (abs(int8 -128) = 127).
    Operands: tensors, numbers (weak scalars), augpy.Constant values or arrays, at least one a tensor,
    broadcast together. Returns a new tensor, or writes into out (saturate_cast) and returns it."""
def _math_fabs(input: _Operand, out: Optional[Tensor] = None) -> Tensor:
    """Absolute value as a float (integers -> float32).
    Operands: tensors, numbers (weak scalars), augpy.Constant values or arrays, at least one a tensor,
    broadcast together. Returns a new tensor, or writes into out (saturate_cast) and returns it."""
def _math_floor(input: _Operand, out: Optional[Tensor] = None) -> Tensor:
    """Round down; integers -> float32.
    Operands: tensors, numbers (weak scalars), augpy.Constant values or arrays, at least one a tensor,
    broadcast together. Returns a new tensor, or writes into out (saturate_cast) and returns it."""
def _math_ceil(input: _Operand, out: Optional[Tensor] = None) -> Tensor:
    """Round up; integers -> float32.
    Operands: tensors, numbers (weak scalars), augpy.Constant values or arrays, at least one a tensor,
    broadcast together. Returns a new tensor, or writes into out (saturate_cast) and returns it."""
def _math_pow(base: _Operand, exponent: _Operand, out: Optional[Tensor] = None) -> Tensor:
    """base ** exponent (promoted type; integers exact, saturated).
    Operands: tensors, numbers (weak scalars), augpy.Constant values or arrays, at least one a tensor,
    broadcast together. Returns a new tensor, or writes into out (saturate_cast) and returns it."""
def _math_fpow(base: _Operand, exponent: _Operand, out: Optional[Tensor] = None) -> Tensor:
    """base ** exponent in floating point (integers -> float32).
    Operands: tensors, numbers (weak scalars), augpy.Constant values or arrays, at least one a tensor,
    broadcast together. Returns a new tensor, or writes into out (saturate_cast) and returns it."""
def _math_min(left: _Operand, right: _Operand, out: Optional[Tensor] = None) -> Tensor:
    """Elementwise minimum (promoted type; NaN propagates).
    Operands: tensors, numbers (weak scalars), augpy.Constant values or arrays, at least one a tensor,
    broadcast together. Returns a new tensor, or writes into out (saturate_cast) and returns it."""
def _math_max(left: _Operand, right: _Operand, out: Optional[Tensor] = None) -> Tensor:
    """Elementwise maximum (promoted type; NaN propagates).
    Operands: tensors, numbers (weak scalars), augpy.Constant values or arrays, at least one a tensor,
    broadcast together. Returns a new tensor, or writes into out (saturate_cast) and returns it."""
def _math_clamp(value: _Operand, lo: _Operand, hi: _Operand, out: Optional[Tensor] = None) -> Tensor:
    """min(max(value, lo), hi) in the type promoted over all three.
    Operands: tensors, numbers (weak scalars), augpy.Constant values or arrays, at least one a tensor,
    broadcast together. Returns a new tensor, or writes into out (saturate_cast) and returns it."""
def _math_sqrt(input: _Operand, out: Optional[Tensor] = None) -> Tensor:
    """Square root; integers -> float32.
    Operands: tensors, numbers (weak scalars), augpy.Constant values or arrays, at least one a tensor,
    broadcast together. Returns a new tensor, or writes into out (saturate_cast) and returns it."""
def _math_rsqrt(input: _Operand, out: Optional[Tensor] = None) -> Tensor:
    """1 / sqrt(x); integers -> float32.
    Operands: tensors, numbers (weak scalars), augpy.Constant values or arrays, at least one a tensor,
    broadcast together. Returns a new tensor, or writes into out (saturate_cast) and returns it."""
def _math_cbrt(input: _Operand, out: Optional[Tensor] = None) -> Tensor:
    """Cube root; integers -> float32.
    Operands: tensors, numbers (weak scalars), augpy.Constant values or arrays, at least one a tensor,
    broadcast together. Returns a new tensor, or writes into out (saturate_cast) and returns it."""
def _math_exp(input: _Operand, out: Optional[Tensor] = None) -> Tensor:
    """e ** x; integers -> float32.
    Operands: tensors, numbers (weak scalars), augpy.Constant values or arrays, at least one a tensor,
    broadcast together. Returns a new tensor, or writes into out (saturate_cast) and returns it."""
def _math_log(input: _Operand, out: Optional[Tensor] = None) -> Tensor:
    """Natural logarithm; integers -> float32.
    Operands: tensors, numbers (weak scalars), augpy.Constant values or arrays, at least one a tensor,
    broadcast together. Returns a new tensor, or writes into out (saturate_cast) and returns it."""
def _math_log2(input: _Operand, out: Optional[Tensor] = None) -> Tensor:
    """Base-2 logarithm; integers -> float32.
    Operands: tensors, numbers (weak scalars), augpy.Constant values or arrays, at least one a tensor,
    broadcast together. Returns a new tensor, or writes into out (saturate_cast) and returns it."""
def _math_log10(input: _Operand, out: Optional[Tensor] = None) -> Tensor:
    """Base-10 logarithm; integers -> float32.
    Operands: tensors, numbers (weak scalars), augpy.Constant values or arrays, at least one a tensor,
    broadcast together. Returns a new tensor, or writes into out (saturate_cast) and returns it."""
def _math_sin(input: _Operand, out: Optional[Tensor] = None) -> Tensor:
    """Sine (radians); integers -> float32.
    Operands: tensors, numbers (weak scalars), augpy.Constant values or arrays, at least one a tensor,
    broadcast together. Returns a new tensor, or writes into out (saturate_cast) and returns it."""
def _math_cos(input: _Operand, out: Optional[Tensor] = None) -> Tensor:
    """Cosine (radians); integers -> float32.
    Operands: tensors, numbers (weak scalars), augpy.Constant values or arrays, at least one a tensor,
    broadcast together. Returns a new tensor, or writes into out (saturate_cast) and returns it."""
def _math_tan(input: _Operand, out: Optional[Tensor] = None) -> Tensor:
    """Tangent (radians); integers -> float32.
    Operands: tensors, numbers (weak scalars), augpy.Constant values or arrays, at least one a tensor,
    broadcast together. Returns a new tensor, or writes into out (saturate_cast) and returns it."""
def _math_asin(input: _Operand, out: Optional[Tensor] = None) -> Tensor:
    """Arc sine; integers -> float32.
    Operands: tensors, numbers (weak scalars), augpy.Constant values or arrays, at least one a tensor,
    broadcast together. Returns a new tensor, or writes into out (saturate_cast) and returns it."""
def _math_acos(input: _Operand, out: Optional[Tensor] = None) -> Tensor:
    """Arc cosine; integers -> float32.
    Operands: tensors, numbers (weak scalars), augpy.Constant values or arrays, at least one a tensor,
    broadcast together. Returns a new tensor, or writes into out (saturate_cast) and returns it."""
def _math_atan(input: _Operand, out: Optional[Tensor] = None) -> Tensor:
    """Arc tangent; integers -> float32.
    Operands: tensors, numbers (weak scalars), augpy.Constant values or arrays, at least one a tensor,
    broadcast together. Returns a new tensor, or writes into out (saturate_cast) and returns it."""
def _math_atan2(left: _Operand, right: _Operand, out: Optional[Tensor] = None) -> Tensor:
    """Arc tangent of left / right using both signs (C atan2(left, right)); integers -> float32.
    Operands: tensors, numbers (weak scalars), augpy.Constant values or arrays, at least one a tensor,
    broadcast together. Returns a new tensor, or writes into out (saturate_cast) and returns it."""
def _math_sinh(input: _Operand, out: Optional[Tensor] = None) -> Tensor:
    """Hyperbolic sine; integers -> float32.
    Operands: tensors, numbers (weak scalars), augpy.Constant values or arrays, at least one a tensor,
    broadcast together. Returns a new tensor, or writes into out (saturate_cast) and returns it."""
def _math_cosh(input: _Operand, out: Optional[Tensor] = None) -> Tensor:
    """Hyperbolic cosine; integers -> float32.
    Operands: tensors, numbers (weak scalars), augpy.Constant values or arrays, at least one a tensor,
    broadcast together. Returns a new tensor, or writes into out (saturate_cast) and returns it."""
def _math_tanh(input: _Operand, out: Optional[Tensor] = None) -> Tensor:
    """Hyperbolic tangent; integers -> float32.
    Operands: tensors, numbers (weak scalars), augpy.Constant values or arrays, at least one a tensor,
    broadcast together. Returns a new tensor, or writes into out (saturate_cast) and returns it."""
def _math_asinh(input: _Operand, out: Optional[Tensor] = None) -> Tensor:
    """Inverse hyperbolic sine; integers -> float32.
    Operands: tensors, numbers (weak scalars), augpy.Constant values or arrays, at least one a tensor,
    broadcast together. Returns a new tensor, or writes into out (saturate_cast) and returns it."""
def _math_acosh(input: _Operand, out: Optional[Tensor] = None) -> Tensor:
    """Inverse hyperbolic cosine; integers -> float32.
    Operands: tensors, numbers (weak scalars), augpy.Constant values or arrays, at least one a tensor,
    broadcast together. Returns a new tensor, or writes into out (saturate_cast) and returns it."""
def _math_atanh(input: _Operand, out: Optional[Tensor] = None) -> Tensor:
    """Inverse hyperbolic tangent; integers -> float32.
    Operands: tensors, numbers (weak scalars), augpy.Constant values or arrays, at least one a tensor,
    broadcast together. Returns a new tensor, or writes into out (saturate_cast) and returns it."""

# ---- DLPack -------------------------------------------------------------------------------------


def export_dltensor(tensor: Tensor, name: str = "dltensor", destruct: bool = True) -> CapsuleType:
    """Export a tensor as a DLPack capsule (zero copy) stored under `name`; 'dltensor_versioned'
    gives a DLPack 1.x DLManagedTensorVersioned, any other name the legacy DLManagedTensor.
    With destruct=True an unconsumed capsule releases the tensor when it is deleted; with
    destruct=False only a consumer calling the deleter does."""


def import_dltensor(tensor_capsule: CapsuleType, name: str = "dltensor") -> Tensor:
    """Wrap the tensor in a DLPack capsule (zero copy). The capsule is renamed to 'used_dltensor'
    ('used_dltensor_versioned') and cannot be imported twice; the producer's deleter runs once,
    when the last augpy view of the memory goes. The default name also accepts versioned
    capsules. Read-only versioned capsules are imported as a copy."""


def from_dlpack(x: Any, /, *, device: Any = None, copy: Optional[bool] = None) -> Tensor:
    """Zero-copy tensor over the memory of any object implementing __dlpack__ (numpy arrays,
    torch tensors, ...) or over a DLPack capsule."""

# ---- devices, streams, events (device.c, semantics §4) ---------------------------------------------------


@final
class CudaDevice:
    """A device of the default backend (cuda:N on a GPU, else the CPU, where only 0 exists).
    activate() / deactivate() switch this thread's current device; also a context manager."""

    def __new__(cls, device_id: int = 0) -> "CudaDevice": ...
    def activate(self) -> None:
        """Make this the current device of this thread and remember the previous one."""
    def deactivate(self) -> None:
        """Make the device that was current before activate() current again."""
    def get_device(self) -> int:
        """The device ID."""
    def get_properties(self) -> "CudaDeviceProp":
        """The device's CudaDeviceProp, see get_device_properties."""
    def synchronize(self) -> None:
        """Block until all work on this device has finished (CPU: returns at once)."""
    def __enter__(self) -> "CudaDevice":
        """activate(); returns self."""
    def __exit__(self, *exc_info: Union[Optional[Type[BaseException]], Optional[BaseException],
                                        Optional[TracebackType]]) -> None:
        """deactivate()."""


@final
class CudaStream:
    """A new stream on a device of the default backend. Lower priorities are more urgent; a
    priority outside the device's range [greatestStreamPriority, leastStreamPriority] raises
    ValueError (the CPU has only 0). device_id=-1 (with priority=-1) gives augpy.default_stream.
    activate() / deactivate() switch this thread's current stream of the stream's device; also a
    context manager. On the CPU, work is synchronous and every stream is always complete."""

    def __new__(cls, device_id: int = 0, priority: int = 0) -> "CudaStream": ...
    @property
    def device_id(self) -> int:
        """The stream's device (default_stream: the current device)."""
    @property
    def priority(self) -> int:
        """The stream's priority (lower numbers are more urgent)."""
    @property
    def handle(self) -> int:
        """The backend's stream handle as an int (a cudaStream_t; 0 for a default stream and on the CPU), for interop."""
    def activate(self) -> None:
        """Make this the current stream of its device in this thread and remember the previous one."""
    def deactivate(self) -> None:
        """Make the stream that was current before activate() current again."""
    def synchronize(self, microseconds: int = 100) -> None:
        """Block until all work queued on this stream has finished, checking every `microseconds` with the
        GIL released (fewer checks, less CPU load); microseconds <= 0 blocks in the runtime's own wait."""
    def query(self) -> bool:
        """True if all work queued on this stream has finished (CPU: always)."""
    def wait_event(self, event: "CudaEvent", /) -> None:
        """Make work queued on this stream from now on wait until `event` (recorded on
        any stream of the same device) has completed; returns at once (CPU: a no-op)."""
    def __enter__(self) -> "CudaStream":
        """activate(); returns self."""
    def __exit__(self, *exc_info: Union[Optional[Type[BaseException]], Optional[BaseException],
                                        Optional[TracebackType]]) -> None:
        """deactivate()."""


@final
class CudaEvent:
    """An event on this thread's current device, for synchronising with a point of a stream and
    timing. On the CPU a recorded point is always reached."""

    def __new__(cls) -> "CudaEvent": ...
    def record(self, stream: Optional[CudaStream] = None) -> None:
        """Record the point reached by `stream` (None: the current stream of the event's device)."""
    def query(self) -> bool:
        """True if the recorded point has been reached (or nothing was recorded)."""
    def synchronize(self, microseconds: int = 100) -> None:
        """Block until the recorded point has been reached, checking every `microseconds` with the GIL
        released; microseconds <= 0 blocks in the runtime's own wait."""
    def elapsed_time(self, end_event: "CudaEvent", /) -> float:
        """Milliseconds from this event's recorded point to end_event's, as PyTorch's Event.elapsed_time.
        Both events must have been recorded on one device and have completed (synchronize end_event)."""


@final
class CudaDeviceProp:
    """The cudaDeviceProp fields listed in the manual, plus stream priorities,
    coresPerMultiprocessor/coresPerSM, numCudaCores and maxGridSize. CudaDeviceProp() describes
    the current device; see augpy.get_device_properties. On the CPU: the host's model name, one
    multiprocessor with one core per usable core, host memory as global memory, warp and block
    sizes 1, CUDA's grid limits, 0 elsewhere."""

    def __new__(cls) -> "CudaDeviceProp": ...
    @property
    def name(self) -> str:
        """ASCII string identifying the device."""
    @property
    def totalGlobalMem(self) -> int:
        """Global memory available on the device in bytes (CPU: host memory)."""
    @property
    def sharedMemPerBlock(self) -> int:
        """Shared memory available per block in bytes."""
    @property
    def sharedMemPerMultiprocessor(self) -> int:
        """Shared memory available per multiprocessor in bytes."""
    @property
    def totalConstMem(self) -> int:
        """Constant memory available on the device in bytes."""
    @property
    def l2CacheSize(self) -> int:
        """Size of the L2 cache in bytes."""
    @property
    def major(self) -> int:
        """Major compute capability (CPU: 0)."""
    @property
    def minor(self) -> int:
        """Minor compute capability (CPU: 0)."""
    @property
    def multiProcessorCount(self) -> int:
        """Number of multiprocessors on the device (CPU: usable cores)."""
    @property
    def coresPerMultiprocessor(self) -> int:
        """Number of cores per multiprocessor (CPU: 1)."""
    @property
    def coresPerSM(self) -> int:
        """Number of cores per SM (= coresPerMultiprocessor)."""
    @property
    def numCudaCores(self) -> int:
        """Total number of cores."""
    @property
    def warpSize(self) -> int:
        """Warp size in threads."""
    @property
    def maxThreadsPerBlock(self) -> int:
        """Maximum number of threads per block."""
    @property
    def maxThreadsPerMultiProcessor(self) -> int:
        """Maximum resident threads per multiprocessor."""
    @property
    def maxThreadsDim(self) -> Tuple[int, int, int]:
        """Maximum size of each dimension of a block."""
    @property
    def maxGridSize(self) -> Tuple[int, int, int]:
        """Maximum number of blocks in each grid dimension."""
    @property
    def regsPerBlock(self) -> int:
        """32-bit registers available per block."""
    @property
    def regsPerMultiprocessor(self) -> int:
        """32-bit registers available per multiprocessor."""
    @property
    def leastStreamPriority(self) -> int:
        """Lowest priority a stream on this device can have (numerically largest)."""
    @property
    def greatestStreamPriority(self) -> int:
        """Highest priority a stream on this device can have (numerically smallest)."""
    @property
    def streamPrioritiesSupported(self) -> bool:
        """Device supports stream priorities."""


default_stream: CudaStream


def get_current_device() -> int:
    """The current device ID of this thread.
    It is the default device's id unless a CudaDevice was activated on this thread."""


def get_current_stream() -> CudaStream:
    """The current stream of this thread on its current device (default_stream unless one was activated).
    The CUDA work of this thread's calls is queued on it."""


def get_device_properties(device_id: Optional[int] = None) -> CudaDeviceProp:
    """The CudaDeviceProp of a device (None: the current one).
    ValueError for a device_id the default backend does not have."""


def meminfo(device_id: int = 0) -> Tuple[int, int, int]:
    """(used, free, total) memory of the device in bytes, in the seed's order; used includes memory
    cached for reuse by augpy's tensors (CPU: host memory, free is MemAvailable)."""


def release() -> None:
    """Return the device memory cached for reuse to every device (CUDA; the CPU keeps
    no cache)."""


def cuda_status() -> str:
    """'ok: N CUDA device(s)' when the CUDA backend runs, else why not (no CUDA
    module, no device, disabled by AUG_CUDA_BACKEND=off, ...)."""


def synchronize(device_id: Optional[int] = None) -> None:
    """Block until all work on the device (None: the current one) has finished
    (CPU: returns at once, its work is done when a call returns)."""


def _get_launch() -> Tuple[int, int]:
    """This thread's launch settings (blocks_per_sm, threads); 0 = automatic."""


def _set_launch(blocks_per_sm: int, threads: int, /) -> None:
    """Set this thread's launch settings (calls with blocks_per_sm / threads arguments override them for their duration)."""


def get_num_threads() -> int:
    """Number of worker threads of the CPU backend.
    set_num_threads changes it; the default is AUG_NUM_THREADS or the number of available cores."""


def set_num_threads(n: int, /) -> None:
    """Set the CPU backend's worker count; n <= 0 restores the default (AUG_NUM_THREADS or the number of available cores).
    Results never depend on it."""


def get_thread_num_threads() -> int:
    """This thread's cap on the CPU workers of its own calls (0: none).
    set_thread_num_threads sets it."""


def set_thread_num_threads(n: int, /) -> None:
    """Cap the CPU workers of this thread's calls at n (1: they run on this thread alone; n <= 0: no cap, the default of every thread).
    For threads that already work in parallel with each other, an image each. Results never depend on it."""

# ---- random numbers (random.c, semantics §11) ------------------------------------------------------------


@final
class RandomNumberGenerator:
    """Counter-based Philox-4x32-10 generator filling tensors of every dtype. device_id=None
    uses the default device; seed=None reads the OS entropy source. The same seed gives
    the same values for any thread count, strides or backend (SPEC 11)."""

    def __new__(cls, device_id: Optional[int] = None, seed: Optional[int] = None) -> "RandomNumberGenerator": ...
    @property
    def seed(self) -> int:
        """The 64-bit seed (the Philox key)."""
    @property
    def device_id(self) -> int:
        """The generator's device."""
    def uniform(self, target: Union[Tensor, _NDArray], vmin: float, vmax: float,
                blocks_per_sm: int = 8, threads: int = 0) -> None:
        """Fill target with values uniform in [vmin, vmax); vmin can occur, vmax never. Integer
        targets get every integer of the dtype in [ceil(vmin), vmax) with equal probability.
        Reproducible: element i (C order) of the n-th call draws from Philox counter (i, n).
        target: a Tensor on the generator's device, or a writable array (a CUDA generator draws its
        values, the same bits, on the host without waiting for the device; gaussian draws on the
        device and copies the values into the array)."""
    def gaussian(self, target: Union[Tensor, _NDArray], mean: float = 0.0, std: float = 1.0,
                 blocks_per_sm: int = 8, threads: int = 0) -> None:
        """Fill target with normal values (Box-Muller). Integer targets get the value rounded half
        to even and saturated to the dtype; bool targets get round(value) != 0."""
    def gaussian_noise(self, x: Tensor, std: Union[float, _ParamLike] = 1.0, mean: float = 0.0,
                       out: Optional[Tensor] = None, blocks_per_sm: int = 8, threads: int = 0) -> Tensor:
        """x + Gaussian noise in one pass, saturated. x and out both int8/uint8/int16/uint16: x + k with k the
        exact discretised round(mean + std * N(0, 1)), drawn by table from one 32-bit Philox word per value
        (docs/semantics.md 11.2). Otherwise exactly add(x, n, out=out) where n is the float32 tensor
        gaussian(n, mean, std) would fill with this generator's current state. Counts one call.
        std: a number, or one value per image (x's first axis) as a float32 Tensor, array or sequence. Any
        dtype in and out; out may be x (in place). Returns out, or a new tensor of x's shape and dtype."""
    def get_state(self) -> Tuple[int, int]:
        """The state, a tuple (seed, calls): set_state(state) replays the fills from here."""
    def set_state(self, state: Tuple[int, int], /) -> None:
        """Restore a state from get_state()."""
    def __reduce__(self) -> Tuple[Any, ...]:
        """Pickle with the state."""
    def __setstate__(self, state: Tuple[int, int], /) -> None:
        """set_state(state)."""


# ---- per-sample streams (random.c; docs/random.md "Per-sample streams") ------------------------------

# one generator state (seed, calls) per image, in place of a RandomNumberGenerator
_RngStates = Union[Sequence[Tuple[int, int]], Sequence[Sequence[int]], _NDArray]


def stream_seed(seed: int, epoch: int, stream: str) -> int:
    """aug_stream_seed: the Philox seed of stream `stream` (a str, hashed as UTF-8) of epoch `epoch` of a
    pipeline seeded `seed` (ints in [0, 2**64)): splitmix64(splitmix64(splitmix64(seed) ^ epoch) ^
    fnv1a64(stream)). Image k of a stage draws as image 0 of a RandomNumberGenerator at state
    (stream_seed(seed, epoch, stream), sample_id(key)) (docs/random.md, "Per-sample streams")."""


def sample_id(key: Union[str, bytes, bytearray, memoryview, int, numpy.integer[Any], _NDArray]) -> int:
    """aug_sample_id: the 64-bit id of a sample's key, splitmix64(fnv1a64(bytes)) of a str's UTF-8
    or a bytes-like object's bytes; an int in [0, 2**64) (numpy integers too) is its own id."""

# ---- reshape (DALI fn.reshape, reshape.c) -----------------------------------------------------------

_ShapeArg = Union[int, Sequence[int], Sequence[Sequence[int]], Tensor, _NDArray]
_RelShapeArg = Union[float, Sequence[float], Sequence[Sequence[float]], Tensor, _NDArray]


@overload
def reshape(data: Tensor, shape_input: Optional[_ShapeArg] = None, *, shape: Optional[_ShapeArg] = None,
            rel_shape: Optional[_RelShapeArg] = None, src_dims: Optional[Union[int, Sequence[int]]] = None,
            layout: Optional[str] = None, dtype: Optional[_DTypeLike] = None) -> Tensor:
    """DALI's fn.reshape: a view of `data` (a Tensor, or a list of Tensors reshaped one by one) with a new
    shape, layout and/or dtype; no data is copied (the input must be contiguous). One negative extent is inferred; rel_shape multiplies input extents (src_dims picks which, -1 inserts a 1); dtype reinterprets the bytes. A 2-D shape_input/shape/rel_shape gives one row per sample."""
@overload
def reshape(data: Sequence[Tensor], shape_input: Optional[_ShapeArg] = None, *,
            shape: Optional[_ShapeArg] = None, rel_shape: Optional[_RelShapeArg] = None,
            src_dims: Optional[Union[int, Sequence[int]]] = None, layout: Optional[str] = None,
            dtype: Optional[_DTypeLike] = None) -> List[Tensor]: ...

# ---- image: MixUp / CutMix with the mirrored batch (timm's Mixup) ------------------------------------

_Weights = Union[Tuple[float, float], Sequence[Tuple[float, float]], Sequence[float], _NDArray]
_Boxes = Union[Tuple[int, int, int, int], Sequence[Tuple[int, int, int, int]], Sequence[int], _NDArray]


def mix_mirror(images: Tensor, weights: Optional[_Weights] = None, boxes: Optional[_Boxes] = None) -> Tensor:
    """Mix a float (N, C, H, W) batch (float16, bfloat16, float32, float64; any strides) in place with its
    mirror, image i with image N - 1 - i (an odd batch's middle image with itself), in one pass: from the
    original values a (image i) and b (its mirror), image i becomes b inside its box (x1, y1, x2, y2) when
    that is non-empty (CutMix), else a * w + b * v with its weights (w, v) (MixUp: each product and the sum
    rounded in the dtype, the weights rounded to float32 for the 16- and 32-bit floats, exactly as
    mul(a, w) + mul(b, v)); weights exactly (1, 0) leave it as it is. weights: one (w, v) pair for every
    image or one per image (None: (1, 0)); boxes: one box for every image or one per image, an image without
    a box given an empty one such as (0, 0, 0, 0) (None: no boxes). Returns images. C: aug_mix_mirror."""


# ---- image: lighting and blur (semantics §13) -------------------------------------------------------

# a number or one per image: a float32 tensor, a numpy array or a sequence
_ParamLike = Union[float, Tensor, Sequence[float], _NDArray]


def lighting(imtensor: _Image, gammagrays: _ParamLike, gammacolors: _ParamLike, contrasts: _ParamLike,
             vmin: float, vmax: float, out: Optional[_Image] = None) -> Tensor:
    """Contrast and gamma change of a batch of images (N, C, H, W) (or one image (C, H, W)), any dtype.
    gammagrays: N values; gammacolors: N*C values (or (N, C)); contrasts: N values in [-1, 1]; float32
    tensors, or numpy arrays / sequences (converted). Per value: v = clip((x - vmin) / (vmax - vmin), 0, 1);
    v = (1 - |c|) v + |c| f(v) (f_pos for c >= 0, f_neg for c < 0); v = v ** (gammagray * gammacolor);
    saturate_cast(v (vmax - vmin) + vmin). out may be imtensor (in place). Returns the new tensor if out is
    None, else out. imtensor and out may be arrays (numpy, torch, DLPack, buffer), used without a copy;
    an image laid out (its layout string or its shape) other than NCHW / CHW is a ValueError."""


def box_blur_single(input: _Image, ksize: int, out: Optional[_Image] = None) -> Tensor:
    """Box blur of one image (C, H, W), any dtype: the mean over the ksize x ksize window at offsets
    -ksize//2 .. -ksize//2 + ksize - 1 (an even ksize shifts up/left by half a pixel); edges replicated.
    out may be input. Returns the new tensor if out is None, else out.
    input and out may be arrays (numpy, torch, DLPack, buffer), used without a copy; an input laid out
    (its layout string or its shape) other than CHW is a ValueError."""


def gaussian_blur_single(input: _Image, sigma: float, out: Optional[_Image] = None) -> Tensor:
    """Gaussian blur of one image (C, H, W), any dtype: ksize = max(3, int(sigma * 6.6 - 2.3) | 1), weights
    exp(-i^2 / (2 sigma^2)) normalised to 1, separable, edges replicated, one rounding at the end.
    sigma <= 0 copies. out may be input. Returns the new tensor if out is None, else out.
    input and out may be arrays (numpy, torch, DLPack, buffer), used without a copy; an input laid out
    (its layout string or its shape) other than CHW is a ValueError."""


def gaussian_blur(input: _Image, sigmas: _ParamLike, max_ksize: int,
                  out: Optional[_Image] = None) -> Tensor:
    """Gaussian blur of a batch (N, C, H, W) with one sigma per image (float32 tensor, numpy array or
    sequence): ksize = min(max_ksize, max(3, int(sigma * 6.6 - 2.3) | 1)), weights renormalised over the
    clipped window (an even ksize covers -ksize/2 .. ksize/2 - 1). out may be input. Returns the new tensor
    if out is None, else out. input and out may be arrays (numpy, torch, DLPack, buffer), used without a
    copy; an input laid out (its layout string or its shape) other than NCHW (an NHWC batch) is a ValueError."""


def pil_gaussian_blur_single(input: _Image, radius: float, out: Optional[_Image] = None) -> Tensor:
    """PIL's ImageFilter.GaussianBlur(radius) on one uint8 image (C, H, W), bit-exact with Pillow: the
    float32 radius gives Pillow's extended box radius b (r = int(b)), then 3 box passes along W and 3
    along H, each out[j] = (ww * sum(x[j-r..j+r]) + fw * (x[j-r-1] + x[j+r+1]) + 2**23) >> 24 with
    ww = int(2**24 / (2b + 1)), fw = (2**24 - (2r + 1) ww) // 2, indices clamped to the line.
    radius 0 copies; radius must be in [0, 1e6] (ValueError otherwise, NaN too); another dtype is a
    TypeError. out may be input. Returns the new tensor if out is None, else out."""


def pil_gaussian_blur(input: _Image, radii: _ParamLike, out: Optional[_Image] = None) -> Tensor:
    """PIL's ImageFilter.GaussianBlur on a uint8 batch (N, C, H, W) with one radius per image (a number,
    or a float32 tensor, numpy array or sequence of N): pil_gaussian_blur_single's definition per image.
    out may be input. Returns the new tensor if out is None, else out."""

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
    """DALI's fn.crop_mirror_normalize (dtype None: float32): crop a window of each image, mirror it horizontally (per image),
    output = scale * (input - mean) / std + shift per channel, converted to dtype with saturation.
    images: a 3-D image (H, W, C) (or (C, H, W) with layout='CHW'), a 4-D batch, or a list of
    images of any sizes; any dtype and strides. crop=(h, w) or crop_h/crop_w (default: the whole
    image); crop_pos_x/crop_pos_y in [0, 1] (default 0.5; a number or one per image) place the window
    at round(pos * (extent - crop)) (half away from zero), or anchor=(y, x) (one pair or one per image)
    places it explicitly. mirror: 0/1 or one per image. mean/std/fill_values: a number or one per
    channel. layout (None: the images' layout strings or shapes, else 'HWC') and out_layout 'CHW' or 'HWC'
    (batches get N in front; the old keywords input_layout= / output_layout= are accepted); pad_output pads the channels to the
    next power of two. out_of_bounds_policy: 'error' (default), 'pad' (fill_values outside the image)
    or 'trim_to_shape'. Returns a new tensor, or out. docs/normalize.md gives the exact arithmetic."""

# ---- exceptions -----------------------------------------------------------------------------------


class CudaError(RuntimeError):
    """CudaError(*args)
    --

    Raised when a problem with a GPU occurs, e.g., device is unavailable or invalid kernel configuration."""
class CuRandError(RuntimeError):
    """CuRandError(*args)
    --

    Raised when a problem with CuRand occurs, e.g., no memory left for random state."""
class CuBlasError(RuntimeError):
    """CuBlasError(*args)
    --

    Raised when a problem with CuBlas (or the CPU BLAS) occurs."""
class MemoryError(builtins.MemoryError):
    """MemoryError(*args)
    --

    Raised when a problem with device memory occurs, e.g., no memory left for a tensor. Subclass of the builtin MemoryError."""
class NvJpegError(RuntimeError):
    """NvJpegError(*args)
    --

    Raised when a problem with JPEG decoding occurs, e.g., corrupt or unsupported image (alias augpy.JpegError). Every decode error is its subclass DecodeError, whatever the decoder's engine; `except augpy.NvJpegError` catches it."""
class DecodeError(NvJpegError):
    """DecodeError(*args)
    --

    Raised when an image cannot be decoded (libjpeg-turbo, libspng, libwebp, libtiff, libavif or nvJPEG, whatever the decoder's engine) or its header cannot be read: a corrupt, truncated or unsupported JPEG, PNG, WebP, TIFF or AVIF (the decoder's reason in the message; nvJPEG's failures read "nvJPEG failed in <call>: NVJPEG_STATUS_X"), one over the decoder's max_pixels, or data that is none of them ("not a JPEG, PNG, WebP, TIFF or AVIF file (starts with 3c 68 74 6d 6c 3e 0a 3c)": its first bytes in hex). Subclass of NvJpegError, so `except augpy.NvJpegError` catches it too."""

# ---- JPEG decoding (jpeg.c) ---------------------------------------------------------------------------


@final
class Decoder:
    """JPEG and PNG decoder on the current device (CPU backend: libjpeg-turbo; CUDA backend: nvJPEG,
    see engine; PNG: libspng on the CPU, uploaded on CUDA).
    The paddings are memory hints: bytes added to scratch buffers when they grow.
    gpu_huffman is used by the CUDA backend only. Use one Decoder per thread for parallel
    decoding (a shared one serialises the calls).
    max_pixels: the largest image (height * width) decoded, in [1, 2**31]; the default 2**28
    (16384 x 16384) refuses files whose header claims more (DecodeError naming the size and the
    limit, raised before any pixel memory is allocated).
    max_scan_pixels: a progressive JPEG keeps the whole image's coefficients and reads its data
    once per scan, so its whole image is held to max_pixels even for a roi or scale, and its
    scans x pixels to max_scan_pixels (default 2**32: a usual 10-scan 16384 x 16384 file passes).
    A long progressive decode on the CPU stops on Ctrl-C.
    Decode errors are DecodeError, a subclass of NvJpegError, whatever the engine (see decode).
    A Decoder pickles (its arguments and device; unpickling makes a fresh one), so it can be
    handed to multiprocessing workers, spawned ones included."""

    def __new__(cls, device_padding: int = 16777216, host_padding: int = 8388608,
                gpu_huffman: bool = False, *, max_pixels: int = 268435456,
                max_scan_pixels: int = 4294967296) -> "Decoder": ...
    @property
    def device_padding(self) -> int:
        """Device memory padding."""
    @property
    def max_pixels(self) -> int:
        """The largest image (height * width pixels) this decoder decodes; larger ones raise DecodeError."""
    @property
    def max_scan_pixels(self) -> int:
        """The decode cost bound of progressive JPEGs: scans x pixels (DecodeError above it)."""
    @property
    def host_padding(self) -> int:
        """Host memory padding."""
    @property
    def gpu_huffman(self) -> bool:
        """Huffman decoding on the GPU requested (CUDA backend)."""
    @property
    def jpeg_backend(self) -> str:
        """Which backend decodes: engine's answer, except on the 'nvjpeg' engine: 'hardware (batched; other files:
        hybrid)' where the GPU has JPEG decode engines (A100/H100/H200), else 'hybrid' (or 'hybrid+gpu_huffman')
        followed by why not hardware, e.g. '(no hardware decoder: nvjpegCreateExV2 failed with
        NVJPEG_STATUS_ARCH_MISMATCH)'."""
    @property
    def engine(self) -> str:
        """What decodes the pixels: 'libjpeg-turbo' (CPU), 'nvjpeg' (CUDA; files nvJPEG refuses, e.g. CMYK, are
        decoded on the CPU and uploaded) or 'libjpeg-turbo+upload' (CUDA without nvJPEG installed)."""
    def decode(self, data: _JpegData, buffer: Optional[Tensor] = None,
               roi: Optional[Sequence[SupportsIndex]] = None,
               scale: Union[None, float, fractions.Fraction, Tuple[int, int]] = None,
               mode: Optional[str] = None, contiguous: bool = True, dtype: Optional[_DTypeLike] = None,
               page: Optional[SupportsIndex] = None) -> Tensor:
        """Decode a JPEG or PNG image (the full file contents: bytes, bytearray, memoryview or a numpy uint8 array)
        to an (H, W, 3) uint8 RGB tensor with layout 'HWC' on the decoder's device. Grayscale and CMYK/YCCK
        files decode to RGB; baseline, progressive and restart-marker files work. The pixels equal Pillow's
        Image.open(f).convert('RGB'). buffer: None, or a contiguous uint8 tensor of at least H*W*3 elements
        on the decoder's device; the result then shares its memory. A corrupt or truncated file raises
        DecodeError (a subclass of NvJpegError; whatever the engine) with the decoder's message:
        libjpeg-turbo's or libspng's, or on the 'nvjpeg' engine for the JPEG files nvJPEG fails on
        'nvJPEG failed in <call>: NVJPEG_STATUS_X' (the buffer's contents are then unspecified); data
        that is neither JPEG nor PNG raises DecodeError 'not a JPEG, PNG, WebP, TIFF or AVIF file (starts with 3c 68 74
        6d 6c 3e 0a 3c)' (its first bytes in hex). The GIL is released while decoding.
        data may also be a path (str or os.PathLike: the file is read) or a CPU DLPack object holding a
        contiguous 1-d uint8 tensor (e.g. torchvision.io.read_file's result), read without a copy.
        scale: None, or one of libjpeg-turbo's DCT scaling factors M/8 for M in 1..16 (1/8, 1/4, 3/8,
        1/2, ..., 2) as a number (0.5, Fraction(1, 4)) or a (num, denom) pair; the scaled image is
        ceil(H*M/8) x ceil(W*M/8). roi: None, or (y, x, h, w) in pixels of the SCALED image; the result
        is then (h, w, 3), exactly those pixels, decoded without decoding the rest where libjpeg can
        (rows below the region are not read). max_pixels bounds the output size. Pixels equal
        libjpeg-turbo's djpeg -scale M/8 -crop WxH+X+Y; a CUDA decoder decodes these on the CPU and
        uploads.
        PNG files (told apart by their signature) decode with libspng on the CPU (a CUDA decoder uploads):
        palette, gray, alpha, 1..16-bit and interlaced files; 16-bit samples round to 8 bits
        (v * 255 + 32767) // 65535; roi cuts the decoded image; scale must be 1.
        mode: None or 'rgb' (3 channels), 'gray' / 'L' (1: Pillow's convert('L') luma), 'gray_alpha' /
        'LA' (2), 'rgba' (4; alpha 255 where the file has none) or 'unchanged' (the file's own channels:
        JPEG 1 or 3, PNG 1-4 with a tRNS chunk counted as alpha).
        dtype: None / 'uint8' (16-bit samples round to 8 bits) or 'uint16' / augpy.uint16: 16-bit PNG and
        TIFF samples are kept, 8-bit ones scaled by 257, 10/12-bit AVIF ones to round(v * 65535 / (2^d - 1))
        (buffer must then be uint16).
        WebP (libwebp: lossy, lossless, alpha; an animation gives its first frame), TIFF (libtiff: strips
        or tiles, chunky or planar, 8/16-bit, 1-4 samples, the usual compressions) and AVIF (libavif: 8/10/12-bit,
        alpha, gray; a sequence gives its first frame) decode on the CPU (a CUDA decoder uploads); page: the
        TIFF page (directory) to decode, 0 the first (docs/formats.md).
        contiguous=False lets a JPEG region or scaled decode on a CPU decoder (mode rgb) return a strided
        view instead: libjpeg writes the band it decodes straight into the result's memory (rows
        (w + 68) * 3 bytes apart; with buffer, when it holds h * (w + 68) * 3 elements), the same pixels
        without a copy of each row. Every op reads such views (DecodeWarp's stages use it)."""
    def info(self, data: _JpegData, page: Optional[SupportsIndex] = None) -> Dict[str, Any]:
        """Describe a JPEG or PNG from its header alone (no pixels decoded). PNG: a dict with 'format' ('png'),
        'height', 'width', 'channels' (3), 'components' (of mode='unchanged'), 'colour_space' ('Grayscale',
        'RGB', 'Palette', 'GrayscaleAlpha', 'RGBA'), 'bit_depth', 'interlaced', 'transparency' (a tRNS chunk).
        JPEG: a dict with 'format' ('jpeg'), 'height', 'width' (of the
        full image), 'channels' (of decode's output: 3), 'components' (in the file: 1, 3 or 4),
        'colour_space' ('Grayscale', 'YCbCr', 'RGB', 'CMYK' or 'YCCK'), 'sampling' ('4:4:4', '4:2:2',
        '4:2:0', '4:4:0', '4:1:1', '4:1:0', '4:0:0' for grayscale, else the factors 'HxV,HxV,HxV') and
        'progressive' (bool). data as for decode. DecodeError if the header cannot be read.
        WebP, TIFF and AVIF: 'format' ('webp' / 'tiff' / 'avif'), 'height', 'width', 'channels' (3),
        'components', 'colour_space' (AVIF: 'YUV444', 'YUV422', 'YUV420', 'YUV400'), 'bit_depth' (AVIF 8, 10
        or 12), 'alpha', 'pages', 'compression' (AVIF 'av1'), and 'animated' (WebP, AVIF) or 'tiled' and
        'planar' (TIFF). page: the TIFF page described (0 the first)."""
    def __reduce__(self) -> Tuple[Callable[[str, int, int, bool, int, int], "Decoder"],
                                  Tuple[str, int, int, bool, int, int]]:
        """Pickle as the constructor's arguments and the decoder's device: unpickling (also in a new process,
        e.g. a multiprocessing spawn worker) makes a fresh decoder with its own buffers and handles."""


def _decoder_restore(device: str, device_padding: int, host_padding: int, gpu_huffman: bool, max_pixels: int,
                     max_scan_pixels: Optional[int] = None, /) -> Decoder:
    """Unpickle a Decoder (Decoder.__reduce__): a new one for device ('cpu' or 'cuda:N')."""


def supported_formats() -> Tuple[str, ...]:
    """The file formats Decoder reads, told apart by their first bytes: ('jpeg', 'png', 'webp', 'tiff',
    'avif').

    A file's extension plays no part: a TIFF named x.jpg decodes as TIFF. Decoder.info(data)['format']
    names the format of one file (docs/formats.md)."""


def jpeg_info(data: _JpegData) -> Tuple[int, int]:
    """Image size (height, width) of a JPEG file from its header, without decoding.

    data is bytes-like (the whole file or at least its header). Raises augpy.DecodeError (a subclass of
    NvJpegError) when the data is not a JPEG or its header is corrupt; Decoder.info also reads PNG files."""


def encode_jpeg(image: _Image, quality: SupportsIndex = 75, layout: Optional[str] = None) -> bytes:
    """Encode one uint8 image as a JPEG file with libjpeg-turbo: bytes.

    image: (H, W), (H, W, C) or (C, H, W) with C = 1 (grayscale JPEG) or 3 (RGB, stored as YCbCr 4:2:0), any
    strides, on any device (a CUDA tensor is read back to the host); a Tensor or an array. quality: 1..100
    (libjpeg's scaling of the standard tables). The settings are PIL's defaults (4:2:0, accurate DCT, standard
    Huffman tables), so decoding the file gives Pillow's pixels for im.save(f, 'JPEG', quality=q).
    layout: 'HW', 'HWC' or 'CHW' (None: the tensor's layout string, else its shape's). ValueError for quality
    outside 1..100, other channel counts or sizes; TypeError for a dtype other than uint8."""

# ---- affine warp (warp.c) -------------------------------------------------------------------------


@final
class WarpScaleMode:
    """Enum whether to scale relative to the shortest or longest side of the image.

    Members:

      WARP_SCALE_SHORTEST : Scaling is relative to the shortest side of the image.

      WARP_SCALE_LONGEST : Scaling is relative to the longest side of the image."""

    WARP_SCALE_SHORTEST: ClassVar["WarpScaleMode"]
    WARP_SCALE_LONGEST: ClassVar["WarpScaleMode"]
    __members__: ClassVar[Any]

    def __new__(cls, value: Union[int, str, "WarpScaleMode"]) -> "WarpScaleMode": ...
    @property
    def name(self) -> str:
        """The member's name."""
    @property
    def value(self) -> int:
        """The member's int value."""
    def __int__(self) -> int: ...
    def __index__(self) -> int: ...
    def __hash__(self) -> int: ...
    def __lt__(self, other: object, /) -> bool: ...
    def __le__(self, other: object, /) -> bool: ...
    def __gt__(self, other: object, /) -> bool: ...
    def __ge__(self, other: object, /) -> bool: ...
    def __reduce__(self) -> Tuple[Type["WarpScaleMode"], Tuple[int]]:
        """Pickle as the member."""


WARP_SCALE_SHORTEST: WarpScaleMode
WARP_SCALE_LONGEST: WarpScaleMode

_ScaleModeLike = Union[str, int, WarpScaleMode]


def make_affine_matrix(out: Any, source_height: int, source_width: int, target_height: int, target_width: int,
                       angle: float = 0.0, scale: float = 1.0, aspect: float = 1.0, shifty: float = 0.0,
                       shiftx: float = 0.0, sheary: float = 0.0, shearx: float = 0.0, hmirror: bool = False,
                       vmirror: bool = False, scale_mode: _ScaleModeLike = "shortest",
                       max_supersampling: int = 3) -> int:
    """Write the 2x3 inverse affine map (OpenCV warpAffine with WARP_INVERSE_MAP) into the writable float32 (2, 3) buffer `out`;
    transforms apply in the order shear, scale & aspect, mirror, rotation (clockwise degrees), shift.
    Returns the recommended supersampling factor."""


def make_transform(source_size: Sequence[int], target_size: Sequence[int], angle: float = 0, scale: float = 1,
                   aspect: float = 1, shift: Optional[Sequence[float]] = None, shear: Optional[Sequence[float]] = None,
                   hmirror: bool = False, vmirror: bool = False, scale_mode: _ScaleModeLike = "shortest",
                   max_supersampling: int = 3, out: Optional[_NDArray] = None) -> Tuple[_NDArray, int]:
    """Convenience form of make_affine_matrix: sizes as (height, width), shift and shear as (y, x) pairs, scale_mode a WarpScaleMode or 'shortest'/'longest'.
    An unknown keyword (e.g. rotation=30) is a TypeError naming it (the batch stages pass only these keys of an augmentation dict).
    Returns (matrix, supersampling) with matrix a float32 (2, 3) numpy array (or `out`)."""


def warp_affine(src: Union[_Image, Sequence[_Image]], dst: _Image, matrix: Any,
                background: Any = None, supersampling: Union[int, Sequence[int]] = 1, *,
                interpolation: str = 'linear', border: str = 'constant', layout: Optional[str] = None,
                src_layout: Optional[str] = None) -> _Image:
    """Affine warp of an (H, W, C) image into a (C, Ht, Wt) tensor with bilinear interpolation and s x s supersampling; pixels outside the source take `background` (None: zeros; a tensor, number or sequence of C values). Batch form: src a list of (H_i, W_i, C) tensors or an (N, H, W, C) tensor, dst (N, C, Ht, Wt), matrix (N, 2, 3), supersampling an int or N ints. Any dtypes; results saturate. interpolation: 'linear' (also 'bilinear'), 'nearest' (one source value, never blended: masks and labels; supersampling ignored) or 'cubic' (also 'bicubic': Keys' a = -0.75 over 4x4 taps, OpenCV's INTER_CUBIC, in double). border: 'constant' (background), 'replicate', 'reflect' (OpenCV BORDER_REFLECT_101) or 'symmetric' (BORDER_REFLECT).
    layout: dst's layout, 'CHW' or 'HWC' ('NCHW' / 'NHWC' for a batch); src_layout: 'HWC' or 'CHW' ('NHWC' / 'NCHW' for a batch tensor).
    None reads the layout string, else the shape (channels, at most 4, on exactly one end; torch tensors channels first), else HWC sources and CHW outputs (augpy tensors) or a ValueError asking for the layout (arrays). (H, W) sources and (Ht, Wt) / (N, Ht, Wt) outputs are one channel.
    src and dst may be NumPy arrays, CPU torch tensors or any object with __dlpack__ / the buffer protocol, used without a copy (dst, written in place, must be writable and C-contiguous).
    Returns dst (the object given), as the other image ops return their out=."""


def warp_perspective(src: Union[_Image, Sequence[_Image]], dst: _Image, matrix: Any,
                     background: Any = None, supersampling: Union[int, Sequence[int]] = 1, *,
                     interpolation: str = 'linear', border: str = 'constant', layout: Optional[str] = None,
                     src_layout: Optional[str] = None) -> _Image:
    """Perspective warp: warp_affine with a 3x3 homography `matrix` ((N, 3, 3) for a batch), the inverse map (output pixel -> source pixel, cv2.warpPerspective with WARP_INVERSE_MAP): sample (x, y) reads the source at (u / w, v / w), (u, v, w) = matrix @ (x, y, 1). A sample with w <= 0 (or a non-finite point) lies outside the source plane and takes `background` under every border. The matrix must be finite and non-singular (else a ValueError). Everything else (background, supersampling, interpolation, border, layouts, dtypes, batches) as warp_affine; a matrix whose last row is (0, 0, 1) gives warp_affine's result.
    Returns dst."""


# ---- co-transforms of boxes and keypoints (targets.c; public API in augpy.targets) ----

def _boxes_affine(boxes: Any, matrix: Sequence[float], source_size: Sequence[int], target_size: Sequence[int],
                  format: str = "xyxy", normalized: bool = False, min_area: float = 0.0,
                  min_visibility: float = 0.0, func: Optional[str] = None) -> Tuple[Tensor, Tensor]:
    """Boxes (n, 4) through the warp matrix (6 numbers, the inverse map): (boxes (k, 4), kept rows int64 (k,)).
    See augpy.transform_boxes."""

def _boxes_affine_batch(boxes: Any, counts: Optional[Sequence[int]], matrices: Sequence[float],
                        source_sizes: Sequence[int], target_size: Sequence[int], format: str = "xyxy",
                        normalized: bool = False, min_area: float = 0.0, min_visibility: float = 0.0,
                        func: Optional[str] = None) -> Tuple[Tensor, List[int], Tensor]:
    """Padded boxes (N, M, 4) with counts (N values or None): (boxes (N, M, 4), counts list, kept rows (N, M)).
    See augpy.transform_boxes_batch."""

def _keypoints_affine(keypoints: Any, matrix: Sequence[float], target_size: Sequence[int],
                      remove_invisible: bool = False, func: Optional[str] = None) -> Tuple[Tensor, Tensor]:
    """Keypoints (n, 2|3|4) through the warp matrix: (keypoints, visible rows int64). See augpy.transform_keypoints."""
# ---- resize, flip, crop (docs/resize.md) ----

_Interp = str  # 'linear' (also 'bilinear', 'inter_linear'), 'nearest', 'area' (aug_interp_from_name)
_SizeLike = Union[SupportsIndex, Sequence[SupportsIndex]]


def resize(image: _Image, size: _SizeLike, interpolation: _Interp = "linear", antialias: bool = True,
           layout: Optional[str] = None, out: Optional[_Image] = None) -> Tensor:
    """Resize an image (HW, HWC, CHW) or a batch (NHWC, NCHW) to size = (height, width), or with an int size
    make the shorter side that long (torchvision). interpolation: 'linear' (also 'bilinear'), 'nearest' or 'area' (OpenCV's
    INTER_NEAREST, INTER_LINEAR, INTER_AREA); antialias: bilinear shrinking uses Pillow's widened triangle
    filter (torchvision antialias=True). Any dtype and strides; saturate_cast.
    layout: None reads the tensor's layout string; without one a 3-D shape with channels (at most 4) on
    exactly one end is HWC or CHW, a 4-D one NHWC or NCHW by its last three dimensions, a torch tensor
    channels first when it can be; other shapes take HWC (3-D) / NCHW (4-D) for augpy tensors and are a
    ValueError asking for layout= for arrays (docs/semantics.md, layouts).
    image: an augpy tensor, or a NumPy array / CPU torch tensor / any object with __dlpack__, the buffer
    protocol or __array_interface__, used without a copy (the result is an augpy tensor).
    Returns a new tensor, or out (any dtype and strides; a writable array is written in place)."""


def resize_batch(images: Sequence[_Image], size: _SizeLike, interpolation: _Interp = "linear",
                 antialias: bool = True, layout: Optional[str] = None, out_layout: Optional[str] = "NCHW",
                 dtype: Any = None, out: Optional[_Image] = None) -> Tensor:
    """Resize a list of images (HW, HWC or CHW, any sizes; tensors or arrays) into one (N, C, H, W) or
    (N, H, W, C) batch (layout None: the one the images' layout strings and shapes agree on);
    size = (height, width) or an int (square). dtype: of the new batch (default: the images'). Returns the
    new batch or out."""


def flip(image: _Image, horizontal: bool = True, vertical: bool = False,
         layout: Optional[str] = None) -> Tensor:
    """A view of the image(s) mirrored left-right and/or upside down (negative strides, no copy).
    image: HW, HWC, CHW, NHWC or NCHW (layout as augpy.resize); an array is viewed without a copy."""


def hflip(image: _Image, layout: Optional[str] = None) -> Tensor:
    """flip(image, horizontal=True): a left-right mirrored view.
    image: HW, HWC, CHW, NHWC or NCHW (layout as augpy.resize); an array is viewed without a copy."""


def vflip(image: _Image, layout: Optional[str] = None) -> Tensor:
    """flip(image, False, True): an upside-down view.
    image: HW, HWC, CHW, NHWC or NCHW (layout as augpy.resize); an array is viewed without a copy."""


def crop(image: _Image, y: SupportsIndex, x: SupportsIndex, h: SupportsIndex, w: SupportsIndex,
         layout: Optional[str] = None) -> Tensor:
    """A view of rows y .. y+h-1 and columns x .. x+w-1 of the image(s); ValueError when it does not fit.
    image: HW, HWC, CHW, NHWC or NCHW (layout as augpy.resize); an array is viewed without a copy."""


def center_crop(image: _Image, size: _SizeLike, layout: Optional[str] = None) -> Tensor:
    """torchvision's CenterCrop: size = (h, w) or an int; a view when it fits (offset round((H - h) / 2)),
    else a new tensor with the image centred on zeros.
    image: HW, HWC, CHW, NHWC or NCHW (layout as augpy.resize); an array is viewed without a copy."""


def flip_batch(batch: _Image, flags: Sequence[Any], horizontal: bool = True, vertical: bool = False,
               layout: Optional[str] = None, out: Optional[_Image] = None) -> Tensor:
    """Copy of a batch (NCHW / NHWC) with image i flipped where flags[i] is true.
    out may be batch (in place); batch and out may be arrays (layout as augpy.resize)."""


def image_dims(image: _Image, layout: Optional[str] = None) -> Tuple[int, int, int, int]:
    """(N, H, W, C) of an image or batch under its layout (N, C = 1 when absent).
    layout None: the layout augpy.resize reads the image with (its layout string or its shape's)."""
# ---- colour (colour.c, docs/colour.md) ------------------------------------------------------------------

_FactorsLike = Optional[Union[float, Sequence[float], _NDArray]]  # a number or one per image, or None: step skipped
_RangeLike = Optional[Union[float, Tuple[float, float], Sequence[float]]]


def adjust_brightness(imtensor: _Image, brightness_factor: float, out: Optional[_Image] = None) -> Tensor:
    """torchvision's adjust_brightness: x * factor clamped to [0, 255] / [0, 65535] (uint8 / uint16, then truncated)
    or [0, 1] (float32). imtensor: (N, C, H, W) or (C, H, W), C = 1 or 3, uint8, uint16 or float32, any
    strides; factor >= 0.
    out may be imtensor (in place). Returns the new tensor if out is None, else out."""


def adjust_contrast(imtensor: _Image, contrast_factor: float, out: Optional[_Image] = None) -> Tensor:
    """torchvision's adjust_contrast: blend each image with the mean of its grayscale (floored for integers):
    x * f + mean * (1 - f), clamped (integers: truncated). factor >= 0. Layout and out as adjust_brightness."""


def adjust_saturation(imtensor: _Image, saturation_factor: float,
                      out: Optional[_Image] = None) -> Tensor:
    """torchvision's adjust_saturation: blend each pixel with its grayscale 0.2989 R + 0.587 G + 0.114 B
    (floored for integers). factor >= 0. A 1-channel image is returned unchanged (copied into out)."""


def adjust_hue(imtensor: _Image, hue_factor: float, out: Optional[_Image] = None) -> Tensor:
    """torchvision's adjust_hue: RGB -> HSV in float32 (integers scaled by 1/bound), h = (h + factor) mod 1,
    back to RGB (uint8: trunc(v * 255.999); uint16: min(trunc(v * 65536), 65535)). factor in [-0.5, 0.5].
    A 1-channel image is unchanged."""


def rgb_to_grayscale(imtensor: _Image, num_output_channels: int = 1,
                     out: Optional[_Image] = None) -> Tensor:
    """torchvision's rgb_to_grayscale: 0.2989 R + 0.587 G + 0.114 B in float32 (truncated for integers), in 1 or
    3 identical channels. A 1-channel input is copied (or repeated). uint8, uint16 or float32."""


def invert(imtensor: _Image, out: Optional[_Image] = None) -> Tensor:
    """torchvision's invert: 255 - x for uint8 (65535 - x for uint16), 1.0 - x for float32 and float64
    (torchvision's bound for floats is 1.0; values outside [0, 1] are not clamped), per value.
    imtensor: an image (H, W), (H, W, C), (C, H, W) or a batch (N, H, W, C), (N, C, H, W), any channel
    count, any strides; a Tensor or an array (numpy, torch, DLPack, buffer), used without a copy. Its
    layout string, when it has one, must be one of those and is kept. out may be imtensor (in place).
    Returns the new tensor if out is None, else out."""


def posterize(imtensor: _Image, bits: Union[int, Sequence[int], _NDArray, "Tensor"],
              out: Optional[_Image] = None) -> Tensor:
    """torchvision's posterize: an integer keeps its high `bits` bits (x & mask; bits >= 8 leaves uint8 unchanged,
    >= 16 uint16), a float becomes clamp(floor(x * 2**bits), 0, 2**bits - 1) / 2**bits in its own type.
    imtensor: an image of any layout or a batch, as for invert (out likewise). bits: an int in [0, 32], or
    one per image of an (N, ., ., .) batch (a sequence, array or tensor of N ints).
    Returns the new tensor if out is None, else out."""


def solarize(imtensor: _Image, threshold: _ParamLike, out: Optional[_Image] = None) -> Tensor:
    """torchvision's solarize: x >= threshold ? invert(x) : x (compared in float32 for integer and float32
    images, as torch compares an image with a Python float).
    imtensor: an image of any layout or a batch, as for invert (out likewise). threshold: a number <= the
    dtype's largest value (255 for uint8, 65535 for uint16, 1.0 for floats), or one per image of an
    (N, ., ., .) batch. Returns the new tensor if out is None, else out."""


def equalize(imtensor: _Image, out: Optional[_Image] = None) -> Tensor:
    """torchvision's equalize, per channel: a 256-bin histogram, then PIL's lookup table (a channel with
    fewer than 255 values below its highest level is kept). float32 is binned as trunc(x * 255.999)
    (outside [0, 1]: clamped) and comes back as level / 255. uint16: 65536 bins, level k ->
    min((cum[k - 1] * 65535 + d // 2) // d, 65535), d the values below the highest level (d = 0: kept).
    imtensor: uint8, uint16 or float32, (H, W), (C, H, W), (H, W, C) or a batch (N, C, H, W), (N, H, W, C), any
    channel count, any strides; its layout string says where the channels are (without one: channels
    first, as torchvision) and is kept. out may be imtensor (in place).
    Returns the new tensor if out is None, else out."""


def autocontrast(imtensor: _Image, out: Optional[_Image] = None) -> Tensor:
    """torchvision's autocontrast, per channel: (x - min) / ((max - min) * (1 / bound)) in float32, clamped
    to [0, bound] (255 for uint8, 65535 for uint16, truncated; 1.0 for float32); a flat channel is kept, a NaN makes its
    channel NaN. imtensor and out as for equalize. Returns the new tensor if out is None, else out."""


def adjust_sharpness(imtensor: _Image, sharpness_factor: _ParamLike, out: Optional[_Image] = None) -> Tensor:
    """torchvision's adjust_sharpness, per channel: each interior value x becomes x + (1 - f) * (blurred - x),
    blurred its 3 x 3 smoothing (1/13 around 5/13; rounded for integers), clamped to [0, bound]; the border
    is kept (clamped), a channel of at most 2 rows or columns returned as it is. sharpness_factor: a
    finite number >= 0 (0 blurs, 1 keeps, 2 sharpens), or one per image of an (N, ., ., .) batch.
    imtensor and out as for equalize. Returns the new tensor if out is None, else out."""


def rgb_to_hsv(imtensor: _Image, out: Optional[_Image] = None) -> Tensor:
    """float32 RGB (C = 3) to HSV (h in [0, 1), s in [0, 1], v = max(R, G, B)), torchvision's _rgb_to_hsv.
    imtensor: (3, H, W) or (N, 3, H, W), channels first. Returns a new tensor, or out."""


def hsv_to_rgb(imtensor: _Image, out: Optional[_Image] = None) -> Tensor:
    """float32 HSV (C = 3) to RGB, torchvision's _hsv_to_rgb (p, q, t clamped to [0, 1]).
    imtensor: (3, H, W) or (N, 3, H, W), channels first. Returns a new tensor, or out."""


def color_jitter(imtensor: _Image, brightness: _FactorsLike = None, contrast: _FactorsLike = None,
                 saturation: _FactorsLike = None, hue: _FactorsLike = None,
                 order: Optional[Union[Sequence[Sequence[int]], _NDArray]] = None,
                 out: Optional[_Image] = None, gammagrays: _FactorsLike = None,
                 gammacolors: Optional[Union[Sequence[float], Sequence[Sequence[float]], _NDArray]] = None,
                 contrasts: _FactorsLike = None, vmin: Optional[float] = None,
                 vmax: Optional[float] = None) -> Tensor:
    """ColorJitter on a batch in one pass: image n gets brightness[n], contrast[n], saturation[n], hue[n]
    (sequences of N factors; None skips the step) in the order order[n] (N rows, each a permutation of
    0 brightness, 1 contrast, 2 saturation, 3 hue; None: 0, 1, 2, 3), each step exactly as adjust_*.
    With gammagrays (N), gammacolors (N*C or (N, C)), contrasts (N) and vmin, vmax (all five or none),
    augpy.lighting of the result in the same pass (the values as float32, so the result is exactly
    color_jitter then lighting). out may be imtensor (in place). Returns the new tensor if out is None,
    else out. imtensor and out may be arrays (numpy, torch, DLPack, buffer), used without a copy, as in
    every colour function; an image laid out (its layout string or its shape) other than NCHW / CHW (an
    NHWC batch) is a ValueError."""


def color_jitter_params(rng: Union[RandomNumberGenerator, _RngStates], n: int, brightness: _RangeLike = None,
                        contrast: _RangeLike = None, saturation: _RangeLike = None, hue: _RangeLike = None,
                        random_order: bool = True) -> Dict[str, Any]:
    """ColorJitter's parameters for n images from a RandomNumberGenerator (one uniform fill of n * 7 values),
    or from a sequence of n (seed, calls) generator states, image k drawn from states[k] alone (as image 0
    of a generator at that state; none is advanced):
    brightness/contrast/saturation v -> factor uniform in [max(0, 1 - v), 1 + v], hue v -> [-v, v], or
    (min, max) pairs; None (or a range (1, 1) / (0, 0) for hue) is not sampled. Returns a dict with
    'brightness', 'contrast', 'saturation', 'hue' (lists of n floats or None) and 'order' (n tuples, a
    random permutation of (0, 1, 2, 3) each, or (0, 1, 2, 3) when random_order is false), ready for
    color_jitter(im, **params)."""


# ---- RandomResizedCrop and decode plans (rrc.c; public wrappers in augpy.rrc) ----------------------

def _random_resized_crop(rng: Union[RandomNumberGenerator, _RngStates], heights: Sequence[int], widths: Sequence[int],
                         out_height: int, out_width: int, scale: Sequence[float], ratio: Sequence[float],
                         hflip: float, max_supersampling: int, dct_scale: bool, roi: bool) -> List[Any]:
    """aug_random_resized_crop: per image (crop, hflip, matrix, supersampling, (scale_m, roi, matrix, supersampling)); rng may also be a sequence of n (seed, calls) states, one per image (aug_random_resized_crop_states). Use augpy.random_resized_crop."""


def _plan_decode(matrix: Sequence[float], src_height: int, src_width: int, out_height: int, out_width: int,
                 supersampling: int, dct_scale: Union[bool, int], roi: bool) -> Tuple[int, Tuple[int, int, int, int],
                                                                                Tuple[float, ...], int]:
    """aug_plan_decode (dct_scale a bool) or aug_plan_decode_at (dct_scale the scale M: 1, 2, 4 or 8):
    (scale_m, roi, matrix, supersampling). Use augpy.plan_decode."""


def _resize_center_crop_matrix(src_height: int, src_width: int, resize: int, out_height: int, out_width: int,
                               max_supersampling: int) -> Tuple[Tuple[float, ...], int]:
    """aug_resize_center_crop_matrix: (matrix, supersampling). Use augpy.resize_center_crop_matrix."""
