//! Pictures of a buffer layout (seed 001): the logical tensor, each
//! element labelled with the transformed index the map sends it to, beside
//! the transformed buffer, each place labelled with the logical index
//! stored there and the places no logical index reaches hatched as padding;
//! below them the physical buffer the transformed axes flatten into. Rows
//! that an axis separator makes separate physical buffers are drawn apart.
//!
//! What is stored where comes from the layout's inverse and padding
//! predicate ([`Layout::logical_at`], [`Layout::unflatten`]); a map that is
//! not injective is drawn with the colliding pair the layout crate found.

use crate::grid::{tensor_panel, tensor_panel_rows_apart, Cell, Grid, MAX_CELLS};
use crate::palette::Role;
use crate::panel::{render, Column, Legend, LegendEntry, Panel, Row, Text};
use crate::svg::Drawing;
use arith::Expr;
use layout::{Collision, IndexMap, Layout};

/// Constant extents of `shape` as sizes, or a message naming the first
/// symbolic or negative one.
fn extents(shape: &[Expr], what: &str) -> Result<Vec<usize>, String> {
    shape
        .iter()
        .map(|e| match e.as_int() {
            Some(v) if v >= 0 => Ok(v as usize),
            _ => Err(format!(
                "the {what} shape has the extent `{e}`: a picture needs constant extents; give numbers in the shape"
            )),
        })
        .collect()
}

fn list(v: &[Expr]) -> String {
    let items: Vec<String> = v.iter().map(ToString::to_string).collect();
    format!("[{}]", items.join(", "))
}

fn joined(v: &[i64]) -> String {
    let items: Vec<String> = v.iter().map(ToString::to_string).collect();
    items.join(",")
}

fn as_i64(p: &[usize]) -> Vec<i64> {
    p.iter().map(|&x| x as i64).collect()
}

/// Whether cells of a tensor of `shape` are drawn one element each (so
/// labels show): its last two axes fit the grid.
fn labelled(shape: &[usize]) -> bool {
    shape.iter().rev().take(2).all(|&d| d <= MAX_CELLS)
}

/// The widest a grid drawn with cells enlarged for their labels may be.
const LABELLED_WIDTH: f64 = 900.0;

/// A tensor drawn as [`tensor_panel`] does (rows apart when `apart`), but
/// for rank 1 and 2 with cells wide enough for the longest label when the
/// grid stays within [`LABELLED_WIDTH`]: transformed indices of several
/// axes (`1,0,3`) do not fit the usual cell.
fn labelled_panel(
    id: &str,
    title: &str,
    shape: &[usize],
    names: &[String],
    classify: &dyn Fn(&[usize]) -> Cell,
    apart: bool,
) -> Box<dyn Panel> {
    let (rows, cols) = match shape {
        [c] => (1, *c),
        [r, c] => (*r, *c),
        _ if apart => return tensor_panel_rows_apart(id, title, shape, names, classify),
        _ => return tensor_panel(id, title, shape, names, classify),
    };
    let at = |r: usize, c: usize| {
        if shape.len() == 1 {
            classify(&[c])
        } else {
            classify(&[r, c])
        }
    };
    let mut grid = if shape.len() == 1 {
        Grid::row(id, cols, &|c| at(0, c))
            .title(title)
            .axes("", names.first().cloned().unwrap_or_default())
    } else {
        let name = |k: usize| names.get(k).cloned().unwrap_or_default();
        Grid::new(id, rows, cols, &at)
            .title(title)
            .axes(name(0), name(1))
    };
    if rows <= MAX_CELLS && cols <= MAX_CELLS {
        let longest = (0..rows)
            .flat_map(|r| (0..cols).map(move |c| (r, c)))
            .filter_map(|(r, c)| at(r, c).label.map(|l| l.chars().count()))
            .max()
            .unwrap_or(0);
        // Labels are drawn 11 px high, 0.62 of that wide per character.
        let needed = (longest as f64 * 11.0 * 0.62 + 4.0).ceil();
        if needed > 28.0 && cols as f64 * needed <= LABELLED_WIDTH {
            grid = grid.cell_size(needed);
        }
    }
    if apart && shape.len() == 2 {
        grid = grid.gaps((0..rows.saturating_sub(1)).collect(), Vec::new());
    }
    Box::new(grid)
}

