//! Loop annotations (`parallel`, `vectorize`, `unroll`, `pragma`), thread
//! launches and the values TVM prints (reduction identities,
//! `if_then_else`): the printed program in TVM's notation, and the program
//! still computing what the definitions say (`te::check`).
// `&[t.clone()]` mirrors TVM's `create_schedule([t])`.
#![allow(clippy::cloned_ref_to_slice_refs)]

use te::{
    compute_named, create_schedule, lower, placeholder, reduce_axis, IterVar, Schedule, Tensor,
    Value,
};
use tir::{DataType, PragmaValue};

fn clean(s: &Schedule, args: &[Tensor]) -> te::CheckReport {
    let r = te::check(s, args, &Default::default(), 7).unwrap();
    assert!(r.is_clean(0.0), "{r:?}");
    r
}

/// `B[i, j] = A[i, j] * 2` over 8 x 10.
fn scaled() -> (Tensor, Tensor) {
    let a = placeholder([8, 10], "A", DataType::Float32).unwrap();
    let b = compute_named([8, 10], &["i", "j"], |i| a.at([&i[0], &i[1]]) * 2.0, "B").unwrap();
    (a, b)
}

#[test]
fn annotated_loops_print_their_kind_and_pragmas_and_run_unchanged() {
    let (a, b) = scaled();
    let mut s = create_schedule(&[b.clone()]);
    let (i, j) = (b.op().axis()[0].clone(), b.op().axis()[1].clone());
    let (jo, ji) = s.split(&b, &j, 4).unwrap();
    s.parallel(&b, &i).unwrap();
    s.unroll(&b, &jo).unwrap();
    s.vectorize(&b, &ji).unwrap();
    s.pragma(&b, &i, "auto_unroll_max_step", Some(PragmaValue::Int(16)))
        .unwrap();
    s.pragma(&b, &jo, "debug_skip_region", None).unwrap();
    let text = lower(&s, &[a.clone(), b.clone()]).unwrap().to_string();
    assert_eq!(
        text,
        "\
produce B {
  // attr [iter_var(i, range(min=0, ext=8))] pragma_auto_unroll_max_step = 16
  parallel (i, 0, 8) {
    // attr [iter_var(j.outer, )] pragma_debug_skip_region = 1
    unrolled (j.outer, 0, 3) {
      vectorized (j.inner, 0, min((10 - (j.outer*4)), 4)) {
        B[i, ((j.outer*4) + j.inner)] = (A[i, ((j.outer*4) + j.inner)]*2.000000f)
      }
    }
  }
}
"
    );
    let r = clean(&s, &[a, b]);
    assert_eq!(r.stage("B").unwrap().runs, 80);
}

#[test]
fn the_last_kind_given_wins_and_pragma_unroll_is_unroll() {
    let (a, b) = scaled();
    let mut s = create_schedule(&[b.clone()]);
    let i = b.op().axis()[0].clone();
    s.vectorize(&b, &i).unwrap();
    s.parallel(&b, &i).unwrap();
    let j = b.op().axis()[1].clone();
    s.pragma(&b, &j, "unroll", None).unwrap();
    let text = lower(&s, &[a, b]).unwrap().to_string();
    assert!(text.contains("parallel (i, 0, 8) {\n"), "{text}");
    assert!(text.contains("unrolled (j, 0, 10) {\n"), "{text}");
    assert!(!text.contains("pragma"), "{text}");
}

#[test]
fn annotations_are_checked_like_other_primitives() {
    let a = placeholder([8, 8], "A", DataType::Float32).unwrap();
    let k = reduce_axis((0, 8), "k");
    let b = compute_named(
        [8],
        &["i"],
        |i| te::sum(a.at([i[0].clone(), k.expr()]), &[k.clone()]),
        "B",
    )
    .unwrap();
    let mut s = create_schedule(&[b.clone()]);
    let err = s.vectorize(&b, &k).unwrap_err();
    assert!(err.message.contains("reduction loop"), "{}", err.message);
    // An axis that was split is no loop any more.
    let i = b.op().axis()[0].clone();
    s.split(&b, &i, 2).unwrap();
    let err = s.parallel(&b, &i).unwrap_err();
    assert!(err.message.contains("is not a loop"), "{}", err.message);
    assert!(s.unroll(&a, &k).is_err());
    assert!(s.pragma(&b, &k, "", None).is_err());
    // A reduction loop may be unrolled or parallelised.
    s.unroll(&b, &k).unwrap();
    let text = lower(&s, &[a.clone(), b.clone()]).unwrap().to_string();
    assert!(text.contains("unrolled (k, 0, 8) {"), "{text}");
    clean(&s, &[a, b]);
}

