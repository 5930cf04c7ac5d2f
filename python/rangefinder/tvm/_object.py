"""TVM's classes, as thin Python classes over the API layer's objects.

Every TVM object is a ``rangefinder._native.Object``; ``isinstance(x,
tvm.tir.IterVar)`` asks the API layer (or, for classes it does not name,
compares the layer's name of the value's type), and calling a class that
TVM lets programs construct calls the layer's function for it."""

import sys as _sys

from .. import _native


class _TVMClass(type):
    def __instancecheck__(cls, obj):
        return _native.instance_of(obj, cls._path, list(cls._type_names))

    def __call__(cls, *args, **kwargs):
        if cls._construct is None:
            raise TypeError(f"`{cls._path}` objects are made by the API, not constructed directly")
        return cls._construct(*args, **kwargs)


def tvm_class(path, type_names=None, construct=None, doc=None):
    """The class TVM calls ``path`` (``tvm.tir.IterVar``); values whose type
    the layer names one of ``type_names`` (default: the class's own name)
    are its instances; ``construct`` makes one."""
    module, _, name = path.rpartition(".")
    return _TVMClass(
        name,
        (),
        {
            "_path": path,
            "_type_names": tuple(type_names or (name,)),
            "_construct": staticmethod(construct) if construct else None,
            "__module__": "rangefinder." + module,
            "__doc__": doc or f"``{path}``.",
        },
    )


def api(path):
    """The API layer's function (or constant) at dotted ``path``."""
    return _native.resolve(path)


def layer_getattr(path):
    """A module ``__getattr__`` for the TVM module ``path``: a name the
    Python module does not define is the layer's ``path.name``, so that
    functions the layer adds need no Python code."""

    def __getattr__(name):
        if name.startswith("__"):
            raise AttributeError(f"module `{path}` has no attribute `{name}`")
        value = _native.resolve(f"{path}.{name}")
        if _native.instance_of(value, "", ["module"]):
            # Another module under this name (`tvm.topi.nn.cpp` is
            # `tvm.topi.cpp`) is that module's Python module.
            target = str(value)[len("<module '") : -len("'>")]
            if target != f"{path}.{name}" and "rangefinder." + target in _sys.modules:
                return _sys.modules["rangefinder." + target]
            # A submodule is the Python module, which the import system
            # loads when this says it is missing.
            raise AttributeError(f"module `{path}` has no attribute `{name}`")
        return value

    return __getattr__


def to_plain(x):
    """A numpy array or scalar as the lists and numbers the layer takes
    (``x.tolist()``), also inside lists and tuples (``[v * 2.0 for v in
    a.numpy()]`` holds numpy scalars); anything else as it is."""
    tolist = getattr(type(x), "tolist", None)
    if tolist is not None and type(x).__module__ == "numpy":
        return x.tolist()
    if type(x) in (list, tuple):
        return type(x)(to_plain(v) for v in x)
    return x


class ShapeDim(int):
    """A constant size of ``tensor.shape``: TVM's ``IntImm`` (``.value``,
    ``.dtype``, ``.astype``, ``isinstance(x, tvm.tir.IntImm)``) that prints,
    compares and computes as the ``int`` it is."""

    __slots__ = ()

    @property
    def value(self):
        return int(self)

    @property
    def dtype(self):
        return "int32"

    def astype(self, dtype):
        """The size converted to ``dtype`` (``tvm.tir.Cast``)."""
        return _native.resolve("tvm.tir.Cast")(dtype, int(self))

    def __repr__(self):
        return int.__repr__(self)

    __str__ = __repr__


def shape_of(shape):
    """``tensor.shape`` with its constant sizes as :class:`ShapeDim`: a list,
    as TVM's ``Array`` prints and slices (``A.shape[:-2]`` is a list)."""
    return [ShapeDim(d) if type(d) is int else d for d in shape]
