//! Bad map text and bad shapes: errors with spans, never panics.

mod common;

use common::shape;
use layout::{ErrorKind, IndexMap, Layout};
use proptest::prelude::*;

fn err(text: &str) -> layout::LayoutError {
    IndexMap::parse(text).unwrap_err()
}

fn spanned<'a>(text: &'a str, e: &layout::LayoutError) -> &'a str {
    &text[e.span.clone().expect("a span")]
}

#[test]
fn unknown_name_points_at_the_name() {
    let text = "lambda n, h: [n, k // 4]";
    let e = err(text);
    assert_eq!(e.kind, ErrorKind::UnknownName);
    assert_eq!(spanned(text, &e), "k");
    assert!(e.message.contains("n, h"), "{}", e.message);
}

#[test]
fn malformed_lambdas_point_into_the_text() {
    for (text, at) in [
        ("lambd i: [i]", "lambd"),
        ("lambda i [i]", "lambda i [i]"),
        ("lambda i: [i +]", "]"),
        ("lambda i: [i, (i + 1]", "]"),
        ("lambda i: [i]]", "]"),
        ("lambda i, i: [i]", "i"),
        ("lambda 1x: [i]", "1x"),
        ("lambda *idx: [idx]", "*idx"),
        ("lambda i:", ":"),
        ("lambda i: [i, , i]", ", "),
        ("lambda i: [i < 3]", "i < 3"),
    ] {
        let e = err(text);
        assert!(e.span.is_some(), "{text}: {e}");
        let s = spanned(text, &e);
        assert!(
            at.contains(s) || s.contains(at.trim()),
            "{text}: span `{s}` not at `{at}` ({e})"
        );
    }
}

#[test]
fn arity_mismatch_points_at_the_parameters() {
    let text = "lambda i, j: [j, i]";
    let map = IndexMap::parse(text).unwrap();
    let e = map.map_shape(&shape(&[2, 3, 4])).unwrap_err();
    assert_eq!(e.kind, ErrorKind::Arity);
    assert_eq!(spanned(text, &e), "i, j");
}

#[test]
fn negative_and_unsupported_indices() {
    let map = IndexMap::parse("lambda i: [i - 1]").unwrap();
    assert_eq!(
        map.map_shape(&shape(&[4])).unwrap_err().kind,
        ErrorKind::Negative
    );
    // Injective but not affine: unsupported, pointing at the index.
    let text = "lambda i: [i * i]";
    let e = IndexMap::parse(text)
        .unwrap()
        .map_shape(&shape(&[4]))
        .unwrap_err();
    assert_eq!(e.kind, ErrorKind::Unsupported);
    assert_eq!(spanned(text, &e), "i * i");
    // Enumerated on its constant shape, it says it is injective after all.
    assert!(
        e.message
            .contains("injective on this shape, all 4 indices checked"),
        "{e}"
    );
}

#[test]
fn dropped_and_repeated_digits_are_collisions() {
    for (text, dims) in [
        ("lambda i: [i // 2]", vec![4]),
        ("lambda i, j: [i]", vec![2, 3]),
        ("lambda i: [i % 4]", vec![8]),
        ("lambda i: [i // 2, i % 4 // 2]", vec![8]),
    ] {
        let e = IndexMap::parse(text)
            .unwrap()
            .map_shape(&shape(&dims))
            .unwrap_err();
        assert_eq!(e.kind, ErrorKind::NotInjective, "{text}: {e}");
    }
}

#[test]
fn overflow_is_an_error() {
    let map = IndexMap::parse("lambda i: [i * 9223372036854775807 + i]").unwrap();
    assert!(map.map_shape(&shape(&[4])).is_err());
    let map = IndexMap::parse("lambda i, j: [i, j]").unwrap();
    assert!(Layout::new(shape(&[i64::MAX, 4]), Some(map)).is_err());
}

