"""augpy.math: the DALI math functions (semantics §8) on augpy tensors.

Each takes tensors, Python numbers (weak scalars), ``augpy.Constant`` values or
arrays -- at least one a tensor -- broadcasts them, and returns a new tensor, or
writes into ``out=`` with saturate_cast and returns it. All-integral inputs to the
floating functions (fabs floor ceil sqrt rsqrt cbrt exp log* trig hyperbolic fpow
atan2) give float32; ``abs``, ``pow``, ``min``, ``max`` and ``clamp`` keep the promoted
type, integers saturating. ``log`` is the natural logarithm.
"""
from . import _augpy

# Every _augpy._math_<name> (the C op list's ops exposed to Python, in its
# order) under its DALI name; a math op added to the C list appears here too.
__all__ = [name[len("_math_"):] for name in vars(_augpy) if name.startswith("_math_")]
globals().update({name: getattr(_augpy, "_math_" + name) for name in __all__})
del _augpy
