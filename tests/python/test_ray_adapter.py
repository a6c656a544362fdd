"""augpy.ray on a local 2-CPU Ray cluster: read_binary_files -> map_batches with the
DecodeAugment callable class on a pool of 1 to 2 actors and with the decode_augment
function as tasks; the outputs equal the in-process outputs (DecodeAugment(...)(batch)
and an explicit decode / make_transform / warp_affine with each row's generator of the
seed model: augpy.data.sample_generator(seed, epoch, sample_id(key)), key = the path
without its extension) for the same seeds, row by row, however Ray batches the rows.
ImageNetTrain equals the recipe stage (augpy.image.imagenet_train) run on
augpy.data.FolderSource's batches of the same folder, labels included. The Ray example
of docs/scale-out.md runs in test_docs_examples.py on such a cluster.

`make test` installs ray (PY_TEST_DEPS); this test skips only when ray is missing AND
AUGPY_ALLOW_NO_RAY=1 says that is expected, else a missing ray fails it.
"""
import os

import cv2
import numpy as np
import pytest

import augpy
import augpy.data
import augpy.image

try:
    import ray
except ImportError:
    if os.environ.get("AUGPY_ALLOW_NO_RAY") == "1":
        pytest.skip("ray is not installed (AUGPY_ALLOW_NO_RAY=1)", allow_module_level=True)
    raise

import augpy.ray  # noqa: E402
from conftest import UNDER_ASAN  # noqa: E402

# Ray starts its GCS, raylet and worker processes by fork + exec from this multi-threaded
# process; GCC 12's libasan is not fork-safe then (a child can deadlock on an ASan lock before
# exec, see test_fork.py), and the children would inherit the ASan preload. `make pytest-asan`
# skips this file; the plain CPU and emulated-CUDA sessions run it.
if UNDER_ASAN:
    pytest.skip("Ray's fork + exec of its own processes under libasan (see test_fork.py)", allow_module_level=True)

SHAPE = (3, 16, 20)
AUGMENT = augpy.data.RandomWarp(angle=15, scale=(0.9, 1.1), hmirror=0.5)


@pytest.fixture(scope="module")
def cluster():
    # The workers import augpy from the same places as this process.
    env = {k: os.environ[k] for k in ("PYTHONPATH", "AUG_CUDA_MODULE", "AUG_CUDA_BACKEND", "AUG_REQUIRE_CUDA",
                                      "AUG_DEVICE") if k in os.environ}
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, runtime_env={"env_vars": env},
             configure_logging=False)
    yield
    ray.shutdown()


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    folder = tmp_path_factory.mktemp("ray_jpegs")
    rng = np.random.default_rng(4)
    for i in range(10):
        img = cv2.GaussianBlur(rng.integers(0, 256, (int(rng.integers(20, 40)), 30, 3), dtype=np.uint8), (5, 5), 0)
        (folder / f"r{i:02d}.jpg").write_bytes(cv2.imencode(".jpg", img)[1].tobytes())
    return folder


def in_process(folder, seed, epoch=0):
    """path -> image, evaluated here without Ray: each row's generator, then decode and warp."""
    out = {}
    decoder = augpy.Decoder()
    for path in augpy.data.list_images(str(folder)):
        with open(path, "rb") as f:
            data = f.read()
        key = os.path.splitext(path)[0]
        assert augpy.ray.row_key(path) == key
        gen = augpy.data.sample_generator(seed, epoch, augpy.sample_id(key))
        params = AUGMENT(gen, key, {"path": path})
        img = decoder.decode(data)
        m, s = augpy.make_transform(img.shape[:2], SHAPE[1:], **params)
        dst = augpy.Tensor(SHAPE, dtype=augpy.uint8)
        augpy.warp_affine(img, dst, m, None, s)
        out[path] = dst.numpy()
    return out


def by_path(rows):
    return {str(r["path"]): r["image"] for r in rows}


def read_batch(paths):
    """What read_binary_files(include_paths=True) gives map_batches."""
    return {"bytes": np.array([open(p, "rb").read() for p in paths], dtype=object), "path": np.array(paths)}


