//! Pictures of indexing maps: one output element and, per input, the
//! elements its output-to-input maps read.
//!
//! The chosen output element is drawn [`Role::Selected`] in a grid of the
//! output. Each input is drawn as a grid of its shape (rank 3 and more as
//! slices) under which its maps are printed in XLA's text form. Range
//! variables (symbols: reduced dimensions, windows) are enumerated: every
//! element they reach is [`Role::Needed`]. Runtime variables (gather
//! indices, dynamic-slice offsets) are drawn as the positions they can
//! reach: an element read whatever the runtime values are is
//! [`Role::Needed`], one read only for some values is [`Role::MayRead`]
//! (hatched), and the caption gives the variables' ranges and constraints.
//! At most [`ENUMERATION_BUDGET`] points are enumerated per map; past it the
//! map is drawn as the box each result dimension lies in (sound, hatched)
//! and the caption says "bounded: the box of each dimension".

use std::collections::HashSet;
use std::fmt;

use hlo::{Direction, EntryShapes, InstructionIndexing, OperandIndexing, Shape};
use indexing::{IndexingMap, Interval};

use crate::grid::{tensor_panel, Cell};
use crate::palette::Role;
use crate::panel::{render, Column, Legend, LegendEntry, Panel, Row, Text};
use crate::svg::{Drawing, TextStyle};

/// The most points of the range and runtime variables enumerated for one
/// map; past it the map is drawn as the box of each result dimension.
pub const ENUMERATION_BUDGET: u64 = 1 << 16;

/// Inputs drawn side by side before a new row starts.
const PER_ROW: usize = 3;

/// Characters of map text per caption line.
const WRAP: usize = 80;

/// Characters per line of the summary under the map text (a larger font).
const SUMMARY_WRAP: usize = 64;

/// Why a map picture cannot be drawn: a bad element, or a query whose
/// maps do not start from one output element.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MapPictureError {
    /// What is wrong and what to do.
    pub message: String,
}

impl MapPictureError {
    fn new(message: impl Into<String>) -> MapPictureError {
        MapPictureError {
            message: message.into(),
        }
    }
}

impl fmt::Display for MapPictureError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for MapPictureError {}

/// One map of an input, as the picture prints and draws it.
#[derive(Clone, Debug)]
pub struct DrawnMap {
    /// The map, from the output's indices to the input's.
    pub map: IndexingMap,
    /// The map as printed under the grid (XLA's text form, with its
    /// runtime variables' sources).
    pub text: String,
    /// Why the map over-approximates, when its analysis says it does.
    pub conservative: Option<String>,
    /// For each runtime variable: the tensor its value is read from and the
    /// map from the output's indices to the index read there.
    pub runtime: Vec<(String, IndexingMap)>,
}

/// One tensor the output element reads, with the maps that reach it.
#[derive(Clone, Debug)]
pub struct ReadTensor {
    /// Its title in the picture (`input 0: p0 f32[4,8]`).
    pub title: String,
    /// Its size along each axis.
    pub shape: Vec<i64>,
    /// The maps that reach it (empty when `unknown`).
    pub maps: Vec<DrawnMap>,
    /// Why its maps are unknown, when they are.
    pub unknown: Option<String>,
    /// More lines for the caption (maps not drawn, ...).
    pub notes: Vec<String>,
}

/// What a map picture shows: an output tensor and the tensors it reads.
#[derive(Clone, Debug)]
pub struct MapScene {
    /// The picture's title.
    pub title: String,
    /// The output tensor's name and shape as printed (`gather f32[4,3,4]`).
    pub output: String,
    /// The output's size along each axis.
    pub output_shape: Vec<i64>,
    /// The tensors read.
    pub tensors: Vec<ReadTensor>,
    /// How a user chooses another element (`--at d0=..`), for the caption.
    pub choose_hint: String,
}

impl MapScene {
    /// The same scene with only input `tensor` and only its map `map` (a
    /// picture of one map of an instruction), or `None` when there is no
    /// such map.
    pub fn only(&self, tensor: usize, map: usize) -> Option<MapScene> {
        let t = self.tensors.get(tensor)?;
        let m = t.maps.get(map)?;
        Some(MapScene {
            tensors: vec![ReadTensor {
                maps: vec![m.clone()],
                ..t.clone()
            }],
            ..self.clone()
        })
    }
}

