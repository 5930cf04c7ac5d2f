//! Scalar float parameters (`te.var(name, dtype="float32")`): element
//! values a built function takes as numbers after its arrays, as in TVM's
//! "External Tensor Functions" tutorial.

mod common;

use common::{error_message as error, run};
use proptest::prelude::*;

const SCALAR_PARAMS: &str = include_str!("programs/scalar_params.py");

/// The library's product plus the bias, the loaded module's scale and
/// the packed function's shift are the numbers worked out by hand; the report's check draws a value
/// for the parameter and evaluates the definitions with the same one.
#[test]
fn the_tutorial_pattern_adds_the_bias_it_is_given() {
    let printed = common::run_checked(SCALAR_PARAMS, 4, 3, 1e-6);
    assert!(printed.starts_with("bias float32\n"), "{printed}");
    assert!(printed.contains("D[i, j] = (C[i, j] + bias)"), "{printed}");
    assert!(
        printed.ends_with(
            "[[11.0, 12.0, 14.0, 17.0], [13.0, 14.0, 20.0, 25.0], [15.0, 16.0, 26.0, 33.0]]\n\
             [-0.5, 0.0, 0.5, 1.0]\n\
             [1.25, 2.25, 3.25, 4.25]\n"
        ),
        "{printed}"
    );
}

/// TVMScript lists the parameter after the buffers, as TVM's printer does.
#[test]
fn tvmscript_lists_the_parameter_in_the_signature() {
    let src = "import tvm\nfrom tvm import te\n\
        alpha = te.var('alpha', dtype='float64')\n\
        A = te.placeholder((4,), name='A', dtype='float64')\n\
        B = te.compute((4,), lambda i: A[i] * alpha, name='B')\n\
        s = te.create_schedule(B.op)\n\
        print(tvm.lower(s, [A, B, alpha]).script())\n";
    let printed = run(src).printed;
    assert!(
        printed.contains(
            "def main(A: T.Buffer((4,), \"float64\"), B: T.Buffer((4,), \"float64\"), alpha: T.float64):"
        ),
        "{printed}"
    );
    assert!(printed.contains("B_1[i] = A_1[i] * alpha"), "{printed}");
}

/// A packed function called with the parameter gets its value, in the
/// built function and in the report's check of the definitions.
#[test]
fn a_packed_call_is_passed_the_parameter() {
    let src = "import tvm\nfrom tvm import te\n\
        bias = te.var('bias', dtype='float32')\n\
        @tvm.register_func('example.add_scalar')\n\
        def add_scalar(x, y, b):\n    tvm.nd.array([v + b for v in x.numpy()]).copyto(y)\n\
        A = te.placeholder((4,), name='A')\n\
        C = te.extern((4,), [A], lambda ins, outs: tvm.tir.call_packed(\
        'example.add_scalar', ins[0], outs[0], bias), name='C')\n\
        s = te.create_schedule(C.op)\n\
        print(tvm.lower(s, [A, C, bias], simple_mode=True))\n\
        f = tvm.build(s, [A, C, bias])\n\
        c = tvm.nd.array([0.0] * 4)\n\
        f(tvm.nd.array([1.0, 2.0, 3.0, 4.0]), c, 0.25)\n\
        print(c)\n";
    let printed = run(src).printed;
    assert!(printed.contains("0, 1, 0.000000f, 0), bias)"), "{printed}");
    assert!(printed.ends_with("[1.25, 2.25, 3.25, 4.25]\n"), "{printed}");
}

const SCALE: &str = "import tvm\nfrom tvm import te\n\
    p = te.var('p', dtype='float32')\n\
    A = te.placeholder((3,), name='A')\n\
    B = te.compute((3,), lambda i: A[i] * p, name='B')\n\
    s = te.create_schedule(B.op)\n";

#[test]
fn a_parameter_must_be_an_argument_and_a_number() {
    let unbound = format!("{SCALE}tvm.build(s, [A, B])\n");
    assert!(
        error(&unbound).contains("`p` is not bound to any variables"),
        "{}",
        error(&unbound)
    );
    let text = format!(
        "{SCALE}f = tvm.build(s, [A, B, p])\n\
         f(tvm.nd.array([1.0, 2.0, 3.0]), tvm.nd.array([0.0, 0.0, 0.0]), 'two')\n"
    );
    assert!(
        error(&text).contains("takes a number for its float32 parameter `p`, found a str"),
        "{}",
        error(&text)
    );
    let size = "from tvm import te\nn = te.size_var('n', dtype='float32')\n";
    assert!(
        error(size).contains("a size is an integer"),
        "{}",
        error(size)
    );
    let index = format!("{SCALE}C = te.compute((3,), lambda i: A[p], name='C')\n");
    assert!(error(&index).contains("index"), "{}", error(&index));
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// `A[i] * p + q` for any parameters and inputs: the built program
    /// gives the product and sum in float32, element by element.
    #[test]
    fn a_built_function_computes_with_the_values_it_is_called_with(
        p in -8.0f32..8.0,
        q in -8.0f32..8.0,
        a in proptest::collection::vec(-100.0f32..100.0, 1..6),
    ) {
        let n = a.len();
        let list = |v: &[f32]| {
            let items: Vec<String> = v.iter().map(|x| format!("{:?}", f64::from(*x))).collect();
            format!("[{}]", items.join(", "))
        };
        let src = format!(
            "import tvm\nfrom tvm import te\n\
             p = te.var('p', dtype='float32')\nq = te.var('q', dtype='float32')\n\
             A = te.placeholder(({n},), name='A')\n\
             B = te.compute(({n},), lambda i: A[i] * p + q, name='B')\n\
             s = te.create_schedule(B.op)\n\
             f = tvm.build(s, [A, B, p, q])\n\
             b = tvm.nd.array([0.0] * {n})\n\
             f(tvm.nd.array({}), b, {:?}, {:?})\n\
             print(b)\n",
            list(&a),
            f64::from(p),
            f64::from(q),
        );
        let want: Vec<f32> = a.iter().map(|x| x * p + q).collect();
        prop_assert_eq!(run(&src).printed, format!("{}\n", list(&want)));
    }
}
