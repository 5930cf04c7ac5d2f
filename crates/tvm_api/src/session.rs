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
}
