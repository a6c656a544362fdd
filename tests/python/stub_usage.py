"""Typical augpy code, type-checked with `mypy --strict` against augpy's stubs by
test_stubs.py (not a test module itself: nothing here runs)."""
from typing import Any, Callable, Dict, Iterator, List, Sequence, Tuple

import numpy as np
import numpy.typing as npt

import augpy
import augpy.math as am
import augpy.ray
import augpy.torch
from augpy.numeric_limits import CAST_LIMITS


def pipeline(images: List[augpy.Tensor]) -> Tuple[np.ndarray, float]:
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
    picked: augpy.Tensor = augpy.where(joined > 3, joined, 0)
    nz: tuple[augpy.Tensor, ...] = augpy.where(picked)
    picked[[0, 1]] = augpy.tensor(np.zeros(5), dtype=augpy.int32)
    e = augpy.empty((2,), augpy.float32).reshape(shape=[2, 1])
    _ = (nz, e, augpy.to_augpy_dtype(numpy_dtype=np.uint8), picked[picked > 1])
    arr: np.ndarray = np.asarray(t) + s.numpy() + s2.numpy()
    _ = (q, r, m, y, ys, cores, used, free, total, lo, hi, dec, mat, ss, images, augpy.JpegError)
    return arr, ms


def batch_stages(jpegs: List[bytes]) -> Dict[str, Any]:
    """augpy.image: the stages and recipes; augpy.data: sources and batches."""
    warp = augpy.image.DecodeWarp(4, (3, 64, 64), background=[0.0, 0.0, 0.0], cpu_threads=2, on_error="skip")
    warp.box_format = "xywh"
    light = augpy.image.Lightning(4, channels=3, min_value=0, max_value=255)
    jitter = augpy.image.ColorJitter(0.4, (0.8, 1.2), 0.4, hue=0.1, seed=7, lighting=True)
    norm = augpy.image.Normalize(4, mean=augpy.image.IMAGENET_MEAN, std=(58.0, 57.0, 57.5), layout="NHWC")
    train: augpy.image.ImageNetTrain = augpy.image.imagenet_train(4, 224, jitter=None, seed=3, cpu_threads=2,
                                                                  scale=(0.25, 1.0), on_error="warn")
    evaluate: augpy.image.ImageNetEval = augpy.image.imagenet_eval(4, size=(224, 200), resize=256, num_buffers=3)
    stage = augpy.image.ImageNetTrain(4, 96, hflip=0.0, transforms=[jitter, norm])
    ev = augpy.image.ImageNetEval(4, transforms=(norm,))
    batch: Dict[str, Any] = {"image": jpegs, "augmentation": [{"angle": 5.0} for _ in jpegs]}
    for s in (warp, light, jitter, norm, train, evaluate, stage, ev):
        batch = s(batch)
    image: augpy.Tensor = warp.finalize_batch(warp.buffers[0])
    shape: Tuple[int, int, int] = warp.shape
    warp.close()
    keys: Tuple[str, ...] = augpy.image.WARP_KEYS

    src = augpy.data.FolderSource("train", extensions=(".jpg",))
    data, key, meta = src[0]
    files = augpy.data.FileListSource(["a.jpg", "b.png"], labels=["cat", "dog"], root=".")
    shards = augpy.data.ShardSource("train-{000..009}.tar")
    order: npt.NDArray[np.int64] = augpy.data.epoch_order(len(src), seed=1, epoch=2)
    streamed: Iterator[Tuple[bytes, str, Dict[str, Any]]] = shards.samples(1, 0, True, 100, 0, 2)
    names: List[str] = augpy.data.expand_shards(["a-{0..3}.tar", "b.tar"]) + augpy.data.list_images("train")
    share: List[int] = augpy.data.split(range(10), 0, 2)
    mixed: Iterator[int] = augpy.data.shuffled(range(10), 4, augpy.data.sample_generator(1, 0, 5))
    for b in augpy.data.batches(augpy.data.iter_folder("train"), 8, augpy.data.RandomWarp(10, scale=(0.9, 1.1)),
                                seed=0, epoch=1, drop_last=True):
        batch = b
    _ = (image, shape, keys, data, key, meta, files.classes, src.class_to_idx, order, streamed, names, share, mixed)
    return batch


