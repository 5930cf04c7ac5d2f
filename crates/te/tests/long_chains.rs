//! Compute bodies and index expressions that are flat chains of 100,000
//! terms (left-deep, as a front end builds `A[i] + A[i] + ...`) through
//! bound inference, lowering, printing, the interpreter and the reference
//! evaluator, on a thread with a 2 MiB stack (a quarter of a main thread's).
// `&[t.clone()]` mirrors TVM's `create_schedule([t])`.
#![allow(clippy::cloned_ref_to_slice_refs)]

use arith::Expr;
use std::collections::HashMap;
use te::{compute_named, create_schedule, infer_bound, lower, placeholder, Reference, Value};
use tir::DataType;

const N: usize = 100_000;

fn on_small_stack(f: impl FnOnce() + Send + 'static) {
    std::thread::Builder::new()
        .stack_size(2 << 20)
        .spawn(f)
        .unwrap()
        .join()
        .unwrap();
}

/// `t + t + ... + t`, `n` terms, left-deep.
fn sum_of(t: &Value, n: usize) -> Value {
    let mut acc = t.clone();
    for _ in 1..n {
        acc = acc + t.clone();
    }
    acc
}

#[test]
fn a_body_of_100000_loads_lowers_prints_and_runs() {
    on_small_stack(|| {
        let a = placeholder([4], "A", DataType::Float32).unwrap();
        let b = compute_named([4], &["i"], |i| sum_of(&a.at([&i[0]]), N), "B").unwrap();
        // C reads B through an inlined stage: inlining substitutes the chain.
        let c = compute_named([4], &["j"], |i| b.at([&i[0]]) * 2.0, "C").unwrap();
        let mut s = create_schedule(&[c.clone()]);
        s.compute_inline(&b).unwrap();
        let bounds = infer_bound(&s).unwrap();
        assert_eq!(
            bounds.range(&c.op().axis()[0]).unwrap().to_string(),
            "[0, 4)"
        );
        let text = lower(&s, &[a.clone(), c.clone()]).unwrap().to_string();
        assert_eq!(text.matches("A[j]").count(), N, "every term is printed");
        let report = te::check(&s, &[a.clone(), c.clone()], &HashMap::new(), 7).unwrap();
        assert!(report.is_clean(1e-3), "{report:?}");
        // The reference evaluator on its own: the body is `N * A[i]`.
        let inputs = HashMap::from([(
            a.op().id(),
            tir::Tensor::from_fn(&[4], |i| i[0] as f64 + 0.5),
        )]);
        let sizes = HashMap::new();
        let mut reference = Reference::new(&inputs, &sizes);
        for i in 0..4 {
            let want = 2.0 * N as f64 * (i as f64 + 0.5);
            let got = reference.element(c.op(), &[i]).unwrap();
            assert!((got - want).abs() <= want * 1e-6, "{got} vs {want}");
        }
    });
}

#[test]
fn an_index_of_100000_terms_is_lowered_printed_and_run() {
    on_small_stack(|| {
        let a = placeholder([8], "A", DataType::Float32).unwrap();
        // `i + i - i + i - ... + i`: reads `A[2 * i]`, however it is written.
        let b = compute_named(
            [4],
            &["i"],
            |i| {
                let mut e: Expr = i[0].clone();
                for k in 1..N {
                    e = if k % 2 == 1 {
                        Expr::add(e, i[0].clone())
                    } else {
                        Expr::sub(e, i[0].clone())
                    };
                }
                a.at([e])
            },
            "B",
        )
        .unwrap();
        let s = create_schedule(&[b.clone()]);
        let bounds = infer_bound(&s).unwrap();
        assert_eq!(
            bounds.range(&b.op().axis()[0]).unwrap().to_string(),
            "[0, 4)"
        );
        let text = lower(&s, &[a.clone(), b.clone()]).unwrap().to_string();
        assert!(text.contains("B[i] = A["), "{}", &text[..200]);
        let checked = te::check(&s, &[a.clone(), b.clone()], &HashMap::new(), 3).unwrap();
        assert!(checked.is_clean(0.0), "{checked:?}");
        assert_eq!(checked.stage("B").unwrap().runs, 4);
        // The reference evaluator reads `A[2 * i]`.
        let inputs = HashMap::from([(a.op().id(), tir::Tensor::from_fn(&[8], |i| i[0] as f64))]);
        let sizes = HashMap::new();
        let mut reference = Reference::new(&inputs, &sizes);
        for i in 0..4 {
            assert_eq!(reference.element(b.op(), &[i]).unwrap(), 2.0 * i as f64);
        }
    });
}

/// A body or a size reused through a variable (`v = v + v` eighty times)
/// stands for a tree of about `2^80` nodes: defining it is an error that
/// says so, found without walking the tree, not a hang.
#[test]
fn a_body_or_size_doubled_through_a_variable_is_refused() {
    let a = placeholder([4], "A", DataType::Float32).unwrap();
    let mut v = a.at([Expr::int(0)]);
    for _ in 0..80 {
        v = v.clone() + v;
    }
    let err = compute_named([4], &["i"], |_| v.clone(), "B").unwrap_err();
    assert!(
        err.message.contains("more than 4 billion nodes"),
        "{}",
        err.message
    );
    let n = arith::Var::new("n");
    let mut size = n.expr();
    for _ in 0..80 {
        size = Expr::add(size.clone(), size);
    }
    let err = placeholder([size], "C", DataType::Float32).unwrap_err();
    assert!(
        err.message.contains("dimension 0 of `C`"),
        "{}",
        err.message
    );
    // Reused a few times, a value is fine: 2^10 loads.
    let mut w = a.at([Expr::int(0)]);
    for _ in 0..10 {
        w = w.clone() + w;
    }
    assert_eq!(w.written_size(), 2 * 1024 - 1 + 1024);
    assert!(compute_named([4], &["i"], |_| w.clone(), "D").is_ok());
}

