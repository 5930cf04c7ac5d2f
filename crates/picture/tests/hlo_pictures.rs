//! Pictures of HLO indexing maps, rendered to pixels: the chosen output
//! element, what its maps read (checked against enumerating the map at
//! every drawn cell), gathers' runtime positions hatched over exactly the
//! range their runtime variables take.

mod support;

use picture::{hlo_map_picture, map_picture, map_scene, Color, Drawing, MapPictureError};
use support::{rasterize, Pixels};

/// What a drawn cell shows, read from its pixels.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Seen {
    Selected,
    Needed,
    MayRead,
    Plain,
}

fn seen(px: &Pixels, d: &Drawing, anchor: &str) -> Seen {
    let (x, y) = d
        .anchor(anchor)
        .unwrap_or_else(|| panic!("no anchor {anchor}"));
    match px.at(x, y) {
        Color::VERMILLION => return Seen::Selected,
        Color::BLUE => return Seen::Needed,
        Color::BACKGROUND => return Seen::Plain,
        _ => {}
    }
    // A hatch: sky-blue lines on white. Edges are anti-aliased, so every
    // pixel across the cell must be a blend of the two, with both ends seen.
    let mut shades = Vec::new();
    for dy in -4..=4 {
        for dx in -6..=6 {
            let c = px.at(x + dx as f64, y + dy as f64);
            let t = sky_blue_share(c)
                .unwrap_or_else(|| panic!("{anchor}: {c:?} is not sky blue on white"));
            shades.push(t);
        }
    }
    assert!(
        shades.iter().any(|&t| t > 0.75) && shades.iter().any(|&t| t < 0.05),
        "{anchor}: not a hatch: {shades:?}"
    );
    Seen::MayRead
}

/// How much of `c` is sky blue in a blend with white (0: white, 1: sky
/// blue), or `None` when `c` is no such blend.
fn sky_blue_share(c: Color) -> Option<f64> {
    let (w, b) = (Color::WHITE, Color::SKY_BLUE);
    let channel = |cv: u8, wv: u8, bv: u8| (wv as f64 - cv as f64) / (wv as f64 - bv as f64);
    let ts = [
        channel(c.0, w.0, b.0),
        channel(c.1, w.1, b.1),
        channel(c.2, w.2, b.2),
    ];
    let t = ts[0];
    // The blue channel moves least (255 to 233), so it is the least precise.
    let close = (ts[1] - t).abs() < 0.08 && (ts[2] - t).abs() < 0.35;
    (close && (-0.02..=1.02).contains(&t)).then_some(t)
}

