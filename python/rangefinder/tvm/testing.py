"""``tvm.testing``: the assertion TVM's own tests use."""

from ._object import api

#: Raises ``AssertionError`` unless ``lhs == rhs`` for every value of their
#: variables.
assert_prim_expr_equal = api("tvm.testing.assert_prim_expr_equal")

__all__ = ["assert_prim_expr_equal"]
