//! The Python subset behaves as Python does: scoping, calls, unpacking,
//! operators, control flow, printing; and the TE spellings build the objects
//! TVM would.

use proptest::prelude::*;

fn printed(source: &str) -> String {
    match script::run(source) {
        Ok(run) => run.printed,
        Err(e) => panic!("{e}\n{source}"),
    }
}

#[test]
fn functions_closures_defaults_and_varargs() {
    let out = printed(
        "def add(a, b=10):\n    return a + b\n\
         def outer(k):\n    f = lambda x: x * k\n    return f\n\
         def rest(first, *more):\n    return (first, more)\n\
         print(add(1), add(1, 2), add(b=3, a=4))\n\
         print(outer(3)(5))\n\
         print(rest(1, 2, 3))\n\
         print(rest(*[7]))\n",
    );
    assert_eq!(out, "11 3 7\n15\n(1, (2, 3))\n(7, ())\n");
}

#[test]
fn unpacking_control_flow_and_lists() {
    let out = printed(
        "a, (b, c) = 1, [2, 3]\n\
         acc = []\n\
         for i in range(10):\n    if i % 2 == 0:\n        continue\n    elif i > 7:\n        break\n    else:\n        acc.append(i)\n\
         total = 0\n\
         for v in acc:\n    total += v\n\
         print(a, b, c, acc, total, len(acc), 5 in acc, 4 not in acc)\n",
    );
    assert_eq!(out, "1 2 3 [1, 3, 5, 7] 16 4 True True\n");
}

#[test]
fn operators_follow_python() {
    let out = printed(
        "print(-7 // 2, -7 % 2, 7 % -2, 2 ** 10, 7 / 2, 1 < 2 < 3, 3 < 2 < 4)\n\
         print(0 or 5, 3 and 4, not 0, 1 if 2 > 1 else 0, min(3, 1, 2), max([4, 9]), abs(-3))\n\
         print((1, 2) + (3,), [1] + [2], 'a' + 'b', (1,), 2.0 * 3)\n",
    );
    assert_eq!(
        out,
        "-4 1 -1 1024 3.5 True False\n5 4 True 1 1 9 3\n(1, 2, 3) [1, 2] ab (1,) 6.0\n"
    );
}

#[test]
fn every_import_spelling_reaches_te() {
    for header in [
        "import tvm\nfrom tvm import te\n",
        "import tvm\nimport tvm.te as te\n",
        "import tvm.te\nte = tvm.te\n",
        "from tvm import te\nimport tvm\n",
    ] {
        let src = format!(
            "{header}A = te.placeholder((4,), name=\"A\")\n\
             B = te.compute((4,), lambda i: A[i] + 1, name=\"B\")\n\
             print(B.op.axis[0].var, B.shape, B.dtype)\n"
        );
        assert_eq!(printed(&src), "i [4] float32\n", "{header}");
    }
}

#[test]
fn old_tvm_spellings_are_the_same_functions() {
    let out = printed(
        "import tvm\n\
         C = tvm.compute((5, 16), lambda i, j : tvm.const(5, \"int32\"), name='C')\n\
         D = tvm.compute((5, 16), lambda i, j : C[i, j]*2, name='D')\n\
         s = tvm.create_schedule(D.op)\n\
         s[C].compute_at(s[D], D.op.axis[1])\n\
         b = tvm.schedule.InferBound(s)\n\
         print(C.dtype, b[C.op.axis[0]].extent.value, b[C.op.axis[1]].extent.value, tvm.const(5, \"int32\").value)\n",
    );
    assert_eq!(out, "int32 1 1 5\n");
}

#[test]
fn te_objects_have_tvm_attributes_and_identity() {
    let out = printed(
        "import tvm\nfrom tvm import te\n\
         n = te.var(\"n\")\n\
         A = te.placeholder((n, 8), name=\"A\")\n\
         k = te.reduce_axis((0, 8), name=\"k\")\n\
         S = te.compute((n,), lambda i: te.sum(A[i][k], axis=k), name=\"S\")\n\
         T = te.compute((n, 8), lambda *i: A(*i) * 2.0, name=\"T\")\n\
         print(S.op.reduce_axis[0] == k, S.op.axis[0] == k, S.op.name, S.shape[0].name)\n\
         print(T.op.axis[1].var, k.dom.extent.value)\n\
         s = te.create_schedule([S.op, T.op])\n\
         print(s[S] == s[S.op], s[S] == s[T], isinstance(k, tvm.tir.IterVar), isinstance(n, tvm.tir.Var))\n",
    );
    assert_eq!(out, "True False S n\ni1 8\nTrue False True True\n");
}

