//! TVM's IndexMap and buffer-flattening tests
//! (`conformance/tvm/index_map_cases.md`, v0.19.0), ported.
//!
//! Inverses are compared by evaluation at every transformed point (TVM's
//! `is_equivalent_to`), padding predicates by evaluation over the whole
//! transformed shape (TVM compares them structurally after simplification;
//! equal truth tables is the semantic content), shapes exactly.
//!
//! Left out, with the reason:
//! - the `T.int64` variants of `test_index_mapping` / `test_shape_mapping`:
//!   rangefinder has one integer type (i64), so there is no dtype to keep;
//! - section 1b (`*_accepts_external_analyzer`,
//!   `..._does_not_bind_output_vars_to_external_analyzer`): the API takes no
//!   analyzer argument;
//! - `test_inverse_preserves_passthrough_var_names`: the inverse names the
//!   transformed indices `i0, i1, ...` (so that printed inverses are
//!   uniform), not after the logical indices passed through;
//! - `test_map_ndarray`'s NDArray moves: there are no NDArrays; the same maps
//!   are checked point by point (`map_ndarray_maps_round_trip`);
//! - `test_buffer_vload`, `test_buffer_offset_of`,
//!   `test_buffer_index_merge_mult_mod`: `elem_offset`, strides and the
//!   simplification of offsets belong to `arith`'s simplifier tests, not to
//!   layouts;
//! - sections 3-5 (FlattenBuffer on TVMScript, the TensorIR schedule
//!   primitives `transform_layout` / `transform_block_layout` /
//!   `set_axis_separator`): they are written in TVMScript TIR with blocks,
//!   which rangefinder does not read; section 6 (TE) belongs to the `te` and
//!   `script` crates.

mod common;

use arith::{Expr, Scope};
use common::{eval_expr, eval_lambda, ints, shape};
use layout::{for_each_point, ErrorKind, IndexMap, Layout};
use std::collections::HashSet;

struct PaddingCase {
    name: &'static str,
    forward: &'static str,
    inverse: &'static str,
    pre_shape: &'static [i64],
    post_shape: &'static [i64],
    padding: &'static str,
}

/// Section 1a, with TVM's `tvm.tir.And/Or(a, b)` written `a and b` / `a or
/// b`, `tvm.runtime.convert(x)` written `x` and `T.int32(x)` written `x`.
const PADDING_CASES: &[PaddingCase] = &[
    PaddingCase {
        name: "no_padding",
        forward: "lambda i: [i // 4, i % 4]",
        inverse: "lambda i, j: 4 * i + j",
        pre_shape: &[16],
        post_shape: &[4, 4],
        padding: "lambda i, j: False",
    },
    PaddingCase {
        name: "right_padding",
        forward: "lambda i: [i // 4, i % 4]",
        inverse: "lambda i, j: 4 * i + j",
        pre_shape: &[15],
        post_shape: &[4, 4],
        padding: "lambda i, j: i == 3 and 3 == j",
    },
    PaddingCase {
        name: "left_padding",
        forward: "lambda i: [(i + 1) // 4, (i + 1) % 4]",
        inverse: "lambda i, j: 4 * i + j - 1",
        pre_shape: &[15],
        post_shape: &[4, 4],
        padding: "lambda i, j: i == 0 and j < 1",
    },
    PaddingCase {
        name: "left_and_right_padding",
        forward: "lambda i: [(i + 1) // 4, (i + 1) % 4]",
        inverse: "lambda i, j: 4 * i + j - 1",
        pre_shape: &[14],
        post_shape: &[4, 4],
        padding: "lambda i, j: (i == 0 and j < 1) or (i == 3 and 3 == j)",
    },
    PaddingCase {
        name: "2d_padding",
        forward: "lambda i, j: [(i + 1) // 4, (j + 5) // 8, (i + 1) % 4, (j + 5) % 8]",
        inverse: "lambda i_outer, j_outer, i_inner, j_inner: 4 * i_outer + i_inner - 1 ; 8 * j_outer + j_inner - 5",
        pre_shape: &[14, 31],
        post_shape: &[4, 5, 4, 8],
        padding: "lambda i_outer, j_outer, i_inner, j_inner: ((i_outer == 0 and i_inner < 1) or (i_outer == 3 and 3 == i_inner)) or ((j_outer == 0 and j_inner < 5) or (j_outer == 4 and j_inner >= 4))",
    },
    PaddingCase {
        name: "multiple_right_padding",
        forward: "lambda i: [i // 32, (i // 4) % 8, i % 4]",
        inverse: "lambda i, j, k: 32 * i + 4 * j + k",
        pre_shape: &[116],
        post_shape: &[4, 8, 4],
        padding: "lambda i, j, k: i == 3 and 4 * j + k >= 20",
    },
    PaddingCase {
        name: "multiple_right_padding_transpose",
        forward: "lambda i: [(i // 4) % 8, i // 32, i % 4]",
        inverse: "lambda j, i, k: 32 * i + 4 * j + k",
        pre_shape: &[116],
        post_shape: &[8, 4, 4],
        padding: "lambda j, i, k: i == 3 and 4 * j + k >= 20",
    },
    PaddingCase {
        name: "multiple_left_padding",
        forward: "lambda i: [(i + 5) // 32, ((i + 5) // 4) % 8, (i + 5) % 4]",
        inverse: "lambda i, j, k: 32 * i + 4 * j + k - 5",
        pre_shape: &[123],
        post_shape: &[4, 8, 4],
        padding: "lambda i, j, k: i == 0 and j * 4 + k < 5",
    },
    PaddingCase {
        name: "multiple_left_padding_with_transpose",
        forward: "lambda i: [((i + 5) // 4) % 8, (i + 5) // 32, (i + 5) % 4]",
        inverse: "lambda j, i, k: 32 * i + 4 * j + k - 5",
        pre_shape: &[123],
        post_shape: &[8, 4, 4],
        padding: "lambda j, i, k: i == 0 and j * 4 + k < 5",
    },
    PaddingCase {
        name: "outer_loop_extent_one",
        forward: "lambda i: [i // 4, i % 4]",
        inverse: "lambda i, j: i * 4 + j",
        pre_shape: &[3],
        post_shape: &[1, 4],
        padding: "lambda i, j: 3 == j",
    },
];

