//! Physical layouts: tiled layouts as XLA prints them, the maps between
//! logical indices and (tiled) physical positions, and `--physical` maps
//! (`Query::physical_layout`), all checked by enumeration on small shapes.

use hlo::{ArrayShape, LayoutAnnotation, OperandIndexing, Query, Shape, Tile, TileDim};
use indexing::IndexingMap;
use proptest::prelude::*;
use std::collections::{BTreeMap, BTreeSet};

fn parameter_shape(text: &str) -> ArrayShape {
    let m = hlo::parse_module(&format!("ENTRY e {{\n ROOT p = {text} parameter(0)\n}}"))
        .unwrap_or_else(|e| panic!("{text}: {e:?}"));
    match &m.entry_computation().root_instruction().shape {
        Shape::Array(a) => a.clone(),
        Shape::Tuple(_) => panic!("a tuple"),
    }
}

fn parse_error(text: &str) -> String {
    hlo::parse_module(&format!("ENTRY e {{\n ROOT p = {text} parameter(0)\n}}"))
        .expect_err(text)
        .message
}

fn sizes(tile: &Tile) -> Vec<i64> {
    tile.dims
        .iter()
        .map(|d| match d {
            TileDim::Size(n) => *n,
            TileDim::Combine => -1,
        })
        .collect()
}

#[test]
fn tiled_layouts_parse_as_xla_prints_them() {
    let s = parameter_shape("f32[1024,512]{1,0:T(8,128)}");
    assert_eq!(s.layout, Some(vec![1, 0]));
    assert_eq!(
        s.tiles.iter().map(sizes).collect::<Vec<_>>(),
        vec![vec![8, 128]]
    );
    assert_eq!(s.to_string(), "f32[1024,512]{1,0:T(8,128)}");

    let s = parameter_shape("bf16[16,256]{1,0:T(8,128)(2,1)}");
    assert_eq!(
        s.tiles.iter().map(sizes).collect::<Vec<_>>(),
        vec![vec![8, 128], vec![2, 1]]
    );

    let s = parameter_shape("s4[4,256]{1,0:T(8,128)(4,1)E(4)S(1)}");
    assert_eq!(
        s.annotations,
        vec![
            LayoutAnnotation::ElementSizeInBits(4),
            LayoutAnnotation::MemorySpace(1)
        ]
    );
    assert_eq!(s.to_string(), "s4[4,256]{1,0:T(8,128)(4,1)E(4)S(1)}");

    let s = parameter_shape("f32[]{:T(128)}");
    assert_eq!(s.layout, Some(vec![]));
    assert_eq!(s.physical_dims().unwrap(), vec![1, 128]);

    let s = parameter_shape("f32[8,4]{0,1:D(D,D)T(2,*)L(2)#(s32)*(s64)SC(0:4)M(16)}");
    assert_eq!(s.tiles.len(), 1);
    assert_eq!(s.tiles[0].dims, vec![TileDim::Size(2), TileDim::Combine]);
    assert_eq!(s.annotations.len(), 6);
    assert_eq!(
        s.to_string(),
        "f32[8,4]{0,1:D(D,D)T(2,*)L(2)#(s32)*(s64)SC(0:4)M(16)}"
    );
}

#[test]
fn malformed_tiles_are_errors_that_say_why() {
    assert!(parse_error("f32[4,4]{1,0:T(0,2)}").contains("tile size must be positive"));
    assert!(parse_error("f32[4,4]{1,0:T(2,)}").contains("tile size"));
    assert!(parse_error("f32[4,4]{1,0:T(2,2)T(2)}").contains("two tile lists"));
    assert!(parse_error("f32[4,4]{1,0:?}").contains("layout annotation"));
    assert!(parse_error("f32[4,4]{1,0:S(1)").contains("layout"));
}

#[test]
fn layouts_whose_positions_are_unknown_are_refused() {
    let sparse = parameter_shape("f32[8,4]{1,0:D(D,C)}");
    assert!(sparse
        .physical_dims()
        .unwrap_err()
        .message
        .contains("`D(D,C)`"));
    let combined = parameter_shape("f32[8,4]{1,0:T(2,*)}");
    let e = combined.logical_to_physical().unwrap_err();
    assert!(
        e.message.contains("most minor tile dimension"),
        "{}",
        e.message
    );
}

