//! Printing in the notation of TVM's `tvm.lower(s, args, simple_mode=True)`.
//!
//! Index arithmetic is fully parenthesised the way TVM prints it
//! (`((bi*4) + bj)`, `floordiv(x, 4)`), float32 constants end in `f`
//! (`2.000000f`), blocks are indented by two spaces and closed by `}`.
//! Two access notations exist, as in TVM before and after storage
//! flattening: [`AccessStyle::Subscript`] (`B[i, j] = ...`, the default) and
//! [`AccessStyle::Call`] (`C(i, j) =...`, TVM's `Provide` form).

use crate::dtype::DataType;
use crate::stmt::{ForKind, PragmaValue, PrimFunc, Stmt};
use crate::value::{BinOp, BufferLoad, Value};
use arith::{Expr, ExprKind, Var};
use std::fmt::{self, Write};

/// How buffer accesses are written.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum AccessStyle {
    /// `B[i, j]` and `B[i, j] = value` (TVM after storage flattening).
    #[default]
    Subscript,
    /// `B(i, j)` and `B(i, j) =value` (TVM's `Provide` before flattening,
    /// including its missing space after `=`).
    Call,
}

/// A configurable printer; `Display` on [`Stmt`], [`Value`] and
/// [`PrimFunc`] uses the default one.
///
/// ```
/// use arith::Var;
/// use tir::{AccessStyle, Buffer, DataType, Printer, Stmt, Value};
/// let c = Buffer::new("C", DataType::Int32, [5i64, 16]);
/// let (i, j) = (Var::new("i"), Var::new("j"));
/// let s = Stmt::store(&c, [i.expr(), j.expr()], Value::i32(5));
/// assert_eq!(Printer::new().stmt(&s), "C[i, j] = 5\n");
/// assert_eq!(Printer::new().style(AccessStyle::Call).stmt(&s), "C(i, j) =5\n");
/// ```
#[derive(Clone, Copy, Debug, Default)]
pub struct Printer {
    style: AccessStyle,
}

/// Displays an index expression the way TVM prints it: `((bi*4) + bj)`.
///
/// ```
/// let (e, _) = arith::parse_with_scope("bi * 4 + bj // 2").unwrap();
/// assert_eq!(tir::print::index(&e).to_string(), "((bi*4) + floordiv(bj, 2))");
/// ```
pub fn index(e: &Expr) -> impl fmt::Display + '_ {
    TvmIndex(e)
}

struct TvmIndex<'a>(&'a Expr);

impl fmt::Display for TvmIndex<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_index(f, self.0)
    }
}

fn write_index(f: &mut dyn Write, e: &Expr) -> fmt::Result {
    crate::stack::grow(|| write_index_step(f, e))
}

/// One level of [`write_index`], on the stack [`crate::stack::grow`] left room on.
fn write_index_step(f: &mut dyn Write, e: &Expr) -> fmt::Result {
    use ExprKind::*;
    let infix = |f: &mut dyn Write, a: &Expr, op: &str, b: &Expr| -> fmt::Result {
        f.write_char('(')?;
        write_index(f, a)?;
        f.write_str(op)?;
        write_index(f, b)?;
        f.write_char(')')
    };
    let call = |f: &mut dyn Write, name: &str, args: &[&Expr]| -> fmt::Result {
        write!(f, "{name}(")?;
        for (k, a) in args.iter().enumerate() {
            if k > 0 {
                f.write_str(", ")?;
            }
            write_index(f, a)?;
        }
        f.write_char(')')
    };
    match e.kind() {
        Int(v) => write!(f, "{v}"),
        Bool(b) => f.write_str(if *b { "(bool)1" } else { "(bool)0" }),
        Var(v) => f.write_str(v.name()),
        Add(a, b) => infix(f, a, " + ", b),
        Sub(a, b) => infix(f, a, " - ", b),
        Mul(a, b) => infix(f, a, "*", b),
        FloorDiv(a, b) => call(f, "floordiv", &[a, b]),
        FloorMod(a, b) => call(f, "floormod", &[a, b]),
        CeilDiv(a, b) => call(f, "ceildiv", &[a, b]),
        Min(a, b) => call(f, "min", &[a, b]),
        Max(a, b) => call(f, "max", &[a, b]),
        Select(c, a, b) => call(f, "select", &[c, a, b]),
        Cmp(op, a, b) => infix(f, a, &format!(" {} ", op.symbol()), b),
        And(a, b) => infix(f, a, " && ", b),
        Or(a, b) => infix(f, a, " || ", b),
        Not(a) => {
            f.write_char('!')?;
            write_index(f, a)
        }
    }
}

