"""Independent references for the seed model's arithmetic (exact Python integers), written
from their published definitions, not from augpy's code: Random123's Philox-4x32-10,
splitmix64's output function, FNV-1a 64, and the contract's stream_seed / sample_id
(docs/semantics.md §11.1). Used by test_seed_primitives.py, test_data.py and test_rrc.py."""

M64 = (1 << 64) - 1
M32 = 0xFFFFFFFF


def splitmix64(x):
    z = (x + 0x9E3779B97F4A7C15) & M64
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & M64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M64
    return z ^ (z >> 31)


def fnv1a64(data):
    h = 0xCBF29CE484222325
    for b in data:
        h = ((h ^ b) * 0x100000001B3) & M64
    return h


def ref_stream_seed(seed, epoch, stream):
    return splitmix64(splitmix64(splitmix64(seed) ^ epoch) ^ fnv1a64(stream.encode("utf-8")))


def ref_sample_id(key):
    if isinstance(key, int):
        return key
    if isinstance(key, str):
        key = key.encode("utf-8")
    return splitmix64(fnv1a64(bytes(key)))


def philox(ctr, key):
    """Random123's philox4x32_R(10, ctr, key)."""
    c = list(ctr)
    k0, k1 = key
    for r in range(10):
        if r:
            k0, k1 = (k0 + 0x9E3779B9) & M32, (k1 + 0xBB67AE85) & M32
        p0, p1 = 0xD2511F53 * c[0], 0xCD9E8D57 * c[2]
        c = [((p1 >> 32) ^ c[1] ^ k0) & M32, p1 & M32, ((p0 >> 32) ^ c[3] ^ k1) & M32, p0 & M32]
    return c
