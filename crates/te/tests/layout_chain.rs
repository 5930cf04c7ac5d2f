//! Several `transform_layout` calls on one tensor apply in order (their
//! composition), as in TVM; a run places elements by evaluating the maps
//! as written, so it checks the lowering's layout independently.
#![allow(clippy::cloned_ref_to_slice_refs)]

use layout::IndexMap;
use proptest::prelude::*;
use te::{check, compute_named, create_schedule, placeholder};
use tir::DataType;

/// `A` of `shape` transformed by `maps` in order, read by `B = A * 2`: the
/// lowered program's text and whether its run is clean.
fn run(shape: [i64; 2], maps: &[&str]) -> te::Result<(String, bool)> {
    let a = placeholder(shape, "A", DataType::Float32)?;
    let b = compute_named(shape, &["i", "j"], |x| a.at([&x[0], &x[1]]) * 2.0, "B")?;
    let mut s = create_schedule(&[b.clone()]);
    for m in maps {
        s.transform_layout(&a, IndexMap::parse(m).unwrap())?;
    }
    let text = te::lower(&s, &[a.clone(), b.clone()])?.to_string();
    let r = check(&s, &[a, b], &Default::default(), 5)?;
    Ok((text, r.is_clean(0.0)))
}

#[test]
fn a_transpose_then_a_pack_of_a_placeholder_is_their_composition() {
    let maps = ["lambda i, j: [j, i]", "lambda a, b: [a // 2, b, a % 2]"];
    let (_, clean) = run([4, 6], &maps).unwrap();
    // The run places A[i, j] by evaluating both lambdas: clean only if the
    // lowered program reads it there too.
    assert!(clean);
    let a = placeholder([4, 6], "A", DataType::Float32).unwrap();
    let mut s = create_schedule(&[a.clone()]);
    for m in maps {
        s.transform_layout(&a, IndexMap::parse(m).unwrap()).unwrap();
    }
    let l = layout::Layout::new(vec![4.into(), 6.into()], s.layout(a.op()).cloned()).unwrap();
    let shape: Vec<String> = l
        .transformed_shape()
        .iter()
        .map(|e| e.to_string())
        .collect();
    assert_eq!(shape, ["3", "4", "2"]);
    for i in 0..4 {
        for j in 0..6 {
            let at = l.physical_point(&[i, j]).unwrap();
            assert_eq!(at, [(j / 2) * 8 + i * 2 + j % 2], "A[{i}, {j}]");
        }
    }
}

#[test]
fn a_second_map_on_a_computed_tensor_is_an_error() {
    let a = placeholder([4, 6], "A", DataType::Float32).unwrap();
    let b = compute_named([4, 6], &["i", "j"], |x| a.at([&x[0], &x[1]]) * 2.0, "B").unwrap();
    let mut s = create_schedule(&[b.clone()]);
    s.transform_layout(&b, IndexMap::parse("lambda i, j: [j, i]").unwrap())
        .unwrap();
    let e = s
        .transform_layout(&b, IndexMap::parse("lambda a, b: [b, a]").unwrap())
        .unwrap_err();
    assert!(e.to_string().contains("one map"), "{e}");
}

/// A simple map of a rank-`n` index: a transpose of two axes, a split of
/// one axis by a factor, or a pack (an axis split, its low digit moved
/// last).
fn simple_map(kind: u8, n: usize, axis: usize, factor: i64) -> String {
    let names: Vec<String> = (0..n).map(|k| format!("x{k}")).collect();
    let axis = axis % n;
    let mut out: Vec<String> = names.clone();
    match kind % 3 {
        0 if n > 1 => out.swap(axis, (axis + 1) % n),
        0 => {}
        1 => {
            let x = &names[axis];
            out.splice(
                axis..=axis,
                [format!("{x} // {factor}"), format!("{x} % {factor}")],
            );
        }
        _ => {
            let x = &names[axis];
            out[axis] = format!("{x} // {factor}");
            out.push(format!("{x} % {factor}"));
        }
    }
    format!("lambda {}: [{}]", names.join(", "), out.join(", "))
}

/// The rank a simple map gives.
fn rank_after(kind: u8, n: usize) -> usize {
    if kind.is_multiple_of(3) {
        n
    } else {
        n + 1
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Two random simple maps on a placeholder: the schedule's layout maps
    /// every element where the second map sends the first's image, and a
    /// run (which evaluates the maps itself) is clean.
    #[test]
    fn two_simple_maps_compose(
        rows in 1i64..7, cols in 1i64..7,
        k1 in 0u8..3, a1 in 0usize..3, f1 in prop::sample::select(vec![2i64, 3]),
        k2 in 0u8..3, a2 in 0usize..4, f2 in prop::sample::select(vec![2i64, 3]),
    ) {
        let shape = [rows, cols];
        let m1 = simple_map(k1, 2, a1, f1);
        let m2 = simple_map(k2, rank_after(k1, 2), a2, f2);
        let a = placeholder(shape, "A", DataType::Float32).unwrap();
        let b = compute_named(shape, &["i", "j"], |x| a.at([&x[0], &x[1]]) * 2.0, "B").unwrap();
        let mut s = create_schedule(&[b.clone()]);
        let first = IndexMap::parse(&m1).unwrap();
        let second = IndexMap::parse(&m2).unwrap();
        s.transform_layout(&a, first.clone()).unwrap();
        match s.transform_layout(&a, second.clone()) {
            Ok(_) => {}
            // A composition that would pad differently, or that the layout
            // analysis does not accept (a split of a remainder), is
            // refused, not silently changed.
            Err(e) => {
                prop_assert!(e.to_string().contains("give one map"), "{}", e);
                return Ok(());
            }
        }
        let composed = s.layout(a.op()).unwrap().clone();
        prop_assert_eq!(s.layout_maps(a.op()).len(), 2);
        for i in 0..rows {
            for j in 0..cols {
                let want = second.map_point(&first.map_point(&[i, j]).unwrap()).unwrap();
                prop_assert_eq!(composed.map_point(&[i, j]).unwrap(), want, "{} then {}", m1, m2);
            }
        }
        let r = check(&s, &[a, b], &Default::default(), 1).unwrap();
        prop_assert!(r.is_clean(0.0), "{} then {}: {:?}", m1, m2, r.violations);
    }
}
