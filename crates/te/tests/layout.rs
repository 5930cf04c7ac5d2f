//! Layout transforms in schedules: random pipelines with random layouts on
//! inputs and intermediates give the outputs of the definitions (which are
//! the outputs without layouts) with no out-of-bounds access; and TVM's TE
//! transform_layout cases (index_map_cases.md section 6).
//!
//! Left out of section 6, with the reason:
//! - `TestCompareAgainstExplicitReshape::test_internal_reshape` inspects
//!   the buffer between `ApplyLayoutTransforms` and `StorageFlatten`; here
//!   one pass does both (its external-reshape half is ported);
//! - `TestTransformCache`: `cache_read` / `cache_write` add stages, which
//!   the schedules here do not support;
//! - `TestTransformedSchedules`'s `factor_last_by_4` is written
//!   `lambda *indices, n: ...` (a keyword-only parameter after `*indices`);
//!   it is ported with named indices.
// `&[t.clone()]` mirrors TVM's `create_schedule([t])`.
#![allow(clippy::cloned_ref_to_slice_refs)]

use arith::Expr;
use layout::IndexMap;
use proptest::prelude::*;
use std::collections::HashMap;
use te::{check, compute_named, create_schedule, placeholder, reduce_axis, sum, Tensor, Value};
use tir::DataType;

/// How one axis of a 2-d tensor is cut.
#[derive(Clone, Debug)]
struct Cut {
    factor: i64,
    offset: i64,
}

#[derive(Clone, Debug)]
struct MapPlan {
    cuts: [Cut; 2],
    transpose: bool,
    separator: bool,
    /// Fuse the two axes (`i * cols + j`) and cut the fusion by the first
    /// cut's factor.
    fuse: bool,
}

fn map_plan() -> impl Strategy<Value = MapPlan> {
    let cut = (1i64..5, prop_oneof![3 => Just(0i64), 1 => 1i64..3])
        .prop_map(|(factor, offset)| Cut { factor, offset });
    (
        cut.clone(),
        cut,
        any::<bool>(),
        any::<bool>(),
        prop::bool::weighted(0.3),
    )
        .prop_map(|(a, b, transpose, separator, fuse)| MapPlan {
            cuts: [a, b],
            transpose,
            separator,
            fuse,
        })
}

/// The map text of a plan on `[rows, cols]`; `bijective` drops offsets and
/// factors that do not divide, so that no index is padded.
fn map_text(p: &MapPlan, shape: [i64; 2], bijective: bool) -> String {
    let names = ["i", "j"];
    if p.fuse {
        let c = &p.cuts[0];
        let total = shape[0] * shape[1];
        let (f, o) = if bijective {
            (if total % c.factor == 0 { c.factor } else { 1 }, 0)
        } else {
            (c.factor, c.offset)
        };
        let src = format!("(i * {} + j + {o})", shape[1]);
        let mut items = if f == 1 {
            vec![src]
        } else {
            vec![format!("{src} // {f}"), format!("{src} % {f}")]
        };
        if p.transpose {
            items.reverse();
        }
        if p.separator && items.len() > 1 {
            items.insert(1, "te.AXIS_SEPARATOR".into());
        }
        return format!("lambda i, j: [{}]", items.join(", "));
    }
    let mut items: Vec<Vec<String>> = Vec::new();
    for (k, c) in p.cuts.iter().enumerate() {
        let (f, o) = if bijective {
            (
                if shape[k] % c.factor == 0 {
                    c.factor
                } else {
                    1
                },
                0,
            )
        } else {
            (c.factor, c.offset)
        };
        let src = if o == 0 {
            names[k].to_string()
        } else {
            format!("({} + {o})", names[k])
        };
        items.push(if f == 1 {
            vec![src]
        } else {
            vec![format!("{src} // {f}"), format!("{src} % {f}")]
        });
    }
    if p.transpose {
        items.swap(0, 1);
    }
    let mut flat: Vec<String> = items.into_iter().flatten().collect();
    if p.separator && flat.len() > 1 {
        flat.insert(1, "te.AXIS_SEPARATOR".into());
    }
    format!("lambda i, j: [{}]", flat.join(", "))
}