/// `T_k = T_{k-1}[i] + 1` for `k` in `1..=n`, from a placeholder `A`.
fn stage_chain(n: usize) -> (te::Tensor, te::Tensor) {
    let a = placeholder([4], "A", DataType::Float32).unwrap();
    let mut t = a.clone();
    for _ in 0..n {
        let prev = t.clone();
        t = compute_named([4], &["i"], move |i| prev.at([&i[0]]) + 1.0, "T").unwrap();
    }
    (a, t)
}

#[test]
fn a_chain_of_100000_stages_is_bounded_lowered_run_and_dropped() {
    on_small_stack(|| {
        let (a, t) = stage_chain(N);
        let s = create_schedule(&[t.clone()]);
        let bounds = infer_bound(&s).unwrap();
        assert_eq!(
            bounds.range(&t.op().axis()[0]).unwrap().to_string(),
            "[0, 4)"
        );
        drop(bounds);
        // The report lowers, prints and runs the program, and compares it
        // with the reference evaluation (`A + N`).
        let options = te::ReportOptions {
            run: true,
            seed: 3,
            ..Default::default()
        };
        let report = te::run_report(&s, &[a.clone(), t.clone()], &options).unwrap();
        let text = report.to_text();
        assert!(report.is_clean(), "{text}");
        assert_eq!(text.matches("produce ").count(), N);
        drop(report);
        let inputs = HashMap::from([(a.op().id(), tir::Tensor::from_fn(&[4], |i| i[0] as f64))]);
        let sizes = HashMap::new();
        let mut reference = Reference::new(&inputs, &sizes);
        assert_eq!(reference.element(t.op(), &[2]).unwrap(), 2.0 + N as f64);
        drop(reference);
        // The schedule and the last tensor hold the whole chain.
        drop(s);
        drop((a, t));
    });
}

#[test]
fn an_inlined_chain_of_100000_stages_is_bounded_lowered_run_and_dropped() {
    // Every stage but the last is inlined: the last one's body is the whole
    // chain, `A[i] + 1.0 + ... + 1.0`, expanded once per stage rather than
    // rebuilt for every stage in turn (quadratic: 5,000 stages took 110 s).
    on_small_stack(|| {
        let a = placeholder([4], "A", DataType::Float32).unwrap();
        let mut chain = vec![a.clone()];
        for _ in 0..N {
            let prev = chain.last().unwrap().clone();
            let t = compute_named([4], &["i"], move |i| prev.at([&i[0]]) + 1.0, "T").unwrap();
            chain.push(t);
        }
        let t = chain.last().unwrap().clone();
        let mut s = create_schedule(&[t.clone()]);
        for inlined in &chain[1..N] {
            s.compute_inline(inlined).unwrap();
        }
        drop(chain);
        let bounds = infer_bound(&s).unwrap();
        assert_eq!(
            bounds.range(&t.op().axis()[0]).unwrap().to_string(),
            "[0, 4)"
        );
        drop(bounds);
        let text = lower(&s, &[a.clone(), t.clone()]).unwrap().to_string();
        assert_eq!(
            text.matches("produce ").count(),
            1,
            "only the last stage has a loop"
        );
        assert_eq!(text.matches("A[i]").count(), 1);
        assert_eq!(text.matches(" + 1.0").count(), N, "every link is printed");
        drop(text);
        let report = te::check(&s, &[a.clone(), t.clone()], &HashMap::new(), 5).unwrap();
        assert!(report.is_clean(1e-3), "{report:?}");
        drop(report);
        let inputs = HashMap::from([(a.op().id(), tir::Tensor::from_fn(&[4], |i| i[0] as f64))]);
        let sizes = HashMap::new();
        let mut reference = Reference::new(&inputs, &sizes);
        assert_eq!(reference.element(t.op(), &[3]).unwrap(), 3.0 + N as f64);
        drop(reference);
        drop(s);
        drop((a, t));
    });
}

#[test]
fn a_conditional_nested_100000_deep_is_lowered_and_run() {
    on_small_stack(|| {
        let a = placeholder([8], "A", DataType::Float32).unwrap();
        // `select(i > k % 8, e + 1, A[i])`, each level around the last:
        // compiling it asks each level for its type, which must not walk
        // the levels below.
        let b = compute_named(
            [8],
            &["i"],
            |i| {
                let mut e = a.at([&i[0]]);
                for k in 0..N as i64 {
                    let cond = Expr::gt(i[0].clone(), Expr::int(k % 8));
                    e = Value::select(cond, e + 1.0, a.at([&i[0]]));
                }
                e
            },
            "B",
        )
        .unwrap();
        let s = create_schedule(&[b.clone()]);
        let options = te::ReportOptions {
            run: true,
            seed: 5,
            ..Default::default()
        };
        let report = te::run_report(&s, &[a.clone(), b.clone()], &options).unwrap();
        assert!(report.is_clean(), "{}", report.to_text());
        drop(report);
        let inputs = HashMap::from([(a.op().id(), tir::Tensor::from_fn(&[8], |i| i[0] as f64))]);
        let sizes = HashMap::new();
        let mut reference = Reference::new(&inputs, &sizes);
        // At i = 0 every condition fails: the outermost level gives A[0].
        assert_eq!(reference.element(b.op(), &[0]).unwrap(), 0.0);
        // At i = 7 the outermost condition (k = 99999, 99999 % 8 = 7)
        // fails too.
        assert_eq!(reference.element(b.op(), &[7]).unwrap(), 7.0);
    });
}