fn example(name: &str) -> String {
    let path = format!("{}/../../examples/hlo/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// The picture of `text`'s `instruction` at `at`, and the analysis.
fn draw(
    text: &str,
    instruction: Option<&str>,
    at: Option<&[i64]>,
) -> (Drawing, hlo::InstructionIndexing) {
    let module = hlo::parse_module(text).unwrap();
    let query = hlo::Query {
        instruction: instruction.map(str::to_string),
        ..hlo::Query::default()
    };
    let result = hlo::analyze(&module, &query).unwrap();
    let shapes = hlo::map_shapes(&module, &query).unwrap();
    (hlo_map_picture(&result, &shapes, at).unwrap(), result)
}

fn first_map(result: &hlo::InstructionIndexing, operand: usize) -> &indexing::IndexingMap {
    &result.operands[operand].indexing.maps().unwrap()[0].map
}

/// The elements `map` reads at the dimension point `at`, by enumerating
/// its whole domain (the oracle), split into those read for every runtime
/// value and the rest.
fn enumerated(map: &indexing::IndexingMap, at: &[i64]) -> (Vec<Vec<i64>>, Vec<Vec<i64>>) {
    use std::collections::{BTreeMap, BTreeSet};
    let n = map.num_dims();
    let ns = map.num_symbols();
    let rt_count: u128 = map.rt_vars().iter().map(|v| v.bounds().len()).product();
    let mut by: BTreeMap<Vec<i64>, BTreeSet<Vec<i64>>> = BTreeMap::new();
    for p in map.domain_points(1 << 20).unwrap() {
        if p[..n] == *at {
            by.entry(map.evaluate(&p).unwrap())
                .or_default()
                .insert(p[n + ns..].to_vec());
        }
    }
    let certain = by
        .iter()
        .filter(|(_, s)| s.len() as u128 == rt_count)
        .map(|(r, _)| r.clone())
        .collect();
    let possible = by
        .iter()
        .filter(|(_, s)| (s.len() as u128) < rt_count)
        .map(|(r, _)| r.clone())
        .collect();
    (certain, possible)
}

fn anchor(id: &str, index: &[i64]) -> String {
    let parts: Vec<String> = index.iter().map(ToString::to_string).collect();
    format!("{id}[{}]", parts.join(","))
}

/// Every drawn cell of a rank-2 input shows what enumeration says.
fn check_every_cell(
    px: &Pixels,
    d: &Drawing,
    id: &str,
    shape: (i64, i64),
    map: &indexing::IndexingMap,
    at: &[i64],
) {
    let (certain, possible) = enumerated(map, at);
    for r in 0..shape.0 {
        for c in 0..shape.1 {
            let p = vec![r, c];
            let want = if certain.contains(&p) {
                Seen::Needed
            } else if possible.contains(&p) {
                Seen::MayRead
            } else {
                Seen::Plain
            };
            assert_eq!(seen(px, d, &anchor(id, &p)), want, "{id}[{r},{c}]");
        }
    }
}

#[test]
fn a_gathers_window_is_hatched_over_exactly_the_positions_its_runtime_starts_reach() {
    let at = [1, 1, 2];
    let (d, result) = draw(&example("x19_gather.hlo"), None, Some(&at));
    let px = rasterize(&d);
    let map = first_map(&result, 0);
    // rows d1 + rt0, columns d2 + rt1: the runtime variables' ranges moved
    // by the element's offsets in the window.
    let rt: Vec<_> = map.rt_vars().iter().map(|v| v.bounds()).collect();
    assert_eq!(rt.len(), 2);
    let rows = at[1] + rt[0].lower..=at[1] + rt[0].upper;
    let cols = at[2] + rt[1].lower..=at[2] + rt[1].upper;
    assert_eq!((rows.clone(), cols.clone()), (1..=10, 2..=8));
    for r in 0..12 {
        for c in 0..10 {
            let want = if rows.contains(&r) && cols.contains(&c) {
                Seen::MayRead
            } else {
                Seen::Plain
            };
            assert_eq!(
                seen(&px, &d, &anchor("in0", &[r, c])),
                want,
                "operand [{r},{c}]"
            );
        }
    }
    check_every_cell(&px, &d, "in0", (12, 10), map, &at);
    // The indices: the element's row of start indices, read for sure.
    check_every_cell(&px, &d, "in1", (4, 2), first_map(&result, 1), &at);
    assert_eq!(seen(&px, &d, "in1[1,0]"), Seen::Needed);
    // The chosen element, in its slice of the output.
    assert_eq!(seen(&px, &d, "out[1,1,2]"), Seen::Selected);
    assert_eq!(seen(&px, &d, "out[1,0,0]"), Seen::Plain);
    assert!(d.svg.contains("rt0 in [0, 9], rt1 in [0, 6]"));
    // Where each runtime start is read for this element.
    assert!(d.svg.contains("rt0 in [0, 9] is read from indices[1, 0]"));
    assert!(d.svg.contains("rt1 in [0, 6] is read from indices[1, 1]"));
    assert!(d
        .svg
        .contains("(d0, d1, d2){rt0, rt1} -&gt; (d1 + rt0, d2 + rt1)"));
}

#[test]
fn take_along_axis_reads_its_row_at_every_column_a_runtime_index_reaches() {
    let at = [1, 0];
    let (d, result) = draw(
        &example("jax_take_along_axis.hlo"),
        Some("gather.1"),
        Some(&at),
    );
    let px = rasterize(&d);
    let map = first_map(&result, 0);
    let rt = map.rt_vars()[0].bounds();
    for r in 0..3 {
        for c in 0..5 {
            let want = if r == at[0] && rt.contains(c) {
                Seen::MayRead
            } else {
                Seen::Plain
            };
            assert_eq!(seen(&px, &d, &anchor("in0", &[r, c])), want, "[{r},{c}]");
        }
    }
}

const REDUCE_WINDOW: &str = "HloModule rw
max {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT m = f32[] maximum(a, b)
}
ENTRY e {
  p0 = f32[6,8] parameter(0)
  c = f32[] constant(0)
  ROOT rw = f32[5,4] reduce-window(p0, c), window={size=3x3 stride=1x2 pad=0_1x1_0}, to_apply=max
}";

#[test]
fn a_reduce_windows_needed_cells_are_exactly_its_window_at_every_element() {
    let module = hlo::parse_module(REDUCE_WINDOW).unwrap();
    let result = hlo::analyze(&module, &hlo::Query::default()).unwrap();
    let shapes = hlo::map_shapes(&module, &hlo::Query::default()).unwrap();
    let map = first_map(&result, 0);
    assert_eq!(map.num_symbols(), 2);
    for d0 in 0..5 {
        for d1 in 0..4 {
            let at = [d0, d1];
            let d = hlo_map_picture(&result, &shapes, Some(&at)).unwrap();
            let px = rasterize(&d);
            check_every_cell(&px, &d, "in0", (6, 8), map, &at);
            assert_eq!(seen(&px, &d, &anchor("out", &at)), Seen::Selected);
            // The init value is read by every element.
            assert_eq!(seen(&px, &d, "in1[0]"), Seen::Needed);
        }
    }
    // The padded corner: rows 4..5 (row 6 is padding), columns 0..1.
    let d = hlo_map_picture(&result, &shapes, Some(&[4, 0])).unwrap();
    let px = rasterize(&d);
    let needed: Vec<(i64, i64)> = (0..6)
        .flat_map(|r| (0..8).map(move |c| (r, c)))
        .filter(|&(r, c)| seen(&px, &d, &anchor("in0", &[r, c])) == Seen::Needed)
        .collect();
    assert_eq!(needed, [(4, 0), (4, 1), (5, 0), (5, 1)]);
}

#[test]
fn a_broadcast_reads_one_element_and_a_transpose_the_permuted_one() {
    let (d, _) = draw(&example("x01_broadcast.hlo"), None, Some(&[3, 7, 12]));
    let px = rasterize(&d);
    for k in 0..20 {
        let want = if k == 7 { Seen::Needed } else { Seen::Plain };
        assert_eq!(seen(&px, &d, &format!("in0[{k}]")), want, "[{k}]");
    }
    assert_eq!(seen(&px, &d, "out[3,7,12]"), Seen::Selected);

    let transpose = "ENTRY e {\n p0 = f32[2,3,4] parameter(0)\n ROOT t = f32[4,2,3] transpose(p0), dimensions={2,0,1}\n}";
    let at = [3, 1, 2];
    let (d, _) = draw(transpose, None, Some(&at));
    let px = rasterize(&d);
    // out[d0, d1, d2] = p0[d1, d2, d0]; only input slice 1 is marked.
    for j in 0..3 {
        for k in 0..4 {
            let want = if (j, k) == (2, 3) {
                Seen::Needed
            } else {
                Seen::Plain
            };
            assert_eq!(
                seen(&px, &d, &anchor("in0", &[1, j, k])),
                want,
                "[1,{j},{k}]"
            );
        }
    }
    assert!(
        d.anchor("in0[0,0,0]").is_none(),
        "slices without reads are skipped"
    );
}

#[test]
fn a_map_past_the_budget_is_drawn_as_its_box_and_says_so() {
    let text = "HloModule big
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY e {
  p0 = f32[4,300,300] parameter(0)
  z = f32[] constant(0)
  ROOT r = f32[4] reduce(p0, z), dimensions={1,2}, to_apply=add
}";
    let (d, _) = draw(text, None, Some(&[2]));
    assert!(d.svg.contains("bounded: the box of each dimension"));
    let px = rasterize(&d);
    // A cell inside the overview (5 x 5 elements per cell), away from the frame.
    assert_eq!(seen(&px, &d, "in0[2,150,150]"), Seen::MayRead);
    assert!(d.anchor("in0[0,0,0]").is_none());
}

#[test]
fn the_default_element_is_the_middle_one_and_a_bad_one_is_an_error() {
    let (d, _) = draw(&example("x19_gather.hlo"), None, None);
    assert!(d.svg.contains("output element d = (2, 1, 2)"));
    assert!(d.svg.contains("the middle element"));
    let px = rasterize(&d);
    assert_eq!(seen(&px, &d, "out[2,1,2]"), Seen::Selected);

    let module = hlo::parse_module(&example("x19_gather.hlo")).unwrap();
    let query = hlo::Query::default();
    let result = hlo::analyze(&module, &query).unwrap();
    let shapes = hlo::map_shapes(&module, &query).unwrap();
    let err: MapPictureError = hlo_map_picture(&result, &shapes, Some(&[4, 0, 0])).unwrap_err();
    assert!(err.message.contains("d0=4 is outside"), "{err}");
    assert!(hlo_map_picture(&result, &shapes, Some(&[0, 0])).is_err());
}

#[test]
fn a_map_alone_is_drawn_over_the_ranges_of_its_dimensions_and_results() {
    let map =
        indexing::IndexingMap::parse("(d0)[s0] -> (d0 + s0), domain: d0 in [0, 3], s0 in [0, 2]")
            .unwrap();
    let scene = map_scene(&map, None);
    assert_eq!(scene.output_shape, vec![4]);
    assert_eq!(scene.tensors[0].shape, vec![6]);
    let d = map_picture(&scene, Some(&[1])).unwrap();
    let px = rasterize(&d);
    for k in 0..6 {
        let want = if (1..=3).contains(&k) {
            Seen::Needed
        } else {
            Seen::Plain
        };
        assert_eq!(seen(&px, &d, &format!("in0[{k}]")), want, "[{k}]");
    }
}

#[test]
fn a_small_map_picture_prints_the_same_svg() {
    let text =
        "ENTRY e {\n p0 = f32[3] parameter(0)\n ROOT b = f32[2,3] broadcast(p0), dimensions={1}\n}";
    let (d, _) = draw(text, None, Some(&[1, 2]));
    insta::assert_snapshot!(d.svg);
}

#[test]
fn a_tuple_operand_is_drawn_as_the_element_its_map_indexes() {
    let text = "ENTRY e {\n p = (f32[2], f32[3,4]) parameter(0)\n ROOT g = f32[3,4] get-tuple-element(p), index=1\n}";
    let (d, _) = draw(text, None, Some(&[2, 1]));
    assert!(d.svg.contains("input 0: p f32[3,4] (tuple element 1)"));
    let px = rasterize(&d);
    for r in 0..3 {
        for c in 0..4 {
            let want = if (r, c) == (2, 1) {
                Seen::Needed
            } else {
                Seen::Plain
            };
            assert_eq!(seen(&px, &d, &anchor("in0", &[r, c])), want, "[{r},{c}]");
        }
    }
}

#[test]
fn an_output_without_elements_is_an_error() {
    let module = hlo::parse_module(
        "ENTRY e {\n p0 = f32[0,3] parameter(0)\n ROOT n = f32[0,3] negate(p0)\n}",
    )
    .unwrap();
    let query = hlo::Query::default();
    let result = hlo::analyze(&module, &query).unwrap();
    let shapes = hlo::map_shapes(&module, &query).unwrap();
    let err = hlo_map_picture(&result, &shapes, None).unwrap_err();
    assert!(err.message.contains("no elements"), "{err}");
}
