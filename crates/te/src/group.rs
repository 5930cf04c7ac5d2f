//! Schedule groups (`s.create_group(outputs, inputs, include_inputs)`):
//! a set of stages placed together. Computing a group at a loop computes
//! each of its stages there, except those already computed inside
//! another stage of the group, as TVM's group stage does.

use crate::error::{Result, TeError};
use crate::iter_var::IterVar;
use crate::operation::{OpId, Operation, Tensor};
use crate::schedule::{Attach, Schedule};
use std::collections::{HashMap, HashSet};

/// A group of stages made by [`Schedule::create_group`]: a handle into
/// the schedule that made it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Group(usize);

/// What a schedule knows of one group.
#[derive(Clone, Debug)]
pub(crate) struct GroupState {
    /// The member operations, producers before consumers.
    members: Vec<Operation>,
    /// Where the group is computed: its members that are not computed
    /// inside another member are computed there.
    attach: Attach,
}

impl Schedule {
    /// `s.create_group(outputs, inputs, include_inputs=False)`: groups the
    /// operations between `inputs` and `outputs`: those that `outputs`
    /// reach and that reach one of `inputs` (with `inputs` themselves when
    /// `include_inputs`). A member computed at a loop of a stage outside
    /// the group is computed at the root again, as TVM does, so that the
    /// group stays together. A stage belongs to one group at most.
    ///
    /// ```
    /// use tir::DataType;
    /// let a = te::placeholder([8], "A", DataType::Float32).unwrap();
    /// let b = te::compute_named([8], &["i"], |i| a.at([&i[0]]) + 1.0, "B").unwrap();
    /// let c = te::compute_named([8], &["i"], |i| b.at([&i[0]]) * 2.0, "C").unwrap();
    /// let d = te::compute_named([8], &["i"], |i| c.at([&i[0]]) - 1.0, "D").unwrap();
    /// let mut s = te::create_schedule(&[d.clone()]);
    /// let g = s.create_group(&[c.clone()], &[a.clone()], false).unwrap();
    /// assert_eq!(s.group_members(g), &[b.op().clone(), c.op().clone()]);
    /// s.compute_group_at(g, &d, &d.op().axis()[0]).unwrap();
    /// assert!(te::check(&s, &[a, d], &Default::default(), 1).unwrap().is_clean(0.0));
    /// ```
    pub fn create_group(
        &mut self,
        outputs: &[Tensor],
        inputs: &[Tensor],
        include_inputs: bool,
    ) -> Result<Group> {
        self.touch();
        let boundary: HashSet<OpId> = inputs.iter().map(|t| t.op().id()).collect();
        let mut reaches: HashMap<OpId, bool> = HashMap::new();
        let mut members: Vec<Operation> = Vec::new();
        for t in outputs {
            self.collect_subgraph(
                t.op(),
                &boundary,
                include_inputs,
                &mut reaches,
                &mut members,
            )?;
        }
        let ids: HashSet<OpId> = members.iter().map(Operation::id).collect();
        for (k, g) in self.groups.iter().enumerate() {
            if let Some(op) = g.members.iter().find(|m| ids.contains(&m.id())) {
                return Err(TeError::schedule(format!(
                    "create_group: `{}` is already in group {k}; nested or overlapping groups are not supported",
                    op.name()
                )));
            }
        }
        // Keep the group together: a member computed inside a stage
        // outside the group goes back to the root.
        for op in &members {
            let i = self.stage_index(op)?;
            if let Attach::At { parent, .. } = self.stages()[i].attach() {
                if !ids.contains(&parent.id()) {
                    self.set_attach(i, Attach::Root);
                }
            }
        }
        members.sort_by_key(|m| self.stage_index(m).unwrap_or(usize::MAX));
        self.groups.push(GroupState {
            members,
            attach: Attach::Root,
        });
        Ok(Group(self.groups.len() - 1))
    }

    /// The operations of group `g`, in schedule order.
    pub fn group_members(&self, g: Group) -> &[Operation] {
        self.groups.get(g.0).map_or(&[], |s| s.members.as_slice())
    }

