//! Parts of TVM's TE API that both front ends get from `tvm_api`: the kinds
//! and tags of iteration variables, the schedule's outputs and stage map,
//! the InferBound map as a mapping, ranges as reduction domains, `~` on
//! conditions, `te.var`'s dtype, `bool(a == b)` by identity, and
//! `transform_layout` given lambda text.

const PRELUDE: &str = "import tvm\nfrom tvm import te\n";

fn printed(body: &str) -> String {
    let src = format!("{PRELUDE}{body}");
    script::run(&src)
        .unwrap_or_else(|e| panic!("{e}\n{src}"))
        .printed
}

fn error_of(body: &str) -> String {
    match script::run(&format!("{PRELUDE}{body}")) {
        Ok(_) => panic!("expected an error for:\n{body}"),
        Err(e) => e.message,
    }
}

const MATMUL: &str = "n = 8\n\
    A = te.placeholder((n, n), name=\"A\")\n\
    k = te.reduce_axis((0, n), name=\"k\")\n\
    C = te.compute((n, n), lambda i, j: te.sum(A[i, k] * A[k, j], axis=k), name=\"C\")\n\
    s = te.create_schedule(C.op)\n";

#[test]
fn iter_vars_have_tvm_kinds_and_thread_tags() {
    let out = printed(&format!(
        "{MATMUL}i, j = C.op.axis\n\
         tx = te.thread_axis(\"threadIdx.x\")\n\
         print(i.iter_type, k.iter_type, tx.iter_type, i.thread_tag == \"\", tx.thread_tag)\n\
         print(te.IterVar.DataPar, tvm.tir.IterVar.CommReduce, te.IterVar.Tensorized)\n\
         assert k.iter_type == te.IterVar.CommReduce\n"
    ));
    assert_eq!(out, "0 2 1 True threadIdx.x\n0 2 8\n");
}

#[test]
fn schedules_expose_outputs_stage_map_and_origin_op() {
    let out = printed(&format!(
        "{MATMUL}assert s.outputs[0] == C.op\n\
         assert len(s.outputs) == 1\n\
         assert s.stage_map[C.op].op == C.op\n\
         assert s[C].origin_op == C.op\n\
         print(len(s.stages), len(s.stage_map), len(s[C].leaf_iter_vars), len(s[C].all_iter_vars))\n\
         xo, xi = s[C].split(C.op.axis[0], factor=4)\n\
         print(len(s[C].relations), len(s[C].leaf_iter_vars), len(s[C].all_iter_vars))\n"
    ));
    assert_eq!(out, "2 2 3 3\n1 4 5\n");
}

#[test]
fn the_infer_bound_map_is_a_mapping() {
    let out = printed(&format!(
        "{MATMUL}xo, xi = s[C].split(C.op.axis[0], factor=4)\n\
         bounds = tvm.te.schedule.InferBound(s)\n\
         keys = bounds.keys()\n\
         print(len(bounds) == len(keys) == len(bounds.values()) == len(bounds.items()))\n\
         assert xi in bounds and xo in bounds\n\
         assert te.reduce_axis((0, 2), name=\"z\") not in bounds\n\
         for iv, r in bounds.items():\n    assert bounds[iv].extent == r.extent\n\
         print([iv.var.name for iv in bounds if iv == xi], bounds[xi].extent)\n\
         print(len([iv for iv in bounds]) == len(bounds))\n"
    ));
    assert_eq!(out, "True\n['i.inner'] 4\nTrue\n");
}

#[test]
fn reduce_axis_takes_a_range() {
    let out = printed(
        "k = te.reduce_axis(tvm.ir.Range(2, 10), name=\"k\")\n\
         print(k.dom.min, k.dom.extent)\n\
         r = tvm.ir.Range.from_min_extent(3, 5)\n\
         print(r.min, r.extent, tvm.ir.Range(4).extent)\n\
         m = te.reduce_axis(r, name=\"m\")\n\
         print(m.dom.min, m.dom.extent, m.iter_type)\n",
    );
    assert_eq!(out, "2 8\n3 5 4\n3 5 2\n");
}

#[test]
fn invert_negates_conditions() {
    let out = printed(
        "n = te.var(\"n\")\n\
         c = ~(n < 4)\n\
         print(c)\n\
         print(tvm.tir.if_then_else(~(n < 4), 1, 0))\n\
         print(~5, ~True)\n",
    );
    assert!(
        out.starts_with("not n < 4\nselect(not n < 4, 1, 0)\n"),
        "{out}"
    );
    assert!(out.ends_with("-6 -2\n"), "{out}");
    let message = error_of("n = te.var(\"n\")\nc = ~(n + 1)\n");
    assert!(message.contains("`~` needs a condition"), "{message}");
}

#[test]
fn var_checks_its_dtype() {
    printed("a = te.var(\"a\", dtype=\"int64\")\nb = te.var(\"b\", \"int32\")\n");
    // A float variable is a scalar parameter; a float size is refused.
    printed("x = te.var(\"x\", dtype=\"float32\")\n");
    let message = error_of("x = te.size_var(\"x\", dtype=\"float32\")\n");
    assert!(message.contains("a size is an integer"), "{message}");
    let message = error_of("x = te.var(\"x\", dtype=\"nonsense\")\n");
    assert!(!message.is_empty());
}

#[test]
fn undecided_equality_is_identity() {
    // TVM's `EqualOp.__bool__` is `a.same_as(b)`.
    let out = printed(
        "x = te.var(\"x\")\ny = te.var(\"y\")\n\
         print(x == x and True, x == y or False, x != y and True, x != x or False)\n\
         e = x + y\n\
         print(\"same\" if e == e else \"different\", \"same\" if e == x + y else \"different\")\n",
    );
    assert_eq!(out, "True False True False\nsame different\n");
    // An order comparison still cannot be decided.
    let message = error_of("x = te.var(\"x\")\ny = te.var(\"y\")\nb = 1 if x < y else 0\n");
    assert!(message.contains("cannot decide"), "{message}");
}

#[test]
fn transform_layout_takes_lambda_text() {
    let out = printed(
        "A = te.placeholder((4, 8), name=\"A\")\n\
         B = te.compute((4, 8), lambda i, j: A[i, j] * 2.0, name=\"B\")\n\
         s = te.create_schedule(B.op)\n\
         axes = s[B].transform_layout(\"lambda i, j: [j, i]\")\n\
         print([iv.dom.extent for iv in axes])\n",
    );
    assert_eq!(out, "[8, 4]\n");
    let message = error_of(
        "A = te.placeholder((4, 8), name=\"A\")\n\
         B = te.compute((4, 8), lambda i, j: A[i, j] * 2.0, name=\"B\")\n\
         s = te.create_schedule(B.op)\n\
         s[B].transform_layout(\"lambda i: [i]\")\n",
    );
    assert!(
        message.contains("2 dimensions but the map takes 1"),
        "{message}"
    );
}
