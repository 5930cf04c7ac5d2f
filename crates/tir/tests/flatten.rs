//! Storage flattening against the seeds' printed IR and seed 001's
//! flattening cases, and against the interpreter: a flattened program
//! computes what the logical one computes.

mod common;

use arith::{Analyzer, Expr, Range, Var};
use std::collections::HashMap;
use tir::{Buffer, DataType, PrimFunc, Stmt, Tensor, Value};

/// Seed 000, Ex. 6 before storage flattening: B realized whole inside C's
/// fused outer loop, 2-d accesses, C indexed through the fused axis.
fn ex6_logical() -> (PrimFunc, Buffer, Buffer) {
    let a = Buffer::new("A", DataType::Float32, [4i64, 4]);
    let b = Buffer::new("B", DataType::Float32, [4i64, 4]);
    let c = Buffer::new("C", DataType::Float32, [4i64, 4]);
    let [xo, xi, bi, bj] = ["ci.cj.fused.outer", "ci.cj.fused.inner", "bi", "bj"].map(Var::new);
    let fused = xo.expr() * 4 + xi.expr();
    let cij = || {
        [
            Expr::floor_div(fused.clone(), Expr::int(4)),
            Expr::floor_mod(fused.clone(), Expr::int(4)),
        ]
    };
    let produce_b = Stmt::produce(
        "B",
        Stmt::for_range(
            &bi,
            0,
            4,
            Stmt::for_range(
                &bj,
                0,
                4,
                Stmt::store(
                    &b,
                    [bi.expr(), bj.expr()],
                    Value::load(&a, [bi.expr(), bj.expr()]) + Value::f32(2.0),
                ),
            ),
        ),
    );
    let consume = Stmt::for_range(
        &xi,
        0,
        4,
        Stmt::store(&c, cij(), Value::load(&b, cij()) * Value::f32(3.0)),
    );
    let whole = vec![
        Range::from_extent(Expr::int(4)),
        Range::from_extent(Expr::int(4)),
    ];
    let body = Stmt::for_range(
        &xo,
        0,
        4,
        Stmt::realize(&b, whole, Stmt::seq([produce_b, consume])),
    );
    (
        PrimFunc::new("ex6", vec![a.clone(), c.clone()], Stmt::produce("C", body)),
        a,
        c,
    )
}

