"""Independent reference for the operator tests (semantics §2, §6-§10).

Nothing here calls augpy's math: values are Python ints (exact) and floats, the
promotion table and the weak-scalar rules are re-implemented from semantics.md,
integer results are computed exactly and saturated, float results are computed
with NumPy in the compute type (float32 for float16/bfloat16/float32, float64)
and narrowed with the semantics §2 rules. bfloat16 tensors are written and read
through float32 (augpy.cast), so ml_dtypes is not needed.
"""
import math
from fractions import Fraction

import numpy as np

import augpy

DTYPES = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
          "float16", "bfloat16", "float32", "float64"]
INTS = [d for d in DTYPES if d.startswith(("int", "uint"))]
FLOATS = ["float16", "bfloat16", "float32", "float64"]
INTEGRAL = ["bool"] + INTS
BITS = {"bool": 8, "int8": 8, "int16": 16, "int32": 32, "int64": 64, "uint8": 8, "uint16": 16,
        "uint32": 32, "uint64": 64, "float16": 16, "bfloat16": 16, "float32": 32, "float64": 64}
NP = {d: (np.dtype(d) if d != "bfloat16" else np.dtype(np.float32)) for d in DTYPES}
FMAX = {"float16": 65504.0, "bfloat16": 3.3895313892515355e38,
        "float32": float(np.finfo(np.float32).max), "float64": float(np.finfo(np.float64).max)}
TEMP = {"bool": "float32", "int8": "float32", "int16": "float32", "int32": "float64", "int64": "float64",
        "uint8": "float32", "uint16": "float32", "uint32": "float64", "uint64": "float64",
        "float16": "float32", "bfloat16": "float32", "float32": "float32", "float64": "float64"}


def kind(d):
    if d == "bool":
        return "b"
    if d in FLOATS:
        return "f"
    return "u" if d.startswith("uint") else "i"


def limits(d):
    """(min, max) of an integer dtype as Python ints."""
    if d == "bool":
        return 0, 1
    b = BITS[d]
    return (0, 2 ** b - 1) if kind(d) == "u" else (-(2 ** (b - 1)), 2 ** (b - 1) - 1)


def adtype(d):
    return getattr(augpy, "bool_" if d == "bool" else d)


def name_of(dt):
    for d in DTYPES:
        if dt == adtype(d):
            return d
    raise AssertionError(f"unknown dtype {dt!r}")


# ---- tensors in and out ------------------------------------------------------------

def bf16_round(x):
    """float32 array -> nearest-even bfloat16 values (as float32); finite overflow saturates."""
    x = np.asarray(x, np.float32)
    u = x.view(np.uint32).astype(np.uint64)
    r = ((u + 0x7FFF + ((u >> 16) & 1)) & 0xFFFF0000).astype(np.uint32).view(np.float32)
    r = np.where(np.isnan(x), np.float32("nan"), r)
    big = np.isfinite(x) & np.isinf(r)
    return np.where(big, np.copysign(np.float32(FMAX["bfloat16"]), x), r).astype(np.float32)


def make(values, d):
    """A new tensor of dtype d holding `values` (exactly representable in d)."""
    a = np.array(values, dtype=NP[d], order="C")  # (ascontiguousarray would make 0-d arrays 1-d)
    t = augpy.array_to_tensor(a)
    return augpy.cast(t, augpy.bfloat16) if d == "bfloat16" else t


def read(t):
    """Tensor values as a NumPy array (bfloat16 read as float32)."""
    if t.dtype == augpy.bfloat16:
        t = augpy.cast(t, augpy.float32)
    return np.asarray(t.numpy())


