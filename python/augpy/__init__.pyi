"""Type stubs for augpy: everything comes from the C extension (augpy/_augpy.pyi) and is
re-exported here, plus the aliases ``Tensor`` (= CudaTensor) and ``JpegError``
(= NvJpegError) and the submodules ``image``, ``math`` and ``numeric_limits``."""
from . import image as image
from . import math as math
from . import numeric_limits as numeric_limits
from ._augpy import *
from ._augpy import CudaTensor as CudaTensor
from ._augpy import NvJpegError as NvJpegError
from ._augpy import __version__ as __version__

Tensor = CudaTensor
JpegError = NvJpegError
