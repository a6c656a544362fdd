"""Typical augpy code, type-checked with `mypy --strict` against augpy's stubs by
test_stubs.py (not a test module itself: nothing here runs)."""
from typing import List, Tuple

import numpy as np

import augpy
import augpy.math as am
from augpy.numeric_limits import CAST_LIMITS


def pipeline(images: List[augpy.CudaTensor]) -> Tuple[np.ndarray, float]:
    t = augpy.zeros((2, 3, 4), augpy.float32)
    u = augpy.array_to_tensor(np.ones((3, 4), np.uint8))
    v: augpy.Tensor = (t + 1) * 2 - u / 3
    v = 5 - v
    v += 1
    v **= 2
    w = am.clamp(am.sqrt(v), 0, augpy.Constant(3, augpy.int16))
    w = w.sqrt().pow(2).abs()
    q, r = divmod(u, 3)
    m = (u < 3) & (u != 1)
    s = augpy.sum(w, (0, 1), keepdim=True, upcast=True)
    s2 = w.sum(axis=0).max()
    augpy.add(t, u, out=t, blocks_per_sm=4, threads=256)
    x = augpy.cast(t, augpy.uint8)
    y = augpy.reshape(x, shape=[4, -1], layout="HW")
    ys = augpy.reshape([x, x], rel_shape=[1, -1])
    rng = augpy.RandomNumberGenerator(seed=3)
    rng.uniform(t, 0, 1)
    stream = augpy.CudaStream(0, 0)
    with stream:
        start, end = augpy.CudaEvent(), augpy.CudaEvent()
        start.record()
        end.record(stream)
        end.synchronize()
        ms: float = start.elapsed_time(end)
    augpy.get_current_stream().synchronize(0)
    props = augpy.get_device_properties()
    cores: int = props.coresPerSM * props.multiProcessorCount
    used, free, total = augpy.meminfo()
    lo, hi = CAST_LIMITS[augpy.float32, augpy.uint8]
    dec = augpy.Decoder()
    mat, ss = augpy.make_transform((480, 640), (224, 224), angle=10)
    seq = augpy.arange(0, 10, 2, dtype=augpy.int32)
    joined = augpy.concatenate([augpy.stack([seq, seq]), augpy.asarray([[1, 2, 3, 4, 5]])], axis=0)
    picked: augpy.CudaTensor = augpy.where(joined > 3, joined, 0)
    nz: tuple[augpy.CudaTensor, ...] = augpy.where(picked)
    picked[[0, 1]] = augpy.tensor(np.zeros(5), dtype=augpy.int32)
    e = augpy.empty((2,), augpy.float32).reshape(shape=[2, 1])
    _ = (nz, e, augpy.to_augpy_dtype(numpy_dtype=np.uint8), picked[picked > 1])
    arr: np.ndarray = np.asarray(t) + s.numpy() + s2.numpy()
    _ = (q, r, m, y, ys, cores, used, free, total, lo, hi, dec, mat, ss, images, augpy.JpegError)
    return arr, ms
