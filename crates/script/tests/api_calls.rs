//! Calls into the TVM API layer and back: an error raised in a script
//! function that the API called (a compute's lambda) keeps its place and
//! its exception class, and an API error about an argument points at that
//! argument, positional or keyword.

const PRELUDE: &str = "import tvm\nimport pytest\nfrom tvm import te\n";

fn error_of(source: &str) -> (usize, usize, String) {
    match script::run(source) {
        Ok(_) => panic!("expected an error for:\n{source}"),
        Err(e) => (e.line, e.column, e.message),
    }
}

#[test]
fn an_error_inside_a_lambda_keeps_its_place_through_nested_calls() {
    let src = format!(
        "{PRELUDE}A = te.placeholder((4,), name=\"A\")\n\
         def body(i):\n    return A[i] + A[i, i]\n\
         B = te.compute((4,), lambda i: body(i), name=\"B\")\n"
    );
    let (line, column, message) = error_of(&src);
    assert_eq!((line, column), (6, 19), "{message}");
    assert!(
        message.contains("has 1 dimensions but 2 indices"),
        "{message}"
    );
}

#[test]
fn an_error_inside_a_lambda_keeps_its_exception_class() {
    // An assertion inside the lambda is caught as an AssertionError, not
    // turned into an error of `te.compute`.
    let src = format!(
        "{PRELUDE}A = te.placeholder((4,), name=\"A\")\n\
         def body(i):\n    tvm.testing.assert_prim_expr_equal(i, 0)\n    return A[i]\n\
         with pytest.raises(AssertionError):\n    te.compute((4,), lambda i: body(i), name=\"B\")\n\
         print(\"caught\")\n"
    );
    let run = script::run(&src).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(run.printed, "caught\n");
    // A mistake in the lambda is never caught.
    let src = format!(
        "{PRELUDE}A = te.placeholder((4,), name=\"A\")\n\
         try:\n    te.compute((4,), lambda i: A[i] + \"x\", name=\"B\")\n\
         except Exception:\n    pass\n"
    );
    let (line, column, message) = error_of(&src);
    assert_eq!((line, column), (6, 32), "{message}");
}

#[test]
fn api_errors_point_at_the_argument_positional_or_keyword() {
    let schedule = format!(
        "{PRELUDE}A = te.placeholder((4,), name=\"A\")\n\
         B = te.compute((4,), lambda i: A[i] + 1, name=\"B\")\n\
         s = te.create_schedule(B.op)\n"
    );
    let (line, column, message) = error_of(&format!("{schedule}s[B].split(1, factor=2)\n"));
    assert_eq!((line, column), (7, 12), "{message}");
    assert!(message.contains("expected an IterVar"), "{message}");
    let (line, column, message) = error_of(&format!("{schedule}s[B].split(parent=B, factor=2)\n"));
    assert_eq!((line, column), (7, 12), "{message}");
    assert!(message.contains("found a Tensor"), "{message}");
    // The lambda given for a shape of the wrong rank: about `fcompute`.
    let (line, column, message) = error_of(&format!(
        "{PRELUDE}C = te.compute((4, 4), fcompute=lambda i, j, k: i, name=\"C\")\n"
    ));
    assert_eq!((line, column), (4, 24), "{message}");
    assert!(message.contains("takes 3 indices"), "{message}");
}

/// TVM's expression node classes called to build a node, as TOPI passes
/// `tir.Sub` and `tir.NE` as a scan's operator: each builds what the
/// operator builds, on indices and on tensor elements; a program using
/// them runs to the values worked out by hand.
#[test]
fn expression_node_classes_build_their_nodes() {
    let src = format!(
        "{PRELUDE}n = te.var(\"n\")\n\
         print(tvm.tir.Add(n, 1), tvm.tir.Sub(n, 2), tvm.tir.Mul(n, 3))\n\
         print(tvm.tir.FloorDiv(n, 4), tvm.tir.FloorMod(n, 4), tvm.tir.Div(n, 4), tvm.tir.Mod(n, 4))\n\
         print(tvm.tir.LT(n, 4), tvm.tir.NE(n, 4), tvm.tir.Not(tvm.tir.GE(n, 4)))\n\
         print(tvm.tir.And(n < 4, n > 0), tvm.tir.Or(tvm.tir.EQ(n, 1), tvm.tir.LE(n, 0)))\n\
         A = te.placeholder((5,), name=\"A\", dtype=\"int32\")\n\
         D = te.compute((4,), lambda i: tvm.tir.Sub(A[i + 1], A[i]), name=\"D\")\n\
         F = te.compute((4,), lambda i: tvm.tir.NE(A[i + 1], A[i]).astype(\"int32\"), name=\"F\")\n\
         s = te.create_schedule([D.op, F.op])\n\
         f = tvm.build(s, [A, D, F])\n\
         d = tvm.nd.array([0] * 4, dtype=\"int32\")\n\
         g = tvm.nd.array([0] * 4, dtype=\"int32\")\n\
         f(tvm.nd.array([1, 1, 4, 9, 9], dtype=\"int32\"), d, g)\n\
         print(d, g)\n"
    );
    let run = script::run(&src).unwrap_or_else(|e| panic!("{e}"));
    let lines: Vec<&str> = run.printed.lines().collect();
    assert_eq!(
        lines,
        [
            "n + 1 n - 2 n * 3",
            "n // 4 n % 4 select(n >= 0, n // 4, 0 - (0 - n) // 4) \
             n - select(n >= 0, n // 4, 0 - (0 - n) // 4) * 4",
            "n < 4 n != 4 not n >= 4",
            "n < 4 and n > 0 n == 1 or n <= 0",
            "[0, 3, 5, 0] [0, 1, 1, 0]",
        ],
        "{}",
        run.printed
    );
}
