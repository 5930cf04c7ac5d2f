//! Property tests against brute force: on random small maps, `simplify`,
//! `compose`, `rescale_symbols` and the printer agree with evaluating the
//! original maps at every point of their domains.

use indexing::{compose, semantically_equal, semantically_equal_sampled, IndexingMap, Interval};
use proptest::prelude::*;
use std::collections::{BTreeMap, BTreeSet};

/// A random index expression over variables `0..n`.
#[derive(Clone, Debug)]
enum E {
    Var(usize),
    Const(i64),
    Add(Box<E>, Box<E>),
    Sub(Box<E>, Box<E>),
    Scale(Box<E>, i64),
    Mul(Box<E>, Box<E>),
    Div(Box<E>, i64),
    CeilDiv(Box<E>, i64),
    Mod(Box<E>, i64),
    Min(Box<E>, Box<E>),
    Max(Box<E>, Box<E>),
}

fn expr(nvars: usize) -> impl Strategy<Value = E> {
    let leaf = prop_oneof![3 => (0..nvars).prop_map(E::Var), 1 => (-6i64..=6).prop_map(E::Const)];
    leaf.prop_recursive(4, 24, 2, |inner| {
        let divisor = prop_oneof![4 => 1i64..=8, 1 => -4i64..=-1];
        prop_oneof![
            3 => (inner.clone(), inner.clone()).prop_map(|(a, b)| E::Add(a.into(), b.into())),
            2 => (inner.clone(), inner.clone()).prop_map(|(a, b)| E::Sub(a.into(), b.into())),
            3 => (inner.clone(), -4i64..=6).prop_map(|(a, c)| E::Scale(a.into(), c)),
            1 => (inner.clone(), inner.clone()).prop_map(|(a, b)| E::Mul(a.into(), b.into())),
            3 => (inner.clone(), divisor.clone()).prop_map(|(a, c)| E::Div(a.into(), c)),
            1 => (inner.clone(), divisor).prop_map(|(a, c)| E::CeilDiv(a.into(), c)),
            3 => (inner.clone(), 1i64..=8).prop_map(|(a, c)| E::Mod(a.into(), c)),
            1 => (inner.clone(), inner.clone()).prop_map(|(a, b)| E::Min(a.into(), b.into())),
            1 => (inner.clone(), inner).prop_map(|(a, b)| E::Max(a.into(), b.into())),
        ]
    })
}

/// Fully parenthesized XLA text.
fn render(e: &E, names: &[&str]) -> String {
    let r = |x: &E| render(x, names);
    match e {
        E::Var(i) => names[*i].to_string(),
        E::Const(c) => c.to_string(),
        E::Add(a, b) => format!("({} + {})", r(a), r(b)),
        E::Sub(a, b) => format!("({} - {})", r(a), r(b)),
        E::Scale(a, c) => format!("({} * {c})", r(a)),
        E::Mul(a, b) => format!("({} * {})", r(a), r(b)),
        E::Div(a, c) => format!("({} floordiv {c})", r(a)),
        E::CeilDiv(a, c) => format!("({} ceildiv {c})", r(a)),
        E::Mod(a, c) => format!("({} mod {c})", r(a)),
        E::Min(a, b) => format!("min({}, {})", r(a), r(b)),
        E::Max(a, b) => format!("max({}, {})", r(a), r(b)),
    }
}

fn interval() -> impl Strategy<Value = Interval> {
    (-4i64..=4, 0i64..=4).prop_map(|(lo, len)| Interval::new(lo, lo + len))
}

/// A runtime variable's range: small, so that composed domains stay small.
fn rt_interval() -> impl Strategy<Value = Interval> {
    (-2i64..=2, 0i64..=2).prop_map(|(lo, len)| Interval::new(lo, lo + len))
}

/// A map `(d0, d1)[s0]{r0} -> (r0, r1)` with up to two constraints, as text.
fn map_text() -> impl Strategy<Value = String> {
    let names = ["d0", "d1", "s0", "r0"];
    (
        proptest::collection::vec(interval(), 3),
        rt_interval(),
        proptest::collection::vec(expr(4), 2),
        proptest::collection::vec((expr(4), -8i64..=8, 0i64..=10), 0..=2),
    )
        .prop_map(move |(mut bounds, rt, results, constraints)| {
            bounds.push(rt);
            let results: Vec<String> = results.iter().map(|e| render(e, &names)).collect();
            let mut text = format!("(d0, d1)[s0]{{r0}} -> ({}), domain: ", results.join(", "));
            let domain: Vec<String> = names
                .iter()
                .zip(&bounds)
                .map(|(n, b)| format!("{n} in {b}"))
                .collect();
            text.push_str(&domain.join(", "));
            for (e, lo, len) in constraints {
                text.push_str(&format!(", {} in [{lo}, {}]", render(&e, &names), lo + len));
            }
            text
        })
}

/// Every point of the box of `map`'s variable ranges.
fn box_points(bounds: &[Interval]) -> Vec<Vec<i64>> {
    let mut out = vec![vec![]];
    for b in bounds {
        out = out
            .into_iter()
            .flat_map(|p| (b.lower..=b.upper).map(move |v| [p.clone(), vec![v]].concat()))
            .collect();
    }
    out
}

