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

/// TVM's argmax over `(index, value)` pairs (`te_argmax_idx_val` of TVM's
/// `test_te_create_primfunc.py`), or over `(value, index)` pairs
/// (`te_argmax_val_idx`) when `val_first`: the combined index and value
/// both keep the accumulated pair where its value is at least the new
/// one, so a tie keeps the earlier index. Identity `(-1, lowest float32)`.
fn argmax(val_first: bool) -> te::CommReducer {
    let (vi, vv) = if val_first { (1, 0) } else { (0, 1) };
    let mut dtypes = [DataType::Int32, DataType::Float32];
    if val_first {
        dtypes.swap(0, 1);
    }
    let x = te::CommReducer::operands("x", &dtypes);
    let y = te::CommReducer::operands("y", &dtypes);
    let keep = || te::Value::cmp(arith::CmpOp::Ge, x[vv].clone(), y[vv].clone());
    let mut result = vec![
        te::Value::select_value(keep(), x[vi].clone(), y[vi].clone()),
        te::Value::select_value(keep(), x[vv].clone(), y[vv].clone()),
    ];
    let mut identity = vec![te::Value::int(-1), te::Value::float(f64::from(f32::MIN))];
    if val_first {
        result.swap(0, 1);
        identity.swap(0, 1);
    }
    te::CommReducer::new("argmax", &x, &y, result, identity).unwrap()
}

/// `argmax_v0[i], argmax_v1[i] = argmax((idx[i, k], val[i, k]), axis=k)`
/// over `[rows, cols]` (`(val, idx)` when `val_first`): the arguments
/// `[idx, val, argmax_v0, argmax_v1]` (`[val, idx, ...]`).
fn row_argmax(rows: impl Into<Expr>, cols: impl Into<Expr>, val_first: bool) -> Vec<te::Tensor> {
    let (rows, cols) = (rows.into(), cols.into());
    let idx = placeholder([rows.clone(), cols.clone()], "idx", DataType::Int32).unwrap();
    let val = placeholder([rows.clone(), cols.clone()], "val", DataType::Float32).unwrap();
    let mut inputs = vec![idx, val];
    if val_first {
        inputs.swap(0, 1);
    }
    let k = reduce_axis((Expr::int(0), cols), "k");
    let r = argmax(val_first);
    let out = te::try_compute_multi(
        [rows],
        &["i"],
        |i| {
            let sources = inputs
                .iter()
                .map(|t| t.at([i[0].clone(), k.expr()]))
                .collect();
            r.reduce(sources, std::slice::from_ref(&k), None)
        },
        "argmax",
    )
    .unwrap();
    inputs.extend(out);
    inputs
}

/// Runs the block form of `args` on `inputs` (one per input, in order)
/// and returns every output's values, in order.
fn run_outputs(args: &[te::Tensor], inputs: Vec<Vec<f64>>) -> Vec<Vec<f64>> {
    let f = create_prim_func(args).unwrap();
    let program = tir::block::to_loop_ir(&f);
    let n_inputs = inputs.len();
    let tensor = |b: &tir::Buffer, data: Vec<f64>| {
        let shape = b
            .shape()
            .iter()
            .map(|d| d.as_int().unwrap() as usize)
            .collect();
        tir::Tensor::new(shape, data).unwrap()
    };
    let given: HashMap<tir::Buffer, tir::Tensor> = program
        .params
        .iter()
        .zip(inputs)
        .map(|(b, data)| (b.clone(), tensor(b, data)))
        .collect();
    let out = tir::run(&program, &given, &HashMap::new()).unwrap();
    program.params[n_inputs..]
        .iter()
        .map(|b| out.tensor(b).unwrap().data().to_vec())
        .collect()
}

