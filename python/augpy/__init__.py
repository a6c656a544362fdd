"""augpy: saturating tensor math and image augmentation over the aug C library.

Everything is implemented in the C extension ``augpy._augpy`` and re-exported here;
``augpy.Tensor`` is ``augpy.CudaTensor`` and ``augpy.JpegError`` is
``augpy.NvJpegError``. ``augpy.math`` holds the DALI math functions and
``augpy.numeric_limits`` the saturating-cast limits.
"""
from ._augpy import *  # noqa: F401,F403
from ._augpy import CudaTensor, NvJpegError, __version__  # noqa: F401

Tensor = CudaTensor
JpegError = NvJpegError

from . import image, math, numeric_limits  # noqa: E402,F401
