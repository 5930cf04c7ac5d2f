//! Tensor compute operations in the embedded interpreter: slices of
//! tensors (`A[i, 0:16]`, symbolic bounds too), an intrinsic called on
//! them inside `te.compute`, and the program checked against the
//! intrinsic's computation (`te::check`).

mod common;

const PRELUDE: &str = "\
import tvm
from tvm import te

def intrin_vadd(n):
    x = te.placeholder((n,), name='vx')
    y = te.placeholder((n,), name='vy')
    z = te.compute(x.shape, lambda i: x[i] + y[i], name='z')
    def intrin_func(ins, outs):
        return tvm.tir.call_packed('vadd', ins[0].data, ins[1].data, outs[0].data)
    return te.decl_tensor_intrin(z.op, intrin_func)
";

/// Runs `body` and checks the program it lowered last; returns what it
/// printed.
fn run_checked(body: &str) -> String {
    common::run_checked(&format!("{PRELUDE}{body}"), 7, 3, 1e-6)
}

#[test]
fn slices_passed_to_an_intrinsic_make_a_tensor_compute() {
    let printed = run_checked(
        "\
vadd = intrin_vadd(8)
A = te.placeholder((4, 16), name='A')
B = te.placeholder((4, 16), name='B')
C = te.compute((4, 8), lambda i: vadd(A[i, 0:8], B[i, 8:16]), name='C')
assert isinstance(C.op, te.TensorComputeOp)
assert [iv.var.name for iv in C.op.axis] == ['i', 'ax0']
s = te.create_schedule(C.op)
print(tvm.lower(s, [A, B, C], simple_mode=True))
",
    );
    assert!(
        printed.contains("vadd(A([i, 1], [0, 8]), B([i, 1], [8, 8]), C([i, 1], [0, 8]))"),
        "{printed}"
    );
}

#[test]
fn symbolic_slice_bounds_are_regions() {
    // Each call adds row `i` of A to the block of B's row `i // 2`
    // selected by `i % 2`.
    let printed = run_checked(
        "\
vadd = intrin_vadd(4)
A = te.placeholder((6, 4), name='A')
B = te.placeholder((3, 8), name='B')
C = te.compute((6, 4), lambda i: vadd(A[i, :], B[i // 2, (i % 2) * 4:(i % 2) * 4 + 4]), name='C')
s = te.create_schedule(C.op)
with tvm.transform.PassContext(opt_level=3):
    print(tvm.lower(s, [A, B, C], simple_mode=True))
",
    );
    assert!(
        printed.contains("B([floordiv(i, 2), 1], [(floormod(i, 2)*4), 4])"),
        "{printed}"
    );
}

#[test]
fn an_output_that_does_not_fit_the_intrinsic_is_refused() {
    let e = script::run(&format!(
        "{PRELUDE}vadd = intrin_vadd(8)\nA = te.placeholder((4, 16), name='A')\n\
         C = te.compute((4, 16), lambda i: vadd(A[i, 0:8], A[i, 8:16]), name='C')\n"
    ))
    .unwrap_err();
    assert!(
        e.message.contains("`C` has extent 16 where the intrinsic"),
        "{}",
        e.message
    );
}

#[test]
fn a_slice_with_a_step_is_refused_at_the_slice() {
    let e = script::run(&format!(
        "{PRELUDE}A = te.placeholder((4, 16), name='A')\nS = A[0, 0:16:2]\n"
    ))
    .unwrap_err();
    assert_eq!((e.line, e.column), (12, 10), "{}", e.message);
    assert!(e.message.contains("takes no step"), "{}", e.message);
}

#[test]
fn a_call_holds_what_the_intrinsic_wrote_with_this_site_buffers_and_values() {
    // TVM's test of scalar parameters: the call passes `A`, `C` and the
    // scalar values, as `intrin_func` wrote it over its own buffers.
    let printed = run_checked(
        "\
n = te.size_var('n')
x = te.placeholder((n,), name='x')
v = te.size_var('v')
w = te.size_var('w')
z = te.compute((n,), lambda i: x[i] * v + w, name='z')
def intrin_func(ins, outs, sp):
    assert sp[0] == v and sp[1] == w
    return tvm.tir.call_packed('hw_func', ins[0].data, outs[0].data, sp[0], sp[1])
intrin = te.decl_tensor_intrin(z.op, intrin_func, scalar_params=[v, w])
assert tuple(intrin.scalar_params) == (v, w)
A = te.placeholder((10, 10), name='A')
C = te.compute((10, 10), lambda i, j: intrin(i * i, A[i, j], i + j), name='C')
s = te.create_schedule(C.op)
stmt = tvm.lower(s, [A, C])['main'].body
call = stmt.body.body.value
assert isinstance(stmt.body.body, tvm.tir.Evaluate)
assert [str(a) for a in call.args] == ['\"hw_func\"', 'A', 'C', 'i * i', 'i + j']
print(tvm.lower(s, [A, C], simple_mode=True))
",
    );
    assert!(
        printed.contains("hw_func(A([i, 1], [j, 1]), C([i, 1], [j, 1]), (i*i), (i + j))"),
        "{printed}"
    );
}
