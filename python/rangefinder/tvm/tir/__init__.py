"""``tvm.tir``: expressions and the integer operators on them.

Every function here is the API layer's (``tvm_api``), resolved by name,
but for C's truncating division by any divisor."""

from ... import _native
from ..._native import IndexMap
from .._object import api, tvm_class, layer_getattr
from . import stmt_functor
from . import ir_builder

PrimExpr = tvm_class(
    "tvm.tir.PrimExpr",
    type_names=("PrimExpr", "condition", "tensor element expression"),
    doc="An expression: ``i * 4 + j``, ``A[i, k] * B[k, j]``, ``i < n``.",
)
IterVar = tvm_class("tvm.tir.IterVar", doc="An iteration variable: a loop, reduction or thread axis.")
# TVM's integer kinds of iteration variables (``IterVar.DataPar`` ...), the layer's.
for _kind in ("DataPar", "ThreadIndex", "CommReduce", "Ordered", "Opaque", "Unrolled",
              "Vectorized", "Parallelized", "Tensorized"):
    setattr(IterVar, _kind, getattr(api("tvm.tir.IterVar"), _kind))
del _kind
Var = tvm_class("tvm.tir.Var", construct=lambda name, dtype="int32", span=None: var(name, dtype),
                doc="A symbolic integer.")
#: TVM's loop kinds, as a loop's ``.kind`` gives them.
ForKind = api("tvm.tir.ForKind")
var = api("tvm.tir.var")
const = api("tvm.tir.const")
floordiv = api("tvm.tir.floordiv")
floormod = api("tvm.tir.floormod")
indexdiv = api("tvm.tir.indexdiv")
indexmod = api("tvm.tir.indexmod")
all = api("tvm.tir.all")
any = api("tvm.tir.any")
if_then_else = api("tvm.tir.if_then_else")
decl_buffer = api("tvm.tir.decl_buffer")
call_packed = api("tvm.tir.call_packed")
call_extern = api("tvm.tir.call_extern")
min = api("tvm.tir.min")
max = api("tvm.tir.max")


PrimFunc = tvm_class(
    "tvm.tir.PrimFunc",
    doc="A lowered function: ``tvm.lower(...)[\"main\"]``, ``schedule_to_module(...)[name]``.",
)


IntImm = tvm_class(
    "tvm.tir.IntImm",
    construct=lambda dtype, value, span=None: const(value, dtype),
    doc="An integer constant: ``IntImm(dtype, value)``.",
)


def truncdiv(a, b, span=None):
    """Division rounding toward zero, as C's ``/`` (any non-zero divisor)."""
    return _native.truncating_division(a, b)


def truncmod(a, b, span=None):
    """The remainder of :func:`truncdiv`, with the sign of ``a`` (C's ``%``)."""
    return _native.truncating_division(a, b, True)


#: The math functions on tensor elements (``exp``, ``sigmoid``, ``power``, ...).
MATH_FUNCTIONS = tuple(_native.intrinsic_names())
for _name in MATH_FUNCTIONS:
    globals()[_name] = api("tvm.tir." + _name)

__all__ = [
    "IndexMap",
    "IntImm",
    "IterVar",
    "PrimExpr",
    "PrimFunc",
    "Var",
    "all",
    "any",
    "call_extern",
    "call_packed",
    "const",
    "decl_buffer",
    "floordiv",
    "floormod",
    "if_then_else",
    "indexdiv",
    "indexmod",
    "ir_builder",
    "max",
    "min",
    "stmt_functor",
    "truncdiv",
    "truncmod",
    "var",
] + list(MATH_FUNCTIONS)

#: Names this module does not define are the layer's.
__getattr__ = layer_getattr("tvm.tir")
