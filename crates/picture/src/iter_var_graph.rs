//! A stage's iteration-variable hyper-graph, as seed 000 draws it: the
//! root variables at the top, each relation (split, fuse) a small node
//! with edges from the variables it reads to the ones it makes, and the
//! leaf (loop) variables filled green. Every variable carries the range
//! InferBound gave it, `[min, extent)`; a loop another stage is computed
//! at names that stage.
//!
//! TE keeps no rebase relations (lowering starts every loop at zero
//! itself), so splits and fuses are all there is to draw.

use te::{IterKind, IterVar, Relation, Report, Schedule, SplitBy, Stage};

use crate::graph::{Edge, Graph, Node};
use crate::palette::{Color, Fill, Role};
use crate::panel::{render, Column, Legend, LegendEntry, Text};
use crate::stage_graph::{clip, range_text};
use crate::svg::{Drawing, TextStyle};

/// The fill of a root variable that is not a loop.
pub const ROOT_FILL: Fill = Fill::Solid(Color::BACKGROUND);
/// The fill of a variable made by a relation that is not a loop.
pub const INNER_FILL: Fill = Fill::Solid(Color::WHITE);
/// The fill of a relation's node.
pub const RELATION_FILL: Fill = Fill::Solid(Color::SKY_BLUE);

/// The text of a relation's node.
fn relation_text(r: &Relation) -> String {
    match r {
        Relation::Split {
            by: SplitBy::Factor(f),
            ..
        } => format!("split factor={f}"),
        Relation::Split {
            by: SplitBy::NParts(p),
            ..
        } => format!("split nparts={p}"),
        Relation::Fuse { .. } => "fuse".to_string(),
        Relation::Singleton { .. } => "singleton".to_string(),
    }
}

/// The IterVar graph of the stage called `stage` in `schedule`, with the
/// ranges of `report` (`schedule`'s report); `None` when there is no such
/// stage. Node anchors are `id:N` and `id:NAME` for variables, `id:rN`
/// for relation `N`.
pub fn iter_var_graph(
    id: &str,
    schedule: &Schedule,
    report: &Report,
    stage: &str,
) -> Option<Graph> {
    let st = schedule.stages().iter().find(|s| s.name() == stage)?;
    let ranges = report.stage(stage).map_or(&[][..], |r| &r.iter_vars[..]);
    let attached: Vec<(&str, &IterVar)> = schedule
        .stages()
        .iter()
        .filter_map(|s| match s.attach() {
            te::Attach::At { parent, axis } if parent.id() == st.op().id() => {
                Some((s.name(), axis))
            }
            _ => None,
        })
        .collect();
    Some(graph_of(id, st, ranges, &attached))
}

fn graph_of(
    id: &str,
    st: &Stage,
    ranges: &[te::IterVarReport],
    attached: &[(&str, &IterVar)],
) -> Graph {
    let vars = st.all_iter_vars();
    let roots = st.op().root_iter_vars();
    let leaves = st.leaf_iter_vars();
    let mut nodes = Vec::with_capacity(vars.len() + st.relations().len());
    let mut keys = Vec::with_capacity(nodes.capacity());
    // Ranges are reported in the order of `all_iter_vars`, skipping those
    // InferBound gave none; match them up by name in that order.
    let mut next_range = 0;
    for iv in vars {
        let mut lines = vec![iv.name().to_string()];
        if let Some(k) = ranges[next_range..]
            .iter()
            .position(|r| r.name == iv.name())
        {
            let r = &ranges[next_range + k];
            lines.push(range_text(&r.min, &r.extent));
            next_range += k + 1;
        }
        if iv.kind() == IterKind::Reduce {
            lines.push("reduction".to_string());
        }
        if let Some(tag) = st.bound_thread(iv) {
            lines.push(format!("bound to {}", tag.name()));
        }
        let here: Vec<&str> = attached
            .iter()
            .filter(|(_, a)| *a == iv)
            .map(|(s, _)| *s)
            .collect();
        if !here.is_empty() {
            lines.push(format!("{} computed here", here.join(", ")));
        }
        let mut node = Node::new(lines.into_iter().map(clip).collect());
        if leaves.contains(iv) {
            node.fill = Role::Leaf.fill();
            node.ink = Role::Leaf.ink();
        } else if roots.contains(iv) {
            node.fill = ROOT_FILL;
        } else {
            node.fill = INNER_FILL;
        }
        node.emphasised = !here.is_empty();
        nodes.push(node);
        keys.push(Some(iv.name().to_string()));
    }
    let at = |iv: &IterVar| vars.iter().position(|v| v == iv);
    let mut edges = Vec::new();
    for (k, r) in st.relations().iter().enumerate() {
        let rel = nodes.len();
        let mut node = Node::new(vec![relation_text(r)]);
        node.small = true;
        node.fill = RELATION_FILL;
        nodes.push(node);
        keys.push(Some(format!("r{k}")));
        let (ins, outs): (Vec<&IterVar>, Vec<(&IterVar, &str)>) = match r {
            Relation::Split {
                parent,
                outer,
                inner,
                ..
            } => (vec![parent], vec![(outer, "outer"), (inner, "inner")]),
            Relation::Fuse {
                outer,
                inner,
                fused,
            } => (vec![outer, inner], vec![(fused, "fused")]),
            Relation::Singleton { iter } => (vec![], vec![(iter, "iter")]),
        };
        for v in ins.into_iter().filter_map(at) {
            edges.push(Edge {
                from: v,
                to: rel,
                label: None,
                dashed: false,
            });
        }
        for (v, label) in outs {
            if let Some(v) = at(v) {
                edges.push(Edge {
                    from: rel,
                    to: v,
                    label: Some(label.to_string()),
                    dashed: false,
                });
            }
        }
    }
    Graph::new(id, nodes, edges).keys(keys)
}

/// The legend of an IterVar graph.
pub fn iter_var_legend() -> Legend {
    Legend::new(vec![
        LegendEntry::role(Role::Leaf),
        LegendEntry {
            fill: ROOT_FILL,
            label: "root variable".to_string(),
        },
        LegendEntry {
            fill: INNER_FILL,
            label: "made by a relation".to_string(),
        },
        LegendEntry {
            fill: RELATION_FILL,
            label: "relation".to_string(),
        },
    ])
}

/// The IterVar graph of stage `stage` as a whole picture: a title, the
/// graph (anchors `STAGE:N`, `STAGE:NAME` and `STAGE:rN`) and the legend;
/// `None` when the schedule has no such stage.
pub fn iter_var_picture(schedule: &Schedule, report: &Report, stage: &str) -> Option<Drawing> {
    iter_var_panel(schedule, report, stage).map(|p| render(&p))
}

/// [`iter_var_picture`] as a panel.
pub(crate) fn iter_var_panel(schedule: &Schedule, report: &Report, stage: &str) -> Option<Column> {
    let graph = iter_var_graph(stage, schedule, report, stage)?;
    let mut col = Column::new(10.0);
    col.push(Text::title(&format!(
        "IterVar graph of {stage} (roots at the top, ranges [min, extent))"
    )));
    col.push(graph);
    col.push(Text::new(
        "a thick outline marks a loop other stages are computed at",
        TextStyle::LABEL,
    ));
    col.push(iter_var_legend());
    Some(col)
}
