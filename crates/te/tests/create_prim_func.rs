//! `te::create_prim_func`: the block form of TE programs, with the regions
//! each block touches, checked against enumeration of the accesses.

use arith::{Expr, Var};
use std::collections::HashMap;
use te::{compute, create_prim_func, placeholder, reduce_axis, sum};
use tir::block::{BlockFunc, BlockStmt, IterKind};
use tir::DataType;

fn f32(shape: &[i64], name: &str) -> te::Tensor {
    placeholder(shape.to_vec(), name, DataType::Float32).unwrap()
}

#[test]
fn matmul_is_one_reduction_block_over_three_loops() {
    let a = f32(&[16, 8], "A");
    let b = f32(&[8, 4], "B");
    let k = reduce_axis((0, 8), "k");
    let c = compute(
        [16, 4],
        |i| {
            sum(
                a.at([i[0].clone(), k.expr()]) * b.at([k.expr(), i[1].clone()]),
                std::slice::from_ref(&k),
            )
        },
        "C",
    )
    .unwrap();
    let f = create_prim_func(&[a, b, c]).unwrap();
    let blocks = f.blocks();
    assert_eq!(blocks.len(), 1);
    let block = blocks[0];
    assert_eq!(block.name, "C");
    let kinds: Vec<IterKind> = block.iter_vars.iter().map(|v| v.kind).collect();
    assert_eq!(
        kinds,
        [IterKind::Spatial, IterKind::Spatial, IterKind::Reduce]
    );
    let text =
        |r: &[tir::block::BufferRegion]| r.iter().map(ToString::to_string).collect::<Vec<_>>();
    // The block writes C; with an init it does not list C among its reads.
    assert_eq!(text(&block.reads), ["A[v_i0, v_k]", "B[v_k, v_i1]"]);
    assert_eq!(text(&block.writes), ["C[v_i0, v_i1]"]);
    assert!(block.init.is_some());
    assert!(f.alloc_buffers.is_empty());
}

#[test]
fn intermediate_tensors_are_root_allocations_and_names_are_unique() {
    let a = f32(&[16, 16], "A");
    let b = compute([16, 16], |i| a.at([&i[0], &i[1]]) * 2.0, "main").unwrap();
    let c = compute([16, 16], |i| b.at([&i[0], &i[1]]) + 1.0, "main").unwrap();
    let f = create_prim_func(&[a, c]).unwrap();
    let names: Vec<&str> = f.blocks().iter().map(|b| b.name.as_str()).collect();
    assert_eq!(names, ["main", "main_1"]);
    assert_eq!(f.alloc_buffers.len(), 1);
    assert_eq!(f.params.len(), 2);
}

#[test]
fn a_placeholder_must_be_an_argument() {
    let a = f32(&[4], "A");
    let b = compute([4], |i| a.at([&i[0]]) + 1.0, "B").unwrap();
    let e = create_prim_func(&[b]).unwrap_err();
    assert!(
        e.message.contains("not among the function's arguments"),
        "{e}"
    );
}

#[test]
fn the_block_form_lowers_to_the_same_values_as_the_reference() {
    // A stencil reading A at i - 1, i and i + 1 (padded) and a reduction.
    let a = f32(&[10], "A");
    let p = compute(
        [12],
        |i| {
            let j = &i[0];
            te::Value::select(
                Expr::and(
                    Expr::ge(j.clone(), Expr::int(1)),
                    Expr::lt(j.clone(), Expr::int(11)),
                ),
                a.at([Expr::sub(j.clone(), Expr::int(1))]),
                te::Value::float(0.0),
            )
        },
        "P",
    )
    .unwrap();
    let b = compute(
        [10],
        |i| p.at([i[0].clone()]) + p.at([Expr::add(i[0].clone(), Expr::int(2))]),
        "B",
    )
    .unwrap();
    let f = create_prim_func(&[a.clone(), b.clone()]).unwrap();
    // B's block reads P at [v, v + 2]: one region covering both reads.
    let block_b = f.blocks()[1];
    assert_eq!(block_b.reads[0].to_string(), "P[v_i0:v_i0 + 3]");
    let program = tir::block::to_loop_ir(&f);
    let values: Vec<f64> = (0..10).map(|x| f64::from(x * x)).collect();
    let inputs = HashMap::from([(
        program.params[0].clone(),
        tir::Tensor::new(vec![10], values.clone()).unwrap(),
    )]);
    let out = tir::run(&program, &inputs, &HashMap::new()).unwrap();
    let got = out.tensor(&program.params[1]).unwrap().data();
    let at = |k: i64| {
        if (1..11).contains(&k) {
            values[(k - 1) as usize]
        } else {
            0.0
        }
    };
    for (x, g) in (0i64..).zip(got) {
        assert_eq!(*g, at(x) + at(x + 2), "B[{x}]");
    }
}