#[derive(Clone, Debug)]
struct Plan {
    rows: i64,
    cols: i64,
    input_map: Option<MapPlan>,
    mid_map: Option<MapPlan>,
    out_map: Option<MapPlan>,
    read: u8,
    attach: Option<usize>,
    split: Option<(usize, i64)>,
    reduce: bool,
}

fn plan() -> impl Strategy<Value = Plan> {
    (
        2i64..9,
        2i64..9,
        prop::option::of(map_plan()),
        prop::option::of(map_plan()),
        prop::option::of(map_plan()),
        0u8..3,
        prop::option::of(0usize..4),
        prop::option::of((0usize..4, 2i64..4)),
        prop::bool::weighted(0.25),
    )
        .prop_map(
            |(rows, cols, input_map, mid_map, out_map, read, attach, split, reduce)| Plan {
                rows,
                cols,
                input_map,
                mid_map,
                out_map,
                read,
                attach,
                split,
                reduce,
            },
        )
}

fn read(t: &Tensor, pattern: u8, i: &Expr, j: &Expr, rows: i64, cols: i64) -> Value {
    match pattern {
        0 => t.at([i, j]),
        1 => t.at([&(Expr::int(rows - 1) - i.clone()), j]),
        _ => t.at([
            &Expr::floor_mod(j.clone(), Expr::int(rows)),
            &Expr::floor_mod(i.clone(), Expr::int(cols)),
        ]),
    }
}

fn build(p: &Plan) -> (te::Schedule, Vec<Tensor>, String) {
    let (r, c) = (p.rows, p.cols);
    let mut log = String::new();
    let a = placeholder([r, c], "A", DataType::Float32).unwrap();
    let b = if p.reduce {
        let k = reduce_axis((0, c), "k");
        let a2 = a.clone();
        compute_named(
            [r, c],
            &["bi", "bj"],
            move |x| {
                sum(
                    a2.at([&x[0], &k.expr()]) * a2.at([&x[0], &x[1]]),
                    &[k.clone()],
                )
            },
            "B",
        )
        .unwrap()
    } else {
        let (a2, pat) = (a.clone(), p.read);
        compute_named(
            [r, c],
            &["bi", "bj"],
            move |x| read(&a2, pat, &x[0], &x[1], r, c) * 2.0 + 1.0,
            "B",
        )
        .unwrap()
    };
    let b2 = b.clone();
    let out = compute_named(
        [r, c],
        &["ci", "cj"],
        move |x| b2.at([&x[0], &x[1]]) + 3.0,
        "C",
    )
    .unwrap();
    let mut s = create_schedule(&[out.clone()]);
    if let Some(m) = &p.input_map {
        let t = map_text(m, [r, c], false);
        log += &format!("A: {t}\n");
        s.transform_layout(&a, IndexMap::parse(&t).unwrap())
            .unwrap();
    }
    if let Some(m) = &p.mid_map {
        let t = map_text(m, [r, c], true);
        log += &format!("B: {t}\n");
        s.transform_layout(&b, IndexMap::parse(&t).unwrap())
            .unwrap();
    }
    let mut axes = out.op().axis().to_vec();
    if let Some(m) = &p.out_map {
        let t = map_text(m, [r, c], true);
        log += &format!("C: {t}\n");
        axes = s
            .transform_layout(&out, IndexMap::parse(&t).unwrap())
            .unwrap();
    }
    if let Some((k, f)) = p.split {
        let iv = axes[k % axes.len()].clone();
        let (o, i) = s.split(&out, &iv, f).unwrap();
        log += &format!("split {} by {f}\n", iv.name());
        let pos = axes.iter().position(|a| *a == iv).unwrap();
        axes.splice(pos..=pos, [o, i]);
    }
    if let Some(k) = p.attach {
        let iv = axes[k % axes.len()].clone();
        log += &format!("B at {}\n", iv.name());
        s.compute_at(&b, &out, &iv).unwrap();
    }
    (s, vec![a, out], log)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn layouts_never_change_values(p in plan()) {
        let (s, args, log) = build(&p);
        let r = check(&s, &args, &HashMap::new(), 7)
            .unwrap_or_else(|e| panic!("{log}{e}"));
        prop_assert!(r.is_clean(0.0), "{log}{r:?}\n{}", te::lower(&s, &args).unwrap());
    }
}

