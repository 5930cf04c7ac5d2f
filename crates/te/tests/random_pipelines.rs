//! Property test: random small pipelines (2-5 computed stages) with random
//! splits, fuses, reorders, compute_at and compute_inline; stages read
//! through affine indices, intrinsic calls, selects on values and gathers
//! (indices computed from `A`'s values), and reduce by sum, max, min or
//! product. The lowered
//! program must access nothing outside its buffers and regions, read no
//! element that was not computed, and produce exactly what the definitions
//! say; every stage computes at least the elements its consumers need.
//! Saved with `save_json` and loaded back, the schedule lowers to the same
//! program.
// `&[t.clone()]` mirrors TVM's `create_schedule([t])`.
#![allow(clippy::cloned_ref_to_slice_refs)]

use arith::{CmpOp, Expr};
use proptest::prelude::*;
use std::collections::HashMap;
use te::{
    check, compute_named, create_schedule, placeholder, reduce_axis, sum, Tensor, Value, XorShift,
};
use tir::{DataType, Intrinsic};

#[derive(Clone, Debug)]
struct StagePlan {
    /// (source tensor pick, access pattern) for each read.
    reads: Vec<(usize, u8)>,
    reduce: bool,
    /// (leaf pick, factor, by number of parts).
    splits: Vec<(usize, i64, bool)>,
    fuse: Option<usize>,
    reorder: Option<u64>,
    /// 0 root, 1 compute_at a consumer, 2 inline.
    placement: u8,
    attach_leaf: usize,
}

#[derive(Clone, Debug)]
struct Plan {
    rows: i64,
    cols: i64,
    stages: Vec<StagePlan>,
}

fn stage_plan() -> impl Strategy<Value = StagePlan> {
    (
        prop::collection::vec((0usize..8, 0u8..9), 1..3),
        prop::bool::weighted(0.2),
        prop::collection::vec((0usize..4, 1i64..6, any::<bool>()), 0..3),
        prop::option::of(0usize..4),
        prop::option::of(any::<u64>()),
        0u8..3,
        0usize..6,
    )
        .prop_map(
            |(reads, reduce, splits, fuse, reorder, placement, attach_leaf)| StagePlan {
                reads,
                reduce,
                splits,
                fuse,
                reorder,
                placement,
                attach_leaf,
            },
        )
}

fn plan() -> impl Strategy<Value = Plan> {
    (2i64..7, 2i64..7, prop::collection::vec(stage_plan(), 2..6))
        .prop_map(|(rows, cols, stages)| Plan { rows, cols, stages })
}

/// `T` read at a point `(i, j)` of a `rows x cols` stage, by pattern.
fn read(t: &Tensor, pattern: u8, i: &Expr, j: &Expr, rows: i64, cols: i64) -> Value {
    let idx = match pattern {
        0 => [i.clone(), j.clone()],
        1 => [Expr::min(i + 1, Expr::int(rows - 1)), j.clone()],
        2 => [i.clone(), Expr::max(j - 1, Expr::int(0))],
        3 => [Expr::int(rows - 1) - i.clone(), j.clone()],
        4 => [
            Expr::floor_mod(j.clone(), Expr::int(rows)),
            Expr::floor_mod(i.clone(), Expr::int(cols)),
        ],
        _ => [
            Expr::floor_div(i.clone(), Expr::int(2)),
            Expr::floor_mod(j * 2, Expr::int(cols)),
        ],
    };
    t.at(idx)
}

