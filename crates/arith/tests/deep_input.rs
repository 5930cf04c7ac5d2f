//! Hostile input for the front end: deep nesting is refused at the
//! documented limit with a positioned error; long flat chains parse, print,
//! evaluate, compare and drop without stack proportional to their length.
//!
//! These run on the test harness's threads (2 MiB stacks), smaller than a
//! normal main thread, so a recursive walk over a 45,000-term chain would
//! overflow here.

use arith::{parse, parse_with_scope, ErrorKind, Expr, Scope, Var, MAX_NESTING};

fn sum_text(n: usize, term: &str) -> String {
    vec![term; n].join(" + ")
}

#[test]
fn a_45000_term_sum_parses_prints_evaluates_and_drops() {
    let text = sum_text(45_000, "x");
    let (e, scope) = parse_with_scope(&text).unwrap();
    assert_eq!(e.node_count(), 2 * 45_000 - 1);
    assert_eq!(e.to_string(), text);
    let x = scope.get("x").unwrap().clone();
    assert_eq!(e.eval_with(&[(&x, 3)]).unwrap(), 3 * 45_000);
    assert_eq!(e.vars(), vec![x.clone()]);
    assert!(e.uses_var(&x));
    let y = Var::new("y");
    let swapped = e.substitute(&mut |v| (v == &x).then(|| y.expr()));
    assert_eq!(swapped.eval_with(&[(&y, -2)]).unwrap(), -2 * 45_000);
    drop(swapped);
    drop(e);
}

#[test]
fn a_50000_term_product_and_mixed_chain_parse_print_and_evaluate() {
    let text = vec!["1"; 50_000].join(" * ");
    let e = parse(&text).unwrap();
    assert_eq!(e.to_string(), text);
    assert_eq!(e.eval(&|_| None).unwrap(), 1);
    // A chain of distinct variables (5,000: `Scope` looks names up by a
    // linear search, so many distinct names cost time quadratic in number).
    let text: String = (0..5_000)
        .map(|i| format!("v{i}"))
        .collect::<Vec<_>>()
        .join(" - ");
    let (e, scope) = parse_with_scope(&text).unwrap();
    assert_eq!(scope.vars().len(), 5_000);
    assert_eq!(e.vars().len(), 5_000);
    assert_eq!(e.to_string(), text);
    assert_eq!(e.eval(&|_| Some(1)).unwrap(), 1 - 4_999);
    let text = vec!["x < 1"; 30_000].join(" and ");
    let e = parse(&text).unwrap();
    assert_eq!(e.to_string(), text);
    assert_eq!(e.eval(&|_| Some(0)).unwrap(), 1);
}

#[test]
fn deep_trees_compare_and_drop_iteratively() {
    let text = sum_text(45_000, "x * 2");
    let mut scope = Scope::new();
    let a = arith::parse_in(&text, &mut scope).unwrap();
    let b = arith::parse_in(&text, &mut scope).unwrap();
    assert!(!a.ptr_eq(&b));
    assert_eq!(a, b);
    assert_eq!(a.structural_cmp(&b), std::cmp::Ordering::Equal);
    let c = arith::parse_in(&(text.clone() + " + 1"), &mut scope).unwrap();
    assert_ne!(a, c);
    assert_ne!(a.structural_cmp(&c), std::cmp::Ordering::Equal);
    // A million-deep chain built directly, then dropped; and one whose
    // subtrees are shared with a survivor.
    let x = Var::new("x");
    let mut e = x.expr();
    let mut keep = None;
    for i in 0..1_000_000 {
        e = Expr::add(e, Expr::int(1));
        if i == 500_000 {
            keep = Some(e.clone());
        }
    }
    drop(e);
    let keep = keep.unwrap();
    assert_eq!(keep.eval_with(&[(&x, 0)]).unwrap(), 500_001);
}

