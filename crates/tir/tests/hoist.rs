//! Allocation hoisting: the seed's `tvm.lower` listings have their
//! allocations at the top.

mod common;

use arith::{Expr, Var};
use std::collections::HashMap;
use tir::{Buffer, DataType, PrimFunc, Stmt, Tensor, Value};

/// Seed 000, Ex. 6 without fuse and split, with B's allocation where B is
/// computed (inside C's loop), as lowering emits it before StorageRewrite.
fn ex6_rows_unhoisted() -> (PrimFunc, Buffer) {
    let (f, a, _) = common::ex6_rows();
    let Stmt::Allocate {
        buffer,
        extents,
        body,
    } = &f.body
    else {
        panic!("allocate first")
    };
    let Stmt::Produce { name, body } = &**body else {
        panic!("produce C")
    };
    let Stmt::For {
        var,
        min,
        extent,
        body,
        ..
    } = &**body
    else {
        panic!("loop over ci")
    };
    let inner = Stmt::allocate(buffer, extents.clone(), (**body).clone());
    let moved = Stmt::produce(
        name.clone(),
        Stmt::for_loop(var, min.clone(), extent.clone(), inner),
    );
    (PrimFunc::new("ex6_rows", f.params.clone(), moved), a)
}

#[test]
fn ex6_rows_hoists_to_the_seed_listing() {
    let (f, a) = ex6_rows_unhoisted();
    assert!(f
        .to_string()
        .starts_with("produce C {\n  for (ci, 0, 4) {\n    // attr [B]"));
    let hoisted = PrimFunc::new(
        "ex6_rows",
        f.params.clone(),
        tir::hoist_allocations(&f.body),
    );
    let (seed, ..) = common::ex6_rows();
    assert_eq!(hoisted.to_string(), seed.to_string());

    let input = HashMap::from([(a, Tensor::from_fn(&[16], |ix| ix[0] as f64))]);
    let before = tir::run(&f, &input, &HashMap::new()).unwrap();
    let after = tir::run(&hoisted, &input, &HashMap::new()).unwrap();
    assert_eq!(before.tensor_named("C"), after.tensor_named("C"));
    assert_eq!(before.stage_runs(), after.stage_runs());
}

#[test]
fn allocations_that_depend_on_loops_or_conflict_stay() {
    let b = Buffer::new("B", DataType::Float32, [8i64]);
    let (i, j) = (Var::new("i"), Var::new("j"));
    let fill = |n: Expr| Stmt::for_loop(&j, 0, n, Stmt::store(&b, [j.expr()], Value::f32(0.0)));
    // Extent i + 1 depends on the loop: stays inside it.
    let dependent = Stmt::for_range(
        &i,
        0,
        4,
        Stmt::allocate(&b, vec![i.expr() + 1], fill(i.expr() + 1)),
    );
    assert_eq!(tir::hoist_allocations(&dependent), dependent);

    // Two allocations of B with different sizes: the first is lifted, the
    // second stays; a third with the first's size shares its storage.
    let s = Stmt::seq([
        Stmt::allocate(&b, vec![Expr::int(4)], fill(Expr::int(4))),
        Stmt::allocate(&b, vec![Expr::int(8)], fill(Expr::int(8))),
        Stmt::allocate(&b, vec![Expr::int(4)], fill(Expr::int(4))),
    ]);
    insta::assert_snapshot!(tir::hoist_allocations(&s).to_string(), @r###"
    // attr [B] storage_scope = "global"
    allocate B[float32 * 4]
    for (j, 0, 4) {
      B[j] = 0.000000f
    }
    // attr [B] storage_scope = "global"
    allocate B[float32 * 8]
    for (j, 0, 8) {
      B[j] = 0.000000f
    }
    for (j, 0, 4) {
      B[j] = 0.000000f
    }
    "###);
}
