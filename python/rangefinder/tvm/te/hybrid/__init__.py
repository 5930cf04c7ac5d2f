"""``tvm.te.hybrid``: functions of loops and stores over tensors.

A function decorated with :func:`script` has two meanings, as in TVM:

- called with tensors and ``PrimExpr`` sizes, its source is parsed into an
  operation (TVM's ``HybridOp``) whose outputs it returns; the API layer
  does the parsing, this module only hands it the source;
- called with numpy arrays and numbers, it runs as Python, its hybrid
  functions (``output_tensor``, ``const_range``, ``bind``, ...) being
  those of :mod:`.runtime`.
"""

import functools as _functools

from ... import _object
from ...._native import Object as _Object
from . import runtime

__all__ = ["HybridModule", "build", "script", "runtime"]

_parse = _object.api("tvm.te.hybrid.script")
_build = _object.api("tvm.te.hybrid.build")
_module = _object.api("tvm.te.hybrid.HybridModule")


def _has_tvm_value(args):
    for a in args:
        if isinstance(a, _Object):
            return True
        if isinstance(a, (list, tuple)) and _has_tvm_value(a):
            return True
    return False


def script(pyfunc):
    """``@te.hybrid.script``: ``pyfunc`` parsed into an operation when
    called with TVM values, run as Python on numpy values otherwise."""
    parsed = _parse(pyfunc)

    @_functools.wraps(pyfunc)
    def wrapped(*args, **kwargs):
        if _has_tvm_value(args) or _has_tvm_value(list(kwargs.values())):
            return parsed(*args, **kwargs)
        with runtime.hybrid_runtime(pyfunc):
            return pyfunc(*args, **kwargs)

    # What a hybrid script that calls this one inlines.
    wrapped.__rangefinder_hybrid__ = parsed
    return wrapped


class HybridModule:
    """TVM's ``HybridModule``: the hybrid function of source ``src``. Called
    with tensors it gives its operation's outputs; with numpy arrays it
    runs as Python."""

    def __init__(self, src=None, name=None):
        self.src_ = None
        self.name = name
        self._native = None
        self._func = None
        if src is not None:
            self._set(src)

    def _set(self, src):
        self._native = _module(src, None)
        self.__rangefinder_hybrid__ = self._native
        self.src_ = src
        self.name = self._native.name
        namespace = {}
        exec(compile(src, f"<hybrid {self.name}>", "exec"), namespace)
        self._func = namespace[self.name]

    def __call__(self, *args):
        if self._native is None:
            raise RuntimeError("the module has no function yet: load one")
        if _has_tvm_value(args):
            return self._native(*args)
        with runtime.hybrid_runtime(self._func):
            return self._func(*args)

    def get_source(self):
        """The function's source."""
        return self.src_

    def save(self, path):
        """Writes the function's source to ``path``."""
        with open(path, "w", encoding="utf-8") as f:
            f.write(self.src_)

    def load(self, path):
        """Reads the function's source from ``path``."""
        with open(path, encoding="utf-8") as f:
            self._set(f.read())


def build(sch, inputs, outputs, name="hybrid_func"):
    """``te.hybrid.build``: the program of schedule ``sch`` written as a
    hybrid function of ``inputs`` (tensors and sizes) that writes
    ``outputs``."""
    native = _build(sch, inputs, outputs, name)
    return HybridModule(native.source, native.name)
