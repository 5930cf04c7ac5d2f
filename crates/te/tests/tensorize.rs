//! Tensorize: a loop nest replaced by a call of a tensor intrinsic, its
//! region checked against the intrinsic's shapes and its body against the
//! intrinsic's compute; the call runs the intrinsic's own computation.
#![allow(clippy::cloned_ref_to_slice_refs)]

use arith::Expr;
use te::{
    check, compute_named, create_schedule, decl_tensor_intrin, lower, placeholder, reduce_axis,
    sum, IntrinCalls, Tensor, TensorIntrin, Value,
};
use tir::DataType;

fn at(t: &Tensor, i: &[Expr]) -> Value {
    t.at(i.iter().cloned())
}

mod common;
use common::intrin_vadd;

fn calls(body: Option<&str>, reset: Option<&str>, update: Option<&str>) -> IntrinCalls {
    IntrinCalls::named(body, reset, update)
}

/// `z[i] = sum(w[i, k] * x[k])` for `i < m`, `k < n`.
fn intrin_gemv(m: i64, n: i64, c: IntrinCalls) -> TensorIntrin {
    let w = placeholder([m, n], "w", DataType::Float32).unwrap();
    let x = placeholder([n], "x", DataType::Float32).unwrap();
    let k = reduce_axis((0, n), "k");
    let z = compute_named(
        [m],
        &["i"],
        |i| {
            sum(
                at(&w, &[i[0].clone(), k.expr()]) * at(&x, &[k.expr()]),
                &[k.clone()],
            )
        },
        "z",
    )
    .unwrap();
    decl_tensor_intrin(z.op(), "gemv", c).unwrap()
}

fn add(m: i64) -> (Tensor, Tensor, Tensor) {
    let x = placeholder([m], "x", DataType::Float32).unwrap();
    let y = placeholder([m], "y", DataType::Float32).unwrap();
    let z = compute_named([m], &["i"], |i| at(&x, i) + at(&y, i), "z").unwrap();
    (x, y, z)
}

/// `C[i, j] = sum(B[j, k] * A[i, k])`, A `[n, l]`, B `[m, l]`.
fn matmul(n: i64, m: i64, l: i64) -> (Tensor, Tensor, Tensor) {
    let a = placeholder([n, l], "A", DataType::Float32).unwrap();
    let b = placeholder([m, l], "B", DataType::Float32).unwrap();
    let k = reduce_axis((0, l), "k");
    let c = compute_named(
        [n, m],
        &["i", "j"],
        |i| {
            sum(
                at(&b, &[i[1].clone(), k.expr()]) * at(&a, &[i[0].clone(), k.expr()]),
                &[k],
            )
        },
        "C",
    )
    .unwrap();
    (a, b, c)
}

#[test]
fn a_tensorized_inner_loop_becomes_a_call_on_its_regions_and_runs_the_intrinsic() {
    let (x, y, z) = add(64);
    let mut s = create_schedule(&[z.clone()]);
    let (_, xi) = s.split(&z, &z.op().axis()[0], 16).unwrap();
    s.tensorize(&z, &xi, &intrin_vadd(16)).unwrap();
    let args = [x, y, z];
    let text = lower(&s, &args).unwrap().to_string();
    let want = "\
produce z {
  for (i.outer, 0, 4) {
    vadd(x([(i.outer*16), 16]), y([(i.outer*16), 16]), z([(i.outer*16), 16]))
  }
}
";
    assert_eq!(text, want);
    let r = check(&s, &args, &Default::default(), 1).unwrap();
    assert!(r.is_clean(0.0), "{r:?}");
    assert_eq!(r.stage("z").unwrap().runs, 64);
}

#[test]
fn tensorizing_the_whole_axis_calls_the_intrinsic_once() {
    let (x, y, z) = add(32);
    let mut s = create_schedule(&[z.clone()]);
    let axis = z.op().axis()[0].clone();
    s.tensorize(&z, &axis, &intrin_vadd(32)).unwrap();
    let args = [x, y, z];
    let text = lower(&s, &args).unwrap().to_string();
    assert_eq!(
        text,
        "produce z {\n  vadd(x([0, 32]), y([0, 32]), z([0, 32]))\n}\n"
    );
    assert!(check(&s, &args, &Default::default(), 2)
        .unwrap()
        .is_clean(0.0));
}

