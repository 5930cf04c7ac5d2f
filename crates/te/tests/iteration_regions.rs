//! What a stage computes and what is read of it per iteration of its
//! attach loops ([`te::iteration_regions`]): golden cases from seed 000
//! (Ex. 4, Ex. 6 with factors 4 and 3) and an oracle on random small
//! schedules: the stores of all iterations add up to the stage's runs in
//! [`te::check`], the elements read add up to what the definitions need,
//! every iteration reads only what it computed, and computes exactly the
//! realize region the report gives at that iteration.
#![allow(clippy::cloned_ref_to_slice_refs)]

use arith::{Expr, Var};
use proptest::prelude::*;
use std::collections::{BTreeSet, HashMap};
use te::{
    check, compute_named, create_schedule, every_iteration_region, iteration_regions, placeholder,
    report, Reference, RegionQuery, RunLimits, Schedule, Tensor, Value,
};
use tir::DataType;

fn at(pairs: &[(&str, i64)]) -> Vec<(String, i64)> {
    pairs.iter().map(|(n, v)| (n.to_string(), *v)).collect()
}

fn query(stage: &str, pairs: &[(&str, i64)]) -> RegionQuery {
    RegionQuery {
        stage: stage.into(),
        at: at(pairs),
    }
}

fn set(points: &[[i64; 2]]) -> BTreeSet<Vec<i64>> {
    points.iter().map(|p| p.to_vec()).collect()
}

/// Seed 000, Ex. 4: `C` computed at `D`'s `dk`, one element per iteration.
fn ex4() -> (Schedule, Vec<Tensor>) {
    let c = compute_named([5, 16], &["i", "j"], |_| Value::int(5), "C").unwrap();
    let d = compute_named(
        [4, 5, 16],
        &["di", "dj", "dk"],
        |i| c.at([&i[1], &i[2]]) * 2,
        "D",
    )
    .unwrap();
    let mut s = create_schedule(&[d.clone()]);
    s.compute_at(&c, &d, &d.op().axis()[2]).unwrap();
    (s, vec![d])
}

/// Seed 000, Ex. 6: `C[ci, cj] = B[ci, cj] * 3` over 4 x 4, fused, split by
/// `factor`, `B` computed at the outer loop.
fn ex6(factor: i64) -> (Schedule, Vec<Tensor>) {
    let a = placeholder([4, 4], "A", DataType::Float32).unwrap();
    let b = compute_named([4, 4], &["bi", "bj"], |i| a.at([&i[0], &i[1]]) + 2.0, "B").unwrap();
    let c = compute_named([4, 4], &["ci", "cj"], |i| b.at([&i[0], &i[1]]) * 3.0, "C").unwrap();
    let mut s = create_schedule(&[c.clone()]);
    let fused = s.fuse(&c, &c.op().axis()[0], &c.op().axis()[1]).unwrap();
    let (outer, _) = s.split(&c, &fused, factor).unwrap();
    s.compute_at(&b, &c, &outer).unwrap();
    (s, vec![a, c])
}

#[test]
fn ex4_computes_the_one_element_each_iteration_needs() {
    let (s, args) = ex4();
    let q = query("C", &[("di", 1), ("dj", 2), ("dk", 3)]);
    let r = &iteration_regions(&s, &args, &[q], &RunLimits::default()).unwrap()[0];
    assert_eq!(r.computed, set(&[[2, 3]]));
    assert_eq!(r.needed, r.computed);
    assert_eq!(r.realize, [(2, 1), (3, 1)]);
    assert_eq!(r.at, at(&[("di", 1), ("dj", 2), ("dk", 3)]));
    // Loops left out are at their first iteration.
    let q = query("C", &[("dj", 4)]);
    let r = &iteration_regions(&s, &args, &[q], &RunLimits::default()).unwrap()[0];
    assert_eq!(r.at, at(&[("di", 0), ("dj", 4), ("dk", 0)]));
    assert_eq!(r.computed, set(&[[4, 0]]));
}

