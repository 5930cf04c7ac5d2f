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

/// The groups of a schedule.
#[derive(Clone, Debug, Default)]
pub(crate) struct Groups {
    list: Vec<GroupState>,
    /// The placement a group gave each stage it placed, so that placing
    /// the group again moves only the stages nothing else placed since.
    placed: HashMap<OpId, Attach>,
}

/// What a schedule knows of one group.
#[derive(Clone, Debug)]
struct GroupState {
    /// Every member operation, those of nested groups included.
    members: Vec<Operation>,
    ids: HashSet<OpId>,
    /// Where the group is computed (`Root`: where its enclosing group is,
    /// or the root).
    attach: Attach,
    /// Whether the schedule made it for a scan's body, rather than
    /// `create_group`.
    of_scan: bool,
}

impl Groups {
    /// The group of a scan's body (`members`, the operations between its
    /// states and inputs and its updates), computed at the scan's update
    /// (`attach`), as TVM's schedule makes it for every scan.
    pub(crate) fn add_scan_group(
        &mut self,
        mut members: Vec<Operation>,
        index: &arith::IdMap<OpId, usize>,
        attach: Attach,
    ) {
        members.sort_by_key(|m| index.get(&m.id()).copied().unwrap_or(usize::MAX));
        let ids = members.iter().map(Operation::id).collect();
        self.list.push(GroupState {
            members,
            ids,
            attach,
            of_scan: true,
        });
    }

    /// Whether a group was made by `create_group` (the groups of scan
    /// bodies come back with the schedule's operations).
    pub(crate) fn any_created(&self) -> bool {
        self.list.iter().any(|g| !g.of_scan)
    }

    /// Whether group `g` is nested in group `h`: `h` has every member of
    /// `g` and more, or the same members and was made first.
    fn nested_in(&self, g: usize, h: usize) -> bool {
        let (a, b) = (&self.list[g], &self.list[h]);
        g != h && a.ids.is_subset(&b.ids) && (a.ids.len() < b.ids.len() || h < g)
    }

    /// The innermost of `candidates` (one nested in no other).
    fn innermost(&self, candidates: impl Iterator<Item = usize>) -> Option<usize> {
        let c: Vec<usize> = candidates.collect();
        c.iter()
            .copied()
            .find(|&g| !c.iter().any(|&h| self.nested_in(h, g)))
    }

    fn parent(&self, g: usize) -> Option<usize> {
        self.innermost((0..self.list.len()).filter(|&h| self.nested_in(g, h)))
    }

    fn group_of(&self, op: OpId) -> Option<usize> {
        self.innermost((0..self.list.len()).filter(|&g| self.list[g].ids.contains(&op)))
    }

    /// Where the stages of group `g` that follow it are computed: its own
    /// place, or its enclosing group's.
    fn placement(&self, g: usize) -> Attach {
        let mut cur = Some(g);
        while let Some(c) = cur {
            if self.list[c].attach != Attach::Root {
                return self.list[c].attach.clone();
            }
            cur = self.parent(c);
        }
        Attach::Root
    }
}

