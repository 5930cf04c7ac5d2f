//! Pictures of seed 001's layouts, rendered to pixels.

mod support;

use arith::Expr;
use layout::{IndexMap, Layout};
use picture::{collision_picture, layout_picture, Color, Drawing};
use support::{rasterize, Pixels};

fn picture(map: &str, shape: &[i64]) -> Drawing {
    let map = IndexMap::parse(map).unwrap();
    let l = Layout::new(shape.iter().map(|&d| Expr::int(d)).collect(), Some(map)).unwrap();
    layout_picture(&l).unwrap()
}

/// Whether the cell at `name` is hatched grey on white (padding).
fn hatched(px: &Pixels, d: &Drawing, name: &str) -> bool {
    let (x, y) = d.anchor(name).unwrap();
    let seen: std::collections::BTreeSet<Color> =
        (-8..=8).map(|dx| px.at(x + dx as f64, y)).collect();
    // The hatch lines are grey, blended at their edges: neutral and dark.
    let grey = |c: &Color| c.0 == c.1 && c.1 == c.2 && c.0 < 200;
    seen.contains(&Color::WHITE) && seen.iter().any(grey) && !seen.contains(&Color::BLUE)
}

#[test]
fn fourteen_elements_split_by_four_pad_the_last_two_places() {
    let d = picture("lambda i: [i // 4, i % 4]", &[14]);
    let px = rasterize(&d);
    // Every logical element is blue; element 13 lands at [3, 1], which is
    // blue too.
    for i in 0..14 {
        assert_eq!(px.at_anchor(&d, &format!("L[{i}]")), Color::BLUE, "L[{i}]");
    }
    assert_eq!(px.at_anchor(&d, "T[3,1]"), Color::BLUE);
    assert_eq!(px.at_anchor(&d, "T[0,0]"), Color::BLUE);
    // The last two transformed places hold no element: hatched.
    assert!(hatched(&px, &d, "T[3,2]"));
    assert!(hatched(&px, &d, "T[3,3]"));
    assert!(!hatched(&px, &d, "T[3,1]"));
    // Flattened to 16 physical places, the last two are padding too.
    assert_eq!(px.at_anchor(&d, "P[13]"), Color::BLUE);
    assert!(hatched(&px, &d, "P[14]"));
    assert!(hatched(&px, &d, "P[15]"));
    // Labels: where each element goes, what each place stores.
    assert!(d.svg.contains(">3,1</text>"));
    assert!(d.svg.contains("i0 * 4 + i1 &gt;= 14"));
}

#[test]
fn an_axis_separator_draws_the_physical_rows_apart() {
    let between = |d: &Drawing| {
        let (x0, y0) = d.anchor("T[0,0]").unwrap();
        let (_, y1) = d.anchor("T[1,0]").unwrap();
        (x0, (y0 + y1) / 2.0, y1 - y0)
    };
    let d = picture("lambda i: [i // 4, te.AXIS_SEPARATOR, i % 4]", &[8]);
    let px = rasterize(&d);
    let (x, y, pitch) = between(&d);
    assert_eq!(px.at(x, y), Color::WHITE, "a gap between the two buffers");
    assert_eq!(px.at_anchor(&d, "T[0,0]"), Color::BLUE);
    assert_eq!(px.at_anchor(&d, "T[1,0]"), Color::BLUE);
    // Without the separator the rows touch: the same point is inside a cell
    // boundary region no wider than the outline, and the pitch is the cell.
    let plain = picture("lambda i: [i // 4, i % 4]", &[8]);
    let (_, _, plain_pitch) = between(&plain);
    assert!(pitch > plain_pitch, "{pitch} > {plain_pitch}");
    let ppx = rasterize(&plain);
    let (px0, py0) = plain.anchor("T[0,0]").unwrap();
    assert_eq!(ppx.at(px0, py0 + plain_pitch / 2.0 - 3.0), Color::BLUE);
}