#[test]
fn ex6_by_4_computes_one_row_per_iteration_without_waste() {
    let (s, args) = ex6(4);
    let q = query("B", &[("ci.cj.fused.outer", 1)]);
    let r = &iteration_regions(&s, &args, &[q], &RunLimits::default()).unwrap()[0];
    assert_eq!(r.computed, set(&[[1, 0], [1, 1], [1, 2], [1, 3]]));
    assert_eq!(r.needed, r.computed);
    assert_eq!(r.wasted().count(), 0);
    assert_eq!(r.realize, [(1, 1), (0, 4)]);
}

#[test]
fn ex6_by_3_computes_a_box_over_rows_it_partly_needs() {
    let (s, args) = ex6(3);
    // Fused indices 3, 4, 5: (0, 3), (1, 0), (1, 1), in a box of rows 0-1.
    let q = query("B", &[("ci.cj.fused.outer", 1)]);
    let r = &iteration_regions(&s, &args, &[q], &RunLimits::default()).unwrap()[0];
    assert_eq!(r.needed, set(&[[0, 3], [1, 0], [1, 1]]));
    assert_eq!(r.computed.len(), 8);
    assert_eq!(r.wasted().count(), 5);
    assert_eq!(r.missing().count(), 0);
    assert_eq!(r.realize, [(0, 2), (0, 4)]);
    // Iteration 2 (fused 6, 7, 8) stays within row 1 then row 2: a box again.
    let q = query("B", &[("ci.cj.fused.outer", 5)]);
    let r = &iteration_regions(&s, &args, &[q], &RunLimits::default()).unwrap()[0];
    assert_eq!(r.needed, set(&[[3, 3]]));
    assert_eq!(r.computed, r.needed);
}

#[test]
fn a_stage_at_the_root_has_one_iteration_the_whole_program() {
    let (s, args) = ex6(4);
    let q = query("C", &[]);
    let r = &iteration_regions(&s, &args, &[q], &RunLimits::default()).unwrap()[0];
    assert!(r.at.is_empty());
    assert_eq!(r.computed.len(), 16);
    // Nothing reads the output.
    assert!(r.needed.is_empty());
    assert_eq!(r.at_text(), "the root");
}

#[test]
fn unknown_loops_and_values_out_of_range_list_the_attach_loops() {
    let (s, args) = ex6(3);
    let e = iteration_regions(
        &s,
        &args,
        &[query("B", &[("xo", 1)])],
        &RunLimits::default(),
    )
    .unwrap_err();
    assert!(
        e.message.contains("no attach loop is called `xo`"),
        "{}",
        e.message
    );
    assert!(
        e.message
            .contains("its attach loops are ci.cj.fused.outer in [0, 6)"),
        "{}",
        e.message
    );
    let e = iteration_regions(
        &s,
        &args,
        &[query("B", &[("ci.cj.fused.outer", 6)])],
        &RunLimits::default(),
    )
    .unwrap_err();
    assert!(
        e.message
            .contains("`ci.cj.fused.outer` = 6 is outside [0, 6)"),
        "{}",
        e.message
    );
    let e = iteration_regions(&s, &args, &[query("Z", &[])], &RunLimits::default()).unwrap_err();
    assert!(
        e.message.contains("no computed stage is called `Z`"),
        "{}",
        e.message
    );
}

#[test]
fn a_run_over_the_step_budget_is_refused() {
    let (s, args) = ex4();
    let limits = RunLimits {
        max_steps: 100,
        ..Default::default()
    };
    let e = iteration_regions(&s, &args, &[query("C", &[])], &limits).unwrap_err();
    assert!(e.message.contains("steps"), "{}", e.message);
}

#[test]
fn default_iterations_are_the_first_and_a_middle_one() {
    let (s, _) = ex6(3);
    assert_eq!(
        te::default_iterations(&s, &te::attach_loops(&s, "B").unwrap()),
        [
            at(&[("ci.cj.fused.outer", 0)]),
            at(&[("ci.cj.fused.outer", 3)])
        ]
    );
    assert_eq!(
        te::default_iterations(&s, &te::attach_loops(&s, "C").unwrap()),
        [Vec::<(String, i64)>::new()]
    );
}