def gen(rng, d, shape, special=True):
    """Random values of dtype d (bfloat16 as float32), with extremes mixed in."""
    n = int(np.prod(shape, dtype=np.int64))
    if d == "bool":
        v = rng.integers(0, 2, n).astype(bool)
    elif kind(d) in "iu":
        lo, hi = limits(d)
        full = np.array([rng.integers(lo, hi, endpoint=True, dtype=NP[d]) for _ in range(n)], NP[d])
        small = rng.integers(max(lo, -12), min(hi, 12), n, endpoint=True).astype(NP[d])
        v = np.where(rng.random(n) < 0.5, small, full).astype(NP[d])
        if special and n:
            sp = np.array([lo, hi, 0, 1, min(hi, 2), max(lo, -1), lo + 1, hi - 1], dtype=object)
            k = rng.integers(0, n, min(n, 4))
            v[k] = sp[rng.integers(0, len(sp), len(k))].astype(NP[d])
    else:
        mag = {"float16": 1e3, "bfloat16": 1e6, "float32": 1e6, "float64": 1e9}[d]
        v = np.where(rng.random(n) < 0.5, rng.integers(-20, 21, n) * 0.5,
                     rng.standard_normal(n) * rng.choice([1.0, 10.0, mag], n))
        if special and n:
            sp = np.array([0.0, -0.0, 1.0, -1.0, 0.5, 2.5, -2.5, np.inf, -np.inf, np.nan, FMAX[d], -FMAX[d]])
            k = rng.integers(0, n, min(n, 4))
            v[k] = sp[rng.integers(0, len(sp), len(k))]
        v = v.astype(np.float32 if d == "bfloat16" else NP[d])
        if d == "bfloat16":
            v = (v.view(np.uint32) & np.uint32(0xFFFF0000)).view(np.float32)
    return v.reshape(shape)


def pyvals(a):
    """NumPy array -> object array of exact Python numbers (int, or float)."""
    a = np.asarray(a)
    if a.dtype == bool or a.dtype.kind in "iu":
        return np.vectorize(int, otypes=[object])(a) if a.size else a.astype(object)
    return np.vectorize(float, otypes=[object])(a) if a.size else a.astype(object)


# ---- casts -------------------------------------------------------------------------

MANT = {"float16": (10, -14), "bfloat16": (7, -126), "float32": (23, -126), "float64": (52, -1022)}


def round_exact(x, d, saturate):
    """Exact value (int / Fraction / finite float) -> nearest-even value of float dtype d,
    as a Python float. Beyond the range: +-max with `saturate` (semantics §2 casts), else
    IEEE (+-inf once past max + half an ulp)."""
    fx = Fraction(x)
    if fx == 0:
        return 0.0
    sign = -1.0 if fx < 0 else 1.0
    a = abs(fx)
    mant, emin = MANT[d]
    e = a.numerator.bit_length() - a.denominator.bit_length()
    if Fraction(2) ** e > a:
        e -= 1
    e = max(e, emin)
    q = a / Fraction(2) ** (e - mant)
    n = round(q)  # half to even
    v = Fraction(n) * Fraction(2) ** (e - mant)
    fmax = Fraction(FMAX[d])
    if v > fmax:
        if saturate:
            return sign * FMAX[d]
        return sign * math.inf
    return sign * float(v)


def round_f32(x):
    """int / Fraction / float -> float32 (IEEE rounding, overflow -> inf)."""
    if isinstance(x, (float, np.floating)):
        with np.errstate(all="ignore"):
            return np.float32(x)
    return np.float32(round_exact(x, "float32", saturate=False))


def narrow(v, d):
    """A float result rounded to its float dtype d as IEEE arithmetic does (semantics §7
    "Float results": overflow -> +-inf; only explicit conversions saturate, sat_cast)."""
    if isinstance(v, (int, Fraction)) and not isinstance(v, bool):
        return round_exact(v, d, saturate=False)
    v = float(v)
    if d == "float64" or not math.isfinite(v) or v == 0:  # a zero keeps its sign
        return v
    return round_exact(v, d, saturate=False)


def store_value(v, d, r):
    """The value v of an op whose result dtype is r, stored into dtype d: IEEE rounding
    when d is r itself and a float (narrow), else the conversion (sat_cast)."""
    if d == r and kind(d) == "f":
        return narrow(v, d)
    return sat_cast(v, d)


def float_floordiv_mod(op, x, y, r):
    """Float `//` and `%` (semantics §7): NumPy's floor_divide / remainder in the result
    dtype r, each operand first rounded to r (IEEE). Returns the value in the compute
    type, float32 for float16/bfloat16 as NumPy's half loops compute (the caller
    rounds it to r: narrow)."""
    a, b = narrow(x, r), narrow(y, r)
    t = np.float64 if r == "float64" else np.float32
    fn = np.floor_divide if op == "//" else np.remainder
    with np.errstate(all="ignore"):
        res = fn(t(a), t(b))
    return float(res)


