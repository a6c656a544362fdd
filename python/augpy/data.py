"""augpy.data: samples for the batch stages from folders and WebDataset-style tar shards.

Every reader yields ``(data, key, metadata)``: the encoded image bytes, a key that
names the sample, and a dict of whatever else is known about it. ``batches`` groups
them into the batch dicts of ``augpy.image.DecodeWarp`` (``{'image': [bytes, ...],
'augmentation': [dict, ...], 'key': [...], 'metadata': [...]}``).

- ``iter_folder(root, recursive=False)``: the JPEG/PNG files of a folder, sorted by
  their relative path; key = the path relative to root without its extension
  (``'n01440764/n01440764_10026'``); metadata ``{'path': str, 'label': str}`` with the
  file's parent folder name as label (ImageNet's layout) or '' at the top level.
- ``iter_shards(shards)``: tar files as WebDataset writes them: a sample is the run
  of consecutive members that share a key (the member path up to the first dot of
  its file name), e.g. ``n01440764_10026.jpg`` + ``.cls`` + ``.json``. The image
  member (the first with an image extension) is the data; the others go into
  metadata by extension: ``.cls`` / ``.idx`` / ``.index`` -> int, ``.json`` -> parsed JSON,
  ``.txt`` -> str, anything else -> bytes; plus ``'__shard__'``. Samples without
  an image are skipped. Only the standard library's ``tarfile`` reads the tars
  (streaming: a shard is read once, front to back).
- ``expand_shards('data/train-{000000..000146}.tar')``: brace ranges as WebDataset
  writes them; ``split(items, worker_id, num_workers)``: a worker's share.

PNG files are listed and read like JPEGs; whether a stage decodes them is the
stage's business (``DecodeWarp`` decodes JPEG: pass ``extensions=('.jpg', '.jpeg')``
to read only those).

Every iterator takes ``worker_id`` / ``num_workers`` and then reads only that
worker's share: every num_workers-th shard (tar) or file (folder), starting at
worker_id. With more workers than shards some workers get nothing.
"""
import json
import os
import re
import tarfile

__all__ = ["IMAGE_EXTENSIONS", "list_images", "iter_folder", "expand_shards", "split", "iter_shards", "batches",
           "RandomWarp"]

IMAGE_EXTENSIONS = (".jpg", ".jpeg", ".png")


def _check_worker(worker_id, num_workers, func):
    if num_workers is None and worker_id is None:
        return 0, 1
    if worker_id is None or num_workers is None:
        raise ValueError(f"{func}: give both worker_id and num_workers, or neither")
    for name, v in (("worker_id", worker_id), ("num_workers", num_workers)):
        if isinstance(v, bool) or not isinstance(v, int):
            raise TypeError(f"{func}: {name} must be an int, got {type(v).__name__}")
    if num_workers < 1 or not 0 <= worker_id < num_workers:
        raise ValueError(f"{func}: worker_id {worker_id} must be in [0, num_workers) with num_workers >= 1, "
                         f"got num_workers {num_workers}")
    return worker_id, num_workers


def split(items, worker_id, num_workers):
    """Worker ``worker_id``'s share of ``items``: every num_workers-th, from worker_id."""
    worker_id, num_workers = _check_worker(worker_id, num_workers, "augpy.data.split")
    return list(items)[worker_id::num_workers]


def _extensions(extensions):
    return tuple(e.lower() if e.startswith(".") else "." + e.lower() for e in extensions)