/// A random small schedule: `P` reads `A`, an optional inlined stage `I`
/// reads `P`, `C` reads `I` (or `P`) at an affine pattern; `C`'s loops are
/// split and fused; `P` is computed at one of them.
#[derive(Clone, Debug)]
struct Plan {
    rows: i64,
    cols: i64,
    pattern: u8,
    inlined: bool,
    fuse: bool,
    splits: Vec<(usize, i64)>,
    attach: usize,
    /// A layout of `P`: none, transposed, flattened, or pairs of columns.
    layout: u8,
}

fn plan() -> impl Strategy<Value = Plan> {
    (
        2i64..7,
        2i64..7,
        0u8..5,
        any::<bool>(),
        any::<bool>(),
        prop::collection::vec((0usize..4, 1i64..5), 0..3),
        0usize..6,
        0u8..4,
    )
        .prop_map(
            |(rows, cols, pattern, inlined, fuse, splits, attach, layout)| Plan {
                rows,
                cols,
                pattern,
                inlined,
                fuse,
                splits,
                attach,
                layout,
            },
        )
}

/// `t` read at `(i, j)` by pattern.
fn read(t: &Tensor, pattern: u8, i: &Expr, j: &Expr, rows: i64, cols: i64) -> Value {
    let idx = match pattern {
        0 => [i.clone(), j.clone()],
        1 => [Expr::min(i + 1, Expr::int(rows - 1)), j.clone()],
        2 => [i.clone(), Expr::max(j - 1, Expr::int(0))],
        3 => [Expr::int(rows - 1) - i.clone(), j.clone()],
        _ => [
            Expr::floor_div(i.clone(), Expr::int(2)),
            Expr::floor_div(j.clone(), Expr::int(2)),
        ],
    };
    let _ = cols;
    t.at(idx)
}

fn build(p: &Plan) -> (Schedule, Vec<Tensor>, Tensor, Tensor) {
    let (rows, cols) = (p.rows, p.cols);
    let a = placeholder([rows, cols], "A", DataType::Float32).unwrap();
    let pt = compute_named(
        [rows, cols],
        &["pi", "pj"],
        |x| a.at([&x[0], &x[1]]) + 1.0,
        "P",
    )
    .unwrap();
    let mid = if p.inlined {
        let pt = pt.clone();
        Some(
            compute_named(
                [rows, cols],
                &["ii", "ij"],
                |x| read(&pt, p.pattern, &x[0], &x[1], rows, cols) * 2.0,
                "I",
            )
            .unwrap(),
        )
    } else {
        None
    };
    let src = mid.clone().unwrap_or_else(|| pt.clone());
    let pattern = if p.inlined { 0 } else { p.pattern };
    let c = compute_named(
        [rows, cols],
        &["ci", "cj"],
        |x| read(&src, pattern, &x[0], &x[1], rows, cols) * 3.0,
        "C",
    )
    .unwrap();
    let mut s = create_schedule(&[c.clone()]);
    let map = match p.layout {
        1 => Some("lambda i, j: [j, i]".to_string()),
        2 => Some(format!("lambda i, j: [i * {cols} + j]")),
        // Pairs of columns, when they pair up (a computed tensor takes no
        // padding).
        3 if cols % 2 == 0 => Some("lambda i, j: [j // 2, i, j % 2]".to_string()),
        _ => None,
    };
    if let Some(map) = map {
        s.transform_layout(&pt, layout::IndexMap::parse(&map).unwrap())
            .unwrap();
    }
    if let Some(m) = &mid {
        s.compute_inline(m).unwrap();
    }
    if p.fuse {
        s.fuse(&c, &c.op().axis()[0], &c.op().axis()[1]).unwrap();
    }
    for &(pick, factor) in &p.splits {
        let leaves = s.stage(&c).unwrap().leaf_iter_vars().to_vec();
        s.split(&c, &leaves[pick % leaves.len()], factor).unwrap();
    }
    let leaves = s.stage(&c).unwrap().leaf_iter_vars().to_vec();
    s.compute_at(&pt, &c, &leaves[p.attach % leaves.len()])
        .unwrap();
    (s, vec![a.clone(), c.clone()], pt, c)
}

