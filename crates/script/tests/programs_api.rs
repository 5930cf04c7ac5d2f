//! The API real TE programs use, written as those programs write it:
//! `tvm.topi`'s helpers, `isinstance` with TVM's classes, casts and typed
//! constants, tag scopes (`with` and `@`) and attributes, targets. Programs
//! that compute are checked by value against their definitions.

fn run(source: &str) -> script::ScriptRun {
    script::run(source).unwrap_or_else(|e| panic!("{e}\n{source}"))
}

/// Runs the script's program on random inputs and compares every element
/// with the definitions.
fn check_values(run: &script::ScriptRun) {
    let target = run.target.as_ref().expect("a schedule");
    let report = te::check(&target.schedule, &target.args, &Default::default(), 7).unwrap();
    assert!(report.is_clean(1e-6), "{report:?}");
}

fn error(source: &str) -> String {
    match script::run(source) {
        Ok(_) => panic!("ran without an error:\n{source}"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn topi_utils_and_tags_schedule_a_tagged_graph() {
    let r = run(r#"
import tvm
from tvm import te, topi
from tvm.topi import tag
from tvm.topi.utils import get_const_tuple, get_const_int, traverse_inline

n = te.var("n")
data = te.placeholder((n, 12), name="data")
print(get_const_tuple(data.shape), get_const_int(data.shape[1]), topi.tag.ELEMWISE)
A = te.placeholder((8, 12), name="A")
pad = te.compute((8, 14), lambda i, j: tvm.tir.if_then_else(tvm.tir.all(j >= 1, j <= 12), A[i, j - 1], 0.0), name="pad", tag=tag.INJECTIVE + ",pad")
B = te.compute((8, 12), lambda i, j: pad[i, j] + pad[i, j + 2], name="B", tag="conv")
C = te.compute((8, 12), lambda i, j: B[i, j] * 2.0, name="C", tag=tag.ELEMWISE)
s = te.create_schedule(C.op)
seen = []
def callback(op):
    seen.append(op.name)
    if op.tag == "conv":
        s[op].compute_at(s[C], s[C].op.axis[0])
traverse_inline(s, C.op, callback)
print(seen, tag.is_injective(pad.op.tag), tag.is_broadcast(pad.op.tag))
tvm.lower(s, [A, C])
"#);
    assert_eq!(r.printed, "(n, 12) 12 elemwise\n['B', 'C'] True False\n");
    // As in TOPI, the traversal stops at an operation that is not
    // injective (B): its callback schedules what it reads.
    check_values(&r);
}

#[test]
fn isinstance_with_tvms_classes_and_tuples_of_them() {
    let r = run(r#"
import tvm
from tvm import te
n = te.var("n")
A = te.placeholder((n, 4), name="A")
B = te.compute((n, 4), lambda i, j: A[i, j] + 1.0, name="B")
s = te.create_schedule(B.op)
print(isinstance(n, tvm.tir.Var), isinstance(n, tvm.tir.expr.PrimExpr), isinstance(n, tvm.tir.IntImm))
print(isinstance(A.shape[1], tvm.tir.IntImm), isinstance(A.shape[1], (tvm.tir.Var, int)), isinstance(n + 1, tvm.ir.PrimExpr))
print(isinstance(A, te.tensor.Tensor), isinstance(A.op, te.PlaceholderOp), isinstance(B.op, te.ComputeOp), isinstance(B.op, te.PlaceholderOp))
print(isinstance(B.op.axis[0], tvm.tir.IterVar), isinstance(B.op.axis[0], tvm.tir.PrimExpr), isinstance(s[B], te.schedule.Stage), isinstance(s, tvm.runtime.Object))
"#);
    assert_eq!(
        r.printed,
        "True True False\nTrue True True\nTrue True True False\nTrue False True True\n"
    );
}

#[test]
fn casts_selects_limits_and_call_syntax_compute_the_values_tvm_would() {
    let r = run(r#"
import tvm
from tvm import te
A = te.placeholder((6, 5), name="A")
I = te.placeholder((6,), name="I", dtype="int32")
low = te.min_value("float32")
B = te.compute(
    (6, 5),
    lambda i, j: tvm.tir.Select(A(I(i) % 6, j) > 0.0, A(I(i) % 6, j), low / 2).astype("float64")
    + j.astype("float64") + tvm.tir.indexdiv(j, 2) + tvm.tir.indexmod(i, 4)
    + A[i, j].astype("float16").astype("float64"),
    name="B",
)
print(B.dtype, low.dtype, te.max_value("int8").dtype, A[0, 0].astype("int8").dtype, B.op.axis[0].var.equal(0))
tvm.lower(te.create_schedule(B.op), [A, I, B])
"#);
    assert_eq!(r.printed, "float64 float32 int8 int8 i == 0\n");
    check_values(&r);
}

#[test]
fn tag_scope_as_context_manager_and_decorator() {
    let r = run(r#"
import tvm
from tvm import te
from tvm.topi import tag

@te.tag_scope(tag=tag.ELEMWISE)
def relu(x):
    return te.compute(x.shape, lambda *i: te.max(x(*i), tvm.tir.const(0, x.dtype)), name="relu")

A = te.placeholder((4, 4), name="A")
with te.tag_scope("broadcast"):
    B = te.compute((4, 4), lambda i, j: A[i, j] * 2.0, name="B", attrs={"workload": ["x", 4]})
C = relu(B)
print(B.op.tag, C.op.tag, A.op.tag == "", B.op.attrs["workload"])
"#);
    assert_eq!(r.printed, "broadcast elemwise True ['x', 4]\n");
    let nested = error(
        "from tvm import te\nwith te.tag_scope('a'):\n    with te.tag_scope('b'):\n        pass\n",
    );
    assert!(
        nested.contains("nested op_tag is not allowed for now"),
        "{nested}"
    );
    let tagged = error(
        "from tvm import te\nA = te.placeholder((4,), name='A')\nwith te.tag_scope('a'):\n    B = te.compute((4,), lambda i: A[i], tag='b')\n",
    );
    assert!(
        tagged.contains("nested tag is not allowed for now"),
        "{tagged}"
    );
}

#[test]
fn targets_as_context_managers() {
    let r = run(r#"
import tvm
print(tvm.target.Target.current())
for name in ["cuda", "llvm -mcpu=skylake"]:
    with tvm.target.Target(name) as target:
        current = tvm.target.Target.current(allow_none=False)
        print(current.kind.name, current.keys, target)
        if current.kind.name == "cuda":
            print(current.max_num_threads)
print(tvm.target.Target.current())
"#);
    assert_eq!(
        r.printed,
        "None\ncuda ['cuda', 'gpu'] cuda -keys=cuda,gpu -max_num_threads=1024 -thread_warp_size=32\n1024\n\
         llvm ['cpu'] llvm -keys=cpu -mcpu=skylake\nNone\n"
    );
}

#[test]
fn built_functions_run_on_nd_arrays_and_assert_allclose_checks_them() {
    let r = run(r#"
import tvm
import tvm.testing
from tvm import te
A = te.placeholder((2, 3), name="A")
B = te.compute((2, 3), lambda i, j: A[i, j] * 2.0 + j, name="B")
s = te.create_schedule(B.op)
f = tvm.build(s, [A, B], target="llvm")
dev = tvm.cpu(0)
a = tvm.nd.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], dev)
b = tvm.nd.empty((2, 3), "float32", dev)
f(a, b)
print(b.numpy(), b.shape, b.dtype)
tvm.testing.assert_allclose(b.numpy(), [[2.0, 5.0, 8.0], [8.0, 11.0, 14.0]], rtol=1e-5)
"#);
    assert_eq!(
        r.printed,
        "[[2.0, 5.0, 8.0], [8.0, 11.0, 14.0]] (2, 3) float32\n"
    );
    let failed = error(
        "import tvm\nimport tvm.testing\ntvm.testing.assert_allclose([1.0, 2.0], [1.0, 2.5], rtol=1e-7)\n",
    );
    assert!(
        failed.contains("Not equal to tolerance rtol=1e-07, atol=0")
            && failed.contains("Mismatched elements: 1 / 2 (50%)"),
        "{failed}"
    );
}

/// An argument the program never reads (an input of a constant fill)
/// keeps its place: the arrays after it still meet their own buffers.
#[test]
fn a_built_function_skips_the_arrays_of_tensors_it_does_not_read() {
    let r = run(r#"
import tvm
from tvm import te
A = te.placeholder((3,), name="A")
F = te.compute((3,), lambda i: tvm.tir.const(2.5, "float32") + i, name="F")
s = te.create_schedule(F.op)
f = tvm.build(s, [A, F])
a = tvm.nd.array([1.0, 2.0, 3.0])
b = tvm.nd.empty((3,), "float32")
f(a, b)
print(a.numpy(), b.numpy())
"#);
    assert_eq!(r.printed, "[1.0, 2.0, 3.0] [2.5, 3.5, 4.5]\n");
}

#[test]
fn lowered_programs_print_as_before_and_post_order_visit_walks_their_loops() {
    let r = run(r#"
import tvm
from tvm import te
A = te.placeholder((4, 10), name="A")
B = te.compute((4, 10), lambda i, j: A[i, j] + 1.0, name="B")
s = te.create_schedule(B.op)
xo, xi = s[B].split(B.op.axis[1], factor=5)
mod = tvm.lower(s, [A, B], simple_mode=True)
loops = []
stores = []
def visit(node):
    if isinstance(node, tvm.tir.For):
        loops.append((node.loop_var.name, node.min, int(node.extent)))
    elif isinstance(node, tvm.tir.BufferStore):
        stores.append(node.buffer.name)
tvm.tir.stmt_functor.post_order_visit(mod["main"].body, visit)
print(loops, stores, isinstance(mod["main"].body, tvm.tir.Stmt))
print(mod)
"#);
    let lines: Vec<&str> = r.printed.lines().collect();
    assert_eq!(
        lines[0],
        "[('j.inner', 0, 5), ('j.outer', 0, 2), ('i', 0, 4)] ['B'] True"
    );
    // `print(mod)` shows the program as `print(tvm.lower(...))` always has.
    let target = r.target.as_ref().unwrap();
    let text = target.lowering.as_ref().unwrap().program().to_string();
    assert_eq!(r.printed, format!("{}\n{text}\n", lines[0]));
}

/// What TVM's own tests read back from schedules and expressions
/// (`tests/programs/stage_records.py`): the same text under CPython is
/// checked by `python/tests/test_programs_api.py`.
const STAGE_RECORDS_PRINTED: &str = "float32 True True\n\
auto_unroll_max_step 16 False\n\
1 True\n\
True True 4 1\n\
True 1\n\
m + n m + n + 3\n\
['k'] n 1\n\
['load', 'call', 'load']\n\
[0, 5, 10, 15]\n";

#[test]
fn stage_records_reducers_and_scalar_parameters_read_as_in_tvm() {
    let r = run(include_str!("programs/stage_records.py"));
    assert_eq!(r.printed, STAGE_RECORDS_PRINTED);
}

/// `tvm.ir.save_json` / `load_json` and `pickle`, as TVM's tests use them:
/// the loaded objects are fresh and print, lower and compute the same.
#[test]
fn saved_and_pickled_objects_load_back() {
    let r = run(r#"
import pickle as pkl
import tvm
from tvm import te

n = te.size_var("n")
B = te.compute((n, 3), lambda i, j: (i + j * n).astype("float32"), name="B")
assert str(tvm.ir.load_json(tvm.ir.save_json(B)).op.body[0]) == str(B.op.body[0])
m = 24
A = te.placeholder((m, 16), name="A")
k = te.reduce_axis((0, 16), name="k")
C = te.compute((m,), lambda i: te.sum(A[i, k] * 2.0, axis=k), name="C", attrs={"hello": 1, "arr": [10, 12]})
C2 = tvm.ir.load_json(tvm.ir.save_json(C))
assert isinstance(C2, te.tensor.Tensor)
assert str(C2) == str(C) and not C2.same_as(C)
assert C2.op.attrs["hello"] == 1 and C2.op.attrs["arr"][1] == 12

s = te.create_schedule(C.op)
ko, ki = s[C].split(k, factor=4)
s[C].reorder(ko, C.op.axis[0], ki)
loaded = pkl.loads(pkl.dumps(s))
assert isinstance(loaded, te.schedule.Schedule)
assert str(loaded.outputs[0].body) == str(s.outputs[0].body)
out = loaded.outputs[0].output(0)
tvm.lower(loaded, [out.op.input_tensors[0], out])

try:
    pkl.dumps(ko)
    assert False
except TypeError as e:
    assert "cannot pickle" in str(e)
"#);
    let target = r.target.as_ref().expect("a schedule");
    let text = te::lower(&target.schedule, &target.args)
        .unwrap()
        .to_string();
    assert!(text.contains("k.outer"), "{text}");
    check_values(&r);

    let e = error(
        r#"
import tvm
tvm.ir.load_json('{"format": "something else"}')
"#,
    );
    assert!(e.contains("not one `save_json` wrote"), "{e}");
    let e = error(
        r#"
import pickle
import tvm
from tvm import te
A = te.placeholder((4,), name="A")
pickle.dump(A, None)
"#,
    );
    assert!(e.contains("has only part of the module `pickle`"), "{e}");
}

/// Older programs catch `tvm._ffi.base.TVMError`: the error TVM raises for
/// an invalid compute (a reduction that is not the whole body).
#[test]
fn tvm_ffi_base_names_tvm_error() {
    run(r#"
import tvm
from tvm import te

n = te.size_var("n")
A = te.placeholder((n, 8), name="A")
k = te.reduce_axis((0, 8), "k")
try:
    te.compute((n,), lambda i: te.sum(A[i, k], axis=k) + 1, name="B")
    assert False
except tvm._ffi.base.TVMError:
    pass
assert tvm._ffi.base.TVMError is tvm.error.TVMError
"#);
}

/// `topi.testing.get_broadcast_schedule("llvm")` is TOPI's x86 injective
/// schedule: outer axes fused and parallel, the last split by 16 and
/// vectorized (a 1-D output runs its outer part in parallel).
#[test]
fn topi_testing_schedules_are_topis_x86_injective_schedule() {
    let r = run(r#"
import tvm
from tvm import te, topi
import tvm.topi.testing

A = te.placeholder((2, 3, 5, 48), name="A")
B = te.placeholder((5, 48), name="B")
C = topi.add(A, B)
with tvm.target.Target("llvm"):
    s = tvm.topi.testing.get_broadcast_schedule("llvm")(C)
assert tvm.topi.testing.get_elemwise_schedule("llvm") is not None
text = str(tvm.lower(s, [A, B, C]))
assert "parallel (ax0.ax1.fused, 0, 6)" in text, text
assert "vectorized (ax3.inner, 0, 16)" in text, text
"#);
    check_values(&r);
    let r = run(r#"
import tvm
from tvm import te
import tvm.topi.testing

A = te.placeholder((100,), name="A")
B = te.compute((100,), lambda i: A[i] * 2.0, name="B")
s = tvm.topi.testing.get_injective_schedule("llvm")(B)
text = str(tvm.lower(s, [A, B]))
assert "parallel (i.outer, 0, 7)" in text, text
"#);
    check_values(&r);
    let e = error(
        r#"
import tvm
import tvm.topi.testing
from tvm import te
A = te.placeholder((4,), name="A")
tvm.topi.testing.get_injective_schedule("cuda")(A)
"#,
    );
    assert!(e.contains("tvm.topi.cuda.schedule_injective"), "{e}");
}
