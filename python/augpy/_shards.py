"""augpy._shards: WebDataset-style tar shards read as a stream, in bounded memory (augpy.data's
iter_shards and ShardSource).

A shard is read once, front to back, one member at a time, with the standard library's
``tarfile`` in stream mode; no member header is kept after its member (tarfile would keep
them all: 300 k tiny members held 171 MB). What a hostile or damaged shard can cost is bounded:

- a member larger than its limit (``max_image_bytes`` for the image member, ``max_meta_bytes``
  for the others) is never read: its sample is bad;
- a key with more than ``max_members`` members is bad;
- sparse members (a 1.5 KB GNU sparse tar can declare 1 GiB), links, devices and FIFOs are
  skipped with a warning on the ``augpy`` logger; folders silently;
- a member named ``<key>.__shard__`` or ``<key>.__key__`` is bad (it would overwrite what augpy
  puts there);
- metadata that does not parse (bad UTF-8, bad JSON, JSON nested too deep, a bad int) makes its
  sample bad.

A bad sample, or a shard that cannot be read to its end, is handled as ``on_error`` says, as the
batch stages do: ``'raise'`` (ValueError naming the shard and the member), ``'skip'`` (the sample,
or the rest of the shard, is left out) or ``'warn'`` (skip, and log a warning)."""
import json
import logging
import os
import tarfile
import zlib

MAX_IMAGE_BYTES = 256 << 20
MAX_META_BYTES = 4 << 20
MAX_MEMBERS = 256
_RESERVED = ("__shard__", "__key__")
_log = logging.getLogger("augpy")


def check_limits(func, max_image_bytes, max_meta_bytes, max_members):
    for name, v in (("max_image_bytes", max_image_bytes), ("max_meta_bytes", max_meta_bytes),
                    ("max_members", max_members)):
        if isinstance(v, bool) or not hasattr(v, "__index__"):
            raise TypeError(f"{func}: {name} must be an int, got {type(v).__name__}")
        if v.__index__() < 1:
            raise ValueError(f"{func}: {name} must be >= 1, got {v.__index__()}")
    return max_image_bytes.__index__(), max_meta_bytes.__index__(), max_members.__index__()


def split_key(name):
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


def _drain(stream, info):
    """Reads and drops a member's stored data in 64 KiB pieces, failing at the end of the data.
    tarfile's own skip over a stream reads on for the size the header declares even past the
    end of a cut file: a 10 KB tar declaring an 8 GiB member spun for 8 s (and a base-256
    size can declare 2^95 bytes)."""
    if stream.tell() < info.offset_data:
        stream.seek(info.offset_data)
    left = info.offset_data + info.size - stream.tell()
    while left > 0:
        n = min(left, 1 << 16)
        if len(stream.read(n)) < n:
            raise tarfile.ReadError("unexpected end of data")
        left -= n


class _Reader:
    def __init__(self, path, image_ext, on_error, limits):
        self.func = "augpy.data.iter_shards"
        self.shard = os.fspath(path)
        self.image_ext = image_ext
        self.on_error = on_error
        self.max_image, self.max_meta, self.max_members = limits
        self.key, self.members, self.bad, self.count = None, {}, None, 0
        self.read = False  # the current member's data was read

    def is_image(self, ext):
        return ext in self.image_ext or ext.rsplit(".", 1)[-1] in [x[1:] for x in self.image_ext]

    def fail(self, what):
        """what: the reason after "shard S" (a member's) or a whole message (a shard's)."""
        err = ValueError(f"{self.func}: {what}")
        if self.on_error == "raise":
            raise err
        if self.on_error == "warn":
            _log.warning("%s (skipped)", err)

    def finish(self):
        """The sample of the current key, or None."""
        key, members, bad = self.key, self.members, self.bad
        self.key, self.members, self.bad, self.count = None, {}, None, 0
        if key is None:
            return None
        if bad is not None:
            self.fail(f"shard {self.shard!r}, {bad}")
            return None
        image = next((e for e in members if self.is_image(e)), None)
        if image is None:
            return None
        meta = {}
        for e, raw in members.items():
            if e != image:
                try:
                    meta[e[1:]] = _decode_member(e, raw)
                except (ValueError, RecursionError) as exc:  # UnicodeDecodeError, JSONDecodeError, int()
                    self.fail(f"shard {self.shard!r}, member {key + e!r}: cannot be read as {e.rsplit('.', 1)[-1]}: "
                              f"{type(exc).__name__}: {str(exc)[:200]}")
                    return None
        meta["__shard__"] = self.shard
        return members[image], key, meta

    def member(self, tar, info):
        """Takes one member into the current sample (or marks the sample bad); returns the
        previous key's sample when this member starts a new key."""
        self.read = False
        if info.issparse() or not info.isfile():
            if not info.isdir():
                _log.warning("%s: shard %r: skipped member %r (%s)", self.func, self.shard, info.name,
                             "sparse" if info.issparse() else "not a regular file")
            return None
        k, ext = split_key(info.name)
        if k is None:
            return None
        sample = None
        if k != self.key:
            sample = self.finish()
            self.key = k
        self.count += 1
        if self.bad is not None:
            return sample
        limit = self.max_image if self.is_image(ext) else self.max_meta
        if ext[1:] in _RESERVED:
            self.bad = f"member {info.name!r}: {ext[1:]} is a name augpy reserves"
        elif self.count > self.max_members:
            self.bad = f"key {k!r}: more than max_members={self.max_members} members"
        elif info.size > limit:
            self.bad = (f"member {info.name!r}: {info.size} bytes, over the limit of {limit} "
                        f"({'max_image_bytes' if limit == self.max_image else 'max_meta_bytes'})")
        else:
            f = tar.extractfile(info)
            self.members[ext] = f.read() if f is not None else b""
            self.read = True
        if self.bad is not None:
            self.members = {}
        return sample

    def samples(self):
        try:
            tar = tarfile.open(self.shard, mode="r|*")
        except (tarfile.TarError, OSError, EOFError, zlib.error) as e:
            self.fail(f"cannot read shard {self.shard!r}: {e}")
            return
        with tar:
            try:
                while True:
                    info = tar.next()
                    if info is None:
                        break
                    tar.members = []  # stream mode keeps every header otherwise
                    sample = self.member(tar, info)
                    if sample is not None:
                        yield sample
                    if not self.read and (info.isreg() or info.type not in tarfile.SUPPORTED_TYPES):
                        _drain(tar.fileobj, info)  # not tarfile's skip: see _drain
            except (tarfile.TarError, OSError, EOFError, zlib.error) as e:
                self.key, self.members = None, {}
                self.fail(f"shard {self.shard!r} is damaged: {e}")
                return
        sample = self.finish()
        if sample is not None:
            yield sample


def samples_of_tar(path, image_ext, on_error="raise", limits=(MAX_IMAGE_BYTES, MAX_META_BYTES, MAX_MEMBERS)):
    """The (bytes, key, metadata) samples of one shard, in order."""
    return _Reader(path, image_ext, on_error, limits).samples()
