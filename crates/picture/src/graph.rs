//! Directed graphs drawn in layers: the stage graph (which stage reads
//! which) and a stage's iteration-variable relations (split, fuse, rebase).
//!
//! Nodes go to the layer of their longest path from a source; within a
//! layer they are ordered by the mean position of their predecessors (one
//! barycentre sweep), which keeps chains straight without a search. An
//! edge that skips layers runs through a slot of its own in each layer it
//! crosses, so it bends around nodes rather than through them. Every step
//! is linear in nodes and edges times the layers they cross.

use crate::palette::{Color, Fill};
use crate::panel::Panel;
use crate::svg::{Stroke, Svg, TextStyle};

/// A node: lines of text in a box.
#[derive(Clone, Debug, PartialEq)]
pub struct Node {
    /// The lines drawn in the box (the first in bold).
    pub lines: Vec<String>,
    /// The box's fill.
    pub fill: Fill,
    /// Text colour.
    pub ink: Color,
    /// A small box (a relation such as `split`) rather than a full node.
    pub small: bool,
    /// Drawn with a thick outline (an attach point, a chosen stage).
    pub emphasised: bool,
}

impl Node {
    /// A plain node with these lines.
    pub fn new(lines: Vec<String>) -> Node {
        Node {
            lines,
            fill: Fill::Solid(Color::BACKGROUND),
            ink: Color::INK,
            small: false,
            emphasised: false,
        }
    }
}

/// An edge from one node to another.
#[derive(Clone, Debug, PartialEq)]
pub struct Edge {
    /// The node it leaves.
    pub from: usize,
    /// The node it enters.
    pub to: usize,
    /// Text drawn at its middle.
    pub label: Option<String>,
    /// Dashed (a relation other than data flow, such as attachment).
    pub dashed: bool,
}

/// A graph laid out in layers, top to bottom.
pub struct Graph {
    nodes: Vec<Node>,
    edges: Vec<Edge>,
    /// Per edge, the route slots it passes through, top to bottom (empty
    /// for an edge between adjacent layers).
    routes: Vec<Vec<usize>>,
    /// `(x, y, w, h)` per node, then per route slot, relative to the panel.
    boxes: Vec<(f64, f64, f64, f64)>,
    size: (f64, f64),
    id: String,
    /// Further anchor names per node (`id:KEY`), see [`Graph::keys`].
    keys: Vec<Option<String>>,
}

const LAYER_GAP: f64 = 44.0;
const NODE_GAP: f64 = 18.0;
const PAD: f64 = 6.0;
/// The width a route slot takes in a layer.
const ROUTE_WIDTH: f64 = 6.0;

fn node_size(n: &Node) -> (f64, f64) {
    let style = if n.small {
        TextStyle::LABEL
    } else {
        TextStyle::BODY
    };
    let w = n
        .lines
        .iter()
        .map(|l| style.width_of(l))
        .fold(0.0, f64::max)
        + 2.0 * PAD;
    let h = n.lines.len().max(1) as f64 * style.size * 1.3 + 2.0 * PAD - 2.0;
    (w.max(24.0), h)
}

impl Graph {
    /// Lays out `nodes` and `edges` (edges naming missing nodes are
    /// dropped). `id` names the anchors: `id:N` at the centre of node `N`.
    pub fn new(id: &str, nodes: Vec<Node>, edges: Vec<Edge>) -> Graph {
        let n = nodes.len();
        let edges: Vec<Edge> = edges
            .into_iter()
            .filter(|e| e.from < n && e.to < n && e.from != e.to)
            .collect();
        // Longest-path layers by Kahn's order; nodes on a cycle end in the
        // layer after everything else.
        let mut indegree = vec![0usize; n];
        let mut out: Vec<Vec<usize>> = vec![Vec::new(); n];
        let mut preds: Vec<Vec<usize>> = vec![Vec::new(); n];
        for e in &edges {
            indegree[e.to] += 1;
            out[e.from].push(e.to);
            preds[e.to].push(e.from);
        }
        let mut layer = vec![0usize; n];
        let mut queue: Vec<usize> = (0..n).filter(|&v| indegree[v] == 0).collect();
        let mut done = vec![false; n];
        let mut head = 0;
        while head < queue.len() {
            let v = queue[head];
            head += 1;
            done[v] = true;
            for &w in &out[v] {
                layer[w] = layer[w].max(layer[v] + 1);
                indegree[w] -= 1;
                if indegree[w] == 0 {
                    queue.push(w);
                }
            }
        }
        let deepest = layer.iter().copied().max().unwrap_or(0);
        for v in 0..n {
            if !done[v] {
                layer[v] = deepest + 1;
            }
        }
        let layers = layer.iter().copied().max().map_or(0, |m| m + 1);
        // An edge that crosses layers passes through one slot per layer it
        // crosses (a vertex of no size beyond the line's), so the layout
        // makes room for it and it never runs through a node.
        let mut vertex_layer = layer.clone();
        let mut routes: Vec<Vec<usize>> = vec![Vec::new(); edges.len()];
        for (k, e) in edges.iter().enumerate() {
            let (lf, lt) = (layer[e.from], layer[e.to]);
            if lt <= lf + 1 {
                continue;
            }
            let mut prev = e.from;
            for l in lf + 1..lt {
                let v = vertex_layer.len();
                vertex_layer.push(l);
                preds.push(vec![prev]);
                routes[k].push(v);
                prev = v;
            }
            // The consumer is ordered by where the route arrives from.
            if let Some(p) = preds[e.to].iter_mut().find(|p| **p == e.from) {
                *p = prev;
            }
        }
        let vertices = vertex_layer.len();
        let mut members: Vec<Vec<usize>> = vec![Vec::new(); layers];
        for v in 0..vertices {
            members[vertex_layer[v]].push(v);
        }
        // One barycentre sweep, top to bottom; a layer reads the positions
        // of the layers above it, so it is indexed rather than iterated.
        let mut position = vec![0.0f64; vertices];
        #[allow(clippy::needless_range_loop)]
        for l in 0..layers {
            if l > 0 {
                let bary = |v: usize| -> f64 {
                    let p = &preds[v];
                    if p.is_empty() {
                        v as f64
                    } else {
                        p.iter().map(|&u| position[u]).sum::<f64>() / p.len() as f64
                    }
                };
                let mut keyed: Vec<(f64, usize)> =
                    members[l].iter().map(|&v| (bary(v), v)).collect();
                keyed.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
                members[l] = keyed.into_iter().map(|(_, v)| v).collect();
            }
            for (i, &v) in members[l].iter().enumerate() {
                position[v] = i as f64;
            }
        }
        let mut sizes: Vec<(f64, f64)> = nodes.iter().map(node_size).collect();
        sizes.resize(vertices, (ROUTE_WIDTH, 0.0));
        let widths: Vec<f64> = members
            .iter()
            .map(|m| {
                m.iter().map(|&v| sizes[v].0).sum::<f64>()
                    + NODE_GAP * m.len().saturating_sub(1) as f64
            })
            .collect();
        let width = widths.iter().copied().fold(0.0, f64::max);
        let mut boxes = vec![(0.0, 0.0, 0.0, 0.0); vertices];
        let mut y = 0.0;
        for (l, m) in members.iter().enumerate() {
            let height = m.iter().map(|&v| sizes[v].1).fold(0.0, f64::max);
            let mut x = (width - widths[l]) / 2.0;
            for &v in m {
                let (w, h) = sizes[v];
                boxes[v] = if v < n {
                    (x, y + (height - h) / 2.0, w, h)
                } else {
                    // A route's slot spans its whole layer.
                    (x, y, w, height)
                };
                x += w + NODE_GAP;
            }
            y += height + LAYER_GAP;
        }
        let height = (y - LAYER_GAP).max(0.0);
        Graph {
            nodes,
            edges,
            routes,
            boxes,
            size: (width, height),
            id: id.to_string(),
            keys: Vec::new(),
        }
    }