#[test]
fn the_texture_layout_draws_its_two_dimensional_physical_buffer_rows_apart() {
    let d = picture(
        "lambda n, h, w, c: [n, c // 4, h, te.AXIS_SEPARATOR, w, c % 4]",
        &[1, 2, 2, 8],
    );
    let px = rasterize(&d);
    // Physical [1 * 2 * 2, 2 * 4] = [4, 8]; logical [0, 1, 0, 5] is at
    // transformed [0, 1, 1, 0, 1], physical [3, 1].
    let l = Layout::new(
        [1, 2, 2, 8].map(Expr::int).to_vec(),
        Some(
            IndexMap::parse("lambda n, h, w, c: [n, c // 4, h, te.AXIS_SEPARATOR, w, c % 4]")
                .unwrap(),
        ),
    )
    .unwrap();
    assert_eq!(l.physical_point(&[0, 1, 0, 5]).unwrap(), vec![3, 1]);
    assert_eq!(px.at_anchor(&d, "P[3,1]"), Color::BLUE);
    let (x, y0) = d.anchor("P[0,1]").unwrap();
    let (_, y1) = d.anchor("P[1,1]").unwrap();
    assert_eq!(px.at(x, (y0 + y1) / 2.0), Color::WHITE);
}

#[test]
fn a_large_layout_is_an_overview_that_keeps_its_padding_visible() {
    // 1000 elements in 4-wide rows leave no padding; 1001 leave three
    // places, all in the last overview row of the transformed buffer.
    let d = picture("lambda i: [i // 4, i % 4]", &[1001]);
    assert!(d.svg.contains("overview"));
    let px = rasterize(&d);
    assert_eq!(px.at_anchor(&d, "L[0]"), Color::BLUE);
    assert_eq!(px.at_anchor(&d, "T[0,0]"), Color::BLUE);
}

#[test]
fn a_map_that_is_not_injective_marks_the_colliding_pair() {
    let map = IndexMap::parse("lambda i: [i % 8]").unwrap();
    let c = map.find_collision(&[Expr::int(12)]).unwrap();
    let d = collision_picture(&map, &[12], &c).unwrap();
    let px = rasterize(&d);
    assert_eq!(px.at_anchor(&d, "L[0]"), Color::VERMILLION);
    assert_eq!(px.at_anchor(&d, "L[8]"), Color::VERMILLION);
    assert_eq!(px.at_anchor(&d, "L[1]"), Color::BLUE);
    assert!(d.svg.contains("not injective"));
}

#[test]
fn symbolic_shapes_are_refused_with_a_message() {
    let mut scope = arith::Scope::new();
    let n = scope.get_or_create("n").expr();
    let l = Layout::new(
        vec![n],
        Some(IndexMap::parse("lambda i: [i // 4, i % 4]").unwrap()),
    )
    .unwrap();
    let e = layout_picture(&l).unwrap_err();
    assert!(e.contains("constant"), "{e}");
}

#[test]
fn the_picture_of_a_small_padded_layout_prints_the_same_text() {
    let d = picture("lambda i: [i // 4, i % 4]", &[6]);
    assert_eq!(d.svg, picture("lambda i: [i // 4, i % 4]", &[6]).svg);
    insta::assert_snapshot!(d.svg);
}

#[test]
fn labels_of_three_transformed_axes_get_cells_wide_enough_to_show() {
    let d = picture(
        "lambda i, j: [j // 3, i, te.AXIS_SEPARATOR, j % 3]",
        &[2, 5],
    );
    // L[1,4] goes to [1, 1, 1]; physical row 3 holds [1, 3] and [1, 4].
    assert!(d.svg.contains(">1,1,1</text>"), "{}", d.svg);
    let px = rasterize(&d);
    assert_eq!(px.at_anchor(&d, "L[1,4]"), Color::BLUE);
    assert_eq!(px.at_anchor(&d, "P[3,1]"), Color::BLUE);
    assert!(hatched(&px, &d, "P[3,2]"));
    assert!(hatched(&px, &d, "T[1,1,2]"));
}
