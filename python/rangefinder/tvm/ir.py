"""``tvm.ir``: ranges and structural equality."""

from .._native import Range
from .._native import structural_equal as _structural_equal

__all__ = ["Range", "assert_structural_equal", "structural_equal"]


def structural_equal(lhs, rhs, map_free_vars=False):
    """Whether ``lhs`` and ``rhs`` are the same expression (or range, or
    list of them), node for node."""
    return _structural_equal(lhs, rhs)


def assert_structural_equal(lhs, rhs, map_free_vars=False):
    """Raises ``ValueError`` unless ``lhs`` and ``rhs`` are structurally
    equal, as TVM does."""
    if not _structural_equal(lhs, rhs):
        raise ValueError(f"StructuralEqual check failed: {lhs} != {rhs}")