/// `B = A * 2` over `n` elements, split by 64 and bound to blocks and
/// threads.
fn launched(n: i64) -> (Schedule, Tensor, Tensor) {
    let a = placeholder([n], "A", DataType::Float32).unwrap();
    let b = compute_named([n], &["i"], |i| a.at([&i[0]]) * 2.0, "B").unwrap();
    let mut s = create_schedule(&[b.clone()]);
    let (bx, tx) = s.split(&b, &b.op().axis()[0], 64).unwrap();
    s.bind(&b, &bx, &IterVar::thread_axis("blockIdx.x").unwrap())
        .unwrap();
    s.bind(&b, &tx, &IterVar::thread_axis("threadIdx.x").unwrap())
        .unwrap();
    (s, a, b)
}

#[test]
fn bound_loops_print_thread_extents_and_a_likely_guard_for_a_split_tail() {
    let (s, a, b) = launched(1000);
    let text = lower(&s, &[a.clone(), b.clone()]).unwrap().to_string();
    assert_eq!(
        text,
        "\
produce B {
  // attr [iter_var(blockIdx.x, , blockIdx.x)] thread_extent = 16
  // attr [iter_var(threadIdx.x, , threadIdx.x)] thread_extent = 64
  if (likely((((blockIdx.x*64) + threadIdx.x) < 1000))) {
    B[((blockIdx.x*64) + threadIdx.x)] = (A[((blockIdx.x*64) + threadIdx.x)]*2.000000f)
  }
}
"
    );
    // The thread loops run over their whole extent; the guard keeps the
    // 24 threads past the end from storing.
    let r = clean(&s, &[a, b]);
    assert_eq!(r.stage("B").unwrap().runs, 1000);
}

/// A thread index launches its whole split factor, as in TVM, even where
/// the axis has fewer iterations than the factor: 3 rows split by 4 launch
/// 4 threads, the fourth guarded off (a stage computed inside could bind
/// the same index over all 4).
#[test]
fn a_thread_index_launches_its_whole_factor_when_the_axis_is_shorter() {
    let a = placeholder([3, 64], "A", DataType::Float32).unwrap();
    let b = compute_named([3, 64], &["i", "j"], |i| a.at([&i[0], &i[1]]) * 2.0, "B").unwrap();
    let mut s = create_schedule(&[b.clone()]);
    let (io, ii) = s.split(&b, &b.op().axis()[0], 4).unwrap();
    let (_, ji) = s.split(&b, &b.op().axis()[1], 32).unwrap();
    for (iv, tag) in [
        (&io, "blockIdx.x"),
        (&ii, "threadIdx.y"),
        (&ji, "threadIdx.x"),
    ] {
        s.bind(&b, iv, &IterVar::thread_axis(tag).unwrap()).unwrap();
    }
    let text = lower(&s, &[a.clone(), b.clone()]).unwrap().to_string();
    assert_eq!(
        text,
        "\
produce B {
  // attr [iter_var(blockIdx.x, , blockIdx.x)] thread_extent = 1
  // attr [iter_var(threadIdx.y, , threadIdx.y)] thread_extent = 4
  if (likely((threadIdx.y < 3))) {
    for (j.outer, 0, 2) {
      // attr [iter_var(threadIdx.x, , threadIdx.x)] thread_extent = 32
      B[threadIdx.y, ((j.outer*32) + threadIdx.x)] = (A[threadIdx.y, ((j.outer*32) + threadIdx.x)]*2.000000f)
    }
  }
}
"
    );
    let r = clean(&s, &[a, b]);
    assert_eq!(r.stage("B").unwrap().runs, 192);
}

