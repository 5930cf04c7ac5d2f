//! Tensor compute operations: `te.compute` whose lambda calls a tensor
//! intrinsic on regions of its inputs. Bounds reach producers through the
//! regions passed, the nest calls the intrinsic at every point of the
//! schedulable and reduction loops, and `check` runs the calls (the
//! intrinsic's own computation) against the definition.
#![allow(clippy::cloned_ref_to_slice_refs)]

use arith::{Expr, Range, Var};
use te::{
    check, compute_named, create_schedule, decl_tensor_intrin, infer_bound, lower, placeholder,
    reduce_axis, sum, tensor_compute_of, try_compute_or_intrinsic, Attrs, ComputeBody, IntrinCall,
    IntrinCalls, IterVar, TeError, Tensor, TensorIntrin,
};
use tir::DataType;

mod common;
use common::intrin_vadd;

fn calls(body: Option<&str>, reset: Option<&str>, update: Option<&str>) -> IntrinCalls {
    IntrinCalls::named(body, reset, update)
}

/// `c[i, j] = sum(a[i, k] * w[j, k])`, all `b x b`.
fn intrin_block_gemm(b: i64, c: IntrinCalls) -> TensorIntrin {
    let a = placeholder([b, b], "a", DataType::Float32).unwrap();
    let w = placeholder([b, b], "w", DataType::Float32).unwrap();
    let k = reduce_axis((0, b), "k");
    let out = compute_named(
        [b, b],
        &["i", "j"],
        |i| {
            sum(
                a.at([i[0].clone(), k.expr()]) * w.at([i[1].clone(), k.expr()]),
                &[k.clone()],
            )
        },
        "c",
    )
    .unwrap();
    decl_tensor_intrin(out.op(), "gemm", c).unwrap()
}

/// The region `[e, 1)` of one index.
fn point(e: Expr) -> Range {
    Range::new(e, Expr::int(1))
}

fn whole(n: i64) -> Range {
    Range::from_extent(Expr::int(n))
}

/// `te.compute(shape, lambda <names>: call)`, named `C`, whose lambda
/// returns the intrinsic call `call` builds from the axes.
fn intrinsic_compute(
    shape: &[i64],
    names: &[&str],
    call: impl FnOnce(&[Expr]) -> Result<IntrinCall, TeError>,
) -> Result<Tensor, TeError> {
    let shape = shape.iter().map(|&d| Expr::int(d)).collect();
    let mut out = try_compute_or_intrinsic(
        shape,
        names,
        |i| Ok::<_, TeError>(ComputeBody::Intrinsic(call(i)?)),
        "C",
        "",
        Attrs::new(),
    )?;
    Ok(out.remove(0))
}

/// `C[i, 0:n] = vadd(A[i, 0:n], B[i, 0:n])` over `rows` rows.
fn vadd_rows(a: &Tensor, b: &Tensor, rows: i64, n: i64) -> Tensor {
    let intrin = intrin_vadd(n);
    intrinsic_compute(&[rows, n], &["i"], |i| {
        let row = |t: &Tensor| (t.clone(), vec![point(i[0].clone()), whole(n)]);
        IntrinCall::new(&intrin, vec![row(a), row(b)], vec![], vec![])
    })
    .unwrap()
}

#[test]
fn each_row_is_one_call_on_its_regions() {
    let a = placeholder([8, 16], "A", DataType::Float32).unwrap();
    let b = placeholder([8, 16], "B", DataType::Float32).unwrap();
    let c = vadd_rows(&a, &b, 8, 16);
    let tc = tensor_compute_of(c.op()).unwrap();
    assert_eq!(tc.schedulable_ndim, 1);
    assert_eq!(tc.equivalent[0].to_string(), "A[i, ax0] + B[i, ax0]");
    let s = create_schedule(&[c.clone()]);
    // The intrinsic's axis is no loop of the stage.
    let leaves: Vec<&str> = s
        .stage(&c)
        .unwrap()
        .leaf_iter_vars()
        .iter()
        .map(IterVar::name)
        .collect();
    assert_eq!(leaves, ["i"]);
    let f = lower(&s, &[a.clone(), b.clone(), c.clone()]).unwrap();
    assert_eq!(
        f.body.to_string(),
        "produce C {\n  for (i, 0, 8) {\n    vadd(A([i, 1], [0, 16]), B([i, 1], [0, 16]), C([i, 1], [0, 16]))\n  }\n}\n"
    );
    let report = check(&s, &[a, b, c], &Default::default(), 3).unwrap();
    assert_eq!(report.compared, 128);
    assert_eq!(report.max_abs_error, 0.0);
    assert_eq!(report.out_of_bounds, 0);
}

