"""RandomPerspective as a batch stage (docs/warp.md "Perspective"): torchvision's
transforms.v2.RandomPerspective sampler (augpy._perspective.random_perspective_points) per
image of an (N, C, H, W) batch, drawn from the seed model (stream 'RandomPerspective'), the
images warped by warp_perspective and the batch's targets moved by each image's matrix."""
import numpy as np

from . import _augpy
from . import targets as _targets
from ._colour_stages import _image_batch
from ._decode_stage import _augmentation_list, _restore_stage
from ._perspective import perspective_matrix, random_perspective_points
from ._sampling import Sampled, generator_at


class RandomPerspective(Sampled):
    """torchvision's RandomPerspective on an (N, C, H, W) batch (any dtype warp_perspective
    takes): each image, with probability `p`, is warped so that its corners move inward by
    up to `distortion_scale` times half its size (random_perspective_points), drawn from the
    seed model (stream 'RandomPerspective'). batch['image'] is replaced by the warped batch
    (layout NCHW); each augmentation dict records ``'perspective'``: the 4 endpoints [x, y]
    of the moved corners, or None (not warped); a recorded value is replayed. Boxes,
    keypoints and masks of the batch (augpy.targets.transform_batch_targets: settings the
    attributes box_format, box_params, ignore_index) follow each image's matrix.

    :param distortion_scale: in [0, 1]
    :param p: the probability that an image is warped, in [0, 1]
    :param interpolation: 'bilinear' (torchvision's default) or 'nearest'
    :param fill: the value outside the source: a number or one per channel
    :param seed: the seed of images whose dicts carry no ``rng`` (see augpy.image)"""

    box_format = "xyxy"
    box_params = None
    ignore_index = 255
    draws = 9

    def __init__(self, distortion_scale=0.5, p=0.5, interpolation="bilinear", fill=0, seed=None):
        func = "RandomPerspective"
        self._params = dict(distortion_scale=distortion_scale, p=p, interpolation=interpolation, fill=fill,
                            seed=seed)
        for name, v in (("distortion_scale", distortion_scale), ("p", p)):
            if isinstance(v, bool) or not isinstance(v, (int, float)) or not 0.0 <= float(v) <= 1.0:
                raise ValueError(f"{func}: {name} must be a number in [0, 1], got {v!r}")
        self.distortion_scale, self.p = float(distortion_scale), float(p)
        if interpolation not in ("bilinear", "nearest", "linear"):
            raise ValueError(f"{func}: interpolation must be 'bilinear' or 'nearest', got {interpolation!r}")
        self.interpolation = "nearest" if interpolation == "nearest" else "linear"
        f = np.asarray(fill, np.float64)
        if f.ndim > 1 or not np.isfinite(f).all():
            raise ValueError(f"{func}: fill must be a finite number or one per channel, got {fill!r}")
        self.fill = f
        self._init_sampling(seed)

    def __reduce__(self):
        return _restore_stage, (type(self), self._params, self._sampling_state())

    def endpoints(self, u, height, width):
        """The endpoints of an image from its draws u (9 values in [0, 1)), or None (not warped)."""
        if u[0] >= self.p:
            return None
        return random_perspective_points(u[1:9], height, width, self.distortion_scale)[1]

    def __call__(self, batch):
        func = "RandomPerspective"
        image = _image_batch(batch, func, "(N, C, H, W)")
        n, c, h, w = image.shape
        if self.fill.ndim == 1 and self.fill.shape[0] not in (1, c):
            raise ValueError(f"{func}: fill has {self.fill.shape[0]} values for {c} channels")
        augmentation = [dict(a) for a in _augmentation_list(batch.get("augmentation"), n, func)]
        states = self._rng_states(augmentation)
        start = [[0, 0], [w - 1, 0], [w - 1, h - 1], [0, h - 1]]
        mats = np.empty((n, 3, 3), np.float32)
        for k in range(n):
            if "perspective" in augmentation[k]:
                end = augmentation[k]["perspective"]
            else:
                end = self.endpoints(generator_at(states[k], self.draws)[1], h, w)
                augmentation[k]["perspective"] = end
            mats[k] = np.eye(3) if end is None else perspective_matrix(start, end)
        out = _augpy.empty((n, c, h, w), dtype=image.dtype)
        if out.device != image.device:
            out = out.to(image.device)
        fill = np.broadcast_to(self.fill, (c,)).astype(np.float64)
        _augpy.warp_perspective(image, out, mats, fill, interpolation=self.interpolation, layout="NCHW",
                                src_layout="NCHW")
        batch["image"] = out
        batch["augmentation"] = augmentation
        return _targets.transform_batch_targets(batch, mats.astype(np.float64), [(h, w)] * n, (h, w),
                                                self.box_format, self.box_params, self.ignore_index, func)
