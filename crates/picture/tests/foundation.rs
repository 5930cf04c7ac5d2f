//! The building blocks, rendered to pixels.

mod support;

use picture::{
    render, tensor_panel, Cell, Color, Column, Grid, Legend, LegendEntry, Role, MAX_CELLS,
};
use support::rasterize;

#[test]
fn a_small_grid_draws_each_element_in_its_roles_colour() {
    let grid = Grid::new("T", 4, 4, &|r, c| {
        Cell::of(match (r < 2, c < 2) {
            (true, true) => Role::Needed,
            (false, false) => Role::Wasted,
            _ => Role::Plain,
        })
    });
    let d = render(&grid);
    let px = rasterize(&d);
    assert_eq!(px.at_anchor(&d, "T[0,0]"), Color::BLUE);
    assert_eq!(px.at_anchor(&d, "T[1,1]"), Color::BLUE);
    assert_eq!(px.at_anchor(&d, "T[3,2]"), Color::ORANGE);
    assert_eq!(px.at_anchor(&d, "T[0,3]"), Color::BACKGROUND);
}

#[test]
fn a_large_grid_is_an_overview_that_keeps_a_single_needed_element_visible() {
    let n = 1000;
    let grid = Grid::new("T", n, n, &|r, c| {
        Cell::of(if (r, c) == (517, 3) {
            Role::Needed
        } else {
            Role::Plain
        })
    });
    assert!(grid.is_overview());
    let d = render(&grid);
    let px = rasterize(&d);
    let block = n.div_ceil(MAX_CELLS);
    let first = |i: usize| i / block * block;
    assert_eq!(
        px.at_anchor(&d, &format!("T[{},{}]", first(517), first(3))),
        Color::BLUE
    );
    assert_eq!(px.at_anchor(&d, "T[0,0]"), Color::BACKGROUND);
}

#[test]
fn padding_is_hatched_grey_on_white() {
    let d = render(
        &Grid::new("P", 1, 2, &|_, c| {
            Cell::of(if c == 1 { Role::Padding } else { Role::Needed })
        })
        .cell_size(28.0),
    );
    let px = rasterize(&d);
    // A hatch is two colours; scan the cell for both.
    let (x, y) = d.anchor("P[0,1]").unwrap();
    let mut seen = std::collections::BTreeSet::new();
    for dx in -8..=8 {
        seen.insert(px.at(x + dx as f64, y));
    }
    assert!(seen.contains(&Color::WHITE), "{seen:?}");
    assert!(seen.iter().any(|c| *c != Color::WHITE), "{seen:?}");
}

#[test]
fn rank_three_tensors_are_drawn_as_slices_with_marked_slices_first() {
    let panel = tensor_panel(
        "X",
        "X",
        &[40, 3, 3],
        &["a".into(), "b".into(), "c".into()],
        &|i| {
            Cell::of(if i[0] == 30 && i[1] == 1 {
                Role::Needed
            } else {
                Role::Plain
            })
        },
    );
    let mut page = Column::new(8.0);
    page.push_boxed(panel);
    page.push(Legend::new(vec![LegendEntry::role(Role::Needed)]));
    let d = render(&page);
    let px = rasterize(&d);
    assert_eq!(px.at_anchor(&d, "X[30,1,2]"), Color::BLUE);
    assert_eq!(px.at_anchor(&d, "X[30,0,2]"), Color::BACKGROUND);
    assert!(
        d.anchor("X[0,0,0]").is_none(),
        "unmarked slices are skipped"
    );
}

#[test]
fn pictures_print_the_same_text_every_time() {
    let make = || {
        render(
            &Grid::new("T", 3, 2, &|r, c| {
                Cell::labelled(Role::Needed, format!("{}", r * 2 + c))
            })
            .title("T"),
        )
        .svg
    };
    assert_eq!(make(), make());
    insta::assert_snapshot!(make());
}
