//! Tensors drawn as grids of elements.
//!
//! Rank 1 and 2 are drawn directly; higher ranks as small multiples of 2-d
//! slices over the last two axes. A grid larger than [`MAX_CELLS`] cells on
//! a side is drawn as a scaled overview: each drawn cell stands for a block
//! of elements and takes the most important role among them (a needed
//! element is never hidden by unused ones), so large tensors stay readable
//! and the work stays bounded.

use crate::palette::{Color, Fill, Role};
use crate::panel::{Column, Panel, Row, Text};
use crate::svg::{Stroke, Svg, TextStyle};

/// The most cells drawn along one side of a grid.
pub const MAX_CELLS: usize = 64;

/// The most elements classified for one overview; beyond it each block is
/// sampled on an even lattice that includes its edges.
pub const MAX_CLASSIFIED: usize = 1 << 22;

/// The most slices drawn for a tensor of rank 3 or more.
pub const MAX_SLICES: usize = 16;

/// The most cells drawn over all slices of one tensor: large slices are
/// drawn fewer at a time (four 64 x 64 overviews), so the picture stays
/// readable and its text small.
pub const MAX_SLICE_CELLS: usize = 4 * MAX_CELLS * MAX_CELLS;

/// What one element is drawn as.
#[derive(Clone, Debug, PartialEq)]
pub struct Cell {
    /// Its role (the fill).
    pub role: Role,
    /// Text drawn in the cell when it is large enough (a physical position,
    /// a value); shown as the tooltip too.
    pub label: Option<String>,
}

impl Cell {
    /// A cell with a role and no label.
    pub fn of(role: Role) -> Cell {
        Cell { role, label: None }
    }

    /// A cell with a role and a label.
    pub fn labelled(role: Role, label: impl Into<String>) -> Cell {
        Cell {
            role,
            label: Some(label.into()),
        }
    }
}

/// Which role wins when several share an overview block: the lower, the
/// more important.
fn priority(role: Role) -> u8 {
    match role {
        Role::Missing => 0,
        Role::Selected => 1,
        Role::Needed => 2,
        Role::Wasted => 3,
        Role::MayRead => 4,
        Role::Padding => 5,
        Role::Leaf => 6,
        Role::Plain => 7,
    }
}

/// One drawn cell: its role, label and the elements it stands for.
#[derive(Clone, Debug)]
struct DrawnCell {
    role: Role,
    label: Option<String>,
    tooltip: String,
    /// The first element the cell stands for (its anchor name).
    first: (usize, usize),
}

/// A 2-d grid of elements, ready to draw.
pub struct Grid {
    id: String,
    title: Option<String>,
    axes: (String, String),
    rows: usize,
    cols: usize,
    /// Elements per drawn cell along each side (1 when drawn directly).
    block: (usize, usize),
    sampled: bool,
    drawn: Vec<DrawnCell>,
    drawn_rows: usize,
    drawn_cols: usize,
    cell: f64,
    /// Index of the slice this grid shows (empty for rank 1 and 2), for
    /// anchor names.
    prefix: Vec<usize>,
    /// A rank-1 tensor drawn as one row: indices name the column alone.
    rank1: bool,
    /// Gaps drawn after these rows and columns (axis separators).
    row_gaps: Vec<usize>,
    col_gaps: Vec<usize>,
}

const GAP: f64 = 6.0;
const AXIS_ROOM: f64 = 28.0;

impl Grid {
    /// Classifies a `rows` by `cols` grid. `id` names the anchors:
    /// `id[r,c]` (or `id[p..,r,c]` for a slice) at the centre of each drawn
    /// cell, the first element of its block in an overview.
    pub fn new(
        id: &str,
        rows: usize,
        cols: usize,
        classify: &dyn Fn(usize, usize) -> Cell,
    ) -> Grid {
        Grid::build(id, Vec::new(), false, rows, cols, classify)
    }