def moved_targets(mask: augpy.Tensor) -> None:
    """augpy.targets: numpy in, numpy out; tensors in, tensors out; labels as given."""
    m = augpy.targets.resize_matrix((480, 640), 224)
    boxes, keep = augpy.targets.transform_boxes([[1, 2, 30, 40]], m, (480, 640), (224, 224), format="xywh")
    kept: npt.NDArray[np.int64] = keep
    tb, tk, tl = augpy.targets.transform_boxes(mask, m, (480, 640), (224, 224), labels=mask)
    t3: Tuple[augpy.Tensor, augpy.Tensor, augpy.Tensor] = (tb, tk, tl)
    _, _, names = augpy.transform_boxes(np.zeros((2, 4)), m, (480, 640), (224, 224), "xyxy", False, 0.0, 0.0,
                                        ["cat", "dog"])
    label_seq: Sequence[Any] = names
    lb, lk = augpy.targets.transform_boxes_batch([np.zeros((2, 4)), np.zeros((0, 4))], m, (480, 640), (224, 224))
    pb, counts, pk = augpy.targets.transform_boxes_batch(np.zeros((2, 5, 4)), m, [(480, 640), (240, 320)],
                                                         (224, 224), counts=[5, 3])
    ncounts: List[int] = counts
    kp, vis = augpy.targets.transform_keypoints(mask, augpy.targets.flip_matrix((224, 224)), (224, 224), False)
    kb, kv, kl = augpy.targets.transform_keypoints_batch([np.zeros((3, 2))], m, (224, 224), labels=[[1, 2, 3]])
    y, x = augpy.targets.center_crop_offsets((480, 640), 224)
    shift: npt.NDArray[np.float64] = augpy.targets.crop_matrix(y, x) + augpy.targets.center_crop_matrix(480, 224)
    batch = augpy.targets.transform_batch_targets({"image": mask, "boxes": [boxes]}, [m], [(480, 640)], (224, 224),
                                                  box_params={"min_area": 4.0})
    _ = (kept, t3, label_seq, lb, lk, pb, ncounts, pk, kp, vis, kb, kv, kl, shift, batch, augpy.targets.BOX_FORMATS)


def loaders(make: Callable[[], augpy.image.ImageNetTrain]) -> None:
    """augpy.torch and augpy.ray, type-checked without torch's or ray's stubs (tensors are Any)."""
    ds = augpy.torch.StageDataset(augpy.data.FolderSource("x"), make, 4, seed=0, shuffle=True, output="tuple")
    ds.set_epoch(1)
    state: Dict[str, Any] = ds.state_dict(samples_seen=8)
    ds.load_state_dict(state)
    n: int = len(ds)
    for images, labels in ds:
        _ = (images.shape, labels)
    streamed = augpy.torch.StageDataset(augpy.torch.ShardSource(["a.tar"]), lambda: [make(), augpy.image.Lighting(4)],
                                        4, augment=augpy.data.RandomWarp(angle=5), copy=False, on_error="skip")
    custom = augpy.torch.StageDataset(lambda worker, workers: iter([(b"", "key", {"cls": 1})]), make, 4)
    torch_tensor = augpy.torch.to_torch(augpy.zeros((2, 2), augpy.uint8))
    aug = augpy.ray.ImageNetTrain(root="train", seed=1, epoch=2, batch_size=16, size=160, jitter=None)
    out: Dict[str, Any] = aug({"bytes": [b""], "path": ["train/cat/a.jpg"]})
    dec = augpy.ray.DecodeAugment((3, 64, 64), augpy.data.RandomWarp(angle=10),
                                  stages=lambda: [augpy.image.Lighting(4)])
    out = augpy.ray.decode_augment(out, (3, 32, 32), seed=5, cpu_threads=2, keep_paths=True)
    custom_ray = augpy.ray.StageAugment(make, seed=3, root="train", on_error="warn")
    key: str = augpy.ray.row_key("train/cat/a.jpg", root="train")
    gen: np.random.Generator = augpy.ray.row_rng(0, b"train/cat/a.jpg", epoch=1)
    _ = (n, streamed, custom, torch_tensor, dec.decode_warp, custom_ray.stages, key, gen)