fn loop_extents(f: &tir::PrimFunc) -> Vec<i64> {
    let mut out = Vec::new();
    f.body.visit(&mut |s| {
        if let tir::Stmt::For { extent, .. } = s {
            out.push(extent.as_int().unwrap_or(-1));
        }
    });
    out
}

/// TestTransformedSchedules: logical (4, 6, 40), B = A; the loops follow
/// the transformed shape, also after reorder, split and fuse of the
/// returned axes.
#[test]
fn transformed_schedules_loop_order() {
    let transforms: &[(&str, &[i64])] = &[
        ("lambda i, j, k: [k, j, i]", &[40, 6, 4]),
        ("lambda i, j, k: [i * 240 + j * 40 + k]", &[960]),
        ("lambda i, j, n: [i, j, n // 4, n % 4]", &[4, 6, 10, 4]),
    ];
    for a_map in [
        None,
        Some("lambda i, j, k: [k, j, i]"),
        Some("lambda i, j, k: [i * 240 + j * 40 + k]"),
    ] {
        for (b_map, shape) in transforms {
            for after in ["none", "reorder", "split", "fuse"] {
                let a = placeholder([4, 6, 40], "A", DataType::Float32).unwrap();
                let a2 = a.clone();
                let b = compute_named(
                    [4, 6, 40],
                    &["i", "j", "k"],
                    move |x| a2.at([&x[0], &x[1], &x[2]]),
                    "B",
                )
                .unwrap();
                let mut s = create_schedule(&[b.clone()]);
                if let Some(m) = a_map {
                    s.transform_layout(&a, IndexMap::parse(m).unwrap()).unwrap();
                }
                let axes = s
                    .transform_layout(&b, IndexMap::parse(b_map).unwrap())
                    .unwrap();
                let bounds = te::infer_bound(&s).unwrap();
                let extents: Vec<i64> = axes
                    .iter()
                    .map(|iv| {
                        bounds
                            .range(iv)
                            .and_then(|r| r.extent.as_int())
                            .unwrap_or(-1)
                    })
                    .collect();
                let mut want = shape.to_vec();
                match after {
                    "reorder" => {
                        let rev: Vec<_> = axes.iter().rev().cloned().collect();
                        s.reorder(&b, &rev).unwrap();
                        want.reverse();
                    }
                    "split" => {
                        let last = axes.last().unwrap();
                        s.split_nparts(&b, last, 2).unwrap();
                        let l = want.pop().unwrap();
                        want.extend([2, l / 2]);
                    }
                    "fuse" if axes.len() > 1 => {
                        s.fuse(&b, &axes[0], &axes[1]).unwrap();
                        let f = want[0] * want[1];
                        want.splice(0..2, [f]);
                    }
                    _ => {}
                }
                let f = te::lower(&s, &[a.clone(), b.clone()]).unwrap();
                assert_eq!(loop_extents(&f), want, "{a_map:?} {b_map} {after}\n{f}");
                if after == "none" {
                    assert_eq!(extents, *shape);
                }
                let r = check(&s, &[a, b], &HashMap::new(), 1).unwrap();
                assert!(r.is_clean(0.0), "{a_map:?} {b_map} {after}: {r:?}");
            }
        }
    }
}

/// Test2DPhysicalLayout: (2, 3, 4), each of A and B flat, 2-d, reversed 2-d
/// or 3-d; the indices of every access are the expected physical ones.
#[test]
fn two_d_physical_layouts() {
    let layouts: &[(Option<&str>, &str)] = &[
        (None, "[i, j, k]"),
        (
            Some("lambda i, j, k: [i, j, te.AXIS_SEPARATOR, k]"),
            "[((i*3) + j), k]",
        ),
        (
            Some("lambda i, j, k: [k, j, te.AXIS_SEPARATOR, i]"),
            "[((k*3) + j), i]",
        ),
        (
            Some("lambda i, j, k: [i, te.AXIS_SEPARATOR, j, te.AXIS_SEPARATOR, k]"),
            "[i, j, k]",
        ),
    ];
    for (ma, want_a) in layouts {
        for (mb, want_b) in layouts {
            let a = placeholder([2, 3, 4], "A", DataType::Float32).unwrap();
            let a2 = a.clone();
            let b = compute_named(
                [2, 3, 4],
                &["i", "j", "k"],
                move |x| a2.at([&x[0], &x[1], &x[2]]),
                "B",
            )
            .unwrap();
            let mut s = create_schedule(&[b.clone()]);
            if let Some(m) = ma {
                s.transform_layout(&a, IndexMap::parse(m).unwrap()).unwrap();
            }
            let mut order = None;
            if let Some(m) = mb {
                order = Some(s.transform_layout(&b, IndexMap::parse(m).unwrap()).unwrap());
            }
            let f = te::lower(&s, &[a.clone(), b.clone()]).unwrap();
            let text = f.to_string();
            assert!(
                text.contains(&format!("A{want_a}")),
                "{ma:?}/{mb:?}:\n{text}"
            );
            assert!(
                text.contains(&format!("B{want_b}")),
                "{ma:?}/{mb:?}:\n{text}"
            );
            let _ = order;
            assert!(check(&s, &[a, b], &HashMap::new(), 2)
                .unwrap()
                .is_clean(0.0));
        }
    }
}