#[test]
fn a_dividing_split_bound_to_threads_needs_no_guard() {
    let (s, a, b) = launched(1024);
    let text = lower(&s, &[a.clone(), b.clone()]).unwrap().to_string();
    assert!(!text.contains("if ("), "{text}");
    assert!(text.contains("thread_extent = 16\n"), "{text}");
    clean(&s, &[a, b]);
}

#[test]
fn a_loop_bound_to_the_thread_of_an_enclosing_loop_reads_its_index() {
    let a = placeholder([64], "A", DataType::Float32).unwrap();
    let b = compute_named([64], &["bi"], |i| a.at([&i[0]]) + 1.0, "B").unwrap();
    let c = compute_named([64], &["ci"], |i| b.at([&i[0]]) * 2.0, "C").unwrap();
    let mut s = create_schedule(&[c.clone()]);
    let thread_x = IterVar::thread_axis("threadIdx.x").unwrap();
    let (bx, tx) = s.split(&c, &c.op().axis()[0], 16).unwrap();
    s.bind(&c, &bx, &IterVar::thread_axis("blockIdx.x").unwrap())
        .unwrap();
    s.bind(&c, &tx, &thread_x).unwrap();
    s.set_scope(&b, "shared").unwrap();
    s.compute_at(&b, &c, &bx).unwrap();
    s.bind(&b, &b.op().axis()[0], &thread_x).unwrap();
    let text = lower(&s, &[a.clone(), c.clone()]).unwrap().to_string();
    assert!(
        text.contains("B[threadIdx.x] = (A[((blockIdx.x*16) + threadIdx.x)] + 1.000000f)"),
        "{text}"
    );
    clean(&s, &[a, c]);
}

/// `R[i] = reduce(A[i, k])` with `reducer` over 4 x 6.
fn reduction(reducer: fn(Value, &[IterVar]) -> Value) -> (Tensor, Tensor) {
    let a = placeholder([4, 6], "A", DataType::Float32).unwrap();
    let k = reduce_axis((0, 6), "k");
    let r = compute_named(
        [4],
        &["i"],
        |i| reducer(a.at([i[0].clone(), k.expr()]), &[k.clone()]),
        "R",
    )
    .unwrap();
    (a, r)
}

#[test]
fn max_and_min_reductions_start_at_the_lowest_and_highest_float32() {
    for (reducer, init) in [
        (te::max as fn(Value, &[IterVar]) -> Value, "-3.40282e+38f"),
        (te::min, "3.40282e+38f"),
    ] {
        let (a, r) = reduction(reducer);
        let s = create_schedule(&[r.clone()]);
        let text = lower(&s, &[a.clone(), r.clone()]).unwrap().to_string();
        assert!(text.contains(&format!("    R[i] = {init}\n")), "{text}");
        clean(&s, &[a, r]);
    }
}

#[test]
fn if_then_else_prints_as_tvm_prints_it() {
    let a = placeholder([6], "A", DataType::Float32).unwrap();
    let b = compute_named(
        [8],
        &["i"],
        |i| {
            let inside = arith::Expr::lt(i[0].clone(), arith::Expr::int(6));
            let at = arith::Expr::min(i[0].clone(), arith::Expr::int(5));
            Value::select(inside, a.at([at]), Value::float(0.0))
        },
        "B",
    )
    .unwrap();
    let s = create_schedule(&[b.clone()]);
    let text = lower(&s, &[a.clone(), b.clone()]).unwrap().to_string();
    assert!(
        text.contains("B[i] = if_then_else((i <= 5), A[min(i, 5)], 0.000000f)"),
        "{text}"
    );
    assert!(!text.contains("select("), "{text}");
    clean(&s, &[a, b]);
}

/// `C = B * 2` with `B = A + 1` computed at a loop of `C`, over
/// `rows x cols`; `C`'s axes split by `f0` and `f1`.
fn two_stages(rows: i64, cols: i64, f0: i64, f1: i64) -> (Schedule, Vec<Tensor>, Tensor) {
    let a = placeholder([rows, cols], "A", DataType::Float32).unwrap();
    let b = compute_named(
        [rows, cols],
        &["bi", "bj"],
        |i| a.at([&i[0], &i[1]]) + 1.0,
        "B",
    )
    .unwrap();
    let c = compute_named(
        [rows, cols],
        &["ci", "cj"],
        |i| b.at([&i[0], &i[1]]) * 2.0,
        "C",
    )
    .unwrap();
    let mut s = create_schedule(&[c.clone()]);
    s.split(&c, &c.op().axis()[0], f0).unwrap();
    s.split(&c, &c.op().axis()[1], f1).unwrap();
    (s, vec![a, c.clone()], b)
}

