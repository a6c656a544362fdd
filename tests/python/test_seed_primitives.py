"""The per-sample streams (docs/random.md "Per-sample streams", aug/random.h):
augpy.stream_seed / augpy.sample_id against splitmix64 and FNV-1a written in seedref.py from
their definitions (exact ints), and the per-image-state forms of random_resized_crop
and color_jitter_params against the generator forms run on a RandomNumberGenerator
set to each state, one image at a time (and the uniforms against seedref's Philox). Bad input: clear TypeError / ValueError naming the function, never a crash
(the hostile cases run in a child interpreter)."""
import math
import random
import struct
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import augpy

from seedref import M32, M64, fnv1a64, philox, ref_sample_id, ref_stream_seed, splitmix64  # noqa: F401


def uniform01(seed, calls, i):
    """Element i of a float64 uniform [0, 1) fill of call `calls` of a generator seeded `seed`."""
    x = philox([i & M32, i >> 32, calls & M32, calls >> 32], [seed & M32, seed >> 32])
    a = x[0] | x[1] << 32
    return struct.unpack("<d", struct.pack("<Q", 0x3FF0000000000000 | a >> 12))[0] - 1.0


def test_references_known_answers():
    # splitmix64's first output for state 0 and FNV-1a's published test vectors
    assert splitmix64(0) == 0xE220A8397B1DCDAF
    assert fnv1a64(b"") == 0xCBF29CE484222325
    assert fnv1a64(b"a") == 0xAF63DC4C8601EC8C
    assert fnv1a64(b"foobar") == 0x85944171F73967E8
    assert philox([0, 0, 0, 0], [0, 0]) == [0x6627E8D5, 0xE169C58D, 0xBC57AC4C, 0x9B00DBD8]


# ---- stream_seed / sample_id ------------------------------------------------------------

EDGE_INTS = [0, 1, 2, 0x7FFFFFFF, 1 << 32, (1 << 63) - 1, 1 << 63, M64 - 1, M64]
EDGE_STREAMS = ["", "ImageNetTrain", "ColorJitter", "augment", "shuffle", "h\u00e9llo", "\u65e5\u672c\U0001F600",
                "x" * 1000]


def test_stream_seed_edges():
    for seed in EDGE_INTS:
        for epoch in EDGE_INTS:
            for stream in EDGE_STREAMS:
                assert augpy.stream_seed(seed, epoch, stream) == ref_stream_seed(seed, epoch, stream)
    assert augpy.stream_seed(seed=3, epoch=4, stream="s") == ref_stream_seed(3, 4, "s")
    # numpy integers and __index__ objects are ints
    assert augpy.stream_seed(np.uint64(M64), np.int64(7), "s") == ref_stream_seed(M64, 7, "s")

    class Idx:
        def __index__(self):
            return 12
    assert augpy.stream_seed(Idx(), Idx(), "s") == ref_stream_seed(12, 12, "s")


def test_stream_seed_random():
    r = random.Random(25)
    for _ in range(3000):
        seed, epoch = r.getrandbits(64), r.choice([r.getrandbits(64), r.randrange(100)])
        stream = "".join(chr(r.choice([r.randrange(32, 127), r.randrange(0xA0, 0xD7FF),
                                       r.randrange(0x10000, 0x10FFFF)])) for _ in range(r.randrange(0, 20)))
        got = augpy.stream_seed(seed, epoch, stream)
        assert type(got) is int and got == ref_stream_seed(seed, epoch, stream)
    # every input changes the seed
    assert len({augpy.stream_seed(s, e, n) for s in range(4) for e in range(4) for n in "abcd"}) == 64


def test_sample_id_edges():
    for key in ["", "a", "train/n01440764/n01440764_10026.JPEG", "h\u00e9llo", "\U0001F600" * 3, "a\x00b"]:
        assert augpy.sample_id(key) == ref_sample_id(key)
        assert augpy.sample_id(key.encode()) == ref_sample_id(key)
        assert augpy.sample_id(bytearray(key.encode())) == ref_sample_id(key)
        assert augpy.sample_id(memoryview(key.encode())) == ref_sample_id(key)
    assert augpy.sample_id(b"") == splitmix64(0xCBF29CE484222325)
    assert augpy.sample_id(np.frombuffer(b"abc", dtype=np.uint8)) == ref_sample_id(b"abc")
    assert augpy.sample_id(np.array([1, 2], dtype=np.int32)) == ref_sample_id(np.array([1, 2], np.int32).tobytes())
    # ints are their own ids (numpy integers too)
    for v in EDGE_INTS:
        assert augpy.sample_id(v) == v
    assert augpy.sample_id(np.uint64(M64)) == M64
    assert augpy.sample_id(np.int32(5)) == 5
    assert augpy.sample_id(np.array(9, dtype=np.int64)) == 9
    assert augpy.sample_id(key=b"k") == ref_sample_id(b"k")