def sat_cast(v, d):
    """semantics §2 saturate_cast of one exact value (int, Fraction, float) to dtype d."""
    if d == "bool":
        return bool(v != 0) if not (isinstance(v, float) and math.isnan(v)) else True
    if kind(d) in "iu":
        lo, hi = limits(d)
        if isinstance(v, float):
            if math.isnan(v):
                return 0
            if math.isinf(v):
                return hi if v > 0 else lo
        r = round(v) if not isinstance(v, int) else v
        return min(hi, max(lo, int(r)))
    if isinstance(v, float) and not math.isfinite(v):
        return v
    return round_exact(v, d, saturate=True)


def expected_array(vals, d):
    """Object array of Python values -> NumPy array comparable with read(t)."""
    out = np.empty(np.shape(vals), dtype=NP[d])
    flat = out.reshape(-1)
    for i, v in enumerate(np.asarray(vals, dtype=object).reshape(-1)):
        flat[i] = v
    return out


# ---- promotion (semantics §6) ------------------------------------------------------------

def promote(a, b):
    if a == b:
        return a
    if a == "bool":
        return b
    if b == "bool":
        return a
    ka, kb = kind(a), kind(b)
    if ka == "f" and kb == "f":
        if {a, b} == {"float16", "bfloat16"}:
            return "float32"
        return a if BITS[a] > BITS[b] else b
    if ka == "f":
        return a
    if kb == "f":
        return b
    if ka == kb:
        return a if BITS[a] > BITS[b] else b
    i, u = (a, b) if ka == "i" else (b, a)
    return "int%d" % min(64, max(BITS[i], 2 * BITS[u]))


def weak_dtype(value, other):
    """dtype a weak Python scalar takes next to an operand of dtype `other`."""
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int):
        return "int32" if other == "bool" else other
    return other if kind(other) == "f" else "float32"


def compute_type(r):
    return "float64" if r == "float64" else "float32"


WIDE_INTS = ("int32", "uint32", "int64", "uint64")


def float_compute_type(r, *operand_dtypes):
    """Compute type of an op with float result r: float64 when r is float64 or an
    integer operand does not fit float32 exactly (so the one rounding is the store),
    else float32 (semantics §1: float16/bfloat16 compute in float32)."""
    return "float64" if r == "float64" or any(d in WIDE_INTS for d in operand_dtypes) else "float32"


def to_compute(v, c):
    """One value converted to float compute type c (NumPy scalar)."""
    if c == "float64":
        return np.float64(float(v) if not isinstance(v, int) else float(Fraction(v)))
    if isinstance(v, bool):
        return np.float32(v)
    return round_f32(v) if isinstance(v, int) else np.float32(v)


# ---- operators (semantics §7) and the functional API (semantics §9) ---------------------------------

ARITH = ["+", "-", "*", "/", "//", "%", "**"]
BITWISE = ["&", "|", "^"]
SHIFT = ["<<", ">>"]
CMP = ["==", "!=", "<", "<=", ">", ">="]
CMP_FN = {"==": lambda x, y: x == y, "!=": lambda x, y: x != y, "<": lambda x, y: x < y,
          "<=": lambda x, y: x <= y, ">": lambda x, y: x > y, ">=": lambda x, y: x >= y}


def int_pow(x, y, lo, hi):
    if y < 0:
        if x == 0:
            return hi
        if abs(x) == 1:
            return 1 if x == 1 or y % 2 == 0 else -1
        return 0  # |x**y| <= 1/2 rounds half to even to 0
    if abs(x) <= 1:
        return x ** y if y or x else 1
    if y > 130:
        return lo if (x < 0 and y % 2) else hi
    return x ** y


