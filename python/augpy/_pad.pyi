"""Stubs of augpy/_pad.py: torchvision's pad over warp_affine (with targets= the result is
(image, moved targets))."""
from typing import Any, Dict, Optional, Sequence, SupportsIndex, Tuple, Union

import numpy

from ._augpy import _Image

_Padding = Union[SupportsIndex, Sequence[SupportsIndex]]

LIMIT: int
PADDING_MODES: Dict[str, str]


def parse_padding(padding: _Padding, func: str) -> Tuple[int, int, int, int]:
    """torchvision's padding forms (an int; (all,); (left/right, top/bottom); (left, top, right,
    bottom)) as (left, top, right, bottom) ints >= 0."""
def border_of(padding_mode: str, func: str) -> str:
    """warp_affine's border for a torchvision padding_mode."""
def translation(n: int, dy: Any, dx: Any) -> numpy.ndarray:
    """(n, 2, 3) float32 matrices reading output pixel (y, x) at source (y + dy[k], x + dx[k])."""
def shifted(src: Any, lay: str, n: int, h: int, w: int, out_hw: Tuple[int, int], dy: Any, dx: Any, fill: Any,
            border: str, targets: Optional[Dict[str, Any]], func: str) -> Any:
    """src (n images of layout lay, h x w) read at integer offsets into a new out_hw tensor."""


def pad(image: _Image, padding: _Padding, fill: Any = 0, padding_mode: str = "constant",
        layout: Optional[str] = None, *, targets: Optional[Dict[str, Any]] = None) -> Any:
    """torchvision's pad (transforms.v2.functional.pad): a new tensor with ``padding`` pixels
    added around each image of ``image`` (HW, HWC, CHW, NHWC or NCHW; layout as augpy.affine:
    the given one, the tensor's layout string, else the shape's), any dtype, on its device.

    :param padding: an int (every side), (left/right, top/bottom) or (left, top, right,
        bottom); every value >= 0
    :param fill: the value of padded pixels in mode 'constant' (a number or one per channel)
    :param padding_mode: 'constant', 'edge' (the edge pixel repeated), 'reflect' (mirrored
        without repeating the edge: 2 1 | 1 2 3 | 2 1 ... as numpy.pad 'reflect') or
        'symmetric' (mirrored with the edge: 1 | 1 2 3 | 3)
    :param targets: boxes / keypoints / masks to shift with the image (as augpy.warp_affine)

    Exact: the pixels equal numpy.pad's (copies, or a warp with an integer translation when
    the padding is wider than one reflection or targets are given)."""