/// TVM's float constant notation: `2.000000f` for float32, `2.000000` for
/// float64; values fixed notation would hide are written as C++ streams
/// write them, six significant digits and a signed two-digit exponent
/// (`-3.40282e+38f`, the lowest float32 a max reduction starts at).
pub(crate) fn write_float_constant(f: &mut dyn Write, v: f64, dtype: DataType) -> fmt::Result {
    let suffix = if dtype == DataType::Float32 { "f" } else { "" };
    let a = v.abs();
    // Fixed notation with six decimals hides small and huge values; switch
    // to exponent notation where it would.
    if v.is_finite() && (a == 0.0 || (1e-4..1e15).contains(&a)) {
        write!(f, "{v:.6}{suffix}")
    } else if v.is_finite() {
        write!(f, "{}{suffix}", c_exponent(v))
    } else if v.is_nan() {
        write!(f, "nan{suffix}")
    } else {
        write!(f, "{}inf{suffix}", if v < 0.0 { "-" } else { "" })
    }
}

/// `v` in C's `%g` exponent form with six significant digits: trailing
/// zeros of the mantissa dropped, the exponent signed with at least two
/// digits (`1e-05`, `-3.40282e+38`).
fn c_exponent(v: f64) -> String {
    let text = format!("{v:.5e}");
    let (mantissa, exponent) = text.split_once('e').unwrap_or((&text, "0"));
    let mantissa = if mantissa.contains('.') {
        mantissa.trim_end_matches('0').trim_end_matches('.')
    } else {
        mantissa
    };
    let exp: i32 = exponent.parse().unwrap_or(0);
    let sign = if exp < 0 { '-' } else { '+' };
    format!("{mantissa}e{sign}{:02}", exp.unsigned_abs())
}

/// The node of a loop attribute as TVM prints an `IterVar`:
/// `iter_var(name, range(min=0, ext=4), tag)`, the domain empty when the
/// axis has none and the tag left out when empty.
pub(crate) fn iter_var_node(name: &str, dom: Option<&arith::Range>, tag: &str) -> String {
    let mut out = format!("iter_var({name}, ");
    if let Some(r) = dom {
        out.push_str(&format!(
            "range(min={}, ext={})",
            index(&r.min),
            index(&r.extent)
        ));
    }
    if !tag.is_empty() {
        out.push_str(", ");
        out.push_str(tag);
    }
    out.push(')');
    out
}

/// A pragma's value as TVM prints it: an integer, or a quoted string.
pub(crate) fn pragma_value(v: &PragmaValue) -> String {
    match v {
        PragmaValue::Int(x) => x.to_string(),
        PragmaValue::Str(s) => format!("{s:?}"),
    }
}

/// TVM's integer constant notation: `5` for int32, `(int64)5` otherwise.
fn write_int_constant(f: &mut dyn Write, v: i64, dtype: DataType) -> fmt::Result {
    match dtype {
        DataType::Int32 => write!(f, "{v}"),
        other => write!(f, "({other}){v}"),
    }
}

impl Printer {
    /// The default printer: subscript accesses.
    pub fn new() -> Printer {
        Printer::default()
    }

    /// The same printer writing accesses in `style`.
    pub fn style(mut self, style: AccessStyle) -> Printer {
        self.style = style;
        self
    }

    /// The statement as text, one line per statement, ending in a newline.
    pub fn stmt(&self, s: &Stmt) -> String {
        let mut out = String::new();
        // Writing into a String cannot fail.
        let _ = self.write_stmt(&mut out, s, 0);
        out
    }

