//! TVM programs that use the primitives adding stages (`cache_read`,
//! `cache_write`, `rfactor`, `create_group`), `s.normalize()` and the
//! `te.schedule` dataflow functions, operations that are not computes
//! (`te.scan`, `te.extern`), several outputs (`te.compute` returning a
//! tuple, `te.comm_reducer`) and `tensorize`: each runs as TVM v0.19 runs
//! it, and its lowered program is run against the definitions
//! (`te::check`). Wrong arguments are errors of the class TVM raises, at
//! the argument.

mod common;

use std::collections::HashMap;

const PRELUDE: &str = "import tvm\nfrom tvm import te\n";

/// Runs `body` and checks the program it lowered last against the
/// definitions; returns what it printed.
fn run_checked(body: &str) -> String {
    common::run_checked(&format!("{PRELUDE}{body}"), 7, 5, 1e-5)
}

/// The error `body` stops with: line, column and message.
fn error_of(body: &str) -> (usize, usize, String) {
    common::error_of(&format!("{PRELUDE}{body}"))
}

const MATMUL: &str = "\
A = te.placeholder((16, 8), name=\"A\")
B = te.placeholder((8, 16), name=\"B\")
k = te.reduce_axis((0, 8), name=\"k\")
C = te.compute((16, 16), lambda i, j: te.sum(A[i, k] * B[k, j], axis=k), name=\"C\")
s = te.create_schedule(C.op)
";

#[test]
fn cache_read_and_cache_write_add_stages_that_run() {
    let printed = run_checked(&format!(
        "{MATMUL}\
AA = s.cache_read(A, \"shared\", [C])
BB = s.cache_read(B, \"shared\", readers=C)
AL = s.cache_read(AA, \"local\", [C])
CC = s.cache_write(C, \"local\")
print(AA.op.name, BB.op.name, AL.op.name, CC.op.name)
xo, yo, xi, yi = s[C].tile(C.op.axis[0], C.op.axis[1], 4, 4)
s[CC].compute_at(s[C], yo)
ko, ki = s[CC].split(s[CC].op.reduce_axis[0], factor=4)
ic, jc = s[CC].op.axis
s[CC].reorder(ko, ki, ic, jc)
s[AA].compute_at(s[CC], ko)
s[BB].compute_at(s[CC], ko)
s[AL].compute_at(s[CC], ki)
print(tvm.lower(s, [A, B, C], simple_mode=True))
"
    ));
    let first = printed.lines().next().unwrap();
    assert_eq!(first, "A.shared B.shared A.shared.local C.local");
    assert!(
        printed.contains("allocate A.shared[float32 * 4 * 4]"),
        "{printed}"
    );
    assert!(printed.contains("C.local[i.c, j.c] = 0"), "{printed}");
}

#[test]
fn cache_write_of_a_list_returns_a_list() {
    let printed = run_checked(&format!(
        "{MATMUL}\
CL = s.cache_write([C], \"local\")
print(len(CL), CL[0].op.name)
print(tvm.lower(s, [A, B, C], simple_mode=True))
"
    ));
    assert!(printed.starts_with("1 C.local\n"), "{printed}");
}

#[test]
fn rfactor_factors_a_reduction_and_the_stage_reduces_over_the_factored_axis() {
    let printed = run_checked(
        "\
A = te.placeholder((8, 64), name=\"A\")
k = te.reduce_axis((0, 64), name=\"k\")
B = te.compute((8,), lambda i: te.sum(A[i, k], axis=k), name=\"B\")
s = te.create_schedule(B.op)
ko, ki = s[B].split(B.op.reduce_axis[0], factor=16)
BF = s.rfactor(B, ki)
print(BF.op.name, BF.shape, s[B].op.reduce_axis[0].var)
s[BF].compute_at(s[B], s[B].op.axis[0])
print(tvm.lower(s, [A, B], simple_mode=True))
",
    );
    assert!(printed.starts_with("B.rf [16, 8] k.inner.v\n"), "{printed}");
    // factor_axis places the factored axis.
    let printed = run_checked(
        "\
A = te.placeholder((8, 64), name=\"A\")
k = te.reduce_axis((0, 64), name=\"k\")
B = te.compute((8,), lambda i: te.sum(A[i, k], axis=k), name=\"B\")
s = te.create_schedule(B.op)
ko, ki = s[B].split(k, factor=16)
BF = s.rfactor(B, ki, factor_axis=1)
print(BF.shape)
",
    );
    assert_eq!(printed, "[8, 16]\n");
}

/// An argmax over (index, value) pairs of a 6 x 37 input, its reduction
/// split by 8.
const ARGMAX: &str = "\
def fcombine(x, y):
    return tvm.tir.Select(x[1] >= y[1], x[0], y[0]), tvm.tir.Select(x[1] >= y[1], x[1], y[1])
def fidentity(t0, t1):
    return tvm.tir.const(-1, t0), tvm.te.min_value(t1)
argmax = te.comm_reducer(fcombine, fidentity, name=\"argmax\")
idx = te.placeholder((6, 37), name=\"idx\", dtype=\"int32\")
val = te.placeholder((6, 37), name=\"val\")
k = te.reduce_axis((0, 37), \"k\")
T0, T1 = te.compute((6,), lambda i: argmax((idx[i, k], val[i, k]), axis=k), name=\"T\")
s = te.create_schedule(T0.op)
ko, ki = s[T0].split(k, factor=8)
";

#[test]
fn rfactor_of_a_tuple_reduction_factors_every_value_and_returns_them_all() {
    // TVM returns the factored outputs of an argmax as a list; both stages
    // combine (index, value) pairs with the program's reducer.
    let printed = run_checked(&format!(
        "{ARGMAX}\
BF, BV = s.rfactor(T1, ki)
print(BF.op.name, BF.shape, BF.dtype, BV.dtype, BF.op == BV.op, s[T0].op.reduce_axis[0].var)
s[BF].compute_at(s[T0], s[T0].op.axis[0])
print(tvm.lower(s, [idx, val, T0, T1], simple_mode=True))
"
    ));
    assert!(
        printed.starts_with("T.rf [8, 6] int32 float32 True k.inner.v\n"),
        "{printed}"
    );
    assert!(
        printed.contains(
            "T.v0[ax0] = if_then_else((T.v1[ax0] >= T.rf.v1[k.inner.v, 0]), T.v0[ax0], \
             T.rf.v0[k.inner.v, 0])"
        ),
        "{printed}"
    );
}

#[test]
fn a_tuple_reduction_combines_across_threads() {
    // The factored argmax bound to `threadIdx.x`: each thread's (index,
    // value) pair goes to its own shared buffer, and thread 0 combines the
    // pairs with the program's reducer, one value after the other.
    let printed = run_checked(&format!(
        "{ARGMAX}\
BF, BV = s.rfactor(T0, ki)
tx = te.thread_axis(\"threadIdx.x\")
s[T0].bind(s[T0].op.reduce_axis[0], tx)
s[BF].compute_at(s[T0], s[T0].op.reduce_axis[0])
s[T0].bind(s[T0].op.axis[0], te.thread_axis(\"blockIdx.x\"))
s[T0].set_store_predicate(tx.equal(0))
print(tvm.lower(s, [idx, val, T0, T1], simple_mode=True))
"
    ));
    for line in [
        "red_buf0[threadIdx.x] = T.rf.v0[0, 0]",
        "red_buf1[threadIdx.x] = T.rf.v1[0, 0]",
        "red_buf0[0] = if_then_else((red_buf1[0] >= red_buf1[red.k0]), red_buf0[0], red_buf0[red.k0])",
        "T.v1[blockIdx.x] = red_buf1[0]",
    ] {
        assert!(printed.contains(line), "{line}\n{printed}");
    }
}

const BLOCK: &str = "\
A = te.placeholder((8, 8), name=\"A\")
B = te.compute((8, 8), lambda i, j: A[i, j] + 1.0, name=\"B\")
C = te.compute((8, 8), lambda i, j: B[i, j] * 2.0, name=\"C\")
D = te.compute((8, 8), lambda i, j: C[i, j] - 1.0, name=\"D\")
s = te.create_schedule(D.op)
";

#[test]
fn a_group_is_computed_at_a_loop_as_one() {
    let printed = run_checked(&format!(
        "{BLOCK}\
g = s.create_group(outputs=C, inputs=A, include_inputs=False)
print(g.num_child_stages, g.group, s[B].group.num_child_stages)
g.compute_at(s[D], D.op.axis[0])
print(tvm.lower(s, [A, D], simple_mode=True))
"
    ));
    assert!(printed.starts_with("2 None 2\n"), "{printed}");
    // B and C are both computed per row of D.
    let rows = printed.lines().position(|l| l.contains("for (i, 0, 8)"));
    let b = printed.lines().position(|l| l.contains("produce B"));
    assert!(rows < b, "{printed}");
    // compute_root puts them back.
    let printed = run_checked(&format!(
        "{BLOCK}\
g = s.create_group([C], [A])
s[g].compute_at(s[D], D.op.axis[0])
g.compute_root()
print(tvm.lower(s, [A, D], simple_mode=True))
"
    ));
    let b = printed.lines().position(|l| l.contains("produce B"));
    let d = printed.lines().position(|l| l.contains("produce D"));
    assert!(b < d && !printed.starts_with("produce D"), "{printed}");
}

#[test]
fn normalize_auto_inline_and_schedule_ops_as_topi_generic_schedules_use_them() {
    let printed = run_checked(
        "\
A = te.placeholder((4, 6), name=\"A\")
P = te.compute((4, 8), lambda i, j: tvm.tir.if_then_else(tvm.tir.all(j >= 1, j <= 6), A[i, j - 1], 0.0), name=\"P\")
k = te.reduce_axis((0, 3), name=\"k\")
C = te.compute((4, 6), lambda i, j: te.sum(P[i, j + k], axis=k), name=\"C\")
R = te.compute((4, 6), lambda i, j: te.max(C[i, j], 0.0), name=\"R\")
s = te.create_schedule(R.op)
te.schedule.AutoInlineInjective(s)
s2 = s.normalize()
assert s2 is not s
bounds = tvm.te.schedule.InferBound(s2)
stmt = tvm.te.schedule.ScheduleOps(s2, bounds)
print(stmt)
print(tvm.lower(s2, [A, R], simple_mode=True))
",
    );
    // P is inlined into C; C (a reduction) and R stay.
    assert!(!printed.contains("produce P"), "{printed}");
    assert!(printed.contains("realize C("), "{printed}");
    assert!(printed.contains("produce C"), "{printed}");
}

#[test]
fn auto_inline_elem_wise_leaves_reads_at_computed_indices() {
    let printed = run_checked(
        "\
A = te.placeholder((8,), name=\"A\")
B = te.compute((4,), lambda i: A[i * 2], name=\"B\")
C = te.compute((4,), lambda i: B[i] + 1.0, name=\"C\")
D = te.compute((4,), lambda i: C[i] * 3.0, name=\"D\")
s = te.create_schedule(D.op)
tvm.te.schedule.AutoInlineElemWise(s)
print(tvm.lower(s, [A, D], simple_mode=True))
",
    );
    assert!(printed.contains("produce B"), "{printed}");
    assert!(!printed.contains("produce C"), "{printed}");
}

#[test]
fn the_read_graph_and_its_post_order() {
    let src = format!(
        "{PRELUDE}{BLOCK}\
g = te.schedule.CreateReadGraph([D.op])
print([t.name for t in g[D.op]], g[A.op])
order = te.schedule.PostDFSOrder([D.op], g)
print([op.name for op in order])
"
    );
    let run = script::run(&src).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(run.printed, "['C'] []\n['A', 'B', 'C', 'D']\n");
}

#[test]
fn a_scan_runs_its_steps() {
    let printed = run_checked(
        "\
m, n = 6, 4
X = te.placeholder((m, n), name=\"X\")
state = te.placeholder((m, n), name=\"state\")
init = te.compute((1, n), lambda _, i: X[0, i], name=\"init\")
update = te.compute((m, n), lambda t, i: state[t - 1, i] + X[t, i], name=\"update\")
res = te.scan(init, update, state, inputs=[X], name=\"cumsum\")
print(res.op.name, res.shape)
one = te.scan([init], [update], [state], name=\"again\")
print(one.op.name)
s = te.create_schedule(res.op)
print(tvm.lower(s, [X, res], simple_mode=True))
",
    );
    assert!(printed.starts_with("cumsum [6, 4]\nagain\n"), "{printed}");
    assert!(printed.contains("for (cumsum.idx, 0, 5)"), "{printed}");
}

#[test]
fn a_scan_of_two_states_steps_them_together() {
    // TVM's scan tutorial: the states have shapes of their own, and the
    // second reads the first.
    let printed = run_checked(
        "\
m, n, l = 6, 4, 3
X = te.placeholder((m, n), name=\"X\")
s_state1 = te.placeholder((m, n))
s_state2 = te.placeholder((m, l))
s_init1 = te.compute((1, n), lambda _, i: X[0, i])
s_init2 = te.compute((1, l), lambda _, i: 0.0)
s_update1 = te.compute((m, n), lambda t, i: s_state1[t - 1, i] + X[t, i])
s_update2 = te.compute((m, l), lambda t, i: s_state2[t - 1, i] + s_state1[t - 1, 0])
s_scan1, s_scan2 = tvm.te.scan(
    [s_init1, s_init2], [s_update1, s_update2], [s_state1, s_state2], inputs=[X]
)
print(s_scan1.value_index, s_scan2.value_index, s_scan2.shape)
s = te.create_schedule(s_scan1.op)
print(tvm.lower(s, [X, s_scan1, s_scan2], simple_mode=True))
",
    );
    assert!(printed.starts_with("0 1 [6, 3]\n"), "{printed}");
    assert!(
        printed
            .contains("scan.v1[(scan.idx + 1), i] = (scan.v1[scan.idx, i] + scan.v0[scan.idx, 0])"),
        "{printed}"
    );
}

#[test]
fn the_body_and_fix_points_of_a_scan_are_readable() {
    let printed = run_checked(
        "\
m, n, l = 4, 5, 6
x = te.placeholder((l, m, n), name=\"x\")
s_state = te.placeholder((l, m, n))
s_init = te.compute((1, m, n), lambda _, i, j: x[0, i, j], name=\"s_init\")
s_h1 = te.compute((l, n, m), lambda t, j, i: s_state[t - 1, i, j], name=\"h1\")
s_h2 = te.compute((l, m, n), lambda t, i, j: s_state[t - 1, i, 3] * 2, name=\"h2\")
s_update = te.compute((l, m, n), lambda t, i, j: s_h1[t, j, i] + s_h2[t, i, j], name=\"update\")
s_scan = tvm.te.scan(s_init, s_update, s_state)
print([op.name for op in tvm.te.schedule.ScanGetBody(s_scan.op)])
fxpt = tvm.te.schedule.ScanFixPointAnalysis(s_scan.op)
print([fxpt[iv].value for iv in s_scan.op.spatial_axis_])
s = te.create_schedule(s_scan.op)
tvm.lower(s, [x, s_scan])
",
    );
    assert!(
        printed.starts_with("['h1', 'h2', 'update']\n[1, 0]\n"),
        "{printed}"
    );
}

#[test]
fn a_stage_of_a_two_state_scan_body_inlines() {
    run_checked(
        "\
m, n = 5, 4
x = te.compute((m, n), lambda i, j: tvm.tir.const(1, \"float32\"), name=\"x\")
s_state1 = te.placeholder((m, n))
s_state2 = te.placeholder((m, n))
s_init1 = te.compute((1, n), lambda _, i: x[0, i])
s_init2 = te.compute((1, n), lambda _, i: x[0, i])
s_xx = te.compute((m, n), lambda t, i: s_state1[t - 1, i] + x[t, i], name=\"xx\")
s_x1 = te.compute((m, n), lambda t, i: s_xx[t, i] + 1, name=\"x1\")
s_x2 = te.compute((m, n), lambda t, i: s_xx[t, i] + s_state2[t - 1, 2], name=\"x2\")
s_update1 = te.compute((m, n), lambda t, i: s_x1[t, i], \"u1\")
s_update2 = te.compute((m, n), lambda t, i: s_x2[t, i], \"u2\")
res1, res2 = tvm.te.scan([s_init1, s_init2], [s_update1, s_update2], [s_state1, s_state2])
s = te.create_schedule(res1.op)
s[s_xx].compute_inline()
s[s_x1].compute_inline()
s[s_x2].compute_inline()
tvm.lower(s, [x, res1, res2])
",
    );
}

#[test]
fn the_states_of_a_scan_step_together() {
    let (_, _, msg) = error_of(
        "\
X = te.placeholder((6, 4), name=\"X\")
a = te.placeholder((6, 4))
b = te.placeholder((5, 4))
ia = te.compute((1, 4), lambda _, i: X[0, i])
ib = te.compute((1, 4), lambda _, i: X[0, i])
ua = te.compute((6, 4), lambda t, i: a[t - 1, i])
ub = te.compute((5, 4), lambda t, i: b[t - 1, i])
te.scan([ia, ib], [ua, ub], [a, b])
",
    );
    assert!(
        msg.contains("state 1 (`placeholder`) has 5 rows but state 0 (`placeholder`) has 6"),
        "{msg}"
    );
    let (_, _, msg) = error_of(
        "\
X = te.placeholder((6, 4), name=\"X\")
a = te.placeholder((6, 4))
ia = te.compute((1, 4), lambda _, i: X[0, i])
ua = te.compute((6, 4), lambda t, i: a[t - 1, i])
te.scan([ia, ia], [ua], [a])
",
    );
    assert!(msg.contains("2 inits, 1 updates and 1 states"), "{msg}");
}

#[test]
fn an_extern_op_calls_its_function_with_buffers() {
    let src = format!(
        "{PRELUDE}\
A = te.placeholder((8, 4), name=\"A\")
Ab = tvm.tir.decl_buffer(A.shape, A.dtype, name=\"Ab\")
print(Ab.name, Ab.shape, Ab.dtype, Ab.strides)
C = te.extern((8, 4), [A], lambda ins, outs: tvm.tir.call_packed(\"my.copy\", ins[0], outs[0], 1.5, False), in_buffers=[Ab], name=\"C\")
D = te.compute(C.shape, lambda i, j: C[i, j] + 1.0, name=\"D\")
s = te.create_schedule(D.op)
print(tvm.lower(s, [A, D], simple_mode=True))
"
    );
    let run = script::run(&src).unwrap_or_else(|e| panic!("{e}"));
    assert!(
        run.printed.starts_with("Ab [8, 4] float32 []\n"),
        "{}",
        run.printed
    );
    assert!(
        run.printed
            .contains("tvm_call_packed(\"my.copy\", tvm_stack_make_array(A,"),
        "{}",
        run.printed
    );
    let target = run.target.unwrap();
    let report = te::check(&target.schedule, &target.args, &HashMap::new(), 1).unwrap();
    assert_eq!(report.not_evaluable.len(), 1, "{report:?}");
    assert_eq!(report.not_evaluable[0].0, "C");
}

#[test]
fn a_compute_returning_a_tuple_has_an_output_per_value() {
    let printed = run_checked(
        "\
x = te.placeholder((4, 6), name=\"x\")
gate, cand = te.compute((4, 6), lambda i, j: (te.sigmoid(x[i, j]), x[i, j] * 2.0), name=\"gates\")
print(gate.op.num_outputs, gate.value_index, cand.value_index, gate.op.output(1).name)
mixed = te.compute((4, 6), lambda i, j: gate[i, j] * cand[i, j], name=\"mixed\")
s = te.create_schedule(mixed.op)
print(tvm.lower(s, [x, mixed], simple_mode=True))
",
    );
    assert!(printed.starts_with("2 0 1 gates.v1\n"), "{printed}");
}

#[test]
fn comm_reducers_of_one_value_and_of_tuples() {
    let printed = run_checked(
        "\
prod = te.comm_reducer(lambda x, y: x * y, lambda t: tvm.tir.const(1, dtype=t), name=\"prod\")
pair_sum = te.comm_reducer(
    lambda x, y: (x[0] + y[0], x[1] + y[1]),
    lambda t0, t1: (tvm.tir.const(0, t0), tvm.tir.const(0, t1)),
    name=\"pair_sum\",
)
A = te.placeholder((4, 5), name=\"A\")
k = te.reduce_axis((0, 5), name=\"k\")
P = te.compute((4,), lambda i: prod(A[i, k], axis=k), name=\"P\")
k2 = te.reduce_axis((0, 5), name=\"k2\")
S1, S2 = te.compute((4,), lambda i: pair_sum((A[i, k2], A[i, k2] * A[i, k2]), axis=k2, where=k2 > 0), name=\"moments\")
Out = te.compute((4,), lambda i: P[i] + S1[i] - S2[i], name=\"Out\")
s = te.create_schedule(Out.op)
print(tvm.lower(s, [A, Out], simple_mode=True))
",
    );
    assert!(printed.contains("produce moments"), "{printed}");
}

#[test]
fn tensorize_with_an_intrinsic_whose_function_emits_a_call() {
    let printed = run_checked(
        "\
def intrin_gemv(m, l):
    a = te.placeholder((l,), name=\"a\")
    b = te.placeholder((m, l), name=\"b\")
    k = te.reduce_axis((0, l), name=\"k\")
    c = te.compute((m,), lambda i: te.sum(a[k] * b[i, k], axis=k), name=\"c\")
    Ab = tvm.tir.decl_buffer(a.shape, a.dtype, name=\"A\", offset_factor=1, strides=[1])
    Bb = tvm.tir.decl_buffer(b.shape, b.dtype, name=\"B\", offset_factor=1, strides=[te.var(\"s1\"), 1])
    Cb = tvm.tir.decl_buffer(c.shape, c.dtype, name=\"C\", offset_factor=1, strides=[1])

    def intrin_func(ins, outs):
        ib = tvm.tir.ir_builder.create()
        aa, bb = ins
        cc = outs[0]
        ib.emit(tvm.tir.call_extern(\"int32\", \"gemv_update\", cc.access_ptr(\"w\"), aa.access_ptr(\"r\"), bb.access_ptr(\"r\"), m, l, bb.strides[0]))
        return ib.get()

    return te.decl_tensor_intrin(c.op, intrin_func, binds={a: Ab, b: Bb, c: Cb})

A = te.placeholder((4, 16), name=\"A\")
W = te.placeholder((8, 16), name=\"W\")
k = te.reduce_axis((0, 16), name=\"k\")
C = te.compute((4, 8), lambda i, j: te.sum(A[i, k] * W[j, k], axis=k), name=\"C\")
s = te.create_schedule(C.op)
x, y = C.op.axis
yo, yi = s[C].split(y, factor=4)
s[C].reorder(x, yo, yi, k)
s[C].tensorize(yi, intrin_gemv(4, 16))
print(tvm.lower(s, [A, W, C], simple_mode=True))
",
    );
    assert!(printed.contains("gemv_update"), "{printed}");
}

#[test]
fn wrong_arguments_are_errors_at_the_argument() {
    let (line, column, message) = error_of(&format!("{MATMUL}s.cache_read(A, 3, [C])\n"));
    assert_eq!((line, column), (8, 17), "{message}");
    assert!(message.contains("storage scope"), "{message}");

    let (line, column, message) = error_of(&format!("{MATMUL}s.rfactor(C, C)\n"));
    assert_eq!((line, column), (8, 14), "{message}");
    assert!(message.contains("expected an IterVar"), "{message}");

    // TVM's own refusal, as a TVMError: rfactor of a data-parallel axis.
    let src = format!(
        "{MATMUL}try:\n    s.rfactor(C, C.op.axis[0])\nexcept tvm.error.TVMError:\n    print(\"refused\")\n"
    );
    let run = script::run(&format!("{PRELUDE}{src}")).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(run.printed, "refused\n");

    let (_, _, message) = error_of(&format!("{MATMUL}s.cache_write(A, \"local\")\n"));
    assert!(message.contains("placeholder"), "{message}");

    let (line, column, message) = error_of(&format!("{MATMUL}s[C].tensorize(C.op.axis[0], 1)\n"));
    assert_eq!((line, column), (8, 30), "{message}");
    assert!(message.contains("te.decl_tensor_intrin"), "{message}");

    let (line, column, message) = error_of(&format!("{MATMUL}C.op.output(2)\n"));
    assert_eq!((line, column), (8, 13), "{message}");
    assert!(message.contains("has 1 output(s)"), "{message}");

    let (line, column, message) = error_of("r = te.comm_reducer(1, lambda t: 0)\n");
    assert_eq!((line, column), (3, 21), "{message}");
    assert!(message.contains("needs a lambda"), "{message}");

    let (_, _, message) = error_of(
        "r = te.comm_reducer(lambda x, y: x + y, lambda t: tvm.tir.const(0, t))\n\
         A = te.placeholder((4,), name=\"A\")\n\
         B = te.compute((1,), lambda i: r(A[i]), name=\"B\")\n",
    );
    assert!(message.contains("without `axis=`"), "{message}");

    // A combiner returning the wrong number of values: about the combiner.
    let (line, column, message) = error_of(
        "r = te.comm_reducer(lambda x, y: x[0] + y[0], lambda a, b: (0, 0))\n\
         A = te.placeholder((4,), name=\"A\")\n\
         k = te.reduce_axis((0, 4), name=\"k\")\n\
         B, C = te.compute((1,), lambda i: r((A[k], A[k]), axis=k), name=\"B\")\n",
    );
    assert_eq!((line, column), (6, 37), "{message}");
    assert!(
        message.contains("returned 1 value(s) for a tuple of 2"),
        "{message}"
    );

    let (line, column, message) = error_of(
        "A = te.placeholder((4,), name=\"A\")\n\
         C = te.extern((4,), [A], lambda ins, outs: 3, name=\"C\")\n",
    );
    assert_eq!((line, column), (4, 26), "{message}");
    assert!(message.contains("tvm.tir.call_packed"), "{message}");

    let (line, column, message) = error_of("b = tvm.tir.decl_buffer((4,), \"float32\", data=1)\n");
    assert_eq!((line, column), (3, 42), "{message}");
    assert!(message.contains("not supported"), "{message}");

    let (_, _, message) = error_of(&format!("{BLOCK}g = s.create_group(C, A)\ng.split(1)\n"));
    assert!(message.contains("compute_at"), "{message}");

    // The dataflow functions take what TVM's take.
    let (line, column, message) = error_of(&format!("{BLOCK}tvm.te.schedule.ScheduleOps(s, s)\n"));
    assert_eq!((line, column), (8, 32), "{message}");
    assert!(message.contains("InferBound"), "{message}");
    let (line, column, message) = error_of(&format!(
        "{BLOCK}te.schedule.PostDFSOrder([D.op], [D.op])\n"
    ));
    assert_eq!((line, column), (8, 34), "{message}");
    assert!(message.contains("CreateReadGraph"), "{message}");

    // A scan's state must be a placeholder: TVM's error, catchable.
    let scan = "\
X = te.placeholder((4, 3), name=\"X\")
init = te.compute((1, 3), lambda _, i: X[0, i], name=\"init\")
update = te.compute((4, 3), lambda t, i: X[t, i] * 2.0, name=\"update\")
";
    let src = format!(
        "{PRELUDE}{scan}try:\n    te.scan(init, update, update)\nexcept tvm.error.TVMError:\n    print(\"refused\")\n"
    );
    let run = script::run(&src).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(run.printed, "refused\n");
    // Each state has its own init, update and placeholder.
    let (line, column, message) = error_of(&format!(
        "{scan}te.scan([init, init], [update, update], [X, X])\n"
    ));
    assert_eq!((line, column), (6, 1), "{message}");
    assert!(
        message.contains("`init` is init 0 and init 1: give each state its own init"),
        "{message}"
    );
}

#[test]
fn loop_annotations_stay_on_their_loops() {
    let printed = run_checked(
        "\
A = te.placeholder((16, 8), name=\"A\")
B = te.compute((16, 8), lambda i, j: A[i, j] * 2.0, name=\"B\")
s = te.create_schedule(B.op)
io, ii = s[B].split(B.op.axis[0], factor=4)
s[B].parallel(io)
s[B].unroll(ii)
s[B].vectorize(B.op.axis[1])
s[B].pragma(io, \"auto_unroll_max_step\", 16)
s[B].pragma(io, \"unroll_explicit\", pragma_value=None)
print(tvm.lower(s, [A, B], simple_mode=True))
",
    );
    assert!(printed.contains("parallel (i.outer, 0, 4) {"), "{printed}");
    assert!(printed.contains("unrolled (i.inner, 0, 4) {"), "{printed}");
    assert!(printed.contains("vectorized (j, 0, 8) {"), "{printed}");
    assert!(
        printed.contains("pragma_auto_unroll_max_step = 16"),
        "{printed}"
    );
    assert!(printed.contains("pragma_unroll_explicit = 1"), "{printed}");

    // A reduction loop cannot be vectorized: TVM's error, catchable.
    let src = format!(
        "{PRELUDE}{MATMUL}try:\n    s[C].vectorize(k)\nexcept tvm.error.TVMError:\n    print(\"refused\")\n"
    );
    let run = script::run(&src).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(run.printed, "refused\n");
    let (line, column, message) = error_of(&format!("{MATMUL}s[C].pragma(C.op.axis[0], 3)\n"));
    assert_eq!((line, column), (8, 27), "{message}");
    assert!(message.contains("needs its key as a string"), "{message}");
    let (line, column, message) = error_of(&format!("{MATMUL}s[C].parallel(C)\n"));
    assert_eq!((line, column), (8, 15), "{message}");
    assert!(message.contains("expected an IterVar"), "{message}");
}

/// TVM's GEMM schedule: `A.shared` is computed inside `C.local`, which runs
/// inside `C`'s thread loops, and its own loops are bound to the same
/// threads. InferBound sizes it for the whole block (TVM's `NeedRelax` on
/// the consumer's attach path), each thread fetches its part, and every
/// thread reads rows the others fetched: the run executes the block's
/// threads together.
#[test]
fn a_cooperative_fetch_into_shared_memory_runs_as_on_a_gpu() {
    let schedule = "\
A = te.placeholder((32, 32), name=\"A\")
B = te.placeholder((32, 32), name=\"B\")
k = te.reduce_axis((0, 32), name=\"k\")
C = te.compute((32, 32), lambda i, j: te.sum(A[i, k] * B[j, k], axis=k), name=\"C\")
s = te.create_schedule(C.op)
CC = s.cache_write(C, \"local\")
AA = s.cache_read(A, \"shared\", [CC])
tx, ty = te.thread_axis(\"threadIdx.x\"), te.thread_axis(\"threadIdx.y\")
by, yi = s[C].split(C.op.axis[0], factor=16)
bx, xi = s[C].split(C.op.axis[1], factor=16)
s[C].reorder(by, bx, yi, xi)
s[C].bind(by, te.thread_axis(\"blockIdx.y\"))
s[C].bind(bx, te.thread_axis(\"blockIdx.x\"))
ty_o, yi = s[C].split(yi, nparts=4)
tx_o, xi = s[C].split(xi, nparts=4)
s[C].reorder(ty_o, tx_o, yi, xi)
s[C].bind(ty_o, ty)
s[C].bind(tx_o, tx)
s[CC].compute_at(s[C], tx_o)
s[AA].compute_at(s[CC], CC.op.reduce_axis[0])
a_ty, a_i = s[AA].split(AA.op.axis[0], nparts=4)
a_tx, a_i = s[AA].split(a_i, nparts=4)
s[AA].bind(a_ty, ty)
s[AA].bind(a_tx, tx)
bounds = tvm.te.schedule.InferBound(s)
print(bounds[AA.op.axis[0]].extent, bounds[CC.op.axis[0]].extent)
print(tvm.lower(s, [A, B, C], simple_mode=True))
";
    let printed = run_checked(schedule);
    assert!(printed.starts_with("16 4\n"), "{printed}");
    assert!(
        printed.contains("allocate A.shared[float32 * 16 * 1]"),
        "{printed}"
    );
    // Each thread fetches one row: the fetch is no loop.
    assert!(
        printed.contains(
            "A.shared[((threadIdx.y*4) + threadIdx.x), 0] = A[(((blockIdx.y*16) + (threadIdx.y*4)) + threadIdx.x), k]"
        ),
        "{printed}"
    );
}

/// TVM's reduction tutorial: the reduction split, its inner part factored
/// out with `rfactor`, the remaining reduction bound to `threadIdx.x` and
/// only thread 0 storing (`set_store_predicate`). Each thread's part goes
/// to a shared buffer, thread 0 combines them and stores: the run matches
/// the definition.
#[test]
fn a_reduction_across_threads_combines_every_threads_part() {
    let printed = run_checked(
        "A = te.placeholder((8, 64), name=\"A\")
k = te.reduce_axis((0, 64), name=\"k\")
B = te.compute((8,), lambda i: te.sum(A[i, k], axis=k), name=\"B\")
s = te.create_schedule(B.op)
ko, ki = s[B].split(B.op.reduce_axis[0], factor=16)
BF = s.rfactor(B, ki)
xo, xi = s[B].split(s[B].op.axis[0], factor=4)
s[B].bind(xo, te.thread_axis(\"blockIdx.x\"))
s[B].bind(xi, te.thread_axis(\"threadIdx.y\"))
tx = te.thread_axis(\"threadIdx.x\")
s[B].bind(s[B].op.reduce_axis[0], tx)
s[BF].compute_at(s[B], s[B].op.reduce_axis[0])
s[B].set_store_predicate(tx.var.equal(0))
print(tvm.lower(s, [A, B], simple_mode=True))
",
    );
    for line in [
        "allocate red_buf0[float32 * 4 * 16]",
        "red_buf0[threadIdx.y, threadIdx.x] = B.rf[0, 0]",
        "red_buf0[threadIdx.y, 0] = (red_buf0[threadIdx.y, 0] + red_buf0[threadIdx.y, red.k0])",
        "B[((blockIdx.x*4) + threadIdx.y)] = red_buf0[threadIdx.y, 0]",
    ] {
        assert!(printed.contains(line), "{line}\n{printed}");
    }
}

/// A reduction bound to the thread that the loops around its stage already
/// bind (TOPI's CUDA softmax: a row's maximum reduced by the warp that
/// then reads it): every thread stores the combined value in its own copy,
/// and each reads it.
#[test]
fn a_reduction_across_running_threads_leaves_the_result_in_every_thread() {
    run_checked(
        "A = te.placeholder((4, 64), name=\"A\")
k = te.reduce_axis((0, 64), name=\"k\")
M = te.compute((4,), lambda i: te.max(A[i, k], axis=k), name=\"M\")
E = te.compute((4, 64), lambda i, j: A[i, j] - M[i], name=\"E\")
s = te.create_schedule(E.op)
tx = te.thread_axis((0, 16), \"threadIdx.x\")
s[E].bind(E.op.axis[0], te.thread_axis(\"blockIdx.x\"))
jo, ji = s[E].split(E.op.axis[1], nparts=16)
s[E].bind(jo, tx)
ko, ki = s[M].split(M.op.reduce_axis[0], nparts=16)
s[M].bind(ko, tx)
s[M].compute_at(s[E], jo)
print(tvm.lower(s, [A, E], simple_mode=True))
",
    );
}

/// A tuple reduction bound to threads whole (no rfactor): each thread
/// gives its one pair, thread 0 combines them.
#[test]
fn a_tuple_reduction_across_threads_runs() {
    let printed = run_checked(
        "def fcombine(x, y):
    left = x[1] >= y[1]
    return tvm.tir.Select(left, x[0], y[0]), tvm.tir.Select(left, x[1], y[1])
def fidentity(t0, t1):
    return tvm.tir.const(-1, t0), te.min_value(t1)
argmax = te.comm_reducer(fcombine, fidentity, name=\"argmax\")
X = te.placeholder((4, 16), name=\"X\")
k = te.reduce_axis((0, 16), name=\"k\")
I, V = te.compute((4,), lambda i: argmax((k.var, X[i, k]), axis=k), name=\"T\")
s = te.create_schedule(I.op)
s[I].bind(s[I].op.reduce_axis[0], te.thread_axis(\"threadIdx.x\"))
print(tvm.lower(s, [X, I, V], simple_mode=True))
",
    );
    assert!(
        printed.contains("red_buf0[threadIdx.x] = threadIdx.x"),
        "{printed}"
    );
}

/// TOPI's CUDA argmin: the tuple reduction across `threadIdx.x` is computed
/// at a stage bound to `threadIdx.y` that keeps the index, and that stage
/// stores only from thread 0 (`set_store_predicate`). Its guard reads
/// `threadIdx.x` after that thread's launch closed; on a GPU the index is
/// kernel-wide, and the run gives it one.
#[test]
fn a_store_guarded_by_a_thread_index_outside_its_launch_runs() {
    let printed = run_checked(
        "def fcombine(x, y):
    left = x[1] <= y[1]
    return tvm.tir.Select(left, x[0], y[0]), tvm.tir.Select(left, x[1], y[1])
def fidentity(t0, t1):
    return tvm.tir.const(-1, t0), te.max_value(t1)
argmin = te.comm_reducer(fcombine, fidentity, name=\"argmin\")
X = te.placeholder((4, 37), name=\"X\")
k = te.reduce_axis((0, 37), name=\"k\")
I, V = te.compute((4,), lambda i: argmin((k.var, X[i, k]), axis=k), name=\"T\")
R = te.compute((4,), lambda i: I[i], name=\"R\")
s = te.create_schedule(R.op)
tx = te.thread_axis(\"threadIdx.x\")
ko, ki = s[I].split(s[I].op.reduce_axis[0], factor=8)
s[I].bind(ki, tx)
s[R].bind(s[R].op.axis[0], te.thread_axis(\"threadIdx.y\"))
s[I].compute_at(s[R], s[R].op.axis[0])
s[R].set_store_predicate(tx.var.equal(0))
print(tvm.lower(s, [X, R], simple_mode=True))
",
    );
    // The guard is printed where TVM prints it, after the launch's body.
    let guard = "  if ((threadIdx.x == 0)) {\n    R[threadIdx.y] = T.v0[0]\n  }\n}";
    assert!(printed.contains(guard), "{printed}");
}

/// The outputs of an operation with several, passed to `tvm.lower` as
/// arguments, stay distinct parameters: the second is the second output,
/// not the operation's first again.
#[test]
fn every_output_of_a_tuple_reduction_is_its_own_argument() {
    let printed = run_checked(
        "def fcombine(x, y):\n\
         \x20   left = x[1] >= y[1]\n\
         \x20   return tvm.tir.Select(left, x[0], y[0]), tvm.tir.Select(left, x[1], y[1])\n\
         def fidentity(t0, t1):\n\
         \x20   return tvm.tir.const(-1, t0), te.min_value(t1)\n\
         argmax = te.comm_reducer(fcombine, fidentity, name=\"argmax\")\n\
         X = te.placeholder((4, 10), name=\"X\")\n\
         k = te.reduce_axis((0, 10), name=\"k\")\n\
         I, V = te.compute((4,), lambda i: argmax((k.var, X[i, k]), axis=k), name=\"T\")\n\
         s = te.create_schedule(I.op)\n\
         f = tvm.lower(s, [X, I, V], simple_mode=True)\n\
         print([p.name for p in f.params])\n",
    );
    assert!(printed.contains("['X', 'T.v0', 'T.v1']"), "{printed}");
}

/// `split(..., disable_predication=True)` is accepted: rangefinder's loops
/// already run exactly the iterations that exist, so the program is the
/// same as without the flag (and stays inside the tensor).
#[test]
fn split_without_predication_lowers_the_exact_loops() {
    let program = |flag: &str| {
        format!(
            "import tvm\nfrom tvm import te\n\
             A = te.placeholder((43,), name=\"A\")\n\
             B = te.compute(A.shape, lambda i: A[i] + 2, name=\"B\")\n\
             s = te.create_schedule(B.op)\n\
             s[B].split(B.op.axis[0], factor=4{flag})\n\
             print(tvm.lower(s, [A, B], simple_mode=True))\n"
        )
    };
    let plain = script::run(&program("")).unwrap_or_else(|e| panic!("{e}"));
    let flagged =
        script::run(&program(", disable_predication=True")).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(plain.printed, flagged.printed);
    assert!(
        flagged
            .printed
            .contains("for (i.inner, 0, min((43 - (i.outer*4)), 4)) {"),
        "{}",
        flagged.printed
    );
}

/// A thread loop launched with its split's factor whose tail is checked
/// inside a loop nested in it (the block loop reordered inside): a stage
/// computed at the thread loop runs for every launched thread, so
/// InferBound sizes its producers for all of them (a fuzzing finding: the
/// producer was sized for the valid threads only, and the run read past
/// it).
#[test]
fn a_stage_at_a_launched_thread_loop_is_bounded_for_every_launched_thread() {
    let src = format!(
        "{PRELUDE}{}",
        "n = te.var(\"n\")
A = te.placeholder((n, n), name=\"A\")
S0 = te.compute((n - 2, n - 2), lambda i, j: A[i + 1, j + 2] * 1.0, name=\"S0\")
S1 = te.compute((n - 3, n - 3), lambda i, j: S0[i + 1, j + 1] + S0[i // 2, j] + S0[i + 1, j], name=\"S1\")
S2 = te.compute((n - 5, n - 5), lambda i, j: S1[i, j] + S1[i + 1, j] * 2.0, name=\"S2\")
s = te.create_schedule(S2.op)
xo, xi = s[S2].split(S2.op.axis[0], factor=5)
s[S2].reorder(xi, xo, S2.op.axis[1])
s[S2].bind(xo, te.thread_axis(\"blockIdx.x\"))
s[S2].bind(xi, te.thread_axis(\"threadIdx.x\"))
po, pi = s[S1].split(S1.op.axis[0], factor=2)
s[S1].compute_at(s[S2], xi)
print(tvm.lower(s, [A, S2], simple_mode=True))
"
    );
    let run = script::run(&src).unwrap_or_else(|e| panic!("{e}"));
    let target = run.target.expect("a schedule");
    let sizes: HashMap<arith::Var, i64> = target
        .schedule
        .symbolic_sizes()
        .into_iter()
        .map(|v| (v, 7))
        .collect();
    let report = te::check(&target.schedule, &target.args, &sizes, 0).unwrap();
    assert!(report.is_clean(1e-5), "{report:?}");
}

/// A reduction loop fused with a data loop and bound to threads would
/// combine the parts of different elements: refused, as is a reduction
/// bound to blocks.
#[test]
fn threads_combining_parts_of_different_elements_are_refused() {
    let (_, _, message) = error_of(
        "A = te.placeholder((6, 6), name=\"A\")
k = te.reduce_axis((0, 6), name=\"k\")
R = te.compute((6,), lambda i: te.sum(A[i, k], axis=k), name=\"R\")
s = te.create_schedule(R.op)
f = s[R].fuse(R.op.axis[0], k)
xo, xi = s[R].split(f, nparts=1)
s[R].bind(xi, te.thread_axis(\"threadIdx.x\"))
tvm.lower(s, [A, R], simple_mode=True)
",
    );
    assert!(
        message.contains("runs data axes fused with its reduction"),
        "{message}"
    );
    let (_, _, message) = error_of(
        "A = te.placeholder((6, 8), name=\"A\")
k = te.reduce_axis((0, 8), name=\"k\")
R = te.compute((6,), lambda i: te.sum(A[i, k], axis=k), name=\"R\")
s = te.create_schedule(R.op)
ko, ki = s[R].split(k, factor=4)
s[R].bind(ko, te.thread_axis(\"blockIdx.x\"))
s[R].bind(ki, te.thread_axis(\"threadIdx.x\"))
tvm.lower(s, [A, R], simple_mode=True)
",
    );
    assert!(message.contains("not of blocks"), "{message}");
}

#[test]
fn fuse_of_no_axes_adds_a_singleton_loop_and_the_schedule_record_lists_each_primitive() {
    let r = script::run(
        r#"
import tvm
from tvm import te

A = te.placeholder((), name="A")
T = te.compute((), lambda: A() + 1.0, name="T")
s = te.create_schedule(T.op)
fused = s[T].fuse()
print(any(isinstance(x, tvm.te.schedule.Singleton) for x in s[T].relations))
print(tuple(s[T].leaf_iter_vars) == (fused,), fused.var.name, fused.dom.extent)

with tvm.transform.PassContext(config={"te.keep_schedule_record": True}):
    B = te.placeholder((64, 64), name="B")
    C = te.compute((64, 64), lambda i, j: B[i, j] * 2.0, name="C")
    s2 = te.create_schedule(C.op)
    xo, yo, xi, yi = s2[C].tile(C.op.axis[0], C.op.axis[1], 8, 8)
    f = s2[C].fuse(xo, yo)
    s2[C].parallel(f)
    print(s2.primitive_record, len(s2.schedule_record))
    print(len(s2.schedule_record[3][C].leaf_iter_vars))
print(len(te.create_schedule(C.op).schedule_record))
"#,
    )
    .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        r.printed,
        "True\nTrue singleton 1\n\
         ['vanilla', 'split', 'split', 'reorder', 'fuse', 'fuse', 'parallel'] 7\n4\n0\n"
    );
}

/// `te.schedule.ScheduleOps` gives TVM's statements before storage
/// flattening (every computed tensor realized, the output too, each realize
/// and store naming its producer), and a scan's body is a group computed at
/// the scan's update (`programs/producers_and_scan_groups.py`, which both
/// front ends run).
#[test]
fn schedule_ops_names_producers_and_a_scan_body_is_a_group() {
    let printed = common::run_checked(
        include_str!("programs/producers_and_scan_groups.py"),
        7,
        2,
        0.0,
    );
    let head: Vec<&str> = printed.lines().take(11).collect();
    assert_eq!(
        head,
        [
            "True R True",
            "store PQ.v0",
            "store PQ.v1",
            "store R",
            "realize PQ.v1 min(h - i.outer * 4, 4)",
            "realize PQ.v0 min(h - i.outer * 4, 4)",
            "realize R.v0 h",
            "True True True True",
            "True True True",
            "True",
            "refused outside the group",
        ]
    );
    // step1 inside step2 inside step3's loop, all inside the scan's step.
    let step = printed.find("for (scan.idx").expect("the scan's loop");
    let (p2, p1) = (
        printed.find("produce step2").expect("step2"),
        printed.find("produce step1").expect("step1"),
    );
    assert!(step < p2 && p2 < p1, "{printed}");
}
