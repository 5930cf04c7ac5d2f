"""``tvm.te``: tensors, computations, reductions and schedules.

Every function here is the API layer's (``tvm_api``), resolved by name."""

from ..._native import IndexMap
from .._object import api, tvm_class, layer_getattr
from .._session import session
from . import schedule
from . import hybrid
from ..tir import PrimExpr, IterVar
from .. import tir as _tir

Tensor = tvm_class("tvm.te.Tensor", doc="A tensor: ``A[i, j]`` reads an element.")
Operation = tvm_class("tvm.te.Operation", doc="An operation: a placeholder or a compute.")
Schedule = schedule.Schedule
Stage = schedule.Stage

AXIS_SEPARATOR = api("tvm.te.AXIS_SEPARATOR")
placeholder = api("tvm.te.placeholder")
compute = api("tvm.te.compute")
var = api("tvm.te.var")
size_var = api("tvm.te.size_var")
reduce_axis = api("tvm.te.reduce_axis")
thread_axis = api("tvm.te.thread_axis")
sum = api("tvm.te.sum")
max = api("tvm.te.max")
min = api("tvm.te.min")
const = api("tvm.te.const")
if_then_else = api("tvm.te.if_then_else")
create_schedule = api("tvm.te.create_schedule")
scan = api("tvm.te.scan")
extern = api("tvm.te.extern")
comm_reducer = api("tvm.te.comm_reducer")
decl_tensor_intrin = api("tvm.te.decl_tensor_intrin")

__all__ = [
    "AXIS_SEPARATOR",
    "IndexMap",
    "IterVar",
    "Operation",
    "PrimExpr",
    "Schedule",
    "Stage",
    "Tensor",
    "comm_reducer",
    "compute",
    "const",
    "create_schedule",
    "decl_tensor_intrin",
    "extern",
    "if_then_else",
    "max",
    "min",
    "placeholder",
    "reduce_axis",
    "scan",
    "schedule",
    "size_var",
    "sum",
    "thread_axis",
    "var",
]

# The math functions of ``tvm.tir`` (``te.exp``, ``te.sigmoid``, ...), which
# TVM also offers here: the same objects.
for _name in _tir.MATH_FUNCTIONS:
    globals()[_name] = getattr(_tir, _name)
__all__ += list(_tir.MATH_FUNCTIONS)

#: Names this module does not define are the layer's.
__getattr__ = layer_getattr("tvm.te")