    /// The value as text.
    pub fn value(&self, v: &Value) -> String {
        let mut out = String::new();
        let _ = self.write_value(&mut out, v);
        out
    }

    /// The function's body as text, as `simple_mode=True` prints it.
    pub fn func(&self, func: &PrimFunc) -> String {
        self.stmt(&func.body)
    }

    /// One statement on one line, without nested statements: `for (i, 0,
    /// 4)`, `B[i] = A[i]`, `realize C([0, 4])`. Used in diagnostics.
    pub fn header(&self, s: &Stmt) -> String {
        let mut out = String::new();
        let _ = self.write_header(&mut out, s);
        out
    }

    fn write_header(&self, f: &mut dyn Write, s: &Stmt) -> fmt::Result {
        match s {
            Stmt::For {
                var,
                min,
                extent,
                kind,
                ..
            } => {
                let word = match kind {
                    ForKind::Serial => "for",
                    ForKind::Parallel => "parallel",
                    ForKind::Vectorized => "vectorized",
                    ForKind::Unrolled => "unrolled",
                    ForKind::Thread(t) => {
                        return write!(
                            f,
                            "// attr [{}] {} = {}",
                            iter_var_node(var.name(), t.dom.as_ref(), &t.tag),
                            t.attr_key(),
                            index(extent)
                        )
                    }
                };
                write!(f, "{word} ({var}, {}, {})", index(min), index(extent))
            }
            Stmt::Let { var, value, .. } => write!(f, "let {var} = {}", index(value)),
            Stmt::LetValue { var, value, .. } => write!(f, "let {var} = {}", self.value(value)),
            Stmt::Realize { buffer, region, .. } => {
                write!(f, "realize {buffer}(")?;
                for (k, r) in region.iter().enumerate() {
                    if k > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "[{}, {}]", index(&r.min), index(&r.extent))?;
                }
                f.write_char(')')
            }
            Stmt::Allocate {
                buffer, extents, ..
            } => {
                write!(f, "allocate {buffer}[{}", buffer.dtype())?;
                for e in extents {
                    write!(f, " * {}", index(e))?;
                }
                f.write_char(']')
            }
            Stmt::Produce { name, .. } => write!(f, "produce {name}"),
            Stmt::BufferStore {
                buffer,
                indices,
                value,
                ..
            } => {
                f.write_str(buffer.name())?;
                self.write_indices(f, indices)?;
                f.write_str(match self.style {
                    AccessStyle::Subscript => " = ",
                    AccessStyle::Call => " =",
                })?;
                self.write_value(f, value)
            }
            Stmt::IfThenElse { cond, .. } => {
                f.write_str("if (")?;
                self.write_value(f, cond)?;
                f.write_char(')')
            }
            Stmt::While { cond, .. } => {
                f.write_str("while (")?;
                self.write_value(f, cond)?;
                f.write_char(')')
            }
            Stmt::Seq(v) => write!(f, "<{} statements>", v.len()),
            Stmt::Evaluate(v) => self.write_value(f, v),
            Stmt::Opaque { call, .. } => write!(f, "{call}"),
            Stmt::TensorCall {
                name,
                args,
                scalars,
                ..
            } => {
                write!(f, "{name}(")?;
                for (k, (buffer, region)) in args.iter().enumerate() {
                    if k > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{buffer}(")?;
                    for (d, r) in region.iter().enumerate() {
                        if d > 0 {
                            f.write_str(", ")?;
                        }
                        write!(f, "[{}, {}]", index(&r.min), index(&r.extent))?;
                    }
                    f.write_char(')')?;
                }
                for e in scalars {
                    write!(f, ", {}", index(e))?;
                }
                f.write_char(')')
            }
        }
    }

    fn write_indices(&self, f: &mut dyn Write, indices: &[Expr]) -> fmt::Result {
        let (open, close) = match self.style {
            AccessStyle::Subscript => ('[', ']'),
            AccessStyle::Call => ('(', ')'),
        };
        f.write_char(open)?;
        for (k, i) in indices.iter().enumerate() {
            if k > 0 {
                f.write_str(", ")?;
            }
            write_index(f, i)?;
        }
        f.write_char(close)
    }

