"""Type stubs for augpy.math: the DALI math functions (semantics §8). Each takes tensors,
Python numbers (weak scalars), augpy.Constant values or arrays, at least one a
tensor, and returns a new tensor or writes into ``out`` and returns it."""
from typing import Optional

from ._augpy import Tensor, _Operand

__all__ = [
    "abs",
    "fabs",
    "floor",
    "ceil",
    "pow",
    "fpow",
    "min",
    "max",
    "clamp",
    "sqrt",
    "rsqrt",
    "cbrt",
    "exp",
    "log",
    "log2",
    "log10",
    "sin",
    "cos",
    "tan",
    "asin",
    "acos",
    "atan",
    "atan2",
    "sinh",
    "cosh",
    "tanh",
    "asinh",
    "acosh",
    "atanh",
]

def abs(input: _Operand, out: Optional[Tensor] = None) -> Tensor:
    """Absolute value; same dtype, saturating (abs(int8 -128) = 127).
    Operands: tensors, numbers (weak scalars), augpy.Constant values or arrays, at least one a tensor,
    broadcast together. Returns a new tensor, or writes into out (saturate_cast) and returns it."""
def fabs(input: _Operand, out: Optional[Tensor] = None) -> Tensor:
    """Absolute value as a float (integers -> float32).
    Operands: tensors, numbers (weak scalars), augpy.Constant values or arrays, at least one a tensor,
    broadcast together. Returns a new tensor, or writes into out (saturate_cast) and returns it."""
def floor(input: _Operand, out: Optional[Tensor] = None) -> Tensor:
    """Round down; integers -> float32.
    Operands: tensors, numbers (weak scalars), augpy.Constant values or arrays, at least one a tensor,
    broadcast together. Returns a new tensor, or writes into out (saturate_cast) and returns it."""
def ceil(input: _Operand, out: Optional[Tensor] = None) -> Tensor:
    """Round up; integers -> float32.
    Operands: tensors, numbers (weak scalars), augpy.Constant values or arrays, at least one a tensor,
    broadcast together. Returns a new tensor, or writes into out (saturate_cast) and returns it."""
def pow(base: _Operand, exponent: _Operand, out: Optional[Tensor] = None) -> Tensor:
    """base ** exponent (promoted type; integers exact, saturated).
    Operands: tensors, numbers (weak scalars), augpy.Constant values or arrays, at least one a tensor,
    broadcast together. Returns a new tensor, or writes into out (saturate_cast) and returns it."""
def fpow(base: _Operand, exponent: _Operand, out: Optional[Tensor] = None) -> Tensor:
    """base ** exponent in floating point (integers -> float32).
    Operands: tensors, numbers (weak scalars), augpy.Constant values or arrays, at least one a tensor,
    broadcast together. Returns a new tensor, or writes into out (saturate_cast) and returns it."""
def min(left: _Operand, right: _Operand, out: Optional[Tensor] = None) -> Tensor:
    """Elementwise minimum (promoted type; NaN propagates).
    Operands: tensors, numbers (weak scalars), augpy.Constant values or arrays, at least one a tensor,
    broadcast together. Returns a new tensor, or writes into out (saturate_cast) and returns it."""
def max(left: _Operand, right: _Operand, out: Optional[Tensor] = None) -> Tensor:
    """Elementwise maximum (promoted type; NaN propagates).
    Operands: tensors, numbers (weak scalars), augpy.Constant values or arrays, at least one a tensor,
    broadcast together. Returns a new tensor, or writes into out (saturate_cast) and returns it."""
def clamp(value: _Operand, lo: _Operand, hi: _Operand, out: Optional[Tensor] = None) -> Tensor:
    """min(max(value, lo), hi) in the type promoted over all three.
    Operands: tensors, numbers (weak scalars), augpy.Constant values or arrays, at least one a tensor,
    broadcast together. Returns a new tensor, or writes into out (saturate_cast) and returns it."""
def sqrt(input: _Operand, out: Optional[Tensor] = None) -> Tensor:
    """Square root; integers -> float32.
    Operands: tensors, numbers (weak scalars), augpy.Constant values or arrays, at least one a tensor,
    broadcast together. Returns a new tensor, or writes into out (saturate_cast) and returns it."""
def rsqrt(input: _Operand, out: Optional[Tensor] = None) -> Tensor:
    """1 / sqrt(x); integers -> float32.
    Operands: tensors, numbers (weak scalars), augpy.Constant values or arrays, at least one a tensor,
    broadcast together. Returns a new tensor, or writes into out (saturate_cast) and returns it."""
def cbrt(input: _Operand, out: Optional[Tensor] = None) -> Tensor:
    """Cube root; integers -> float32.
    Operands: tensors, numbers (weak scalars), augpy.Constant values or arrays, at least one a tensor,
    broadcast together. Returns a new tensor, or writes into out (saturate_cast) and returns it."""
def exp(input: _Operand, out: Optional[Tensor] = None) -> Tensor:
    """e ** x; integers -> float32.
    Operands: tensors, numbers (weak scalars), augpy.Constant values or arrays, at least one a tensor,
    broadcast together. Returns a new tensor, or writes into out (saturate_cast) and returns it."""