def int_op(op, x, y, d):
    """Exact integer op, saturated to integer dtype d."""
    x, y = int(x), int(y)
    lo, hi = limits(d) if d is not None else (-2 ** 200, 2 ** 200)
    if op == "+":
        r = x + y
    elif op == "-":
        r = x - y
    elif op == "*":
        r = x * y
    elif op == "//":
        r = (hi if x > 0 else lo if x < 0 else 0) if y == 0 else x // y
    elif op == "%":
        r = 0 if y == 0 else x % y
    elif op == "div":  # augpy div: real quotient rounded half to even
        r = (hi if x > 0 else lo if x < 0 else 0) if y == 0 else round(Fraction(x, y))
    elif op == "**":
        r = int_pow(x, y, lo, hi)
    elif op == "&":
        r = x & y
    elif op == "|":
        r = x | y
    elif op == "^":
        r = x ^ y
    elif op in ("<<", ">>"):  # x * 2**k; a negative count shifts the other way
        k = y if op == "<<" else -y
        r = (0 if x == 0 else x << min(k, 200)) if k >= 0 else x >> min(-k, 200)
    elif op == "min":
        r = min(x, y)
    elif op == "max":
        r = max(x, y)
    else:
        raise AssertionError(op)
    return min(hi, max(lo, r))


def c_pow(a, b):
    """pow with C99 Annex F special cases (pow(-inf, 0.5) = inf, pow(1, nan) = 1), in float64."""
    odd = math.isfinite(b) and b == int(b) and int(b) % 2 == 1
    try:
        return math.pow(a, b)
    except ValueError:  # negative base with a non-integer exponent, or 0 ** negative
        return (math.copysign(math.inf, a) if odd else math.inf) if a == 0 else math.nan
    except OverflowError:
        return -math.inf if a < 0 and odd else math.inf


def float_op(op, a, b):
    """op on two NumPy float scalars of one compute type (IEEE, no error on overflow)."""
    with np.errstate(all="ignore"):
        if op == "+":
            return a + b
        if op == "-":
            return a - b
        if op == "*":
            return a * b
        if op in ("/", "div"):
            return a / b
        if op == "//":
            return np.floor(a / b)
        if op == "%":
            return np.remainder(a, b)
        if op == "**":
            return type(a)(c_pow(float(a), float(b)))
        if op == "min":
            return np.minimum(a, b)
        if op == "max":
            return np.maximum(a, b)
    raise AssertionError(op)


def binary_result_dtype(op, da, db):
    """semantics §7 result dtype, or TypeError for the bool / bitwise rules."""
    p = promote(da, db)
    if op in CMP:
        return "bool"
    if op in BITWISE + SHIFT:
        if "f" in (kind(da), kind(db)):
            raise TypeError(f"Inputs to bitwise operator `{op}` must be of integral type.")
        return p
    if da == db == "bool" and op != "*":
        raise TypeError(f"Inputs to arithmetic operator `{op}` cannot be booleans.")
    if op == "/":
        return "float32" if kind(p) != "f" else p
    return p


def _apply(fn, a, b):
    with np.errstate(all="ignore"):  # IEEE overflow / invalid results are expected values here
        return np.vectorize(fn, otypes=[object])(np.asarray(a, dtype=object), np.asarray(b, dtype=object))


def lossless(d, r, value=None):
    """Every value of dtype d (or the weak scalar `value`) is exact in integer dtype r."""
    lo, hi = limits(r)
    if value is not None and not isinstance(value, bool):
        return lo <= value <= hi
    if d == "bool":
        return True
    dlo, dhi = limits(d)
    return lo <= dlo and dhi <= hi


