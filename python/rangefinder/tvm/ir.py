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


def structural_equal(lhs, rhs, map_free_vars=False):
    """Whether ``lhs`` and ``rhs`` are the same expression (or range, or
    list of them), node for node."""
    return _native.structural_equal(lhs, rhs)


def assert_structural_equal(lhs, rhs, map_free_vars=False):
    """Raises ``ValueError`` unless ``lhs`` and ``rhs`` are structurally
    equal, as TVM does."""
    if not _native.structural_equal(lhs, rhs):
        raise ValueError(f"StructuralEqual check failed: {lhs} != {rhs}")

#: Names this module does not define are the layer's.
__getattr__ = layer_getattr("tvm.ir")