    fn write_stmt(&self, f: &mut dyn Write, s: &Stmt, depth: usize) -> fmt::Result {
        // Statements nest as deep as a pipeline is long (one allocation
        // per stage).
        crate::stack::grow(|| self.write_stmt_step(f, s, depth))
    }

    /// One level of [`Self::write_stmt`], on the stack [`crate::stack::grow`] left room on.
    fn write_stmt_step(&self, f: &mut dyn Write, s: &Stmt, depth: usize) -> fmt::Result {
        let pad = |f: &mut dyn Write, depth: usize| -> fmt::Result {
            (0..depth).try_for_each(|_| f.write_str("  "))
        };
        let block = |f: &mut dyn Write, body: &Stmt| -> fmt::Result {
            f.write_str(" {\n")?;
            self.write_stmt(f, body, depth + 1)?;
            pad(f, depth)?;
            f.write_str("}\n")
        };
        match s {
            Stmt::Seq(v) => v.iter().try_for_each(|c| self.write_stmt(f, c, depth)),
            Stmt::For {
                var,
                kind,
                pragmas,
                body,
                ..
            } => {
                for p in pragmas {
                    pad(f, depth)?;
                    writeln!(
                        f,
                        "// attr [{}] pragma_{} = {}",
                        iter_var_node(var.name(), p.dom.as_ref(), ""),
                        p.key,
                        pragma_value(&p.value)
                    )?;
                }
                pad(f, depth)?;
                self.write_header(f, s)?;
                if let ForKind::Thread(_) = kind {
                    // An attribute, not a block: its body follows at the
                    // same depth, as TVM prints `AttrStmt`.
                    f.write_char('\n')?;
                    self.write_stmt(f, body, depth)
                } else {
                    block(f, body)
                }
            }
            Stmt::Realize { buffer, body, .. } => {
                for (key, value) in buffer.attrs() {
                    pad(f, depth)?;
                    writeln!(f, "// attr [{buffer}] {key} = {value}")?;
                }
                pad(f, depth)?;
                self.write_header(f, s)?;
                block(f, body)
            }
            Stmt::Produce { body, .. } | Stmt::While { body, .. } => {
                pad(f, depth)?;
                self.write_header(f, s)?;
                block(f, body)
            }
            // TVM prints lets and allocations as a line above their body,
            // without a block of their own; like TVM's text, this does not
            // show where the body ends when statements follow it.
            Stmt::Let { body, .. } | Stmt::LetValue { body, .. } => {
                pad(f, depth)?;
                self.write_header(f, s)?;
                f.write_char('\n')?;
                self.write_stmt(f, body, depth)
            }
            Stmt::Allocate { buffer, body, .. } => {
                pad(f, depth)?;
                writeln!(
                    f,
                    "// attr [{buffer}] storage_scope = \"{}\"",
                    buffer.scope()
                )?;
                for (key, value) in buffer.attrs() {
                    pad(f, depth)?;
                    writeln!(f, "// attr [{buffer}] {key} = {value}")?;
                }
                pad(f, depth)?;
                self.write_header(f, s)?;
                f.write_char('\n')?;
                self.write_stmt(f, body, depth)
            }
            Stmt::IfThenElse {
                then_case,
                else_case,
                ..
            } => {
                pad(f, depth)?;
                self.write_header(f, s)?;
                f.write_str(" {\n")?;
                self.write_stmt(f, then_case, depth + 1)?;
                pad(f, depth)?;
                match else_case {
                    Some(e) => {
                        f.write_str("} else")?;
                        block(f, e)
                    }
                    None => f.write_str("}\n"),
                }
            }
            Stmt::Opaque { extern_scope, .. } => {
                if *extern_scope {
                    pad(f, depth)?;
                    f.write_str("// attr [0] extern_scope = 0\n")?;
                }
                pad(f, depth)?;
                self.write_header(f, s)?;
                f.write_char('\n')
            }
            // The call, not the computation it stands for.
            Stmt::BufferStore { .. } | Stmt::Evaluate(_) | Stmt::TensorCall { .. } => {
                pad(f, depth)?;
                self.write_header(f, s)?;
                f.write_char('\n')
            }
        }
    }

