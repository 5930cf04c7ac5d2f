//! The read graph of a set of operations (`te.schedule.CreateReadGraph`)
//! and its post-order (`te.schedule.PostDFSOrder`).

use crate::error::{Result, TeError};
use crate::operation::{OpId, Operation, Tensor};
use std::collections::{HashMap, HashSet};

/// For every operation the roots depend on, the tensors it reads (TVM's
/// `ReadGraph`, a map from operation to its input tensors).
#[derive(Clone, Debug, Default)]
pub struct ReadGraph {
    reads: HashMap<OpId, Vec<Tensor>>,
    /// The operations in the order they were reached (TVM's depth-first
    /// order from the last root).
    ops: Vec<Operation>,
}

impl ReadGraph {
    /// The tensors `op` reads, each once in order of first use; `None`
    /// when `op` is not in the graph.
    pub fn reads(&self, op: &Operation) -> Option<&[Tensor]> {
        self.reads.get(&op.id()).map(Vec::as_slice)
    }

    /// Every operation of the graph.
    pub fn operations(&self) -> &[Operation] {
        &self.ops
    }

    /// How many operations the graph has.
    pub fn len(&self) -> usize {
        self.ops.len()
    }

    /// Whether the graph has no operation.
    pub fn is_empty(&self) -> bool {
        self.ops.is_empty()
    }
}

/// `te.schedule.CreateReadGraph(roots)`: the roots and every operation
/// they read, directly or not, each with the tensors it reads.
///
/// ```
/// use tir::DataType;
/// let a = te::placeholder([8], "A", DataType::Float32).unwrap();
/// let b = te::compute_named([8], &["i"], |i| a.at([&i[0]]) + 1.0, "B").unwrap();
/// let g = te::create_read_graph(&[b.op().clone()]);
/// assert_eq!(g.len(), 2);
/// assert_eq!(g.reads(b.op()).unwrap(), &[a.clone()]);
/// assert_eq!(g.reads(a.op()).unwrap(), &[]);
/// let order = te::post_order_dfs(&[b.op().clone()], &g).unwrap();
/// assert_eq!(order, vec![a.op().clone(), b.op().clone()]);
/// ```
pub fn create_read_graph(roots: &[Operation]) -> ReadGraph {
    let mut g = ReadGraph::default();
    let mut visited: HashSet<OpId> = roots.iter().map(Operation::id).collect();
    let mut stack: Vec<Operation> = roots.to_vec();
    while let Some(op) = stack.pop() {
        let deps = op.input_tensors();
        for t in &deps {
            if visited.insert(t.op().id()) {
                stack.push(t.op().clone());
            }
        }
        g.reads.insert(op.id(), deps);
        g.ops.push(op);
    }
    g
}

/// `te.schedule.PostDFSOrder(roots, g)`: the operations reachable from
/// `roots` in `g`, each after everything it reads, in depth-first order
/// of the roots and of each operation's reads. An operation missing from
/// `g` is an error.
pub fn post_order_dfs(roots: &[Operation], g: &ReadGraph) -> Result<Vec<Operation>> {
    let mut visited: HashSet<OpId> = HashSet::new();
    let mut order = Vec::new();
    // (operation, how many of its reads were visited); iterative so long
    // chains do not exhaust the stack.
    for root in roots {
        if !visited.insert(root.id()) {
            continue;
        }
        let mut stack: Vec<(Operation, usize)> = vec![(root.clone(), 0)];
        while let Some((op, next)) = stack.pop() {
            let reads = g.reads(&op).ok_or_else(|| {
                TeError::schedule(format!(
                    "`{}` is not in the read graph: build it with CreateReadGraph from roots that reach it",
                    op.name()
                ))
            })?;
            if let Some(t) = reads.get(next) {
                stack.push((op.clone(), next + 1));
                if visited.insert(t.op().id()) {
                    stack.push((t.op().clone(), 0));
                }
            } else {
                order.push(op);
            }
        }
    }
    Ok(order)
}