#[test]
fn gemv_tensorizes_a_matmul_row_block_reading_one_row_of_a() {
    let (a, b, c) = matmul(3, 8, 6);
    let mut s = create_schedule(&[c.clone()]);
    let (_, yi) = s.split(&c, &c.op().axis()[1], 4).unwrap();
    s.tensorize(&c, &yi, &intrin_gemv(4, 6, calls(Some("gemv"), None, None)))
        .unwrap();
    let args = [a, b, c];
    let text = lower(&s, &args).unwrap().to_string();
    let want = "\
produce C {
  for (i, 0, 3) {
    for (j.outer, 0, 2) {
      gemv(B([(j.outer*4), 4], [0, 6]), A([i, 1], [0, 6]), C([i, 1], [(j.outer*4), 4]))
    }
  }
}
";
    assert_eq!(text, want);
    let r = check(&s, &args, &Default::default(), 3).unwrap();
    assert!(r.is_clean(1e-6), "{r:?}");
    assert_eq!(r.stage("C").unwrap().runs, 3 * 8 * 6);
}

#[test]
fn a_split_reduction_outside_the_call_resets_then_updates() {
    let (a, b, c) = matmul(2, 8, 6);
    let mut s = create_schedule(&[c.clone()]);
    let (x, y) = (c.op().axis()[0].clone(), c.op().axis()[1].clone());
    let k = c.op().reduce_axis()[0].clone();
    let (yo, yi) = s.split(&c, &y, 4).unwrap();
    let (ro, ri) = s.split(&c, &k, 3).unwrap();
    s.reorder(&c, &[x, yo, ro, yi.clone(), ri]).unwrap();
    let with_reset = calls(Some("gemv"), Some("fill_zero"), Some("gemv_add"));
    s.tensorize(&c, &yi, &intrin_gemv(4, 3, with_reset))
        .unwrap();
    let args = [a.clone(), b.clone(), c.clone()];
    let text = lower(&s, &args).unwrap().to_string();
    let want = "\
produce C {
  for (i, 0, 2) {
    for (j.outer, 0, 2) {
      fill_zero(C([i, 1], [(j.outer*4), 4]))
      for (k.outer, 0, 2) {
        gemv_add(B([(j.outer*4), 4], [(k.outer*3), 3]), A([i, 1], [(k.outer*3), 3]), C([i, 1], [(j.outer*4), 4]))
      }
    }
  }
}
";
    assert_eq!(text, want);
    let r = check(&s, &args, &Default::default(), 4).unwrap();
    assert!(r.is_clean(1e-6), "{r:?}");
    // Without a reset the first step computes from nothing.
    let mut s2 = create_schedule(&[c.clone()]);
    let (x, y) = (c.op().axis()[0].clone(), c.op().axis()[1].clone());
    let (yo, yi) = s2.split(&c, &y, 4).unwrap();
    let (ro, ri) = s2.split(&c, &k, 3).unwrap();
    s2.reorder(&c, &[x, yo, ro, yi.clone(), ri]).unwrap();
    let no_reset = calls(Some("gemv"), None, Some("gemv_add"));
    s2.tensorize(&c, &yi, &intrin_gemv(4, 3, no_reset)).unwrap();
    let text = lower(&s2, &args).unwrap().to_string();
    assert!(
        text.contains("if ((k.outer == 0)) {\n          gemv(B("),
        "{text}"
    );
    assert!(text.contains("} else {\n          gemv_add(B("), "{text}");
    let r = check(&s2, &args, &Default::default(), 5).unwrap();
    assert!(r.is_clean(1e-6), "{r:?}");
}

#[test]
fn a_region_whose_extent_differs_from_the_intrinsics_is_refused() {
    let (x, y, z) = add(64);
    let mut s = create_schedule(&[z.clone()]);
    let (_, xi) = s.split(&z, &z.op().axis()[0], 8).unwrap();
    s.tensorize(&z, &xi, &intrin_vadd(16)).unwrap();
    let e = lower(&s, &[x, y, z]).unwrap_err();
    assert!(
        e.message
            .contains("axis `i` of `z` has extent 8 in the tensorized nest but the intrinsic's `i` has extent 16"),
        "{}",
        e.message
    );
}