def test_actor_and_task_equal_in_process(cluster, files):
    ref = in_process(files, seed=9)
    # in-process call of the callable class on one read_binary_files-like batch
    paths = sorted(ref)
    kw = dict(shape=SHAPE, augment=AUGMENT, seed=9, dct_scale=False, keep_paths=True)
    local = augpy.ray.DecodeAugment(max_batch_size=3, **kw)(read_batch(paths))
    assert sorted(local) == ["image", "path"]
    for p, img in zip(local["path"], local["image"]):
        np.testing.assert_array_equal(img, ref[str(p)])
    # no string column unless asked for (iter_torch_batches cannot convert one)
    assert sorted(augpy.ray.DecodeAugment(shape=SHAPE, seed=9)(read_batch(paths[:2]))) == ["image"]
    ds = ray.data.read_binary_files(str(files), include_paths=True)
    # an actor pool that grows from 1 to 2 while CPUs are free (a fixed pool of 2 would starve the reads of
    # the 2 CPUs: docs/scale-out.md); rows land on either actor, the images do not change
    actor = ds.map_batches(augpy.ray.DecodeAugment, fn_constructor_kwargs=kw, batch_size=4,
                           compute=ray.data.ActorPoolStrategy(min_size=1, max_size=2), num_cpus=1,
                           batch_format="numpy")
    got = by_path(actor.take_all())
    assert sorted(got) == paths
    for p in paths:
        np.testing.assert_array_equal(got[p], ref[p])
    tasks = ds.map_batches(augpy.ray.decode_augment, fn_kwargs=kw, batch_size=3, num_cpus=1, batch_format="numpy")
    got = by_path(tasks.take_all())
    assert sorted(got) == paths
    for p in paths:
        np.testing.assert_array_equal(got[p], ref[p])


def test_imagenet_train_equals_the_recipe_stage(tmp_path):
    """augpy.ray.ImageNetTrain(root=...) on read_binary_files rows = imagenet_train on the
    FolderSource batches of the same folder (keys, so draws, and labels as FolderSource's)."""
    rng = np.random.default_rng(5)
    for cls in ("b_dog", "a_cat"):
        (tmp_path / cls).mkdir()
        for i in range(3):
            img = cv2.GaussianBlur(rng.integers(0, 256, (int(rng.integers(30, 50)), 40, 3), dtype=np.uint8), (5, 5), 0)
            (tmp_path / cls / f"{i}.jpg").write_bytes(cv2.imencode(".jpg", img)[1].tobytes())
    src = augpy.data.FolderSource(str(tmp_path))
    n = len(src)
    samples = [src[i] for i in range(n)]
    stage = augpy.image.imagenet_train(n, size=32)
    ref = stage(next(augpy.data.batches(samples, n, seed=3, epoch=2)))
    ref_images = ref["image"].numpy()
    ref_labels = [m["class_index"] for m in ref["metadata"]]
    paths = [m["path"] for _, _, m in samples]
    rows = read_batch(paths[::-1])  # another row order: each row keeps its own draws
    out = augpy.ray.ImageNetTrain(root=str(tmp_path), seed=3, epoch=2, batch_size=4, size=32, keep_paths=True)(rows)
    assert out["label"].dtype == np.int64
    for p, img, label in zip(out["path"], out["image"], out["label"]):
        k = paths.index(str(p))
        np.testing.assert_array_equal(img, ref_images[k])
        assert label == ref_labels[k] == src.class_to_idx[os.path.basename(os.path.dirname(str(p)))]


def test_seed_and_epoch_change_the_stream(files):
    batch = read_batch(augpy.data.list_images(str(files)))
    a = augpy.ray.decode_augment(batch, SHAPE, AUGMENT, seed=1)["image"]
    b = augpy.ray.decode_augment(batch, SHAPE, AUGMENT, seed=1)["image"]
    c = augpy.ray.decode_augment(batch, SHAPE, AUGMENT, seed=2)["image"]
    d = augpy.ray.decode_augment(batch, SHAPE, AUGMENT, seed=1, epoch=1)["image"]
    np.testing.assert_array_equal(a, b)
    assert not np.array_equal(a, c) and not np.array_equal(a, d)


def test_bad_batch():
    with pytest.raises(TypeError, match="augpy.ray.DecodeAugment: expected a dict batch with a 'bytes' column"):
        augpy.ray.DecodeAugment(shape=SHAPE)([b"x"])
    with pytest.raises(ValueError, match="augpy.ray.DecodeAugment: 1 paths for 2 rows"):
        augpy.ray.DecodeAugment(shape=SHAPE)({"bytes": [b"a", b"b"], "path": ["p"]})