/// The legacy text with loop kinds and pragmas taken out.
fn serial_text(text: &str) -> String {
    text.lines()
        .filter(|l| !l.trim_start().starts_with("// attr [iter_var("))
        .map(|l| {
            let t = l.trim_start();
            let pad = &l[..l.len() - t.len()];
            for word in ["parallel (", "vectorized (", "unrolled ("] {
                if let Some(rest) = t.strip_prefix(word) {
                    return format!("{pad}for ({rest}\n");
                }
            }
            format!("{l}\n")
        })
        .collect()
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig { cases: 64, ..Default::default() })]
    /// Annotations never change the program: the annotated program is the
    /// plain one with other loop words, and runs clean.
    #[test]
    fn annotations_leave_the_loops_as_they_were(
        rows in 2i64..9, cols in 2i64..9, f0 in 1i64..5, f1 in 1i64..5,
        attach in 0usize..4, marks in proptest::collection::vec((0usize..4, 0u8..5), 0..5),
    ) {
        let (plain, args, b) = two_stages(rows, cols, f0, f1);
        let c = args[1].clone();
        let mut s = plain.clone();
        let leaves = s.stage(&c).unwrap().leaf_iter_vars().to_vec();
        let mut annotated = plain.clone();
        annotated.compute_at(&b, &c, &leaves[attach]).unwrap();
        s.compute_at(&b, &c, &leaves[attach]).unwrap();
        for (pick, how) in marks {
            let iv = &leaves[pick];
            match how {
                0 => annotated.parallel(&c, iv).unwrap(),
                1 => annotated.vectorize(&c, iv).unwrap(),
                2 => annotated.unroll(&c, iv).unwrap(),
                3 => annotated.pragma(&c, iv, "auto_unroll_max_step", Some(PragmaValue::Int(8))).unwrap(),
                _ => annotated.pragma(&c, iv, "import_c", Some(PragmaValue::Str("x".into()))).unwrap(),
            }
        }
        let want = lower(&s, &args).unwrap().to_string();
        let got = lower(&annotated, &args).unwrap().to_string();
        proptest::prop_assert_eq!(serial_text(&got), want);
        te::Lowering::new(&annotated, &args).unwrap().tvmscript().unwrap();
        clean(&annotated, &args);
    }

    /// Loops bound to blocks and threads, with split tails guarded rather
    /// than cut: the program still computes each element once and stays in
    /// bounds, whatever the sizes, factors, scope and attach point.
    #[test]
    fn thread_launches_compute_every_element_once(
        rows in 2i64..9, cols in 2i64..9, f0 in 1i64..5, f1 in 1i64..5,
        attach in 0usize..4, scope in 0usize..3, bind_inner in proptest::bool::ANY,
    ) {
        let (mut s, args, b) = two_stages(rows, cols, f0, f1);
        let c = args[1].clone();
        let leaves = s.stage(&c).unwrap().leaf_iter_vars().to_vec();
        s.bind(&c, &leaves[0], &IterVar::thread_axis("blockIdx.x").unwrap()).unwrap();
        s.bind(&c, &leaves[1], &IterVar::thread_axis("threadIdx.x").unwrap()).unwrap();
        if bind_inner {
            s.bind(&c, &leaves[3], &IterVar::thread_axis("threadIdx.y").unwrap()).unwrap();
        }
        s.compute_at(&b, &c, &leaves[attach]).unwrap();
        s.set_scope(&b, ["global", "shared", "local"][scope]).unwrap();
        let text = lower(&s, &args).unwrap().to_string();
        proptest::prop_assert!(text.contains("thread_extent = "), "{}", text);
        proptest::prop_assert!(!text.contains("for (ci.inner"), "{}", text);
        te::Lowering::new(&s, &args).unwrap().tvmscript().unwrap();
        let r = clean(&s, &args);
        proptest::prop_assert_eq!(r.stage("C").unwrap().runs, (rows * cols) as u64);
    }
}