    fn build(
        id: &str,
        prefix: Vec<usize>,
        rank1: bool,
        rows: usize,
        cols: usize,
        classify: &dyn Fn(usize, usize) -> Cell,
    ) -> Grid {
        let br = rows.div_ceil(MAX_CELLS).max(1);
        let bc = cols.div_ceil(MAX_CELLS).max(1);
        let drawn_rows = rows.div_ceil(br);
        let drawn_cols = cols.div_ceil(bc);
        let blocks = (drawn_rows * drawn_cols).max(1);
        let sampled = rows.saturating_mul(cols) > MAX_CLASSIFIED;
        // Points sampled per block side when sampling.
        let side = ((MAX_CLASSIFIED / blocks) as f64).sqrt().floor().max(2.0) as usize;
        let lattice = |start: usize, len: usize| -> Vec<usize> {
            if !sampled || len <= side {
                return (start..start + len).collect();
            }
            let mut v: Vec<usize> = (0..side)
                .map(|k| start + k * (len - 1) / (side - 1))
                .collect();
            v.dedup();
            v
        };
        let mut drawn = Vec::with_capacity(drawn_rows * drawn_cols);
        for dr in 0..drawn_rows {
            let r0 = dr * br;
            let rl = br.min(rows - r0);
            for dc in 0..drawn_cols {
                let c0 = dc * bc;
                let cl = bc.min(cols - c0);
                if br == 1 && bc == 1 {
                    let cell = classify(r0, c0);
                    let mut tooltip = index_text(&prefix, rank1, r0, c0);
                    if let Some(l) = &cell.label {
                        tooltip.push_str(&format!(": {l}"));
                    }
                    tooltip.push_str(&format!(" ({})", cell.role.meaning()));
                    drawn.push(DrawnCell {
                        role: cell.role,
                        label: cell.label,
                        tooltip,
                        first: (r0, c0),
                    });
                    continue;
                }
                let mut best = Role::Plain;
                let mut marked = 0usize;
                let mut seen = 0usize;
                for r in lattice(r0, rl) {
                    for c in lattice(c0, cl) {
                        let role = classify(r, c).role;
                        seen += 1;
                        if role != Role::Plain {
                            marked += 1;
                        }
                        if priority(role) < priority(best) {
                            best = role;
                        }
                    }
                }
                let tooltip = format!(
                    "rows {}..{}, columns {}..{}: {marked} of {seen} {} marked; shown as {}",
                    r0,
                    r0 + rl,
                    c0,
                    c0 + cl,
                    if sampled {
                        "sampled elements"
                    } else {
                        "elements"
                    },
                    best.meaning()
                );
                drawn.push(DrawnCell {
                    role: best,
                    label: None,
                    tooltip,
                    first: (r0, c0),
                });
            }
        }
        let longest = drawn_rows.max(drawn_cols) as f64;
        let cell = (512.0 / longest).clamp(6.0, 28.0).floor();
        Grid {
            id: id.to_string(),
            title: None,
            axes: (String::new(), String::new()),
            rows,
            cols,
            block: (br, bc),
            sampled,
            drawn,
            drawn_rows,
            drawn_cols,
            cell,
            prefix,
            rank1,
            row_gaps: Vec::new(),
            col_gaps: Vec::new(),
        }
    }

    /// Sets the title drawn above the grid.
    pub fn title(mut self, title: impl Into<String>) -> Grid {
        self.title = Some(title.into());
        self
    }

    /// Names the row and column axes (drawn beside the indices).
    pub fn axes(mut self, rows: impl Into<String>, cols: impl Into<String>) -> Grid {
        self.axes = (rows.into(), cols.into());
        self
    }

    /// Sets the side of a drawn cell in pixels.
    pub fn cell_size(mut self, px: f64) -> Grid {
        self.cell = px.max(2.0);
        self
    }

    /// Draws a gap after each of these rows and columns (element indices),
    /// as axis separators split one logical buffer into several physical
    /// ones. Ignored in an overview.
    pub fn gaps(mut self, after_rows: Vec<usize>, after_cols: Vec<usize>) -> Grid {
        if self.block == (1, 1) {
            self.row_gaps = after_rows;
            self.col_gaps = after_cols;
        }
        self
    }

    /// Whether the grid is drawn as a scaled overview.
    pub fn is_overview(&self) -> bool {
        self.block != (1, 1)
    }

    fn gaps_before(gaps: &[usize], i: usize) -> f64 {
        gaps.iter().filter(|&&g| g < i).count() as f64 * GAP
    }

    fn title_height(&self) -> f64 {
        let mut h = 0.0;
        if self.title.is_some() {
            h += 20.0;
        }
        if self.is_overview() {
            h += 16.0;
        }
        h
    }

    fn caption(&self) -> Option<String> {
        self.is_overview().then(|| {
            format!(
                "{} x {} elements; overview, each cell stands for {} x {}{}",
                self.rows,
                self.cols,
                self.block.0,
                self.block.1,
                if self.sampled { " (sampled)" } else { "" }
            )
        })
    }
}

fn index_text(prefix: &[usize], rank1: bool, r: usize, c: usize) -> String {
    let mut parts: Vec<String> = prefix.iter().map(ToString::to_string).collect();
    if !rank1 {
        parts.push(r.to_string());
    }
    parts.push(c.to_string());
    format!("[{}]", parts.join(", "))
}

impl Panel for Grid {
    fn size(&self) -> (f64, f64) {
        let w = AXIS_ROOM + self.drawn_cols as f64 * self.cell + self.col_gaps.len() as f64 * GAP;
        let h = self.title_height()
            + AXIS_ROOM
            + self.drawn_rows as f64 * self.cell
            + self.row_gaps.len() as f64 * GAP;
        let title_w = self
            .title
            .as_ref()
            .map_or(0.0, |t| TextStyle::TITLE.width_of(t));
        let caption_w = self.caption().map_or(0.0, |c| TextStyle::BODY.width_of(&c));
        (w.max(title_w).max(caption_w), h)
    }

