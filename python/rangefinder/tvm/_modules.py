"""The TVM modules that have no Python code of their own (``tvm.topi``,
``tvm.target``, ``tvm.nd``, ...): every name in them is the layer's."""

import sys as _sys
import types as _types

from .. import _native
from ._object import layer_getattr

#: The modules whose names all come from the layer, parents first.
LAYER_MODULES = (
    "tvm.tir.expr",
    "tvm.tir.stmt",
    "tvm.te.tensor",
    "tvm.te.operation",
    "tvm.target",
    "tvm.topi",
    "tvm.topi.utils",
    "tvm.topi.tag",
    "tvm.driver",
    "tvm.driver.build_module",
    "tvm.transform",
    "tvm.ir.transform",
    "tvm.script",
    "tvm.script.tir",
    "tvm.tir.schedule",
    "tvm.tir.generic",
    # Imported at the top of TOPI's modules and TVM's tests, used only on
    # paths TE programs do not take: their names import, their use fails.
    # The layer keeps the list.
) + tuple(_native.import_only_modules()) + (
    "tvm.topi.nn.pooling",
    "tvm.topi.math",
    "tvm.topi.transform",
)


def layer_module(path, package):
    """The module object for TVM module ``path``, registered in
    ``sys.modules`` as ``rangefinder.<path>`` and set on its parent."""
    name = "rangefinder." + path
    module = _sys.modules.get(name)
    if module is None:
        module = _types.ModuleType(name, f"``{path}``: resolved from the API layer.")
        module.__getattr__ = layer_getattr(path)
        _sys.modules[name] = module
    parent, _, last = name.rpartition(".")
    # A function of the parent with the module's name (`tvm.topi.nn.pad`
    # is a module and, as an attribute of `tvm.topi.nn`, the function)
    # stays the parent's attribute: the module is only imported by path.
    if _native.instance_of(_native.resolve(path), "", ["module"]):
        setattr(_sys.modules[parent] if parent != package.__name__ else package, last, module)
    return module
