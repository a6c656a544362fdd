"""Type stubs for augpy: tensors, dtypes, conversions, DLPack and devices.

The functional API, augpy.Constant, reductions and the math functions (ops.c,
reduce.c, mathfuncs.c, create.c) are typed loosely through the module-level
``__getattr__`` at the end; the Tensor's operators and op methods are listed on
the class so that arithmetic on tensors type-checks.
"""
import builtins
import enum
from types import TracebackType
from typing import Any, Iterator, List, Optional, Sequence, Tuple, Type, Union, overload

import numpy

from . import math as math
from . import numeric_limits as numeric_limits

__version__: str

_Shape = Union[int, Sequence[int]]
_DTypeLike = Union["DLDataType", type, numpy.dtype, str]
_Scalar = Union[bool, int, float, numpy.generic]
_Operand = Union["CudaTensor", _Scalar, Any]

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


class DLDataType:
    """DLPack data type of tensors; one object per supported type (``augpy.uint8``, ...).

    ``DLDataType(code, bits, lanes=1)`` returns that object; unsupported combinations
    raise TypeError. Equal objects are identical; hashable and picklable.
    """

    def __new__(cls, code: int, bits: int, lanes: int = 1) -> "DLDataType": ...
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


def _cast_limits(src: _DTypeLike, dst: _DTypeLike) -> Tuple[Optional[Union[int, float]], Optional[Union[int, float]]]:
    """Raw CAST_LIMITS entry; see augpy.numeric_limits."""

# ---- tensors ------------------------------------------------------------------------------