/// The middle element of `shape` (`size / 2` on each axis), the element
/// drawn when none is chosen.
pub fn middle_element(shape: &[i64]) -> Vec<i64> {
    shape.iter().map(|&n| n.max(0) / 2).collect()
}

/// Reads an element of a tensor of shape `shape` from `specs`, each a list
/// `dK=V,dK=V` (several specs add up). Axes not named take their middle
/// index. An unknown or repeated axis, a missing `=` or a value outside
/// the axis is an error that says what to write.
///
/// ```
/// let at = picture::parse_at(&["d0=1,d2=3".to_string()], &[4, 5, 6]).unwrap();
/// assert_eq!(at, vec![1, 2, 3]);
/// assert!(picture::parse_at(&["d3=0".to_string()], &[4, 5, 6]).is_err());
/// ```
pub fn parse_at(specs: &[String], shape: &[i64]) -> Result<Vec<i64>, MapPictureError> {
    let mut at = middle_element(shape);
    let mut given = vec![false; shape.len()];
    let axes = if shape.is_empty() {
        "the output is a scalar and has no axes".to_string()
    } else {
        format!("the output's axes are d0 to d{}", shape.len() - 1)
    };
    for part in specs.iter().flat_map(|s| s.split(',')) {
        let part = part.trim();
        if part.is_empty() {
            continue;
        }
        let Some((name, value)) = part.split_once('=') else {
            return Err(MapPictureError::new(format!(
                "`{part}` is not `dK=V`: write the element as `d0=1,d1=2`"
            )));
        };
        let (name, value) = (name.trim(), value.trim());
        let k = name
            .strip_prefix('d')
            .and_then(|k| k.parse::<usize>().ok())
            .filter(|&k| k < shape.len())
            .ok_or_else(|| {
                MapPictureError::new(format!("`{name}` is not an axis of the output: {axes}"))
            })?;
        let v: i64 = value.parse().map_err(|_| {
            MapPictureError::new(format!("`{value}` in `{part}` is not an integer index"))
        })?;
        if !(0..shape[k]).contains(&v) {
            return Err(MapPictureError::new(format!(
                "{name}={v} is outside the output: {name} is in [0, {}]",
                shape[k] - 1
            )));
        }
        if given[k] {
            return Err(MapPictureError::new(format!(
                "{name} is given twice; give each axis once"
            )));
        }
        given[k] = true;
        at[k] = v;
    }
    Ok(at)
}

/// The scene of output-to-input maps `result` (from [`hlo::analyze`]) with
/// the shapes [`hlo::map_shapes`] gives for the same query.
pub fn hlo_scene(
    result: &InstructionIndexing,
    shapes: &[EntryShapes],
) -> Result<MapScene, MapPictureError> {
    if result.direction != Direction::OutputToInput {
        return Err(MapPictureError::new(
            "pictures draw output-to-input maps (one output element and what it reads); drop --input-to-output",
        ));
    }
    let Some(first) = shapes.first() else {
        return Err(MapPictureError::new(format!(
            "`{}` reads no operand: there is no map to draw",
            result.instruction
        )));
    };
    let Shape::Array(output) = &first.from else {
        return Err(MapPictureError::new(format!(
            "`{}` has a tuple output: choose one with --output",
            result.instruction
        )));
    };
    let mut tensors = Vec::with_capacity(result.operands.len());
    for (entry, s) in result.operands.iter().zip(shapes) {
        let (maps, unknown) = match &entry.indexing {
            OperandIndexing::Maps(maps) => (maps.as_slice(), None),
            OperandIndexing::Unsupported(e) => (&[][..], Some(e.message.clone())),
        };
        // A tuple-shaped input is drawn as the element its maps index.
        let element = maps.first().and_then(|m| m.element);
        let to = match element {
            Some(k) => s.to.output(k).unwrap_or(&s.to),
            None => &s.to,
        };
        let (shape, shape_text) = match to {
            Shape::Array(a) => (a.dims.clone(), a.to_string()),
            Shape::Tuple(_) => (Vec::new(), to.to_string()),
        };
        let mut notes = Vec::new();
        let others = maps.iter().filter(|m| m.element != element).count();
        if others > 0 {
            notes.push(format!(
                "{others} map(s) of other tuple elements not drawn (see the text output)"
            ));
        }
        let drawn = maps
            .iter()
            .filter(|m| m.element == element)
            .map(|m| DrawnMap {
                map: m.map.clone(),
                text: m.to_string(),
                conservative: match &m.conservative {
                    Some(reason) => Some(format!("conservative: {reason}")),
                    None => m.widened.then(|| {
                        format!(
                            "conservative: an expression outgrew {} nodes and was widened",
                            indexing::EXPRESSION_BUDGET
                        )
                    }),
                },
                runtime: m
                    .runtime
                    .iter()
                    .map(|rt| {
                        let source = rt.operand_name.clone().unwrap_or_else(|| rt.source.clone());
                        (source, rt.map.clone())
                    })
                    .collect(),
            })
            .collect();
        let mut title = format!("input {}: {} {shape_text}", entry.index, entry.name);
        if let Some(k) = element {
            title.push_str(&format!(" (tuple element {k})"));
        }
        tensors.push(ReadTensor {
            title,
            shape,
            maps: drawn,
            unknown,
            notes,
        });
    }
    Ok(MapScene {
        title: format!(
            "{}: one output element and the elements it reads",
            result.instruction
        ),
        output: format!("{} {output}", result.instruction),
        output_shape: output.dims.clone(),
        tensors,
        choose_hint: "--at d0=..,d1=..".to_string(),
    })
}