    fn draw(&self, svg: &mut Svg, x: f64, y: f64) {
        svg.begin_group(&format!("grid {}", self.id));
        let mut top = y;
        if let Some(t) = &self.title {
            svg.text(x, top + 14.0, t, TextStyle::TITLE);
            top += 20.0;
        }
        if let Some(c) = self.caption() {
            svg.text(x, top + 12.0, &c, TextStyle::BODY);
            top += 16.0;
        }
        let gx = x + AXIS_ROOM;
        let gy = top + AXIS_ROOM;
        let cell = self.cell;
        // Index ticks, spaced so labels do not collide.
        let step = ((14.0 / cell).ceil() as usize).max(1);
        let label = TextStyle::LABEL;
        for dc in (0..self.drawn_cols).step_by(step) {
            let cx = gx
                + dc as f64 * cell
                + Self::gaps_before(&self.col_gaps, dc * self.block.1)
                + cell / 2.0;
            svg.text(
                cx,
                gy - 4.0,
                &(dc * self.block.1).to_string(),
                label.centred(),
            );
        }
        for dr in (0..self.drawn_rows).step_by(step) {
            let cy = gy
                + dr as f64 * cell
                + Self::gaps_before(&self.row_gaps, dr * self.block.0)
                + cell / 2.0
                + 3.0;
            svg.text(
                gx - 4.0,
                cy,
                &(dr * self.block.0).to_string(),
                label.right(),
            );
        }
        if !self.axes.1.is_empty() {
            svg.text(
                gx,
                gy - 16.0,
                &format!("{} →", self.axes.1),
                TextStyle::LABEL,
            );
        }
        if !self.axes.0.is_empty() {
            svg.text(x, gy - 4.0, &format!("{} ↓", self.axes.0), TextStyle::LABEL);
        }
        let outline = Some(Stroke::solid(
            Color::WHITE,
            if cell >= 8.0 { 1.0 } else { 0.5 },
        ));
        for (k, d) in self.drawn.iter().enumerate() {
            let dr = k / self.drawn_cols;
            let dc = k % self.drawn_cols;
            let cx = gx + dc as f64 * cell + Self::gaps_before(&self.col_gaps, d.first.1);
            let cy = gy + dr as f64 * cell + Self::gaps_before(&self.row_gaps, d.first.0);
            svg.rect(cx, cy, cell, cell, d.role.fill(), outline, Some(&d.tooltip));
            if let Some(l) = &d.label {
                let style = TextStyle {
                    size: (cell * 0.42).min(11.0),
                    color: d.role.ink(),
                    ..TextStyle::LABEL
                }
                .centred();
                if style.width_of(l) <= cell - 2.0 && style.size >= 6.0 {
                    svg.text(
                        cx + cell / 2.0,
                        cy + cell / 2.0 + style.size * 0.35,
                        l,
                        style,
                    );
                }
            }
            let mut idx: Vec<String> = self.prefix.iter().map(ToString::to_string).collect();
            if !self.rank1 {
                idx.push(d.first.0.to_string());
            }
            idx.push(d.first.1.to_string());
            svg.anchor(
                format!("{}[{}]", self.id, idx.join(",")),
                cx + cell / 2.0,
                cy + cell / 2.0,
            );
        }
        // A frame around the whole tensor.
        let w = self.drawn_cols as f64 * cell + self.col_gaps.len() as f64 * GAP;
        let h = self.drawn_rows as f64 * cell + self.row_gaps.len() as f64 * GAP;
        svg.rect(
            gx,
            gy,
            w,
            h,
            Fill::None,
            Some(Stroke::solid(Color::RULE, 1.0)),
            None,
        );
        svg.end_group();
    }
}

/// A tensor of any rank drawn as grids: rank 0 as one cell, rank 1 as one
/// row, rank 2 directly, higher ranks as up to [`MAX_SLICES`] slices (fewer
/// when they are large: [`MAX_SLICE_CELLS`]) over
/// the last two axes (slices with marked elements first). `classify` gets
/// the full index. Anchors are `id[i,j,...]`.
pub fn tensor_panel(
    id: &str,
    title: &str,
    shape: &[usize],
    axis_names: &[String],
    classify: &dyn Fn(&[usize]) -> Cell,
) -> Box<dyn Panel> {
    tensor_panel_in(id, title, shape, axis_names, classify, false)
}