def test_sample_id_random():
    r = random.Random(26)
    for _ in range(3000):
        data = bytes(r.getrandbits(8) for _ in range(r.randrange(0, 64)))
        assert augpy.sample_id(data) == ref_sample_id(data)
        text = "".join(chr(r.randrange(0x20, 0xD7FF)) for _ in range(r.randrange(0, 16)))
        assert augpy.sample_id(text) == ref_sample_id(text)
        v = r.getrandbits(64)
        assert augpy.sample_id(v) == v


def test_sample_rng_states():
    rngs = [(5, 0, 0), (5, 1, 7), (M64, M64, M64), (0, 3, augpy.sample_id("key"))]
    for stream in ("ImageNetTrain", "ColorJitter", ""):
        assert augpy.sample_rng_states(rngs, stream) == [(ref_stream_seed(s, e, stream), k) for s, e, k in rngs]
    assert augpy.sample_rng_states([], "x") == []
    assert augpy.sample_rng_states(iter([[1, 2, 3]]), "x") == [(ref_stream_seed(1, 2, "x"), 3)]
    assert augpy.sample_rng_states(np.array([[1, 2, 3]], dtype=np.uint64), "x") == [(ref_stream_seed(1, 2, "x"), 3)]


# ---- random_resized_crop with per-image states ------------------------------------------

def some_states(r, n):
    edge = [(0, 0), (M64, M64), (1, 1 << 40), (ref_stream_seed(1, 0, "ImageNetTrain"), ref_sample_id("img"))]
    return [edge[i] if i < len(edge) else (r.getrandbits(64), r.getrandbits(r.choice([3, 64])))
            for i in range(n)]


def rrc_items(rng, sizes, out=(24, 32), scale=(0.02, 1.0), ratio=(0.2, 5.0), hflip=0.5):
    return augpy._augpy._random_resized_crop(rng, [h for h, _ in sizes], [w for _, w in sizes], out[0], out[1],
                                             scale, ratio, hflip, 3, True, True)


def test_rrc_states_equal_generator_per_image():
    r = random.Random(27)
    n = 40
    sizes = [(r.randrange(1, 900), r.randrange(1, 900)) for _ in range(n)]
    states = some_states(r, n)
    got = rrc_items(states, sizes)
    gen = augpy.RandomNumberGenerator(seed=1)
    for k in range(n):
        gen.set_state(states[k])
        assert rrc_items(gen, [sizes[k]]) == [got[k]]
        assert gen.get_state() == (states[k][0], (states[k][1] + 1) & M64)
    # as tuples, lists or an (n, 2) uint64 array
    assert rrc_items([list(s) for s in states], sizes) == got
    assert rrc_items(tuple(states), sizes) == got
    assert rrc_items(np.array(states, dtype=np.uint64), sizes) == got
    # image k depends only on its own state
    assert rrc_items(states[5:6], sizes[5:6]) == got[5:6]
    assert rrc_items([], []) == []
    assert sum(it[1] for it in got) not in (0, n)  # both mirrored and not


def test_public_rrc_passes_states_through():
    r = random.Random(28)
    sizes = [(480, 640), (333, 500), (100, 1000), (1000, 90)]
    states = some_states(r, len(sizes))
    got = augpy.random_resized_crop(states, sizes, 224, hflip=0.5)
    gen = augpy.RandomNumberGenerator(seed=2)
    for k, st in enumerate(states):
        gen.set_state(st)
        one = augpy.random_resized_crop(gen, sizes[k:k + 1], 224, hflip=0.5)
        for name, v in got.items():
            np.testing.assert_array_equal(v[k:k + 1], one[name], err_msg=name)
    seeds = augpy.sample_rng_states([(7, 2, augpy.sample_id(f"img{i}")) for i in range(4)], "ImageNetTrain")
    a = augpy.random_resized_crop(seeds, sizes, 224)
    b = augpy.random_resized_crop(seeds[::-1], sizes[::-1], 224)
    np.testing.assert_array_equal(a["crop"], b["crop"][::-1])  # per sample, not per position


