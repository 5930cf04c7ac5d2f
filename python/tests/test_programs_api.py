"""The TVM API programs use beyond schedules, under CPython: context
managers (`te.tag_scope`, `tvm.target.Target`), keywords reaching decorated
Python functions, the modules `tvm.topi`/`tvm.target`/`tvm.nd`/... resolved
from the layer, `tvm.lower`'s module object, and numpy arrays in and out."""

import pathlib
import subprocess
import sys
import textwrap

import pytest

import rangefinder.tvm as tvm
from rangefinder.tvm import te, tir


def _vector_add(n=8):
    A = te.placeholder((n,), name="A")
    B = te.compute((n,), lambda i: A[i] + 1.0, name="B")
    return A, B, te.create_schedule(B.op)


# --- 1. context managers and keywords -------------------------------------


def test_tag_scope_as_context_manager_tags_the_computes():
    A = te.placeholder((4,), name="A")
    with te.tag_scope(tag="elemwise") as scope:
        B = te.compute((4,), lambda i: A[i] * 2.0, name="B")
    assert scope.tag == "elemwise"
    assert B.op.tag == "elemwise"
    C = te.compute((4,), lambda i: B[i], name="C")
    assert C.op.tag == ""


def test_exit_returns_false_so_an_exception_propagates_and_the_scope_ends():
    A = te.placeholder((4,), name="A")
    with pytest.raises(ZeroDivisionError):
        with te.tag_scope(tag="inner"):
            1 / 0
    # The scope ended with the exception: a compute after it has no tag,
    # and a new scope may open (nested scopes are an error).
    B = te.compute((4,), lambda i: A[i], name="B")
    assert B.op.tag == ""
    with te.tag_scope(tag="again"):
        C = te.compute((4,), lambda i: A[i], name="C")
    assert C.op.tag == "again"


def test_with_on_a_non_context_manager_is_a_type_error():
    x = te.var("x")
    with pytest.raises(TypeError, match="not a context manager"):
        with x:
            pass


def test_target_context_manager_sets_the_current_target():
    assert tvm.target.Target.current() is None
    with tvm.target.Target("cuda") as target:
        assert str(tvm.target.Target.current().kind.name) == "cuda"
        assert isinstance(target, tvm.target.Target)
    assert tvm.target.Target.current() is None


def test_decorated_function_receives_keywords():
    calls = []

    @te.tag_scope(tag="decorated")
    def scaled(A, factor=1.0, name="S"):
        calls.append((factor, name))
        return te.compute(A.shape, lambda i: A[i] * factor, name=name)

    A = te.placeholder((4,), name="A")
    B = scaled(A, factor=3.0, name="B")
    assert calls == [(3.0, "B")]
    assert B.op.tag == "decorated"
    assert B.op.name == "B"


# --- 2. modules -------------------------------------------------------------


def test_modules_resolve_from_the_layer():
    assert isinstance(tvm.topi.utils.get_const_tuple, type(te.compute))
    assert tvm.topi.tag.ELEMWISE == "elemwise"
    assert tvm.tir.expr.IntImm is not None
    assert tvm.te.tensor.Tensor is not None
    # A layer function with no Python code resolves through `__getattr__`.
    assert str(tvm.tir.Select) == "<built-in function tvm.tir.Select>"
    assert str(tvm.build) == "<built-in function tvm.build>"
    with pytest.raises(AttributeError, match="not supported by rangefinder"):
        tvm.topi.no_such_function


def test_install_makes_tvm_imports_resolve():
    script = textwrap.dedent(
        """
        import rangefinder.tvm
        rangefinder.tvm.install()
        import tvm
        import tvm.topi.utils
        from tvm import te, topi
        from tvm.topi import tag
        from tvm.topi.utils import get_const_tuple, traverse_inline
        import tvm.target, tvm.nd, tvm.ir, tvm.tir.expr, tvm.te.tensor
        import tvm.te.schedule, tvm.tir.stmt_functor
        A = te.placeholder((4, 8), name="A")
        assert get_const_tuple(A.shape) == (4, 8)
        assert tag.ELEMWISE == "elemwise"
        assert tvm.topi.utils is topi.utils
        print(type(tvm.cpu(0)).__name__, tvm.nd.empty((2,)).shape)
        """
    )
    p = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    assert p.stdout.split() == ["Object", "(2,)"]


# --- 3. tvm.lower -----------------------------------------------------------


def test_lower_returns_the_module_object():
    A, B, s = _vector_add()
    mod = tvm.lower(s, [A, B], simple_mode=True)
    # The text of the lowering as before (the command prints the same).
    assert str(mod) == "produce B {\n  for (i, 0, 8) {\n    B[i] = (A[i] + 1.000000f)\n  }\n}\n"
    assert "@T.prim_func" in mod.script()
    assert "for i in range(8):" in mod.script()
    body = mod["main"].body
    loops = []
    tvm.tir.stmt_functor.post_order_visit(body, lambda n: loops.append(n) if isinstance(n, tvm.tir.For) else None)
    assert len(loops) == 1
    assert str(loops[0].loop_var) == "i"


