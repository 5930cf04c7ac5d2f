"""``tvm.ir``: ranges, structural equality, and saving objects as JSON."""

from .. import _native
from ._object import api, layer_getattr, tvm_class

Range = tvm_class(
    "tvm.ir.Range",
    construct=api("tvm.ir.Range"),
    doc="``Range(begin, end)``: the half-open interval ``[begin, end)``; with one argument ``[0, end)``.",
)

Range.from_min_extent = staticmethod(api("tvm.ir.Range").from_min_extent)

__all__ = ["Range", "assert_structural_equal", "load_json", "save_json", "structural_equal"]


structural_equal = api("tvm.ir.structural_equal")
assert_structural_equal = api("tvm.ir.assert_structural_equal")
save_json = api("tvm.ir.save_json")
load_json = api("tvm.ir.load_json")


def _from_json(text):
    """What ``pickle`` calls to rebuild a tensor, operation or schedule:
    ``load_json`` of the document it was pickled as."""
    return load_json(text)

#: Names this module does not define are the layer's.
__getattr__ = layer_getattr("tvm.ir")