/// The scene of one map alone: the output's shape is the dimensions'
/// ranges (`[0, upper]` on each axis) and the input's is the results'
/// ranges over the whole domain (`[0, upper]`, values below 0 not drawn),
/// unless `shapes` gives both (a map that came from an instruction).
pub fn map_scene(map: &IndexingMap, shapes: Option<(&[i64], &[i64])>) -> MapScene {
    let (output_shape, input_shape, note) = match shapes {
        Some((o, i)) => (o.to_vec(), i.to_vec(), None),
        None => {
            let o: Vec<i64> = map
                .dims()
                .iter()
                .map(|v| v.bounds().upper.saturating_add(1).max(1))
                .collect();
            let i: Vec<i64> = map
                .results()
                .iter()
                .map(|r| map.expression_range(r).upper.saturating_add(1).max(1))
                .collect();
            (
                o,
                i,
                Some("shapes from the ranges of the dimensions and results"),
            )
        }
    };
    let shape_text = |s: &[i64]| {
        let parts: Vec<String> = s.iter().map(ToString::to_string).collect();
        format!("[{}]", parts.join(","))
    };
    let mut title = format!("input: {}", shape_text(&input_shape));
    if let Some(n) = note {
        title.push_str(&format!(" ({n})"));
    }
    MapScene {
        title: "an indexing map: one element and the elements it reads".to_string(),
        output: format!("output {}", shape_text(&output_shape)),
        output_shape,
        tensors: vec![ReadTensor {
            title,
            shape: input_shape,
            maps: vec![DrawnMap {
                map: map.clone(),
                text: map.to_string(),
                conservative: None,
                runtime: Vec::new(),
            }],
            unknown: None,
            notes: Vec::new(),
        }],
        choose_hint: "--at d0=..".to_string(),
    }
}

/// What one input's maps read at the chosen element.
#[derive(Default)]
struct Reads {
    /// Linear indices read whatever the runtime values.
    certain: HashSet<u128>,
    /// Linear indices read for some runtime values.
    possible: HashSet<u128>,
    /// Boxes drawn for maps past the budget (may be read).
    boxes: Vec<Vec<Interval>>,
    /// Points outside the tensor's shape.
    outside: usize,
}

impl Reads {
    fn role(&self, index: &[usize], shape: &[i64]) -> Role {
        let linear = linear(index.iter().map(|&i| i as i64), shape);
        if linear.is_some_and(|l| self.certain.contains(&l)) {
            return Role::Needed;
        }
        let in_box = self
            .boxes
            .iter()
            .any(|b| b.iter().zip(index).all(|(iv, &i)| iv.contains(i as i64)));
        if in_box || linear.is_some_and(|l| self.possible.contains(&l)) {
            return Role::MayRead;
        }
        Role::Plain
    }
}

/// The row-major position of `index` in `shape`, or `None` outside it.
fn linear(index: impl Iterator<Item = i64>, shape: &[i64]) -> Option<u128> {
    let mut l: u128 = 0;
    let mut n = 0;
    for (i, &size) in index.zip(shape) {
        if !(0..size).contains(&i) {
            return None;
        }
        l = l.checked_mul(size as u128)?.checked_add(i as u128)?;
        n += 1;
    }
    (n == shape.len()).then_some(l)
}