/// The expected inverse's component `k` at `t` (components separated by `;`).
fn expected_inverse(text: &str, t: &[i64]) -> Vec<i64> {
    let (params, body) = text.split_once(':').unwrap();
    body.split(';')
        .map(|part| eval_lambda(&format!("{params}: {part}"), t, &[]))
        .collect()
}

#[test]
fn nonsurjective_inverse_padding_table() {
    for case in PADDING_CASES {
        let map = IndexMap::parse(case.forward).unwrap();
        let pre = shape(case.pre_shape);
        let (inverse, padding) = map.non_surjective_inverse(&pre).unwrap();
        let post = map.map_shape(&pre).unwrap();
        assert_eq!(ints(&post), case.post_shape, "{}: post_shape", case.name);
        let vars = inverse.initial_indices().to_vec();
        let mut padded = 0;
        for_each_point(case.post_shape, |t| {
            let want = eval_lambda(case.padding, t, &[]) != 0;
            let got = padding
                .as_ref()
                .is_some_and(|p| eval_expr(p, &vars, t, &[]) != 0);
            assert_eq!(got, want, "{}: padding at {t:?}", case.name);
            padded += usize::from(got);
            assert_eq!(
                inverse.map_point(t).unwrap(),
                expected_inverse(case.inverse, t),
                "{}: inverse at {t:?}",
                case.name
            );
        });
        assert_eq!(
            padding.is_none(),
            padded == 0,
            "{}: predicate present iff padding",
            case.name
        );
    }
}

#[test]
fn nonsurjective_inverse_dynamic_size() {
    // `dynamic_size`: pre_shape [N]; post_shape
    // [(N - N % (-4)) // 4, 4]; padding N % (-4) != 0 and i == N // 4 and
    // j >= N % 4. Compared by evaluation for N in 1..=33.
    let mut scope = Scope::new();
    let n = scope.get_or_create("N");
    let map = IndexMap::parse_with("lambda i: [i // 4, i % 4]", &scope).unwrap();
    let pre = vec![n.expr()];
    let (inverse, padding) = map.non_surjective_inverse(&pre).unwrap();
    let post = map.map_shape(&pre).unwrap();
    assert_eq!(post[0].to_string(), "ceildiv(N, 4)");
    assert_eq!(post[1], Expr::int(4));
    let padding = padding.expect("symbolic N may need padding");
    let vars = inverse.initial_indices().to_vec();
    for nv in 1..=33i64 {
        let env = [("N", nv)];
        let p0 = eval_expr(&post[0], &[], &[], &env);
        let tvm_p0 = eval_lambda("lambda: (N - N % (-4)) // 4", &[], &env);
        assert_eq!(p0, tvm_p0, "N = {nv}");
        for_each_point(&[p0, 4], |t| {
            let want = eval_lambda(
                "lambda i, j: N % (-4) != 0 and (i == N // 4 and j >= N % 4)",
                t,
                &env,
            ) != 0;
            assert_eq!(
                eval_expr(&padding, &vars, t, &env) != 0,
                want,
                "N = {nv}, {t:?}"
            );
            assert_eq!(inverse.map_point(t).unwrap(), vec![4 * t[0] + t[1]]);
        });
    }
}

