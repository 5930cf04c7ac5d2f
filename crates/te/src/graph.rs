//! The stage graph of a schedule: bodies with inlined stages substituted,
//! who consumes whom, and attach paths (TVM's `graph.cc`).

use crate::error::{Result, TeError};
use crate::inline::Inliner;
use crate::iter_var::IterVar;
use crate::operation::OpId;
use crate::schedule::{Attach, Schedule};
use crate::value::Value;

/// The scopes that enclose a stage, innermost first: the loops of its
/// parent from the attach axis outwards, then the parent's own path.
/// Stored as one link per stage so a chain of `n` attached stages costs
/// `O(n)`, not `O(n^2)`.
#[derive(Clone, Debug, Default)]
pub(crate) struct AttachLink {
    /// The parent's loops from the outermost to the attach axis, listed
    /// innermost (the attach axis) first.
    pub local: Vec<IterVar>,
    /// The stage this one is attached in, if any.
    pub parent: Option<usize>,
}

/// Everything InferBound and lowering need to know about the stage graph.
pub(crate) struct Graph {
    /// Per stage: the body with inlined producers substituted (`None` for
    /// placeholders and inlined stages).
    pub bodies: Vec<Option<Value>>,
    /// Per stage: the bodies of its outputs after the first, inlined
    /// producers substituted (empty for a stage of one output).
    pub more_bodies: Vec<Vec<Value>>,
    /// Per stage: the stages that read it (inlined stages excluded).
    pub consumers: Vec<Vec<usize>>,
    /// Per stage: its attach link.
    pub attach: Vec<AttachLink>,
}

impl Graph {
    pub fn new(s: &Schedule) -> Result<Graph> {
        let stages = s.stages();
        let mut index = arith::IdMap::with_capacity_and_hasher(stages.len(), Default::default());
        for (i, st) in stages.iter().enumerate() {
            index.insert(st.op().id(), i);
        }
        let any_inline = stages.iter().any(|st| st.attach() == &Attach::Inline);
        // Only stages that are not inlined get a body: an inlined stage is
        // expanded where it is read, so a chain of inlined stages is never
        // built once per link.
        let inliner = Inliner::new(stages, &index);
        let bodies: Vec<Option<Value>> = stages
            .iter()
            .enumerate()
            .map(|(i, st)| {
                if !any_inline {
                    // Without inlined stages every body stays as written.
                    st.op().as_compute().map(|c| c.body.clone())
                } else if st.attach() == &Attach::Inline {
                    None
                } else {
                    inliner.body(i)
                }
            })
            .collect();
        let more_bodies: Vec<Vec<Value>> = stages
            .iter()
            .enumerate()
            .map(|(i, st)| {
                (1..st.op().num_outputs())
                    .filter_map(|k| inliner.body_of_output(i, k))
                    .collect()
            })
            .collect();
        let mut consumers = vec![Vec::new(); stages.len()];
        for (c, st) in stages.iter().enumerate() {
            if st.attach() == &Attach::Inline {
                continue;
            }
            let mut add = |t: &crate::operation::Tensor| {
                let p = index[&t.op().id()];
                if !consumers[p].contains(&c) {
                    consumers[p].push(c);
                }
            };
            match &bodies[c] {
                Some(b) => {
                    for b in std::iter::once(b).chain(&more_bodies[c]) {
                        b.for_each_access(&mut |t, _| add(t));
                    }
                }
                // Scans, extern and tensor compute operations read their
                // inputs whole or by their own rules, not through a body.
                None => {
                    let inputs = st.op().input_tensors();
                    if let Some(t) = inputs.iter().find(|t| {
                        stages[index[&t.op().id()]].attach() == &Attach::Inline
                            && crate::tensor_compute_of(st.op()).is_some()
                    }) {
                        return Err(TeError::schedule(format!(
                            "`{}` is inlined, but `{}` passes it to a tensor intrinsic, which \
                             needs it stored: compute `{}` at the root or at a loop of `{}`",
                            t.name(),
                            st.name(),
                            t.name(),
                            st.name()
                        )));
                    }
                    inputs.iter().for_each(add)
                }
            }
        }
        let attach = attach_links(s, &index)?;
        Ok(Graph {
            bodies,
            more_bodies,
            consumers,
            attach,
        })
    }

    /// Iterates over the attach path of stage `i`, innermost scope first.
    pub fn attach_path(&self, i: usize) -> impl Iterator<Item = &IterVar> {
        let mut link = Some(&self.attach[i]);
        let mut pos = 0;
        std::iter::from_fn(move || loop {
            let l = link?;
            if pos < l.local.len() {
                pos += 1;
                return Some(&l.local[pos - 1]);
            }
            link = l.parent.map(|p| &self.attach[p]);
            pos = 0;
        })
    }
}

fn attach_links(s: &Schedule, index: &arith::IdMap<OpId, usize>) -> Result<Vec<AttachLink>> {
    let stages = s.stages();
    let mut links = vec![AttachLink::default(); stages.len()];
    for (i, st) in stages.iter().enumerate() {
        if let Attach::At { parent, axis } = st.attach() {
            let p = *index.get(&parent.id()).ok_or_else(|| {
                TeError::schedule(format!(
                    "`{}` is attached to `{}`, which is not in the schedule",
                    st.op().name(),
                    parent.name()
                ))
            })?;
            if p == i {
                return Err(TeError::schedule(format!(
                    "cannot compute `{}` at one of its own loops: attach it to a consumer",
                    st.op().name()
                )));
            }
            if stages[p].is_placeholder() {
                return Err(TeError::schedule(format!(
                    "cannot compute `{}` at placeholder `{}`, which has no loops",
                    st.op().name(),
                    parent.name()
                )));
            }
            if stages[p].attach() == &Attach::Inline {
                return Err(TeError::schedule(format!(
                    "`{}` is computed at `{}`, which is inlined: attach it to a stage that has loops",
                    st.op().name(),
                    parent.name()
                )));
            }
            if st.is_output() {
                return Err(TeError::schedule(format!(
                    "`{}` is an output and must be computed at the root",
                    st.op().name()
                )));
            }
            let leaves = stages[p].leaf_iter_vars();
            let pos = leaves.iter().position(|l| l == axis).ok_or_else(|| {
                TeError::schedule(format!(
                    "`{}` is computed at `{}`, which is not a loop of `{}`: pass one of {}",
                    st.op().name(),
                    axis.name(),
                    parent.name(),
                    leaves
                        .iter()
                        .map(|l| format!("`{}`", l.name()))
                        .collect::<Vec<_>>()
                        .join(", ")
                ))
            })?;
            links[i] = AttachLink {
                local: leaves[..=pos].iter().rev().cloned().collect(),
                parent: Some(p),
            };
        }
    }
    // Reject cycles (`A` at `B` and `B` at `A`): follow each chain with a
    // colour per stage so every stage is walked once.
    let mut state = vec![0u8; stages.len()]; // 0 new, 1 on the current walk, 2 done
    for start in 0..stages.len() {
        let mut walk = Vec::new();
        let mut cur = Some(start);
        while let Some(c) = cur {
            match state[c] {
                2 => break,
                1 => {
                    return Err(TeError::schedule(format!(
                        "compute_at forms a cycle through `{}`: a stage cannot be computed inside itself",
                        stages[c].op().name()
                    )))
                }
                _ => {
                    state[c] = 1;
                    walk.push(c);
                    cur = links[c].parent;
                }
            }
        }
        for c in walk {
            state[c] = 2;
        }
    }
    Ok(links)
}
