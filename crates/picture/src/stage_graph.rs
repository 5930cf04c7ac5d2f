//! The stage graph of a TE schedule, as seed 000 draws it: one node per
//! stage, an edge from each producer to each stage that reads it, output
//! stages filled blue, and the attach point of every stage computed at a
//! loop written on its node (`compute_at C.xo`, thick outline) and on the
//! edge to the stage that holds it. Each node carries what InferBound
//! found: the realize region as `[min, extent)` per axis and the storage.

use te::{Attach, OpKind, Placement, Report, Schedule, StageReport};

use crate::graph::{Edge, Graph, Node};
use crate::palette::{Color, Fill};
use crate::panel::{render, Column, Legend, LegendEntry, Text};
use crate::svg::Drawing;

/// The fill of an output stage (seed 000 draws outputs solid blue).
pub const OUTPUT_FILL: Fill = Fill::Solid(Color::BLUE);
/// The fill of a computed stage that is not an output.
pub const COMPUTED_FILL: Fill = Fill::Solid(Color::BACKGROUND);
/// The fill of an input (placeholder) stage.
pub const INPUT_FILL: Fill = Fill::Solid(Color::WHITE);
/// The fill of a stage inlined into its consumers (it has no loops or
/// storage of its own).
pub const INLINED_FILL: Fill = Fill::Solid(Color::YELLOW);

/// `[min, extent)`, as TVM prints a `Range`.
pub(crate) fn range_text(min: &impl std::fmt::Display, extent: &impl std::fmt::Display) -> String {
    format!("[{min}, {extent})")
}

/// The most characters a line of a graph node shows; longer lines (the
/// ranges of non-box regions run to hundreds) end in `…`, and the page's
/// tables give them whole.
pub(crate) const NODE_LINE_CHARS: usize = 56;

/// `text` cut to [`NODE_LINE_CHARS`] characters.
pub(crate) fn clip(text: String) -> String {
    if text.chars().count() <= NODE_LINE_CHARS {
        return text;
    }
    let mut cut: String = text.chars().take(NODE_LINE_CHARS - 1).collect();
    cut.push('…');
    cut
}

/// A region as one `[min, extent)` per axis, `x`-separated (`scalar` for
/// a rank-0 tensor).
pub(crate) fn region_text(region: &[arith::Range]) -> String {
    if region.is_empty() {
        return "scalar".to_string();
    }
    region
        .iter()
        .map(|r| range_text(&r.min, &r.extent))
        .collect::<Vec<_>>()
        .join(" x ")
}

/// The number of elements of a storage shape: a number when every extent
/// is constant (and the product fits), else the product as text.
pub(crate) fn elements_text(shape: &[arith::Expr]) -> String {
    let product = shape
        .iter()
        .try_fold(1i64, |acc, d| d.as_int().and_then(|v| acc.checked_mul(v)));
    match product {
        Some(n) => n.to_string(),
        None => shape
            .iter()
            .map(|d| format!("({d})"))
            .collect::<Vec<_>>()
            .join(" * "),
    }
}

/// Where a stage is computed, in words.
pub(crate) fn placement_text(p: &Placement) -> String {
    match p {
        Placement::Input => "input".to_string(),
        Placement::Root => "computed at the root".to_string(),
        Placement::Inline => "inlined into its consumers".to_string(),
        Placement::At { stage, axis } => format!("compute_at {stage}.{axis}"),
    }
}

/// The kind of operation a stage computes, as TE names it.
fn kind_text(kind: &OpKind) -> &'static str {
    match kind {
        OpKind::Placeholder => "placeholder",
        OpKind::Compute(_) => "compute",
        OpKind::Scan(_) => "scan",
        OpKind::Extern(_) => "extern",
        OpKind::TensorCompute(_) => "tensor compute",
    }
}

/// The lines of a stage's node: name, kind, placement, realize region and
/// storage.
fn stage_lines(kind: &OpKind, st: &StageReport) -> Vec<String> {
    let mut lines = vec![st.name.clone(), kind_text(kind).to_string()];
    match &st.placement {
        Placement::Input => {
            lines.push(format!("shape {}", region_text(&st.region)));
        }
        Placement::Inline => lines.push("inlined".to_string()),
        p => {
            lines.push(placement_text(p));
            lines.push(format!("realize {}", region_text(&st.region)));
            lines.push(format!("allocation {}", elements_text(&st.allocation)));
        }
    }
    lines
}