def ref_binary(op, a, da, b, db, weak_a=False, weak_b=False, store=None):
    """Reference for `a op b` (operators). a, b: object arrays or Python scalars.
    Returns (object array of values, result dtype). With `store` (in-place and out=),
    the value in the compute type is saturate-cast straight into dtype `store`
    ("exact, then saturate once"): float results are not first rounded to the
    result dtype, and integer results are only saturated to it when every operand
    fits it (else the exact value is stored). A float store of the result dtype
    itself rounds as IEEE does (narrow)."""
    wa = a if weak_a and isinstance(a, int) else None
    wb = b if weak_b and isinstance(b, int) else None
    if weak_a:
        da = weak_dtype(a, db)
    if weak_b:
        db = weak_dtype(b, da)
    r = binary_result_dtype(op, da, db)
    if store is None:
        fin = (lambda v: v)
    else:
        def fin(v):
            return store_value(v, store, r)
    if op in CMP:
        return _apply(lambda x, y: fin(CMP_FN[op](x, y)), a, b), store or r
    if r == "bool":  # bool * bool and bitwise on bools
        f = {"*": lambda x, y: bool(x and y), "&": lambda x, y: bool(x) & bool(y),
             "|": lambda x, y: bool(x) | bool(y), "^": lambda x, y: bool(x) ^ bool(y)}[op]
        return _apply(lambda x, y: fin(f(x, y)), a, b), store or r
    if op in BITWISE + SHIFT:  # exact operand values (infinite two's complement), saturated once
        exact_r = store is None or (lossless(da, r, wa) and lossless(db, r, wb))
        rr = r if exact_r else None  # as for + - *: an exact (128-bit) value meets the store
        return _apply(lambda x, y: fin(int_op(op, int(x), int(y), rr)), a, b), store or r
    if kind(r) in "iu":
        exact_r = store is None or (lossless(da, r, wa) and lossless(db, r, wb))
        rr = r if exact_r else None  # exact (128-bit) value, saturated once by the store
        return _apply(lambda x, y: fin(int_op(op, x, y, rr)), a, b), store or r
    if op in ("//", "%"):
        g = (lambda v: narrow(v, r)) if store is None else fin
        return _apply(lambda x, y: g(float_floordiv_mod(op, x, y, r)), a, b), store or r
    c = float_compute_type(r, da, db)
    if store is None:
        return _apply(lambda x, y: narrow(float_op(op, to_compute(x, c), to_compute(y, c)), r), a, b), r
    return _apply(lambda x, y: fin(float(float_op(op, to_compute(x, c), to_compute(y, c)))), a, b), store


def ref_unary(op, a, d):
    if op in ("-", "+", "abs"):
        if d == "bool":
            raise TypeError(f"Inputs to arithmetic operator `{op}` cannot be booleans.")
        if kind(d) == "f":
            f = {"-": lambda x: -x, "+": lambda x: x, "abs": abs}[op]
            return _apply(lambda x, _: f(x), a, 0), d
        lo, hi = limits(d)
        f = {"-": lambda x: -x, "+": lambda x: x, "abs": abs}[op]
        return _apply(lambda x, _: min(hi, max(lo, f(int(x)))), a, 0), d
    if op == "~":
        if kind(d) == "f":
            raise TypeError("Inputs to bitwise operator `~` must be of integral type.")
        if d == "bool":
            return _apply(lambda x, _: not x, a, 0), d
        lo, hi = limits(d)
        return _apply(lambda x, _: (hi - int(x)) if kind(d) == "u" else ~int(x), a, 0), d
    raise AssertionError(op)


FUNCTIONAL = {"add": "+", "sub": "-", "rsub": "-", "mul": "*", "div": "div", "rdiv": "div",
              "lt": "<", "le": "<=", "gt": ">", "ge": ">=", "eq": "==", "ne": "!="}


def ref_functional_scalar(name, x, d, s):
    """augpy.<name>(tensor, scalar) (semantics §9): the tensor's dtype; bool for comparisons."""
    op = FUNCTIONAL[name]
    refl = name in ("rsub", "rdiv")
    if op in CMP:
        return _apply(lambda u, v: CMP_FN[op](v, u) if refl else CMP_FN[op](u, v), x, s), "bool"
    if kind(d) in "iu" and isinstance(s, int):
        return _apply(lambda u, v: int_op(op, v, u, d) if refl else int_op(op, u, v, d), x, s), d
    t = TEMP[d]

    def f(u, v):
        u, v = to_compute(u, t), to_compute(v, t)
        r = float_op(op, v, u) if refl else float_op(op, u, v)
        return store_value(float(r), d, d if kind(d) == "f" else None)  # a float tensor's dtype is R
    return _apply(f, x, s), d