def list_images(root, recursive=False, extensions=IMAGE_EXTENSIONS):
    """The image files under ``root`` (case-insensitive extensions), sorted by
    their path relative to root (``/`` separated)."""
    func = "augpy.data.list_images"
    if not os.path.isdir(root):
        raise FileNotFoundError(f"{func}: {root!r} is not a folder")
    ext = _extensions(extensions)
    found = []
    if recursive:
        for dirpath, dirnames, filenames in os.walk(root):
            dirnames.sort()
            for name in filenames:
                if os.path.splitext(name)[1].lower() in ext:
                    found.append(os.path.relpath(os.path.join(dirpath, name), root).replace(os.sep, "/"))
    else:
        for name in os.listdir(root):
            if os.path.splitext(name)[1].lower() in ext and os.path.isfile(os.path.join(root, name)):
                found.append(name)
    return [os.path.join(root, rel) for rel in sorted(found)]


def iter_folder(root, recursive=False, extensions=IMAGE_EXTENSIONS, worker_id=None, num_workers=None):
    """Yield ``(bytes, key, metadata)`` for the image files of a folder (see the module doc)."""
    worker_id, num_workers = _check_worker(worker_id, num_workers, "augpy.data.iter_folder")
    for path in list_images(root, recursive, extensions)[worker_id::num_workers]:
        rel = os.path.relpath(path, root).replace(os.sep, "/")
        key = os.path.splitext(rel)[0]
        parent = os.path.dirname(rel)
        with open(path, "rb") as f:
            data = f.read()
        yield data, key, {"path": path, "label": os.path.basename(parent)}


_BRACES = re.compile(r"\{(\d+)\.\.(\d+)\}")


def expand_shards(pattern):
    """``'a-{000..002}.tar'`` -> ['a-000.tar', 'a-001.tar', 'a-002.tar'] (every brace
    range, zero padded to the width of its first bound); a list of patterns is
    expanded item by item."""
    if isinstance(pattern, (list, tuple)):
        return [s for p in pattern for s in expand_shards(p)]
    if not isinstance(pattern, (str, os.PathLike)):
        raise TypeError(f"augpy.data.expand_shards: expected a path or a list of paths, got {type(pattern).__name__}")
    pattern = os.fspath(pattern)
    m = _BRACES.search(pattern)
    if not m:
        return [pattern]
    lo, hi = int(m.group(1)), int(m.group(2))
    if hi < lo:
        raise ValueError(f"augpy.data.expand_shards: empty range {m.group(0)} in {pattern!r}")
    width = len(m.group(1))
    out = []
    for i in range(lo, hi + 1):
        out.extend(expand_shards(pattern[:m.start()] + str(i).zfill(width) + pattern[m.end():]))
    return out


def _split_key(name):
    """WebDataset's rule: key = the path up to the first dot of the file name."""
    d, base = os.path.split(name)
    dot = base.find(".")
    if dot <= 0:
        return None, None
    return (d + "/" if d else "") + base[:dot], base[dot:].lower()


def _decode_member(ext, raw):
    last = ext.rsplit(".", 1)[-1]
    if last in ("cls", "idx", "index"):
        return int(raw.decode("utf-8").strip())
    if last == "json":
        return json.loads(raw.decode("utf-8"))
    if last == "txt":
        return raw.decode("utf-8")
    return raw


def _samples_of_tar(path, image_ext):
    func = "augpy.data.iter_shards"
    key, members = None, {}

    def finish():
        image = next((e for e in members if e in image_ext or e.rsplit(".", 1)[-1] in
                      [x[1:] for x in image_ext]), None)
        if key is None or image is None:
            return None
        meta = {"__shard__": os.fspath(path)}
        for e, raw in members.items():
            if e != image:
                meta[e[1:]] = _decode_member(e, raw)
        return members[image], key, meta

    try:
        tar = tarfile.open(path, mode="r|*")
    except (tarfile.TarError, OSError) as e:
        raise ValueError(f"{func}: cannot read shard {os.fspath(path)!r}: {e}") from None
    with tar:
        try:
            for info in tar:
                if not info.isfile():
                    continue
                k, ext = _split_key(info.name)
                if k is None:
                    continue
                if k != key:
                    sample = finish()
                    if sample is not None:
                        yield sample
                    key, members = k, {}
                f = tar.extractfile(info)
                members[ext] = f.read() if f is not None else b""
        except tarfile.TarError as e:
            raise ValueError(f"{func}: shard {os.fspath(path)!r} is damaged: {e}") from None
    sample = finish()
    if sample is not None:
        yield sample