#[test]
fn transform_with_reduction() {
    let a = placeholder([16, 32, 64], "A", DataType::Float32).unwrap();
    let k = reduce_axis((0, 64), "k");
    let a2 = a.clone();
    let b = compute_named(
        [16, 32],
        &["i", "j"],
        move |x| sum(a2.at([&x[0], &x[1], &k.expr()]), &[k.clone()]),
        "B",
    )
    .unwrap();
    let mut s = create_schedule(&[b.clone()]);
    s.transform_layout(&b, IndexMap::parse("lambda i, j: [j, i]").unwrap())
        .unwrap();
    let r = check(&s, &[a, b], &HashMap::new(), 3).unwrap();
    assert!(r.is_clean(1e-9), "{r:?}");
}

#[test]
fn size_one_buffers() {
    for shape in [[1, 1, 1], [1, 2, 3], [4, 1, 2]] {
        for map in [
            "lambda i, j, k: [k, i, j]",
            "lambda i, j, k: [i, j, te.AXIS_SEPARATOR, k]",
        ] {
            let a = placeholder(shape, "A", DataType::Int8).unwrap();
            let a2 = a.clone();
            let b = compute_named(
                shape,
                &["i", "j", "k"],
                move |x| a2.at([&x[0], &x[1], &x[2]]),
                "B",
            )
            .unwrap();
            let mut s = create_schedule(&[b.clone()]);
            s.transform_layout(&b, IndexMap::parse(map).unwrap())
                .unwrap();
            assert!(
                check(&s, &[a, b], &HashMap::new(), 4)
                    .unwrap()
                    .is_clean(0.0),
                "{shape:?} {map}"
            );
        }
    }
}

/// test_non_divisible_transform_raises_error: padding a computed tensor is
/// refused (its stage would iterate over indices with no logical element);
/// on a placeholder it is accepted.
#[test]
fn non_divisible_transform_of_a_computed_tensor_is_an_error() {
    let a = placeholder([1, 3, 8, 8], "A", DataType::Float32).unwrap();
    let a2 = a.clone();
    let b = compute_named(
        [1, 3, 8, 8],
        &["n", "c", "h", "w"],
        move |x| a2.at([&x[0], &x[1], &x[2], &x[3]]),
        "B",
    )
    .unwrap();
    let mut s = create_schedule(&[b.clone()]);
    let map = IndexMap::parse("lambda n, c, h, w: [n, c // 4, h, w, c % 4]").unwrap();
    let e = s.transform_layout(&b, map.clone()).unwrap_err();
    assert!(e.message.contains("pads"), "{}", e.message);
    s.transform_layout(&a, map).unwrap();
    assert!(check(&s, &[a, b], &HashMap::new(), 5)
        .unwrap()
        .is_clean(0.0));
}

