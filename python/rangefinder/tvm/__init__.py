"""A stand-in for TVM's TE, run by CPython.

TVM 0.27 removed TE schedules and InferBound; scripts written for them run
here with their import lines changed::

    import rangefinder.tvm as tvm          # was: import tvm
    from rangefinder.tvm import te         # was: from tvm import te

    A = te.placeholder((64,), name="A")
    B = te.compute((64,), lambda i: A[i] * 2.0, name="B")
    s = te.create_schedule(B.op)
    xo, xi = s[B].split(B.op.axis[0], factor=8)
    print(tvm.lower(s, [A, B], simple_mode=True))
    bounds = tvm.te.schedule.InferBound(s)
    assert bounds[xi].extent.value == 8

:func:`install` makes ``import tvm`` itself resolve here, and
``python -m rangefinder.tvm SCRIPT.py`` runs an unchanged script and prints
what ``rangefinder te SCRIPT.py`` prints.
"""

import sys as _sys

from . import _object, arith, container, error, ir, runtime, te, testing, tir
from ._session import session
from .error import TVMError
from .runtime import convert

# The spellings of TVM before `te` was a module of its own (`tvm.compute`,
# `tvm.placeholder`, `tvm.schedule.InferBound`), still common in scripts.
from .te import (
    compute,
    const,
    create_schedule,
    placeholder,
    reduce_axis,
    size_var,
    sum,
    thread_axis,
    var,
)
from .te import schedule
from .tir import if_then_else

__all__ = [
    "TVMError",
    "arith",
    "container",
    "compute",
    "const",
    "convert",
    "create_schedule",
    "error",
    "install",
    "if_then_else",
    "ir",
    "lower",
    "placeholder",
    "reduce_axis",
    "runtime",
    "schedule",
    "session",
    "size_var",
    "sum",
    "te",
    "testing",
    "thread_axis",
    "tir",
    "var",
]


_lower = _object.api("tvm.lower")


def lower(inp, args=None, name="main", binds=None, simple_mode=False):
    """``tvm.lower``: the loop program of schedule ``inp``; ``str()`` of the
    result is the text ``tvm.lower(..., simple_mode=True)`` prints."""
    return tir.PrimFunc(_lower(inp, args, name, binds, simple_mode))


def install():
    """Makes ``import tvm`` (and ``tvm.te``, ``tvm.tir``, ...) resolve to
    this stand-in, so that unchanged TVM scripts run."""
    this = _sys.modules[__name__]
    _sys.modules["tvm"] = this
    for sub in ("arith", "container", "error", "ir", "runtime", "te", "te.schedule", "testing", "tir",
                "tir.stmt_functor"):
        _sys.modules["tvm." + sub] = _sys.modules[__name__ + "." + sub]