#[test]
fn an_input_region_that_differs_from_the_intrinsics_input_shape_is_refused() {
    let (a, b, c) = matmul(3, 8, 6);
    // The intrinsic's `x` has 8 elements; the nest reads 6 of a row of A.
    let w = placeholder([4, 6], "w", DataType::Float32).unwrap();
    let x = placeholder([8], "x", DataType::Float32).unwrap();
    let k = reduce_axis((0, 6), "k");
    let z = compute_named(
        [4],
        &["i"],
        |i| {
            sum(
                at(&w, &[i[0].clone(), k.expr()]) * at(&x, &[k.expr()]),
                &[k.clone()],
            )
        },
        "z",
    )
    .unwrap();
    let gemv = decl_tensor_intrin(z.op(), "gemv", calls(Some("gemv"), None, None)).unwrap();
    let mut s = create_schedule(&[c.clone()]);
    let (_, yi) = s.split(&c, &c.op().axis()[1], 4).unwrap();
    s.tensorize(&c, &yi, &gemv).unwrap();
    let e = lower(&s, &[a.clone(), b.clone(), c.clone()]).unwrap_err();
    assert!(
        e.message.contains(
            "the region of `A` the nest reads, [[i, 1], [0, 6]], does not match the shape [8]"
        ),
        "{}",
        e.message
    );
    // A reduction over fewer values than the nest's is refused too.
    let mut s = create_schedule(&[c.clone()]);
    let (_, yi) = s.split(&c, &c.op().axis()[1], 4).unwrap();
    s.tensorize(&c, &yi, &intrin_gemv(4, 5, calls(Some("gemv"), None, None)))
        .unwrap();
    let e = lower(&s, &[a, b, c]).unwrap_err();
    assert!(
        e.message.contains("reduction axis `k` of `C` has extent 6 in the tensorized nest but the intrinsic's `k` has extent 5"),
        "{}",
        e.message
    );
}

#[test]
fn a_body_that_differs_from_the_intrinsics_compute_is_refused() {
    let (x, y, z) = add(64);
    let vx = placeholder([16], "vx", DataType::Float32).unwrap();
    let vy = placeholder([16], "vy", DataType::Float32).unwrap();
    let vmul = compute_named([16], &["i"], |i| at(&vx, i) * at(&vy, i), "z").unwrap();
    let vmul = decl_tensor_intrin(vmul.op(), "vmul", calls(Some("vmul"), None, None)).unwrap();
    let mut s = create_schedule(&[z.clone()]);
    let (_, xi) = s.split(&z, &z.op().axis()[0], 16).unwrap();
    s.tensorize(&z, &xi, &vmul).unwrap();
    let e = lower(&s, &[x, y, z]).unwrap_err();
    assert!(
        e.message
            .contains("failed to match the compute with the intrinsic's declaration"),
        "{}",
        e.message
    );
    assert!(e.message.contains("vx[i] + vy[i]"), "{}", e.message);
}

#[test]
fn a_split_that_does_not_divide_inside_the_region_is_refused() {
    let (x, y, z) = add(60);
    let mut s = create_schedule(&[z.clone()]);
    let (_, xi) = s.split(&z, &z.op().axis()[0], 16).unwrap();
    s.tensorize(&z, &xi, &intrin_vadd(16)).unwrap();
    assert!(lower(&s, &[x, y, z]).is_err());
}

#[test]
fn an_intrinsic_reading_a_computed_tensor_or_a_loop_split_after_tensorize_is_refused() {
    let (_, _, z) = add(16);
    let w = compute_named([16], &["i"], |i| at(&z, i) * 2.0, "w").unwrap();
    let e = decl_tensor_intrin(w.op(), "bad", calls(Some("f"), None, None)).unwrap_err();
    assert!(e.message.contains("placeholders only"), "{}", e.message);
    let (x, y, z) = add(64);
    let mut s = create_schedule(&[z.clone()]);
    let (_, xi) = s.split(&z, &z.op().axis()[0], 16).unwrap();
    s.tensorize(&z, &xi, &intrin_vadd(16)).unwrap();
    s.split(&z, &xi, 4).unwrap();
    let e = lower(&s, &[x, y, z]).unwrap_err();
    assert!(e.message.contains("no longer a loop"), "{}", e.message);
}

mod properties {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

