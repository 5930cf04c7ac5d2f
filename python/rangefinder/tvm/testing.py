"""``tvm.testing``: the assertions TVM's own tests use."""

from ._object import api, layer_getattr, to_plain

#: Raises ``AssertionError`` unless ``lhs == rhs`` for every value of their
#: variables.
assert_prim_expr_equal = api("tvm.testing.assert_prim_expr_equal")

_assert_allclose = api("tvm.testing.assert_allclose")

__getattr__ = layer_getattr("tvm.testing")

__all__ = ["assert_allclose", "assert_prim_expr_equal"]


def assert_allclose(actual, desired, rtol=None, atol=None, verbose=True):
    """Raises ``AssertionError`` unless ``actual`` and ``desired`` (arrays,
    numpy arrays or nested lists) agree within ``atol + rtol * |desired|`` (defaults 1e-7 and 0)."""
    keywords = {k: v for k, v in (("rtol", rtol), ("atol", atol)) if v is not None}
    return _assert_allclose(to_plain(actual), to_plain(desired), **keywords)
