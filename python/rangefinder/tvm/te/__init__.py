"""``tvm.te``: tensors, computations, reductions and schedules."""

from ... import _native
from ..._native import AXIS_SEPARATOR, IndexMap, IterVar, Operation, PrimExpr, Schedule, Stage, Tensor
from .._session import session
from . import schedule

__all__ = [
    "AXIS_SEPARATOR",
    "IndexMap",
    "IterVar",
    "Operation",
    "PrimExpr",
    "Schedule",
    "Stage",
    "Tensor",
    "compute",
    "const",
    "create_schedule",
    "if_then_else",
    "max",
    "min",
    "placeholder",
    "reduce_axis",
    "schedule",
    "size_var",
    "sum",
    "thread_axis",
    "var",
]


def placeholder(shape, dtype=None, name="placeholder"):
    """An input tensor of ``shape`` (sizes may be ``te.var``\\ s)."""
    return _native.placeholder(shape, dtype or "float32", name)


def compute(shape, fcompute, name="compute", tag="", attrs=None, varargs_names=None):
    """A tensor whose element at ``(i, j, ...)`` is ``fcompute(i, j, ...)``;
    the axes take the names of ``fcompute``'s parameters."""
    return _native.compute(shape, fcompute, name, tag, attrs)


def var(name="tindex", dtype="int32", span=None):
    """A symbolic integer (a size, a split factor)."""
    return _native.var(name, dtype)


def size_var(name="size", dtype="int32", span=None):
    """A symbolic size (TVM's ``SizeVar``; non-negative in TVM, an ordinary
    variable here)."""
    return _native.var(name, dtype)


def reduce_axis(dom, name="rv", thread_tag="", span=None):
    """A reduction axis over ``dom``, a pair ``(lo, hi)``."""
    return _native.reduce_axis(dom, name)


def thread_axis(dom=None, tag="", name="", span=None):
    """A GPU thread axis: ``te.thread_axis("threadIdx.x")``."""
    return _native.thread_axis(dom, tag, name)


def sum(expr, axis, where=None, init=None):
    """The sum of ``expr`` over the reduction ``axis`` (one or a list)."""
    return _native.reduce("sum", expr, axis, where, init)


def _is_axis(v):
    return isinstance(v, IterVar) or (isinstance(v, (list, tuple)) and all(isinstance(x, IterVar) for x in v))


def _min_max(is_max, expr, b, axis, where, init):
    if axis is None and b is not None and _is_axis(b):
        axis, b = b, None
    if axis is not None:
        return _native.reduce("max" if is_max else "min", expr, axis, where, init)
    if b is None:
        raise TypeError("te.max / te.min take two values, or a value and `axis=`")
    return _native.binary_min_max(is_max, expr, b)


def max(expr, b=None, axis=None, where=None, init=None):
    """A max-reduction over ``axis``, or the larger of two values."""
    return _min_max(True, expr, b, axis, where, init)


def min(expr, b=None, axis=None, where=None, init=None):
    """A min-reduction over ``axis``, or the smaller of two values."""
    return _min_max(False, expr, b, axis, where, init)


def if_then_else(cond, t, f):
    """``t`` where ``cond`` holds, else ``f``."""
    return _native.if_then_else(cond, t, f)


def const(value, dtype=None):
    """A constant (``int32`` for ints, ``float32`` for floats by default)."""
    return _native.constant(value, dtype)


def create_schedule(ops):
    """A schedule computing ``ops`` (one operation or a list)."""
    s = _native.create_schedule(ops)
    session().created_schedule(s)
    return s


# The math functions of ``tvm.tir`` (``te.exp``, ``te.sigmoid``, ...), which
# TVM also offers here.
from .. import tir as _tir

for _name in _tir.MATH_FUNCTIONS:
    globals()[_name] = getattr(_tir, _name)
__all__ += list(_tir.MATH_FUNCTIONS)
