//! Property test: random GPU schedules of a matrix product, as TVM's GEMM
//! and reduction schedules build them: output loops split and bound to
//! `blockIdx`/`threadIdx`, the reduction split, an input cached into
//! `shared` or `local` storage at a random loop and its loops bound to the
//! block's threads (a cooperative fetch, through the same or a new thread
//! axis), or the reduction's inner loop bound to `threadIdx.x` (a reduction
//! across threads, with or without `rfactor`). Every schedule rangefinder
//! accepts must run in bounds and compute exactly the definition; a
//! schedule it refuses must be refused with an error, never a panic. Saved
//! and loaded back (`save_json`), every schedule lowers to the same program.
#![allow(clippy::cloned_ref_to_slice_refs)]

use proptest::prelude::*;
use te::{
    check, compute_named, create_schedule, placeholder, reduce_axis, sum, IterVar, Schedule, Tensor,
};
use tir::DataType;

#[derive(Clone, Debug)]
struct Plan {
    rows: i64,
    cols: i64,
    depth: i64,
    /// Split factors of the two output axes (the inner loops are threads).
    row_factor: i64,
    col_factor: i64,
    /// Which output loops are bound: blocks, then threads.
    bind_blocks: bool,
    bind_threads: bool,
    /// Split factor of the reduction.
    k_factor: i64,
    /// 0: no cache; 1: A cached shared; 2: A cached local; 3: B cached shared.
    cache: u8,
    /// Which loop of the consumer the cache is computed at (counted from
    /// the innermost).
    attach_from_inner: usize,
    /// 0: the cache's loops stay loops; 1: its first axis bound to the
    /// consumer's threadIdx.y axis (the same object); 2: to a new
    /// `threadIdx.y` axis.
    coop: u8,
    /// Bind the inner reduction loop to threadIdx.x instead of the columns
    /// (a reduction across threads), factored out first with rfactor.
    cross_thread: Option<bool>,
}

fn plan() -> impl Strategy<Value = Plan> {
    (
        (1i64..10, 1i64..10, 1i64..12),
        (1i64..5, 1i64..5),
        (any::<bool>(), any::<bool>()),
        1i64..5,
        (0u8..4, 0usize..6, 0u8..3),
        prop::option::weighted(0.3, any::<bool>()),
    )
        .prop_map(
            |(
                (rows, cols, depth),
                (row_factor, col_factor),
                (bind_blocks, bind_threads),
                k_factor,
                (cache, attach_from_inner, coop),
                cross_thread,
            )| Plan {
                rows,
                cols,
                depth,
                row_factor,
                col_factor,
                bind_blocks,
                bind_threads,
                k_factor,
                cache,
                attach_from_inner,
                coop,
                cross_thread,
            },
        )
}

/// Builds the schedule of `p`: `Err` where the schedule API refuses a
/// step (an error, which is allowed).
fn schedule(p: &Plan) -> Result<(Schedule, Vec<Tensor>), te::TeError> {
    let a = placeholder([p.rows, p.depth], "A", DataType::Float32)?;
    let b = placeholder([p.depth, p.cols], "B", DataType::Float32)?;
    let k = reduce_axis((0, p.depth), "k");
    let c = compute_named(
        [p.rows, p.cols],
        &["i", "j"],
        |i| {
            sum(
                a.at([&i[0], &k.expr()]) * b.at([&k.expr(), &i[1]]),
                &[k.clone()],
            )
        },
        "C",
    )?;
    let mut s = create_schedule(&[c.clone()]);
    let thread_y = IterVar::thread_axis("threadIdx.y")?;
    let thread_x = IterVar::thread_axis("threadIdx.x")?;
    let (i, j) = (c.op().axis()[0].clone(), c.op().axis()[1].clone());
    let (bi, ti) = s.split(&c, &i, p.row_factor)?;
    let (bj, tj) = s.split(&c, &j, p.col_factor)?;
    let (ko, ki) = s.split(&c, &k, p.k_factor)?;
    s.reorder(
        &c,
        &[
            bi.clone(),
            bj.clone(),
            ti.clone(),
            tj.clone(),
            ko.clone(),
            ki.clone(),
        ],
    )?;
    if p.bind_blocks {
        s.bind(&c, &bi, &IterVar::thread_axis("blockIdx.x")?)?;
        s.bind(&c, &bj, &IterVar::thread_axis("blockIdx.y")?)?;
    }
    if let Some(factor_first) = p.cross_thread {
        s.bind(&c, &ti, &thread_y)?;
        if factor_first {
            let cf = s.rfactor(&c, &ki, 0)?;
            let red = s.stage(&c)?.op().reduce_axis()[0].clone();
            s.bind(&c, &red, &thread_x)?;
            s.compute_at(&cf, &c, &red)?;
        } else {
            s.bind(&c, &ki, &thread_x)?;
        }
        return Ok((s, vec![a, b, c]));
    }
    if p.bind_threads {
        s.bind(&c, &ti, &thread_y)?;
        s.bind(&c, &tj, &thread_x)?;
    }
    let cached = match p.cache {
        1 => Some(s.cache_read(&a, "shared", &[c.op().clone()])?),
        2 => Some(s.cache_read(&a, "local", &[c.op().clone()])?),
        3 => Some(s.cache_read(&b, "shared", &[c.op().clone()])?),
        _ => None,
    };
    if let Some(cache) = cached {
        let leaves = s.stage(&c)?.leaf_iter_vars().to_vec();
        let at = leaves[leaves.len() - 1 - p.attach_from_inner.min(leaves.len() - 1)].clone();
        s.compute_at(&cache, &c, &at)?;
        let first = cache.op().axis()[0].clone();
        match p.coop {
            1 => s.bind(&cache, &first, &thread_y)?,
            2 => s.bind(&cache, &first, &IterVar::thread_axis("threadIdx.y")?)?,
            _ => {}
        }
    }
    Ok((s, vec![a, b, c]))
}

