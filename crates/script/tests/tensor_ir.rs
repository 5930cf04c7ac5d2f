//! TensorIR functions in the embedded interpreter: `te.create_prim_func`,
//! `@T.prim_func` and `tvm.ir.assert_structural_equal` between them.

mod common;

const EXAMPLE: &str = include_str!("../../../examples/te/tensor_ir/prim_funcs.py");

#[test]
fn created_functions_equal_their_scripts() {
    let run = script::run(EXAMPLE).unwrap_or_else(|e| panic!("{e}"));
    assert!(run.printed.contains("T.block(\"S\")"), "{}", run.printed);
}

#[test]
fn a_different_region_or_value_is_a_structural_difference() {
    // The script's store reads `P[vi, vj + 3]` where the compute reads
    // `P[i, j + 2]`.
    let wrong = EXAMPLE
        .replace("P[vi, vj + 2]", "P[vi, vj + 3]")
        .replace("(56, 58)", "(56, 59)");
    let (_, _, message) = common::error_of(&wrong);
    assert!(
        message.starts_with("StructuralEqual check failed"),
        "{message}"
    );
    // A different reduction identity.
    let wrong = EXAMPLE.replace("T.min_value(\"float32\")", "T.float32(0)");
    let (_, _, message) = common::error_of(&wrong);
    assert!(message.contains("the store to `M`"), "{message}");
}

#[test]
fn unsupported_operations_and_scripts_say_so() {
    let (_, _, message) = common::error_of(
        "\
import tvm
from tvm import te
m = te.var('m')
X = te.placeholder((m, 4), name='X')
state = te.placeholder((m, 4), name='state')
init = te.compute((1, 4), lambda _, i: X[0, i], name='init')
update = te.compute((m, 4), lambda t, i: state[t - 1, i] + X[t, i], name='update')
scan = te.scan(init, update, state, inputs=[X])
te.create_prim_func([X, scan])
",
    );
    assert!(
        message.starts_with("Unsupported Operation: ScanOp."),
        "{message}"
    );
    // A function that does not parse is defined; its use raises.
    let (line, _, message) = common::error_of(
        "\
import tvm
from tvm.script import tir as T

@T.prim_func
def f(a: T.handle) -> None:
    A = T.match_buffer(a, (4,))
    for i in T.thread_binding(4, 'threadIdx.x'):
        A[i] = 0.0

g = f
tvm.ir.assert_structural_equal(f, g)
",
    );
    assert_eq!(line, 11);
    assert!(message.contains("a loop runs over"), "{message}");
}
