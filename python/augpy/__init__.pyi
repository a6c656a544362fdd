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
from ._augpy import MemoryError as MemoryError
from ._augpy import all as all
from ._augpy import any as any
from ._augpy import max as max
from ._augpy import min as min
from ._augpy import sum as sum
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
from ._affine import affine as affine
from ._affine import rotate as rotate
from ._pad import pad as pad
from ._crop import five_crop as five_crop
from ._crop import random_crop as random_crop
from ._crop import ten_crop as ten_crop
from ._perspective import perspective as perspective
from ._perspective import perspective_coeffs as perspective_coeffs
from ._perspective import perspective_matrix as perspective_matrix
from ._perspective import warp_perspective as warp_perspective

# `from augpy import *`: every public name except all, any, min, max, sum and
# MemoryError (they would shadow builtins) and math (the standard library's module):
# the extension's (its __all__) and the Python modules' below.
from ._augpy import __all__ as __all__
__all__ += [
    "JpegError", "image", "numeric_limits", "data", "targets", "transform_boxes", "transform_boxes_batch",
    "transform_keypoints", "transform_keypoints_batch", "rrc", "plan_decode", "random_resized_crop",
    "resize_center_crop_matrix", "sample_rng_states", "affine", "rotate", "pad", "random_crop", "five_crop",
    "ten_crop",
    "perspective", "perspective_coeffs", "perspective_matrix",
]