def log(input: _Operand, out: Optional[Tensor] = None) -> Tensor:
    """Natural logarithm; integers -> float32.
    Operands: tensors, numbers (weak scalars), augpy.Constant values or arrays, at least one a tensor,
    broadcast together. Returns a new tensor, or writes into out (saturate_cast) and returns it."""
def log2(input: _Operand, out: Optional[Tensor] = None) -> Tensor:
    """Base-2 logarithm; integers -> float32.
    Operands: tensors, numbers (weak scalars), augpy.Constant values or arrays, at least one a tensor,
    broadcast together. Returns a new tensor, or writes into out (saturate_cast) and returns it."""
def log10(input: _Operand, out: Optional[Tensor] = None) -> Tensor:
    """Base-10 logarithm; integers -> float32.
    Operands: tensors, numbers (weak scalars), augpy.Constant values or arrays, at least one a tensor,
    broadcast together. Returns a new tensor, or writes into out (saturate_cast) and returns it."""
def sin(input: _Operand, out: Optional[Tensor] = None) -> Tensor:
    """Sine (radians); integers -> float32.
    Operands: tensors, numbers (weak scalars), augpy.Constant values or arrays, at least one a tensor,
    broadcast together. Returns a new tensor, or writes into out (saturate_cast) and returns it."""
def cos(input: _Operand, out: Optional[Tensor] = None) -> Tensor:
    """Cosine (radians); integers -> float32.
    Operands: tensors, numbers (weak scalars), augpy.Constant values or arrays, at least one a tensor,
    broadcast together. Returns a new tensor, or writes into out (saturate_cast) and returns it."""
def tan(input: _Operand, out: Optional[Tensor] = None) -> Tensor:
    """Tangent (radians); integers -> float32.
    Operands: tensors, numbers (weak scalars), augpy.Constant values or arrays, at least one a tensor,
    broadcast together. Returns a new tensor, or writes into out (saturate_cast) and returns it."""
def asin(input: _Operand, out: Optional[Tensor] = None) -> Tensor:
    """Arc sine; integers -> float32.
    Operands: tensors, numbers (weak scalars), augpy.Constant values or arrays, at least one a tensor,
    broadcast together. Returns a new tensor, or writes into out (saturate_cast) and returns it."""
def acos(input: _Operand, out: Optional[Tensor] = None) -> Tensor:
    """Arc cosine; integers -> float32.
    Operands: tensors, numbers (weak scalars), augpy.Constant values or arrays, at least one a tensor,
    broadcast together. Returns a new tensor, or writes into out (saturate_cast) and returns it."""
def atan(input: _Operand, out: Optional[Tensor] = None) -> Tensor:
    """Arc tangent; integers -> float32.
    Operands: tensors, numbers (weak scalars), augpy.Constant values or arrays, at least one a tensor,
    broadcast together. Returns a new tensor, or writes into out (saturate_cast) and returns it."""
def atan2(left: _Operand, right: _Operand, out: Optional[Tensor] = None) -> Tensor:
    """Arc tangent of left / right using both signs (C atan2(left, right)); integers -> float32.
    Operands: tensors, numbers (weak scalars), augpy.Constant values or arrays, at least one a tensor,
    broadcast together. Returns a new tensor, or writes into out (saturate_cast) and returns it."""
def sinh(input: _Operand, out: Optional[Tensor] = None) -> Tensor:
    """Hyperbolic sine; integers -> float32.
    Operands: tensors, numbers (weak scalars), augpy.Constant values or arrays, at least one a tensor,
    broadcast together. Returns a new tensor, or writes into out (saturate_cast) and returns it."""
def cosh(input: _Operand, out: Optional[Tensor] = None) -> Tensor:
    """Hyperbolic cosine; integers -> float32.
    Operands: tensors, numbers (weak scalars), augpy.Constant values or arrays, at least one a tensor,
    broadcast together. Returns a new tensor, or writes into out (saturate_cast) and returns it."""
def tanh(input: _Operand, out: Optional[Tensor] = None) -> Tensor:
    """Hyperbolic tangent; integers -> float32.
    Operands: tensors, numbers (weak scalars), augpy.Constant values or arrays, at least one a tensor,
    broadcast together. Returns a new tensor, or writes into out (saturate_cast) and returns it."""
def asinh(input: _Operand, out: Optional[Tensor] = None) -> Tensor:
    """Inverse hyperbolic sine; integers -> float32.
    Operands: tensors, numbers (weak scalars), augpy.Constant values or arrays, at least one a tensor,
    broadcast together. Returns a new tensor, or writes into out (saturate_cast) and returns it."""
def acosh(input: _Operand, out: Optional[Tensor] = None) -> Tensor:
    """Inverse hyperbolic cosine; integers -> float32.
    Operands: tensors, numbers (weak scalars), augpy.Constant values or arrays, at least one a tensor,
    broadcast together. Returns a new tensor, or writes into out (saturate_cast) and returns it."""
def atanh(input: _Operand, out: Optional[Tensor] = None) -> Tensor:
    """Inverse hyperbolic tangent; integers -> float32.
    Operands: tensors, numbers (weak scalars), augpy.Constant values or arrays, at least one a tensor,
    broadcast together. Returns a new tensor, or writes into out (saturate_cast) and returns it."""
