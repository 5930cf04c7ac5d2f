"""``tvm.testing``: the assertions TVM's own tests use."""

import sys

from ._object import api, layer_getattr, to_plain

#: Raises ``AssertionError`` unless ``lhs == rhs`` for every value of their
#: variables.
assert_prim_expr_equal = api("tvm.testing.assert_prim_expr_equal")

_assert_allclose = api("tvm.testing.assert_allclose")

__getattr__ = layer_getattr("tvm.testing")

__all__ = [
    "assert_allclose",
    "assert_prim_expr_equal",
    "fixture",
    "main",
    "parameter",
    "parameters",
    "parametrize_targets",
]

#: How many groups `parameters` has made, to tell them apart.
_parameter_groups = 0


def assert_allclose(actual, desired, rtol=None, atol=None, verbose=True):
    """Raises ``AssertionError`` unless ``actual`` and ``desired`` (arrays,
    numpy arrays or nested lists) agree within ``atol + rtol * |desired|`` (defaults 1e-7 and 0)."""
    keywords = {k: v for k, v in (("rtol", rtol), ("atol", atol)) if v is not None}
    return _assert_allclose(to_plain(actual), to_plain(desired), **keywords)


def parameter(*values, ids=None, by_dict=None):
    """``tvm.testing.parameter``: a parametrized pytest fixture, named after
    the module variable it is assigned to (``size = parameter(1, 10)``
    runs ``def test_x(size)`` once per value), as TVM defines it."""
    import pytest

    if by_dict is not None:
        if values or ids:
            raise RuntimeError("Use of the by_dict parameter cannot be used alongside positional arguments")
        ids, values = zip(*by_dict.items())

    @pytest.fixture(params=values, ids=ids, scope="session")
    def as_fixture(*_cls, request):
        return request.param

    return as_fixture


def parameters(*value_sets, ids=None):
    """``a, b = tvm.testing.parameters((1, 2), (3, 4))``: parameters that
    take their values together (a test of ``a`` and ``b`` runs with
    ``(1, 2)`` and with ``(3, 4)``, not every combination), as TVM's plugin
    correlates them."""
    import pytest

    global _parameter_groups
    group = _parameter_groups
    _parameter_groups += 1
    outputs = []
    for values in zip(*value_sets):

        def as_fixture(*_cls, request):
            return request.param

        as_fixture.parametrize_group = group
        as_fixture.parametrize_values = values
        as_fixture.parametrize_ids = ids
        outputs.append(pytest.fixture(as_fixture))
    return outputs


def fixture(func=None, *, cache_return_value=False):
    """``tvm.testing.fixture``: a pytest fixture whose value is computed per
    test (or once, with ``cache_return_value=True``)."""
    import pytest

    def wraps(f):
        return pytest.fixture(f, scope="session" if cache_return_value else "function")

    return wraps if func is None else wraps(func)


def main():
    """``tvm.testing.main()``: runs the calling file's tests with pytest
    (fixtures, ``parametrize``, marks), as TVM does; ``import tvm`` in the
    file stays this package."""
    import inspect
    import pytest

    test_file = inspect.getsourcefile(sys._getframe(1))
    plugin = ["-p", "rangefinder.tvm._pytest_plugin"]
    sys.exit(pytest.main([test_file, *plugin] + sys.argv[1:]))


def parametrize_targets(*args):
    """``@tvm.testing.parametrize_targets("llvm", ...)``: runs the test once
    per target named; bare, the test runs for every target this machine
    runs, as a test taking ``target`` does anyway."""
    import pytest

    if len(args) == 1 and callable(args[0]):
        return args[0]
    return pytest.mark.parametrize("target", list(args), scope="session")
