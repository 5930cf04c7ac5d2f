"""``tvm.tir``: expressions and the integer operators on them."""

from ... import _native
from ..._native import IndexMap, IterVar, PrimExpr, PrimFunc
from . import stmt_functor

__all__ = [
    "IndexMap",
    "IntImm",
    "IterVar",
    "PrimExpr",
    "PrimFunc",
    "Var",
    "all",
    "any",
    "const",
    "floordiv",
    "floormod",
    "if_then_else",
    "indexdiv",
    "indexmod",
    "max",
    "min",
    "stmt_functor",
    "truncdiv",
    "truncmod",
]


def const(value, dtype=None, span=None):
    """A constant of ``dtype`` (``int32`` or ``float32`` by default)."""
    return _native.constant(value, dtype)


def IntImm(dtype, value, span=None):
    """An integer constant."""
    return _native.constant(value, dtype)


def Var(name, dtype="int32", span=None):
    """A symbolic integer."""
    return _native.var(name, dtype)


def floordiv(a, b, span=None):
    """``a // b``, rounding toward negative infinity."""
    return _native.integer_division("floordiv", a, b)


def floormod(a, b, span=None):
    """``a % b`` with the sign of ``b``."""
    return _native.integer_division("floormod", a, b)


def truncdiv(a, b, span=None):
    """Division rounding toward zero, as C's ``/`` (any non-zero divisor)."""
    return _native.truncating_division(a, b)


def truncmod(a, b, span=None):
    """The remainder of :func:`truncdiv`, with the sign of ``a`` (C's ``%``)."""
    return _native.truncating_division(a, b, True)


indexdiv = floordiv
indexmod = floormod


def all(*args, span=None):
    """The conjunction of conditions."""
    return _native.all_or_any(True, *args)


def any(*args, span=None):
    """The disjunction of conditions."""
    return _native.all_or_any(False, *args)


def if_then_else(cond, t, f, span=None):
    """``t`` where ``cond`` holds, else ``f``."""
    return _native.if_then_else(cond, t, f)


def _math_function(name):
    def call(*args, span=None):
        return _native.call_intrinsic(name, *args)

    call.__name__ = call.__qualname__ = name
    call.__doc__ = f"``{name}`` of tensor elements, as ``tvm.tir.{name}``."
    return call


#: The math functions on tensor elements (``exp``, ``sigmoid``, ``power``, ...).
MATH_FUNCTIONS = tuple(_native.intrinsic_names())
for _name in MATH_FUNCTIONS:
    globals()[_name] = _math_function(_name)
__all__ += list(MATH_FUNCTIONS)


def min(a, b, span=None):
    """The smaller of two values."""
    return _native.binary_min_max(False, a, b)


def max(a, b, span=None):
    """The larger of two values."""
    return _native.binary_min_max(True, a, b)