/// `1 element`, `5 elements`.
fn elements(n: usize) -> String {
    if n == 1 {
        "1 element".to_string()
    } else {
        format!("{n} elements")
    }
}

fn point_text(p: &[i64]) -> String {
    let parts: Vec<String> = p.iter().map(ToString::to_string).collect();
    format!("({})", parts.join(", "))
}

/// Splits `text` into lines of at most about `width` characters, at a
/// `, ` outside brackets where it can (so `[0, 9]` stays whole).
fn wrap(text: &str, width: usize) -> Vec<String> {
    let mut out = Vec::new();
    for line in text.lines() {
        // Pieces ending at a top-level `, `.
        let mut pieces: Vec<String> = Vec::new();
        let mut piece = String::new();
        let mut depth = 0i32;
        let mut chars = line.chars().peekable();
        while let Some(c) = chars.next() {
            piece.push(c);
            match c {
                '(' | '[' | '{' => depth += 1,
                ')' | ']' | '}' => depth -= 1,
                ',' if depth == 0 && chars.peek() == Some(&' ') => {
                    piece.push(' ');
                    chars.next();
                    pieces.push(std::mem::take(&mut piece));
                }
                _ => {}
            }
        }
        pieces.push(piece);
        let mut current = String::new();
        for piece in pieces {
            if !current.trim().is_empty() && current.chars().count() + piece.chars().count() > width
            {
                out.push(std::mem::take(&mut current).trim_end().to_string());
                current.push_str("    ");
            }
            current.push_str(&piece);
        }
        out.push(current.trim_end().to_string());
    }
    out
}

/// The runtime ranges and the constraints that name runtime variables, as
/// the map prints them.
fn runtime_text(map: &IndexingMap) -> String {
    let mut parts: Vec<String> = map
        .rt_vars()
        .iter()
        .map(|v| format!("{} in {}", map.var_name(v.var()), v.bounds()))
        .collect();
    for c in map.constraints() {
        let names: Vec<String> = map
            .rt_vars()
            .iter()
            .map(|v| map.var_name(v.var()))
            .collect();
        let text = map.print_expr(&c.expr);
        if names.iter().any(|n| text.contains(n.as_str())) {
            parts.push(format!("{text} in {}", c.interval));
        }
    }
    parts.join(", ")
}

/// Classifies what `tensor`'s maps read at `at`, with one caption line per
/// map saying what it reads.
fn reads_of(tensor: &ReadTensor, at: &[i64]) -> (Reads, Vec<String>, bool) {
    let mut reads = Reads::default();
    let mut lines = Vec::new();
    let mut bounded = false;
    for (k, m) in tensor.maps.iter().enumerate() {
        let which = if tensor.maps.len() > 1 {
            format!("map {}: ", k + 1)
        } else {
            String::new()
        };
        if m.map.num_dims() != at.len() {
            lines.push(format!(
                "{which}has {} dimensions, the output {}: not drawn",
                m.map.num_dims(),
                at.len()
            ));
            continue;
        }
        if m.map.is_undefined() {
            lines.push(format!("{which}unknown: not drawn"));
            continue;
        }
        match m.map.image_at(at, ENUMERATION_BUDGET) {
            Ok(image) if image.is_empty() => {
                lines.push(format!(
                    "{which}reads nothing at {} (outside the map's domain)",
                    point_text(at)
                ));
            }
            Ok(image) => {
                for p in &image.certain {
                    match linear(p.iter().copied(), &tensor.shape) {
                        Some(l) => {
                            reads.certain.insert(l);
                        }
                        None => reads.outside += 1,
                    }
                }
                for p in &image.possible {
                    match linear(p.iter().copied(), &tensor.shape) {
                        Some(l) => {
                            reads.possible.insert(l);
                        }
                        None => reads.outside += 1,
                    }
                }
                let mut line = if m.map.rt_vars().is_empty() {
                    format!("{which}reads {}", elements(image.certain.len()))
                } else if image.certain.is_empty() {
                    format!(
                        "{which}may read {}, as the runtime values say ({})",
                        elements(image.possible.len()),
                        runtime_text(&m.map)
                    )
                } else {
                    format!(
                        "{which}reads {} for every runtime value and {} more for some ({})",
                        elements(image.certain.len()),
                        image.possible.len(),
                        runtime_text(&m.map)
                    )
                };
                if m.map.num_symbols() > 0 {
                    let ranges: Vec<String> = m
                        .map
                        .symbols()
                        .iter()
                        .map(|v| format!("{} in {}", m.map.var_name(v.var()), v.bounds()))
                        .collect();
                    line.push_str(&format!("; enumerated {}", ranges.join(", ")));
                }
                lines.push(line);
            }
            Err(_) => match m.map.image_bounds_at(at) {
                Ok(Some(b)) => {
                    bounded = true;
                    let parts: Vec<String> = b.iter().map(ToString::to_string).collect();
                    lines.push(format!(
                        "{which}bounded: the box of each dimension, {} (more than {ENUMERATION_BUDGET} points to enumerate)",
                        parts.join(" x ")
                    ));
                    reads.boxes.push(b);
                }
                Ok(None) => lines.push(format!(
                    "{which}reads nothing at {} (outside the map's domain)",
                    point_text(at)
                )),
                Err(e) => lines.push(format!("{which}cannot be drawn: {}", e.message)),
            },
        }
        for (i, (source, rt_map)) in m.runtime.iter().enumerate() {
            // The index a runtime value is read at, when one point says it.
            let read_at = (rt_map.num_dims() == at.len())
                .then(|| rt_map.image_at(at, ENUMERATION_BUDGET).ok())
                .flatten()
                .filter(|image| image.certain.len() == 1 && image.possible.is_empty());
            if let (Some(image), Some(v)) = (read_at, m.map.rt_vars().get(i)) {
                lines.push(format!(
                    "{which}{} in {} is read from {source}[{}]",
                    m.map.var_name(v.var()),
                    v.bounds(),
                    image.certain[0]
                        .iter()
                        .map(ToString::to_string)
                        .collect::<Vec<_>>()
                        .join(", ")
                ));
            }
        }
        if let Some(c) = &m.conservative {
            lines.push(format!("{which}{c}"));
        }
    }
    if reads.outside > 0 {
        lines.push(format!(
            "{} points outside the shape are not drawn",
            reads.outside
        ));
    }
    (reads, lines, bounded)
}

