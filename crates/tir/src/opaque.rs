//! Opaque calls: a function the program calls by name and cannot look
//! into (`tvm.tir.call_packed`, `tvm.tir.call_extern`), as the body of an
//! extern operation. Printed as TVM prints them; never run.

use crate::buffer::Buffer;
use crate::dtype::DataType;
use crate::value::Value;
use std::fmt;

/// How an opaque function is called.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CallConvention {
    /// `tvm.tir.call_packed(name, ...)`: a packed function found by name at
    /// run time; buffer arguments are passed as arrays.
    Packed,
    /// `tvm.tir.call_extern(dtype, name, ...)`: a C function of that name.
    Extern(DataType),
    /// `tvm.tir.call_intrin(dtype, "tir.name", ...)`: one of TVM's
    /// builtins (`tvm_mma_sync`), which the code generator expands.
    Intrin,
}

/// An argument of an opaque call.
#[derive(Clone, Debug, PartialEq)]
pub enum CallArg {
    /// A buffer, passed whole.
    Buffer(Buffer),
    /// A value (a constant, an index expression).
    Value(Value),
    /// A string.
    Str(String),
}

/// A call of a function the program cannot look into.
///
/// ```
/// use tir::{Buffer, CallArg, DataType, OpaqueCall, Stmt, Value};
/// let a = Buffer::new("A", DataType::Float32, [4i64]);
/// let call = OpaqueCall::packed("my.add_one", vec![CallArg::Buffer(a), CallArg::Value(Value::index(arith::Expr::int(0)))]);
/// assert_eq!(
///     Stmt::opaque(call, true).to_string(),
///     "// attr [0] extern_scope = 0\ntvm_call_packed(\"my.add_one\", tvm_stack_make_array(A, tvm_stack_make_shape(4), 0, 1, 0.000000f, 0), 0)\n"
/// );
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct OpaqueCall {
    /// How the function is called.
    pub convention: CallConvention,
    /// The function's name.
    pub func: String,
    /// The arguments, in order.
    pub args: Vec<CallArg>,
}

impl OpaqueCall {
    /// `tvm.tir.call_packed(func, *args)`.
    pub fn packed(func: impl Into<String>, args: Vec<CallArg>) -> OpaqueCall {
        OpaqueCall {
            convention: CallConvention::Packed,
            func: func.into(),
            args,
        }
    }

    /// `tvm.tir.call_extern(dtype, func, *args)`.
    pub fn external(dtype: DataType, func: impl Into<String>, args: Vec<CallArg>) -> OpaqueCall {
        OpaqueCall {
            convention: CallConvention::Extern(dtype),
            func: func.into(),
            args,
        }
    }

    /// `tvm.tir.call_intrin(dtype, op, *args)`: TVM's builtin `op`
    /// (`tir.tvm_mma_sync` is named `tvm_mma_sync`).
    ///
    /// ```
    /// use tir::{Buffer, CallArg, DataType, OpaqueCall};
    /// let c = Buffer::new("C", DataType::Float32, [16i64, 16]);
    /// let fill = OpaqueCall::intrinsic("tir.tvm_fill_fragment", vec![CallArg::Buffer(c)]);
    /// assert_eq!(fill.to_string(), "tvm_fill_fragment(C)");
    /// ```
    pub fn intrinsic(op: &str, args: Vec<CallArg>) -> OpaqueCall {
        OpaqueCall {
            convention: CallConvention::Intrin,
            func: op.strip_prefix("tir.").unwrap_or(op).to_string(),
            args,
        }
    }

    /// The buffers passed, in order.
    pub fn buffers(&self) -> impl Iterator<Item = &Buffer> {
        self.args.iter().filter_map(|a| match a {
            CallArg::Buffer(b) => Some(b),
            _ => None,
        })
    }

    /// The call with every buffer argument replaced as `f` says (`None`
    /// keeps it): how an extern operation's declared buffers become the
    /// buffers of its tensors.
    pub fn map_buffers(&self, f: &impl Fn(&Buffer) -> Option<Buffer>) -> OpaqueCall {
        let args = self
            .args
            .iter()
            .map(|a| match a {
                CallArg::Buffer(b) => CallArg::Buffer(f(b).unwrap_or_else(|| b.clone())),
                other => other.clone(),
            })
            .collect();
        OpaqueCall {
            args,
            ..self.clone()
        }
    }
}

/// The call as TVM prints it after lowering: a packed call passes each
/// buffer as `tvm_stack_make_array(data, shape, strides, ndim, dtype,
/// offset)`; an extern call is printed as a call of its function.
impl fmt::Display for OpaqueCall {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let printer = crate::print::Printer::new();
        let mut first = true;
        match self.convention {
            CallConvention::Packed => {
                write!(f, "tvm_call_packed({:?}", self.func)?;
                first = false;
            }
            CallConvention::Extern(_) | CallConvention::Intrin => write!(f, "{}(", self.func)?,
        }
        for a in &self.args {
            if !first {
                f.write_str(", ")?;
            }
            first = false;
            match (a, self.convention) {
                (CallArg::Buffer(b), CallConvention::Packed) => {
                    write!(
                        f,
                        "tvm_stack_make_array({}, tvm_stack_make_shape(",
                        b.name()
                    )?;
                    for (k, d) in b.shape().iter().enumerate() {
                        if k > 0 {
                            f.write_str(", ")?;
                        }
                        write!(f, "{}", crate::print::index(d))?;
                    }
                    let zero = Value::constant(0.0, b.dtype());
                    write!(f, "), 0, {}, {}, 0)", b.ndim(), printer.value(&zero))?;
                }
                (CallArg::Buffer(b), CallConvention::Extern(_) | CallConvention::Intrin) => {
                    f.write_str(b.name())?
                }
                (CallArg::Value(v), _) => f.write_str(&printer.value(v))?,
                (CallArg::Str(s), _) => write!(f, "{s:?}")?,
            }
        }
        f.write_char(')')
    }
}

use std::fmt::Write as _;