    /// Names each node's centre also `id:KEY` (a stage's or a variable's
    /// name), so tests and links find a node without knowing its index;
    /// `None` and nodes past the end of `keys` keep only `id:N`.
    pub fn keys(mut self, keys: Vec<Option<String>>) -> Graph {
        self.keys = keys;
        self
    }
}

impl Panel for Graph {
    fn size(&self) -> (f64, f64) {
        self.size
    }

    fn draw(&self, svg: &mut Svg, x: f64, y: f64) {
        svg.begin_group(&format!("graph {}", self.id));
        for (e, route) in self.edges.iter().zip(&self.routes) {
            let (fx, fy, fw, fh) = self.boxes[e.from];
            let (tx, ty, tw, _) = self.boxes[e.to];
            // Bottom of the producer, down each route slot, top of the
            // consumer.
            let mut points = vec![(x + fx + fw / 2.0, y + fy + fh)];
            for &r in route {
                let (rx, ry, rw, rh) = self.boxes[r];
                points.push((x + rx + rw / 2.0, y + ry));
                points.push((x + rx + rw / 2.0, y + ry + rh));
            }
            points.push((x + tx + tw / 2.0, y + ty));
            let stroke = if e.dashed {
                Stroke::dashed(Color::GREY, 1.2)
            } else {
                Stroke::solid(Color::INK, 1.2)
            };
            for (i, pair) in points.windows(2).enumerate() {
                svg.line(pair[0], pair[1], stroke, i + 2 == points.len());
            }
            if let Some(l) = &e.label {
                let (from, to) = (points[0], points[1]);
                let mid = ((from.0 + to.0) / 2.0 + 4.0, (from.1 + to.1) / 2.0 + 3.0);
                svg.text(mid.0, mid.1, l, TextStyle::LABEL);
            }
        }
        for (v, node) in self.nodes.iter().enumerate() {
            let (bx, by, bw, bh) = self.boxes[v];
            let stroke = if node.emphasised {
                Stroke::solid(Color::INK, 2.5)
            } else {
                Stroke::solid(Color::GREY, 1.0)
            };
            svg.rounded_rect(
                x + bx,
                y + by,
                bw,
                bh,
                if node.small { 2.0 } else { 5.0 },
                node.fill,
                Some(stroke),
            );
            let style = if node.small {
                TextStyle::LABEL
            } else {
                TextStyle::BODY
            };
            for (i, line) in node.lines.iter().enumerate() {
                let s = TextStyle {
                    color: node.ink,
                    bold: i == 0 && !node.small,
                    ..style
                }
                .centred();
                svg.text(
                    x + bx + bw / 2.0,
                    y + by + PAD + style.size * (0.85 + 1.3 * i as f64),
                    line,
                    s,
                );
            }
            let centre = (x + bx + bw / 2.0, y + by + bh / 2.0);
            svg.anchor(format!("{}:{v}", self.id), centre.0, centre.1);
            if let Some(Some(key)) = self.keys.get(v) {
                svg.anchor(format!("{}:{key}", self.id), centre.0, centre.1);
            }
        }
        svg.end_group();
    }
}
