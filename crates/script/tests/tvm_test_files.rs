//! What TVM's own test files and TOPI's modules need beyond TE itself:
//! pytest's marks (each parametrized case runs under `tvm.testing.main()`),
//! TVM's requirement marks, `schedule_to_module`, modules imported at the
//! top but used only on other paths, TOPI's pooling, sum and broadcast add,
//! and the standard modules TOPI's files touch when they load.

fn run(source: &str) -> script::ScriptRun {
    script::run(source).unwrap_or_else(|e| panic!("{e}\n{source}"))
}

fn check_values(run: &script::ScriptRun) {
    let target = run.target.as_ref().expect("a schedule");
    let report = te::check(&target.schedule, &target.args, &Default::default(), 5).unwrap();
    assert!(report.is_clean(1e-5), "{report:?}");
}

fn error(source: &str) -> String {
    match script::run(source) {
        Ok(_) => panic!("ran without an error:\n{source}"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn pytest_marks_run_each_case_and_skip_what_they_skip() {
    let r = run(r#"
import pytest
import tvm
from tvm import te

seen = []

@pytest.mark.parametrize("n,factor", [(16, 4), (12, 5)])
@pytest.mark.parametrize("name", ["B", "C"])
def test_split(n, factor, name):
    A = te.placeholder((n,), name="A")
    B = te.compute((n,), lambda i: A[i] + 1.0, name=name)
    s = te.create_schedule(B.op)
    s[B].split(B.op.axis[0], factor=factor)
    seen.append((n, factor, name))

@pytest.mark.skip(reason="not here")
def test_skipped():
    assert False

@pytest.mark.skipif(True, reason="never")
def test_skipped_if():
    assert False

@pytest.mark.skipif(False, reason="runs")
def test_runs():
    seen.append("runs")

@tvm.testing.requires_gpu
@tvm.testing.requires_cuda
@pytest.mark.gpu
def test_gpu():
    seen.append("gpu")

@pytest.mark.parametrize("k", [3])
def test_direct(k):
    seen.append(k)

test_direct(7)

if __name__ == "__main__":
    tvm.testing.main()
    print(seen)
"#);
    assert_eq!(
        r.printed,
        "[7, (16, 4, 'B'), (12, 5, 'B'), (16, 4, 'C'), (12, 5, 'C'), 'runs', 'gpu', 3]\n"
    );
}

#[test]
fn a_parametrize_case_that_does_not_match_its_names_is_an_error() {
    let e = error(
        r#"
import pytest

@pytest.mark.parametrize("a,b", [(1, 2), (3,)])
def test_x(a, b):
    pass
"#,
    );
    assert!(
        e.contains("has not one value for each of the 2 names a, b"),
        "{e}"
    );
}

#[test]
fn schedule_to_module_and_named_lowerings_give_prim_funcs() {
    let r = run(r#"
import tvm
from tvm import te
from tvm.driver.build_module import schedule_to_module

A = te.placeholder((16,), name="A")
B = te.compute((16,), lambda i: A[i] * 2.0, name="B")
s = te.create_schedule(B.op)
mod = schedule_to_module(s, [A, B], "f")
print(isinstance(mod["f"], tvm.tir.PrimFunc), isinstance(mod["f"].body, tvm.tir.PrimFunc))
mod = tvm.lower(s, [A, B], name="g")
print(isinstance(mod["g"], tvm.tir.PrimFunc))
"#);
    assert_eq!(r.printed, "True False\nTrue\n");
    let e = error(
        r#"
import tvm
from tvm import te
A = te.placeholder((16,), name="A")
B = te.compute((16,), lambda i: A[i] * 2.0, name="B")
s = te.create_schedule(B.op)
tvm.lower(s, [A, B], name="g")["main"]
"#,
    );
    assert!(
        e.contains("the lowered program has one function, `g`, not 'main'"),
        "{e}"
    );
}

#[test]
fn modules_imported_for_other_paths_import_and_fail_where_used() {
    let header = r#"
import tvm
from tvm import te, relay, auto_scheduler, autotvm
from tvm.contrib import cudnn
from tvm.topi.nn.winograd_util import winograd_transform_matrices
from tvm.topi import generic

@autotvm.register_topi_compute("conv2d_nchw.x86")
def conv2d_nchw(cfg, data, kernel):
    return data
"#;
    run(header);
    for (use_, what) in [
        (
            "relay.var('x')",
            "`tvm.relay.var` is not supported by rangefinder",
        ),
        (
            "cudnn.softmax(1)",
            "`tvm.contrib.cudnn.softmax` is not supported by rangefinder",
        ),
        (
            "winograd_transform_matrices(2, 3, 'float32')",
            "`tvm.topi.nn.winograd_util.winograd_transform_matrices` is not supported",
        ),
    ] {
        let e = error(&format!("{header}\n{use_}\n"));
        assert!(e.contains(what), "{use_}: {e}");
    }
    // A template registered with AutoTVM runs with its fallback
    // configuration.
    let r = run(&format!("{header}\nprint(conv2d_nchw(1, 2))\n"));
    assert_eq!(r.printed, "1\n");
}

#[test]
fn what_topi_modules_touch_when_they_load() {
    let r = run(r#"
import logging
from collections import namedtuple
import tvm
from tvm import te
from tvm.topi.utils import equal_const_int, is_empty_shape, prod, simplify, tag

logger = logging.getLogger("topi")
logger.debug("loaded")
Workload = namedtuple("Workload", ["in_dtype", "out_dtype"])

@tvm.target.generic_func
def schedule(outs):
    return "default"

n = te.var("n")
ana = tvm.arith.Analyzer()
print(schedule([1]), tag.ELEMWISE, equal_const_int(n - n + 3, 3), equal_const_int(n, 3))
print(is_empty_shape((2, 0)), is_empty_shape((2, n)), prod((2, 3, 4)), prod((2, n)))
print(ana.simplify(n + 2 - n), simplify(n * 1), ana.can_prove(n + 1 > n))
print(tvm.device("llvm", 0), tvm.device("cuda"), tvm.tir.vscale() * 4)
print(tvm.testing.device_enabled("llvm"), tvm.testing.device_enabled("cuda"))
b = tvm.tir.decl_buffer((4,), "float32", name="b")
print(isinstance(b, tvm.te.schedule.Buffer), isinstance(n, tvm.tir.Buffer), tvm.te.schedule.IterVar.Unrolled == tvm.te.IterVar.Unrolled)
"#);
    assert_eq!(
        r.printed,
        "default elemwise True False\nTrue False 24 2 * n\n2 n True\ncpu(0) cuda(0) vscale * 4\nTrue False\nTrue False True\n"
    );
    // A workload is made and read (`crates/script/tests/python_snippets/
    // namedtuples.py` checks the rest against CPython); the rest of
    // `collections` needs CPython.
    let r = run("from collections import namedtuple\nW = namedtuple('W', ['a'])\nprint(W(1).a)\n");
    assert_eq!(r.printed, "1\n");
    let e = error("from collections import OrderedDict\nd = OrderedDict()\n");
    assert!(e.contains("needs CPython"), "{e}");
}

#[test]
fn topi_pooling_sum_and_broadcast_add_run_as_defined() {
    let r = run(r#"
import tvm
from tvm import te, topi
from tvm.topi.nn.pooling import pool2d

data = te.placeholder((1, 16, 28, 28), name="data")
pool = pool2d(data, (3, 3), (2, 2), (1, 1), (1, 1, 1, 1), "max")
avg = topi.nn.pool2d(pool, (2, 2), (2, 2), (1, 1), (0, 0, 1, 1), "avg", ceil_mode=True, count_include_pad=False)
red = topi.sum(avg, axis=(2, 3))
bias = te.placeholder((16,), name="bias")
out = topi.add(red, bias)
print(pool.op.name, pool.shape, avg.op.name, avg.op.tag, avg.shape, red.op.name, red.shape, out.op.tag)
s = te.create_schedule(out.op)
psum = avg.op.input_tensors[0]
s[psum.op.input_tensors[0]].compute_inline()
s[pool].compute_at(s[psum], psum.op.axis[1])
tvm.lower(s, [data, bias, out])
"#);
    assert_eq!(
        r.printed,
        "pool_max [1, 16, 14, 14] pool_avg elemwise [1, 16, 8, 8] pool_avg_red [1, 16] broadcast\n"
    );
    check_values(&r);
}

/// A `ValueError` or `IndexError` the API raises, as TVM does, is caught by
/// `except` and `pytest.raises` with that class (TVM's tests check them);
/// a `TypeError` of a script mistake or an unsupported feature is not.
#[test]
fn value_errors_the_api_raises_are_caught_as_in_tvm() {
    let r = run(r#"
import pytest
from tvm import te

caught = []
try:
    with te.tag_scope(tag="x"):
        with te.tag_scope(tag="y"):
            pass
except ValueError as e:
    caught.append(str(e))
with pytest.raises(ValueError):
    with te.tag_scope(tag="x"):
        with te.tag_scope(tag="y"):
            pass
# The scopes the errors left were exited: a new one opens.
with te.tag_scope(tag="z"):
    A = te.placeholder((4,), name="A")
    B = te.compute((4,), lambda i: A[i] + 1.0, name="B")
print(len(caught), "nested" in caught[0], B.op.tag)
"#);
    assert_eq!(r.printed, "1 True z\n");
    let e = error(
        r#"
from tvm import te
try:
    te.placeholder("not a shape")
except ValueError:
    pass
"#,
    );
    assert!(!e.contains("ValueError"), "{e}");
}

#[test]
fn tvm_testing_parameters_run_each_combination_under_tvm_testing_main() {
    let r = run(r#"
import tvm
import tvm.testing

size = tvm.testing.parameter(8, 16)
dtype = tvm.testing.parameter(by_dict={"f": "float32", "i": "int32"})
rows, cols = tvm.testing.parameters((1, 2), (3, 4))
seen = []

def test_combinations(size, dtype):
    seen.append((size, dtype))

def test_together(rows, cols, extra=0):
    seen.append((rows, cols, extra))

if __name__ == "__main__":
    tvm.testing.main()
    print(seen)
"#);
    assert_eq!(
        r.printed,
        "[(8, 'float32'), (8, 'int32'), (16, 'float32'), (16, 'int32'), (1, 2, 0), (3, 4, 0)]\n"
    );
    let e = error(
        r#"
import tvm
import tvm.testing

def test_fixture(target):
    pass

tvm.testing.main()
"#,
    );
    assert!(
        e.contains("`test_fixture` takes `target`, which is not a `tvm.testing.parameter`"),
        "{e}"
    );
}

#[test]
fn a_type_error_tvm_raises_is_caught_and_a_caught_lowering_error_is_not_reported() {
    let r = run(r#"
import tvm
from tvm import te

m = te.var("m")
X = te.placeholder((m, 4), name="X")
state = te.placeholder((m, 4))
init = te.compute((1, 4), lambda _, i: X[0, i])
update = te.compute((m, 4), lambda t, i: state[t - 1, i] + X[t, i])
res = tvm.te.scan(init, update, state, inputs=[X])
try:
    te.create_prim_func([X, res])
except TypeError as e:
    print("TypeError:", str(e).split(".")[0])

A = te.compute((16,), lambda i: 1.0, name="A")
C = te.compute((16,), lambda i: A[i] + 1.0, name="C")
s = te.create_schedule(C.op)
s[C].compute_at(s[C], C.op.axis[0])
try:
    tvm.lower(s, [A, C])
except RuntimeError:
    print("invalid")
"#);
    assert_eq!(
        r.printed,
        "TypeError: Unsupported Operation: ScanOp\ninvalid\n"
    );
    // The script showed its last schedule invalid and caught the error:
    // there is nothing to report, rather than the same error again.
    assert!(r.target.is_none());
}

#[test]
fn classes_hold_their_attributes_and_test_classes_are_left_to_cpython() {
    let r = run(r#"
import tvm
import tvm.testing

class Shapes:
    square = (4, 4)
    rows = square[0]

    @staticmethod
    def area(shape):
        return shape[0] * shape[1]

    @tvm.testing.fixture
    def fixture_of(self):
        return 1

    @tvm.testing.parametrize_targets("llvm", "cuda")
    def test_targets(self, target):
        pass

print(Shapes.rows, Shapes.area(Shapes.square), Shapes.__name__)
try:
    raise tvm.TVMError("x")
except tvm.error.TVMError:
    print("caught")
"#);
    assert_eq!(r.printed, "4 16 Shapes\ncaught\n");
    for (source, expected) in [
        (
            "class A:\n    x = 1\nA()\n",
            "instances of a class the script defines are not supported",
        ),
        (
            "class A:\n    x = 1\nA.y\n",
            "type object 'A' has no attribute 'y'",
        ),
        ("class A(int):\n    pass\n", "a class with base classes"),
        (
            "import tvm\nimport tvm.testing\nclass TestA:\n    def test_x(self):\n        pass\n\
             tvm.testing.main()\n",
            "`TestA` holds tests as methods of a class",
        ),
    ] {
        let e = error(source);
        assert!(e.contains(expected), "{source}: {e}");
    }
}

#[test]
fn parametrize_targets_runs_the_test_once_per_target() {
    let r = run(r#"
import tvm
import tvm.testing

seen = []

@tvm.testing.parametrize_targets("llvm", "cuda")
def test_each(target):
    seen.append(target)

@tvm.testing.parametrize_targets
def test_bare():
    seen.append("bare")

if __name__ == "__main__":
    tvm.testing.main()
    print(seen)
"#);
    assert_eq!(r.printed, "['llvm', 'cuda', 'bare']\n");
}
