"""Stubs of augpy/_perspective.py: warp_perspective with targets=, torchvision's perspective and
its coefficients (RandomPerspective is in augpy.image)."""
from typing import Any, Dict, List, Optional, Sequence, Tuple, Union

import numpy

from ._augpy import _Image

_Targets = Optional[Dict[str, Any]]
_Points = Union[Sequence[Sequence[float]], numpy.ndarray]


def warp_perspective(src: Union[_Image, Sequence[_Image]], dst: _Image, matrix: Any, background: Any = None,
                     supersampling: Union[int, Sequence[int]] = 1, *, interpolation: str = "linear",
                     border: str = "constant", layout: Optional[str] = None, src_layout: Optional[str] = None,
                     targets: _Targets = None) -> Any:
    """Perspective warp: warp_affine with a 3x3 homography `matrix` ((N, 3, 3) for a batch), the inverse map (output pixel -> source pixel, cv2.warpPerspective with WARP_INVERSE_MAP): sample (x, y) reads the source at (u / w, v / w), (u, v, w) = matrix @ (x, y, 1). A sample with w <= 0 (or a non-finite point) lies outside the source plane and takes `background` under every border. The matrix must be finite and non-singular (else a ValueError). Everything else (background, supersampling, interpolation, border, layouts, dtypes, batches) as warp_affine; a matrix whose last row is (0, 0, 1) gives warp_affine's result.
    Returns dst.

    targets: None, or a dict of the image's targets that follow it through the op: any of
    'boxes' ((n, 4); 'labels' filtered alike), 'keypoints' ((n, 2|3|4); 'keypoint_labels'
    alike), 'mask' (an (H, W) integer mask of the image's size) and the settings
    'box_format' ('xyxy', 'xywh' or 'cxcywh'), 'box_params' (a dict of transform_boxes'
    normalized / min_area / min_visibility) and 'ignore_index' (255: the mask value outside
    the source). Any other key is a TypeError listing these. With targets the call returns
    (dst, moved), moved being a new dict of the moved targets (boxes and keypoints that leave
    the image dropped with their labels; the mask (Ht, Wt), warped nearest-neighbour) and
    the settings as given. targets= follows one image: a batch is a ValueError (use the
    batch stages or augpy.transform_boxes_batch). docs/targets.md has the conventions."""


def perspective_coeffs(startpoints: _Points, endpoints: _Points) -> List[float]:
    """torchvision's _get_perspective_coeffs: the 8 coefficients (a, b, c, d, e, f, g, h),
    rounded to float32 as torchvision returns them, of the map from the output (endpoints)
    to the source (startpoints): 4 (x, y) points each, [top-left, top-right, bottom-right,
    bottom-left]. The 8 x 8 system is solved in float64 (torchvision: least squares, gels)."""


def perspective_matrix(startpoints: _Points, endpoints: _Points) -> numpy.ndarray:
    """augpy's (3, 3) float64 matrix (output pixel index -> source pixel index, what
    warp_perspective takes) of torchvision's perspective(startpoints, endpoints)."""


def perspective(image: _Image, startpoints: _Points, endpoints: _Points, interpolation: str = "bilinear",
                fill: Any = 0, layout: Optional[str] = None, *, targets: _Targets = None) -> Any:
    """torchvision's perspective (transforms.v2.functional.perspective) on an image or a batch:
    the output shows the source's `startpoints` (4 (x, y) corners: top-left, top-right,
    bottom-right, bottom-left) at `endpoints`; a batch takes one pair or one per image
    ((N, 4, 2) each). interpolation 'bilinear' (torchvision's default) or 'nearest'; fill the
    value outside the source (a number or one per channel). Layout and targets= as
    augpy.affine. Returns a new tensor (and the moved targets)."""


def random_perspective_points(u: Sequence[float], height: int, width: int,
                              distortion_scale: float) -> Tuple[List[List[int]], List[List[int]]]:
    """torchvision's RandomPerspective corners from 8 uniform draws u in [0, 1): (startpoints,
    endpoints) as lists of 4 [x, y] ints. Each corner moves inward by an integer uniform in
    [0, int(distortion_scale * (size // 2))] per axis (torchvision's torch.randint bounds)."""