fn run_plan(p: &Plan, seed: u64) -> Result<(), TestCaseError> {
    let (rows, cols) = (p.rows, p.cols);
    let a = placeholder([rows, cols], "A", DataType::Float32).unwrap();
    let mut tensors = vec![a.clone()];
    let mut readers: Vec<Vec<usize>> = vec![Vec::new()];
    for (k, sp) in p.stages.iter().enumerate() {
        let idx = k + 1;
        let mut sources: Vec<(usize, u8)> =
            sp.reads.iter().map(|&(s, pat)| (s % idx, pat)).collect();
        if sp.reduce {
            // A reduction reads its first source only.
            sources.truncate(1);
        }
        for &(s, _) in &sources {
            if !readers[s].contains(&idx) {
                readers[s].push(idx);
            }
        }
        readers.push(Vec::new());
        let name = format!("S{idx}");
        let t = if sp.reduce {
            let kx = reduce_axis((0, cols), "k");
            let src = tensors[sources[0].0].clone();
            compute_named(
                [rows, cols],
                &["i", "j"],
                |x| {
                    let v = read(&src, 0, &x[0], &kx.expr(), rows, cols) * 0.5 + 1.0;
                    let axes = [kx.clone()];
                    // The first read's pattern picks the reducer.
                    match sources[0].1 % 4 {
                        0 => sum(v, &axes),
                        1 => te::max(v, &axes),
                        2 => te::min(v, &axes),
                        _ => te::prod(v, &axes),
                    }
                },
                &name,
            )
            .unwrap()
        } else {
            let srcs: Vec<(Tensor, u8)> = sources
                .iter()
                .map(|&(s, pat)| (tensors[s].clone(), pat))
                .collect();
            let a = a.clone();
            compute_named(
                [rows, cols],
                &["i", "j"],
                |x| {
                    let (i, j) = (&x[0], &x[1]);
                    let mut v = Value::float(1.0);
                    for (t, pat) in &srcs {
                        let term = match pat {
                            6 => Value::call(Intrinsic::Tanh, vec![read(t, 0, i, j, rows, cols)]),
                            7 => {
                                let r = read(t, 3, i, j, rows, cols);
                                let c = Value::cmp(CmpOp::Gt, r.clone(), Value::float(0.5));
                                Value::select_value(c, -r.clone(), r)
                            }
                            8 => {
                                // A row picked by `A`'s value: anywhere in `t`.
                                let pick = Value::cast(DataType::Int32, a.at([i, j]) * 4.0);
                                let row = Value::binary(te::BinaryOp::Mod, pick, Value::int(rows));
                                Value::gather(t, vec![row, Value::index(j.clone())])
                            }
                            _ => read(t, *pat, i, j, rows, cols),
                        };
                        v = v + term * 0.5;
                    }
                    v
                },
                &name,
            )
            .unwrap()
        };
        tensors.push(t);
    }
    let n = tensors.len();
    let outputs: Vec<Tensor> = (1..n)
        .filter(|&k| readers[k].is_empty())
        .map(|k| tensors[k].clone())
        .collect();
    let mut s = create_schedule(&outputs);
    // Loop structure.
    for (k, sp) in p.stages.iter().enumerate() {
        let t = &tensors[k + 1];
        for &(pick, factor, nparts) in &sp.splits {
            let leaves = s.stage(t).unwrap().leaf_iter_vars().to_vec();
            let axis = &leaves[pick % leaves.len()];
            if nparts {
                s.split_nparts(t, axis, factor).unwrap();
            } else {
                s.split(t, axis, factor).unwrap();
            }
        }
        if let Some(pos) = sp.fuse {
            let leaves = s.stage(t).unwrap().leaf_iter_vars().to_vec();
            let p0 = pos % (leaves.len() - 1).max(1);
            // Any two adjacent loops: a data loop fused with a reduction
            // loop is a reduction loop, as in TVM.
            if p0 + 1 < leaves.len() {
                s.fuse(t, &leaves[p0], &leaves[p0 + 1]).unwrap();
            }
        }
        if let Some(r) = sp.reorder {
            let mut leaves = s.stage(t).unwrap().leaf_iter_vars().to_vec();
            let mut rng = XorShift::new(r);
            for i in (1..leaves.len()).rev() {
                let j = rng.int_in(0, i as i64) as usize;
                leaves.swap(i, j);
            }
            s.reorder(t, &leaves).unwrap();
        }
    }
    // Placement, consumers first so that attach targets are settled.
    let mut inline = vec![false; n];
    for k in (1..n).rev() {
        let sp = &p.stages[k - 1];
        if sp.placement == 2 && !sp.reduce && !readers[k].is_empty() {
            s.compute_inline(&tensors[k]).unwrap();
            inline[k] = true;
        }
    }
    fn effective(k: usize, readers: &[Vec<usize>], inline: &[bool], out: &mut Vec<usize>) {
        for &r in &readers[k] {
            if inline[r] {
                effective(r, readers, inline, out);
            } else if !out.contains(&r) {
                out.push(r);
            }
        }
    }
    for k in (1..n).rev() {
        let sp = &p.stages[k - 1];
        if sp.placement != 1 || inline[k] {
            continue;
        }
        let mut cons = Vec::new();
        effective(k, &readers, &inline, &mut cons);
        if let [c] = cons[..] {
            let leaves = s.stage(&tensors[c]).unwrap().leaf_iter_vars().to_vec();
            let axis = &leaves[sp.attach_leaf % leaves.len()];
            s.compute_at(&tensors[k], &tensors[c], axis).unwrap();
        }
    }
    let mut args = vec![a];
    args.extend(outputs);
    // Saved and loaded, the schedule lowers to the same program.
    let text = te::save_json(&te::JsonObject::Schedule(Box::new(s.clone())))
        .map_err(|e| TestCaseError::fail(e.message))?;
    let Ok(te::JsonObject::Schedule(loaded)) = te::load_json(&text) else {
        return Err(TestCaseError::fail(format!("does not load: {text}")));
    };
    let lowered = |s: &te::Schedule| te::lower(s, &s.default_args()).map(|l| l.to_string());
    prop_assert_eq!(
        lowered(&loaded).map_err(|e| TestCaseError::fail(e.message))?,
        lowered(&s).map_err(|e| TestCaseError::fail(e.message))?
    );
    let r = check(&s, &args, &HashMap::new(), seed).map_err(|e| TestCaseError::fail(e.message))?;
    prop_assert_eq!(r.out_of_bounds, 0, "invalid accesses: {:?}", r.violations);
    // Relative: a reduction of reductions reaches values near 10^4, where
    // float32 storage alone rounds by more than 10^-4.
    prop_assert!(
        r.max_rel_error <= 1e-4,
        "relative error {} (absolute {})",
        r.max_rel_error,
        r.max_abs_error
    );
    for st in &r.stages {
        let k: usize = st.name[1..].parse().unwrap();
        if !inline[k] && !p.stages[k - 1].reduce {
            prop_assert!(
                st.runs >= st.needed,
                "{} ran {} times for {} needed",
                st.name,
                st.runs,
                st.needed
            );
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 128, ..ProptestConfig::default() })]
    #[test]
    fn random_pipelines_lower_to_correct_in_bounds_programs(p in plan(), seed in any::<u64>()) {
        run_plan(&p, seed)?;
    }
}
