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

from . import _ffi, _object, arith, container, error, ir, nd, runtime, te, testing, tir
from ._modules import LAYER_MODULES, layer_module
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
    "nd",
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
__all__ += [p[len("tvm."):] for p in LAYER_MODULES if p.count(".") == 1]


_lower = _object.api("tvm.lower")

# `tvm.topi`, `tvm.target`, ... have no Python code: every name in them is
# the layer's.
for _path in LAYER_MODULES:
    layer_module(_path, _sys.modules[__name__])
# `topi/utils.py` imports `tag`, and programs take it from there.
topi.utils.tag = topi.tag

#: Names this module does not define (`tvm.build`, `tvm.cpu`) are the layer's.
__getattr__ = _object.layer_getattr("tvm")


def lower(inp, args=None, name="main", binds=None, simple_mode=False):
    """``tvm.lower``: the lowered module of schedule ``inp``. ``str()`` of it
    is the text ``tvm.lower(..., simple_mode=True)`` prints, ``.script()``
    its TVMScript, ``mod["main"].body`` the loop program's statements."""
    return _lower(inp, args, name, binds, simple_mode)


#: The TVM modules `install` registers as `tvm.<name>`.
MODULES = (
    "_ffi",
    "_ffi.base",
    "arith",
    "container",
    "error",
    "ir",
    "nd",
    "runtime",
    "te",
    "te.schedule",
    "te.hybrid",
    "te.hybrid.runtime",
    "testing",
    "tir",
    "tir.stmt_functor",
) + tuple(p[len("tvm."):] for p in LAYER_MODULES)


def install():
    """Makes ``import tvm`` (and ``tvm.te``, ``tvm.topi.utils``, ...)
    resolve to this stand-in, so that unchanged TVM scripts run."""
    this = _sys.modules[__name__]
    _sys.modules["tvm"] = this
    for sub in MODULES:
        _sys.modules["tvm." + sub] = _sys.modules[__name__ + "." + sub]