class CudaTensor:
    """augpy's tensor: a DLPack-compatible strided view over reference-counted memory.

    ``CudaTensor(shape, dtype=uint8, device_id=0)`` allocates uninitialised memory on the
    default device (cuda:0 when available, else the CPU). NumPy basic indexing,
    saturating broadcasting math, the buffer protocol (CPU tensors) and DLPack.
    """

    def __new__(cls, shape: _Shape, dtype: Optional[_DTypeLike] = ..., device_id: int = 0) -> "CudaTensor": ...
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
    layout: str
    """DALI layout string ('HWC', ...) or ''; settable."""

    def reshape(self, *shape: Union[int, Sequence[int]]) -> "CudaTensor":
        """View with a new shape (one -1 inferred); contiguous tensors only."""
    def contiguous(self) -> "CudaTensor":
        """self if C-contiguous, else a packed copy."""
    def numpy(self, array: Any = None, blocking: bool = True) -> numpy.ndarray:
        """Copy into a new numpy array, or into the writable buffer ``array``."""
    def __array__(self, dtype: Any = None, copy: Optional[bool] = None) -> numpy.ndarray: ...
    def __dlpack__(self, *, stream: Optional[int] = None, max_version: Optional[Tuple[int, int]] = None,
                   dl_device: Optional[Tuple[int, int]] = None, copy: Optional[bool] = None) -> Any:
        """DLPack capsule (versioned when max_version >= (1, 0))."""
    def __dlpack_device__(self) -> Tuple[int, int]: ...
    def __getitem__(self, key: Any) -> "CudaTensor": ...
    def __setitem__(self, key: Any, value: _Operand) -> None: ...
    def __len__(self) -> int: ...
    def __iter__(self) -> Iterator["CudaTensor"]: ...
    def __bool__(self) -> bool: ...
    def __int__(self) -> int: ...
    def __float__(self) -> float: ...
    def __index__(self) -> int: ...
    def __buffer__(self, flags: int) -> memoryview: ...

    # Operators and op methods (ops.c, reduce.c, mathfuncs.c).
    def fill(self, value: _Operand, blocks_per_sm: int = 8, threads: int = 0) -> "CudaTensor": ...
    def sum(self, *args: Any, **kwargs: Any) -> "CudaTensor": ...
    def min(self, *args: Any, **kwargs: Any) -> "CudaTensor": ...
    def max(self, *args: Any, **kwargs: Any) -> "CudaTensor": ...
    def mean(self, *args: Any, **kwargs: Any) -> "CudaTensor": ...
    def all(self, *args: Any, **kwargs: Any) -> "CudaTensor": ...
    def any(self, *args: Any, **kwargs: Any) -> "CudaTensor": ...
    def __getattr__(self, name: str) -> Any: ...
    def __add__(self, other: _Operand) -> "CudaTensor": ...
    def __radd__(self, other: _Operand) -> "CudaTensor": ...
    def __sub__(self, other: _Operand) -> "CudaTensor": ...
    def __rsub__(self, other: _Operand) -> "CudaTensor": ...
    def __mul__(self, other: _Operand) -> "CudaTensor": ...
    def __rmul__(self, other: _Operand) -> "CudaTensor": ...
    def __truediv__(self, other: _Operand) -> "CudaTensor": ...
    def __rtruediv__(self, other: _Operand) -> "CudaTensor": ...
    def __floordiv__(self, other: _Operand) -> "CudaTensor": ...
    def __rfloordiv__(self, other: _Operand) -> "CudaTensor": ...
    def __mod__(self, other: _Operand) -> "CudaTensor": ...
    def __rmod__(self, other: _Operand) -> "CudaTensor": ...
    def __pow__(self, other: _Operand) -> "CudaTensor": ...
    def __rpow__(self, other: _Operand) -> "CudaTensor": ...
    def __and__(self, other: _Operand) -> "CudaTensor": ...
    def __or__(self, other: _Operand) -> "CudaTensor": ...
    def __xor__(self, other: _Operand) -> "CudaTensor": ...
    def __lshift__(self, other: _Operand) -> "CudaTensor": ...
    def __rshift__(self, other: _Operand) -> "CudaTensor": ...
    def __matmul__(self, other: "CudaTensor") -> "CudaTensor": ...
    def __iadd__(self, other: _Operand) -> "CudaTensor": ...
    def __isub__(self, other: _Operand) -> "CudaTensor": ...
    def __imul__(self, other: _Operand) -> "CudaTensor": ...
    def __itruediv__(self, other: _Operand) -> "CudaTensor": ...
    def __neg__(self) -> "CudaTensor": ...
    def __pos__(self) -> "CudaTensor": ...
    def __abs__(self) -> "CudaTensor": ...
    def __invert__(self) -> "CudaTensor": ...
    def __eq__(self, other: object) -> "CudaTensor": ...  # type: ignore[override]
    def __ne__(self, other: object) -> "CudaTensor": ...  # type: ignore[override]
    def __lt__(self, other: _Operand) -> "CudaTensor": ...
    def __le__(self, other: _Operand) -> "CudaTensor": ...
    def __gt__(self, other: _Operand) -> "CudaTensor": ...
    def __ge__(self, other: _Operand) -> "CudaTensor": ...


Tensor = CudaTensor


def array_to_tensor(array: Any, device_id: Union[int, CudaTensor] = 0, tensor: Optional[CudaTensor] = None) -> CudaTensor:
    """Copy a buffer / array-like into a new tensor on ``device_id``, or into ``tensor``."""


def tensor_to_array(tensor: CudaTensor, array: Any = None) -> numpy.ndarray:
    """Copy a tensor into a new numpy array, or into the writable buffer ``array``."""


def empty_like(tensor: CudaTensor, dtype: Optional[_DTypeLike] = None) -> CudaTensor:
    """New uninitialised tensor with the shape, device and (unless given) dtype of ``tensor``."""

# ---- DLPack -------------------------------------------------------------------------------------


def export_dltensor(tensor: CudaTensor, name: str = "dltensor", destruct: bool = True) -> Any:
    """Export as a DLPack capsule stored under ``name`` (zero copy)."""


def import_dltensor(tensor_capsule: Any, name: str = "dltensor") -> CudaTensor:
    """Wrap the tensor in a DLPack capsule (zero copy); the capsule is renamed 'used_...'."""