/// The elements of `p` the definitions need for every element of `c`.
fn reference_needed(
    a: &Tensor,
    p: &Tensor,
    c: &Tensor,
    rows: i64,
    cols: i64,
) -> BTreeSet<Vec<i64>> {
    let data = tir::Tensor::new(
        vec![rows as usize, cols as usize],
        vec![0.5; (rows * cols) as usize],
    )
    .unwrap();
    let inputs = HashMap::from([(a.op().id(), data)]);
    let sizes = HashMap::new();
    let mut r = Reference::new(&inputs, &sizes);
    for i in 0..rows {
        for j in 0..cols {
            r.element(c.op(), &[i, j]).unwrap();
        }
    }
    r.needed_elements(p.op()).into_iter().collect()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]
    #[test]
    fn iterations_add_up_to_the_run_and_compute_their_realize_region(p in plan()) {
        let (s, args, pt, c) = build(&p);
        let limits = RunLimits::default();
        let all = every_iteration_region(&s, &args, "P", &limits).unwrap();
        let checked = check(&s, &args, &HashMap::new(), 1).unwrap();
        let runs = checked.stage("P").unwrap().runs;
        prop_assert_eq!(all.iter().map(|r| r.stores).sum::<u64>(), runs);
        let mut needed = BTreeSet::new();
        for r in &all {
            prop_assert!(r.needed.is_subset(&r.computed), "at {}: reads {:?} of {:?}", r.at_text(), r.needed, r.computed);
            needed.extend(r.needed.iter().cloned());
        }
        prop_assert_eq!(needed, reference_needed(&args[0], &pt, &c, p.rows, p.cols));
        // Each iteration computes its realize region, which is the
        // report's region at that iteration.
        let rep = report(&s, &args).unwrap();
        let region = &rep.stage("P").unwrap().region;
        for r in &all {
            let values: HashMap<&str, i64> = r.at.iter().map(|(n, v)| (n.as_str(), *v)).collect();
            // A loop the program dropped has one iteration, at 0.
            let env = |v: &Var| Some(values.get(v.name()).copied().unwrap_or(0));
            let want: Vec<(i64, i64)> = region
                .iter()
                .map(|x| (x.min.eval(&env).unwrap(), x.extent.eval(&env).unwrap()))
                .collect();
            prop_assert_eq!(&r.realize, &want, "at {}", r.at_text());
            let mut boxed = BTreeSet::new();
            for i in want[0].0..want[0].0 + want[0].1 {
                for j in want[1].0..want[1].0 + want[1].1 {
                    boxed.insert(vec![i, j]);
                }
            }
            prop_assert_eq!(&r.computed, &boxed, "at {}", r.at_text());
        }
        // One iteration asked for by its values is the same as in the list.
        let mid = &all[all.len() / 2];
        let q = RegionQuery { stage: "P".into(), at: mid.at.clone() };
        let one = iteration_regions(&s, &args, &[q], &limits).unwrap();
        prop_assert_eq!(&one[0], mid);
    }
}

/// `B` stored as `[j // 2, i, j % 2]`, computed at `C`'s row loop (per
/// iteration in the transformed space) or at the root (whole).
fn transformed(at_row: bool) -> (Schedule, Vec<Tensor>) {
    let a = placeholder([4, 6], "A", DataType::Float32).unwrap();
    let b = compute_named([4, 6], &["i", "j"], |x| a.at([&x[0], &x[1]]) + 1.0, "B").unwrap();
    let c = compute_named([4, 6], &["i", "j"], |x| b.at([&x[0], &x[1]]) * 2.0, "C").unwrap();
    let mut s = create_schedule(&[c.clone()]);
    s.transform_layout(
        &b,
        layout::IndexMap::parse("lambda i, j: [j // 2, i, j % 2]").unwrap(),
    )
    .unwrap();
    if at_row {
        s.compute_at(&b, &c, &c.op().axis()[0]).unwrap();
    }
    (s, vec![a, c])
}