def test_lower_is_recorded_for_the_report():
    from rangefinder.tvm import session

    session().reset()
    A, B, s = _vector_add(16)
    tvm.lower(s, [A, B], simple_mode=True)
    other = te.create_schedule(te.compute((4,), lambda i: A[i], name="C").op)
    schedule, args = session().target()
    # The schedule lowered last, not the one created last.
    assert schedule.same_as(s) and not schedule.same_as(other)
    assert [t.name for t in args] == ["A", "B"]


# --- 4. numpy ---------------------------------------------------------------


def test_numpy_arrays_in_and_out():
    np = pytest.importorskip("numpy")
    A, B, s = _vector_add(4)
    f = tvm.build(s, [A, B], "llvm")
    dev = tvm.cpu(0)
    a = tvm.nd.array(np.arange(4, dtype="float32"), dev)
    assert a.dtype == "float32"
    b = tvm.nd.array(np.zeros(4, dtype="float32"), dev)
    f(a, b)
    out = b.numpy()
    assert isinstance(out, np.ndarray)
    assert out.dtype == np.float32
    assert out.tolist() == [1.0, 2.0, 3.0, 4.0]
    tvm.testing.assert_allclose(out, np.arange(4, dtype="float32") + 1)
    with pytest.raises(AssertionError, match="Not equal to tolerance"):
        tvm.testing.assert_allclose(b.numpy(), np.zeros(4))


def test_numpy_integer_arrays_keep_their_dtype():
    np = pytest.importorskip("numpy")
    a = tvm.nd.array(np.array([[1, 2], [3, 4]], dtype="int64"))
    assert a.dtype == "int64"
    assert a.shape == (2, 2)
    assert a.numpy().dtype == np.int64
    assert a.numpy().tolist() == [[1, 2], [3, 4]]


def test_lists_work_without_numpy():
    a = tvm.nd.array([1.0, 2.0])
    assert a.dtype == "float32"
    tvm.testing.assert_allclose(a.numpy(), [1.0, 2.0])


# --- 5. shape sizes are IntImm ----------------------------------------------

SHAPE_SCRIPT = """\
import tvm
from tvm import te
A = te.placeholder((2, 3, 8, 6), name="A")
n, c, h, w = A.shape
print(A.shape, h, h.value, h.dtype, h.astype("float32"))
print(isinstance(h, tvm.tir.IntImm), isinstance(h, tvm.tir.PrimExpr))
"""


def test_shape_sizes_are_intimm_in_both_front_ends(cli, tmp_path):
    A = te.placeholder((2, 8), name="A")
    h = A.shape[1]
    assert isinstance(h, tvm.tir.IntImm) and isinstance(h, tvm.tir.expr.IntImm)
    assert not isinstance(8, tvm.tir.IntImm)
    # TVM's `cast` folds a constant: the float32 constant 8.0, not a cast.
    assert (h.value, h.dtype, str(h.astype("float32"))) == (8, "int32", "8.0")
    assert h.astype("float32").value == 8.0
    # Still the int it is: printing, comparing, arithmetic, sizes.
    assert A.shape == [2, 8] and repr(A.shape) == "[2, 8]" and h * 2 == 16
    assert te.compute(A.shape, lambda i, j: A[i, j]).shape == [2, 8]

    path = tmp_path / "shape.py"
    path.write_text(SHAPE_SCRIPT)
    te_out = cli("te", path).stdout.splitlines()[:2]
    py = subprocess.run(
        [sys.executable, "-c", "import rangefinder.tvm; rangefinder.tvm.install(); exec(open(%r).read())" % str(path)],
        capture_output=True,
        text=True,
    )
    assert py.returncode == 0, py.stderr
    assert py.stdout.splitlines() == te_out
    assert te_out == ["[2, 3, 8, 6] 8 8 int32 8.0", "True True"]


STAGE_RECORDS = pathlib.Path(__file__).parents[2] / "crates/script/tests/programs/stage_records.py"


def test_stage_records_print_the_same_in_both_front_ends(cli):
    # What TVM's tests read back from schedules and expressions: loop
    # records, attachments, hashes, reducers, post_order_visit on an
    # expression, a built function with a scalar parameter.
    te_out = cli("te", STAGE_RECORDS).stdout.split("# ranges")[0]
    py = subprocess.run(
        [sys.executable, "-m", "rangefinder.tvm", str(STAGE_RECORDS)],
        capture_output=True,
        text=True,
    )
    assert py.returncode == 0, py.stderr
    assert py.stdout.split("# ranges")[0] == te_out
    assert te_out.splitlines()[-1] == "[0, 5, 10, 15]"


def test_time_evaluator_times_the_interpreted_runs():
    """``f.time_evaluator`` runs the built function as timed (in the
    interpreter) and leaves the results of the last run in the arrays."""
    import numpy as np

    import rangefinder.tvm as tvm
    from rangefinder.tvm import te

    a = te.placeholder((64,), name="A")
    b = te.compute((64,), lambda i: a[i] * 2, name="B")
    s = te.create_schedule(b.op)
    f = tvm.build(s, [a, b])
    x = tvm.nd.array(np.arange(64, dtype="float32"))
    y = tvm.nd.array(np.zeros(64, dtype="float32"))
    timer = f.time_evaluator(f.entry_name, tvm.cpu(0), number=3, repeat=2)
    result = timer(x, y)
    assert len(result.results) == 2
    assert result.min <= result.mean <= result.max
    assert result.mean > 0
    np.testing.assert_allclose(y.numpy(), np.arange(64) * 2)
