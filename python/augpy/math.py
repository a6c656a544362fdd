"""augpy.math: the DALI math functions (SPEC section 8) on augpy tensors.

Each takes tensors, Python numbers (weak scalars), ``augpy.Constant`` values or
arrays -- at least one a tensor -- broadcasts them, and returns a new tensor, or
writes into ``out=`` with saturate_cast and returns it. All-integral inputs to the
floating functions (fabs floor ceil sqrt rsqrt cbrt exp log* trig hyperbolic fpow
atan2) give float32; ``abs``, ``pow``, ``min``, ``max`` and ``clamp`` keep the promoted
type, integers saturating. ``log`` is the natural logarithm.
"""
from ._augpy import (  # noqa: F401  (re-exported under the DALI names)
    _math_abs as abs,
    _math_fabs as fabs,
    _math_floor as floor,
    _math_ceil as ceil,
    _math_pow as pow,
    _math_fpow as fpow,
    _math_min as min,
    _math_max as max,
    _math_clamp as clamp,
    _math_sqrt as sqrt,
    _math_rsqrt as rsqrt,
    _math_cbrt as cbrt,
    _math_exp as exp,
    _math_log as log,
    _math_log2 as log2,
    _math_log10 as log10,
    _math_sin as sin,
    _math_cos as cos,
    _math_tan as tan,
    _math_asin as asin,
    _math_acos as acos,
    _math_atan as atan,
    _math_atan2 as atan2,
    _math_sinh as sinh,
    _math_cosh as cosh,
    _math_tanh as tanh,
    _math_asinh as asinh,
    _math_acosh as acosh,
    _math_atanh as atanh,
)

__all__ = [
    "abs", "fabs", "floor", "ceil", "pow", "fpow", "min", "max", "clamp", "sqrt",
    "rsqrt", "cbrt", "exp", "log", "log2", "log10", "sin", "cos", "tan", "asin", "acos",
    "atan", "atan2", "sinh", "cosh", "tanh", "asinh", "acosh", "atanh",
]