def from_dlpack(x: Any, *, device: Optional[str] = None, copy: Optional[bool] = None) -> CudaTensor:
    """Zero-copy tensor over any ``__dlpack__`` producer or DLPack capsule."""

# ---- devices ------------------------------------------------------------------------------------


class CudaDevice:
    """A compute device (only device 0 on the CPU backend); a context manager."""

    def __init__(self, device_id: int = 0) -> None: ...
    def activate(self) -> None: ...
    def deactivate(self) -> None: ...
    def get_device(self) -> int: ...
    def get_properties(self) -> "CudaDeviceProp": ...
    def synchronize(self) -> None: ...
    def __enter__(self) -> "CudaDevice": ...
    def __exit__(self, t: Optional[Type[BaseException]], v: Optional[BaseException],
                 tb: Optional[TracebackType]) -> None: ...


class CudaStream:
    """A computation stream; ``CudaStream(-1, -1)`` is ``default_stream``. A context manager."""

    device_id: int
    priority: int

    def __init__(self, device_id: int = 0, priority: int = 0) -> None: ...
    def activate(self) -> None: ...
    def deactivate(self) -> None: ...
    def synchronize(self, microseconds: int = 100) -> None: ...
    def query(self) -> bool: ...
    def __enter__(self) -> "CudaStream": ...
    def __exit__(self, t: Optional[Type[BaseException]], v: Optional[BaseException],
                 tb: Optional[TracebackType]) -> None: ...


class CudaEvent:
    """An event on the current stream (on the CPU always occurred)."""

    def record(self) -> None: ...
    def query(self) -> bool: ...
    def synchronize(self, microseconds: int = 100) -> None: ...


class CudaDeviceProp:
    """cudaDeviceProp fields plus stream priorities, cores per SM and maxGridSize.

    On the CPU: name from /proc/cpuinfo, multiProcessorCount = numCudaCores = usable
    cores, totalGlobalMem = host memory, warp/thread sizes 1, the rest 0.
    """

    name: str
    totalGlobalMem: int
    sharedMemPerBlock: int
    sharedMemPerMultiprocessor: int
    totalConstMem: int
    l2CacheSize: int
    major: int
    minor: int
    multiProcessorCount: int
    coresPerMultiprocessor: int
    coresPerSM: int
    numCudaCores: int
    warpSize: int
    maxThreadsPerBlock: int
    maxThreadsPerMultiProcessor: int
    maxThreadsDim: Tuple[int, int, int]
    maxGridSize: Tuple[int, int, int]
    regsPerBlock: int
    regsPerMultiprocessor: int
    leastStreamPriority: int
    greatestStreamPriority: int
    streamPrioritiesSupported: bool


default_stream: CudaStream


def get_current_device() -> int:
    """The active device ID of this thread."""


def get_current_stream() -> CudaStream:
    """The active stream of this thread."""


def get_device_properties(device_id: int = ...) -> CudaDeviceProp:
    """Properties of a device."""


def meminfo(device_id: int = 0) -> Tuple[int, int, int]:
    """(used, free, total) memory of the device in bytes (CPU: host memory)."""


def release() -> None:
    """Release cached device memory (no-op on the CPU)."""


def synchronize(device_id: Optional[int] = None) -> None:
    """Wait for all work on the device (no-op on the CPU)."""


def get_num_threads() -> int:
    """Worker threads of the CPU backend."""


def set_num_threads(n: int) -> None:
    """Set the CPU worker count; n <= 0 restores the default."""

# ---- image: lighting and blur (SPEC 13) -------------------------------------------------------

_ParamLike = Union[CudaTensor, Sequence[float], Any]  # float32 tensor, numpy array or sequence


def lighting(imtensor: CudaTensor, gammagrays: _ParamLike, gammacolors: _ParamLike, contrasts: _ParamLike,
             vmin: float, vmax: float, out: Optional[CudaTensor] = None) -> CudaTensor:
    """Contrast and gamma per image/channel of an (N, C, H, W) (or (C, H, W)) batch; out may be imtensor."""