#[test]
fn index_mapping() {
    let map = IndexMap::parse("lambda i: [i // 4, i % 4]").unwrap();
    assert_eq!(map.map_point(&[0]).unwrap(), [0, 0]);
    assert_eq!(map.map_point(&[3]).unwrap(), [0, 3]);
    assert_eq!(map.map_point(&[4]).unwrap(), [1, 0]);
    assert_eq!(map.map_point(&[42]).unwrap(), [10, 2]);
    assert_eq!(map.map_indices(&shape(&[42])).unwrap(), shape(&[10, 2]));
}

#[test]
fn shape_mapping() {
    let map = IndexMap::parse("lambda i: [i // 4, i % 4]").unwrap();
    assert_eq!(map.map_shape(&shape(&[4])).unwrap(), shape(&[1, 4]));
    assert_eq!(map.map_shape(&shape(&[16])).unwrap(), shape(&[4, 4]));
    assert_eq!(map.map_shape(&shape(&[14])).unwrap(), shape(&[4, 4]));
}

#[test]
fn inverse() {
    let map = IndexMap::parse("lambda i: [i // 4, i % 4]").unwrap();
    let inv = map.inverse(&shape(&[16])).unwrap();
    let expected = IndexMap::parse("lambda i, j: [4 * i + j]").unwrap();
    assert!(inv.agrees_with(&expected, &[4, 4]).unwrap());
    assert_eq!(inv.to_string(), "lambda i0, i1: [i0 * 4 + i1]");
}

#[test]
fn nonbijective_inverse_gives_error() {
    let map = IndexMap::parse("lambda i: [i // 4, i % 4]").unwrap();
    let err = map.inverse(&shape(&[14])).unwrap_err();
    assert_eq!(err.kind, ErrorKind::NotBijective);
    assert!(err.message.contains("[3, 3]"), "{}", err.message);
}

#[test]
fn index_map_inverse_no_iter() {
    let map = IndexMap::parse(
        "lambda i0, i1, i2, i3: [floordiv(i3, 32), floordiv(i2, 2), floormod(i2, 2), floormod(i3, 32)]",
    )
    .unwrap();
    let inv = map.inverse(&shape(&[1, 1, 64, 64])).unwrap();
    let expected =
        IndexMap::parse("lambda i0, i1, i2, i3: [0, 0, i2 + i1 * 2, i3 + i0 * 32]").unwrap();
    assert!(inv.agrees_with(&expected, &[2, 32, 2, 32]).unwrap());
}

#[test]
fn map_ndarray_maps_round_trip() {
    let cases: &[(&str, &[i64])] = &[
        ("lambda i: [i // 4, i % 4]", &[16]),
        ("lambda i0, i1, i2, i3: (i3, i0, i1, i2)", &[10, 10, 10, 10]),
        (
            "lambda i0, i1, i2, i3: (floordiv(i3, 32), i0, floordiv(i2, 8), floordiv(floormod(i3, 32), 16), i1, floormod(i2, 8), floormod(i3, 16))",
            &[3, 3, 64, 64],
        ),
    ];
    for (text, dims) in cases {
        let map = IndexMap::parse(text).unwrap();
        let inv = map.inverse(&shape(dims)).unwrap();
        let post = ints(&map.map_shape(&shape(dims)).unwrap());
        let mut images = HashSet::new();
        for_each_point(dims, |x| {
            let t = map.map_point(x).unwrap();
            assert!(t.iter().zip(&post).all(|(v, e)| (0..*e).contains(v)));
            assert_eq!(inv.map_point(&t).unwrap(), x, "{text} at {x:?}");
            images.insert(t);
        });
        assert_eq!(
            images.len() as i64,
            post.iter().product::<i64>(),
            "{text}: bijective"
        );
    }
}

// ---- section 2: Buffer flattening and axis separators

#[test]
fn buffer_flatten() {
    let l = Layout::new(shape(&[16, 32]), None).unwrap();
    assert_eq!(l.physical_shape(), &shape(&[16 * 32])[..]);
}

