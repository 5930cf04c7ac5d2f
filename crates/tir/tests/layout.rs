//! Layout transforms on the loop IR: seed 001's worked examples (L1-L4),
//! where `x` is allocated and read at `[10, 15]`, written at `[20, 23]`
//! (indices as the seed gives them, outside the logical shape: the
//! arithmetic is the point), and a run of a transformed program.

use arith::{Expr, Var};
use layout::IndexMap;
use std::collections::HashMap;
use tir::{apply_layout_transforms, Buffer, DataType, PrimFunc, Stmt, Value};

/// `allocate x; y[0] = x[10, 15]; x[20, 23] = 7` over a buffer of `shape`.
fn seed_program(shape: &[i64]) -> (PrimFunc, Buffer) {
    let x = Buffer::new("x", DataType::Float32, shape.iter().copied());
    let y = Buffer::new("y", DataType::Float32, [1i64]);
    let load = Stmt::store(
        &y,
        [Expr::int(0)],
        Value::load(&x, [Expr::int(10), Expr::int(15)]),
    );
    let store = Stmt::store(&x, [Expr::int(20), Expr::int(23)], Value::f32(7.0));
    let extents = shape.iter().map(|&d| Expr::int(d)).collect();
    let body = Stmt::allocate(&x, extents, Stmt::seq([load, store]));
    (PrimFunc::new("f", vec![y], body), x)
}

fn lowered(shape: &[i64], map: &str) -> String {
    let (f, x) = seed_program(shape);
    let map = IndexMap::parse(map).unwrap();
    let (g, _) = apply_layout_transforms(&f, &[(x, map)]).unwrap();
    g.to_string()
}

#[test]
fn l1_default_flattening() {
    let (f, _) = seed_program(&[2, 3]);
    let flat = tir::flatten(&f).unwrap().func;
    let text = tir::simplify(&flat.body, &arith::Analyzer::new())
        .unwrap()
        .to_string();
    assert!(text.contains("allocate x[float32 * 6]"), "{text}");
    assert!(
        text.contains("x[45]") && text.contains("x[83] = 7"),
        "{text}"
    );
    // The identity transform gives the same physical buffer.
    let t = lowered(&[2, 3], "lambda i, j: [i, j]");
    assert!(
        t.contains("allocate x[float32 * 6]") && t.contains("x[45]") && t.contains("x[83] = 7"),
        "{t}"
    );
}

#[test]
fn l2_transposed() {
    let t = lowered(&[2, 3], "lambda i, j: [j, i]");
    assert!(t.contains("allocate x[float32 * 6]"), "{t}");
    assert!(t.contains("x[40]") && t.contains("x[66] = 7"), "{t}");
}

#[test]
fn l3_nchwc_flat() {
    let (f, x) = seed_program(&[16, 64, 64, 128]);
    let map = IndexMap::parse("lambda n, h, w, c: [n, c // 4, h, w, c % 4]").unwrap();
    // Replace the seed accesses by the L3 one: x[11, 37, 23, 101].
    let y = f.params[0].clone();
    let idx = [11, 37, 23, 101].map(Expr::int);
    let body = Stmt::allocate(
        &x,
        x.shape().to_vec(),
        Stmt::store(&y, [Expr::int(0)], Value::load(&x, idx)),
    );
    let (g, _) = apply_layout_transforms(&PrimFunc::new("f", vec![y], body), &[(x, map)]).unwrap();
    let t = g.to_string();
    assert!(t.contains("allocate x[float32 * 8388608]"), "{t}");
    assert!(t.contains("x[6186333]"), "{t}");
}

#[test]
fn l4_nchwc_texture() {
    let x = Buffer::new("x", DataType::Float32, [16i64, 64, 64, 128]);
    let y = Buffer::new("y", DataType::Float32, [1i64]);
    let idx = [11, 37, 23, 101].map(Expr::int);
    let body = Stmt::allocate(
        &x,
        x.shape().to_vec(),
        Stmt::store(&y, [Expr::int(0)], Value::load(&x, idx)),
    );
    let map =
        IndexMap::parse("lambda n, h, w, c: [n, c // 4, h, te.AXIS_SEPARATOR, w, c % 4]").unwrap();
    let (g, _) = apply_layout_transforms(&PrimFunc::new("f", vec![y], body), &[(x, map)]).unwrap();
    let t = g.to_string();
    assert!(t.contains("allocate x[float32 * 32768 * 256]"), "{t}");
    assert!(t.contains("x[24165, 93]"), "{t}");
}

#[test]
fn transformed_parameters_keep_their_values() {
    // B[i, j] = A[i, j] + 1 over [6, 10], A transposed, B split by 4 (padded).
    let a = Buffer::new("A", DataType::Float32, [6i64, 10]);
    let b = Buffer::new("B", DataType::Float32, [6i64, 10]);
    let (i, j) = (Var::new("i"), Var::new("j"));
    let body = Stmt::for_range(
        &i,
        0,
        6,
        Stmt::for_range(
            &j,
            0,
            10,
            Stmt::store(
                &b,
                [i.expr(), j.expr()],
                Value::load(&a, [i.expr(), j.expr()]) + Value::f32(1.0),
            ),
        ),
    );
    let f = PrimFunc::new("f", vec![a.clone(), b.clone()], body);
    let ma = IndexMap::parse("lambda i, j: [j, i]").unwrap();
    let mb = IndexMap::parse("lambda i, j: [i, j // 4, te.AXIS_SEPARATOR, j % 4]").unwrap();
    let (g, layouts) = apply_layout_transforms(&f, &[(a.clone(), ma), (b.clone(), mb)]).unwrap();
    let (pa, la) = &layouts[0];
    let (pb, lb) = &layouts[1];
    assert_eq!(pb.shape(), &[Expr::int(18), Expr::int(4)]);
    let shape_a: Vec<usize> = pa
        .shape()
        .iter()
        .map(|e| e.as_int().unwrap() as usize)
        .collect();
    let mut data = tir::Tensor::zeros(&shape_a);
    layout::for_each_point(&[6, 10], |x| {
        let p: Vec<usize> = la
            .physical_point(x)
            .unwrap()
            .iter()
            .map(|&v| v as usize)
            .collect();
        let off = data.offset(&p).unwrap();
        data.data_mut()[off] = (x[0] * 10 + x[1]) as f64;
    });
    let inputs = HashMap::from([(pa.clone(), data)]);
    let run = tir::run(&g, &inputs, &HashMap::new()).unwrap();
    let out = run.tensor(pb).unwrap();
    layout::for_each_point(&[6, 10], |x| {
        let p: Vec<usize> = lb
            .physical_point(x)
            .unwrap()
            .iter()
            .map(|&v| v as usize)
            .collect();
        assert_eq!(out.get(&p), Some((x[0] * 10 + x[1] + 1) as f64), "{x:?}");
    });
    assert_eq!(run.violation_count(), 0);
}