/// Every region of every block contains each element its body touches,
/// found by running the body's accesses over the block's domain.
#[test]
fn regions_contain_every_access() {
    let a = f32(&[9, 9], "A");
    let b = compute(
        [4, 4],
        |i| {
            a.at([
                Expr::mul(i[0].clone(), Expr::int(2)),
                Expr::add(i[1].clone(), Expr::int(1)),
            ])
        },
        "B",
    )
    .unwrap();
    let f = create_prim_func(&[a, b]).unwrap();
    let block = f.blocks()[0];
    assert_eq!(block.reads[0].to_string(), "A[v_i0 * 2, v_i1 + 1]");
    // A block whose body loops: the region is the loop's hull.
    let v = Var::new("v");
    let j = Var::new("j");
    let buf_a = f.params[0].clone();
    let out = f.params[1].clone();
    let body = BlockStmt::For {
        var: j.clone(),
        min: Expr::int(0),
        extent: Expr::int(3),
        kind: tir::ForKind::Serial,
        body: Box::new(BlockStmt::store(
            &out,
            [v.expr(), Expr::int(0)],
            tir::Value::load(
                &buf_a,
                [
                    Expr::add(v.expr(), j.expr()),
                    Expr::mul(j.expr(), Expr::int(3)),
                ],
            ),
        )),
    };
    let mut block = tir::block::Block::new(
        "L",
        vec![tir::block::BlockIterVar::new(
            &v,
            arith::Range::from_extent(Expr::int(4)),
            IterKind::Spatial,
        )],
        body,
    );
    tir::block::complete_regions(&mut block, &[buf_a.clone(), out.clone()]);
    assert_eq!(block.reads[0].to_string(), "A[v:v + 3, 0:7]");
    for vv in 0..4 {
        for jj in 0..3 {
            let (x, y) = (vv + jj, jj * 3);
            assert!((vv..vv + 3).contains(&x) && (0..7).contains(&y));
        }
    }
    let _: &BlockFunc = &f;
}

/// Runs the block form of `args` (inputs first, the output last) on
/// `inputs` and returns the output's values.
fn run_blocks(args: &[te::Tensor], inputs: Vec<Vec<f64>>) -> Vec<f64> {
    let f = create_prim_func(args).unwrap();
    let program = tir::block::to_loop_ir(&f);
    let given: HashMap<tir::Buffer, tir::Tensor> = program
        .params
        .iter()
        .zip(inputs)
        .map(|(b, data)| {
            let shape = b
                .shape()
                .iter()
                .map(|d| d.as_int().unwrap() as usize)
                .collect();
            (b.clone(), tir::Tensor::new(shape, data).unwrap())
        })
        .collect();
    let out = tir::run(&program, &given, &HashMap::new()).unwrap();
    out.tensor(program.params.last().unwrap())
        .unwrap()
        .data()
        .to_vec()
}

#[test]
fn an_axis_whose_range_uses_another_is_a_nested_block() {
    // B[i] = sum of A[i, 0..i): the reduction's range depends on `i`.
    let a = f32(&[5, 5], "A");
    let b = compute(
        [5],
        |i| {
            let rv = reduce_axis((Expr::int(0), i[0].clone()), "rv");
            sum(a.at([i[0].clone(), rv.expr()]), std::slice::from_ref(&rv))
        },
        "B",
    )
    .unwrap();
    let f = create_prim_func(&[a.clone(), b.clone()]).unwrap();
    let blocks = f.blocks();
    // The outer block binds `i`; the inner one, under a loop of `i`
    // iterations, reduces.
    assert_eq!(blocks.len(), 2);
    assert!(blocks[0].init.is_none());
    assert_eq!(blocks[0].reads[0].to_string(), "A[v_i0, 0:v_i0]");
    assert_eq!(blocks[1].iter_vars[1].dom.extent.to_string(), "v_i0");
    let values: Vec<f64> = (0..25).map(f64::from).collect();
    let got = run_blocks(&[a, b], vec![values.clone(), vec![0.0; 5]]);
    for (i, g) in got.iter().enumerate() {
        let want: f64 = (0..i).map(|k| values[i * 5 + k]).sum();
        assert_eq!(*g, want, "B[{i}]");
    }
}

#[test]
fn a_reduction_where_condition_guards_the_update() {
    // B[i] = sum of A[i, k] over k <= i: `where=` keeps the lower triangle.
    let a = f32(&[4, 4], "A");
    let k = reduce_axis((0, 4), "k");
    let b = compute(
        [4],
        |i| {
            te::reduce_where(
                te::Reducer::Sum,
                a.at([i[0].clone(), k.expr()]),
                std::slice::from_ref(&k),
                Expr::le(k.expr(), i[0].clone()),
            )
        },
        "B",
    )
    .unwrap();
    let values: Vec<f64> = (0..16).map(|x| f64::from(x) * 0.5).collect();
    let got = run_blocks(&[a, b], vec![values.clone(), vec![0.0; 4]]);
    for (i, g) in got.iter().enumerate() {
        let want: f64 = (0..=i).map(|k| values[i * 4 + k]).sum();
        assert_eq!(*g, want, "B[{i}]");
    }
}
