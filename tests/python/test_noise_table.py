"""RandomNumberGenerator.gaussian_noise on 8/16-bit integer images (semantics §11.2): the noise is
round(mean + std * N(0, 1)) drawn by inverse CDF from one 32-bit Philox word per element. Tested
byte for byte against a NumPy model of that definition (Philox-4x32-10, the quantised CDF table),
and statistically: chi-square against the exact discretised probabilities, mean and variance per
std, per-image std, saturation at 0 / 255. On the default device (CPU, or the emulated cuda:0
under MODE=emu)."""
import math

import numpy as np
import pytest

import augpy
import filterref as R

M32 = 0xFFFFFFFF
INTS = ["uint8", "int8", "int16", "uint16"]
RANGE = {"uint8": (0, 255), "int8": (-128, 127), "int16": (-32768, 32767), "uint16": (0, 65535)}


def philox_words(key, call, blocks):
    """Philox-4x32-10 of counters (b, call) for the uint64 array blocks: an (n, 4) uint32 array."""
    c0 = (blocks & M32).astype(np.uint64)
    c1 = (blocks >> np.uint64(32)).astype(np.uint64)
    c2 = np.full_like(c0, call & M32)
    c3 = np.full_like(c0, call >> 32)
    k0, k1 = key & M32, key >> 32
    m32 = np.uint64(M32)
    for r in range(10):
        if r:
            k0, k1 = (k0 + 0x9E3779B9) & M32, (k1 + 0xBB67AE85) & M32
        p0, p1 = c0 * np.uint64(0xD2511F53), c2 * np.uint64(0xCD9E8D57)
        c0, c1, c2, c3 = ((p1 >> np.uint64(32)) ^ c1 ^ np.uint64(k0)) & m32, p1 & m32, \
            ((p0 >> np.uint64(32)) ^ c3 ^ np.uint64(k1)) & m32, p0 & m32
    return np.stack([c0, c1, c2, c3], axis=1).astype(np.uint32)


def kmax(xd, od):
    (xl, xh), (ol, oh) = RANGE[xd], RANGE[od]
    return max(oh - xl, xh - ol)


def quantised_cdf(k, mean, std):
    """Q(k) of semantics §11.2, an integer in [0, 2^32]."""
    t = (k + 0.5 - mean) / std
    return math.floor(math.ldexp(0.5 * math.erfc(-t * 0.7071067811865476), 32) + 0.5)


def draw_k(u, mean, std, K):
    """k = the smallest integer in [-K, K] with u < Q(k) (Q(K) counted as 2^32)."""
    if std == 0.0:
        return np.full(u.shape, int(np.clip(np.rint(mean), -K, K)), np.int64)
    lo = min(K, max(-K, math.floor(mean - 8 * std) - 2))
    hi = max(-K, min(K, math.ceil(mean + 8 * std) + 2))
    q = np.array([quantised_cdf(k, mean, std) for k in range(lo, hi)], np.uint64)
    q = np.maximum.accumulate(q)
    return lo + np.searchsorted(q, u.astype(np.uint64), side="right").astype(np.int64)


def model(x, state, mean, stds, od):
    """The noisy image by the definition (x C-ordered NumPy, stds one per image)."""
    seed, call = state
    n = x.size
    i = np.arange(n, dtype=np.uint64)
    u = philox_words(seed, call, i >> np.uint64(2))[np.arange(n), (i & np.uint64(3)).astype(np.int64)]
    K = kmax(str(x.dtype), od)
    per = n // x.shape[0]
    k = np.concatenate([draw_k(u[j * per:(j + 1) * per], mean, float(np.float32(s)), K) for j, s in enumerate(stds)])
    lo, hi = RANGE[od]
    return np.clip(x.reshape(-1).astype(np.int64) + k, lo, hi).astype(od).reshape(x.shape)


@pytest.mark.parametrize("xd", INTS)
@pytest.mark.parametrize("od", ["same", "uint8", "int16"])
def test_equals_definition(rng, xd, od):
    od = xd if od == "same" else od
    x = R.random_image(rng, (3, 17, 29), xd)
    g = augpy.RandomNumberGenerator(seed=0x1234_5678_9ABC)
    g.gaussian(augpy.empty((5,), dtype=augpy.float32))  # a later call number than 0
    for mean, std in [(0.0, 25.0), (3.5, 0.0), (2.5, 0.0), (-100.0, 1e3), (0.25, 0.5), (1e6, 3.0), (0.0, 1e30),
                      (0.5, 1e-30), (-7.0, 2e4)]:
        state = g.get_state()
        got = g.gaussian_noise(R.make(x, xd), std, mean, out=augpy.empty(x.shape, dtype=R.adtype(od)))
        np.testing.assert_array_equal(R.read(got), model(x, state, mean, [std] * 3, od), err_msg=f"{mean} {std}")
        assert g.get_state() == (state[0], state[1] + 1)  # one call