# ---- color_jitter_params with per-image states ------------------------------------------

SPECS = [{"brightness": 0.4, "contrast": 0.4, "saturation": 0.4, "hue": 0.1},
         {"brightness": (0.0, 3.0), "contrast": (0.2, 1.9), "hue": 0.5},
         {"saturation": 0.5, "random_order": False}, {}]


@pytest.mark.parametrize("spec", SPECS)
def test_color_jitter_states_equal_generator_per_image(spec):
    r = random.Random(29)
    n = 25
    states = some_states(r, n)
    got = augpy.color_jitter_params(states, n, **spec)
    gen = augpy.RandomNumberGenerator(seed=3)
    for k in range(n):
        gen.set_state(states[k])
        one = augpy.color_jitter_params(gen, 1, **spec)
        for key, vals in got.items():
            assert (vals is None and one[key] is None) or vals[k] == one[key][0], key
    assert augpy.color_jitter_params(np.array(states, dtype=np.uint64), n, **spec) == got
    assert augpy.color_jitter_params([], 0, **spec) == augpy.color_jitter_params(gen, 0, **spec)


def test_color_jitter_states_against_philox():
    r = random.Random(30)
    states = some_states(r, 12)
    got = augpy.color_jitter_params(states, len(states), brightness=(0.5, 1.5), hue=(-0.25, 0.5))
    for k, (seed, calls) in enumerate(states):
        u = [uniform01(seed, calls, j) for j in range(7)]
        assert got["brightness"][k] == 0.5 + u[0] * (1.5 - 0.5)
        assert got["hue"][k] == -0.25 + u[3] * (0.5 - -0.25)
        p = [0, 1, 2, 3]
        for kk in (3, 2, 1):
            j = int(u[4 + 3 - kk] * (kk + 1))
            p[kk], p[j] = p[j], p[kk]
        assert got["order"][k] == tuple(p)


# ---- bad input ----------------------------------------------------------------------------

def test_bad_stream_seed_and_sample_id():
    with pytest.raises(ValueError, match=r"^augpy.stream_seed: seed = -1 is out of range \[0, 2\*\*64\)"):
        augpy.stream_seed(-1, 0, "s")
    with pytest.raises(ValueError, match=r"^augpy.stream_seed: epoch = 18446744073709551616 is out of range"):
        augpy.stream_seed(0, 1 << 64, "s")
    with pytest.raises(ValueError, match=r"^augpy.stream_seed: seed = \(an int of 16610 bits\)"):
        augpy.stream_seed(10 ** 5000, 0, "s")
    for bad in (1.0, None, "3", True):
        with pytest.raises(TypeError, match=r"^augpy.stream_seed: seed must be an int"):
            augpy.stream_seed(bad, 0, "s")
    for bad in (b"s", None, 3):
        with pytest.raises(TypeError, match=r"^augpy.stream_seed: stream must be a str, not '%s'" % type(bad).__name__):
            augpy.stream_seed(0, 0, bad)
    with pytest.raises(ValueError, match=r"^augpy.stream_seed: stream .* NUL"):
        augpy.stream_seed(0, 0, "a\x00b")
    with pytest.raises(ValueError, match=r"^augpy.stream_seed: stream .* UTF-8"):
        augpy.stream_seed(0, 0, "\ud800")
    with pytest.raises(TypeError, match=r"^augpy.stream_seed\(\) missing required argument 'stream'"):
        augpy.stream_seed(0, 0)
    for bad in (1.5, None, [1], {"a": 1}, object(), True):
        with pytest.raises(TypeError, match=r"^augpy.sample_id: key must be a str, a bytes-like object or an int "
                                            r"in \[0, 2\*\*64\), not '%s'" % type(bad).__name__):
            augpy.sample_id(bad)
    for bad, shown in ((-1, "-1"), (1 << 64, str(1 << 64)), (10 ** 5000, r"\(an int of 16610 bits\)")):
        with pytest.raises(ValueError, match=r"^augpy.sample_id: key = %s is out of range" % shown):
            augpy.sample_id(bad)
    with pytest.raises(ValueError, match=r"^augpy.sample_id: key .* UTF-8"):
        augpy.sample_id("\udc80")
    with pytest.raises(TypeError, match=r"^augpy.sample_id: key must be a contiguous bytes-like object"):
        augpy.sample_id(memoryview(b"abcdef")[::2])
    with pytest.raises(TypeError, match=r"^augpy.sample_id: key must be an int: "):
        augpy.sample_id(np.array(1.5))  # a 0-d float array: not an int