/// TestCompareAgainstExplicitReshape (external reshape): a 24-element
/// buffer whose physical layout is (2, 3, 4), given either by
/// transform_layout or by an explicit reshaping compute, on the input and
/// on the output; all four give the same values.
#[test]
fn compare_against_explicit_reshape() {
    let unpack = "lambda i: [i // 12, i // 4 % 3, i % 4]";
    for a_explicit in [false, true] {
        for b_explicit in [false, true] {
            let (a_input, a) = if a_explicit {
                let ai = placeholder([2, 3, 4], "A_input", DataType::Int32).unwrap();
                let ai2 = ai.clone();
                let a = compute_named(
                    [24],
                    &["i"],
                    move |x| {
                        let i = &x[0];
                        ai2.at([
                            &Expr::floor_div(i.clone(), Expr::int(12)),
                            &Expr::floor_mod(
                                Expr::floor_div(i.clone(), Expr::int(4)),
                                Expr::int(3),
                            ),
                            &Expr::floor_mod(i.clone(), Expr::int(4)),
                        ])
                    },
                    "A",
                )
                .unwrap();
                (ai, a)
            } else {
                let a = placeholder([24], "A", DataType::Int32).unwrap();
                (a.clone(), a)
            };
            let a2 = a.clone();
            let b = compute_named([24], &["i"], move |x| a2.at([&x[0]]), "B").unwrap();
            let b_output = if b_explicit {
                let b2 = b.clone();
                compute_named(
                    [2, 3, 4],
                    &["i", "j", "k"],
                    move |x| b2.at([&(x[0].clone() * 12 + x[1].clone() * 4 + x[2].clone())]),
                    "B_output",
                )
                .unwrap()
            } else {
                b.clone()
            };
            let mut s = create_schedule(&[b_output.clone()]);
            if !a_explicit {
                s.transform_layout(&a, IndexMap::parse(unpack).unwrap())
                    .unwrap();
            }
            if !b_explicit {
                s.transform_layout(&b, IndexMap::parse(unpack).unwrap())
                    .unwrap();
            }
            let f = te::lower(&s, &[a_input.clone(), b_output.clone()]).unwrap();
            let r = check(&s, &[a_input, b_output], &HashMap::new(), 6).unwrap();
            assert!(
                r.is_clean(0.0),
                "A explicit {a_explicit}, B explicit {b_explicit}: {r:?}\n{f}"
            );
        }
    }
}

/// test_size_one_buffer's parameters: extents of one in the shape.
#[test]
fn size_one_buffer_cases() {
    let cases: &[(&[i64], &str)] = &[
        (&[1, 8], "lambda n, i: [i, n]"),
        (&[1, 1, 8], "lambda i, j, k: [j, te.AXIS_SEPARATOR, i, k]"),
        (&[1, 1, 8], "lambda i, j, k: [i, te.AXIS_SEPARATOR, j, k]"),
    ];
    for (shape, map) in cases {
        let names = ["i", "j", "k"];
        let a = placeholder(shape.to_vec(), "A", DataType::Int8).unwrap();
        let a2 = a.clone();
        let b = compute_named(
            shape.to_vec(),
            &names[..shape.len()],
            move |x| a2.at(x.iter().collect::<Vec<_>>()),
            "B",
        )
        .unwrap();
        let mut s = create_schedule(&[b.clone()]);
        s.transform_layout(&b, IndexMap::parse(map).unwrap())
            .unwrap();
        assert!(
            check(&s, &[a, b], &HashMap::new(), 4)
                .unwrap()
                .is_clean(0.0),
            "{shape:?} {map}"
        );
    }
}

/// A layout map over a symbolic shape that names its sizes (`i * n + j`
/// fuses with the extent `n`) runs with the sizes given: the map is read
/// with the same values as the shape (fuzz `te`, seed 0, case 10027).
#[test]
fn a_map_naming_a_size_runs_with_that_size() {
    let mut scope = arith::Scope::new();
    let n = arith::Var::new("n");
    scope.insert(n.clone());
    let a = placeholder([n.expr(), n.expr()], "A", DataType::Float32).unwrap();
    let a2 = a.clone();
    let b = compute_named(
        [n.expr(), n.expr()],
        &["i", "j"],
        move |x| a2.at([&x[0], &x[1]]) * 2,
        "B",
    )
    .unwrap();
    let mut s = create_schedule(&[b.clone()]);
    let map =
        IndexMap::parse_with("lambda i, j: [(i * n + j) // 2, (i * n + j) % 2]", &scope).unwrap();
    s.transform_layout(&a, map).unwrap();
    for size in [4, 7] {
        let sizes = HashMap::from([(n.clone(), size)]);
        let r = check(&s, &[a.clone(), b.clone()], &sizes, 1).unwrap();
        assert!(r.is_clean(1e-9), "n = {size}: {r:?}");
    }
}