#[test]
fn producers_compute_the_regions_passed() {
    // `P` is computed per row of `C`: only the row the call reads.
    let a = placeholder([8, 16], "A", DataType::Float32).unwrap();
    let b = placeholder([8, 16], "B", DataType::Float32).unwrap();
    let p = compute_named([8, 16], &["pi", "pj"], |i| a.at([&i[0], &i[1]]) * 2.0, "P").unwrap();
    let c = vadd_rows(&p, &b, 8, 16);
    let mut s = create_schedule(&[c.clone()]);
    let i = c.op().axis()[0].clone();
    s.compute_at(&p, &c, &i).unwrap();
    let bounds = infer_bound(&s).unwrap();
    let pa = p.op().axis();
    assert_eq!(bounds.range(&pa[0]).unwrap().to_string(), "[i, i + 1)");
    assert_eq!(bounds.range(&pa[1]).unwrap().to_string(), "[0, 16)");
    let report = check(&s, &[a, b, c], &Default::default(), 5).unwrap();
    assert_eq!(report.max_abs_error, 0.0);
    assert_eq!(report.out_of_bounds, 0);
    assert_eq!(report.stages[0].needed, 128);
}

#[test]
fn a_reduction_outside_the_calls_resets_then_updates() {
    // Blocked GEMM: C[i, j] += A[i, k] . W[j, k] over blocks k.
    let (tb, ob, kb, blk) = (2, 3, 4, 4);
    let a = placeholder([tb, kb, blk, blk], "A", DataType::Float32).unwrap();
    let w = placeholder([ob, kb, blk, blk], "W", DataType::Float32).unwrap();
    let ko = reduce_axis((0, kb), "ko");
    for c in [
        calls(Some("gemm"), Some("gemm_reset"), Some("gemm_update")),
        calls(Some("gemm"), None, Some("gemm_update")),
    ] {
        let with_reset = c.reset.is_some();
        let intrin = intrin_block_gemm(blk, c);
        let out = intrinsic_compute(&[tb, ob, blk, blk], &["i", "j"], |i| {
            let block = |t: &Tensor, x: &Expr| {
                let region = vec![point(x.clone()), point(ko.expr()), whole(blk), whole(blk)];
                (t.clone(), region)
            };
            IntrinCall::new(
                &intrin,
                vec![block(&a, &i[0]), block(&w, &i[1])],
                vec![ko.clone()],
                vec![],
            )
        })
        .unwrap();
        let s = create_schedule(&[out.clone()]);
        let text = lower(&s, &[a.clone(), w.clone(), out.clone()])
            .unwrap()
            .body
            .to_string();
        if with_reset {
            assert!(
                text.contains("gemm_reset(C([i, 1], [j, 1], [0, 4], [0, 4]))"),
                "{text}"
            );
        } else {
            assert!(text.contains("if ((ko == 0))"), "{text}");
        }
        assert!(text.contains("for (ko, 0, 4)"), "{text}");
        let report = check(&s, &[a.clone(), w.clone(), out], &Default::default(), 7).unwrap();
        assert!(report.max_rel_error < 1e-5, "{}", report.max_rel_error);
        assert_eq!(report.out_of_bounds, 0);
    }
}

#[test]
fn symbolic_sizes_take_the_extents_of_their_regions() {
    // The intrinsic sums the rows of `a: (m1, n1)`; the call passes
    // `B[i:i + 2, 0:6]`, so `m1 = 2` and `n1 = 6`.
    let (m1, n1) = (Var::new("m1"), Var::new("n1"));
    let x = placeholder([m1.expr(), n1.expr()], "x", DataType::Float32).unwrap();
    let r = reduce_axis((Expr::int(0), m1.expr()), "r");
    let z = compute_named(
        [n1.expr()],
        &["j"],
        |j| sum(x.at([r.expr(), j[0].clone()]), &[r.clone()]),
        "z",
    )
    .unwrap();
    let intrin = decl_tensor_intrin(z.op(), "colsum", calls(Some("colsum"), None, None)).unwrap();
    let b = placeholder([9, 6], "B", DataType::Float32).unwrap();
    let c = intrinsic_compute(&[8, 6], &["i"], |i| {
        let rows = Range::new(i[0].clone(), Expr::int(2));
        IntrinCall::new(
            &intrin,
            vec![(b.clone(), vec![rows, whole(6)])],
            vec![],
            vec![],
        )
    })
    .unwrap();
    let tc = tensor_compute_of(c.op()).unwrap();
    assert_eq!(tc.binding[&m1].to_string(), "2");
    assert_eq!(tc.binding[&n1].to_string(), "6");
    let s = create_schedule(&[c.clone()]);
    let report = check(&s, &[b, c], &Default::default(), 11).unwrap();
    assert_eq!(report.max_abs_error, 0.0);
    assert_eq!(report.out_of_bounds, 0);
}