/// The linear position of `p` in a row-major buffer of shape `dims`.
fn linear(p: &[i64], dims: &[i64]) -> i64 {
    p.iter().zip(dims).fold(0, |acc, (x, d)| acc * d + x)
}

fn logical_linear(shape: &ArrayShape, index: &[i64]) -> i64 {
    let dims = shape.physical_dims().unwrap();
    let p = shape
        .logical_to_physical()
        .unwrap()
        .evaluate(index)
        .unwrap();
    linear(&p, &dims)
}

#[test]
fn tiled_positions_match_the_worked_examples_of_xla_tiled_layouts() {
    // F32[3,5] with 2x2 tiles: element (2,3) is at linear position 17.
    let s = parameter_shape("f32[3,5]{1,0:T(2,2)}");
    assert_eq!(s.physical_dims().unwrap(), vec![2, 3, 2, 2]);
    assert_eq!(logical_linear(&s, &[2, 3]), 17);
    // 8x8 tiled (2,4)(2,1,1,1): element (6,5) is at 51.
    let s = parameter_shape("f32[8,8]{1,0:T(2,4)(2,1,1,1)}");
    assert_eq!(s.physical_dims().unwrap(), vec![2, 2, 2, 4, 2, 1, 1, 1]);
    assert_eq!(logical_linear(&s, &[6, 5]), 51);
    // (8,128)(2,1): two rows of a column are adjacent (16-bit packing).
    let s = parameter_shape("bf16[16,256]{1,0:T(8,128)(2,1)}");
    assert_eq!(s.physical_dims().unwrap(), vec![2, 2, 4, 128, 2, 1]);
    assert_eq!(logical_linear(&s, &[1, 0]), 1);
    assert_eq!(logical_linear(&s, &[0, 1]), 2);
    assert_eq!(logical_linear(&s, &[2, 0]), 256);
    assert_eq!(logical_linear(&s, &[8, 0]), 2 * 8 * 128);
    // `*` combines a dimension with the next more minor one: [2,7,8,11,10]
    // by (*,*,2,*,3) tiles [112, 110] by (2,3).
    let s = parameter_shape("f32[2,7,8,11,10]{4,3,2,1,0:T(*,*,2,*,3)}");
    assert_eq!(s.physical_dims().unwrap(), vec![56, 37, 2, 3]);
    let index = [1, 6, 5, 10, 9];
    let (row, col) = ((7 + 6) * 8 + 5, 10 * 10 + 9); // ((1 * 7 + 6) * 8 + 5, 10 * 10 + 9)
    assert_eq!(
        s.logical_to_physical().unwrap().evaluate(&index).unwrap(),
        vec![row / 2, col / 3, row % 2, col % 3]
    );
    // Column-major with tiles: the tile applies to physical dimensions.
    let s = parameter_shape("f32[5,20]{0,1:T(8,4)}");
    assert_eq!(s.physical_dims().unwrap(), vec![3, 2, 8, 4]);
    let text = s.logical_to_physical().unwrap().to_string();
    assert_eq!(
        text,
        "(d0, d1) -> (d1 / 8, d0 / 4, d1 mod 8, d0 mod 4), domain: d0 in [0, 4], d1 in [0, 19]"
    );
}

fn all_points(dims: &[i64]) -> Vec<Vec<i64>> {
    let mut out = vec![vec![]];
    for &d in dims {
        out = out
            .into_iter()
            .flat_map(|p: Vec<i64>| {
                (0..d).map(move |x| {
                    let mut q = p.clone();
                    q.push(x);
                    q
                })
            })
            .collect();
    }
    out
}

/// Every logical index maps to a distinct in-bounds position, the inverse
/// recovers it, and the positions outside the inverse's domain (padding)
/// are exactly those no index reaches.
fn check_tiling(shape: &ArrayShape) {
    let dims = shape.physical_dims().unwrap();
    let to = shape.logical_to_physical().unwrap();
    let from = shape.physical_to_logical().unwrap();
    let mut reached = BTreeMap::new();
    for index in all_points(&shape.dims) {
        let p = to.evaluate(&index).unwrap();
        assert!(
            p.iter().zip(&dims).all(|(x, d)| (0..*d).contains(x)),
            "{shape}: {index:?} goes to {p:?}, outside {dims:?}"
        );
        assert!(
            from.contains(&p).unwrap(),
            "{shape}: {p:?} of {index:?} is padding"
        );
        assert_eq!(
            from.evaluate(&p).unwrap(),
            index,
            "{shape}: inverse at {p:?}"
        );
        assert!(
            reached.insert(p.clone(), index).is_none(),
            "{shape}: {p:?} twice"
        );
    }
    for p in all_points(&dims) {
        assert_eq!(
            from.contains(&p).unwrap(),
            reached.contains_key(&p),
            "{shape}: position {p:?} (map {from})"
        );
    }
}

