//! TVM v0.19's own tests of the primitives that add stages
//! (`tests/python/te/test_te_schedule_ops.py`: cache, middle cache,
//! relayout, auto inline, local stage predicate), written against this
//! crate and run against the definitions.
#![allow(clippy::cloned_ref_to_slice_refs)]

use std::collections::HashMap;
use te::{
    auto_inline_broadcast, auto_inline_elem_wise, auto_inline_injective, check, compute_named,
    create_schedule, placeholder, reduce_axis, sum, try_compute_tagged, var, Attach, Attrs,
    Schedule, TeError, Tensor,
};
use tir::DataType;

fn sizes(m: &arith::Var, mv: i64, n: &arith::Var, nv: i64) -> HashMap<arith::Var, i64> {
    HashMap::from([(m.clone(), mv), (n.clone(), nv)])
}

fn clean(s: &Schedule, args: &[Tensor], sizes: &HashMap<arith::Var, i64>) {
    let r = check(s, args, sizes, 5).unwrap();
    assert!(r.is_clean(1e-5), "{r:?}");
}

#[test]
fn test_schedule_cache() {
    let (m, n) = (var("m"), var("n"));
    let a = placeholder([m.expr(), n.expr()], "A", DataType::Float32).unwrap();
    let b = placeholder([m.expr(), n.expr()], "B", DataType::Float32).unwrap();
    let c = compute_named(
        [m.expr(), n.expr()],
        &["i", "j"],
        |i| a.at([&i[0], &i[1]]) * b.at([&i[0], &i[1]]),
        "C",
    )
    .unwrap();
    let mut s = create_schedule(&[c.clone()]);
    let aa = s.cache_read(&a, "shared", &[&c]).unwrap();
    let cc = s.cache_write(&c, "shared").unwrap();
    s.compute_at(&aa, &cc, &cc.op().axis()[0]).unwrap();
    clean(&s, &[a, b, c], &sizes(&m, 3, &n, 5));
}

#[test]
fn test_schedule_middle_cache() {
    let (m, n) = (var("m"), var("n"));
    let a = placeholder([m.expr(), n.expr()], "A", DataType::Float32).unwrap();
    let b = placeholder([m.expr(), n.expr()], "B", DataType::Float32).unwrap();
    let c = compute_named(
        [m.expr(), n.expr()],
        &["i", "j"],
        |i| a.at([&i[0], &i[1]]) * b.at([&i[0], &i[1]]),
        "C",
    )
    .unwrap();
    let d = compute_named(
        [m.expr(), n.expr()],
        &["i", "j"],
        |i| c.at([&i[0], &i[1]]),
        "D",
    )
    .unwrap();
    let mut s = create_schedule(&[d.clone()]);
    s.cache_read(&a, "local", &[&c]).unwrap();
    s.cache_read(&b, "local", &[&c]).unwrap();
    s.cache_read(&c, "local", &[&d]).unwrap();
    s.cache_write(&d, "local").unwrap();
    let names: Vec<&str> = s.stages().iter().map(|st| st.name()).collect();
    assert_eq!(
        names,
        ["A", "A.local", "B", "B.local", "C", "C.local", "D.local", "D"]
    );
    clean(&s, &[a, b, d], &sizes(&m, 4, &n, 3));
}

#[test]
fn test_schedule_cache_relayout1_2_3() {
    let (m, n) = (var("m"), var("n"));
    let a = placeholder([m.expr(), n.expr()], "A", DataType::Float32).unwrap();
    let b = placeholder([m.expr(), n.expr()], "B", DataType::Float32).unwrap();
    let c = compute_named(
        [m.expr(), n.expr()],
        &["i", "j"],
        |i| a.at([&i[0], &i[1]]) * b.at([&i[0], &i[1]]),
        "C",
    )
    .unwrap();
    // relayout1: reorder.
    let mut s = create_schedule(&[c.clone()]);
    s.reorder(&c, &[c.op().axis()[1].clone(), c.op().axis()[0].clone()])
        .unwrap();
    s.cache_write(&c, "global").unwrap();
    clean(&s, &[a.clone(), b.clone(), c.clone()], &sizes(&m, 3, &n, 5));

    // relayout2: split and reorder, rows `m * 4`.
    let rows = arith::Expr::mul(m.expr(), arith::Expr::int(4));
    let a = placeholder([rows.clone(), n.expr()], "A", DataType::Float32).unwrap();
    let b = placeholder([rows.clone(), n.expr()], "B", DataType::Float32).unwrap();
    let c = compute_named(
        [rows.clone(), n.expr()],
        &["i", "j"],
        |i| a.at([&i[0], &i[1]]) * b.at([&i[0], &i[1]]),
        "C",
    )
    .unwrap();
    let mut s = create_schedule(&[c.clone()]);
    let (x, y) = (c.op().axis()[0].clone(), c.op().axis()[1].clone());
    let (xo, xi) = s.split(&c, &x, 4).unwrap();
    s.reorder(&c, &[xo, y, xi]).unwrap();
    let cc = s.cache_write(&c, "global").unwrap();
    let shape: Vec<String> = cc.shape().iter().map(|e| e.to_string()).collect();
    assert_eq!(shape, ["m", "n", "4"]);
    let s = s.normalize();
    clean(&s, &[a.clone(), b.clone(), c], &sizes(&m, 2, &n, 3));

    // relayout3: a reduction whose data axis is split.
    let k = reduce_axis((arith::Expr::int(0), n.expr()), "k");
    let c = compute_named(
        [rows],
        &["i"],
        |i| {
            sum(
                a.at([&i[0], &k.expr()]) * b.at([&i[0], &k.expr()]),
                &[k.clone()],
            )
        },
        "C",
    )
    .unwrap();
    let mut s = create_schedule(&[c.clone()]);
    s.split(&c, &c.op().axis()[0], 4).unwrap();
    let cc = s.cache_write(&c, "global").unwrap();
    assert_eq!(cc.op().reduce_axis(), &[k]);
    let s = s.normalize();
    clean(&s, &[a, b, c], &sizes(&m, 2, &n, 3));
}

