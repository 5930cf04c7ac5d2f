//! Property tests: random layout maps (splits with and without divisibility,
//! offsets, fusions, reorders, separators) on random shapes, checked by
//! enumerating every logical and every transformed point.

mod common;

use common::{eval_expr, ints, shape};
use layout::{for_each_point, IndexMap, Layout};
use proptest::prelude::*;
use std::collections::HashSet;

/// How one source (a logical index, or two fused ones) is cut.
#[derive(Clone, Debug)]
enum Cut {
    Whole,
    Split(i64),
    Split3(i64, i64),
}

#[derive(Clone, Debug)]
struct MapSpec {
    dims: Vec<i64>,
    fuse_first: bool,
    offsets: Vec<i64>,
    cuts: Vec<Cut>,
    order_seed: Vec<usize>,
    separators: Vec<bool>,
}

fn cut() -> impl Strategy<Value = Cut> {
    prop_oneof![
        Just(Cut::Whole),
        (2i64..6).prop_map(Cut::Split),
        (2i64..4, 2i64..4).prop_map(|(a, b)| Cut::Split3(a, b)),
    ]
}

fn spec() -> impl Strategy<Value = MapSpec> {
    (1usize..4)
        .prop_flat_map(|rank| {
            (
                prop::collection::vec(1i64..10, rank),
                any::<bool>(),
                prop::collection::vec(prop_oneof![3 => Just(0i64), 1 => 1i64..5], rank),
                prop::collection::vec(cut(), rank),
                prop::collection::vec(0usize..100, 3 * rank),
                prop::collection::vec(prop::bool::weighted(0.3), 3 * rank),
            )
        })
        .prop_map(
            |(dims, fuse_first, offsets, cuts, order_seed, separators)| MapSpec {
                dims,
                fuse_first,
                offsets,
                cuts,
                order_seed,
                separators,
            },
        )
}

/// The lambda text of a spec.
fn text(spec: &MapSpec) -> String {
    let names: Vec<String> = (0..spec.dims.len()).map(|k| format!("x{k}")).collect();
    let mut sources: Vec<String> = Vec::new();
    let mut k = 0;
    while k < names.len() {
        let fused = spec.fuse_first && k == 0 && names.len() > 1;
        let base = if fused {
            k += 2;
            format!("{} * {} + {}", names[0], spec.dims[1], names[1])
        } else {
            k += 1;
            names[k - 1].clone()
        };
        let o = spec.offsets[sources.len()];
        sources.push(if o == 0 {
            base
        } else {
            format!("{base} + {o}")
        });
    }
    let mut items: Vec<String> = Vec::new();
    for (s, src) in sources.iter().enumerate() {
        match spec.cuts[s] {
            Cut::Whole => items.push(src.clone()),
            Cut::Split(f) => {
                items.push(format!("({src}) // {f}"));
                items.push(format!("({src}) % {f}"));
            }
            Cut::Split3(a, b) => {
                items.push(format!("({src}) // {}", a * b));
                items.push(format!("({src}) // {b} % {a}"));
                items.push(format!("({src}) % {b}"));
            }
        }
    }
    // A permutation from the seed (reorder).
    let mut order: Vec<usize> = (0..items.len()).collect();
    for i in (1..order.len()).rev() {
        let j = spec.order_seed[i % spec.order_seed.len()] % (i + 1);
        order.swap(i, j);
    }
    let mut out: Vec<String> = Vec::new();
    for (pos, &i) in order.iter().enumerate() {
        if pos > 0 && spec.separators[pos % spec.separators.len()] {
            out.push("te.AXIS_SEPARATOR".into());
        }
        out.push(items[i].clone());
    }
    format!("lambda {}: [{}]", names.join(", "), out.join(", "))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn random_layouts_invert_and_pad_exactly(spec in spec()) {
        let text = text(&spec);
        let map = IndexMap::parse(&text).unwrap();
        let l = Layout::new(shape(&spec.dims), Some(map.clone()))
            .unwrap_or_else(|e| panic!("{text}: {e}"));
        let tshape = ints(l.transformed_shape());
        let pshape = ints(l.physical_shape());
        let inv = l.inverse().unwrap();
        let mut reached = HashSet::new();
        let mut physical = HashSet::new();
        for_each_point(&spec.dims, |x| {
            let t = map.map_point(x).unwrap();
            assert!(t.iter().zip(&tshape).all(|(v, e)| (0..*e).contains(v)), "{text}: {x:?} -> {t:?} outside {tshape:?}");
            assert_eq!(inv.map_point(&t).unwrap(), x.to_vec(), "{}: inverse at {:?}", text, x);
            let p = l.physical_point(x).unwrap();
            assert!(p.iter().zip(&pshape).all(|(v, e)| (0..*e).contains(v)), "{text}: physical {p:?} outside {pshape:?}");
            assert!(physical.insert(p), "{text}: two logical indices share a physical index");
            reached.insert(t);
        });
        let vars = inv.initial_indices().to_vec();
        for_each_point(&tshape, |t| {
            let padded = l.padding_predicate().is_some_and(|p| eval_expr(p, &vars, t, &[]) != 0);
            assert_eq!(padded, !reached.contains(t), "{text}: padding at {t:?}");
        });
        prop_assert_eq!(l.is_bijective(), reached.len() as i64 == tshape.iter().product::<i64>(), "{}", text);
        // The printed map parses back to the same map.
        let again = IndexMap::parse(&map.to_string()).unwrap();
        prop_assert!(again.agrees_with(&map, &spec.dims).unwrap());
    }

    #[test]
    fn non_injective_maps_are_rejected_with_a_true_collision(
        dims in prop::collection::vec(1i64..6, 2..4),
        a in 0usize..3, b in 0usize..3, k in 2i64..5,
    ) {
        // Sums of two indices, or a dropped index: collisions when they exist.
        let n = dims.len();
        let names: Vec<String> = (0..n).map(|i| format!("x{i}")).collect();
        let (a, b) = (a % n, b % n);
        let text = format!("lambda {}: [{} + {}, {} // {k}]", names.join(", "), names[a], names[b], names[(a + 1) % n]);
        let map = IndexMap::parse(&text).unwrap();
        let mut seen = std::collections::HashMap::new();
        let mut collides = false;
        for_each_point(&dims, |x| {
            collides |= seen.insert(map.map_point(x).unwrap(), x.to_vec()).is_some();
        });
        match map.check_injective(&shape(&dims)) {
            Ok(()) => prop_assert!(!collides, "{text} on {dims:?} accepted but not injective"),
            Err(e) if e.kind == layout::ErrorKind::NotInjective => {
                prop_assert!(collides);
                let c = map.find_collision(&shape(&dims)).unwrap();
                prop_assert_ne!(&c.first, &c.second);
                prop_assert_eq!(map.map_point(&c.first).unwrap(), c.image.clone());
                prop_assert_eq!(map.map_point(&c.second).unwrap(), c.image);
            }
            // Not of split form and no collision found: an honest refusal.
            Err(e) => prop_assert_eq!(e.kind, layout::ErrorKind::Unsupported),
        }
    }
}