#[test]
fn deep_nesting_is_rejected_and_long_sums_work() {
    let deep = format!("lambda i: [{}i{}]", "(".repeat(200), ")".repeat(200));
    assert_eq!(err(&deep).kind, ErrorKind::Syntax);
    let long = format!("lambda i: [{}]", vec!["i"; 2000].join(" + "));
    // 2000 * i: injective but not a split; an error, not a crash.
    let map = IndexMap::parse(&long).unwrap();
    assert!(map.map_shape(&shape(&[3])).is_err());
}

proptest! {
    #[test]
    fn arbitrary_text_never_panics(text in "lambda[ a-z,:\\[\\]()*/%+0-9.A-Z_-]{0,40}") {
        if let Ok(map) = IndexMap::parse(&text) {
            let n = map.initial_indices().len();
            let _ = Layout::new(shape(&vec![3; n]), Some(map));
        }
    }
}

/// A constant extent written as an expression is checked by its value: a
/// negative one is an error pointing at it, not a shape with a negative
/// extent (fuzz `layout`, seed 0, case 869).
#[test]
fn constant_extent_expressions_are_checked_by_value() {
    let mut scope = arith::Scope::new();
    let text = "1, 3, 5, ---4";
    let e = layout::parse_shape(text, &mut scope).unwrap_err();
    assert_eq!(e.kind, ErrorKind::OutOfBounds);
    assert_eq!(spanned(text, &e), "---4");
    let text = "2 * 8, --3, N";
    let s = layout::parse_shape(text, &mut scope).unwrap();
    assert_eq!(s[0], arith::Expr::int(16));
    assert_eq!(s[1], arith::Expr::int(3));
    assert_eq!(s[2].to_string(), "N");
    let text = "4, 9223372036854775807 * 2";
    let e = layout::parse_shape(text, &mut scope).unwrap_err();
    assert_eq!(spanned(text, &e), "9223372036854775807 * 2");
}

/// Spans found by bytes are widened to whole characters: a caret never
/// points into the middle of a multi-byte character (fuzz `layout`, seed
/// 0, cases 3249 and 4350).
#[test]
fn spans_lie_on_character_boundaries() {
    let on_boundaries = |text: &str, e: &layout::LayoutError| {
        let s = e.span.clone().expect("a span");
        assert!(s.end <= text.len(), "{text:?}: {e:?}");
        assert!(
            text.is_char_boundary(s.start) && text.is_char_boundary(s.end),
            "{text:?}: {e:?}"
        );
    };
    for text in [
        "la\u{8}∑a a: [a]",
        "lambda é: [é]",
        "lambda a: [a, (a é",
        "∑",
    ] {
        on_boundaries(text, &err(text));
    }
    let mut scope = arith::Scope::new();
    for text in ["[Pé", "bda a: [a∑"] {
        let e = layout::parse_shape(text, &mut scope).unwrap_err();
        on_boundaries(text, &e);
    }
    let e = layout::parse_index("[1, é", &[arith::Expr::int(4), arith::Expr::int(4)]).unwrap_err();
    on_boundaries("[1, é", &e);
}

/// A constant index of a map that names a shape symbol maps to a symbolic
/// index, not an error about the symbol's value (fuzz `layout`, seed 0:
/// `--shape P,N --map 'lambda a, b: [(a * N + b) // 4, ...]' --index 3,1`).
#[test]
fn a_constant_index_of_a_map_naming_a_symbol_stays_symbolic() {
    let mut scope = arith::Scope::new();
    let shape = layout::parse_shape("P, N", &mut scope).unwrap();
    let map =
        IndexMap::parse_with("lambda a, b: [(a * N + b) // 4, (a * N + b) % 4]", &scope).unwrap();
    let l = Layout::new(shape, Some(map)).unwrap();
    let t = l
        .transformed_index(&[arith::Expr::int(3), arith::Expr::int(1)])
        .unwrap();
    assert_eq!(t.len(), 2);
    let n = scope.get("N").unwrap().clone();
    let at = |e: &arith::Expr, v: i64| e.eval(&|x: &arith::Var| (x == &n).then_some(v)).unwrap();
    for v in [1, 5, 9] {
        assert_eq!(at(&t[0], v), (3 * v + 1) / 4);
        assert_eq!(at(&t[1], v), (3 * v + 1) % 4);
    }
    assert!(l
        .physical_index(&[arith::Expr::int(3), arith::Expr::int(1)])
        .is_ok());
}

