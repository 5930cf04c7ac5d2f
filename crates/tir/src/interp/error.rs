//! What can go wrong when running a program.

use std::fmt;

/// Whether an access reads or writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AccessKind {
    /// A [`crate::Value::Load`].
    Load,
    /// A [`crate::Stmt::BufferStore`].
    Store,
}

/// Why an access is invalid.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Problem {
    /// Some index lies outside `[0, shape)` on its axis.
    OutsideShape {
        /// The buffer's shape.
        shape: Vec<i64>,
    },
    /// The index lies inside the shape but outside the region the enclosing
    /// `realize` or `allocate` gave the buffer.
    OutsideRegion {
        /// The first index of the region on each axis.
        min: Vec<i64>,
        /// The region's extent on each axis.
        extent: Vec<i64>,
    },
    /// A read of an element no store has written since the buffer was
    /// realized (or, for an output parameter, since the program started).
    Uninitialized,
}

/// One invalid access: which buffer, at which indices, in which statement.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AccessViolation {
    /// Read or write.
    pub kind: AccessKind,
    /// The buffer's name.
    pub buffer: String,
    /// The evaluated indices.
    pub indices: Vec<i64>,
    /// What is wrong with them.
    pub problem: Problem,
    /// The statement that made the access, printed on one line.
    pub stmt: String,
}

impl fmt::Display for AccessViolation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let what = match self.kind {
            AccessKind::Load => "load of",
            AccessKind::Store => "store to",
        };
        write!(f, "{what} {}{:?} ", self.buffer, self.indices)?;
        match &self.problem {
            Problem::OutsideShape { shape } => {
                write!(f, "is outside the buffer's shape {shape:?}")?
            }
            Problem::OutsideRegion { min, extent } => {
                let region: Vec<String> = min
                    .iter()
                    .zip(extent)
                    .map(|(m, e)| format!("[{m}, {e}]"))
                    .collect();
                write!(f, "is outside the realized region ({})", region.join(", "))?
            }
            Problem::Uninitialized => f.write_str("reads an element that was never written")?,
        }
        write!(f, " in `{}`", self.stmt)
    }
}

/// An error that stops a run. Every message names the statement it comes
/// from, printed on one line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RunError {
    /// The program calls a function it cannot look into (an extern
    /// operation's `call_packed` or `call_extern`).
    Opaque {
        /// The function's name.
        func: String,
    },
    /// A packed function the program called failed.
    Packed {
        /// The function's name.
        func: String,
        /// What it said.
        message: String,
    },
    /// An invalid access (the first one, unless the interpreter was told to
    /// keep going).
    Access(Box<AccessViolation>),
    /// Index arithmetic overflowed 64 bits or divided by zero.
    Index {
        /// What went wrong.
        message: String,
        /// Where.
        stmt: String,
    },
    /// Value arithmetic overflowed its integer type, divided an integer by
    /// zero, or stored a value its buffer's type cannot hold.
    Value {
        /// What went wrong.
        message: String,
        /// Where.
        stmt: String,
    },
    /// A variable that is neither bound by an enclosing loop or `let` nor
    /// given as a size.
    UnboundVariable {
        /// The variable's name.
        var: String,
        /// Where it is used.
        stmt: String,
    },
    /// A buffer that is not a parameter, used outside every `realize` and
    /// `allocate` of it.
    BufferNotAllocated {
        /// The buffer's name.
        buffer: String,
        /// Where it is used.
        stmt: String,
    },
    /// An access, region or extent list whose length differs from the
    /// buffer's number of axes.
    Arity {
        /// The buffer's name.
        buffer: String,
        /// The number of axes.
        expected: usize,
        /// The number given.
        got: usize,
        /// Where.
        stmt: String,
    },
    /// An input tensor that does not fit its parameter.
    Input {
        /// The buffer's name.
        buffer: String,
        /// What is wrong and what to do.
        message: String,
    },
    /// A shape, region or allocation that is negative or too large.
    Allocation {
        /// The buffer's name.
        buffer: String,
        /// What is wrong.
        message: String,
        /// Where.
        stmt: String,
    },
    /// The run took more steps (loop iterations and stores) than allowed.
    StepLimit {
        /// The limit.
        limit: u64,
    },
    /// The program's loops take more steps than the limit allows, counted
    /// before running (an upper bound where extents vary).
    TooManySteps {
        /// The steps counted.
        steps: u64,
        /// The limit.
        limit: u64,
    },
    /// The run was stopped by its [`crate::Interrupt`] hook.
    Interrupted {
        /// The steps taken until then.
        steps: u64,
    },
}

impl fmt::Display for RunError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RunError::Access(v) => write!(f, "out-of-bounds access: {v}"),
            RunError::Index { message, stmt } => {
                write!(f, "index arithmetic failed: {message} in `{stmt}`")
            }
            RunError::Value { message, stmt } => write!(f, "{message} in `{stmt}`"),
            RunError::UnboundVariable { var, stmt } => write!(
                f,
                "variable `{var}` has no value in `{stmt}`: bind it in an enclosing loop or let, \
                 or pass it in the sizes"
            ),
            RunError::BufferNotAllocated { buffer, stmt } => write!(
                f,
                "buffer `{buffer}` is used in `{stmt}` outside any realize or allocate of it: \
                 wrap the use in one, or make the buffer a parameter"
            ),
            RunError::Arity {
                buffer,
                expected,
                got,
                stmt,
            } => write!(
                f,
                "buffer `{buffer}` has {expected} axes but `{stmt}` gives {got}"
            ),
            RunError::Input { buffer, message } => write!(f, "input `{buffer}`: {message}"),
            RunError::Allocation {
                buffer,
                message,
                stmt,
            } => {
                write!(f, "cannot give `{buffer}` storage in `{stmt}`: {message}")
            }
            RunError::Opaque { func } => write!(
                f,
                "the program calls `{func}`, a function it cannot look into: it cannot be run \
                 (register it with `tvm.register_func` to run it)"
            ),
            RunError::Packed { func, message } => write!(f, "`{func}` failed: {message}"),
            RunError::StepLimit { limit } => write!(
                f,
                "the run exceeded {limit} steps: raise the limit or shrink the sizes"
            ),
            RunError::TooManySteps { steps, limit } => {
                let steps = if *steps == u64::MAX {
                    "2^64 or more".to_string()
                } else {
                    format!("up to {steps}")
                };
                write!(
                    f,
                    "the program takes {steps} steps (loop iterations and stores), more than the \
                     limit of {limit}: raise the limit or shrink the sizes; not run"
                )
            }
            RunError::Interrupted { steps } => {
                write!(f, "the run was interrupted after {steps} steps")
            }
        }
    }
}

impl std::error::Error for RunError {}