#[test]
fn schedule_primitives_return_the_new_axes() {
    let out = printed(
        "import tvm\nfrom tvm import te\n\
         A = te.placeholder((16, 16), name=\"A\")\n\
         B = te.compute((16, 16), lambda x, y: A[x, y], name=\"B\")\n\
         s = te.create_schedule(B.op)\n\
         xo, yo, xi, yi = s[B].tile(B.op.axis[0], B.op.axis[1], x_factor=4, y_factor=8)\n\
         f = s[B].fuse(xo, yo)\n\
         fo, fi = s[B].split(f, nparts=2)\n\
         s[B].reorder(fi, fo)\n\
         print(s[B].leaf_iter_vars)\n\
         bounds = tvm.te.schedule.InferBound(s)\n\
         print(bounds[xi].extent.value, bounds[yi].extent.value, bounds[f].extent.value, bounds[fo].extent.value)\n",
    );
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines[1], "4 8 8 2");
    assert!(
        lines[0].contains("x.outer.y.outer.fused.inner"),
        "{}",
        lines[0]
    );
}

/// An integer expression over `x`, to check symbolic arithmetic against
/// plain integer arithmetic.
#[derive(Clone, Debug)]
enum Tree {
    X,
    Const(i64),
    Op(&'static str, Box<Tree>, Box<Tree>),
}

impl Tree {
    fn text(&self, x: &str) -> String {
        match self {
            Tree::X => x.to_owned(),
            Tree::Const(c) => format!("({c})"),
            Tree::Op(op, a, b) => format!("({} {op} {})", a.text(x), b.text(x)),
        }
    }

