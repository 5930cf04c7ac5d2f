//! What a run of a program accumulates.

use crate::object::ScheduleRef;
use std::collections::HashSet;

/// One `tvm.lower(s, args)`.
#[derive(Clone)]
pub struct Lowered {
    /// The schedule lowered (shared: the program may change it afterwards).
    pub schedule: ScheduleRef,
    /// The program's arguments.
    pub args: Vec<te::Tensor>,
    /// The lowering, which a report can reuse while the schedule is
    /// unchanged.
    pub lowering: te::Lowering,
}

/// What a program created that a report needs, and the state TVM keeps
/// between calls.
#[derive(Default)]
pub struct Session {
    /// Every schedule, in order of creation.
    pub schedules: Vec<ScheduleRef>,
    /// Every `tvm.lower(s, args)`, in order.
    pub lowered: Vec<Lowered>,
    /// The last schedule whose `tvm.lower` or `tvm.build` raised, if no
    /// schedule was created or lowered since: a test that expects the
    /// error (`pytest.raises`) has shown the schedule to be invalid, and
    /// there is nothing more to report about it.
    pub failed_lowering: Option<ScheduleRef>,
    /// The variables of every `te.reduce_axis`, to reject bodies that use
    /// one outside its reduction.
    pub reduce_vars: HashSet<arith::Var>,
    /// The `te.tag_scope` entered, if any: computes built inside take its
    /// tag.
    pub tag_scope: Option<std::rc::Rc<str>>,
    /// The targets entered with `with target:`, innermost last
    /// (`Target.current()`).
    pub targets: Vec<std::rc::Rc<crate::target::Target>>,
    /// The pass contexts entered with `with tvm.transform.PassContext():`,
    /// innermost last.
    pub pass_contexts: Vec<std::rc::Rc<crate::pass_context::PassContext>>,
    /// The AutoTVM configuration of each workload met, by target and
    /// workload.
    pub autotvm_configs: Vec<(String, crate::autotvm::ConfigRef)>,
    /// The operations AutoTVM templates' computes returned, with their
    /// task and workload (TVM's `op.attrs["workload"]`).
    pub autotvm_workloads: Vec<(te::Operation, std::rc::Rc<str>, String)>,
    /// The functions registered with `tvm.register_func`, by name: what a
    /// built program's `call_packed` calls.
    pub packed_funcs: Vec<(String, crate::value::Value)>,
}

/// What a report of a program is about: its last lowering, else its last
/// schedule (see [`Session::report_target`]).
pub enum ReportTarget<'a> {
    /// The last `tvm.lower(s, args)`.
    Lowered(&'a Lowered),
    /// The last schedule created, never lowered.
    Schedule(&'a ScheduleRef),
}

impl Session {
    /// What `rangefinder te` and `python -m rangefinder.tvm` report on: the
    /// last `tvm.lower(s, args)`, else the last schedule created; `None`
    /// when the program created none, or when the last thing it did with
    /// a schedule was a lowering that raised (and that it caught).
    pub fn report_target(&self) -> Option<ReportTarget<'_>> {
        if self.failed_lowering.is_some() {
            return None;
        }
        match self.lowered.last() {
            Some(l) => Some(ReportTarget::Lowered(l)),
            None => self.schedules.last().map(ReportTarget::Schedule),
        }
    }
}
