"""Stubs of augpy.targets (augpy/targets.py): boxes and keypoints follow an image through a
geometric op given by its (2, 3) warp matrix (the inverse map). Array-like inputs give numpy
arrays (of the input's float dtype; kept / visible indices int64), augpy tensors give tensors
on the same device. Labels come back filtered as what they were: a tensor, a numpy array, or
a list for any other sequence."""
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple, TypeVar, Union, overload

import numpy
import numpy.typing

from ._augpy import Tensor

__all__ = ["transform_boxes", "transform_boxes_batch", "transform_keypoints", "transform_keypoints_batch",
           "BOX_FORMATS", "resize_matrix", "flip_matrix", "crop_matrix", "center_crop_matrix", "center_crop_offsets",
           "transform_batch_targets"]

_NDArray = numpy.typing.NDArray[Any]
_Int64Array = numpy.typing.NDArray[numpy.int64]
_Float64Array = numpy.typing.NDArray[numpy.float64]
# Boxes (n, 4) / keypoints (n, 2|3|4) that are not an augpy tensor: numpy arrays, nested sequences.
_Rows = numpy.typing.ArrayLike
# The (2, 3) warp matrix (or, for the batch functions, (N, 2, 3) / one (2, 3) for all).
_Matrix = Union[Tensor, numpy.typing.ArrayLike]
# One entry per image of a batch (a list or tuple: anything else is a padded array).
_TensorList = Union[List[Tensor], Tuple[Tensor, ...]]
_RowsList = Union[List[_Rows], Tuple[_Rows, ...]]
# (height, width)
_Size = Sequence[int]
# Labels, filtered like the rows: a tensor gives a tensor, an array an array, a sequence a list.
_Labels = TypeVar("_Labels", Tensor, _NDArray, Sequence[Any])
# An (h, w) image size or a square side, as the matrix helpers take it (positive ints).
_HW = Union[int, numpy.integer[Any], Sequence[Union[int, numpy.integer[Any]]]]

BOX_FORMATS: Tuple[str, str, str]
TARGET_KEYS: Tuple[str, str, str]

# ---- boxes ----

@overload
def transform_boxes(boxes: Tensor, matrix: _Matrix, source_size: _Size, target_size: _Size,
                    format: str = "xyxy", normalized: bool = False, min_area: float = 0.0, min_visibility: float = 0.0,
                    labels: None = None) -> Tuple[Tensor, Tensor]:
    """Move boxes (n, 4) with a geometric op given by its warp ``matrix``.

    Each box becomes the enclosing box of its four transformed corners, is
    clipped to the target image and dropped when its visible area is 0, below
    ``min_area`` (pixels) or below ``min_visibility`` times its transformed,
    unclipped area.

    :param boxes: (n, 4) in ``format`` ('xyxy', 'xywh' or 'cxcywh'); pixel
        coordinates, or fractions of the image size with ``normalized=True``
    :param matrix: the (2, 3) warp matrix (inverse map) of the op
    :param source_size: (height, width) of the input image
    :param target_size: (height, width) of the output image
    :param labels: optional n labels (array, tensor or list), filtered alike
    :returns: ``(boxes, keep)``, or ``(boxes, keep, labels)`` with labels; keep
        holds the int64 indices of the input rows that were kept"""
@overload
def transform_boxes(boxes: Tensor, matrix: _Matrix, source_size: _Size, target_size: _Size,
                    format: str = "xyxy", normalized: bool = False, min_area: float = 0.0, min_visibility: float = 0.0,
                    *, labels: _Labels) -> Tuple[Tensor, Tensor, _Labels]: ...
@overload
def transform_boxes(boxes: Tensor, matrix: _Matrix, source_size: _Size, target_size: _Size, format: str,
                    normalized: bool, min_area: float, min_visibility: float,
                    labels: _Labels) -> Tuple[Tensor, Tensor, _Labels]: ...
