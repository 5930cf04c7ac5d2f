//! Generated corpus: a producer computed at a loop of its consumer over
//! symbolic sizes whose exact per-iteration bounds outgrow
//! `te::BOUND_BUDGET` (sizes like `w * ((w + 1) * 2) - 3`, splits by
//! symbolic factors, fuses). Every program must run clean (every element
//! read was computed, outputs equal the definitions). The two programs
//! below must run their producer at most twice what is needed; on the
//! corpus, widening to the whole axis ran 18.8 times what was needed
//! (81,045 runs for 4,321); anchored regions, with the point of one
//! iteration kept exact through splits and fuses, run 1.5 times (6,402).
#![allow(clippy::cloned_ref_to_slice_refs)]

use arith::{Expr, Var};
use std::collections::HashMap;
use te::{check, compute_named, create_schedule, placeholder, Tensor, Value, XorShift};
use tir::DataType;

/// How `C` reads `B` at its index.
type Reader<'a> = Box<dyn Fn(&Expr) -> Value + 'a>;

/// One generated program: the producer's runs and what was needed.
struct Outcome {
    runs: u64,
    needed: u64,
    text: String,
}

/// A size over the symbolic `w` (and `h`), large once written out.
fn size(pick: i64, w: &Expr, h: &Expr) -> Expr {
    match pick {
        0 => w.clone() * ((w.clone() + 1) * 2) - 3,
        1 => (h.clone() + 2) * w.clone() * 2,
        2 => w.clone() * w.clone() + h.clone() * 3 + 1,
        _ => (w.clone() + 1) * (h.clone() + 1) - 1,
    }
}

fn program(rng: &mut XorShift, w: &Var, h: &Var) -> te::Result<Outcome> {
    let (we, he) = (w.expr(), h.expr());
    let size_pick = rng.int_in(0, 3);
    let n = size(size_pick, &we, &he);
    let pattern = rng.int_in(0, 4);
    let a = placeholder([n.clone()], "A", DataType::Float32)?;
    let b = compute_named([n.clone()], &["i"], |i| a.at([&i[0]]) + 1.0, "B")?;
    let at = |t: &Tensor, e: Expr| -> Value { t.at([&e]) };
    let (m, body): (Expr, Reader) = match pattern {
        0 => (
            Expr::floor_div(n.clone(), Expr::int(2)),
            Box::new(|i: &Expr| at(&b, i.clone() * 2) + at(&b, i.clone() * 2 + 1)),
        ),
        1 => (
            n.clone() * 2,
            Box::new(|i: &Expr| at(&b, Expr::floor_div(i.clone(), Expr::int(2)))),
        ),
        2 => (
            n.clone() - 1,
            Box::new(|i: &Expr| at(&b, i.clone()) + at(&b, i.clone() + 1)),
        ),
        3 => (
            Expr::floor_div(n.clone() + 2, Expr::int(3)),
            Box::new(|i: &Expr| at(&b, Expr::min(i.clone() * 3 + 2, n.clone() - 1))),
        ),
        _ => (n.clone(), Box::new(|i: &Expr| at(&b, i.clone()) * 2.0)),
    };
    let c = compute_named([m], &["j"], |i| body(&i[0]), "C")?;
    let mut s = create_schedule(&[c.clone()]);
    let j = c.op().axis()[0].clone();
    let amount = match rng.int_in(0, 3) {
        0 => Expr::int(rng.int_in(2, 8)),
        1 => we.clone() + 1,
        2 => he.clone(),
        _ => Expr::int(3),
    };
    let nparts = rng.int_in(0, 1) == 1;
    let (outer, inner) = if nparts {
        s.split_nparts(&c, &j, amount.clone())?
    } else {
        s.split(&c, &j, amount.clone())?
    };
    let mut text = format!(
        "n = {n}, C[j] pattern {pattern}, split {} {amount}",
        if nparts { "nparts" } else { "factor" }
    );
    let place = rng.int_in(0, 2);
    let axis = match place {
        0 => outer,
        1 => inner,
        _ => s.fuse(&c, &outer, &inner)?,
    };
    text += &format!(", B at {}", axis.name());
    s.compute_at(&b, &c, &axis)?;
    let sizes = HashMap::from([(w.clone(), rng.int_in(2, 6)), (h.clone(), rng.int_in(1, 5))]);
    let r = check(&s, &[a, c], &sizes, rng.next_u64())?;
    assert!(
        r.is_clean(te::TOLERANCE),
        "{text}: not clean: {:?}",
        r.violations
    );
    let st = r.stage("B").expect("B ran");
    Ok(Outcome {
        runs: st.runs,
        needed: st.needed,
        text,
    })
}