#[test]
fn tvmscript_of_annotated_loops_and_thread_launches() {
    let (a, b) = scaled();
    let mut s = create_schedule(&[b.clone()]);
    let (i, j) = (b.op().axis()[0].clone(), b.op().axis()[1].clone());
    let (jo, ji) = s.split(&b, &j, 4).unwrap();
    s.parallel(&b, &i).unwrap();
    s.unroll(&b, &jo).unwrap();
    s.vectorize(&b, &ji).unwrap();
    s.pragma(&b, &i, "auto_unroll_max_step", Some(PragmaValue::Int(16)))
        .unwrap();
    let text = te::Lowering::new(&s, &[a, b]).unwrap().tvmscript().unwrap();
    let header = "\
# from tvm.script import ir as I
# from tvm.script import tir as T

@I.ir_module
class Module:
    @T.prim_func
";
    assert_eq!(
        text,
        format!(
            "{header}    def main(A: T.Buffer((8, 10), \"float32\"), B: T.Buffer((8, 10), \"float32\")):
        T.func_attr({{\"from_legacy_te_schedule\": T.bool(True), \"tir.noalias\": T.bool(True)}})
        T.attr(T.iter_var(i, T.Range(0, 8), \"DataPar\", \"\"), \"pragma_auto_unroll_max_step\", 16)
        for i in T.parallel(8):
            for j_outer in T.unroll(3):
                for j_inner in T.vectorized(T.min(10 - j_outer * 4, 4)):
                    B_1 = T.Buffer((80,), data=B.data)
                    A_1 = T.Buffer((80,), data=A.data)
                    B_1[i * 10 + j_outer * 4 + j_inner] = A_1[i * 10 + j_outer * 4 + j_inner] * T.float32(2.0)
"
        )
    );
    let (s, a, b) = launched(1000);
    let text = te::Lowering::new(&s, &[a, b]).unwrap().tvmscript().unwrap();
    assert_eq!(
        text,
        format!(
            "{header}    def main(A: T.Buffer((1000,), \"float32\"), B: T.Buffer((1000,), \"float32\")):
        T.func_attr({{\"from_legacy_te_schedule\": T.bool(True), \"tir.noalias\": T.bool(True)}})
        blockIdx_x = T.launch_thread(\"blockIdx.x\", 16)
        threadIdx_x = T.launch_thread(\"threadIdx.x\", 64)
        if T.likely(blockIdx_x * 64 + threadIdx_x < 1000):
            B_1 = T.Buffer((1000,), data=B.data)
            A_1 = T.Buffer((1000,), data=A.data)
            B_1[blockIdx_x * 64 + threadIdx_x] = A_1[blockIdx_x * 64 + threadIdx_x] * T.float32(2.0)
"
        )
    );
}

#[test]
fn storage_layout_requests_are_printed_and_change_no_value() {
    // `C` reads `B`, staged per row of `C`, padded and double-buffered.
    let (a, b) = scaled();
    let c = compute_named([8, 10], &["x", "y"], |i| b.at([&i[0], &i[1]]) + 1.0, "C").unwrap();
    let mut s = create_schedule(&[c.clone()]);
    let x = c.op().axis()[0].clone();
    s.compute_at(&b, &c, &x).unwrap();
    let bj = b.op().axis()[1].clone();
    s.storage_align(&b, &bj, 16, 1).unwrap();
    s.double_buffer(&b).unwrap();
    let text = lower(&s, &[a.clone(), c.clone()]).unwrap().body.to_string();
    assert!(
        text.contains(
            "// attr [B] double_buffer_scope = 1\n    // attr [B] buffer_dim_align = tvm_tuple(1, 16, 1)\n    allocate B[float32 * 1 * 10]"
        ),
        "{text}"
    );
    clean(&s, &[a, c.clone()]);
    // Only the operation's own axes can be aligned, by a positive factor.
    let e = s.storage_align(&b, &x, 16, 1).unwrap_err();
    assert!(
        e.message.contains("`x` is not one of its axes"),
        "{}",
        e.message
    );
    let e = s.storage_align(&b, &bj, 0, 1).unwrap_err();
    assert!(
        e.message.contains("factor must be positive"),
        "{}",
        e.message
    );
}