/// `Some(results)` inside the domain, `None` outside.
fn value(map: &IndexingMap, p: &[i64]) -> Option<Vec<i64>> {
    map.contains(p).unwrap().then(|| map.evaluate(p).unwrap())
}

/// The relation a map denotes, by brute force: dimension point -> result tuples.
fn relation(map: &IndexingMap) -> BTreeMap<Vec<i64>, BTreeSet<Vec<i64>>> {
    let mut out: BTreeMap<Vec<i64>, BTreeSet<Vec<i64>>> = BTreeMap::new();
    for p in map.domain_points(1 << 16).unwrap() {
        let r = map.evaluate(&p).unwrap();
        out.entry(p[..map.num_dims()].to_vec())
            .or_default()
            .insert(r);
    }
    out
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    #[test]
    fn simplify_agrees_with_the_original_everywhere(text in map_text()) {
        let original = IndexingMap::parse(&text).unwrap();
        let mut simplified = original.clone();
        simplified.simplify();
        let bounds: Vec<Interval> = original.all_vars().map(|v| v.bounds()).collect();
        for p in box_points(&bounds) {
            prop_assert_eq!(value(&original, &p), value(&simplified, &p), "at {:?}: {} became {}", p, original, simplified);
        }
        // simplification reaches a fixed point
        let mut again = simplified.clone();
        again.simplify();
        prop_assert!(semantically_equal(&again, &simplified, 1 << 16).unwrap());
    }

    #[test]
    fn printing_round_trips(text in map_text()) {
        let map = IndexingMap::parse(&text).unwrap();
        let printed = map.to_string();
        let reparsed = IndexingMap::parse(&printed).unwrap();
        // Parsing folds constants that printing brought together (`1 + 1 - d0`
        // reads back as `2 - d0`, as in XLA), so the text is a fixed point
        // from the second print on.
        let printed_again = reparsed.to_string();
        prop_assert_eq!(IndexingMap::parse(&printed_again).unwrap().to_string(), printed_again);
        let bounds: Vec<Interval> = map.all_vars().map(|v| v.bounds()).collect();
        if !map.is_known_empty() {
            for p in box_points(&bounds) {
                prop_assert_eq!(value(&map, &p), value(&reparsed, &p), "at {:?}: {}", p, printed);
            }
        }
    }

    #[test]
    fn rescaling_keeps_the_relation(text in map_text(), m in 2i64..=4, r in 0i64..=3) {
        let mut map = IndexingMap::parse(&text).unwrap();
        map.add_constraint(indexing::build::modulo(map.symbol_expr(0), m.into()), Interval::point(r % m)).unwrap();
        let before = map.clone();
        map.rescale_symbols();
        prop_assert!(semantically_equal(&before, &map, 1 << 16).unwrap(), "{} became {}", before, map);
    }

    #[test]
    fn the_parser_rejects_garbage_without_panicking(
        text in map_text(),
        cut in 0usize..200,
        junk in "[-+*/(),\\[\\]{}:a-z0-9 ]{0,3}",
    ) {
        // A valid map with a few characters replaced: it parses, or it fails
        // with a span inside the text.
        let at = text.char_indices().map(|(i, _)| i).nth(cut % text.len()).unwrap_or(0);
        let end = (at + junk.len().max(1)).min(text.len());
        let broken = format!("{}{}{}", &text[..at], junk, text.get(end..).unwrap_or(""));
        if let Err(e) = IndexingMap::parse(&broken) {
            let span = e.span.expect("parse errors carry a span");
            prop_assert!(span.start <= span.end && span.end <= broken.len(), "{:?} in {}", span, broken);
            prop_assert!(!e.message.is_empty());
        }
    }

    #[test]
    fn semantic_equality_matches_brute_force(a in map_text(), b in map_text(), same in any::<bool>()) {
        let a = IndexingMap::parse(&a).unwrap();
        let b = if same {
            let mut s = a.clone();
            s.simplify();
            s
        } else {
            IndexingMap::parse(&b).unwrap()
        };
        let exact = relation(&a) == relation(&b);
        prop_assert_eq!(semantically_equal(&a, &b, 1 << 16).unwrap(), exact, "{} vs {}", a, b);
        // sampling never reports a difference that is not there, and with
        // more samples than points it finds every difference
        let sampled = semantically_equal_sampled(&a, &b, 2000, 3, 1 << 16).unwrap();
        prop_assert_eq!(sampled, exact, "{} vs {}", a, b);
    }
}