#[test]
fn common_tiled_layouts_are_bijections_onto_the_non_padding_positions() {
    for text in [
        "f32[3,5]{1,0:T(2,2)}",
        "f32[10,130]{1,0:T(8,128)}",
        "bf16[9,130]{1,0:T(8,128)(2,1)}",
        "s8[5,3]{1,0:T(8,128)(4,1)}",
        "f32[3,4,5]{0,2,1:T(2,3)}",
        "f32[7]{0:T(4)}",
        "f32[]{:T(128)}",
        "f32[3]{0:T(2,4)}",
        "f32[6,6]{1,0:T(4,4)(3,2)}",
        "f32[2,3,2,5]{3,2,1,0:T(*,*,2,*,3)}",
        "f32[3,4,5]{0,2,1:T(*,2,4)(2,1)}",
        "f32[3,5]{1,0:T(2,4)(*,2,2)}",
    ] {
        check_tiling(&parameter_shape(text));
    }
}

fn random_shape() -> impl Strategy<Value = ArrayShape> {
    (0usize..4)
        .prop_flat_map(|rank| {
            (
                proptest::collection::vec(1i64..6, rank),
                Just((0..rank).collect::<Vec<usize>>()).prop_shuffle(),
                proptest::collection::vec(
                    (1usize..rank + 2).prop_flat_map(|k| proptest::collection::vec(0i64..5, k)),
                    0..3,
                ),
            )
        })
        .prop_map(|(dims, order, tiles)| ArrayShape {
            element_type: "f32".into(),
            dims,
            layout: Some(order),
            tiles: tiles
                .into_iter()
                .map(|t| Tile {
                    // 0 stands for `*`.
                    dims: t
                        .into_iter()
                        .map(|n| {
                            if n == 0 {
                                TileDim::Combine
                            } else {
                                TileDim::Size(n)
                            }
                        })
                        .collect(),
                })
                .collect(),
            annotations: Vec::new(),
        })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, failure_persistence: None, ..ProptestConfig::default() })]

    /// Any layout with up to two levels of tiles of any rank, with `*`
    /// entries, is a bijection
    /// between logical indices and the non-padding physical positions.
    #[test]
    fn random_tiled_layouts_are_bijections(shape in random_shape()) {
        // A `*` as a tile's most minor entry has nothing to combine with.
        let last_star = shape.tiles.iter().any(|t| t.dims.last() == Some(&TileDim::Combine));
        if last_star {
            prop_assert!(shape.physical_dims().is_err());
        } else {
            check_tiling(&shape);
        }
    }
}

/// For every dimension point of `map`, the set of results (over its range
/// variables). Maps here have no runtime variables.
fn image(map: &IndexingMap) -> BTreeMap<Vec<i64>, BTreeSet<Vec<i64>>> {
    assert!(map.rt_vars().is_empty());
    let mut out: BTreeMap<Vec<i64>, BTreeSet<Vec<i64>>> = BTreeMap::new();
    for point in map.domain_points(1 << 20).unwrap() {
        let r = map.evaluate(&point).unwrap();
        out.entry(point[..map.num_dims()].to_vec())
            .or_default()
            .insert(r);
    }
    out
}

fn union(maps: &[hlo::OperandMap]) -> BTreeMap<Vec<i64>, BTreeSet<Vec<i64>>> {
    let mut out: BTreeMap<Vec<i64>, BTreeSet<Vec<i64>>> = BTreeMap::new();
    for m in maps {
        for (k, v) in image(&m.map) {
            out.entry(k).or_default().extend(v);
        }
    }
    out
}

fn maps_of(indexing: &OperandIndexing) -> &[hlo::OperandMap] {
    match indexing {
        OperandIndexing::Maps(m) => m,
        OperandIndexing::Unsupported(e) => panic!("unknown indexing: {}", e.message),
    }
}

