"""``tvm.testing``: the assertion TVM's own tests use."""

from .._native import prove_equal

__all__ = ["assert_prim_expr_equal"]


def assert_prim_expr_equal(lhs, rhs):
    """Raises ``AssertionError`` unless ``lhs == rhs`` for every value of
    their variables."""
    if not prove_equal(lhs, rhs):
        raise AssertionError(f"assert_prim_expr_equal failed: `{lhs}` is not provably equal to `{rhs}`")