/// [`tensor_panel`] with a gap after every row of the 2-d grid (or of each
/// slice): the rows are separate physical buffers, as an axis separator
/// between the last two axes makes them.
pub fn tensor_panel_rows_apart(
    id: &str,
    title: &str,
    shape: &[usize],
    axis_names: &[String],
    classify: &dyn Fn(&[usize]) -> Cell,
) -> Box<dyn Panel> {
    tensor_panel_in(id, title, shape, axis_names, classify, true)
}

/// A gap after every row but the last, when `apart`.
fn every_row(grid: Grid, apart: bool) -> Grid {
    if !apart {
        return grid;
    }
    let rows = (0..grid.rows.saturating_sub(1)).collect();
    grid.gaps(rows, Vec::new())
}

fn tensor_panel_in(
    id: &str,
    title: &str,
    shape: &[usize],
    axis_names: &[String],
    classify: &dyn Fn(&[usize]) -> Cell,
    apart: bool,
) -> Box<dyn Panel> {
    let name = |k: usize| axis_names.get(k).cloned().unwrap_or_default();
    match shape.len() {
        0 => Box::new(Grid::build(id, Vec::new(), true, 1, 1, &|_, _| classify(&[])).title(title)),
        1 => Box::new(
            Grid::row(id, shape[0], &|c| classify(&[c]))
                .title(title)
                .axes("", name(0)),
        ),
        2 => Box::new(every_row(
            Grid::new(id, shape[0], shape[1], &|r, c| classify(&[r, c]))
                .title(title)
                .axes(name(0), name(1)),
            apart,
        )),
        n => {
            let lead = &shape[..n - 2];
            let (rows, cols) = (shape[n - 2], shape[n - 1]);
            let total: usize = lead.iter().product();
            let drawn_side = |n: usize| n.div_ceil(n.div_ceil(MAX_CELLS).max(1));
            let per_slice = (drawn_side(rows) * drawn_side(cols)).max(1);
            let slice_limit = MAX_SLICES.min((MAX_SLICE_CELLS / per_slice).max(1));
            let mut column = Column::new(8.0);
            column.push(Text::title(title));
            let mut row = Row::new(12.0);
            let mut shown = 0usize;
            let mut plain_first: Option<Vec<usize>> = None;
            let mut index = vec![0usize; lead.len()];
            let mut budget = MAX_CLASSIFIED;
            let mut skipped = 0usize;
            let mut slices: Vec<Grid> = Vec::new();
            for _ in 0..total {
                if shown >= slice_limit || budget == 0 {
                    break;
                }
                let prefix = index.clone();
                let full = |r: usize, c: usize| {
                    let mut i = prefix.clone();
                    i.push(r);
                    i.push(c);
                    classify(&i)
                };
                let grid = Grid::build(id, prefix.clone(), false, rows, cols, &full);
                budget = budget.saturating_sub(rows.saturating_mul(cols).min(MAX_CLASSIFIED));
                if grid.drawn.iter().any(|d| d.role != Role::Plain) {
                    let label: Vec<String> = prefix
                        .iter()
                        .enumerate()
                        .map(|(k, v)| {
                            format!(
                                "{}={v}",
                                if name(k).is_empty() {
                                    format!("i{k}")
                                } else {
                                    name(k)
                                }
                            )
                        })
                        .collect();
                    slices.push(every_row(
                        grid.title(format!("[{}, :, :]", label.join(", ")))
                            .axes(name(n - 2), name(n - 1)),
                        apart,
                    ));
                    shown += 1;
                } else {
                    skipped += 1;
                    if plain_first.is_none() {
                        plain_first = Some(prefix.clone());
                    }
                }
                // Next index, last axis fastest.
                for k in (0..index.len()).rev() {
                    index[k] += 1;
                    if index[k] < lead[k] {
                        break;
                    }
                    index[k] = 0;
                }
            }
            if slices.is_empty() {
                let prefix = plain_first.unwrap_or_else(|| vec![0; lead.len()]);
                let p2 = prefix.clone();
                let grid = Grid::build(id, prefix, false, rows, cols, &move |r, c| {
                    let mut i = p2.clone();
                    i.push(r);
                    i.push(c);
                    classify(&i)
                });
                slices.push(every_row(grid.axes(name(n - 2), name(n - 1)), apart));
                skipped = skipped.saturating_sub(1);
            }
            let drawn = slices.len();
            for s in slices {
                row.push(s);
            }
            column.push(row);
            let rest = total - drawn;
            if rest > 0 {
                column.push(Text::body(&format!(
                    "{drawn} of {total} slices drawn ({skipped} without marked elements skipped)"
                )));
            }
            Box::new(column)
        }
    }
}

impl Grid {
    /// A rank-1 tensor as one row; anchors are `id[c]`.
    pub fn row(id: &str, len: usize, classify: &dyn Fn(usize) -> Cell) -> Grid {
        Grid::build(id, Vec::new(), true, 1, len, &|_, c| classify(c))
    }
}
