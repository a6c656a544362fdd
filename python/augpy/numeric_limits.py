"""augpy.numeric_limits: the limits of augpy's saturating casts (semantics §2).

``CAST_LIMITS[(from, to)]`` is ``(vmin, vmax)``, the lowest and highest values a cast
from ``from`` to ``to`` can produce, with ``None`` on a side where every value of
``from`` is representable in ``to``. Keys may mix augpy and numpy dtypes::

    CAST_LIMITS[numpy.uint16, numpy.uint32] == (None, None)
    CAST_LIMITS[augpy.uint64, augpy.int32] == (None, 2147483647)
    CAST_LIMITS[numpy.float64, augpy.int16] == (-32768, 32767)
    CAST_LIMITS[augpy.float32, numpy.uint64] == (0, 18446744073709551615)

For float -> integer casts the limits may differ from the target type's extremes:
augpy guarantees the cast of a negative value is never lower, and of a positive value
never higher, than the original value. The values come from the C library
(``aug_cast_limits``); integers are Python ints, floats Python floats.
"""
from collections.abc import Mapping

from . import _augpy

__all__ = ["CAST_LIMITS", "CastLimits"]

_DTYPES = (
    _augpy.bool_, _augpy.int8, _augpy.int16, _augpy.int32, _augpy.int64,
    _augpy.uint8, _augpy.uint16, _augpy.uint32, _augpy.uint64,
    _augpy.float16, _augpy.bfloat16, _augpy.float32, _augpy.float64,
)


class CastLimits(Mapping):
    """Read-only mapping ``(from_dtype, to_dtype) -> (vmin, vmax)``.

    Iterating yields ``(from, to)`` pairs of augpy dtypes; lookups also accept numpy
    dtypes, numpy scalar types and dtype names on either side.
    """

    def __init__(self):
        self._table = {
            (a, b): _augpy._cast_limits(a, b) for a in _DTYPES for b in _DTYPES
        }

    def _key(self, key):
        if not isinstance(key, tuple) or len(key) != 2:
            raise KeyError(key)
        try:
            return (_augpy.to_augpy_dtype(key[0]), _augpy.to_augpy_dtype(key[1]))
        except TypeError:
            raise KeyError(key) from None

    def __getitem__(self, key):
        return self._table[self._key(key)]

    def __contains__(self, key):
        try:
            return self._key(key) in self._table
        except KeyError:
            return False

    def __iter__(self):
        return iter(self._table)

    def __len__(self):
        return len(self._table)

    def __repr__(self):
        return f"<CAST_LIMITS: {len(self)} (from, to) pairs>"


CAST_LIMITS = CastLimits()