/// The stage graph of `schedule` with the ranges of `report` (which must
/// be `schedule`'s): node `N` is the schedule's stage `N`, anchored as
/// `id:N` and `id:NAME`. Edges run from a producer to each stage that
/// reads it (through inlined stages, as written); a stage computed at a
/// loop of a stage it is not read by directly gets a dashed edge labelled
/// `compute_at` to that stage.
pub fn stage_graph(id: &str, schedule: &Schedule, report: &Report) -> Graph {
    let stages = schedule.stages();
    let index = |op: &te::Operation| stages.iter().position(|s| s.op().id() == op.id());
    let mut nodes = Vec::with_capacity(stages.len());
    let mut keys = Vec::with_capacity(stages.len());
    for st in stages {
        let Some(sr) = report.stage(st.name()) else {
            // A report of another schedule: draw the name only.
            nodes.push(Node::new(vec![st.name().to_string()]));
            keys.push(Some(st.name().to_string()));
            continue;
        };
        let mut node = Node::new(
            stage_lines(st.op().kind(), sr)
                .into_iter()
                .map(clip)
                .collect(),
        );
        node.fill = if st.is_placeholder() {
            INPUT_FILL
        } else if st.attach() == &Attach::Inline {
            INLINED_FILL
        } else if st.is_output() {
            OUTPUT_FILL
        } else {
            COMPUTED_FILL
        };
        if st.is_output() && !st.is_placeholder() {
            node.ink = Color::WHITE;
        }
        node.emphasised = matches!(st.attach(), Attach::At { .. });
        nodes.push(node);
        keys.push(Some(st.name().to_string()));
    }
    let mut edges: Vec<Edge> = Vec::new();
    for (c, st) in stages.iter().enumerate() {
        for t in st.op().input_tensors() {
            let Some(p) = index(t.op()) else { continue };
            if p == c || edges.iter().any(|e| e.from == p && e.to == c) {
                continue;
            }
            edges.push(Edge {
                from: p,
                to: c,
                label: None,
                dashed: false,
            });
        }
    }
    // Attach points: on the data edge to the holding stage when there is
    // one, else as a dashed edge of their own.
    for (i, st) in stages.iter().enumerate() {
        let Attach::At { parent, axis } = st.attach() else {
            continue;
        };
        let Some(p) = index(parent) else { continue };
        let label = format!("at {}", axis.name());
        match edges.iter_mut().find(|e| e.from == i && e.to == p) {
            Some(e) => e.label = Some(label),
            None => edges.push(Edge {
                from: i,
                to: p,
                label: Some(format!("compute_at {}", axis.name())),
                dashed: true,
            }),
        }
    }
    Graph::new(id, nodes, edges).keys(keys)
}

/// The legend of the stage graph.
pub fn stage_graph_legend() -> Legend {
    Legend::new(vec![
        LegendEntry {
            fill: OUTPUT_FILL,
            label: "output stage".to_string(),
        },
        LegendEntry {
            fill: COMPUTED_FILL,
            label: "computed stage".to_string(),
        },
        LegendEntry {
            fill: INLINED_FILL,
            label: "inlined stage".to_string(),
        },
        LegendEntry {
            fill: INPUT_FILL,
            label: "input".to_string(),
        },
    ])
}

/// The stage graph as a whole picture: a title, the graph (anchors
/// `stages:N` and `stages:NAME`), a note on the notation and the legend.
pub fn stage_graph_picture(schedule: &Schedule, report: &Report) -> Drawing {
    render(&stage_graph_panel(schedule, report))
}

/// [`stage_graph_picture`] as a panel, to put beside other pictures.
pub(crate) fn stage_graph_panel(schedule: &Schedule, report: &Report) -> Column {
    let mut col = Column::new(10.0);
    col.push(Text::title("Stage graph (producer above consumer)"));
    col.push(stage_graph("stages", schedule, report));
    col.push(Text::new(
        "ranges are [min, extent); a thick outline and `at X` mark a stage computed at loop X",
        crate::svg::TextStyle::LABEL,
    ));
    col.push(stage_graph_legend());
    col
}