    /// Python's value, computed independently of the script crate.
    fn eval(&self, x: i64) -> i64 {
        match self {
            Tree::X => x,
            Tree::Const(c) => *c,
            Tree::Op(op, a, b) => {
                let (a, b) = (a.eval(x), b.eval(x));
                match *op {
                    "+" => a + b,
                    "-" => a - b,
                    "*" => a * b,
                    "//" => (a - py_mod(a, b)) / b,
                    "%" => py_mod(a, b),
                    _ => unreachable!(),
                }
            }
        }
    }
}

fn py_mod(a: i64, b: i64) -> i64 {
    let r = a % b;
    if r != 0 && ((r < 0) != (b < 0)) {
        r + b
    } else {
        r
    }
}

fn tree() -> impl Strategy<Value = Tree> {
    let leaf = prop_oneof![Just(Tree::X), (-9i64..=9).prop_map(Tree::Const)];
    leaf.prop_recursive(4, 16, 2, |inner| {
        prop_oneof![
            (
                prop_oneof![Just("+"), Just("-"), Just("*")],
                inner.clone(),
                inner.clone()
            )
                .prop_map(|(op, a, b)| Tree::Op(op, Box::new(a), Box::new(b))),
            // Divisors are non-zero constants, as in index arithmetic.
            (
                prop_oneof![Just("//"), Just("%")],
                inner,
                (1i64..=7, any::<bool>())
            )
                .prop_map(|(op, a, (d, neg))| {
                    Tree::Op(
                        op,
                        Box::new(a),
                        Box::new(Tree::Const(if neg { -d } else { d })),
                    )
                }),
        ]
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    /// The same expression evaluated on Python integers and built
    /// symbolically over `te.var("x")`, then substituted, agree with an
    /// independent evaluation.
    #[test]
    fn symbolic_and_integer_arithmetic_agree(t in tree(), x in -20i64..=20) {
        let expected = t.eval(x);
        let src = format!(
            "import tvm\nfrom tvm import te\n\
             x = te.var(\"x\")\n\
             e = {sym}\n\
             v = {num}\n\
             print(v, tvm.tir.stmt_functor.substitute(e, {{x: {x}}}).value)\n",
            sym = t.text("x"),
            num = t.text(&format!("({x})")),
        );
        let out = script::run(&src).map_err(|e| TestCaseError::fail(format!("{e}\n{src}")))?;
        prop_assert_eq!(out.printed, format!("{expected} {expected}\n"), "{}", src);
    }
}

#[test]
fn comprehensions_and_sequence_builtins() {
    let out = printed(
        "sq = [i * i for i in range(5) if i % 2 == 0]\n\
         pairs = [(a, b) for a in range(2) for b in range(a, 2)]\n\
         print(sq, pairs, any(x > 10 for x in sq), all([True, 1]), list(zip([1, 2], (3, 4, 5))))\n\
         print(list(enumerate(['a', 'b'])))\n",
    );
    assert_eq!(
        out,
        "[0, 4, 16] [(0, 0), (0, 1), (1, 1)] True True [(1, 3), (2, 4)]\n[(0, 'a'), (1, 'b')]\n"
    );
}

#[test]
fn tvm_errors_are_caught_as_tvm_raises_them() {
    let out = printed(
        "import pytest\nimport tvm\nfrom tvm import te\n\
         A = te.placeholder((8, 8), name=\"A\")\n\
         T = te.compute((8, 8), lambda i, j: A[i, j])\n\
         s = te.create_schedule(T.op)\n\
         xo, xi = s[T].split(T.op.axis[0], factor=2)\n\
         try:\n    s[T].reorder(xi, xi)\n    print(\"not reached\")\n\
         except tvm.error.TVMError as e:\n    print(\"caught\")\n\
         finally:\n    print(\"finally\")\n\
         with pytest.raises(RuntimeError):\n    s[T].fuse(xo, T.op.axis[1])\n\
         try:\n    assert 1 == 2\nexcept AssertionError:\n    print(\"assert caught\")\n\
         print(any(isinstance(r, tvm.te.schedule.Split) for r in s[T].relations))\n",
    );
    assert_eq!(out, "caught\nfinally\nassert caught\nTrue\n");
}

#[test]
fn rangefinder_limits_and_missing_errors_are_never_swallowed() {
    // An unsupported primitive inside `try` is still reported.
    let err = script::run(
        "import tvm\nfrom tvm import te\ntry:\n    te.thread_axis(\"x\")\nexcept Exception:\n    pass\n",
    )
    .expect_err("not caught");
    assert!(err.message.contains("not supported"), "{}", err.message);
    // A block that should raise but does not is a failure.
    let err = script::run("import pytest\nwith pytest.raises(RuntimeError):\n    x = 1\n")
        .expect_err("did not raise");
    assert_eq!((err.line, err.column), (2, 1));
    assert!(err.message.contains("DID NOT RAISE"), "{}", err.message);
}

#[test]
fn range_handles_extreme_bounds_without_overflow() {
    let out = printed(
        "m = 9223372036854775807\n\
         print(list(range(-m - 1, m, 4611686018427387904)))\n\
         print(list(range(5, -m - 1, -m - 1)), list(range(10, 0, -3)), list(range(3)))\n",
    );
    assert_eq!(
        out,
        "[-9223372036854775808, -4611686018427387904, 0, 4611686018427387904]\n\
         [5, -9223372036854775803] [10, 7, 4, 1] [0, 1, 2]\n"
    );
}

#[test]
fn math_functions_are_calls_on_tensor_elements() {
    let out = printed(
        "import tvm\nfrom tvm import te\n\
         A = te.placeholder((4,), name='A')\n\
         B = te.compute((4,), lambda i: te.exp(A[i]) + tvm.tir.tanh(A[i]) * te.power(A[i], 2.0), name='B')\n\
         s = te.create_schedule(B.op)\n\
         print(tvm.lower(s, [A, B], simple_mode=True))\n",
    );
    assert!(
        out.contains("B[i] = (exp(A[i]) + (tanh(A[i])*pow(A[i], 2.000000f)))"),
        "{out}"
    );
    let err = script::run(
        "from tvm import te\nA = te.placeholder((4,), name='A')\n\
         B = te.compute((4,), lambda i: te.exp(A[i], A[i]), name='B')\n",
    )
    .expect_err("exp takes one argument");
    assert!(
        err.message.contains("`exp` takes 1 argument(s), 2 given"),
        "{}",
        err.message
    );
}

#[test]
fn tensor_elements_as_indices_are_gathers() {
    let out = printed(
        "import tvm\nfrom tvm import te\n\
         A = te.placeholder((16,), name='A')\n\
         I = te.placeholder((4,), name='I', dtype='int32')\n\
         C = te.compute((4,), lambda j: A[I[j] + 1], name='C')\n\
         s = te.create_schedule(C.op)\n\
         print(tvm.lower(s, [A, I, C], simple_mode=True))\n",
    );
    assert!(out.contains("C[j] = A[(I[j] + 1)]"), "{out}");
    let float_index = script::run(
        "from tvm import te\nA = te.placeholder((16,), name='A')\n\
         C = te.compute((4,), lambda j: A[A[j]], name='C')\n",
    )
    .expect_err("a float element is no index");
    assert!(
        float_index.message.contains("indices must be integers"),
        "{}",
        float_index.message
    );
    let partial = script::run(
        "from tvm import te\nA = te.placeholder((4, 4), name='A')\n\
         I = te.placeholder((4,), name='I', dtype='int32')\n\
         C = te.compute((4,), lambda j: A[I[j]][0], name='C')\n",
    )
    .expect_err("a gather takes every index at once");
    assert!(
        partial.message.contains("takes every index at once"),
        "{}",
        partial.message
    );
}

#[test]
fn the_main_block_runs_and_test_functions_run_only_when_main_asks() {
    let body = "import tvm\nimport pytest\ncalls = []\n\
                def helper():\n    calls.append('helper')\n\
                def test_first():\n    helper()\n    calls.append('first')\n\
                def not_a_test():\n    calls.append('never')\n\
                def test_second():\n    assert len(calls) == 2\n    calls.append('second')\n";
    // Without a main block nothing runs the tests.
    assert_eq!(printed(&format!("{body}print(calls)\n")), "[]\n");
    for main in ["tvm.testing.main()", "pytest.main([__file__])"] {
        let src = format!("{body}if __name__ == \"__main__\":\n    {main}\nprint(calls)\n");
        assert_eq!(printed(&src), "['helper', 'first', 'second']\n", "{main}");
    }
    // A failing test fails the script at its assert.
    let src = format!("{body}def test_third():\n    assert calls == []\n\ntvm.testing.main()\n");
    let err = script::run(&src).expect_err("test_third fails");
    assert!(err.message.contains("assertion failed"), "{}", err.message);
    // A test that needs pytest fixtures says so.
    let err = script::run("import tvm\ndef test_x(target):\n    pass\ntvm.testing.main()\n")
        .expect_err("a fixture is needed");
    assert!(err.message.contains("pytest fixtures"), "{}", err.message);
}

/// TOPI's padding and conv2d helpers, written as TOPI writes them
/// (isinstance dispatch, chained assignment, `%` and f-string messages,
/// `*indices` closures, `raise ValueError`), build and run.
#[test]
fn topi_style_helpers_run_unchanged() {
    let source = include_str!("programs/topi_conv2d_helpers.py");
    let run = script::run(source).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        run.printed,
        " resnet_c2: out=(1, 16, 14, 14) gflop=0.000452 pad=(1, 1, 1, 1)\n\
         resnet_c2 has 4 stages\n\
         \x20    small: out=(1, 4, 8, 8) gflop=0.000002 pad=(0, 0, 0, 0)\n\
         small has 4 stages\n"
    );
    let target = run.target.expect("a schedule");
    let report = te::check(&target.schedule, &target.args, &Default::default(), 7)
        .expect("the program runs");
    assert!(report.is_clean(0.0), "{report:?}");
    let bad = source.replace("\"SAME\" if k > 1 else 0", "\"FULL\"");
    let err = script::run(&bad).expect_err("an unknown padding");
    assert!(
        err.message
            .contains("ValueError: Unknown padding option FULL"),
        "{}",
        err.message
    );
}

/// Bytes literals compare by value, never equal to a `str`, print as
/// Python prints them and are dict keys (TOPI's `roi_align` tests its mode
/// with `mode in (b"avg", 0)`); the expected text is CPython's.
#[test]
fn bytes_literals_compare_print_and_hash_as_in_python() {
    let out = printed(
        "x = b\"avg\"\n\
         print(x, x == b\"avg\", x == \"avg\", \"avg\" in (b\"avg\", 0), 0 in (b\"avg\", 0))\n\
         print(b\"a\\x01\\n'\", {b\"k\": 1}[b\"k\"], x != b\"max\")\n",
    );
    assert_eq!(
        out,
        "b'avg' True False False True\nb\"a\\x01\\n'\" 1 True\n"
    );
}