def box_blur_single(input: CudaTensor, ksize: int, out: Optional[CudaTensor] = None) -> CudaTensor:
    """Mean over the ksize x ksize window of a (C, H, W) image, edges replicated."""


def gaussian_blur_single(input: CudaTensor, sigma: float, out: Optional[CudaTensor] = None) -> CudaTensor:
    """Gaussian blur of a (C, H, W) image; ksize = max(3, int(sigma*6.6 - 2.3) | 1); sigma <= 0 copies."""


def gaussian_blur(input: CudaTensor, sigmas: _ParamLike, max_ksize: int,
                  out: Optional[CudaTensor] = None) -> CudaTensor:
    """Gaussian blur of an (N, C, H, W) batch, one sigma per image, ksize clipped at max_ksize."""

# ---- reshape (DALI fn.reshape, reshape.c) -----------------------------------------------------------

_ShapeArg = Union[int, Sequence[int], Sequence[Sequence[int]], "CudaTensor", numpy.ndarray]
_RelShapeArg = Union[float, Sequence[float], Sequence[Sequence[float]], "CudaTensor", numpy.ndarray]


@overload
def reshape(data: CudaTensor, shape_input: Optional[_ShapeArg] = None, *, shape: Optional[_ShapeArg] = None,
            rel_shape: Optional[_RelShapeArg] = None, src_dims: Optional[Union[int, Sequence[int]]] = None,
            layout: Optional[str] = None, dtype: Optional[_DTypeLike] = None) -> CudaTensor: ...
@overload
def reshape(data: Sequence[CudaTensor], shape_input: Optional[_ShapeArg] = None, *,
            shape: Optional[_ShapeArg] = None, rel_shape: Optional[_RelShapeArg] = None,
            src_dims: Optional[Union[int, Sequence[int]]] = None, layout: Optional[str] = None,
            dtype: Optional[_DTypeLike] = None) -> List[CudaTensor]: ...
def reshape(data: Any, shape_input: Any = None, *, shape: Any = None, rel_shape: Any = None,
            src_dims: Any = None, layout: Optional[str] = None, dtype: Optional[_DTypeLike] = None) -> Any:
    """DALI's fn.reshape: a view (no copy) of a contiguous tensor, or of each tensor of a
    list, with a new shape (one negative extent inferred), relative shape, src_dims mapping,
    layout and/or reinterpreted dtype. A 2-D shape argument gives one row per sample."""
# ---- random numbers (random.c) --------------------------------------------------------------


class RandomNumberGenerator:
    """Counter-based Philox-4x32-10 generator (SPEC 11): element i of the n-th fill draws
    from counter (i, n) under key seed, so results never depend on threads, strides or backend."""
    def __init__(self, device_id: Optional[int] = None, seed: Optional[int] = None) -> None: ...
    @property
    def seed(self) -> int: ...
    @property
    def device_id(self) -> int: ...
    def uniform(self, target: Union["CudaTensor", numpy.ndarray], vmin: float, vmax: float,
                blocks_per_sm: int = 8, threads: int = 0) -> None:
        """Fill target with values uniform in [vmin, vmax) (integers: every integer equally likely)."""
    def gaussian(self, target: Union["CudaTensor", numpy.ndarray], mean: float = 0.0, std: float = 1.0,
                 blocks_per_sm: int = 8, threads: int = 0) -> None:
        """Fill target with normal values (Box-Muller); integers round half to even and saturate."""
    def get_state(self) -> Tuple[int, int]:
        """(seed, calls): set_state of it replays the following fills."""
    def set_state(self, state: Tuple[int, int]) -> None: ...
    def __reduce__(self) -> Any: ...
    def __setstate__(self, state: Tuple[int, int]) -> None: ...

