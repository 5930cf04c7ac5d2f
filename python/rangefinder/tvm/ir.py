"""``tvm.ir``: ranges and structural equality."""

from .. import _native
from ._object import api, layer_getattr, tvm_class

Range = tvm_class(
    "tvm.ir.Range",
    construct=api("tvm.ir.Range"),
    doc="``Range(begin, end)``: the half-open interval ``[begin, end)``; with one argument ``[0, end)``.",
)

Range.from_min_extent = staticmethod(api("tvm.ir.Range").from_min_extent)

__all__ = ["Range", "assert_structural_equal", "structural_equal"]


structural_equal = api("tvm.ir.structural_equal")
assert_structural_equal = api("tvm.ir.assert_structural_equal")

#: Names this module does not define are the layer's.
__getattr__ = layer_getattr("tvm.ir")