impl Schedule {
    /// `s.create_group(outputs, inputs, include_inputs=False)`: groups the
    /// operations between `inputs` and `outputs`: those that `outputs`
    /// reach and that reach one of `inputs` (with `inputs` themselves when
    /// `include_inputs`). Groups nest (a group may hold another whole) but
    /// must not partly overlap. A member computed at a loop of a stage
    /// outside the group is computed at the root again, as TVM does, so
    /// that the group stays together.
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
        for (k, g) in self.groups.list.iter().enumerate() {
            let shared = g.members.iter().find(|m| ids.contains(&m.id()));
            if let Some(op) = shared {
                if !ids.is_subset(&g.ids) && !g.ids.is_subset(&ids) {
                    return Err(TeError::schedule(format!(
                        "create_group: the group would share `{}` with group {k} without holding it whole or lying inside it; groups may nest but not partly overlap",
                        op.name()
                    )));
                }
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
        self.groups.list.push(GroupState {
            members,
            ids,
            attach: Attach::Root,
            of_scan: false,
        });
        self.place_groups()?;
        Ok(Group(self.groups.list.len() - 1))
    }

    /// The operations of group `g` (those of nested groups included), in
    /// schedule order.
    pub fn group_members(&self, g: Group) -> &[Operation] {
        self.groups
            .list
            .get(g.0)
            .map_or(&[], |s| s.members.as_slice())
    }

    /// Every group, in the order they were made (TVM's `s.groups`).
    pub fn groups(&self) -> Vec<Group> {
        (0..self.groups.list.len()).map(Group).collect()
    }

    /// The innermost group `op` belongs to (TVM's `s[op].group`).
    pub fn group_of(&self, op: &impl AsRef<Operation>) -> Option<Group> {
        self.groups.group_of(op.as_ref().id()).map(Group)
    }

    /// The group `g` is nested in, if any (TVM's `g.group`).
    pub fn group_parent(&self, g: Group) -> Option<Group> {
        (g.0 < self.groups.list.len())
            .then(|| self.groups.parent(g.0).map(Group))
            .flatten()
    }

    /// Where group `g` itself was computed (`Root` until
    /// [`Schedule::compute_group_at`]).
    pub fn group_attach(&self, g: Group) -> Option<&Attach> {
        self.groups.list.get(g.0).map(|s| &s.attach)
    }

    /// The stages and groups directly in `g` (TVM's `num_child_stages`).
    pub fn group_child_count(&self, g: Group) -> usize {
        let Some(state) = self.groups.list.get(g.0) else {
            return 0;
        };
        let stages = state
            .members
            .iter()
            .filter(|m| self.groups.group_of(m.id()) == Some(g.0))
            .count();
        let groups = (0..self.groups.list.len())
            .filter(|&h| self.groups.parent(h) == Some(g.0))
            .count();
        stages + groups
    }

    /// `s[g].compute_at(s[parent], axis)`: computes every member of the
    /// group that is not computed inside another member (and is not an
    /// input) at the loop `axis` of `parent`, nested groups included.
    pub fn compute_group_at(
        &mut self,
        g: Group,
        parent: &impl AsRef<Operation>,
        axis: &IterVar,
    ) -> Result<()> {
        let parent = parent.as_ref().clone();
        let p = self.stage_index(&parent)?;
        let state = self.group_state(g)?;
        if state.ids.contains(&parent.id()) {
            return Err(TeError::schedule(format!(
                "cannot compute a group at `{}`, one of its own stages",
                parent.name()
            )));
        }
        if let Some(outer) = self.groups.parent(g.0) {
            if !self.groups.list[outer].ids.contains(&parent.id()) {
                return Err(TeError::schedule(format!(
                    "cannot compute the group at `{}`, outside the group that holds it: compute it at a stage of that group",
                    parent.name()
                )));
            }
        }
        let axis = crate::normalize::attach_target(&self.stages()[p], axis);
        self.touch();
        self.groups.list[g.0].attach = Attach::At { parent, axis };
        self.place_groups()
    }

    /// `s[g].compute_root()`: the group is computed where its enclosing
    /// group is, or at the root.
    pub fn compute_group_root(&mut self, g: Group) -> Result<()> {
        self.group_state(g)?;
        self.touch();
        self.groups.list[g.0].attach = Attach::Root;
        self.place_groups()
    }

    /// Rejects computing `op`, a member of a group, at a stage outside
    /// that group (TVM: only stages of the same group).
    pub(crate) fn check_group_of_parent(&self, op: &Operation, parent: &Operation) -> Result<()> {
        let Some(g) = self.groups.group_of(op.id()) else {
            return Ok(());
        };
        if self.groups.list[g].ids.contains(&parent.id()) {
            return Ok(());
        }
        Err(TeError::schedule(format!(
            "cannot compute `{}` at `{}`: `{}` is in a group that `{}` is not in; compute it at a stage of its group, or compute the group itself at `{}`",
            op.name(),
            parent.name(),
            op.name(),
            parent.name(),
            parent.name()
        )))
    }

    /// A member of a group computed at the root is computed where its
    /// group is (TVM's group root), unless it is placed otherwise.
    pub(crate) fn follow_group(&mut self, op: &Operation) -> Result<()> {
        // Without groups this is nothing, at no cost per call: scripts
        // call compute_root on each of many stages.
        let Some(g) = self.groups.group_of(op.id()) else {
            return Ok(());
        };
        self.groups.placed.remove(&op.id());
        let target = self.legalized(&self.groups.placement(g));
        if target != Attach::Root {
            let i = self.stage_index(op)?;
            self.groups.placed.insert(op.id(), target.clone());
            self.set_attach(i, target);
        }
        Ok(())
    }

    /// Places every member that follows its group (at the root, or where
    /// a group last placed it) where its group is computed.
    fn place_groups(&mut self) -> Result<()> {
        let mut moves = Vec::new();
        for (i, st) in self.stages().iter().enumerate() {
            if st.is_placeholder() || st.attach() == &Attach::Inline {
                continue;
            }
            let Some(g) = self.groups.group_of(st.op().id()) else {
                continue;
            };
            let current = st.attach();
            let follows = current == &Attach::Root
                || self
                    .groups
                    .placed
                    .get(&st.op().id())
                    .is_some_and(|p| &self.legalized(p) == current);
            let target = self.legalized(&self.groups.placement(g));
            if follows && &target != current {
                moves.push((i, st.op().id(), target));
            }
        }
        for (i, id, target) in moves {
            if target == Attach::Root {
                self.groups.placed.remove(&id);
            } else {
                self.groups.placed.insert(id, target.clone());
            }
            self.set_attach(i, target);
        }
        Ok(())
    }

    /// `attach` with its loop followed through the splits and fuses made
    /// since (see [`crate::normalize::attach_target`]).
    fn legalized(&self, attach: &Attach) -> Attach {
        match attach {
            Attach::At { parent, axis } => match self.stage_index(parent) {
                Ok(p) => Attach::At {
                    parent: parent.clone(),
                    axis: crate::normalize::attach_target(&self.stages()[p], axis),
                },
                Err(_) => attach.clone(),
            },
            other => other.clone(),
        }
    }

    /// A stage added next to `existing` (a cache or factored stage) joins
    /// every group `existing` is in, as TVM's new stages take their
    /// origin's group.
    pub(crate) fn join_group_of(&mut self, existing: &Operation, new: &Operation) {
        for g in &mut self.groups.list {
            if g.ids.contains(&existing.id()) {
                g.members.push(new.clone());
                g.ids.insert(new.id());
            }
        }
        let order: HashMap<OpId, usize> = self
            .stages()
            .iter()
            .enumerate()
            .map(|(i, st)| (st.op().id(), i))
            .collect();
        for g in &mut self.groups.list {
            g.members
                .sort_by_key(|m| order.get(&m.id()).copied().unwrap_or(usize::MAX));
        }
    }

    fn group_state(&self, g: Group) -> Result<&GroupState> {
        self.groups
            .list
            .get(g.0)
            .ok_or_else(|| TeError::schedule("the group is not part of this schedule".to_string()))
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
