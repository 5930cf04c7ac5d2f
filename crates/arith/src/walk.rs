//! Iterative bottom-up walks over expression trees.
//!
//! The parser builds long sums and products as left-deep chains (a sum of
//! 50,000 terms is 50,000 nodes deep), so every analysis that visits all
//! nodes runs on an explicit stack, never on recursion proportional to the
//! depth. Shared subtrees are visited once: results are memoised by node
//! identity.

use crate::expr::Expr;
use crate::IdMap;

/// Folds `root` bottom-up: `f(node, child_results)` for every node, each
/// distinct node (by identity) once. `memo` may hold results of earlier
/// walks with the same `f`; it holds every node of `root` afterwards (the
/// handles in it keep the nodes alive, so identities stay valid).
pub(crate) fn fold<T: Clone>(
    root: &Expr,
    memo: &mut IdMap<usize, (Expr, T)>,
    mut f: impl FnMut(&Expr, &[T]) -> T,
) -> T {
    if let Some((_, v)) = memo.get(&root.node_id()) {
        return v.clone();
    }
    // (node, children pushed)
    let mut stack: Vec<(Expr, bool)> = vec![(root.clone(), false)];
    let mut args: smallvec::SmallVec<[T; 3]> = smallvec::SmallVec::new();
    while let Some((e, expanded)) = stack.pop() {
        if memo.contains_key(&e.node_id()) {
            continue;
        }
        if !expanded {
            stack.push((e.clone(), true));
            for c in e.children() {
                if !memo.contains_key(&c.node_id()) {
                    stack.push((c.clone(), false));
                }
            }
            continue;
        }
        args.clear();
        for c in e.children() {
            args.push(memo[&c.node_id()].1.clone());
        }
        let v = f(&e, &args);
        memo.insert(e.node_id(), (e, v));
    }
    memo[&root.node_id()].1.clone()
}

/// Whether `pred` holds for some node of `e`, without recursion. Each
/// distinct node of more than `SHARED_WALK_NODES` nodes is tested once;
/// smaller ones may be tested once per use, so the walk takes time in the
/// size of the graph, not of the tree it stands for.
pub(crate) fn any_node(e: &Expr, mut pred: impl FnMut(&Expr) -> bool) -> bool {
    // Only large nodes are remembered: a small one costs less to walk
    // again than to record (as `Expr`'s own walks do), and a graph that
    // shares nodes many times is large where it shares.
    let mut seen: crate::IdSet<usize> = Default::default();
    let mut stack: Vec<&Expr> = vec![e];
    while let Some(n) = stack.pop() {
        if n.node_count() > crate::expr::SHARED_WALK_NODES as usize && !seen.insert(n.node_id()) {
            continue;
        }
        if pred(n) {
            return true;
        }
        stack.extend(n.children());
    }
    false
}

/// `e` with variables replaced where `f` gives a replacement, rebuilt
/// without recursion; shared subtrees are rebuilt once.
pub(crate) fn substitute(e: &Expr, f: &mut impl FnMut(&crate::expr::Var) -> Option<Expr>) -> Expr {
    let mut memo: IdMap<usize, (Expr, Expr)> = IdMap::default();
    fold(e, &mut memo, |n, kids: &[Expr]| match n.as_var() {
        Some(v) => f(v).unwrap_or_else(|| n.clone()),
        None => n.with_children(kids),
    })
}