def test_per_image_equals_definition(rng):
    x = R.random_image(rng, (5, 3, 7, 11), "uint8")
    stds = [0.0, 5.0, 17.5, 5.0, 300.0]  # a repeated std shares its table
    g = augpy.RandomNumberGenerator(seed=99)
    state = g.get_state()
    got = g.gaussian_noise(R.make(x, "uint8"), stds, mean=1.25)
    np.testing.assert_array_equal(R.read(got), model(x, state, 1.25, stds, "uint8"))


def test_views_and_in_place(rng):
    base = R.make(R.random_image(rng, (6, 10, 12), "uint8"), "uint8")
    g = augpy.RandomNumberGenerator(seed=5)
    for v in [base[::-1], base.permute(2, 0, 1), base[1:5, ::3, 2:11]]:
        state = g.get_state()
        got = g.gaussian_noise(v, 30.0)
        np.testing.assert_array_equal(R.read(got), model(R.read(v.contiguous()), state, 0.0, [30.0] * v.shape[0],
                                                         "uint8"))
    y = augpy.array_to_tensor(R.read(base))
    state = g.get_state()
    g.gaussian_noise(y, 4.0, out=y)
    np.testing.assert_array_equal(R.read(y), model(R.read(base), state, 0.0, [4.0] * 6, "uint8"))


@pytest.mark.parametrize("stds", [[8.0, 8.0], [3.0, 10.0], [0.3, 60.0], [255.0, 0.0], [1.5, 1e-3]])
def test_vector_path_equals_definition(rng, stds):
    """Images large enough for the AVX2 path's 32-element steps, odd sizes (tails), std from a
    fraction of a level (one or two thresholds) to 255 (many per fine bucket in the tails)."""
    x = R.random_image(rng, (2, 3, 37, 45), "uint8")
    g = augpy.RandomNumberGenerator(seed=0xC0FFEE)
    for per_image in (False, True):
        state = g.get_state()
        got = g.gaussian_noise(R.make(x, "uint8"), stds if per_image else stds[0], mean=0.5 if per_image else 0.0)
        want = model(x, state, 0.5 if per_image else 0.0, stds if per_image else [stds[0]] * 2, "uint8")
        np.testing.assert_array_equal(R.read(got), want, err_msg=f"{stds} {per_image}")


def test_portable_equals_simd(tmp_path):
    """AUG_SIMD=sse2 (the portable rule) gives the bytes of the AVX2 path (AUG_SIMD=avx2) and of the
    default one (AVX-512 where the CPU has it), both from the fine guides: uint8 in place, int16 and
    strided views (the generic AVX2 path), uint16 with a std whose table is too long for the fine
    guides."""
    import os
    import subprocess
    import sys
    code = f"""
import numpy as np, augpy, os
rng = np.random.default_rng(3)
outs = []
for d, std in (('uint8', 8.0), ('uint8', 77.0), ('int16', 12.0), ('uint16', 3000.0)):
    x = augpy.array_to_tensor(rng.integers(0, 200, (3, 3, 41, 43)).astype(d))
    g = augpy.RandomNumberGenerator(seed=7)
    g.gaussian_noise(x, std, out=x)
    outs.append(x.numpy().view(np.uint8).reshape(-1))
    outs.append(g.gaussian_noise(x.permute(0, 2, 3, 1), [std, 0.7, 5.0]).numpy().view(np.uint8).reshape(-1))
np.save(r'{tmp_path}/' + os.environ.get('AUG_SIMD', 'auto') + '.npy', np.concatenate(outs))
"""
    for simd in ("sse2", "avx2", "auto"):
        env = {k: v for k, v in os.environ.items() if k != "AUG_SIMD"}
        if simd != "auto":
            env["AUG_SIMD"] = simd
        subprocess.run([sys.executable, "-c", code], check=True, env=env)
    for simd in ("avx2", "auto"):
        np.testing.assert_array_equal(np.load(tmp_path / "sse2.npy"), np.load(tmp_path / f"{simd}.npy"), err_msg=simd)


def phi(t):
    return 0.5 * math.erfc(-t / math.sqrt(2.0))


def chi2_threshold(df, z=5.0):
    """Wilson-Hilferty: the chi-square quantile at the normal z-score z (z = 5: p about 3e-7)."""
    a = 2.0 / (9.0 * df)
    return df * (1.0 - a + z * math.sqrt(a)) ** 3