#[test]
fn buffer_flatten_preserves_identity() {
    let l = Layout::new(shape(&[16]), None).unwrap();
    assert_eq!(l.physical_shape(), &shape(&[16])[..]);
    assert_eq!(l.physical_point(&[7]).unwrap(), [7]);
}

#[test]
fn buffer_flatten_uses_axis_separators() {
    // decl_buffer([4, 16, 32], axis_separators=[2])
    let map = IndexMap::parse("lambda a, b, c: [a, b, te.AXIS_SEPARATOR, c]").unwrap();
    assert_eq!(map.axis_separators(), [2]);
    let l = Layout::new(shape(&[4, 16, 32]), Some(map)).unwrap();
    assert_eq!(l.physical_shape(), &shape(&[4 * 16, 32])[..]);
    assert_eq!(l.groups().len(), 2);
}

#[test]
fn invalid_axis_separators_raises_exception() {
    // decl_buffer([1], axis_separators=[1, 2])
    let v = arith::Var::new("i");
    assert!(IndexMap::new(vec![v.clone()], vec![v.expr()], vec![1, 2]).is_err());
    assert!(IndexMap::parse("lambda i: [i, te.AXIS_SEPARATOR]").is_err());
    assert!(IndexMap::parse("lambda i, j: [i, te.AXIS_SEPARATOR, te.AXIS_SEPARATOR, j]").is_err());
}

// ---- section 6 at the IndexMap level: the transforms TE tests apply

#[test]
fn te_transform_shapes() {
    // TestTransformedSchedules: logical (4, 6, 40).
    let dims = [4, 6, 40];
    let cases: &[(&str, &[i64])] = &[
        ("lambda i, j, k: [k, j, i]", &[40, 6, 4]),
        ("lambda i, j, k: [i * 240 + j * 40 + k]", &[960]),
        ("lambda i, j, n: [i, j, n // 4, n % 4]", &[4, 6, 10, 4]),
    ];
    for (text, want) in cases {
        let map = IndexMap::parse(text).unwrap();
        assert_eq!(
            ints(&map.map_shape(&shape(&dims)).unwrap()),
            *want,
            "{text}"
        );
        map.inverse(&shape(&dims)).unwrap();
    }
    // test_size_one_buffer: extents of one do not confuse the analysis.
    for dims in [[1, 1, 1], [1, 2, 3], [4, 1, 2]] {
        let map = IndexMap::parse("lambda i, j, k: [k, i, j]").unwrap();
        let inv = map.inverse(&shape(&dims)).unwrap();
        for_each_point(&dims, |x| {
            assert_eq!(inv.map_point(&map.map_point(x).unwrap()).unwrap(), x);
        });
    }
    // Test2DPhysicalLayout: (2, 3, 4) with the four physical layouts.
    type Expected = fn(&[i64]) -> Vec<i64>;
    let cases: &[(&str, &[i64], Expected)] = &[
        ("lambda i, j, k: [i, j, k]", &[24], |x| {
            vec![x[0] * 12 + x[1] * 4 + x[2]]
        }),
        (
            "lambda i, j, k: [i, j, te.AXIS_SEPARATOR, k]",
            &[6, 4],
            |x| vec![x[0] * 3 + x[1], x[2]],
        ),
        (
            "lambda i, j, k: [k, j, te.AXIS_SEPARATOR, i]",
            &[12, 2],
            |x| vec![x[2] * 3 + x[1], x[0]],
        ),
        (
            "lambda i, j, k: [i, te.AXIS_SEPARATOR, j, te.AXIS_SEPARATOR, k]",
            &[2, 3, 4],
            |x| x.to_vec(),
        ),
    ];
    for (text, phys, index) in cases {
        let l = Layout::new(shape(&[2, 3, 4]), Some(IndexMap::parse(text).unwrap())).unwrap();
        assert_eq!(ints(l.physical_shape()), *phys, "{text}");
        for_each_point(&[2, 3, 4], |x| {
            assert_eq!(l.physical_point(x).unwrap(), index(x))
        });
    }
}

#[test]
fn te_non_divisible_transform_has_padding() {
    // test_non_divisible_transform_raises_error: TVM's TE rejects the padded
    // transform; here it is accepted and its padding is reported.
    let map = IndexMap::parse("lambda n, c, h, w: [n, c // 4, h, w, c % 4]").unwrap();
    let l = Layout::new(shape(&[1, 3, 8, 8]), Some(map)).unwrap();
    assert_eq!(ints(l.transformed_shape()), [1, 1, 8, 8, 4]);
    assert!(!l.is_bijective());
}