/// Long maps: a transpose of 20,000 indices and a sum of 50,000 terms are
/// analysed in one pass each (every index looked up by hash, every node of
/// a sum visited once), with the right answers (fuzz `layout`, hostile
/// cases: both were quadratic).
#[test]
fn long_maps_are_analysed() {
    let n = 20_000;
    let params: Vec<String> = (0..n).map(|k| format!("a{k}")).collect();
    let mut reversed = params.clone();
    reversed.reverse();
    let text = format!("lambda {}: [{}]", params.join(", "), reversed.join(", "));
    let map = IndexMap::parse(&text).unwrap();
    let shape: Vec<arith::Expr> = (0..n)
        .map(|k| arith::Expr::int(if k % 1000 == 7 { 2 } else { 1 }))
        .collect();
    let l = Layout::new(shape.clone(), Some(map)).unwrap();
    assert_eq!(l.transformed_shape()[0], shape[n - 1]);
    assert_eq!(l.transformed_shape()[n - 1], shape[0]);
    assert!(l.is_bijective());
    let text = format!("lambda a: [{}]", vec!["a"; 50_000].join(" + "));
    let map = IndexMap::parse(&text).unwrap();
    let e = Layout::new(vec![arith::Expr::int(8)], Some(map)).unwrap_err();
    assert!(e.span.is_some(), "{e:?}");
}

/// A physical extent that overflows is an error pointing at the map's
/// indices (fuzz `layout`: `9223372036854775807, 2` under a transpose had
/// no span).
#[test]
fn an_overflowing_physical_extent_points_at_the_map() {
    let text = "lambda a, b: [b, a]";
    let map = IndexMap::parse(text).unwrap();
    let shape = vec![arith::Expr::int(i64::MAX), arith::Expr::int(2)];
    let e = Layout::new(shape, Some(map)).unwrap_err();
    assert_eq!(spanned(text, &e), "[b, a]");
}

/// A constant transformed index is an axis of extent one more than it: at
/// `i64::MAX` that extent does not exist, which is an error at the map,
/// not a wrapped extent (found by `fuzz layout`, seed 91).
#[test]
fn a_constant_index_at_the_top_of_i64_is_an_overflow_error() {
    let text = "lambda a: [9223372036854775807, a % 3]";
    let map = IndexMap::parse(text).unwrap();
    let e = map.map_shape(&shape(&[7])).unwrap_err();
    assert_eq!(e.kind, ErrorKind::Arith, "{e}");
    assert!(e.message.contains("overflows"), "{e}");
    assert_eq!(spanned(text, &e), "[9223372036854775807, a % 3]");
    let map = IndexMap::parse("lambda a: [9223372036854775806, a]").unwrap();
    assert_eq!(
        map.map_shape(&shape(&[7])).unwrap()[0],
        arith::Expr::int(i64::MAX)
    );
}

/// Constant parts of an index fold when the map is made, as TVM's
/// expression constructors fold them: `a - 1 // 4` is `a` offset by zero,
/// a bijection with no padding (found by `fuzz layout`, seed 92, which saw
/// a padding predicate over a transformed shape every point of which is
/// reached).
#[test]
fn constant_parts_of_an_index_fold() {
    let map = IndexMap::parse("lambda a: [a -1// 4]").unwrap();
    assert_eq!(map.map_shape(&shape(&[7])).unwrap(), shape(&[7]));
    let (inverse, padding) = map.non_surjective_inverse(&shape(&[7])).unwrap();
    assert!(padding.is_none(), "{padding:?}");
    assert_eq!(inverse.to_string(), "lambda i0: [i0]");
    let map = IndexMap::parse("lambda a: [a // (2 * 2), a % (8 // 2)]").unwrap();
    assert_eq!(map.map_shape(&shape(&[8])).unwrap(), shape(&[2, 4]));
    assert!(map.inverse(&shape(&[8])).is_ok());
}