@pytest.mark.parametrize("std", [0.5, 3.0, 8.0, 30.0, 100.0])
def test_chi_square_mean_variance(std):
    """x = 128: out = 128 + k saturated at 0 / 255; the counts against the exact probabilities
    P(k) = Phi((k + 0.5) / std) - Phi((k - 0.5) / std), the tails lumped into 0 and 255."""
    n = 1 << 21
    g = augpy.RandomNumberGenerator(seed=int(std * 1000) + 7)
    out = R.read(g.gaussian_noise(augpy.full((n,), 128, augpy.uint8), std)).astype(np.int64)
    counts = np.bincount(out, minlength=256)
    cdf = np.array([phi((v - 128 + 0.5) / std) for v in range(256)])
    cdf[255] = 1.0
    p = np.diff(np.concatenate([[0.0], cdf]))
    expected = p * n
    keep = expected >= 5  # pool the bins below 5 expected
    obs = np.append(counts[keep], counts[~keep].sum())
    exp = np.append(expected[keep], expected[~keep].sum())
    if exp[-1] < 5:
        obs, exp = obs[:-1], exp[:-1]
    stat = float(((obs - exp) ** 2 / exp).sum())
    df = len(obs) - 1
    assert stat < chi2_threshold(df), (stat, df)
    # mean and variance of the saturated values against the exact ones: 6 standard errors
    vals = np.arange(256)
    mu = float((p * vals).sum())
    var = float((p * (vals - mu) ** 2).sum())
    assert abs(out.mean() - mu) < 6 * math.sqrt(var / n), (out.mean(), mu)
    # the sample variance's standard error: sqrt((mu4 - var^2) / n)
    mu4 = float((p * (vals - mu) ** 4).sum())
    assert abs(out.var() - var) < 6 * math.sqrt((mu4 - var * var) / n), (out.var(), var)
    if std <= 8.0:  # no saturation: the unclipped round(std * N(0, 1)) has variance close to std^2 + 1/12
        assert abs(var - (std * std + 1.0 / 12.0)) < 0.02 * std * std + 0.05


def test_saturation():
    g = augpy.RandomNumberGenerator(seed=3)
    lo = R.read(g.gaussian_noise(augpy.full((1 << 16,), 2, augpy.uint8), 50.0))
    hi = R.read(g.gaussian_noise(augpy.full((1 << 16,), 253, augpy.uint8), 50.0))
    assert lo.min() == 0 and hi.max() == 255
    assert abs((lo == 0).mean() - phi(-1.5 / 50.0)) < 0.01
    assert abs((hi == 255).mean() - (1 - phi(1.5 / 50.0))) < 0.01
    # int16 into uint8: far below 0 saturates to 0, far above to 255
    x = augpy.array_to_tensor(np.array([-30000, 30000] * 8, np.int16))
    assert R.read(g.gaussian_noise(x, 5.0, out=augpy.empty((16,), dtype=augpy.uint8))).tolist() == [0, 255] * 8


def test_per_image_std_statistics():
    stds = [0.5, 3.0, 8.0, 30.0]
    n = 1 << 18
    g = augpy.RandomNumberGenerator(seed=11)
    out = R.read(g.gaussian_noise(augpy.full((4, n), 128, augpy.int16), stds)).astype(np.float64) - 128
    for j, s in enumerate(stds):
        want = s * s + 1.0 / 12.0 if s >= 1 else sum(k * k * (phi((k + .5) / s) - phi((k - .5) / s))
                                                   for k in range(-10, 11))
        assert abs(out[j].mean()) < 6 * math.sqrt(want / n)
        assert abs(out[j].var() / want - 1.0) < 0.02, (s, out[j].var(), want)


def test_float_outputs_keep_the_float_rule():
    """A float32 out (or x) still gets the float32 fill + add; only integer x into integer out changes."""
    g = augpy.RandomNumberGenerator(seed=8)
    x = augpy.full((2, 50), 100, augpy.uint8)
    state = g.get_state()
    got = g.gaussian_noise(x, 7.0, out=augpy.empty((2, 50), dtype=augpy.float32))
    g2 = augpy.RandomNumberGenerator(seed=0)
    g2.set_state(state)
    noise = augpy.empty((2, 50), dtype=augpy.float32)
    g2.gaussian(noise, 0.0, 7.0)
    np.testing.assert_array_equal(R.read(got), 100 + R.read(noise))


@pytest.mark.parametrize("std,msg", [(-1.0, "std = -1 must be finite and >= 0"), (float("nan"), "std = nan"),
                                     ([1.0, -0.5], "stds[1] = -0.5"), ([float("nan"), 1.0], "stds[0] = nan")])
def test_bad_std(std, msg):
    g = augpy.RandomNumberGenerator(seed=1)
    s0 = g.get_state()
    with pytest.raises(ValueError) as e:
        g.gaussian_noise(augpy.full((2, 8), 9, augpy.uint8), std)
    assert "gaussian_noise" in str(e.value) and msg in str(e.value), str(e.value)
    assert g.get_state() == s0
