"""Stubs of augpy/_geometry.py: the geometric ops with targets=."""
from typing import Any, Dict, Optional, Sequence, SupportsIndex, Tuple, Union

from ._augpy import CudaTensor

_Targets = Optional[Dict[str, Any]]
_SizeLike = Union[SupportsIndex, Sequence[SupportsIndex]]


def resize(image: CudaTensor, size: _SizeLike, interpolation: str = "bilinear", antialias: bool = True,
           layout: Optional[str] = None, out: Optional[CudaTensor] = None, *, targets: _Targets = None) -> Any:
    """augpy.resize; with targets: (resized, moved targets)."""
def flip(image: CudaTensor, horizontal: bool = True, vertical: bool = False, layout: Optional[str] = None, *,
         targets: _Targets = None) -> Any:
    """augpy.flip; with targets: (view, moved targets)."""
def hflip(image: CudaTensor, layout: Optional[str] = None, *, targets: _Targets = None) -> Any:
    """augpy.hflip; with targets: (view, moved targets)."""
def vflip(image: CudaTensor, layout: Optional[str] = None, *, targets: _Targets = None) -> Any:
    """augpy.vflip; with targets: (view, moved targets)."""
def crop(image: CudaTensor, y: SupportsIndex, x: SupportsIndex, h: SupportsIndex, w: SupportsIndex,
         layout: Optional[str] = None, *, targets: _Targets = None) -> Any:
    """augpy.crop; with targets: (view, moved targets)."""
def center_crop(image: CudaTensor, size: _SizeLike, layout: Optional[str] = None, *,
                targets: _Targets = None) -> Any:
    """augpy.center_crop; with targets: (result, moved targets)."""
def warp_affine(src: Union[CudaTensor, Sequence[CudaTensor]], dst: CudaTensor, matrix: Any, background: Any = None,
                supersampling: Union[int, Sequence[int]] = 1, *, interpolation: str = "linear",
                border: str = "constant", layout: Optional[str] = None, src_layout: Optional[str] = None,
                targets: _Targets = None) -> Any:
    """augpy.warp_affine; with targets (one source image): the moved targets."""