def iter_shards(shards, image_extensions=IMAGE_EXTENSIONS, worker_id=None, num_workers=None):
    """Yield ``(bytes, key, metadata)`` for the samples of WebDataset-style tar
    shards (a path, a brace pattern, or a list of them; see the module doc)."""
    worker_id, num_workers = _check_worker(worker_id, num_workers, "augpy.data.iter_shards")
    ext = _extensions(image_extensions)
    for path in expand_shards(shards)[worker_id::num_workers]:
        yield from _samples_of_tar(path, ext)


def batches(samples, batch_size, augment=None, rng=None, drop_last=False):
    """Group ``(bytes, key, metadata)`` samples into DecodeWarp batch dicts of
    ``batch_size`` (the last one smaller unless drop_last). ``augment(rng, key,
    metadata)`` (optional) returns each sample's augmentation dict (keyword
    arguments of make_transform), drawn from ``rng`` (a numpy Generator) in
    sample order; without it every dict is empty (no augmentation)."""
    func = "augpy.data.batches"
    if isinstance(batch_size, bool) or not isinstance(batch_size, int) or batch_size < 1:
        raise ValueError(f"{func}: batch_size must be a positive int, got {batch_size!r}")
    if augment is not None and rng is None:
        raise ValueError(f"{func}: augment needs an rng (numpy.random.Generator)")
    cur = {"image": [], "augmentation": [], "key": [], "metadata": []}
    for data, key, meta in samples:
        cur["image"].append(data)
        cur["key"].append(key)
        cur["metadata"].append(meta)
        cur["augmentation"].append(augment(rng, key, meta) if augment is not None else {})
        if len(cur["image"]) == batch_size:
            yield cur
            cur = {"image": [], "augmentation": [], "key": [], "metadata": []}
    if cur["image"] and not drop_last:
        yield cur


class RandomWarp:
    """A picklable ``augment`` callable: draws make_transform parameters.

    angle uniform in [-angle, angle] degrees; scale uniform in ``scale`` (lo, hi);
    aspect uniform in ``aspect``; shift (y, x) uniform in [-shift, shift];
    hmirror / vmirror with the given probabilities. Draw order per sample:
    angle, scale, aspect, shift y, shift x, hmirror, vmirror.
    """

    def __init__(self, angle=0.0, scale=(1.0, 1.0), aspect=(1.0, 1.0), shift=0.0, hmirror=0.0, vmirror=0.0):
        self.angle = float(angle)
        self.scale = tuple(float(v) for v in scale)
        self.aspect = tuple(float(v) for v in aspect)
        self.shift = float(shift)
        self.hmirror = float(hmirror)
        self.vmirror = float(vmirror)
        for name, (lo, hi) in (("scale", self.scale), ("aspect", self.aspect)):
            if not 0 < lo <= hi:
                raise ValueError(f"RandomWarp: {name} must be (lo, hi) with 0 < lo <= hi, got {(lo, hi)}")
        for name, p in (("hmirror", self.hmirror), ("vmirror", self.vmirror)):
            if not 0 <= p <= 1:
                raise ValueError(f"RandomWarp: {name} is a probability in [0, 1], got {p}")

    def __call__(self, rng, key=None, metadata=None):
        return {
            "angle": float(rng.uniform(-self.angle, self.angle)),
            "scale": float(rng.uniform(*self.scale)),
            "aspect": float(rng.uniform(*self.aspect)),
            "shift": (float(rng.uniform(-self.shift, self.shift)), float(rng.uniform(-self.shift, self.shift))),
            "hmirror": bool(rng.random() < self.hmirror),
            "vmirror": bool(rng.random() < self.vmirror),
        }