@overload
def transform_boxes(boxes: _Rows, matrix: _Matrix, source_size: _Size, target_size: _Size,
                    format: str = "xyxy", normalized: bool = False, min_area: float = 0.0, min_visibility: float = 0.0,
                    labels: None = None) -> Tuple[_NDArray, _Int64Array]: ...
@overload
def transform_boxes(boxes: _Rows, matrix: _Matrix, source_size: _Size, target_size: _Size,
                    format: str = "xyxy", normalized: bool = False, min_area: float = 0.0, min_visibility: float = 0.0,
                    *, labels: _Labels) -> Tuple[_NDArray, _Int64Array, _Labels]: ...
@overload
def transform_boxes(boxes: _Rows, matrix: _Matrix, source_size: _Size, target_size: _Size, format: str,
                    normalized: bool, min_area: float, min_visibility: float,
                    labels: _Labels) -> Tuple[_NDArray, _Int64Array, _Labels]: ...

# A list of N per-image boxes gives lists ((boxes, keep) or (boxes, keep, labels)); one padded
# (N, M, 4) array / tensor (with counts) gives (boxes (N, M, 4), counts, keep (N, M)).
@overload
def transform_boxes_batch(boxes: _TensorList, matrices: _Matrix,
                          source_sizes: numpy.typing.ArrayLike, target_size: _Size, counts: None = None,
                          format: str = "xyxy", normalized: bool = False, min_area: float = 0.0,
                          min_visibility: float = 0.0,
                          labels: None = None) -> Tuple[List[Tensor], List[Tensor]]:
    """The batch form of ``transform_boxes``, for ragged boxes:

    - ``boxes`` a list of N arrays/tensors (n_i, 4): returns lists
      ``(boxes, keep)`` (``(boxes, keep, labels)`` with ``labels``, a list of N
      label arrays/lists);
    - ``boxes`` one padded (N, M, 4) array/tensor with ``counts`` (N valid rows
      per image; None: all M): returns ``(boxes (N, M, 4), counts (list),
      keep (N, M) int64)`` with each image's kept boxes first, zeros and -1 after
      (``labels`` is not taken: index a padded (N, M) label array with keep).

    ``matrices``: (N, 2, 3) (or one (2, 3) for all); ``source_sizes``: N
    (height, width) pairs or one for all; one ``target_size``."""
@overload
def transform_boxes_batch(boxes: _TensorList, matrices: _Matrix,
                          source_sizes: numpy.typing.ArrayLike, target_size: _Size, counts: None = None,
                          format: str = "xyxy", normalized: bool = False, min_area: float = 0.0,
                          min_visibility: float = 0.0, *,
                          labels: Sequence[_Labels]) -> Tuple[List[Tensor], List[Tensor], List[_Labels]]: ...
@overload
def transform_boxes_batch(boxes: _TensorList, matrices: _Matrix,
                          source_sizes: numpy.typing.ArrayLike, target_size: _Size, counts: None, format: str,
                          normalized: bool, min_area: float, min_visibility: float,
                          labels: Sequence[_Labels]) -> Tuple[List[Tensor], List[Tensor], List[_Labels]]: ...
@overload
def transform_boxes_batch(boxes: _RowsList, matrices: _Matrix,
                          source_sizes: numpy.typing.ArrayLike, target_size: _Size, counts: None = None,
                          format: str = "xyxy", normalized: bool = False, min_area: float = 0.0,
                          min_visibility: float = 0.0,
                          labels: None = None) -> Tuple[List[_NDArray], List[_Int64Array]]: ...
@overload
def transform_boxes_batch(boxes: _RowsList, matrices: _Matrix,
                          source_sizes: numpy.typing.ArrayLike, target_size: _Size, counts: None = None,
                          format: str = "xyxy", normalized: bool = False, min_area: float = 0.0,
                          min_visibility: float = 0.0, *,
                          labels: Sequence[_Labels]) -> Tuple[List[_NDArray], List[_Int64Array], List[_Labels]]: ...