#[test]
fn ex6_flattens_to_the_seed_accesses() {
    let (f, ..) = ex6_logical();
    let flat = tir::flatten(&f).unwrap();
    insta::assert_snapshot!(flat.func.to_string(), @r###"
    produce C {
      for (ci.cj.fused.outer, 0, 4) {
        // attr [B] storage_scope = "global"
        allocate B[float32 * 16]
        produce B {
          for (bi, 0, 4) {
            for (bj, 0, 4) {
              B[((bi*4) + bj)] = (A[((bi*4) + bj)] + 2.000000f)
            }
          }
        }
        for (ci.cj.fused.inner, 0, 4) {
          C[((floordiv(((ci.cj.fused.outer*4) + ci.cj.fused.inner), 4)*4) + floormod(((ci.cj.fused.outer*4) + ci.cj.fused.inner), 4))] = (B[((floordiv(((ci.cj.fused.outer*4) + ci.cj.fused.inner), 4)*4) + floormod(((ci.cj.fused.outer*4) + ci.cj.fused.inner), 4))]*3.000000f)
        }
      }
    }
    "###);
}

/// Runs `f` and its flattened, simplified form on the same input and
/// checks that outputs, stage runs and unused stores agree.
fn check_equivalent(f: &PrimFunc, inputs: &HashMap<Buffer, Tensor>) -> tir::RunResult {
    let logical = tir::run(f, inputs, &HashMap::new()).unwrap();
    let flat = tir::flatten(f).unwrap();
    let body = tir::simplify(&flat.func.body, &Analyzer::new()).unwrap();
    let g = PrimFunc::new(flat.func.name.clone(), flat.func.params.clone(), body);
    let flat_inputs = inputs
        .iter()
        .map(|(b, t)| {
            let p = flat.physical(b).unwrap().clone();
            let shape = p
                .shape()
                .iter()
                .map(|s| s.as_int().unwrap() as usize)
                .collect();
            (p, t.reshape(shape).unwrap())
        })
        .collect();
    let physical = tir::run(&g, &flat_inputs, &HashMap::new()).unwrap();
    for p in &f.params {
        let (l, q) = (
            logical.tensor(p).unwrap(),
            physical.tensor(flat.physical(p).unwrap()).unwrap(),
        );
        assert_eq!(l.data(), q.data(), "{}", p.name());
    }
    assert_eq!(logical.stage_runs(), physical.stage_runs());
    assert_eq!(logical.unused_stores(), physical.unused_stores());
    physical
}

#[test]
fn flattened_programs_compute_the_same() {
    let (f, a, _) = ex6_logical();
    let input = Tensor::from_fn(&[4, 4], |ix| (ix[0] * 4 + ix[1]) as f64);
    let out = check_equivalent(&f, &HashMap::from([(a, input)]));
    assert_eq!(out.runs("B"), 64);
    assert_eq!(out.largest_region_named("B"), Some(16));

    let (f, _) = common::ex4();
    let out = check_equivalent(&f, &HashMap::new());
    assert_eq!(out.largest_region_named("C"), Some(1));
}

/// Seed 000, Ex. 4: the realize of the output D is dropped, C's one-element
/// region becomes `allocate C[int32 * 1]`, and C's accesses become offsets
/// from the region's minimum.
#[test]
fn ex4_flattens_realizes_to_allocations() {
    let (f, _) = common::ex4();
    let flat = tir::flatten(&f).unwrap();
    let text = flat.func.to_string();
    assert!(text.starts_with("produce D {\n"), "{text}");
    assert!(text.contains("allocate C[int32 * 1]\n"), "{text}");
    assert!(
        text.contains("C[(((i + dj) - dj) + ((j + dk) - dk))] = 5\n"),
        "{text}"
    );
    assert!(
        text.contains("D[((((di*5) + dj)*16) + dk)] = (C[((dj - dj) + (dk - dk))]*2)\n"),
        "{text}"
    );

    // The trivial loops over i and j make both offsets the constant 0.
    let simple = tir::simplify(&flat.func.body, &Analyzer::new())
        .unwrap()
        .to_string();
    assert!(simple.contains("C[0] = 5\n"), "{simple}");
    assert!(simple.contains("= (C[0]*2)\n"), "{simple}");
}

/// Seed 001, L1: `x` of shape `[2, 3]` flattens to `[6]`, and the accesses
/// `x[10, 15]` and `x[20, 23]` to offsets 45 and 83.
#[test]
fn seed001_l1_flat_offsets() {
    let x = Buffer::new("x", DataType::Float32, [2i64, 3]);
    let body = Stmt::store(
        &x,
        [Expr::int(20), Expr::int(23)],
        Value::load(&x, [Expr::int(10), Expr::int(15)]),
    );
    let flat = tir::flatten(&PrimFunc::new("l1", vec![x.clone()], body)).unwrap();
    assert_eq!(flat.physical(&x).unwrap().shape(), &[Expr::int(6)]);
    let Stmt::BufferStore {
        indices,
        value: Value::Load(load),
        ..
    } = &flat.func.body
    else {
        panic!("a store of a load expected")
    };
    assert_eq!(load.indices[0].eval(&|_| None).unwrap(), 45);
    assert_eq!(indices[0].eval(&|_| None).unwrap(), 83);
}

/// Seed 001, L5-L7: shape `(M, N, P, Q)` with axis separators flattens to
/// `(M*N*P*Q)`, `(M*N, P*Q)` and `(M, N*P, Q)`.
#[test]
fn seed001_l5_to_l7_axis_separators() {
    let [m, n, p, q] = ["M", "N", "P", "Q"].map(Var::new);
    let shape = [m.expr(), n.expr(), p.expr(), q.expr()];
    let cases: [(&[usize], &[&str]); 3] = [
        (&[], &["M * N * P * Q"]),
        (&[2], &["M * N", "P * Q"]),
        (&[1, 3], &["M", "N * P", "Q"]),
    ];
    for (seps, want) in cases {
        let b =
            Buffer::new("b", DataType::Float32, shape.clone()).with_axis_separators(seps.to_vec());
        let flat = tir::flatten(&PrimFunc::new("l", vec![b.clone()], Stmt::no_op())).unwrap();
        let got: Vec<String> = flat
            .physical(&b)
            .unwrap()
            .shape()
            .iter()
            .map(|e| e.to_string())
            .collect();
        assert_eq!(got, want, "separators {seps:?}");
    }
}

/// With a separator the physical buffer keeps two axes, and each group is
/// row-major on its own.
#[test]
fn axis_separators_give_multi_dimensional_physical_buffers() {
    let a = Buffer::new("A", DataType::Float32, [2i64, 3, 4, 5]);
    let o = Buffer::new("O", DataType::Float32, [2i64, 3, 4, 5]).with_axis_separators(vec![2]);
    let [i, j, k, l] = ["i", "j", "k", "l"].map(Var::new);
    let ix = || [i.expr(), j.expr(), k.expr(), l.expr()];
    let body = Stmt::store(&o, ix(), Value::load(&a, ix()) * Value::f32(2.0));
    let body = [(&l, 5), (&k, 4), (&j, 3), (&i, 2)]
        .into_iter()
        .fold(body, |b, (v, n)| Stmt::for_range(v, 0, n, b));
    let f = PrimFunc::new("sep", vec![a.clone(), o.clone()], body);
    let flat = tir::flatten(&f).unwrap();
    assert_eq!(
        flat.physical(&o).unwrap().shape(),
        &[Expr::int(6), Expr::int(20)]
    );
    assert!(flat
        .func
        .to_string()
        .contains("O[((i*3) + j), ((k*5) + l)] = (A[((((((i*3) + j)*4) + k)*5) + l)]*2.000000f)"));

    let input = Tensor::from_fn(&[2, 3, 4, 5], |ix| ix.iter().sum::<usize>() as f64);
    let logical = tir::run(
        &f,
        &HashMap::from([(a.clone(), input.clone())]),
        &HashMap::new(),
    )
    .unwrap();
    let pa = flat.physical(&a).unwrap().clone();
    let physical = tir::run(
        &flat.func,
        &HashMap::from([(pa, input.reshape(vec![120]).unwrap())]),
        &HashMap::new(),
    )
    .unwrap();
    let po = flat.physical(&o).unwrap();
    assert_eq!(physical.tensor(po).unwrap().shape(), &[6, 20]);
    assert_eq!(
        physical.tensor(po).unwrap().data(),
        logical.tensor(&o).unwrap().data()
    );
}

#[test]
fn flatten_errors() {
    let b = Buffer::new("B", DataType::Float32, [4i64, 4]).with_axis_separators(vec![2]);
    let err = tir::flatten(&PrimFunc::new("f", vec![b], Stmt::no_op())).unwrap_err();
    assert!(err.to_string().contains("axis separators [2]"), "{err}");

    let t = Buffer::new("T", DataType::Float32, [4i64]);
    let o = Buffer::new("O", DataType::Float32, [4i64]);
    let f = PrimFunc::new(
        "f",
        vec![o.clone()],
        Stmt::store(&o, [Expr::int(0)], Value::load(&t, [Expr::int(0)])),
    );
    let err = tir::flatten(&f).unwrap_err();
    assert_eq!(err.buffer, "T");
    assert!(err.message.contains("outside any realize"), "{err}");
}

/// A realized region may reach outside the logical shape (only accesses
/// must stay inside) and its extent may depend on the enclosing loop: the
/// physical buffer is shaped like the region of each realize.
#[test]
fn regions_outside_the_shape_and_loop_dependent_extents() {
    let a = Buffer::new("A", DataType::Float32, [4i64]);
    let t = Buffer::new("T", DataType::Float32, [4i64]);
    let c = Buffer::new("C", DataType::Float32, [4i64]);
    let [xo, tv, xi] = ["xo", "t", "xi"].map(Var::new);
    // Region [2*xo - 1, 2*xo + 2) for the halo; [-1, 2) at xo = 0.
    let halo = |start: Expr, extent: Expr| {
        let idx = start.clone() + tv.expr();
        let produce = Stmt::for_loop(
            &tv,
            0,
            extent.clone(),
            Stmt::if_then(
                Expr::and(
                    Expr::ge(idx.clone(), Expr::int(0)),
                    Expr::lt(idx.clone(), Expr::int(4)),
                ),
                Stmt::store(&t, [idx.clone()], Value::load(&a, [idx])),
            ),
        );
        let ci = xo.expr() * 2 + xi.expr();
        let consume = Stmt::for_range(
            &xi,
            0,
            2,
            Stmt::store(&c, [ci.clone()], Value::load(&t, [ci]) * Value::f32(2.0)),
        );
        let body = Stmt::realize(
            &t,
            vec![Range::new(start, extent)],
            Stmt::seq([produce, consume]),
        );
        PrimFunc::new(
            "halo",
            vec![a.clone(), c.clone()],
            Stmt::for_range(&xo, 0, 2, body),
        )
    };
    let input = HashMap::from([(a.clone(), Tensor::from_fn(&[4], |ix| ix[0] as f64 + 1.0))]);
    let fixed = halo(xo.expr() * 2 - 1, Expr::int(3));
    let out = check_equivalent(&fixed, &input);
    assert_eq!(out.tensor_named("C").unwrap().data(), &[2.0, 4.0, 6.0, 8.0]);
    assert_eq!(out.largest_region_named("T"), Some(3));

    // Extent min(3, 4 - 2*xo): 3 at xo = 0, 2 at xo = 1.
    let shrinking = halo(
        xo.expr() * 2,
        Expr::min(Expr::int(3), Expr::int(4) - xo.expr() * 2),
    );
    let out = check_equivalent(&shrinking, &input);
    assert_eq!(out.tensor_named("C").unwrap().data(), &[2.0, 4.0, 6.0, 8.0]);
    assert_eq!(out.runs("T"), 5);
}