/// The logical tensor, each element labelled with its transformed index;
/// the elements in `marked` drawn as colliding.
fn logical_panel(map: Option<&IndexMap>, dims: &[usize], marked: &[Vec<i64>]) -> Box<dyn Panel> {
    let names: Vec<String> = match map {
        Some(m) => m
            .initial_indices()
            .iter()
            .map(|v| v.name().to_string())
            .collect(),
        None => (0..dims.len()).map(|k| format!("i{k}")).collect(),
    };
    let with_labels = labelled(dims);
    let classify = |p: &[usize]| {
        let p = as_i64(p);
        let role = if marked.contains(&p) {
            Role::Selected
        } else {
            Role::Needed
        };
        if !with_labels {
            return Cell::of(role);
        }
        let image = match map {
            Some(m) => m.map_point(&p).ok(),
            None => Some(p),
        };
        match image {
            Some(t) => Cell::labelled(role, joined(&t)),
            None => Cell::of(role),
        }
    };
    let dims_text: Vec<String> = dims.iter().map(ToString::to_string).collect();
    labelled_panel(
        "L",
        &format!("logical [{}]", dims_text.join(", ")),
        dims,
        &names,
        &classify,
        false,
    )
}

/// The picture of `layout`: its logical tensor, transformed buffer and,
/// when flattening changes the axes, its physical buffer, with a caption
/// and a legend. Anchors: `L[..]` logical elements, `T[..]` transformed
/// places, `P[..]` physical places. Fails (with a message) when an extent
/// is symbolic.
pub fn layout_picture(layout: &Layout) -> Result<Drawing, String> {
    let logical = extents(layout.logical_shape(), "logical")?;
    let transformed = extents(layout.transformed_shape(), "transformed")?;
    let physical = extents(layout.physical_shape(), "physical")?;
    let map = layout.map();
    let axes: Vec<String> = match layout.inverse() {
        Some(inv) => inv
            .initial_indices()
            .iter()
            .map(|v| v.name().to_string())
            .collect(),
        None => (0..transformed.len()).map(|k| format!("i{k}")).collect(),
    };
    let stored = |t: &[i64]| -> Cell {
        match layout.logical_at(t) {
            Ok(Some(l)) if labelled(&transformed) => Cell::labelled(Role::Needed, joined(&l)),
            Ok(Some(_)) => Cell::of(Role::Needed),
            Ok(None) => Cell::of(Role::Padding),
            Err(_) => Cell::of(Role::Plain),
        }
    };
    let rank = transformed.len();
    let separated_last =
        map.is_some_and(|m| rank >= 2 && m.axis_separators().contains(&(rank - 1)));
    let tdims_text: Vec<String> = transformed.iter().map(ToString::to_string).collect();
    let ttitle = format!("transformed [{}]", tdims_text.join(", "));
    let tclassify = |p: &[usize]| stored(&as_i64(p));
    let tpanel = labelled_panel(
        "T",
        &ttitle,
        &transformed,
        &axes,
        &tclassify,
        separated_last,
    );

    let mut page = Column::new(12.0);
    page.push(Text::title(&match map {
        Some(m) => format!("Layout: {m}"),
        None => "Layout: no transform (row-major)".to_string(),
    }));
    let mut caption = vec![format!(
        "logical shape {} -> transformed shape {} -> physical shape {}",
        list(layout.logical_shape()),
        list(layout.transformed_shape()),
        list(layout.physical_shape())
    )];
    if let Some(m) = map {
        let parts: Vec<String> = axes
            .iter()
            .zip(m.final_indices())
            .map(|(a, e)| format!("{a} = {e}"))
            .collect();
        caption.push(format!("transformed axes: {}", parts.join(", ")));
    }
    let places: usize = transformed.iter().product();
    let elements: usize = logical.iter().product();
    caption.push(match layout.padding_predicate() {
        Some(p) => format!(
            "padding: {} of {places} transformed places hold no logical element ({p})",
            places.saturating_sub(elements)
        ),
        None => "bijective: every transformed place holds one logical element".to_string(),
    });
    if !layout.groups().iter().all(|g| g.len() == 1) || physical.len() != transformed.len() {
        let groups: Vec<String> = layout
            .groups()
            .iter()
            .map(|g| {
                let names: Vec<&str> = axes[g.clone()].iter().map(String::as_str).collect();
                format!("({})", names.join(", "))
            })
            .collect();
        caption.push(format!(
            "flattened row-major into {} physical ax{}: {}{}",
            physical.len(),
            if physical.len() == 1 { "is" } else { "es" },
            groups.join(" | "),
            if physical.len() > 1 {
                "; each physical row is drawn apart"
            } else {
                ""
            }
        ));
    } else if separated_last {
        caption.push(
            "an axis separator makes each row its own physical axis: rows are drawn apart"
                .to_string(),
        );
    }
    page.push(Text::body(&caption.join("\n")));
    let mut row = Row::new(32.0);
    row.push_boxed(logical_panel(map, &logical, &[]));
    row.push_boxed(tpanel);
    page.push(row);
    if !layout.groups().iter().all(|g| g.len() == 1) {
        let pdims_text: Vec<String> = physical.iter().map(ToString::to_string).collect();
        let ptitle = format!("physical [{}]", pdims_text.join(", "));
        let pnames: Vec<String> = (0..physical.len()).map(|k| format!("p{k}")).collect();
        let pclassify = |q: &[usize]| match layout.unflatten(&as_i64(q)) {
            Ok(t) => match layout.logical_at(&t) {
                Ok(Some(l)) if labelled(&physical) => Cell::labelled(Role::Needed, joined(&l)),
                Ok(Some(_)) => Cell::of(Role::Needed),
                Ok(None) => Cell::of(Role::Padding),
                Err(_) => Cell::of(Role::Plain),
            },
            Err(_) => Cell::of(Role::Plain),
        };
        page.push_boxed(labelled_panel(
            "P",
            &ptitle,
            &physical,
            &pnames,
            &pclassify,
            physical.len() >= 2,
        ));
    }
    let mut legend = vec![LegendEntry::role_as(
        Role::Needed,
        "element: logical cells say where it goes, the others which one is stored",
    )];
    if layout.padding_predicate().is_some() {
        legend.push(LegendEntry::role_as(
            Role::Padding,
            "padding: no logical element lives here",
        ));
    }
    page.push(Legend::new(legend));
    Ok(render(&page))
}

/// The picture of a map that is not injective on `shape`: the logical
/// tensor labelled with transformed indices, the two colliding elements of
/// `collision` marked, and a caption saying where they collide. Anchors
/// `L[..]`.
pub fn collision_picture(
    map: &IndexMap,
    shape: &[i64],
    collision: &Collision,
) -> Result<Drawing, String> {
    let dims: Vec<usize> = shape
        .iter()
        .map(|&d| usize::try_from(d).map_err(|_| format!("extent {d} is negative")))
        .collect::<Result<_, _>>()?;
    let mut page = Column::new(12.0);
    page.push(Text::title(&format!("Layout: {map}")));
    page.push(Text::body(&format!(
        "not injective: {collision}\nno physical buffer is drawn: two logical elements would share one place"
    )));
    page.push_boxed(logical_panel(
        Some(map),
        &dims,
        &[collision.first.clone(), collision.second.clone()],
    ));
    page.push(Legend::new(vec![
        LegendEntry::role_as(
            Role::Needed,
            "a logical element, labelled with where it goes",
        ),
        LegendEntry::role_as(Role::Selected, "two elements sent to one place"),
    ]));
    Ok(render(&page))
}