/// `B` at a loop of `C`: the runs of `B` against what `C` needs.
fn runs_and_needed(s: &te::Schedule, args: &[Tensor], sizes: &[(&Var, i64)]) -> (u64, u64) {
    let sizes = sizes.iter().map(|(v, x)| ((*v).clone(), *x)).collect();
    let r = check(s, args, &sizes, 0).unwrap();
    assert!(r.is_clean(te::TOLERANCE), "{:?}", r.violations);
    let b = r.stage("B").unwrap();
    (b.runs, b.needed)
}

#[test]
fn pairs_of_a_large_symbolic_axis_at_a_split_tail_are_computed_per_iteration() {
    // Widened to the whole axis, B ran 5,886 times for 108 elements.
    let w = Var::new("w");
    let we = w.expr();
    let n = we.clone() * ((we + 1) * 2) - 3;
    let a = placeholder([n.clone()], "A", DataType::Float32).unwrap();
    let b = compute_named([n.clone()], &["i"], |i| a.at([&i[0]]) + 1.0, "B").unwrap();
    let c = compute_named(
        [Expr::floor_div(n, Expr::int(2))],
        &["i"],
        |i| b.at([&(i[0].clone() * 2)]) + b.at([&(i[0].clone() * 2 + 1)]),
        "C",
    )
    .unwrap();
    let mut s = create_schedule(&[c.clone()]);
    let (_, inner) = s.split_nparts(&c, &c.op().axis()[0], 2).unwrap();
    s.compute_at(&b, &c, &inner).unwrap();
    let (runs, needed) = runs_and_needed(&s, &[a, c], &[(&w, 7)]);
    assert_eq!(needed, 108);
    assert!(runs <= 2 * needed, "runs {runs}");
}

#[test]
fn halves_of_a_fused_symbolic_axis_are_computed_per_iteration() {
    // Widened to the whole axis, B ran 7,938 times where C's 126 iterations
    // need one element each.
    let (h, n) = (Var::new("h"), Var::new("n"));
    let m = (h.expr() + 2) * n.expr() * 2;
    let half = Expr::floor_div(m.clone(), Expr::int(2));
    let a = placeholder([half.clone()], "A", DataType::Float32).unwrap();
    let b = compute_named([half], &["i"], |i| a.at([&i[0]]) + 1.0, "B").unwrap();
    let c = compute_named(
        [m],
        &["i"],
        |i| b.at([&Expr::floor_div(i[0].clone(), Expr::int(2))]),
        "C",
    )
    .unwrap();
    let mut s = create_schedule(&[c.clone()]);
    let (o, i) = s.split(&c, &c.op().axis()[0], 8).unwrap();
    let f = s.fuse(&c, &o, &i).unwrap();
    s.compute_at(&b, &c, &f).unwrap();
    let (runs, _) = runs_and_needed(&s, &[a, c], &[(&h, 7), (&n, 7)]);
    assert!(runs <= 2 * 126, "runs {runs}");
}

#[test]
fn producers_at_symbolic_loops_run_at_most_twice_what_is_needed() {
    let (w, h) = (Var::new("w"), Var::new("h"));
    let mut rng = XorShift::new(23);
    let (mut runs, mut needed, mut worst) = (0u64, 0u64, (0.0f64, String::new()));
    for _ in 0..150 {
        let o = program(&mut rng, &w, &h).expect("a valid schedule");
        runs += o.runs;
        needed += o.needed;
        let ratio = o.runs as f64 / o.needed.max(1) as f64;
        if ratio > worst.0 {
            worst = (ratio, o.text);
        }
    }
    eprintln!(
        "widening corpus: runs {runs}, needed {needed}, excess {}; worst {:.1}x: {}",
        runs - needed,
        worst.0,
        worst.1
    );
    assert!(
        runs <= 2 * needed,
        "runs {runs} vs needed {needed}; worst {:.1}x: {}",
        worst.0,
        worst.1
    );
}
