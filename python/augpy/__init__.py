"""augpy: saturating tensor math and image augmentation over the aug C library.

Everything is implemented in the C extension ``augpy._augpy`` and re-exported here;
``augpy.Tensor`` is the tensor class (``augpy.CudaTensor``, the manual's name, is the same
class) and ``augpy.JpegError`` is
``augpy.NvJpegError``. ``augpy.math`` holds the DALI math functions and
``augpy.numeric_limits`` the saturating-cast limits. ``augpy.targets`` moves boxes and
keypoints with a warp matrix, ``augpy.data`` reads folders and tar shards;
``augpy.torch`` and ``augpy.ray`` (imported only on request: they import torch / ray)
adapt the batch stages to PyTorch DataLoaders and Ray Data.

``from augpy import *`` imports ``__all__``: every public name except those that
would shadow a builtin (``all``, ``any``, ``min``, ``max``, ``sum``, ``MemoryError``)
and the submodule ``math`` (it would shadow the standard library's); use them as
``augpy.sum``, ``augpy.MemoryError``, ``augpy.math``.
"""
from ._augpy import *  # noqa: F401,F403
from ._augpy import CudaTensor, NvJpegError, Tensor, __version__  # noqa: F401
# the names that shadow builtins: augpy.sum, ..., left out of __all__ (the extension's too)
from ._augpy import MemoryError, all, any, max, min, sum  # noqa: F401,E402

JpegError = NvJpegError

from . import image, math, numeric_limits  # noqa: E402,F401
from . import _augpy  # noqa: E402
from . import data, targets  # noqa: E402,F401
from .targets import (transform_boxes, transform_boxes_batch, transform_keypoints,  # noqa: E402,F401
                      transform_keypoints_batch)
from . import rrc  # noqa: E402,F401
from .rrc import plan_decode, random_resized_crop, resize_center_crop_matrix, sample_rng_states  # noqa: E402,F401
# the geometric ops with targets= (the extension's functions plus masks, boxes, keypoints)
from ._geometry import center_crop, crop, flip, hflip, resize, vflip, warp_affine  # noqa: E402,F401
# torchvision's affine and rotate over warp_affine (augpy/_affine.py)
from ._affine import affine, rotate  # noqa: E402,F401
# torchvision's pad, random crop and five / ten crops (augpy/_pad.py, augpy/_crop.py)
from ._pad import pad  # noqa: E402,F401
from ._crop import five_crop, random_crop, ten_crop  # noqa: E402,F401
# the perspective warp with targets=, torchvision's perspective (augpy/_perspective.py)
from ._perspective import perspective, perspective_coeffs, perspective_matrix, warp_perspective  # noqa: E402,F401

__all__ = sorted(_augpy.__all__
                 + ["JpegError", "image", "numeric_limits"]
                 + ["data", "targets", "transform_boxes", "transform_boxes_batch", "transform_keypoints",
                    "transform_keypoints_batch"]
                 + ["rrc", "plan_decode", "random_resized_crop", "resize_center_crop_matrix", "sample_rng_states"]
                 + ["affine", "rotate"]
                 + ["pad", "random_crop", "five_crop", "ten_crop"]
                 + ["perspective", "perspective_coeffs", "perspective_matrix"])