fn nesting_error(text: &str, token: &str) {
    let err = parse(text).unwrap_err();
    assert_eq!(err.kind, ErrorKind::TooDeep, "{text:.40}: {err}");
    assert!(
        err.message.contains(&MAX_NESTING.to_string()),
        "{}",
        err.message
    );
    let span = err.span.clone().expect("a span");
    assert_eq!(&text[span.clone()], token, "span {span:?}");
}

#[test]
fn deep_nesting_is_refused_at_the_limit_with_a_span() {
    let parens = format!("{}x{}", "(".repeat(4_000), ")".repeat(4_000));
    nesting_error(&parens, "(");
    let err = parse(&parens).unwrap_err();
    assert_eq!(err.span, Some(MAX_NESTING..MAX_NESTING + 1));
    let mins = format!("{}x{}", "min(".repeat(5_000), ", 1)".repeat(5_000));
    nesting_error(&mins, "min(");
    let minus = format!("{}x", "-".repeat(43_000));
    nesting_error(&minus, "-");
    let plus = format!("{}x", "+ ".repeat(10_000));
    nesting_error(&plus, "+");
    let nots = format!("{}x < 1", "not ".repeat(10_000));
    nesting_error(&nots, "not");
    // Unclosed: the limit is found before the missing parenthesis.
    nesting_error(&"(".repeat(100_000), "(");
}

#[test]
fn nesting_up_to_the_limit_parses() {
    let (e, scope) = parse_with_scope(&format!(
        "{}x{}",
        "(".repeat(MAX_NESTING),
        ")".repeat(MAX_NESTING)
    ))
    .unwrap();
    assert_eq!(e, scope.get("x").unwrap().expr());
    let mins = format!(
        "{}x{}",
        "min(".repeat(MAX_NESTING),
        ", 1)".repeat(MAX_NESTING)
    );
    let e = parse(&mins).unwrap();
    assert_eq!(e.to_string(), mins);
    assert_eq!(e.eval(&|_| Some(5)).unwrap(), 1);
    let minus = format!("{}x", "-".repeat(MAX_NESTING));
    let e = parse(&minus).unwrap();
    assert_eq!(e.eval(&|_| Some(5)).unwrap(), 5);
    // Siblings do not add up: many parenthesised terms side by side.
    let flat = vec!["(x + 1)"; 10_000].join(" * ");
    assert!(parse(&flat).is_ok());
    // Literal signs are part of the literal, not nesting.
    assert_eq!(
        parse("-9223372036854775808").unwrap().as_int(),
        Some(i64::MIN)
    );
}

#[test]
fn non_ascii_errors_point_at_whole_characters() {
    let text = "ééé + x";
    let err = parse(text).unwrap_err();
    let span = err.span.unwrap();
    assert_eq!(&text[span], "é");
    let err = parse("x + y ∑").unwrap_err();
    assert_eq!(&"x + y ∑"[err.span.unwrap()], "∑");
}

#[test]
fn range_spec_lists_split_on_names_not_spaces() {
    let texts = |s| {
        arith::split_range_specs(s)
            .into_iter()
            .map(|(at, t)| (at, t.to_string()))
            .collect::<Vec<_>>()
    };
    assert_eq!(
        texts(" i=0:n - 1 n=1:8\tj = 0 : n * 2"),
        [
            (1, "i=0:n - 1".to_string()),
            (11, "n=1:8".to_string()),
            (17, "j = 0 : n * 2".to_string())
        ]
    );
    assert!(texts("   ").is_empty());
    // Text before the first spec is kept, so that it is reported.
    assert_eq!(texts("5 i=0:2")[0], (0, "5".to_string()));
    let mut scope = Scope::new();
    let specs = arith::parse_range_specs("i=0:n - 1 n=1:8", &mut scope).unwrap();
    assert_eq!(specs.len(), 2);
    assert_eq!(specs[0].1.to_string(), "[0, n - 1)");
    // Errors point into the whole list.
    let text = "i=0:4 j=0:+";
    let err = arith::parse_range_specs(text, &mut scope).unwrap_err();
    assert_eq!(err.span.map(|s| s.start), Some(text.len()));
}