@overload
def transform_boxes_batch(boxes: _RowsList, matrices: _Matrix,
                          source_sizes: numpy.typing.ArrayLike, target_size: _Size, counts: None, format: str,
                          normalized: bool, min_area: float, min_visibility: float,
                          labels: Sequence[_Labels]) -> Tuple[List[_NDArray], List[_Int64Array], List[_Labels]]: ...
@overload
def transform_boxes_batch(boxes: Tensor, matrices: _Matrix, source_sizes: numpy.typing.ArrayLike,
                          target_size: _Size, counts: Optional[Union[Tensor, numpy.typing.ArrayLike]] = None,
                          format: str = "xyxy", normalized: bool = False, min_area: float = 0.0,
                          min_visibility: float = 0.0,
                          labels: None = None) -> Tuple[Tensor, List[int], Tensor]: ...
@overload
def transform_boxes_batch(boxes: _Rows, matrices: _Matrix, source_sizes: numpy.typing.ArrayLike,
                          target_size: _Size, counts: Optional[Union[Tensor, numpy.typing.ArrayLike]] = None,
                          format: str = "xyxy", normalized: bool = False, min_area: float = 0.0,
                          min_visibility: float = 0.0,
                          labels: None = None) -> Tuple[_NDArray, List[int], _Int64Array]: ...

# ---- keypoints ----

@overload
def transform_keypoints(keypoints: Tensor, matrix: _Matrix, target_size: _Size, remove_invisible: bool = True,
                        labels: None = None) -> Tuple[Tensor, Tensor]:
    """Move keypoints (n, 2|3|4): x, y [, angle in degrees [, scale]] with a
    geometric op given by its warp ``matrix`` (pixel-centre coordinates).

    The angle becomes that of the transformed direction, in [0, 360) (a rotation
    adds its angle, a horizontal flip gives 180 - angle); the scale is
    multiplied by sqrt(|det|) of the forward map. A keypoint is visible when
    0 <= x < width and 0 <= y < height of ``target_size``.

    :param remove_invisible: True: drop the keypoints that left the image;
        False: keep all rows (flag them with the returned indices)
    :param labels: optional n labels, filtered like the rows
    :returns: ``(keypoints, visible)`` (``+ (labels,)``), visible the int64
        indices of the input rows inside the image"""
@overload
def transform_keypoints(keypoints: Tensor, matrix: _Matrix, target_size: _Size, remove_invisible: bool = True,
                        *, labels: _Labels) -> Tuple[Tensor, Tensor, _Labels]: ...
@overload
def transform_keypoints(keypoints: Tensor, matrix: _Matrix, target_size: _Size, remove_invisible: bool,
                        labels: _Labels) -> Tuple[Tensor, Tensor, _Labels]: ...
@overload
def transform_keypoints(keypoints: _Rows, matrix: _Matrix, target_size: _Size, remove_invisible: bool = True,
                        labels: None = None) -> Tuple[_NDArray, _Int64Array]: ...
@overload
def transform_keypoints(keypoints: _Rows, matrix: _Matrix, target_size: _Size, remove_invisible: bool = True,
                        *, labels: _Labels) -> Tuple[_NDArray, _Int64Array, _Labels]: ...
@overload
def transform_keypoints(keypoints: _Rows, matrix: _Matrix, target_size: _Size, remove_invisible: bool,
                        labels: _Labels) -> Tuple[_NDArray, _Int64Array, _Labels]: ...

@overload
def transform_keypoints_batch(keypoints: _TensorList, matrices: _Matrix,
                              target_size: _Size, remove_invisible: bool = True,
                              labels: None = None) -> Tuple[List[Tensor], List[Tensor]]:
    """``transform_keypoints`` per image of a batch: ``keypoints`` a list of N
    (n_i, 2|3|4) arrays/tensors, ``matrices`` (N, 2, 3); returns lists."""
@overload
def transform_keypoints_batch(keypoints: _TensorList, matrices: _Matrix, target_size: _Size,
                              remove_invisible: bool = True, *, labels: Sequence[_Labels]
                              ) -> Tuple[List[Tensor], List[Tensor], List[_Labels]]: ...