#[test]
fn an_argmax_is_one_block_that_binds_both_values_before_storing_them() {
    let args = row_argmax(3, 4, false);
    let f = create_prim_func(&args).unwrap();
    let blocks = f.blocks();
    assert_eq!(blocks.len(), 1);
    let block = blocks[0];
    let text =
        |r: &[tir::block::BufferRegion]| r.iter().map(ToString::to_string).collect::<Vec<_>>();
    // The first combined value reads `val` before `idx`; the outputs are
    // written, so with an init they are not reads.
    assert_eq!(text(&block.reads), ["val[v_i, v_k]", "idx[v_i, v_k]"]);
    assert_eq!(text(&block.writes), ["argmax.v0[v_i]", "argmax.v1[v_i]"]);
    let BlockStmt::Seq(init) = &**block.init.as_ref().unwrap() else {
        panic!("one init store per output: {:?}", block.init)
    };
    assert_eq!(init.len(), 2);
    // let v0 = ...; let v1 = ...; store both.
    let BlockStmt::Let {
        dtype: t0, body, ..
    } = &*block.body
    else {
        panic!("{:?}", block.body)
    };
    let BlockStmt::Let {
        dtype: t1, body, ..
    } = &**body
    else {
        panic!("{body:?}")
    };
    assert_eq!((*t0, *t1), (DataType::Int32, DataType::Float32));
    assert!(matches!(&**body, BlockStmt::Seq(v) if v.len() == 2));
}

/// Both orders of TVM's argmax give the index and value of each row's
/// first maximum. With `(value, index)` pairs the index is computed from
/// the accumulated value, so a store of the value before the index is
/// computed would lose it: the `let`s keep both computed from the old
/// pair.
#[test]
fn argmax_values_are_the_first_maximum_of_each_row() {
    // Rows with ties (the first index wins), negative values only, the
    // lowest float32 among others, and the lowest float32 only: it ties
    // with the identity, which is kept, so the index is -1.
    let lowest = f64::from(f32::MIN);
    let val = vec![
        1.0, 5.0, 5.0, -2.0, //
        -3.5, -1.25, -7.0, -1.25, //
        lowest, -9.0, lowest, -9.0, //
        lowest, lowest, lowest, lowest,
    ];
    let idx: Vec<f64> = (0..16).map(|k| f64::from(10 * k)).collect();
    let want_idx = [10.0, 50.0, 90.0, -1.0];
    let want_val = [5.0, -1.25, -9.0, lowest];
    let got = run_outputs(&row_argmax(4, 4, false), vec![idx.clone(), val.clone()]);
    assert_eq!(
        (got[0].as_slice(), got[1].as_slice()),
        (&want_idx[..], &want_val[..])
    );
    let got = run_outputs(&row_argmax(4, 4, true), vec![val, idx]);
    assert_eq!(
        (got[1].as_slice(), got[0].as_slice()),
        (&want_idx[..], &want_val[..])
    );

    // The same against the definitions on random inputs.
    for val_first in [false, true] {
        let args = row_argmax(5, 7, val_first);
        let s = te::create_schedule(&args[2..]);
        for seed in 0..3 {
            let err = te::check_block_form(&s, &args, &HashMap::new(), seed).unwrap();
            assert_eq!(err, 0.0, "seed {seed}, val_first {val_first}");
        }
    }
}

/// A single-value `comm_reducer` stores its combined value directly, as
/// TVM does for one buffer: no `let`.
#[test]
fn a_reducer_of_one_value_stores_without_a_let() {
    let a = f32(&[4, 6], "A");
    let x = te::CommReducer::operands("x", &[DataType::Float32]);
    let y = te::CommReducer::operands("y", &[DataType::Float32]);
    // The sum of squares folded in: x + y * y.
    let r = te::CommReducer::new(
        "sumsq",
        &x,
        &y,
        vec![x[0].clone() + y[0].clone() * y[0].clone()],
        vec![te::Value::float(0.0)],
    )
    .unwrap();
    let k = reduce_axis((0, 6), "k");
    let b = te::try_compute_multi(
        [4],
        &["i"],
        |i| {
            r.reduce(
                vec![a.at([i[0].clone(), k.expr()])],
                std::slice::from_ref(&k),
                None,
            )
        },
        "B",
    )
    .unwrap();
    let args = vec![a, b[0].clone()];
    let f = create_prim_func(&args).unwrap();
    let block = f.blocks()[0];
    assert!(
        matches!(&*block.body, BlockStmt::Store { .. }),
        "{:?}",
        block.body
    );
    let values: Vec<f64> = (0..24).map(|k| f64::from(k % 7) - 3.0).collect();
    let got = run_outputs(&args, vec![values.clone()]);
    for (i, g) in got[0].iter().enumerate() {
        let want: f64 = values[i * 6..i * 6 + 6].iter().map(|v| v * v).sum();
        assert_eq!(*g, want, "B[{i}]");
    }
}