/// Saved with `save_json` and loaded back, the schedule lowers to the same
/// program (or is refused with the same error).
fn round_trips(s: &Schedule) -> Result<(), TestCaseError> {
    let text = te::save_json(&te::JsonObject::Schedule(Box::new(s.clone())))
        .map_err(|e| TestCaseError::fail(e.message))?;
    let loaded = match te::load_json(&text) {
        Ok(te::JsonObject::Schedule(l)) => *l,
        Ok(_) => return Err(TestCaseError::fail("not a schedule")),
        Err(e) => return Err(TestCaseError::fail(format!("{}: {text}", e.message))),
    };
    let lowered = |s: &Schedule| {
        te::lower(s, &s.default_args())
            .map(|l| l.to_string())
            .map_err(|e| e.message)
    };
    prop_assert_eq!(lowered(&loaded), lowered(s));
    Ok(())
}

fn run(p: &Plan, seed: u64) -> Result<(), TestCaseError> {
    let Ok((s, args)) = schedule(p) else {
        return Ok(());
    };
    round_trips(&s)?;
    match check(&s, &args, &Default::default(), seed) {
        Ok(report) => {
            prop_assert!(report.is_clean(1e-4), "{p:?}\n{report:?}");
        }
        Err(e) => {
            // A refusal names what is not supported; it is not a wrong
            // program.
            prop_assert!(
                matches!(
                    e.kind,
                    te::ErrorKind::InvalidSchedule | te::ErrorKind::Unsupported
                ),
                "{p:?}: {:?} {}",
                e.kind,
                e.message
            );
        }
    }
    Ok(())
}

/// TVM's GEMM structure: a local accumulator (`cache_write`) computed at
/// the output's thread loop, shared tiles of both inputs computed at a
/// reduction loop of the accumulator, their axes split into parts bound
/// to the same thread axes.
#[derive(Clone, Debug)]
struct Gemm {
    n: i64,
    block: i64,
    threads: i64,
    k_factor: i64,
    /// The accumulator's reduction loop first (TVM's `reorder(k, yo, xo)`).
    k_outermost: bool,
    /// Attach the tiles at the outer (true) or inner reduction loop.
    at_outer_k: bool,
    /// Split the tiles' axes by parts (TVM's `nparts=num_thread`) or by
    /// factor.
    by_parts: bool,
}

fn gemm() -> impl Strategy<Value = Gemm> {
    (
        1i64..4,
        1i64..4,
        1i64..4,
        1i64..4,
        any::<bool>(),
        any::<bool>(),
        any::<bool>(),
    )
        .prop_map(
            |(tiles, threads, per_thread, k_factor, k_outermost, at_outer_k, by_parts)| Gemm {
                n: tiles * threads * per_thread + usize::from(tiles == 3) as i64,
                block: threads * per_thread,
                threads,
                k_factor,
                k_outermost,
                at_outer_k,
                by_parts,
            },
        )
}