#[test]
fn calls_that_do_not_fit_the_intrinsic_are_refused() {
    let a = placeholder([8, 16], "A", DataType::Float32).unwrap();
    let intrin = intrin_vadd(16);
    // Too few regions.
    let e = IntrinCall::new(
        &intrin,
        vec![(a.clone(), vec![point(Expr::int(0)), whole(16)])],
        vec![],
        vec![],
    )
    .unwrap_err();
    assert!(
        e.message.contains("takes 2 tensor regions"),
        "{}",
        e.message
    );
    // A region of the wrong extent.
    let half = vec![point(Expr::int(0)), Range::from_extent(Expr::int(8))];
    let call = IntrinCall::new(
        &intrin,
        vec![(a.clone(), half.clone()), (a.clone(), half)],
        vec![],
        vec![],
    )
    .unwrap();
    let e = intrinsic_compute(&[8, 16], &["i"], |_| Ok(call)).unwrap_err();
    assert!(
        e.message
            .contains("has extent 8 where the intrinsic `vadd` takes 16"),
        "{}",
        e.message
    );
    // A reduction axis for an intrinsic that reduces nothing.
    let k = reduce_axis((0, 4), "k");
    let row = vec![point(Expr::int(0)), whole(16)];
    let call = IntrinCall::new(
        &intrin,
        vec![(a.clone(), row.clone()), (a.clone(), row)],
        vec![k],
        vec![],
    )
    .unwrap();
    let e = intrinsic_compute(&[8, 16], &["i"], |_| Ok(call)).unwrap_err();
    assert!(e.message.contains("computes no reduction"), "{}", e.message);
}

#[test]
fn an_inlined_input_of_a_call_is_refused() {
    let a = placeholder([8, 16], "A", DataType::Float32).unwrap();
    let b = placeholder([8, 16], "B", DataType::Float32).unwrap();
    let p = compute_named([8, 16], &["pi", "pj"], |i| a.at([&i[0], &i[1]]) * 2.0, "P").unwrap();
    let c = vadd_rows(&p, &b, 8, 16);
    let mut s = create_schedule(&[c.clone()]);
    s.compute_inline(&p).unwrap();
    let e = lower(&s, &[a, b, c]).unwrap_err();
    assert!(
        e.message.contains("passes it to a tensor intrinsic"),
        "{}",
        e.message
    );
}

#[test]
fn cache_read_and_cache_write_move_the_calls() {
    let a = placeholder([8, 16], "A", DataType::Float32).unwrap();
    let b = placeholder([8, 16], "B", DataType::Float32).unwrap();
    let c = vadd_rows(&a, &b, 8, 16);
    let mut s = create_schedule(&[c.clone()]);
    let al = s.cache_read(&a, "local", &[c.op().clone()]).unwrap();
    let cl = s.cache_write(&c, "local").unwrap();
    assert_eq!(cl.name(), "C.local");
    let tc = tensor_compute_of(cl.op()).unwrap();
    assert_eq!(tc.axis[0].name(), "i.c");
    assert_eq!(tc.inputs[0], al);
    let text = lower(&s, &[a.clone(), b.clone(), c.clone()])
        .unwrap()
        .body
        .to_string();
    assert!(
        text.contains(
            "vadd(A.local([i.c, 1], [0, 16]), B([i.c, 1], [0, 16]), C.local([i.c, 1], [0, 16]))"
        ),
        "{text}"
    );
    let report = check(&s, &[a, b, c], &Default::default(), 13).unwrap();
    assert_eq!(report.max_abs_error, 0.0);
    assert_eq!(report.out_of_bounds, 0);
}

#[test]
fn an_intrinsic_that_reads_beyond_its_region_is_an_error_of_the_definition() {
    // TVM's `test_bound_tensor_compute_op` in small: the intrinsic sums
    // three rows of `x: (m1, n1)`, called on `B[i:4, 0:6]`, which has
    // fewer rows from `i = 2`.
    let (m1, n1) = (Var::new("m1"), Var::new("n1"));
    let x = placeholder([m1.expr(), n1.expr()], "x", DataType::Float32).unwrap();
    let z = compute_named(
        [n1.expr()],
        &["j"],
        |j| {
            x.at([Expr::int(0), j[0].clone()])
                + x.at([Expr::int(1), j[0].clone()])
                + x.at([Expr::int(2), j[0].clone()])
        },
        "z",
    )
    .unwrap();
    let intrin = decl_tensor_intrin(z.op(), "rows3", calls(Some("rows3"), None, None)).unwrap();
    let b = placeholder([4, 6], "B", DataType::Float32).unwrap();
    let c = intrinsic_compute(&[4, 6], &["i"], |i| {
        let rows = Range::new(i[0].clone(), Expr::sub(Expr::int(4), i[0].clone()));
        IntrinCall::new(
            &intrin,
            vec![(b.clone(), vec![rows, whole(6)])],
            vec![],
            vec![],
        )
    })
    .unwrap();
    // InferBound follows the regions passed, as TVM does: rows 0..3.
    let s = create_schedule(&[c.clone()]);
    let e = check(&s, &[b, c], &Default::default(), 1).unwrap_err();
    assert!(
        e.message
            .contains("calls the intrinsic `rows3` with B[2:4, 0:6]")
            && e.message.contains("reads `B` at [4, 0], outside it"),
        "{}",
        e.message
    );
}