def test_bad_rng_states():
    sizes = [(100, 100), (50, 80)]
    cases = [
        (TypeError, r"rng must be an augpy.RandomNumberGenerator or a sequence of \(seed, calls\) pairs, not 'int'",
         5),
        (TypeError, r"rng must be an augpy.RandomNumberGenerator or a sequence of \(seed, calls\) pairs, not 'str'",
         "ab"),
        (TypeError, r"rng\[1\] must be a \(seed, calls\) pair of ints, not 'int'", [(1, 2), 3]),
        (TypeError, r"rng\[0\] must be a \(seed, calls\) pair of ints, not 'bytes'", [b"ab", (1, 2)]),
        (ValueError, r"rng\[0\] must be a \(seed, calls\) pair, got 3 values", [(1, 2, 3), (1, 2)]),
        (ValueError, r"rng\[1\] calls = -1 is out of range \[0, 2\*\*64\)", [(1, 2), (1, -1)]),
        (ValueError, r"rng\[0\] seed = 18446744073709551616 is out of range", [(1 << 64, 0), (1, 2)]),
        (ValueError, r"rng\[0\] seed = \(an int of 16610 bits\) is out of range", [(10 ** 5000, 0), (1, 2)]),
        (TypeError, r"rng\[0\] seed must be an int in \[0, 2\*\*64\), not 'float'", [(1.0, 0), (1, 2)]),
        (TypeError, r"rng\[0\] calls must be an int in \[0, 2\*\*64\), not 'NoneType'", [(1, None), (1, 2)]),
    ]
    for exc, msg, rng in cases:
        with pytest.raises(exc, match=r"^random_resized_crop: " + msg):
            rrc_items(rng, sizes)
        cj_msg = msg.replace("a sequence of", "a sequence of n")
        with pytest.raises(exc, match=r"^augpy.color_jitter_params: " + cj_msg):
            augpy.color_jitter_params(rng, 2, brightness=0.3)
    with pytest.raises(ValueError, match=r"^random_resized_crop: 1 generator states \(rng\) but 2 images"):
        rrc_items([(1, 2)], sizes)
    with pytest.raises(ValueError, match=r"^augpy.color_jitter_params: 3 generator states \(rng\) but n = 2"):
        augpy.color_jitter_params([(1, 2)] * 3, 2)
    with pytest.raises(ValueError, match=r"^augpy.color_jitter_params: brightness"):
        augpy.color_jitter_params([(1, 2)] * 2, 2, brightness=-1.0)
    with pytest.raises(ValueError, match=r"^random_resized_crop: .*scale"):
        rrc_items([(1, 2)] * 2, sizes, scale=(0.0, 1.0))
    with pytest.raises(TypeError, match=r"^augpy.sample_rng_states: rngs must be a sequence"):
        augpy.sample_rng_states(5, "x")
    with pytest.raises(ValueError, match=r"^augpy.sample_rng_states: rngs\[0\] must be a \(seed, epoch, sample\)"):
        augpy.sample_rng_states([(1, 2)], "x")
    with pytest.raises(ValueError, match=r"^augpy.sample_rng_states: rngs\[0\] sample = -1 is out of range"):
        augpy.sample_rng_states([(1, 2, -1)], "x")
    with pytest.raises(TypeError, match=r"^augpy.sample_rng_states: rngs\[0\] sample must be an int"):
        augpy.sample_rng_states([(1, 2, 1.5)], "x")
    with pytest.raises(TypeError, match=r"^augpy.stream_seed: stream must be a str"):
        augpy.sample_rng_states([(1, 2, 3)], None)