#[test]
fn a_transformed_stage_maps_its_physical_accesses_back_to_its_elements() {
    let (s, args) = transformed(true);
    let q = query("B", &[("i", 2)]);
    let r = &iteration_regions(&s, &args, &[q], &RunLimits::default()).unwrap()[0];
    let row: BTreeSet<Vec<i64>> = (0..6).map(|j| vec![2, j]).collect();
    assert_eq!(r.computed, row);
    assert_eq!(r.needed, row);
    assert_eq!(r.realize, [(2, 1), (0, 6)]);
    let p = r.physical.as_ref().unwrap();
    // One row in the transformed space: 3 x 1 x 2, flattened.
    assert_eq!(p.shape, [6]);
    assert_eq!(p.computed.len(), 6);
    assert_eq!(p.logical[&vec![1]], [2, 1]);
    assert_eq!(p.logical[&vec![2]], [2, 2]);
    // Every iteration adds up to the run.
    let all = every_iteration_region(&s, &args, "B", &RunLimits::default()).unwrap();
    let runs = check(&s, &args, &HashMap::new(), 0)
        .unwrap()
        .stage("B")
        .unwrap()
        .runs;
    assert_eq!(all.iter().map(|r| r.stores).sum::<u64>(), runs);
    for r in &all {
        assert_eq!(r.computed, r.needed);
    }
}

#[test]
fn a_transformed_stage_at_the_root_is_its_whole_physical_buffer() {
    let (s, args) = transformed(false);
    let r = &iteration_regions(&s, &args, &[query("B", &[])], &RunLimits::default()).unwrap()[0];
    assert_eq!(r.computed.len(), 24);
    assert_eq!(r.needed, r.computed);
    let p = r.physical.as_ref().unwrap();
    assert_eq!(p.shape, [24]);
    // [j // 2, i, j % 2] flattened over 3 x 4 x 2: (i, j) = (1, 3) is at
    // 1 * 8 + 1 * 2 + 1.
    assert_eq!(p.logical[&vec![11]], [1, 3]);
}

#[test]
fn an_iteration_that_needs_nothing_has_an_empty_region() {
    // C reads B only where i < 10; B is split into parts and computed at
    // C's loop, so its region has a negative extent for i > 10.
    let a = placeholder([20], "A", DataType::Float32).unwrap();
    let b = compute_named([20], &["i"], |x| a.at([&x[0]]) * 2.0, "B").unwrap();
    let c = compute_named(
        [20],
        &["i"],
        |x| {
            let cond = Expr::cmp(arith::CmpOp::Lt, x[0].clone(), Expr::int(10));
            Value::select(cond, b.at([&x[0] + 10]), Value::float(0.0))
        },
        "C",
    )
    .unwrap();
    let mut s = create_schedule(&[c.clone()]);
    s.split_nparts(&b, &b.op().axis()[0], 2).unwrap();
    s.compute_at(&b, &c, &c.op().axis()[0]).unwrap();
    let args = [a, c];
    let all = every_iteration_region(&s, &args, "B", &RunLimits::default()).unwrap();
    assert_eq!(all.len(), 20);
    assert_eq!(all[3].computed, BTreeSet::from([vec![13]]));
    assert!(all[12].computed.is_empty() && all[12].needed.is_empty());
    let runs = check(&s, &args, &HashMap::new(), 0)
        .unwrap()
        .stage("B")
        .unwrap()
        .runs;
    assert_eq!(all.iter().map(|r| r.stores).sum::<u64>(), runs);
}