    /// `s[g].compute_at(s[parent], axis)`: computes every member of the
    /// group that is not computed inside another member (and is not an
    /// input) at the loop `axis` of `parent`.
    pub fn compute_group_at(
        &mut self,
        g: Group,
        parent: &impl AsRef<Operation>,
        axis: &IterVar,
    ) -> Result<()> {
        let parent = parent.as_ref().clone();
        let p = self.stage_index(&parent)?;
        let state = self.group_state(g)?;
        if state.members.contains(&parent) {
            return Err(TeError::schedule(format!(
                "cannot compute a group at `{}`, one of its own stages",
                parent.name()
            )));
        }
        let axis = crate::normalize::attach_target(&self.stages()[p], axis);
        self.place_group(g, Attach::At { parent, axis })
    }

    /// `s[g].compute_root()`: the members the group placed are computed at
    /// the root again.
    pub fn compute_group_root(&mut self, g: Group) -> Result<()> {
        self.group_state(g)?;
        self.place_group(g, Attach::Root)
    }

    /// A stage added next to `existing` (a cache or factored stage) joins
    /// its group, if any, as TVM's new stages take their origin's group.
    pub(crate) fn join_group_of(&mut self, existing: &Operation, new: &Operation) {
        for g in &mut self.groups {
            if g.members.contains(existing) {
                g.members.push(new.clone());
            }
        }
        let order: HashMap<OpId, usize> = self
            .stages()
            .iter()
            .enumerate()
            .map(|(i, st)| (st.op().id(), i))
            .collect();
        for g in &mut self.groups {
            g.members
                .sort_by_key(|m| order.get(&m.id()).copied().unwrap_or(usize::MAX));
        }
    }

    fn group_state(&self, g: Group) -> Result<&GroupState> {
        self.groups
            .get(g.0)
            .ok_or_else(|| TeError::schedule("the group is not part of this schedule".to_string()))
    }

    /// Places the members that follow the group (those at the root or at
    /// the group's previous place) at `attach`.
    fn place_group(&mut self, g: Group, attach: Attach) -> Result<()> {
        self.touch();
        let previous = self.groups[g.0].attach.clone();
        let members = self.groups[g.0].members.clone();
        for op in &members {
            let i = self.stage_index(op)?;
            let st = &self.stages()[i];
            if st.is_placeholder() {
                continue;
            }
            let current = st.attach();
            if current == &Attach::Root || current == &previous {
                self.set_attach(i, attach.clone());
            }
        }
        self.groups[g.0].attach = attach;
        Ok(())
    }

    /// TVM's `GetSubGraph`: whether `op` reaches the boundary, adding it
    /// (after what it reads) to `out` if so. Iterative over the reads.
    fn collect_subgraph(
        &self,
        root: &Operation,
        boundary: &HashSet<OpId>,
        include_inputs: bool,
        reaches: &mut HashMap<OpId, bool>,
        out: &mut Vec<Operation>,
    ) -> Result<bool> {
        // (operation, reads, next read to visit, whether any reached)
        let mut stack: Vec<(Operation, Vec<Tensor>, usize, bool)> = Vec::new();
        let enter = |op: &Operation,
                     reaches: &mut HashMap<OpId, bool>,
                     out: &mut Vec<Operation>,
                     stack: &mut Vec<(Operation, Vec<Tensor>, usize, bool)>|
         -> Result<Option<bool>> {
            if let Some(&r) = reaches.get(&op.id()) {
                return Ok(Some(r));
            }
            if boundary.contains(&op.id()) {
                reaches.insert(op.id(), true);
                if include_inputs {
                    out.push(op.clone());
                }
                return Ok(Some(true));
            }
            reaches.insert(op.id(), false);
            let i = self.stage_index(op)?;
            let reads = self.stages()[i].op().input_tensors();
            stack.push((op.clone(), reads, 0, false));
            Ok(None)
        };
        if let Some(r) = enter(root, reaches, out, &mut stack)? {
            return Ok(r);
        }
        let mut last = false;
        while let Some(top) = stack.last_mut() {
            if top.2 < top.1.len() {
                let t = top.1[top.2].op().clone();
                top.2 += 1;
                if let Some(r) = enter(&t, reaches, out, &mut stack)? {
                    if let Some(top) = stack.last_mut() {
                        top.3 |= r;
                    }
                }
                continue;
            }
            let (op, _, _, any) = stack.pop().expect("not empty");
            reaches.insert(op.id(), any);
            if any {
                out.push(op);
            }
            last = any;
            if let Some(top) = stack.last_mut() {
                top.3 |= any;
            }
        }
        Ok(last)
    }
}
