//! Storage of a stage computed at a loop is the largest region over the
//! iterations: a constant whenever the region's extent has a constant
//! bound, with symbolic sizes as with constant ones.
#![allow(clippy::cloned_ref_to_slice_refs)]

use arith::{Expr, Var};
use std::collections::HashMap;
use te::{check, compute_named, create_schedule, placeholder, reduce_axis, sum, Value};
use tir::DataType;

/// A 3x3, stride-2, pad-1 convolution over `h x w`, tiled 4x4, with its
/// padded input `P` computed per tile: the lowered program and its check
/// at `sizes`.
fn conv(h: Expr, w: Expr, sizes: &HashMap<Var, i64>) -> (String, bool) {
    let a = placeholder([h.clone(), w.clone()], "A", DataType::Float32).unwrap();
    let p = compute_named(
        [h.clone() + 2, w.clone() + 2],
        &["i", "j"],
        |x| {
            let (i, j) = (&x[0], &x[1]);
            let inside = Expr::and(
                Expr::and(
                    Expr::ge(i.clone(), Expr::int(1)),
                    Expr::le(i.clone(), h.clone()),
                ),
                Expr::and(
                    Expr::ge(j.clone(), Expr::int(1)),
                    Expr::le(j.clone(), w.clone()),
                ),
            );
            Value::select(
                inside,
                a.at([&(i.clone() - 1), &(j.clone() - 1)]),
                Value::float(0.0),
            )
        },
        "P",
    )
    .unwrap();
    let (ry, rx) = (reduce_axis((0, 3), "ry"), reduce_axis((0, 3), "rx"));
    let out = |n: &Expr| Expr::floor_div(n.clone() - 1, Expr::int(2)) + 1;
    let c = compute_named(
        [out(&h), out(&w)],
        &["y", "x"],
        |x| {
            let row = x[0].clone() * 2 + ry.expr();
            let col = x[1].clone() * 2 + rx.expr();
            sum(p.at([&row, &col]), &[ry.clone(), rx.clone()])
        },
        "C",
    )
    .unwrap();
    let mut s = create_schedule(&[c.clone()]);
    let (y, x) = (c.op().axis()[0].clone(), c.op().axis()[1].clone());
    let (_, xo, _, _) = s.tile(&c, &y, &x, 4, 4).unwrap();
    s.compute_at(&p, &c, &xo).unwrap();
    let text = te::lower(&s, &[a.clone(), c.clone()]).unwrap().to_string();
    let r = check(&s, &[a, c], sizes, 3).unwrap();
    (text, r.is_clean(te::TOLERANCE))
}

#[test]
fn a_padded_tile_of_a_strided_convolution_is_allocated_9_by_9() {
    let (text, clean) = conv(Expr::int(17), Expr::int(17), &HashMap::new());
    assert!(clean);
    assert!(text.contains("allocate P[float32 * 9 * 9]"), "{text}");
}

#[test]
fn with_symbolic_sizes_the_padded_tile_is_still_9_by_9() {
    // The extent `min((h - 1) // 2, y.outer * 4 + 3) * 2 - y.outer * 8 + 3`
    // has no constant bound as written; with its `min` relaxed it is 9.
    let (h, w) = (Var::new("h"), Var::new("w"));
    let sizes = HashMap::from([(h.clone(), 17), (w.clone(), 13)]);
    let (text, clean) = conv(h.expr(), w.expr(), &sizes);
    assert!(clean);
    assert!(text.contains("allocate P[float32 * 9 * 9]"), "{text}");
}