/// The text TVM v0.19 prints for its own `te_argmax_idx_val`
/// (`test_te_create_primfunc.py`): the blocks, regions, init and the two
/// `let`s in TVM's names and order. Where it differs from TVM's: TVM
/// prints the combiner's `tvm.tir.Select` as `T.Select`; te does not keep
/// which of `Select` and `if_then_else` a program wrote (both choose by an
/// element condition), and writes `T.if_then_else`.
#[test]
fn an_argmax_prints_as_tvm_prints_it() {
    let (m, n) = (Var::new("m"), Var::new("n"));
    let f = create_prim_func(&row_argmax(m.expr(), n.expr(), false)).unwrap();
    assert_eq!(
        tir::block::block_tvmscript(&f),
        r#"# from tvm.script import tir as T

@T.prim_func
def main(var_idx: T.handle, var_val: T.handle, var_argmax_v0: T.handle, var_argmax_v1: T.handle):
    T.func_attr({"tir.noalias": T.bool(True)})
    m, n = T.int32(), T.int32()
    idx = T.match_buffer(var_idx, (m, n), "int32")
    val = T.match_buffer(var_val, (m, n))
    argmax_v0 = T.match_buffer(var_argmax_v0, (m,), "int32")
    argmax_v1 = T.match_buffer(var_argmax_v1, (m,))
    # with T.block("root"):
    for i, k in T.grid(m, n):
        with T.block("argmax"):
            v_i, v_k = T.axis.remap("SR", [i, k])
            T.reads(val[v_i, v_k], idx[v_i, v_k])
            T.writes(argmax_v0[v_i], argmax_v1[v_i])
            with T.init():
                argmax_v0[v_i] = -1
                argmax_v1[v_i] = T.float32(-340282346638528859811704183484516925440.0)
            v_argmax_v0: T.int32 = T.if_then_else(argmax_v1[v_i] >= val[v_i, v_k], argmax_v0[v_i], idx[v_i, v_k])
            v_argmax_v1: T.float32 = T.if_then_else(argmax_v1[v_i] >= val[v_i, v_k], argmax_v1[v_i], val[v_i, v_k])
            argmax_v0[v_i] = v_argmax_v0
            argmax_v1[v_i] = v_argmax_v1
"#
    );
}

/// A reducer whose identity reads a tensor at the compute's axis (TVM's
/// `test_loop_aware_initial_value`): the init stores that element, and
/// the block reads the tensor, first, since the init is visited first.
#[test]
fn an_identity_read_from_a_tensor_is_the_init() {
    let a = f32(&[5, 5], "a");
    let b = f32(&[5], "b");
    let ax = reduce_axis((0, 5), "ax");
    let t = te::try_compute_multi(
        [5],
        &["i"],
        |i| {
            let x = te::CommReducer::operands("x", &[DataType::Float32]);
            let y = te::CommReducer::operands("y", &[DataType::Float32]);
            let identity = vec![b.at([i[0].clone()])];
            let r = te::CommReducer::new(
                "reduce",
                &x,
                &y,
                vec![x[0].clone() + y[0].clone()],
                identity,
            )?;
            r.reduce(
                vec![a.at([i[0].clone(), ax.expr()])],
                std::slice::from_ref(&ax),
                None,
            )
        },
        "sum_red",
    )
    .unwrap();
    let args = vec![a, b, t[0].clone()];
    let f = create_prim_func(&args).unwrap();
    let text = tir::block::block_tvmscript(&f);
    assert!(
        text.contains(
            "            T.reads(b[v_i], a[v_i, v_ax])
            T.writes(sum_red[v_i])
            with T.init():
                sum_red[v_i] = b[v_i]
            sum_red[v_i] = sum_red[v_i] + a[v_i, v_ax]
"
        ),
        "{text}"
    );
    let s = te::create_schedule(&t);
    for seed in 0..3 {
        assert_eq!(
            te::check_block_form(&s, &args, &HashMap::new(), seed).unwrap(),
            0.0
        );
    }
}