/// The physical maps of a query equal its logical maps composed with the
/// layouts: at every physical position `p` of the start shape, the physical
/// map reads exactly the positions of the logical indices the logical map
/// reads at the logical index stored at `p` (and nothing at padding).
fn check_physical_query(module: &hlo::Module, query: Query, from: &ArrayShape, to: &[ArrayShape]) {
    let logical = hlo::analyze(module, &query).unwrap();
    let physical = hlo::analyze(
        module,
        &Query {
            physical_layout: true,
            ..query.clone()
        },
    )
    .unwrap();
    let from_logical = from.physical_to_logical().unwrap();
    for ((l, p), to) in logical.operands.iter().zip(&physical.operands).zip(to) {
        let (l, p) = (union(maps_of(&l.indexing)), union(maps_of(&p.indexing)));
        let to_physical = to.logical_to_physical().unwrap();
        for position in all_points(&from.physical_dims().unwrap()) {
            let expected: BTreeSet<Vec<i64>> = if from_logical.contains(&position).unwrap() {
                let index = from_logical.evaluate(&position).unwrap();
                l.get(&index)
                    .into_iter()
                    .flatten()
                    .map(|r| to_physical.evaluate(r).unwrap())
                    .collect()
            } else {
                BTreeSet::new()
            };
            let got = p.get(&position).cloned().unwrap_or_default();
            assert_eq!(got, expected, "{query:?} at {position:?} ({from} -> {to})");
        }
    }
}

const MODULE: &str = r#"
HloModule physical
fused {
  a = f32[6,5]{0,1} parameter(0)
  t = f32[5,6]{1,0:T(2,4)} transpose(a), dimensions={1,0}
  ROOT n = f32[5,6]{0,1:T(4,2)} negate(t)
}
ENTRY e {
  p0 = f32[6,5]{0,1} parameter(0)
  p1 = f32[5,3]{1,0:T(2,2)} parameter(1)
  tr = f32[5,6]{1,0:T(2,4)} transpose(p0), dimensions={1,0}
  b = f32[4,5,6]{0,2,1:T(2,2)} broadcast(tr), dimensions={1,2}
  c = f32[] constant(0)
  r = f32[5]{0:T(4)} reduce(b, c), dimensions={0,2}, to_apply=add
  d = f32[6,3]{0,1:T(4,2)(2,1)} dot(p0, p1), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  s = f32[3,6]{1,0:T(2,4)} slice(tr), slice={[1:4], [0:6:1]}
  f = f32[5,6]{0,1:T(4,2)} fusion(p0), kind=kLoop, calls=fused
  ROOT out = (f32[5], f32[6,3]{0,1:T(4,2)(2,1)}, f32[3,6]{1,0:T(2,4)}, f32[5,6]{0,1:T(4,2)}) tuple(r, d, s, f)
}
add {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT z = f32[] add(x, y)
}
"#;

fn array_of(module: &hlo::Module, name: &str) -> ArrayShape {
    let c = module.entry_computation();
    let i = c.instructions.iter().find(|i| i.name == name).unwrap();
    i.shape.as_array().unwrap().clone()
}

#[test]
fn physical_maps_equal_logical_maps_composed_with_the_layouts() {
    let module = hlo::parse_module(MODULE).unwrap();
    let shape = |n: &str| array_of(&module, n);
    // (instruction, operands)
    let cases: [(&str, &[&str]); 6] = [
        ("tr", &["p0"]),
        ("b", &["tr"]),
        ("r", &["b", "c"]),
        ("d", &["p0", "p1"]),
        ("s", &["tr"]),
        ("f", &["p0"]),
    ];
    for (name, operands) in cases {
        let query = Query {
            instruction: Some(name.to_string()),
            ..Query::default()
        };
        let operand_shapes: Vec<ArrayShape> = operands.iter().map(|o| shape(o)).collect();
        check_physical_query(&module, query.clone(), &shape(name), &operand_shapes);
        for (k, operand) in operand_shapes.iter().enumerate() {
            // Input-to-output: one query per operand; its one entry is the output.
            let q = Query {
                input_to_output: true,
                ..query.clone()
            };
            let logical = hlo::analyze(&module, &q).unwrap();
            let physical = hlo::analyze(
                &module,
                &Query {
                    physical_layout: true,
                    ..q.clone()
                },
            )
            .unwrap();
            assert_eq!(logical.operands.len(), physical.operands.len());
            let l = union(maps_of(&logical.operands[k].indexing));
            let p = union(maps_of(&physical.operands[k].indexing));
            let from_logical = operand.physical_to_logical().unwrap();
            let to_physical = shape(name).logical_to_physical().unwrap();
            for position in all_points(&operand.physical_dims().unwrap()) {
                let expected: BTreeSet<Vec<i64>> = if from_logical.contains(&position).unwrap() {
                    let index = from_logical.evaluate(&position).unwrap();
                    l.get(&index)
                        .into_iter()
                        .flatten()
                        .map(|r| to_physical.evaluate(r).unwrap())
                        .collect()
                } else {
                    BTreeSet::new()
                };
                let got = p.get(&position).cloned().unwrap_or_default();
                assert_eq!(got, expected, "{name} operand {k} at {position:?}");
            }
        }
    }
}