# ---- exceptions -----------------------------------------------------------------------------------


class CudaError(RuntimeError): ...
class CuRandError(RuntimeError): ...
class CuBlasError(RuntimeError): ...
class MemoryError(builtins.MemoryError): ...
class NvJpegError(RuntimeError): ...


JpegError = NvJpegError

# ---- JPEG decoding (jpeg) -------------------------------------------------------------------------

_Bytes = Union[bytes, bytearray, memoryview, numpy.ndarray]


class Decoder:
    """JPEG decoder on the current device (CPU: libjpeg-turbo). One per thread for parallel decoding."""

    device_padding: int
    host_padding: int
    gpu_huffman: bool

    def __init__(self, device_padding: int = 16777216, host_padding: int = 8388608,
                 gpu_huffman: bool = False) -> None: ...

    def decode(self, data: _Bytes, buffer: Optional[CudaTensor] = None) -> CudaTensor:
        """Decode to an (H, W, 3) uint8 RGB tensor with layout 'HWC' (pixels equal Pillow's
        convert('RGB')). buffer: contiguous uint8 tensor of >= H*W*3 elements; the result shares it.
        Raises NvJpegError on corrupt data, ValueError/TypeError on a bad buffer."""


def jpeg_info(data: _Bytes) -> Tuple[int, int]:
    """(height, width) of a JPEG from its header."""



# ---- affine warp (warp.c) -------------------------------------------------------------------------


class WarpScaleMode:
    """Enum whether to scale relative to the shortest or longest side of the image.

    ``WarpScaleMode(0)`` is ``WARP_SCALE_SHORTEST``, ``WarpScaleMode(1)`` is ``WARP_SCALE_LONGEST``.
    """

    WARP_SCALE_SHORTEST: "WarpScaleMode"
    WARP_SCALE_LONGEST: "WarpScaleMode"
    __members__: Any

    def __new__(cls, value: int) -> "WarpScaleMode": ...
    @property
    def name(self) -> str: ...
    @property
    def value(self) -> int: ...
    def __int__(self) -> int: ...
    def __index__(self) -> int: ...


WARP_SCALE_SHORTEST: WarpScaleMode
WARP_SCALE_LONGEST: WarpScaleMode

_ScaleModeLike = Union[str, int, WarpScaleMode]


def make_affine_matrix(out: Any, source_height: int, source_width: int, target_height: int, target_width: int,
                       angle: float = 0.0, scale: float = 1.0, aspect: float = 1.0, shifty: float = 0.0,
                       shiftx: float = 0.0, sheary: float = 0.0, shearx: float = 0.0, hmirror: bool = False,
                       vmirror: bool = False, scale_mode: _ScaleModeLike = ...,
                       max_supersampling: int = 3) -> int:
    """Write the 2x3 inverse map into the writable float32 (2, 3) buffer `out`; returns the recommended supersampling."""


def make_transform(source_size: Sequence[int], target_size: Sequence[int], angle: float = 0, scale: float = 1,
                   aspect: float = 1, shift: Optional[Sequence[float]] = None, shear: Optional[Sequence[float]] = None,
                   hmirror: bool = False, vmirror: bool = False, scale_mode: _ScaleModeLike = "shortest",
                   max_supersampling: int = 3, out: Optional[numpy.ndarray] = None,
                   **_: Any) -> Tuple[numpy.ndarray, int]:
    """(matrix, supersampling) for make_affine_matrix's parameters; unknown keyword arguments are ignored."""


def warp_affine(src: Union[CudaTensor, Sequence[CudaTensor]], dst: CudaTensor, matrix: Any,
                background: Any = None, supersampling: Union[int, Sequence[int]] = 1) -> None:
    """Affine warp of (H, W, C) image(s) into (C, Ht, Wt) / (N, C, Ht, Wt) with bilinear supersampling."""


def __getattr__(name: str) -> Any:
    """Functional API, reductions, Constant, creation helpers (typed loosely)."""