/// A combiner whose second value reads the first accumulated one
/// (`(x0 + y0, x1 + x0)`): te's loop lowering stores the values one after
/// another as TVM's `MakeReduction` does, and refuses it; the block
/// form's `let`s compute both from the old pair, so it runs right.
#[test]
fn a_combiner_reading_another_accumulated_value_runs_right_in_block_form() {
    let dtypes = [DataType::Float32, DataType::Float32];
    let x = te::CommReducer::operands("x", &dtypes);
    let y = te::CommReducer::operands("y", &dtypes);
    let result = vec![x[0].clone() + y[0].clone(), x[1].clone() + x[0].clone()];
    let zero = || te::Value::float(0.0);
    let r = te::CommReducer::new("r", &x, &y, result, vec![zero(), zero()]).unwrap();
    let a = f32(&[3, 4], "A");
    let k = reduce_axis((0, 4), "k");
    let t = te::try_compute_multi(
        [3],
        &["i"],
        |i| {
            let v = a.at([i[0].clone(), k.expr()]);
            r.reduce(vec![v.clone(), v], std::slice::from_ref(&k), None)
        },
        "T",
    )
    .unwrap();
    let args = vec![a, t[0].clone(), t[1].clone()];
    let values: Vec<f64> = (0..12).map(|v| f64::from(v) - 4.5).collect();
    let got = run_outputs(&args, vec![values.clone()]);
    for row in 0..3 {
        // x1 gains the running sum before each new value is added.
        let (mut s0, mut s1) = (0.0, 0.0);
        for k in 0..4 {
            (s0, s1) = (s0 + values[row * 4 + k], s1 + s0);
        }
        assert_eq!((got[0][row], got[1][row]), (s0, s1), "row {row}");
    }
    let s = te::create_schedule(&t);
    assert_eq!(
        te::check_block_form(&s, &args, &HashMap::new(), 1).unwrap(),
        0.0
    );
}

/// A combiner that uses the reduction axis (the index of the value folded
/// in, rather than a source): the block's update reads it as its block
/// variable `v_k`.
#[test]
fn a_combiner_may_use_the_reduction_axis() {
    let a = f32(&[3, 5], "A");
    let k = reduce_axis((0, 5), "k");
    let dtypes = [DataType::Int32, DataType::Float32];
    let x = te::CommReducer::operands("x", &dtypes);
    let y = te::CommReducer::operands("y", &dtypes);
    let keep = || te::Value::cmp(arith::CmpOp::Ge, x[1].clone(), y[1].clone());
    let result = vec![
        te::Value::select_value(keep(), x[0].clone(), te::Value::index(k.expr())),
        te::Value::select_value(keep(), x[1].clone(), y[1].clone()),
    ];
    let identity = vec![te::Value::int(-1), te::Value::float(f64::from(f32::MIN))];
    let r = te::CommReducer::new("argmax", &x, &y, result, identity).unwrap();
    let t = te::try_compute_multi(
        [3],
        &["i"],
        |i| {
            let sources = vec![te::Value::int(0), a.at([i[0].clone(), k.expr()])];
            r.reduce(sources, std::slice::from_ref(&k), None)
        },
        "T",
    )
    .unwrap();
    let args = vec![a, t[0].clone(), t[1].clone()];
    let f = create_prim_func(&args).unwrap();
    let text = tir::block::block_tvmscript(&f);
    assert!(
        text.contains("T.if_then_else(T_v1[v_i] >= A[v_i, v_k], T_v0[v_i], v_k)"),
        "{text}"
    );
    let values = vec![
        2.0, 7.0, -1.0, 7.0, 0.0, //
        -5.0, -6.0, -4.5, -8.0, -4.5, //
        0.0, 0.0, 0.0, 0.0, 0.0,
    ];
    let got = run_outputs(&args, vec![values]);
    assert_eq!(got[0], [1.0, 2.0, 0.0]);
    assert_eq!(got[1], [7.0, -4.5, 0.0]);
    let s = te::create_schedule(&t);
    assert_eq!(
        te::check_block_form(&s, &args, &HashMap::new(), 2).unwrap(),
        0.0
    );
}