fn axis_names(rank: usize, prefix: &str) -> Vec<String> {
    (0..rank).map(|k| format!("{prefix}{k}")).collect()
}

fn usize_shape(shape: &[i64]) -> Vec<usize> {
    shape.iter().map(|&n| n.max(0) as usize).collect()
}

/// Draws `scene` at the output element `at` (`None`: the middle element).
/// Anchors: `out[i,j,..]` for the output's cells, `in{K}[i,j,..]` for input
/// `K`'s (as [`tensor_panel`] names them).
pub fn map_picture(scene: &MapScene, at: Option<&[i64]>) -> Result<Drawing, MapPictureError> {
    let chosen_default = at.is_none();
    let at: Vec<i64> = match at {
        Some(a) => a.to_vec(),
        None => middle_element(&scene.output_shape),
    };
    if at.len() != scene.output_shape.len() {
        return Err(MapPictureError::new(format!(
            "the output has {} axes; the element {} has {}",
            scene.output_shape.len(),
            point_text(&at),
            at.len()
        )));
    }
    if let Some(k) = scene.output_shape.iter().position(|&n| n <= 0) {
        return Err(MapPictureError::new(format!(
            "the output has no elements (d{k} has size {}): there is no element to draw",
            scene.output_shape[k]
        )));
    }
    for (k, (&v, &n)) in at.iter().zip(&scene.output_shape).enumerate() {
        if !(0..n).contains(&v) {
            return Err(MapPictureError::new(format!(
                "d{k}={v} is outside the output: d{k} is in [0, {}]",
                n - 1
            )));
        }
    }
    let mut page = Column::new(12.0);
    page.push(Text::title(&scene.title));
    let which = if chosen_default {
        format!(
            "the middle element; choose another with {}",
            scene.choose_hint
        )
    } else {
        "the chosen element".to_string()
    };
    page.push(Text::body(&format!(
        "output element d = {} of {} ({which})",
        point_text(&at),
        scene.output
    )));

    let mut panels: Vec<Box<dyn Panel>> = Vec::new();
    let output_at: Vec<usize> = at.iter().map(|&v| v as usize).collect();
    let mut out_col = Column::new(6.0);
    out_col.push_boxed(tensor_panel(
        "out",
        &format!("output: {}", scene.output),
        &usize_shape(&scene.output_shape),
        &axis_names(scene.output_shape.len(), "d"),
        &|i: &[usize]| {
            Cell::of(if i == output_at.as_slice() {
                Role::Selected
            } else {
                Role::Plain
            })
        },
    ));
    panels.push(Box::new(out_col));

    let mut any_bounded = false;
    let mut any_may = false;
    let any_runtime = scene
        .tensors
        .iter()
        .flat_map(|t| &t.maps)
        .any(|m| !m.map.rt_vars().is_empty());
    for (k, tensor) in scene.tensors.iter().enumerate() {
        let mut col = Column::new(6.0);
        let (reads, lines, bounded) = reads_of(tensor, &at);
        any_bounded |= bounded;
        any_may |= !reads.possible.is_empty() || !reads.boxes.is_empty();
        let shape = tensor.shape.clone();
        col.push_boxed(tensor_panel(
            &format!("in{k}"),
            &tensor.title,
            &usize_shape(&tensor.shape),
            &axis_names(tensor.shape.len(), "i"),
            &|i: &[usize]| Cell::of(reads.role(i, &shape)),
        ));
        let mut caption: Vec<String> = Vec::new();
        if let Some(reason) = &tensor.unknown {
            caption.push(format!("unknown indexing: {reason}"));
        }
        for m in &tensor.maps {
            caption.extend(wrap(&m.text, WRAP));
        }
        let mut text = Column::new(2.0);
        text.push(Text::new(
            &caption.join("\n"),
            TextStyle {
                size: 10.0,
                ..TextStyle::LABEL
            },
        ));
        let summary: Vec<String> = lines
            .iter()
            .chain(&tensor.notes)
            .flat_map(|l| wrap(l, SUMMARY_WRAP))
            .collect();
        text.push(Text::body(&summary.join("\n")));
        col.push(text);
        panels.push(Box::new(col));
    }

    let mut rows = Column::new(16.0);
    let mut row = Row::new(24.0);
    for (n, p) in panels.into_iter().enumerate() {
        if n > 0 && n % PER_ROW == 0 {
            rows.push(std::mem::replace(&mut row, Row::new(24.0)));
        }
        row.push_boxed(p);
    }
    if !row.is_empty() {
        rows.push(row);
    }
    page.push(rows);
    if any_bounded {
        page.push(Text::body(
            "bounded: the box of each dimension is drawn where a map has too many points to enumerate (every element read lies in it)",
        ));
    }
    let mut legend = vec![
        LegendEntry::role(Role::Selected),
        LegendEntry::role_as(
            Role::Needed,
            if any_runtime {
                "read (for every runtime value)"
            } else {
                "read"
            },
        ),
    ];
    if any_may {
        legend.push(LegendEntry::role_as(
            Role::MayRead,
            if any_bounded {
                "may be read (runtime values, or inside the box)"
            } else {
                "may be read (some runtime values)"
            },
        ));
    }
    legend.push(LegendEntry::role_as(Role::Plain, "not read"));
    page.push(Legend::new(legend));
    Ok(render(&page))
}