HOSTILE = r"""
import numpy as np
import augpy

class Boom(Exception):
    pass

def expect(exc, fn, *args, **kw):
    try:
        fn(*args, **kw)
    except exc as e:
        return e
    raise AssertionError(f"{fn} did not raise {exc}")

def rrc(rng, n):
    return augpy._augpy._random_resized_crop(rng, [50] * n, [60] * n, 8, 8, (0.08, 1.0), (0.75, 1.33), 0.5, 3,
                                             True, True)

want = rrc([(1, 2), (3, 4), (5, 6)], 3)
want_cj = augpy.color_jitter_params([(1, 2), (3, 4), (5, 6)], 3, brightness=0.4)

# the list is cleared / its items replaced by junk while a seed's __index__ runs: a snapshot was taken
for make_junk in (lambda L: L.clear(), lambda L: L.__setitem__(slice(None), [b"junk"] * 10),
                  lambda L: L.append((9, 9))):
    L = []
    class Mut:
        def __index__(self):
            make_junk(L)
            return 1
    L[:] = [(Mut(), 2), (3, 4), (5, 6)]
    assert rrc(L, 3) == want
    L[:] = [(Mut(), 2), (3, 4), (5, 6)]
    assert augpy.color_jitter_params(L, 3, brightness=0.4) == want_cj
    # the pair itself changed (a list) while its first item is read
    P = [None, 2]
    class MutPair:
        def __index__(self):
            P.clear()
            return 1
    P[0] = MutPair()
    assert rrc([P, (3, 4), (5, 6)], 3) == want

# heights / widths lists changed while read
H = []
class MutH:
    def __index__(self):
        H.clear()
        return 50
H[:] = [MutH(), 50, 50]
assert augpy._augpy._random_resized_crop([(1, 2), (3, 4), (5, 6)], H, [60] * 3, 8, 8, (0.08, 1.0), (0.75, 1.33),
                                         0.5, 3, True, True) == want

# __index__ / __iter__ / __len__ / __getitem__ that raise: their own exception passes through
class BadIndex:
    def __index__(self):
        raise Boom("index")
class BadIter:
    def __iter__(self):
        raise Boom("iter")
    def __len__(self):
        return 2
    def __getitem__(self, i):
        raise Boom("getitem")
class BadLen:
    def __len__(self):
        raise Boom("len")
    def __getitem__(self, i):
        raise Boom("getitem")
for rng in ([(BadIndex(), 1)] * 3, [(1, BadIndex())] * 3, BadIter(), [BadIter()] * 3, [BadLen()] * 3):
    expect(Boom, rrc, rng, 3)
    expect(Boom, augpy.color_jitter_params, rng, 3)
expect(Boom, augpy.stream_seed, BadIndex(), 0, "s")
expect(Boom, augpy.sample_id, BadIndex())
expect(Boom, augpy.sample_rng_states, BadIter(), "s")
# __index__ returning a non-int: a TypeError naming the function
class StrIndex:
    def __index__(self):
        return "3"
e = expect(TypeError, augpy.stream_seed, StrIndex(), 0, "s")
assert str(e).startswith("augpy.stream_seed: seed must be an int"), e
e = expect(TypeError, rrc, [(StrIndex(), 1)] * 3, 3)
assert str(e).startswith("random_resized_crop: rng[0] seed must be an int"), e
e = expect(TypeError, augpy.sample_id, StrIndex())
assert str(e).startswith("augpy.sample_id: key must be an int"), e
# a huge __index__
class Huge:
    def __index__(self):
        return 10 ** 5000
e = expect(ValueError, augpy.color_jitter_params, [(Huge(), 1)] * 3, 3)
assert "rng[0] seed = (an int of 16610 bits) is out of range" in str(e), e
e = expect(ValueError, augpy.sample_id, Huge())
assert str(e).startswith("augpy.sample_id: key = (an int of 16610 bits)"), e
# a bytearray key resized by nobody (exported while hashed) and a big key
assert augpy.sample_id(bytearray(b"x" * (1 << 20))) == augpy.sample_id(b"x" * (1 << 20))
# a long list of states
n = 20000
big = [(i, i) for i in range(n)]
assert len(rrc(big, n)) == n
assert len(augpy.color_jitter_params(big, n, hue=0.1)["hue"]) == n
print("ok")
"""


def test_hostile_inputs_never_crash():
    proc = subprocess.run([sys.executable, "-c", textwrap.dedent(HOSTILE)], capture_output=True, text=True,
                          timeout=300)
    assert proc.returncode == 0 and proc.stdout.strip().endswith("ok"), proc.stdout + proc.stderr