proptest! {
    // Composed domains have up to ~10^4 points; fewer cases keep this fast.
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

    #[test]
    fn compose_agrees_with_evaluating_in_turn(consumer in map_text(), producer in map_text()) {
        let c = IndexingMap::parse(&consumer).unwrap();
        let p = IndexingMap::parse(&producer).unwrap();
        let composed = compose(&c, &p).unwrap();
        let mut simplified = composed.clone();
        simplified.simplify();
        prop_assume!(!c.is_known_empty() && !p.is_known_empty());
        let bounds_of = |vs: &[indexing::Variable]| vs.iter().map(|v| v.bounds()).collect::<Vec<_>>();
        // composed variables: consumer dims, producer symbols, consumer
        // symbols, producer runtime vars, consumer runtime vars
        let bounds = [
            bounds_of(c.dims()),
            bounds_of(p.symbols()),
            bounds_of(c.symbols()),
            bounds_of(p.rt_vars()),
            bounds_of(c.rt_vars()),
        ]
        .concat();
        for q in box_points(&bounds) {
            let (d, ps, cs, prt, crt) = (&q[..2], &q[2..3], &q[3..4], &q[4..5], &q[5..6]);
            let by_steps = value(&c, &[d, cs, crt].concat())
                .and_then(|mid| value(&p, &[&mid[..], ps, prt].concat()));
            prop_assert_eq!(value(&composed, &q), by_steps.clone(), "at {:?}: {}", q, composed);
            prop_assert_eq!(value(&simplified, &q), by_steps, "at {:?}: {}", q, simplified);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    /// Widening may add points, never lose one: every (dimensions, result)
    /// pair of the original map is a pair of the widened map.
    #[test]
    fn widening_keeps_every_point(text in map_text(), budget in 1usize..12) {
        let original = IndexingMap::parse(&text).unwrap();
        let mut widened = original.clone();
        let w = widened.widen_oversized(budget);
        prop_assume!(!original.is_known_empty());
        // New range variables can span wide ranges; skip what cannot be enumerated.
        prop_assume!(widened.domain_points(1 << 16).is_ok());
        let before = relation(&original);
        let after = relation(&widened);
        for (dims, results) in &before {
            let covered = after.get(dims);
            for r in results {
                prop_assert!(
                    covered.is_some_and(|c| c.contains(r)),
                    "{:?} -> {:?} of {} is lost in {} ({:?})", dims, r, original, widened, w
                );
            }
        }
        if w.is_exact() {
            prop_assert_eq!(before, after);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    /// `image_at` against brute force over the whole box of variables:
    /// a result point is certain when every runtime value reaches it (for
    /// some range-variable value), possible when some but not all do; and
    /// `image_bounds_at` holds every point reached.
    #[test]
    fn the_image_of_a_dimension_point_is_what_enumeration_reaches(text in map_text()) {
        let map = IndexingMap::parse(&text).unwrap();
        let dims: Vec<Interval> = map.dims().iter().map(|v| v.bounds()).collect();
        let rest: Vec<Interval> = map.symbols().iter().chain(map.rt_vars()).map(|v| v.bounds()).collect();
        let rt = map.rt_vars().iter().map(|v| v.bounds()).collect::<Vec<_>>();
        let rt_count = box_points(&rt).len();
        // Widen each dimension by one, so points outside the ranges are tried too.
        let wide: Vec<Interval> = dims.iter().map(|b| Interval::new(b.lower - 1, b.upper.max(b.lower) + 1)).collect();
        for d in box_points(&wide) {
            let mut reached: BTreeMap<Vec<i64>, BTreeSet<Vec<i64>>> = BTreeMap::new();
            for q in box_points(&rest) {
                let p = [d.clone(), q.clone()].concat();
                if let Some(r) = value(&map, &p) {
                    reached.entry(r).or_default().insert(q[map.num_symbols()..].to_vec());
                }
            }
            let certain: Vec<Vec<i64>> = reached.iter().filter(|(_, by)| by.len() == rt_count).map(|(r, _)| r.clone()).collect();
            let possible: Vec<Vec<i64>> = reached.iter().filter(|(_, by)| by.len() < rt_count).map(|(r, _)| r.clone()).collect();
            let image = map.image_at(&d, 1 << 16).unwrap();
            prop_assert_eq!(&image.certain, &certain, "at {:?} of {}", d, map);
            prop_assert_eq!(&image.possible, &possible, "at {:?} of {}", d, map);
            if !reached.is_empty() {
                let bounds = map.image_bounds_at(&d).unwrap().expect("a reached point is inside the ranges");
                for r in reached.keys() {
                    for (v, b) in r.iter().zip(&bounds) {
                        prop_assert!(b.contains(*v), "{:?} outside {:?} at {:?} of {}", r, bounds, d, map);
                    }
                }
            }
        }
    }
}

#[test]
fn an_image_over_the_limit_is_an_error_and_its_bounds_are_a_box() {
    let map = IndexingMap::parse(
        "(d0, d1)[s0] -> (d0, d1 + s0), domain: d0 in [0, 1023], d1 in [0, 2], s0 in [0, 511]",
    )
    .unwrap();
    assert!(map.image_at(&[5, 1], 100).is_err());
    let image = map.image_at(&[5, 1], 512).unwrap();
    assert_eq!(image.certain.len(), 512);
    assert!(image.possible.is_empty());
    assert_eq!(
        map.image_bounds_at(&[5, 1]).unwrap(),
        Some(vec![Interval::new(5, 5), Interval::new(1, 512)])
    );
    assert_eq!(map.image_bounds_at(&[5, 3]).unwrap(), None);
    assert!(map.image_at(&[5], 512).is_err());
}
