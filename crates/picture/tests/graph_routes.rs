//! Edges that skip layers go around the nodes between, not through them.

mod support;

use picture::{render, Color, Edge, Fill, Graph, Node};
use support::rasterize;

fn edge(from: usize, to: usize) -> Edge {
    Edge {
        from,
        to,
        label: None,
        dashed: false,
    }
}

#[test]
fn an_edge_that_skips_a_layer_does_not_cross_the_node_in_it() {
    // a -> b -> c and a -> c: a straight a -> c would run down the middle
    // of b, whose centre lies between them.
    let mut b = Node::new(vec!["b: a wide node in the middle layer".into()]);
    b.fill = Fill::Solid(Color::GREEN);
    let nodes = vec![Node::new(vec!["a".into()]), b, Node::new(vec!["c".into()])];
    let g = Graph::new("g", nodes, vec![edge(0, 1), edge(1, 2), edge(0, 2)]);
    let d = render(&g);
    let px = rasterize(&d);
    let (bx, by) = d.anchor("g:1").unwrap();
    // Nodes are drawn over edges, so an edge through b would be hidden
    // and look as if it ended there: b's row shows the long edge beside
    // b, in ink, and b's fill unbroken.
    for dx in -40..=40 {
        assert_eq!(px.at(bx + dx as f64, by), Color::GREEN, "at dx = {dx}");
    }
    let row: Vec<Color> = (0..d.size.0 as i32).map(|x| px.at(x as f64, by)).collect();
    let green: Vec<usize> = (0..row.len()).filter(|&x| row[x] == Color::GREEN).collect();
    let (left, right) = (green[0], *green.last().unwrap());
    let dark = |c: &Color| c.0 < 0x80 && c.1 < 0x80 && c.2 < 0x80;
    let beside = row[..left.saturating_sub(3)]
        .iter()
        .chain(&row[(right + 4).min(row.len())..])
        .any(dark);
    assert!(beside, "the edge a -> c is not drawn beside b");
}
