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
    """Move boxes (n, 4) with a geometric op: ``(boxes, keep)``, keep the int64 indices of the kept rows."""
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
    """The batch form of ``transform_boxes`` (ragged lists, or one padded array with ``counts``)."""
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
    """Move keypoints (n, 2|3|4): ``(keypoints, visible)`` (+ labels), visible the int64 indices
    of the rows inside the image."""
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
    """``transform_keypoints`` per image of a batch (a list of N keypoint arrays); returns lists."""
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
    """The matrix of ``augpy.resize(img, dst_hw)`` on an image of ``src_hw``."""
def flip_matrix(hw: _HW, horizontal: bool = True, vertical: bool = False) -> _Float64Array:
    """The matrix of ``augpy.flip(img, horizontal, vertical)`` on an (h, w) image."""
def crop_matrix(y: Union[float, numpy.integer[Any], numpy.floating[Any]],
                x: Union[float, numpy.integer[Any], numpy.floating[Any]]) -> _Float64Array:
    """The matrix of ``augpy.crop(img, y, x, h, w)``: a shift by (x, y)."""
def center_crop_offsets(hw: _HW, size: _HW) -> Tuple[int, int]:
    """(y, x) of ``augpy.center_crop(img, size)`` on an (h, w) image (negative: zero padding)."""
def center_crop_matrix(hw: _HW, size: _HW) -> _Float64Array:
    """The matrix of ``augpy.center_crop(img, size)`` on an (h, w) image."""

# ---- targets through the batch stages ----

def transform_batch_targets(batch: Dict[str, Any], matrices: numpy.typing.ArrayLike,
                            source_sizes: numpy.typing.ArrayLike, target_size: _Size, box_format: str = "xyxy",
                            box_params: Optional[Mapping[str, Any]] = None, ignore_index: int = 255,
                            func: str = "augpy.transform_batch_targets") -> Dict[str, Any]:
    """Move a batch dict's optional ``boxes`` (+ ``labels``), ``keypoints`` (+ ``keypoint_labels``)
    and ``masks`` with each image's warp matrix, in place; returns ``batch``."""