    fn write_load(&self, f: &mut dyn Write, l: &BufferLoad) -> fmt::Result {
        f.write_str(l.buffer.name())?;
        self.write_indices(f, &l.indices)
    }

    fn write_value(&self, f: &mut dyn Write, v: &Value) -> fmt::Result {
        crate::stack::grow(|| self.write_value_step(f, v))
    }

    /// One level of [`Self::write_value`], on the stack [`crate::stack::grow`] left room on.
    fn write_value_step(&self, f: &mut dyn Write, v: &Value) -> fmt::Result {
        let infix = |f: &mut dyn Write, a: &Value, op: &str, b: &Value| -> fmt::Result {
            f.write_char('(')?;
            self.write_value(f, a)?;
            f.write_str(op)?;
            self.write_value(f, b)?;
            f.write_char(')')
        };
        match v {
            Value::Float(x, t) => write_float_constant(f, *x, *t),
            Value::Int(x, t) => write_int_constant(f, *x, *t),
            Value::Index(e) => write_index(f, e),
            Value::Var(var, _) => write!(f, "{var}"),
            Value::Load(l) => self.write_load(f, l),
            Value::Binary(op, a, b) => match op {
                BinOp::Add => infix(f, a, " + ", b),
                BinOp::Sub => infix(f, a, " - ", b),
                BinOp::Mul => infix(f, a, "*", b),
                BinOp::Div => infix(f, a, "/", b),
                BinOp::FloorDiv | BinOp::FloorMod | BinOp::Min | BinOp::Max => {
                    let name = match op {
                        BinOp::FloorDiv => "floordiv",
                        BinOp::FloorMod => "floormod",
                        BinOp::Min => "min",
                        _ => "max",
                    };
                    write!(f, "{name}(")?;
                    self.write_value(f, a)?;
                    f.write_str(", ")?;
                    self.write_value(f, b)?;
                    f.write_char(')')
                }
            },
            Value::Cmp(op, a, b) => infix(f, a, &format!(" {} ", op.symbol()), b),
            Value::And(a, b) => infix(f, a, " && ", b),
            Value::Or(a, b) => infix(f, a, " || ", b),
            Value::Not(a) => {
                f.write_char('!')?;
                self.write_value(f, a)
            }
            Value::Neg(a) => {
                f.write_str("(-")?;
                self.write_value(f, a)?;
                f.write_char(')')
            }
            Value::Cast(t, a) => {
                write!(f, "{t}(")?;
                self.write_value(f, a)?;
                f.write_char(')')
            }
            Value::Likely(c) => {
                f.write_str("likely(")?;
                self.write_value(f, c)?;
                f.write_char(')')
            }
            Value::Select(c, a, b) | Value::IfThenElse(c, a, b) => {
                f.write_str(if matches!(v, Value::Select(..)) {
                    "select("
                } else {
                    "if_then_else("
                })?;
                self.write_value(f, c)?;
                f.write_str(", ")?;
                self.write_value(f, a)?;
                f.write_str(", ")?;
                self.write_value(f, b)?;
                f.write_char(')')
            }
            Value::Call(op, args) => {
                write!(f, "{op}(")?;
                for (k, a) in args.iter().enumerate() {
                    if k > 0 {
                        f.write_str(", ")?;
                    }
                    self.write_value(f, a)?;
                }
                f.write_char(')')
            }
            Value::Let(var, x, body) => {
                // The value stands where the variable is used: a variable
                // named by the value's text prints it there.
                let text = Var::new(self.value(x));
                let body = body
                    .map_indices(&mut |e| e.substitute(&mut |v| (v == var).then(|| text.expr())));
                self.write_value(f, &body)
            }
        }
    }
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&Printer::new().value(self))
    }
}

impl fmt::Display for Stmt {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&Printer::new().stmt(self))
    }
}

impl fmt::Display for PrimFunc {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&Printer::new().func(self))
    }
}