#[test]
fn test_auto_inline() {
    let (m, n) = (var("m"), var("n"));
    let shape = [m.expr(), n.expr()];
    let b = placeholder(shape.clone(), "B", DataType::Float32).unwrap();
    let c = placeholder(shape.clone(), "C", DataType::Float32).unwrap();
    let t2 = |t1: &Tensor| {
        compute_named(
            shape.clone(),
            &["i", "j"],
            |i| t1.at([&i[0], &i[1]]) + c.at([&i[0], &i[1]]),
            "T2",
        )
        .unwrap()
    };
    type Inline = fn(&mut Schedule) -> usize;
    let cases: [(Tensor, Tensor, &str, Inline); 3] = {
        let a = placeholder(shape.clone(), "A", DataType::Float32).unwrap();
        let elem = compute_named(
            shape.clone(),
            &["i", "j"],
            |i| a.at([&i[0], &i[1]]) * b.at([&i[0], &i[1]]),
            "T1",
        )
        .unwrap();
        let a1 = placeholder([1], "A", DataType::Float32).unwrap();
        let bcast = try_compute_tagged(
            shape.clone(),
            &["i", "j"],
            |i| Ok::<_, TeError>(a1.at([0]) * b.at([&i[0], &i[1]])),
            "T1",
            "broadcast",
            Attrs::new(),
        )
        .unwrap();
        let am = placeholder([m.expr()], "A", DataType::Float32).unwrap();
        let inj = compute_named(
            shape.clone(),
            &["i", "j"],
            |i| am.at([&i[0]]) * b.at([&i[0], &i[1]]),
            "T1",
        )
        .unwrap();
        [
            (a, elem, "elemwise", auto_inline_elem_wise as Inline),
            (a1, bcast, "broadcast", auto_inline_broadcast as Inline),
            (am, inj, "injective", auto_inline_injective as Inline),
        ]
    };
    for (a, t1, what, inline) in cases {
        let out = t2(&t1);
        let mut s = create_schedule(&[out.clone()]);
        assert_eq!(s.stage(&t1).unwrap().attach(), &Attach::Root, "{what}");
        assert_eq!(inline(&mut s), 1, "{what}");
        assert_eq!(s.stage(&t1).unwrap().attach(), &Attach::Inline, "{what}");
        let s = s.normalize();
        clean(&s, &[a, b.clone(), c.clone(), out], &sizes(&m, 3, &n, 4));
    }
}

#[test]
fn test_local_stage_predicate2() {
    let a = placeholder([128], "A", DataType::Float32).unwrap();
    let b = compute_named([128], &["bi"], |i| a.at([&i[0]]) + 1.0, "B").unwrap();
    let c = compute_named([128], &["ci"], |i| b.at([&i[0]]) + 2.0, "C").unwrap();
    let mut s = create_schedule(&[c.clone()]);
    let aa = s.cache_read(&a, "local", &[&b]).unwrap();
    s.set_scope(&b, "shared").unwrap();
    let block_x = te::IterVar::thread_axis("blockIdx.x").unwrap();
    let thread_x = te::IterVar::thread_axis("threadIdx.x").unwrap();
    let (oc, ic) = s.split(&c, &c.op().axis()[0], 64).unwrap();
    let (ooc, ioc) = s.split(&c, &oc, 2).unwrap();
    let (_oic, iic) = s.split(&c, &ic, 32).unwrap();
    s.bind(&c, &ooc, &block_x).unwrap();
    s.bind(&c, &iic, &thread_x).unwrap();
    s.compute_at(&b, &c, &ioc).unwrap();
    let (_ob, ib) = s.split(&b, &b.op().axis()[0], 32).unwrap();
    s.bind(&b, &ib, &thread_x).unwrap();
    s.compute_root(&aa).unwrap();
    s.compute_at(&aa, &c, &ooc).unwrap();
    let (_oaa, iaa) = s.split(&aa, &aa.op().axis()[0], 32).unwrap();
    s.bind(&aa, &iaa, &thread_x).unwrap();
    // TVM's test also checks that no `if` guards the stages, and that
    // A.local is allocated with 97 elements (its relaxation over the
    // threads); here the copy covers the 128 elements the block reads.
    let text = te::lower(&s, &[a.clone(), c.clone()]).unwrap().to_string();
    assert!(!text.contains("if ("), "{text}");
    assert!(text.contains("allocate A.local[float32 * 128]"), "{text}");
    clean(&s, &[a, c], &HashMap::new());
}
