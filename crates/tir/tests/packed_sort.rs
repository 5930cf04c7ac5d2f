//! The built-in sorting functions (`tvm.contrib.sort.*`) against their
//! meaning, on random arrays with repeated values: `sort` gives each line's
//! values in order, `argsort` the positions that order them (equal values
//! by position), and `topk` the first `k` of both.

use proptest::prelude::*;
use tir::packed::builtin;
use tir::{DataType, PackedArg};

fn array(shape: Vec<i64>, data: Vec<f64>) -> PackedArg {
    PackedArg::Array {
        name: String::new(),
        shape,
        dtype: DataType::Float32,
        data,
    }
}

fn values(a: &PackedArg) -> Vec<f64> {
    match a {
        PackedArg::Array { data, .. } => data.clone(),
        _ => unreachable!("an array"),
    }
}

/// The lines of a `[rows, cols]` array along `axis`, as (positions in the
/// flat array) lists.
fn lines(rows: usize, cols: usize, axis: usize) -> Vec<Vec<usize>> {
    if axis == 1 {
        (0..rows)
            .map(|r| (0..cols).map(|c| r * cols + c).collect())
            .collect()
    } else {
        (0..cols)
            .map(|c| (0..rows).map(|r| r * cols + c).collect())
            .collect()
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn sorting_orders_every_line_stably(
        rows in 1usize..4, cols in 1usize..6, axis in 0usize..2, ascend in any::<bool>(),
        cells in prop::collection::vec(-3i32..3, 24), k in 0i64..7,
    ) {
        let n = rows * cols;
        let data: Vec<f64> = cells[..n].iter().map(|&v| f64::from(v)).collect();
        let shape = vec![rows as i64, cols as i64];
        let call = |name: &str| {
            let mut args = vec![
                array(shape.clone(), data.clone()),
                array(shape.clone(), vec![0.0; n]),
                PackedArg::Int(axis as i64),
                PackedArg::Int(i64::from(ascend)),
            ];
            builtin(name, &mut args).unwrap().unwrap();
            values(&args[1])
        };
        let (sorted, order) = (call("tvm.contrib.sort.sort"), call("tvm.contrib.sort.argsort"));
        for line in lines(rows, cols, axis) {
            let got: Vec<f64> = line.iter().map(|&p| sorted[p]).collect();
            let pos: Vec<usize> = line.iter().map(|&p| order[p] as usize).collect();
            let original: Vec<f64> = line.iter().map(|&p| data[p]).collect();
            // The positions are a permutation that gives the sorted values.
            let mut seen = pos.clone();
            seen.sort_unstable();
            prop_assert_eq!(seen, (0..line.len()).collect::<Vec<_>>());
            for (k, &p) in pos.iter().enumerate() {
                prop_assert_eq!(original[p], got[k]);
            }
            // In order, and equal values by position.
            for w in pos.windows(2) {
                let (a, b) = (original[w[0]], original[w[1]]);
                let in_order = if ascend { a <= b } else { a >= b };
                prop_assert!(in_order, "{} then {}", a, b);
                if a == b {
                    prop_assert!(w[0] < w[1]);
                }
            }
        }
        // topk along the last axis: the first k of argsort's order.
        let kk = if k < 1 { cols } else { (k as usize).min(cols) };
        prop_assume!(k < 1 || k as usize <= cols);
        let out = vec![rows as i64, kk as i64];
        let mut args = vec![
            array(shape.clone(), data.clone()),
            array(out.clone(), vec![0.0; rows * kk]),
            array(out, vec![0.0; rows * kk]),
            PackedArg::Int(k),
            PackedArg::Int(-1),
            PackedArg::Str("both".into()),
            PackedArg::Int(i64::from(ascend)),
        ];
        builtin("tvm.contrib.sort.topk", &mut args).unwrap().unwrap();
        let (top, idx) = (values(&args[1]), values(&args[2]));
        let mut by_row = vec![
            array(shape.clone(), data.clone()),
            array(shape, vec![0.0; n]),
            PackedArg::Int(1),
            PackedArg::Int(i64::from(ascend)),
        ];
        builtin("tvm.contrib.sort.argsort", &mut by_row).unwrap().unwrap();
        let full = values(&by_row[1]);
        for r in 0..rows {
            for m in 0..kk {
                let p = full[r * cols + m];
                prop_assert_eq!(idx[r * kk + m], p);
                prop_assert_eq!(top[r * kk + m], data[r * cols + p as usize]);
            }
        }
    }
}

/// Sorting along either axis of a 2 x 3 array, both directions; equal
/// values keep their order.
#[test]
fn sort_and_argsort_order_each_line() {
    let data = vec![3.0, 1.0, 3.0, 0.0, 5.0, -1.0];
    let run = |name: &str, axis: i64, ascend: i64| {
        let mut args = vec![
            array(vec![2, 3], data.clone()),
            array(vec![2, 3], vec![0.0; 6]),
            PackedArg::Int(axis),
            PackedArg::Int(ascend),
        ];
        builtin(name, &mut args).unwrap().unwrap();
        values(&args[1])
    };
    assert_eq!(
        run("tvm.contrib.sort.sort", -1, 1),
        [1.0, 3.0, 3.0, -1.0, 0.0, 5.0]
    );
    assert_eq!(
        run("tvm.contrib.sort.argsort", 1, 1),
        [1.0, 0.0, 2.0, 2.0, 0.0, 1.0]
    );
    assert_eq!(
        run("tvm.contrib.sort.argsort", 1, 0),
        [0.0, 2.0, 1.0, 1.0, 0.0, 2.0]
    );
    assert_eq!(
        run("tvm.contrib.sort.sort", 0, 0),
        [3.0, 5.0, 3.0, 0.0, 1.0, -1.0]
    );
}

#[test]
fn argsort_nms_sorts_only_the_valid_values() {
    let mut args = vec![
        array(vec![2, 4], vec![0.1, 0.9, 0.5, 0.7, 0.3, 0.2, 0.8, 0.4]),
        array(vec![2], vec![2.0, 4.0]),
        array(vec![2, 4], vec![0.0; 8]),
        PackedArg::Int(1),
        PackedArg::Int(0),
    ];
    builtin("tvm.contrib.sort.argsort_nms", &mut args)
        .unwrap()
        .unwrap();
    assert_eq!(values(&args[2]), [1.0, 0.0, 2.0, 3.0, 2.0, 3.0, 0.0, 1.0]);
}

#[test]
fn topk_gives_the_first_values_and_positions_of_the_sorted_lines() {
    let mut args = vec![
        array(vec![2, 4], vec![1.0, 4.0, 4.0, 2.0, 0.0, -1.0, 3.0, 3.0]),
        array(vec![2, 2], vec![0.0; 4]),
        array(vec![2, 2], vec![0.0; 4]),
        PackedArg::Int(2),
        PackedArg::Int(-1),
        PackedArg::Str("both".into()),
        PackedArg::Int(0),
    ];
    builtin("tvm.contrib.sort.topk", &mut args)
        .unwrap()
        .unwrap();
    assert_eq!(values(&args[1]), [4.0, 4.0, 3.0, 3.0]);
    assert_eq!(values(&args[2]), [1.0, 2.0, 2.0, 3.0]);
    // A wrong output shape and an unknown kind are errors, not panics.
    args[3] = PackedArg::Int(3);
    assert!(builtin("tvm.contrib.sort.topk", &mut args)
        .unwrap()
        .is_err());
    args[3] = PackedArg::Int(2);
    args[5] = PackedArg::Str("some".into());
    assert!(builtin("tvm.contrib.sort.topk", &mut args)
        .unwrap()
        .is_err());
}

/// A product whose work exceeds the budget is an error, not a long run.
#[test]
fn a_matrix_product_beyond_the_budget_is_refused() {
    let big = |r: i64, c: i64| PackedArg::Array {
        name: String::new(),
        shape: vec![r, c],
        dtype: DataType::Float32,
        data: vec![0.0; (r * c) as usize],
    };
    let mut args = vec![
        big(1024, 2048),
        big(2048, 1024),
        big(1024, 1024),
        PackedArg::Int(0),
        PackedArg::Int(0),
    ];
    let e = builtin("tvm.contrib.cblas.matmul", &mut args)
        .unwrap()
        .unwrap_err();
    assert!(e.contains("multiply-adds"), "{e}");
}
