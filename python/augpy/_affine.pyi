"""Stubs of augpy/_affine.py: torchvision's affine and rotate over warp_affine (with targets=
the result is (image, moved targets))."""
from typing import Any, Dict, Optional, Sequence, Union

import numpy

from ._augpy import _Image

_Targets = Optional[Dict[str, Any]]
_Num = Union[float, int]
_PerImage = Union[_Num, Sequence[_Num], numpy.ndarray]
_Pair = Union[Sequence[Any], numpy.ndarray]


def torchvision_matrix(angle: numpy.ndarray, translate: numpy.ndarray, scale: numpy.ndarray, shear: numpy.ndarray,
                       center: numpy.ndarray) -> numpy.ndarray:
    """torchvision's inverse affine matrices (_get_inverse_affine_matrix, inverted=True) for
    (n,) angles, (n, 2) translations, (n,) scales, (n, 2) shears and (n, 2) centres in
    centred coordinates: an (n, 2, 3) float64 array mapping centred output coordinates to
    centred source coordinates."""


def affine(image: _Image, angle: _PerImage = 0.0, translate: _Pair = (0, 0), scale: _PerImage = 1.0,
           shear: Union[_Num, _Pair] = (0.0, 0.0), interpolation: str = "nearest", fill: Any = 0,
           center: Optional[_Pair] = None, layout: Optional[str] = None, *, targets: _Targets = None) -> Any:
    """torchvision's affine (transforms.v2.functional.affine) on an image or a batch: rotation
    by `angle` degrees (clockwise, torchvision's sign), translation (x, y) in pixels, `scale`,
    shear (x, y) in degrees (one number: x), about `center` (x, y) in pixels (None: the image
    centre); the output has the input's size. Each parameter: one value, or one per image of a
    batch. interpolation 'nearest' (torchvision's default) or 'bilinear'; fill: the value of
    pixels from outside the image (a number or one per channel). Layout: the tensor's layout
    string, else inferred from the shape (channels at most 4 on one end), else `layout`.
    Returns a new tensor (and the moved targets with targets=, as augpy.warp_affine)."""


def rotate(image: _Image, angle: _PerImage, interpolation: str = "nearest", expand: bool = False,
           center: Optional[_Pair] = None, fill: Any = 0, layout: Optional[str] = None, *,
           targets: _Targets = None) -> Any:
    """torchvision's rotate (transforms.v2.functional.rotate): `angle` degrees
    counter-clockwise about `center` (x, y) in pixels (None: the image centre); expand=True
    enlarges the output to hold the whole rotated image (torchvision's size rule; one angle
    for the batch then). interpolation, fill, layout and targets as for augpy.affine."""