        /// gemv tensorizing a matmul whose `A` is produced per row inside
        /// the nest (a buffer indexed relative to its region): whole
        /// reductions, or split ones with a reset or with the body as the
        /// first step, equal the definition.
        #[test]
        fn tensorized_matmuls_equal_the_definition(
            n in 1i64..4, fy in 1i64..4, ny in 1i64..3, fk in 1i64..4, nk in 1i64..3,
            mode in 0usize..3, produce_a in any::<bool>(), seed in 0u64..1000,
        ) {
            let (m, l) = (fy * ny, fk * nk);
            let a0 = placeholder([n, l], "A0", DataType::Float32).unwrap();
            let a = compute_named([n, l], &["ai", "ak"], |i| at(&a0, i) * 2.0, "A").unwrap();
            let b = placeholder([m, l], "B", DataType::Float32).unwrap();
            let k = reduce_axis((0, l), "k");
            let c = compute_named(
                [n, m],
                &["i", "j"],
                |i| sum(at(&b, &[i[1].clone(), k.expr()]) * at(&a, &[i[0].clone(), k.expr()]), &[k.clone()]),
                "C",
            )
            .unwrap();
            let mut s = create_schedule(&[c.clone()]);
            let (x, y) = (c.op().axis()[0].clone(), c.op().axis()[1].clone());
            let (yo, yi) = s.split(&c, &y, fy).unwrap();
            let width = if mode == 0 {
                l
            } else {
                let (ro, ri) = s.split(&c, &k, fk).unwrap();
                s.reorder(&c, &[x.clone(), yo, ro, yi.clone(), ri]).unwrap();
                fk
            };
            let c_calls = match mode {
                0 => calls(Some("gemv"), None, None),
                1 => calls(Some("gemv"), Some("fill_zero"), Some("gemv_add")),
                _ => calls(Some("gemv"), None, Some("gemv_add")),
            };
            s.tensorize(&c, &yi, &intrin_gemv(fy, width, c_calls)).unwrap();
            if produce_a {
                s.compute_at(&a, &c, &x).unwrap();
            }
            let r = check(&s, &[a0, b, c], &Default::default(), seed).unwrap();
            prop_assert!(r.is_clean(1e-5), "{r:?}");
            prop_assert_eq!(r.stage("C").unwrap().runs, (n * m * l) as u64);
        }
    }
}

#[test]
fn the_run_report_of_a_tensorized_stage_is_clean() {
    let (x, y, z) = add(48);
    let mut s = create_schedule(&[z.clone()]);
    let (_, xi) = s.split(&z, &z.op().axis()[0], 16).unwrap();
    s.tensorize(&z, &xi, &intrin_vadd(16)).unwrap();
    let options = te::ReportOptions {
        run: true,
        ..Default::default()
    };
    let report = te::run_report(&s, &[x, y, z], &options).unwrap();
    assert!(report.is_clean(), "{:?}", report.check);
}

#[test]
fn an_intrinsic_with_divided_indices_matches_the_same_compute_and_runs() {
    // TVM's test_tensorize_op: `A[j // 3 + i % 3, j % 3 + i // 3]`.
    let body = |a: &Tensor, i: &[Expr]| {
        let (x, y) = (i[0].clone(), i[1].clone());
        let three = Expr::int(3);
        at(
            a,
            &[
                Expr::add(
                    Expr::floor_div(y.clone(), three.clone()),
                    Expr::floor_mod(x.clone(), three.clone()),
                ),
                Expr::add(Expr::floor_mod(y, three.clone()), Expr::floor_div(x, three)),
            ],
        )
    };
    let x = placeholder([5, 5], "A", DataType::Float32).unwrap();
    let y = compute_named([9, 9], &["i", "j"], |i| body(&x, i), "compute").unwrap();
    let op = decl_tensor_intrin(y.op(), "op", calls(Some("op"), None, None)).unwrap();
    let a = placeholder([5, 5], "A", DataType::Float32).unwrap();
    let b = compute_named([9, 9], &["i", "j"], |i| body(&a, i), "B").unwrap();
    let mut s = create_schedule(&[b.clone()]);
    let axis = b.op().axis()[0].clone();
    s.tensorize(&b, &axis, &op).unwrap();
    let args = [a, b];
    let text = lower(&s, &args).unwrap().to_string();
    assert_eq!(
        text,
        "produce B {\n  op(A([0, 5], [0, 5]), B([0, 9], [0, 9]))\n}\n"
    );
    let r = check(&s, &args, &Default::default(), 6).unwrap();
    assert!(r.is_clean(0.0), "{r:?}");
}