fn gemm_schedule(g: &Gemm) -> Result<(Schedule, Vec<Tensor>), te::TeError> {
    let a = placeholder([g.n, g.n], "A", DataType::Float32)?;
    let b = placeholder([g.n, g.n], "B", DataType::Float32)?;
    let k = reduce_axis((0, g.n), "k");
    let c = compute_named(
        [g.n, g.n],
        &["i", "j"],
        |i| {
            sum(
                a.at([&i[0], &k.expr()]) * b.at([&i[1], &k.expr()]),
                &[k.clone()],
            )
        },
        "C",
    )?;
    let mut s = create_schedule(&[c.clone()]);
    let cc = s.cache_write(&c, "local")?;
    let aa = s.cache_read(&a, "shared", &[cc.op().clone()])?;
    let bb = s.cache_read(&b, "shared", &[cc.op().clone()])?;
    let (ty_axis, tx_axis) = (
        IterVar::thread_axis("threadIdx.y")?,
        IterVar::thread_axis("threadIdx.x")?,
    );
    let (i, j) = (c.op().axis()[0].clone(), c.op().axis()[1].clone());
    let (by, yi) = s.split(&c, &i, g.block)?;
    let (bx, xi) = s.split(&c, &j, g.block)?;
    let (ty, yi) = s.split_nparts(&c, &yi, g.threads)?;
    let (tx, xi) = s.split_nparts(&c, &xi, g.threads)?;
    s.reorder(
        &c,
        &[by.clone(), bx.clone(), ty.clone(), tx.clone(), yi, xi],
    )?;
    s.bind(&c, &by, &IterVar::thread_axis("blockIdx.y")?)?;
    s.bind(&c, &bx, &IterVar::thread_axis("blockIdx.x")?)?;
    s.bind(&c, &ty, &ty_axis)?;
    s.bind(&c, &tx, &tx_axis)?;
    s.compute_at(&cc, &c, &tx)?;
    let ck = cc.op().reduce_axis()[0].clone();
    let (ko, ki) = s.split(&cc, &ck, g.k_factor)?;
    if g.k_outermost {
        let (yo, xo) = (cc.op().axis()[0].clone(), cc.op().axis()[1].clone());
        s.reorder(&cc, &[ko.clone(), ki.clone(), yo, xo])?;
    }
    let at = if g.at_outer_k { ko } else { ki };
    for t in [&aa, &bb] {
        s.compute_at(t, &cc, &at)?;
        let first = t.op().axis()[0].clone();
        let (t_ty, rest) = if g.by_parts {
            s.split_nparts(t, &first, g.threads)?
        } else {
            s.split(t, &first, g.block / g.threads)?
        };
        let (t_tx, _) = s.split_nparts(t, &rest, g.threads)?;
        s.bind(t, &t_ty, &ty_axis)?;
        s.bind(t, &t_tx, &tx_axis)?;
    }
    Ok((s, vec![a, b, c]))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]
    #[test]
    fn random_gpu_schedules_run_as_defined(p in plan(), seed in any::<u64>()) {
        run(&p, seed)?;
    }

    #[test]
    fn random_gemm_schedules_run_as_defined(g in gemm(), seed in any::<u64>()) {
        let Ok((s, args)) = gemm_schedule(&g) else {
            return Ok(());
        };
        round_trips(&s)?;
        match check(&s, &args, &Default::default(), seed) {
            Ok(report) => prop_assert!(report.is_clean(1e-4), "{g:?}\n{report:?}"),
            Err(e) => prop_assert!(
                matches!(e.kind, te::ErrorKind::InvalidSchedule | te::ErrorKind::Unsupported),
                "{g:?}: {:?} {}",
                e.kind,
                e.message
            ),
        }
    }
}

/// The shapes of TVM's GEMM schedule at small sizes: the block's threads
/// fetch a shared tile together, and a reduction across threads, both run
/// clean (a fixed case, so the property cannot pass by refusing all).
#[test]
fn cooperative_and_cross_thread_cases_run() {
    for (cache, coop, cross_thread) in [
        (1, 1, None),
        (3, 2, None),
        (0, 0, Some(true)),
        (0, 0, Some(false)),
    ] {
        let p = Plan {
            rows: 8,
            cols: 8,
            depth: 6,
            row_factor: 4,
            col_factor: 4,
            bind_blocks: true,
            bind_threads: true,
            k_factor: 3,
            cache,
            attach_from_inner: 1,
            coop,
            cross_thread,
        };
        let (s, args) = schedule(&p).unwrap_or_else(|e| panic!("{p:?}: {}", e.message));
        let report = check(&s, &args, &Default::default(), 1)
            .unwrap_or_else(|e| panic!("{p:?}: {}", e.message));
        assert!(report.is_clean(1e-4), "{p:?}\n{report:?}");
    }
}