/// Draws the output-to-input maps of an HLO query: [`hlo_scene`] at the
/// output element `at` (`None`: the middle element).
pub fn hlo_map_picture(
    result: &InstructionIndexing,
    shapes: &[EntryShapes],
    at: Option<&[i64]>,
) -> Result<Drawing, MapPictureError> {
    map_picture(&hlo_scene(result, shapes)?, at)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn at_reads_named_axes_and_rejects_the_rest() {
        let s = |x: &str| vec![x.to_string()];
        assert_eq!(parse_at(&s("d1=4"), &[3, 5]).unwrap(), vec![1, 4]);
        assert_eq!(
            parse_at(&["d0=2".into(), "d1=0".into()], &[3, 5]).unwrap(),
            vec![2, 0]
        );
        for bad in ["d2=0", "x=1", "d0", "d0=3", "d0=-1", "d0=a", "d0=1,d0=1"] {
            assert!(parse_at(&s(bad), &[3, 5]).is_err(), "{bad}");
        }
    }

    #[test]
    fn wrapping_breaks_at_commas() {
        let lines = wrap("(d0, d1) -> (d0), domain: d0 in [0, 9], d1 in [0, 9]", 24);
        assert_eq!(
            lines,
            [
                "(d0, d1) -> (d0),",
                "    domain: d0 in [0, 9],",
                "    d1 in [0, 9]"
            ]
        );
    }
}