def ref_functional_tensor(name, x, dx, y, dy, out_dtype=None):
    """augpy.<name>(t1, t2[, out]) (semantics §9). Returns (values, dtype)."""
    op = FUNCTIONAL[name]
    if name in ("rsub", "rdiv"):
        x, dx, y, dy = y, dy, x, dx
    p = promote(dx, dy)
    if op in CMP:
        vals, r = ref_binary(op, x, dx, y, dy)
    elif out_dtype is not None and kind(p) in "iu":  # computed in p: operands saturate-cast to p
        vals, r = _apply(lambda u, v: int_op(op, sat_cast(u, p), sat_cast(v, p), p), x, y), p
    elif op == "div" and kind(p) in "iu":
        vals, r = _apply(lambda u, v: int_op("div", u, v, p), x, y), p
    elif out_dtype is not None and kind(p) == "f":
        c = TEMP[p]
        o = "/" if op == "div" else op
        vals, r = _apply(lambda u, v: float(float_op(o, to_compute(u, c), to_compute(v, c))), x, y), c
    else:
        vals, r = ref_binary("/" if op == "div" else op, x, dx, y, dy)
    if out_dtype is None:
        return vals, r
    rn = binary_result_dtype("/" if op == "div" and kind(p) == "f" else op, dx, dy)
    return _apply(lambda u, _: store_value(u, out_dtype, rn), vals, 0), out_dtype


def ref_fma(s, x, d1, y, d2, out_dtype=None):
    """fma(s, t1, t2): s*t1 + t2 in temp(promote(d1, d2)), one rounding, stored with saturate_cast."""
    t = TEMP[promote(d1, d2)]
    sc = to_compute(s, t)

    def f(u, v):
        fs, fa, fb = float(sc), float(to_compute(u, t)), float(to_compute(v, t))
        if math.isfinite(fs) and math.isfinite(fa):
            if math.isfinite(fb):  # one rounding of the exact s*a + b (IEEE: overflow -> inf)
                r = round_exact(Fraction(fs) * Fraction(fa) + Fraction(fb), t, saturate=False)
            else:
                r = fb  # a finite product plus inf / nan
        else:
            r = fs * fa + fb
        return store_value(float(r), out_dtype or d2, d2)
    return _apply(f, x, y), out_dtype or d2


# ---- comparison of results ----------------------------------------------------------------

def ulp_keys(a, d):
    """Float values -> Python ints, monotone in the value, one apart per ulp of dtype d."""
    if d == "float64":
        u, nb = np.asarray(a, np.float64).view(np.uint64), 64
    elif d == "float32":
        u, nb = np.asarray(a, np.float32).view(np.uint32), 32
    elif d == "bfloat16":
        u, nb = np.asarray(a, np.float32).view(np.uint32) >> np.uint32(16), 16
    else:
        u, nb = np.asarray(a, np.float16).view(np.uint16), 16
    keys = []
    for x in u.reshape(-1).tolist():
        mag = x & ((1 << (nb - 1)) - 1)
        keys.append(-mag if x >> (nb - 1) else mag)
    return np.array(keys, dtype=object).reshape(np.shape(a))


def assert_same(actual, expected, d, ulps=0, msg=""):
    """Compare read(t) with the reference (object array or NumPy array) for dtype d."""
    actual = np.asarray(actual)
    exp = expected_array(expected, d) if np.asarray(expected).dtype == object else np.asarray(expected)
    assert actual.shape == exp.shape, f"{msg}: shape {actual.shape} != {exp.shape}"
    if kind(d) != "f" or ulps == 0:
        ok = (actual == exp) | ((actual != actual) & (exp != exp)) if kind(d) == "f" else actual == exp
        if not np.all(ok):
            bad = np.argwhere(~np.asarray(ok))[:5]
            raise AssertionError(f"{msg}: dtype {d}, mismatches at {bad.tolist()}: got "
                                 f"{[actual[tuple(i)] for i in bad]}, expected {[exp[tuple(i)] for i in bad]}")
        return
    a32 = actual.astype(np.float64)
    e32 = exp.astype(np.float64)
    both_nan = np.isnan(a32) & np.isnan(e32)
    same = (a32 == e32) | both_nan
    dist = np.abs(ulp_keys(actual.astype(NP[d]), d) - ulp_keys(exp.astype(NP[d]), d))
    finite = np.isfinite(a32) & np.isfinite(e32)
    ok = same | (finite & np.asarray(dist <= ulps, dtype=bool))
    if not np.all(ok):
        bad = np.argwhere(~ok)[:5]
        raise AssertionError(f"{msg}: dtype {d}, beyond {ulps} ulp at {bad.tolist()}: got "
                             f"{[actual[tuple(i)] for i in bad]}, expected {[exp[tuple(i)] for i in bad]}")