/// A tuple reduction over two axes, the second's range using the
/// compute's axis, is nested blocks; the outer one, which defines the
/// first reduction axis, has an init of every output too, as in TVM. (Its
/// values are not compared: as TVM builds it, the inner block's init
/// holds at the start of each outer reduction step, since its copy of the
/// outer axis is at the start of its one-point domain, and restarts the
/// reduction there; a `te.sum` of that shape does the same.) A tuple
/// reduction over an axis whose range uses the compute's axis, and one
/// under `where=`, compute the definitions' values.
#[test]
fn tuple_reductions_nest_and_take_a_condition() {
    let idx = placeholder([4, 4], "idx", DataType::Int32).unwrap();
    let val = f32(&[4, 4], "val");
    let r = argmax(false);
    let two_levels = te::try_compute_multi(
        [4],
        &["i"],
        |i| {
            let k1 = reduce_axis((0, 2), "k1");
            let half = Expr::floor_div(i[0].clone(), Expr::int(2));
            let k2 = reduce_axis((Expr::int(0), Expr::add(half, Expr::int(1))), "k2");
            let at = |t: &te::Tensor| t.at([i[0].clone(), Expr::add(k1.expr(), k2.expr())]);
            r.reduce(vec![at(&idx), at(&val)], &[k1.clone(), k2.clone()], None)
        },
        "two",
    )
    .unwrap();
    let args = vec![
        idx.clone(),
        val.clone(),
        two_levels[0].clone(),
        two_levels[1].clone(),
    ];
    let f = create_prim_func(&args).unwrap();
    let blocks = f.blocks();
    assert_eq!(blocks.len(), 2);
    for block in blocks {
        let Some(BlockStmt::Seq(init)) = block.init.as_deref() else {
            panic!(
                "block `{}` inits both outputs: {:?}",
                block.name, block.init
            )
        };
        assert_eq!(init.len(), 2);
    }

    let triangle = te::try_compute_multi(
        [4],
        &["i"],
        |i| {
            let k = reduce_axis((Expr::int(0), Expr::add(i[0].clone(), Expr::int(1))), "k");
            let at = |t: &te::Tensor| t.at([i[0].clone(), k.expr()]);
            r.reduce(vec![at(&idx), at(&val)], std::slice::from_ref(&k), None)
        },
        "tri",
    )
    .unwrap();
    let k = reduce_axis((0, 4), "k");
    let guarded = te::try_compute_multi(
        [4],
        &["i"],
        |i| {
            let at = |t: &te::Tensor| t.at([i[0].clone(), k.expr()]);
            let odd = Expr::eq(Expr::floor_mod(k.expr(), Expr::int(2)), Expr::int(1));
            r.reduce(
                vec![at(&idx), at(&val)],
                std::slice::from_ref(&k),
                Some(odd),
            )
        },
        "odd",
    )
    .unwrap();
    for outputs in [triangle, guarded] {
        let args = vec![
            idx.clone(),
            val.clone(),
            outputs[0].clone(),
            outputs[1].clone(),
        ];
        let s = te::create_schedule(&outputs);
        for seed in 0..3 {
            let err = te::check_block_form(&s, &args, &HashMap::new(), seed).unwrap();
            assert_eq!(err, 0.0, "{} seed {seed}", outputs[0].name());
        }
    }
}
