//! TVM objects: tensors, operations, iteration variables, element
//! expressions, schedules, stages, bound maps, namespaces and classes.

use crate::function::Class;
use arith::Expr;
use std::cell::RefCell;
use std::fmt;
use std::rc::Rc;

/// A schedule shared by every value that refers to it: Python schedules are
/// mutable objects, and `s[C].split(...)` changes `s`.
pub type ScheduleRef = Rc<RefCell<te::Schedule>>;

/// A TVM object held by a [`crate::Value`].
#[derive(Clone)]
pub enum Object {
    /// A `te.Tensor`.
    Tensor(te::Tensor),
    /// `T.op`.
    Op(te::Operation),
    /// An `IterVar` (a data-parallel or reduction axis, or a loop of a
    /// split or fuse).
    IterVar(te::IterVar),
    /// `te.thread_axis(tag)`: what `s[T].bind` binds a loop to.
    ThreadAxis(te::IterVar),
    /// An element expression: what a compute lambda returns.
    Element(te::Value),
    /// `A[i]` of a tensor with more dimensions, waiting for `[j]`
    /// (`A[i][j]` is `A[i, j]`).
    PartialLoad(te::Tensor, Vec<Expr>),
    /// A `Range` with `.min` and `.extent`.
    Range(arith::Range),
    /// A schedule.
    Schedule(ScheduleRef),
    /// `s[T]`: the stage of `T`'s operation in schedule `s`.
    Stage(ScheduleRef, te::Operation),
    /// What `InferBound` returns: indexable by iteration variables.
    Bounds(Rc<te::Bounds>),
    /// A split or fuse of a stage (`s[T].relations`).
    Relation(te::Relation),
    /// `te.AXIS_SEPARATOR`, in the result of a `transform_layout` function.
    AxisSeparator,
    /// A namespace such as `tvm`, `tvm.te` or `tvm.tir`, by its dotted path.
    Module(&'static str),
    /// A class, for `isinstance` and `except`.
    Class(Class),
}

impl Object {
    /// The Python-facing type name, for error messages.
    pub fn type_name(&self) -> &'static str {
        match self {
            Object::Tensor(_) => "Tensor",
            Object::Op(_) => "Operation",
            Object::IterVar(_) => "IterVar",
            Object::ThreadAxis(_) => "thread axis",
            Object::Element(_) => "tensor element expression",
            Object::PartialLoad(..) => "partially indexed tensor",
            Object::Range(_) => "Range",
            Object::Schedule(_) => "Schedule",
            Object::Stage(..) => "Stage",
            Object::Bounds(_) => "Map",
            Object::Relation(te::Relation::Split { .. }) => "Split",
            Object::Relation(te::Relation::Fuse { .. }) => "Fuse",
            Object::AxisSeparator => "AXIS_SEPARATOR",
            Object::Module(_) => "module",
            Object::Class(_) => "builtin function",
        }
    }

    /// Python `is` / `==` on TVM objects: the same object.
    pub fn same_as(&self, other: &Object) -> bool {
        match (self, other) {
            (Object::Tensor(a), Object::Tensor(b)) => a == b,
            (Object::Op(a), Object::Op(b)) => a == b,
            (Object::IterVar(a), Object::IterVar(b)) => a == b,
            (Object::ThreadAxis(a), Object::ThreadAxis(b)) => a == b,
            (Object::Range(a), Object::Range(b)) => a == b,
            (Object::Schedule(a), Object::Schedule(b)) => Rc::ptr_eq(a, b),
            (Object::Stage(s, a), Object::Stage(t, b)) => Rc::ptr_eq(s, t) && a == b,
            (Object::Bounds(a), Object::Bounds(b)) => Rc::ptr_eq(a, b),
            (Object::Module(a), Object::Module(b)) => a == b,
            (Object::Class(a), Object::Class(b)) => a == b,
            _ => false,
        }
    }
}

impl fmt::Display for Object {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Object::Tensor(t) => write!(
                f,
                "Tensor(shape={}, op.name={})",
                shape_text(t.shape()),
                t.name()
            ),
            Object::Op(op) => write!(f, "compute({})", op.name()),
            Object::IterVar(iv) => match iv.dom() {
                Some(d) => write!(f, "IterVar({}, {d})", iv.name()),
                None => write!(f, "IterVar({})", iv.name()),
            },
            Object::ThreadAxis(iv) => write!(f, "IterVar({})", iv.name()),
            Object::Element(v) => write!(f, "{v}"),
            Object::PartialLoad(t, idx) => write!(f, "{}[{}]", t.name(), shape_text(idx)),
            Object::Range(r) => write!(f, "range(min={}, ext={})", r.min, r.extent),
            Object::Schedule(_) => f.write_str("Schedule"),
            Object::Stage(_, op) => write!(f, "stage({})", op.name()),
            Object::Bounds(_) => f.write_str("Map(IterVar -> Range)"),
            Object::Relation(te::Relation::Split {
                parent,
                outer,
                inner,
                ..
            }) => {
                write!(f, "split({parent}, {outer}, {inner})")
            }
            Object::Relation(te::Relation::Fuse {
                outer,
                inner,
                fused,
            }) => {
                write!(f, "fuse({outer}, {inner}, {fused})")
            }
            Object::AxisSeparator => f.write_str("AXIS_SEPARATOR"),
            Object::Module(path) => write!(f, "<module '{path}'>"),
            Object::Class(c) => write!(f, "<class '{}'>", c.name()),
        }
    }
}

fn shape_text(dims: &[Expr]) -> String {
    let parts: Vec<String> = dims.iter().map(|d| d.to_string()).collect();
    format!("[{}]", parts.join(", "))
}