@overload
def transform_keypoints_batch(keypoints: _TensorList, matrices: _Matrix, target_size: _Size,
                              remove_invisible: bool, labels: Sequence[_Labels]
                              ) -> Tuple[List[Tensor], List[Tensor], List[_Labels]]: ...
@overload
def transform_keypoints_batch(keypoints: _RowsList, matrices: _Matrix,
                              target_size: _Size, remove_invisible: bool = True,
                              labels: None = None) -> Tuple[List[_NDArray], List[_Int64Array]]: ...
@overload
def transform_keypoints_batch(keypoints: _RowsList, matrices: _Matrix,
                              target_size: _Size, remove_invisible: bool = True, *,
                              labels: Sequence[_Labels]) -> Tuple[List[_NDArray], List[_Int64Array], List[_Labels]]: ...
@overload
def transform_keypoints_batch(keypoints: _RowsList, matrices: _Matrix,
                              target_size: _Size, remove_invisible: bool,
                              labels: Sequence[_Labels]) -> Tuple[List[_NDArray], List[_Int64Array], List[_Labels]]: ...

# ---- the warp matrices of the other geometric ops: (2, 3) float64 inverse maps ----

def resize_matrix(src_hw: _HW, dst_hw: _HW) -> _Float64Array:
    """The matrix of ``augpy.resize(img, dst_hw)`` on an image of ``src_hw``:
    pixel centres align, scale = in / out per axis (src = (dst + 0.5) * s - 0.5)."""
def flip_matrix(hw: _HW, horizontal: bool = True, vertical: bool = False) -> _Float64Array:
    """The matrix of ``augpy.flip(img, horizontal, vertical)`` on an (h, w) image
    (x -> w - 1 - x, y -> h - 1 - y); it is its own inverse."""
def crop_matrix(y: Union[float, numpy.integer[Any], numpy.floating[Any]],
                x: Union[float, numpy.integer[Any], numpy.floating[Any]]) -> _Float64Array:
    """The matrix of ``augpy.crop(img, y, x, h, w)``: a shift by (x, y) (the crop's
    size is the target size; a negative offset is padding)."""
def center_crop_offsets(hw: _HW, size: _HW) -> Tuple[int, int]:
    """(y, x) of ``augpy.center_crop(img, size)`` on an (h, w) image: round((h - ch) / 2)
    when the crop fits, -((ch - h) // 2) (zero padding before) when it does not."""
def center_crop_matrix(hw: _HW, size: _HW) -> _Float64Array:
    """The matrix of ``augpy.center_crop(img, size)`` on an (h, w) image: the shift
    ``crop_matrix(*center_crop_offsets(hw, size))`` (negative offsets where the crop is
    larger than the image and center_crop pads with zeros)."""

# ---- targets through the batch stages ----

def transform_batch_targets(batch: Dict[str, Any], matrices: numpy.typing.ArrayLike,
                            source_sizes: numpy.typing.ArrayLike, target_size: _Size, box_format: str = "xyxy",
                            box_params: Optional[Mapping[str, Any]] = None, ignore_index: int = 255,
                            func: str = "augpy.transform_batch_targets") -> Dict[str, Any]:
    """Move the optional targets of a batch dict with each image's warp matrix,
    in place; returns ``batch``. Keys (all optional; nothing is done without them):

    - ``boxes``: a list of N (n_i, 4) arrays/tensors in ``box_format``; with
      ``labels`` (a list of N label arrays/lists) filtered alike.
      ``box_params``: a dict of transform_boxes' normalized / min_area / min_visibility.
    - ``keypoints``: a list of N (n_i, 2|3|4); those that leave the image are
      dropped, and ``keypoint_labels`` (a list of N) alike.
    - ``masks``: a list of N (H_i, W_i) integer arrays/tensors, each of its image's
      source size; replaced by one (N, Ht, Wt) tensor of the first mask's dtype and
      device, warped nearest-neighbour, ``ignore_index`` outside the source."""