#[test]
fn whole_computation_maps_are_physical_too() {
    let module = hlo::parse_module(MODULE).unwrap();
    let c = module.entry_computation();
    let root = c.root_instruction();
    let params: Vec<ArrayShape> = c
        .parameters
        .iter()
        .map(|&p| c.instructions[p].shape.as_array().unwrap().clone())
        .collect();
    for output in 0..4 {
        let from = root
            .shape
            .output(output)
            .unwrap()
            .as_array()
            .unwrap()
            .clone();
        let query = Query {
            to_parameters: true,
            output,
            ..Query::default()
        };
        check_physical_query(&module, query, &from, &params);
    }
}

#[test]
fn a_physical_map_reads_like_the_tiles() {
    let module = hlo::parse_module(MODULE).unwrap();
    let query = Query {
        instruction: Some("s".into()),
        physical_layout: true,
        ..Query::default()
    };
    let r = hlo::analyze(&module, &query).unwrap();
    // s = slice rows 1..4 of tr, both f32[.,6]{1,0:T(2,4)}: output row
    // d0 * 2 + d2 reads row d0 * 2 + d2 + 1, in tile row d0 + (d2 + 1)
    // floordiv 2 = d0 + d2 (d2 is 0 or 1) at (d2 + 1) mod 2 within it;
    // the constraints exclude the padding rows 3 and columns 6, 7.
    assert_eq!(
        r.to_string(),
        "operand id = 0\n\
         (d0, d1, d2, d3) -> (d0 + d2, d1, (d2 + 1) mod 2, d3), \
         domain: d0 in [0, 1], d1 in [0, 1], d2 in [0, 1], d3 in [0, 3], \
         d0 * 2 + d2 in [0, 2], d1 * 4 + d3 in [0, 5]\n"
    );
}

#[test]
fn refused_layouts_give_unknown_indexing_not_a_wrong_map() {
    let module = hlo::parse_module(
        "ENTRY e {\n p = f32[8,4]{1,0:T(2,*)} parameter(0)\n ROOT n = f32[8,4] negate(p)\n}",
    )
    .unwrap();
    let r = hlo::analyze(
        &module,
        &Query {
            physical_layout: true,
            ..Query::default()
        },
    )
    .unwrap();
    match &r.operands[0].indexing {
        OperandIndexing::Unsupported(e) => {
            assert!(
                e.message.contains("most minor tile dimension"),
                "{}",
                e.message
            )
        }
        OperandIndexing::Maps(m) => panic!("a map for an unknown layout: {}", m[0].map),
    }
    // Logical maps do not need the layout.
    let r = hlo::analyze(&module, &Query::default()).unwrap();
    assert!(matches!(r.operands[0].indexing, OperandIndexing::Maps(_)));
}

#[test]
fn bitcasts_between_different_tilings_are_refused() {
    let module = hlo::parse_module(
        "ENTRY e {\n p = f32[8,128]{1,0:T(8,128)} parameter(0)\n ROOT b = f32[1024]{0:T(1024)} bitcast(p)\n}",
    )
    .unwrap();
    let r = hlo::analyze(&module, &Query::default()).unwrap();
    assert!(matches!(
        r.operands[0].indexing,
        OperandIndexing::Unsupported(_)
    ));
    // Same tiles of the same physical shape: the identity on positions.
    let module = hlo::parse_module(
        "ENTRY e {\n p = f32[16,128]{1,0:T(8,128)} parameter(0)\n ROOT b = f32[128,16]{0,1:T(8,128)} bitcast(p)\n}",
    )
    .unwrap();
    let r = hlo::analyze(&module, &Query::default()).unwrap();
    assert_eq!(
        r.to_string(),
        "operand id = 0\n(d0, d1) -> (d1, d0), domain: d0 in [0, 127], d1 in [0, 15]\n"
    );
}
