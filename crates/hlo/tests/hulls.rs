//! The budgets that keep whole-module maps near-linear: up to
//! `MAP_BUDGET` distinct maps reaching one value, and up to
//! `RANGE_VARIABLE_BUDGET` range variables in one map, are kept exactly as
//! composed; beyond them the maps become a hull marked conservative, whose
//! image (checked by enumeration) contains every index of every map merged.

use hlo::{map_hull, OperandMap, Query, MAP_BUDGET, RANGE_VARIABLE_BUDGET};
use indexing::IndexingMap;
use proptest::prelude::*;
use std::collections::{BTreeMap, BTreeSet};

fn run(text: &str, input_to_output: bool) -> String {
    let module = hlo::parse_module(text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    let query = Query {
        to_parameters: true,
        input_to_output,
        ..Query::default()
    };
    hlo::analyze(&module, &query).unwrap().to_string()
}

/// `k` slices of `f32[16]` at offsets `0..k`, added up: `k` distinct maps
/// from the sum to the parameter, `(d0) -> (d0 + i)`.
fn shifted_slices(k: usize) -> String {
    let mut lines = vec![
        "ENTRY e {".to_string(),
        " p0 = f32[16] parameter(0)".to_string(),
    ];
    for i in 0..k {
        lines.push(format!(
            " s{i} = f32[8] slice(p0), slice={{[{i}:{}]}}",
            i + 8
        ));
    }
    let mut acc = "s0".to_string();
    for i in 1..k {
        let root = if i + 1 == k { "ROOT " } else { "" };
        lines.push(format!(" {root}a{i} = f32[8] add({acc}, s{i})"));
        acc = format!("a{i}");
    }
    lines.push("}".to_string());
    lines.join("\n")
}

/// `k` chained size-2 reduce-windows: one map with `k` range variables.
fn chained_windows(k: usize) -> String {
    let mut lines = vec![
        "ad {\n a = f32[] parameter(0)\n b = f32[] parameter(1)\n ROOT s = f32[] add(a, b)\n}"
            .to_string(),
        "ENTRY e {".to_string(),
        format!(" v0 = f32[{}] parameter(0)", k + 8),
        " z = f32[] constant(0)".to_string(),
    ];
    for i in 1..=k {
        let root = if i == k { "ROOT " } else { "" };
        lines.push(format!(
            " {root}v{i} = f32[{}] reduce-window(v{}, z), window={{size=2}}, to_apply=ad",
            k + 8 - i,
            i - 1
        ));
    }
    lines.push("}".to_string());
    lines.join("\n")
}

#[test]
fn maps_within_the_budget_stay_exact() {
    let text = run(&shifted_slices(MAP_BUDGET), false);
    assert_eq!(text.lines().count(), 1 + MAP_BUDGET, "{text}");
    assert!(!text.contains("conservative"), "{text}");
    assert!(
        text.contains("(d0) -> (d0 + 7), domain: d0 in [0, 7]\n"),
        "{text}"
    );
    let text = run(&chained_windows(RANGE_VARIABLE_BUDGET), false);
    assert!(!text.contains("conservative"), "{text}");
    assert!(
        text.contains(&format!("s{}", RANGE_VARIABLE_BUDGET - 1)),
        "{text}"
    );
}

#[test]
fn one_map_more_becomes_the_hull() {
    assert_eq!(
        run(&shifted_slices(MAP_BUDGET + 1), false),
        "operand id = 0\n\
         (d0)[s0] -> (d0 + s0), domain: d0 in [0, 7], s0 in [0, 8]\n\
         conservative: the hull of 9 maps (more than 8 distinct maps of 9 reached this value)\n"
    );
    assert_eq!(
        run(&shifted_slices(MAP_BUDGET + 1), true),
        "operand id = 0\n\
         (d0)[s0] -> (d0 + s0), domain: d0 in [0, 15], s0 in [-8, 0], d0 + s0 in [0, 7]\n\
         conservative: the hull of 9 maps (more than 8 distinct maps of 9 reached this value)\n"
    );
}

#[test]
fn one_range_variable_more_becomes_the_hull() {
    assert_eq!(
        run(&chained_windows(RANGE_VARIABLE_BUDGET + 1), false),
        "operand id = 0\n\
         (d0)[s0] -> (d0 + s0), domain: d0 in [0, 7], s0 in [0, 17]\n\
         conservative: the hull of a map with 17 range variables (more than 16)\n"
    );
}

/// For every dimension point, the indices the maps give there, with their
/// constraints (indices outside `bounds` dropped).
fn image(maps: &[IndexingMap], bounds: Option<&[i64]>) -> BTreeMap<Vec<i64>, BTreeSet<Vec<i64>>> {
    let mut out: BTreeMap<Vec<i64>, BTreeSet<Vec<i64>>> = BTreeMap::new();
    for m in maps {
        for p in m.domain_points(100_000).expect("small domain") {
            let r = m.evaluate(&p).expect("evaluates");
            let inside = bounds.is_none_or(|b| r.iter().zip(b).all(|(&x, &n)| 0 <= x && x < n));
            if inside {
                out.entry(p[..m.num_dims()].to_vec()).or_default().insert(r);
            }
        }
    }
    out
}

/// A random map text: `dims` dimensions over `[lo, lo + len]`, symbols
/// over small ranges, results `a*d + b*s + c` with, sometimes, a
/// `floordiv`/`mod` term, and sometimes a constraint.
fn map_text(
    dims: &[(i64, i64)],
    symbols: &[i64],
    results: &[(Vec<i64>, Vec<i64>, i64, u8)],
    constraint: Option<i64>,
) -> String {
    let d: Vec<String> = (0..dims.len()).map(|i| format!("d{i}")).collect();
    let s: Vec<String> = (0..symbols.len()).map(|i| format!("s{i}")).collect();
    let res: Vec<String> = results
        .iter()
        .map(|(a, b, c, nonlinear)| {
            let mut terms = vec![c.to_string()];
            for (i, &k) in a.iter().enumerate() {
                terms.push(format!("d{i} * {k}"));
            }
            for (i, &k) in b.iter().enumerate() {
                terms.push(format!("s{i} * {k}"));
            }
            match nonlinear % 4 {
                1 => terms.push("d0 floordiv 2".to_string()),
                2 if !s.is_empty() => terms.push("(d0 + s0) mod 3".to_string()),
                _ => {}
            }
            terms.join(" + ")
        })
        .collect();
    let mut domain: Vec<String> = dims
        .iter()
        .enumerate()
        .map(|(i, (lo, len))| format!("d{i} in [{lo}, {}]", lo + len))
        .collect();
    domain.extend(
        symbols
            .iter()
            .enumerate()
            .map(|(i, n)| format!("s{i} in [0, {n}]")),
    );
    if let Some(k) = constraint {
        domain.push(format!(
            "d0 + {} in [{k}, {}]",
            s.first().map_or("0", |x| x),
            k + 3
        ));
    }
    let syms = if s.is_empty() {
        String::new()
    } else {
        format!("[{}]", s.join(", "))
    };
    format!(
        "({}){syms} -> ({}), domain: {}",
        d.join(", "),
        res.join(", "),
        domain.join(", ")
    )
}

fn map_strategy(num_dims: usize, num_results: usize) -> impl Strategy<Value = String> {
    (
        proptest::collection::vec((-1i64..2, 0i64..4), num_dims),
        proptest::collection::vec(1i64..3, 0..3),
        proptest::option::of(0i64..5),
        proptest::collection::vec(
            (
                proptest::collection::vec(-1i64..3, num_dims),
                proptest::collection::vec(-2i64..3, 3),
                -3i64..4,
                0u8..8,
            ),
            num_results,
        ),
    )
        .prop_map(|(dims, symbols, constraint, results)| {
            let results: Vec<_> = results
                .into_iter()
                .map(|(a, mut b, c, n)| {
                    b.truncate(symbols.len());
                    (a, b, c, n)
                })
                .collect();
            map_text(&dims, &symbols, &results, constraint)
        })
}

fn maps_strategy() -> impl Strategy<Value = (Vec<String>, Option<Vec<i64>>)> {
    (1usize..3, 1usize..3).prop_flat_map(|(nd, nr)| {
        (
            proptest::collection::vec(map_strategy(nd, nr), 1..6),
            proptest::option::of(proptest::collection::vec(1i64..8, nr)),
        )
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, failure_persistence: None, ..ProptestConfig::default() })]

    /// The hull's image contains, at every dimension point, every index any
    /// merged map gives there (within the bounds, when given), and it says
    /// it is conservative (unless every map is known to be empty).
    #[test]
    fn the_hull_contains_every_merged_map((texts, bounds) in maps_strategy()) {
        let maps: Vec<OperandMap> = texts
            .iter()
            .map(|t| OperandMap::plain(IndexingMap::parse(t).unwrap_or_else(|e| panic!("{t}: {e}"))))
            .collect();
        let Some(hull) = map_hull(&maps, bounds.as_deref(), "test") else {
            // Only a result without finite range refuses; these have one.
            panic!("no hull for {texts:?}");
        };
        let plain: Vec<IndexingMap> = maps.iter().map(|m| m.map.clone()).collect();
        prop_assert!(!hull.is_exact() || plain.iter().all(IndexingMap::is_known_empty));
        let want = image(&plain, bounds.as_deref());
        let got = image(std::slice::from_ref(&hull.map), None);
        for (d, indices) in &want {
            let have = got.get(d).cloned().unwrap_or_default();
            prop_assert!(
                indices.is_subset(&have),
                "at {:?} the maps give {:?}, the hull only {:?}\nmaps: {:#?}\nhull: {}",
                d, indices, have, texts, hull.map
            );
        }
    }
}
