"""Type stubs for augpy: everything comes from the C extension (augpy/_augpy.pyi) and is
re-exported here, plus the aliases ``CudaTensor`` (= Tensor, the manual's name) and ``JpegError``
(= NvJpegError) and the submodules ``image``, ``math`` and ``numeric_limits``."""
from . import image as image
from . import math as math
from . import numeric_limits as numeric_limits
from . import data as data
from . import targets as targets
from .targets import transform_boxes as transform_boxes
from .targets import transform_boxes_batch as transform_boxes_batch
from .targets import transform_keypoints as transform_keypoints
from .targets import transform_keypoints_batch as transform_keypoints_batch
from . import rrc as rrc
from .rrc import plan_decode as plan_decode
from .rrc import random_resized_crop as random_resized_crop
from .rrc import resize_center_crop_matrix as resize_center_crop_matrix
from .rrc import sample_rng_states as sample_rng_states
from ._augpy import *
from ._augpy import Tensor as Tensor
from ._augpy import CudaTensor as CudaTensor
from ._augpy import NvJpegError as NvJpegError
from ._augpy import DecodeError as DecodeError
from ._augpy import __version__ as __version__

JpegError = NvJpegError

# the geometric ops with targets= (augpy/_geometry.py): with targets they return
# (result, moved targets) (warp_affine: the moved targets)
from ._geometry import center_crop as center_crop
from ._geometry import crop as crop
from ._geometry import flip as flip
from ._geometry import hflip as hflip
from ._geometry import resize as resize
from ._geometry import vflip as vflip
from ._geometry import warp_affine as warp_affine

# `from augpy import *`: every public name except all, any, min, max, sum and
# MemoryError (they would shadow builtins) and math (the standard library's module).
__all__ = [
    "Constant", "CuBlasError", "CuRandError", "CudaDevice", "CudaDeviceProp", "CudaError", "CudaEvent",
    "CudaStream", "CudaTensor", "DLDataType", "DLDataTypeCode", "DecodeError", "Decoder", "JpegError", "NvJpegError",
    "RandomNumberGenerator", "Tensor", "WARP_SCALE_LONGEST", "WARP_SCALE_SHORTEST", "WarpScaleMode", "add",
    "arange", "argmax", "argmin", "array_to_tensor", "asarray", "bfloat16", "bool_", "box_blur_single", "cast", "concatenate",
    "copy", "crop_mirror_normalize", "cuda_status", "default_stream", "div", "empty", "empty_like", "eq", "export_dltensor", "fill",
    "float16", "float32", "float64", "fma", "from_dlpack", "full", "full_like", "gaussian_blur",
    "gaussian_blur_single", "ge", "gemm", "get_current_device", "get_current_stream", "get_device_properties",
    "get_num_threads", "get_thread_num_threads", "gt", "image", "import_dltensor", "int16", "int32", "int64", "int8", "jpeg_info", "le",
    "lighting", "lt", "make_affine_matrix", "make_transform", "mean", "meminfo", "mul", "ne",
    "numeric_limits", "ones", "ones_like", "rdiv", "release", "reshape", "rsub", "set_num_threads", "set_thread_num_threads", "stack",
    "sub", "swap_dtype", "synchronize", "tensor", "tensor_to_array", "to_augpy_dtype", "to_numpy_dtype",
    "to_temp_dtype", "uint16", "uint32", "uint64", "uint8", "warp_affine", "where", "zeros", "zeros_like",
    "data", "targets", "transform_boxes", "transform_boxes_batch", "transform_keypoints", "transform_keypoints_batch",
    "resize", "resize_batch", "flip", "hflip", "vflip", "crop", "center_crop", "flip_batch", "image_dims",
    "adjust_brightness", "adjust_contrast", "adjust_saturation", "adjust_hue", "rgb_to_grayscale", "rgb_to_hsv",
    "hsv_to_rgb", "color_jitter", "color_jitter_params", "invert",
    "rrc", "plan_decode", "random_resized_crop", "resize_center_crop_matrix", "sample_rng_states",
    "stream_seed", "sample_id",
]
