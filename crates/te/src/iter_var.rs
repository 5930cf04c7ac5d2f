//! Iteration variables: the axes of operations and the loops of schedules.

use crate::thread::ThreadTag;
use arith::{Expr, Range, Var};
use std::fmt;
use std::hash::{Hash, Hasher};
use std::sync::Arc;

/// Whether an axis enumerates output elements or is summed over.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum IterKind {
    /// A data-parallel axis: one output element per value.
    DataPar,
    /// A reduction axis: values are combined into one output element.
    Reduce,
}

/// An iteration variable (TVM's `IterVar`): a [`Var`], the domain it was
/// declared with (absent for axes a schedule creates, whose ranges come from
/// [`crate::infer_bound`]) and its kind. A shared handle: clones are the same
/// axis, two axes with the same name are different axes.
///
/// ```
/// let k = te::reduce_axis((0, 16), "k");
/// assert_eq!(k.name(), "k");
/// assert_eq!(k.kind(), te::IterKind::Reduce);
/// assert_eq!(k.dom().unwrap().to_string(), "[0, 16)");
/// ```
#[derive(Clone)]
pub struct IterVar(Arc<IterVarData>);

struct IterVarData {
    var: Var,
    dom: Option<Range>,
    kind: IterKind,
    thread: Option<ThreadTag>,
}

impl IterVar {
    /// A new axis called `name` over `dom` (when known).
    pub fn new(name: impl Into<String>, dom: Option<Range>, kind: IterKind) -> IterVar {
        IterVar(Arc::new(IterVarData {
            var: Var::new(name),
            dom,
            kind,
            thread: None,
        }))
    }

    /// An axis over `dom` that indexes with an existing variable: the same
    /// axis as every other [`IterVar`] of `var` (`rfactor` turns a
    /// reduction loop into a data axis of the factored stage this way, as
    /// TVM keeps the variable).
    pub(crate) fn with_var(var: Var, dom: Option<Range>, kind: IterKind) -> IterVar {
        IterVar(Arc::new(IterVarData {
            var,
            dom,
            kind,
            thread: None,
        }))
    }

    /// An axis with every part given: the variable it indexes with, its
    /// domain, kind and thread tag (what `load_json` rebuilds).
    pub(crate) fn from_parts(
        var: Var,
        dom: Option<Range>,
        kind: IterKind,
        thread: Option<ThreadTag>,
    ) -> IterVar {
        IterVar(Arc::new(IterVarData {
            var,
            dom,
            kind,
            thread,
        }))
    }

    /// `te.thread_axis(tag)`: a thread index that [`crate::Schedule::bind`]
    /// binds loops to. Loops bound to the same thread axis, one enclosing
    /// the other, are the same index: the inner one is not a loop of its
    /// own.
    ///
    /// ```
    /// let tx = te::IterVar::thread_axis("threadIdx.x").unwrap();
    /// assert_eq!(tx.thread_tag(), Some(te::ThreadTag::ThreadIdx(0)));
    /// assert!(te::IterVar::thread_axis("threadIdx.w").is_err());
    /// ```
    pub fn thread_axis(tag: &str) -> crate::Result<IterVar> {
        IterVar::thread_axis_named(tag, tag)
    }

    /// A thread axis whose variable is called `name` (two virtual thread
    /// axes `vx`, `vy` of the tag `vthread`).
    pub fn thread_axis_named(tag: &str, name: &str) -> crate::Result<IterVar> {
        let thread = ThreadTag::parse(tag)?;
        Ok(IterVar(Arc::new(IterVarData {
            var: Var::new(name),
            dom: None,
            kind: IterKind::DataPar,
            thread: Some(thread),
        })))
    }

    /// The thread tag of a thread axis (`None` for other axes).
    pub fn thread_tag(&self) -> Option<ThreadTag> {
        self.0.thread
    }

    /// The variable that indexes with this axis.
    pub fn var(&self) -> &Var {
        &self.0.var
    }

    /// The variable as an expression.
    pub fn expr(&self) -> Expr {
        self.0.var.expr()
    }

    /// The name, as TVM prints it (`i`, `i.outer`, `i.j.fused`).
    pub fn name(&self) -> &str {
        self.0.var.name()
    }

    /// The declared domain: the shape's range for operation axes, the given
    /// range for reduction axes, `None` for axes made by schedule primitives.
    pub fn dom(&self) -> Option<&Range> {
        self.0.dom.as_ref()
    }

    /// Data-parallel or reduction.
    pub fn kind(&self) -> IterKind {
        self.0.kind
    }
}

impl PartialEq for IterVar {
    fn eq(&self, other: &IterVar) -> bool {
        self.0.var == other.0.var
    }
}
impl Eq for IterVar {}
impl Hash for IterVar {
    fn hash<H: Hasher>(&self, h: &mut H) {
        self.0.var.id().hash(h)
    }
}

impl fmt::Debug for IterVar {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.0.dom {
            Some(d) => write!(f, "IterVar({}, {d})", self.name()),
            None => write!(f, "IterVar({})", self.name()),
        }
    }
}

impl fmt::Display for IterVar {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}
