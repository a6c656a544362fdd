"""Stubs of augpy/_geometry.py: the geometric ops with targets= (an unknown targets key is a
TypeError; the runtime docstrings are the extension's plus the targets= paragraph)."""
from typing import Any, Dict, Optional, Sequence, SupportsIndex, Tuple, Union

from ._augpy import Tensor, _Image

_Targets = Optional[Dict[str, Any]]
_SizeLike = Union[SupportsIndex, Sequence[SupportsIndex]]


def resize(image: _Image, size: _SizeLike, interpolation: str = "linear", antialias: bool = True,
           layout: Optional[str] = None, out: Optional[_Image] = None, *, targets: _Targets = None) -> Any:
    """augpy.resize; with targets: (resized, moved targets)."""
def flip(image: _Image, horizontal: bool = True, vertical: bool = False, layout: Optional[str] = None, *,
         targets: _Targets = None) -> Any:
    """augpy.flip; with targets: (view, moved targets)."""
def hflip(image: _Image, layout: Optional[str] = None, *, targets: _Targets = None) -> Any:
    """augpy.hflip; with targets: (view, moved targets)."""
def vflip(image: _Image, layout: Optional[str] = None, *, targets: _Targets = None) -> Any:
    """augpy.vflip; with targets: (view, moved targets)."""
def crop(image: _Image, y: SupportsIndex, x: SupportsIndex, h: SupportsIndex, w: SupportsIndex,
         layout: Optional[str] = None, *, targets: _Targets = None) -> Any:
    """augpy.crop; with targets: (view, moved targets)."""
def center_crop(image: _Image, size: _SizeLike, layout: Optional[str] = None, *,
                targets: _Targets = None) -> Any:
    """augpy.center_crop; with targets: (result, moved targets)."""
def warp_affine(src: Union[_Image, Sequence[_Image]], dst: _Image, matrix: Any, background: Any = None,
                supersampling: Union[int, Sequence[int]] = 1, *, interpolation: str = "linear",
                border: str = "constant", layout: Optional[str] = None, src_layout: Optional[str] = None,
                targets: _Targets = None) -> Any:
    """augpy.warp_affine (returns dst); with targets (one source image): (dst, moved targets)."""
