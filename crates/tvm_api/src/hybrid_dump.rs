//! `te.hybrid.build`: a lowered program written back as a hybrid script
//! (TVM's `HybridModule`), which parses into an operation again and runs
//! as Python on numpy arrays.

use crate::error::{ApiResult, ErrorClass};
use crate::ApiError;
use arith::{Expr, ExprKind, Var};
use std::collections::{HashMap, HashSet};
use std::fmt::Write;
use tir::{BinOp, Buffer, BufferId, ForKind, Stmt, Value};

/// What a parameter of the written function is.
pub(crate) enum Param {
    /// A tensor, passed as its buffer.
    Tensor(Buffer),
    /// A size.
    Var(Var),
}

/// The source of hybrid function `name(params)` running `body`, which
/// writes `outputs` (declared with `output_tensor` and returned).
pub(crate) fn dump(
    name: &str,
    params: &[Param],
    outputs: &[Buffer],
    body: &Stmt,
) -> ApiResult<String> {
    let mut w = Writer::default();
    let fname = w.fresh(name);
    let mut names = Vec::new();
    for p in params {
        names.push(match p {
            Param::Tensor(b) => w.buffer_name(b),
            Param::Var(v) => w.var_name(v),
        });
    }
    let _ = writeln!(w.out, "def {fname}({}):", names.join(", "));
    for b in outputs {
        let n = w.buffer_name(b);
        let shape = w.shape(b.shape())?;
        let _ = writeln!(
            w.out,
            "    {n} = output_tensor({shape}, {:?})",
            b.dtype().name()
        );
    }
    w.stmt(body, 1)?;
    let outs: Vec<String> = outputs.iter().map(|b| w.buffer_name(b)).collect();
    let _ = writeln!(w.out, "    return {}", outs.join(", "));
    Ok(w.out)
}

#[derive(Default)]
struct Writer {
    out: String,
    vars: HashMap<Var, String>,
    buffers: HashMap<BufferId, String>,
    used: HashSet<String>,
}

fn unsupported(what: &str) -> ApiError {
    ApiError::new(
        ErrorClass::NotSupported,
        format!("`te.hybrid.build` cannot write {what} as a hybrid script"),
    )
}

impl Writer {
    /// A Python name from `name` (`i.outer` is `i_outer`), unused so far.
    fn fresh(&mut self, name: &str) -> String {
        let base = tir::python_identifier(name);
        let mut candidate = base.clone();
        let mut k = 1;
        while self.used.contains(&candidate) || is_reserved(&candidate) {
            candidate = format!("{base}_{k}");
            k += 1;
        }
        self.used.insert(candidate.clone());
        candidate
    }

    fn var_name(&mut self, v: &Var) -> String {
        if let Some(n) = self.vars.get(v) {
            return n.clone();
        }
        let n = self.fresh(v.name());
        self.vars.insert(v.clone(), n.clone());
        n
    }

    fn buffer_name(&mut self, b: &Buffer) -> String {
        if let Some(n) = self.buffers.get(&b.id()) {
            return n.clone();
        }
        let n = self.fresh(b.name());
        self.buffers.insert(b.id(), n.clone());
        n
    }

    fn line(&mut self, depth: usize, text: &str) {
        for _ in 0..depth {
            self.out.push_str("    ");
        }
        self.out.push_str(text);
        self.out.push('\n');
    }

    fn shape(&mut self, shape: &[Expr]) -> ApiResult<String> {
        let dims = shape
            .iter()
            .map(|e| self.expr(e))
            .collect::<ApiResult<Vec<_>>>()?;
        Ok(if dims.len() == 1 {
            format!("({},)", dims[0])
        } else {
            format!("({})", dims.join(", "))
        })
    }

    fn stmt(&mut self, s: &Stmt, depth: usize) -> ApiResult<()> {
        let start = self.out.len();
        tir::stack::grow(|| self.stmt_step(s, depth))?;
        // A block needs a statement.
        if self.out.len() == start {
            self.line(depth, "pass");
        }
        Ok(())
    }

    fn stmt_step(&mut self, s: &Stmt, depth: usize) -> ApiResult<()> {
        match s {
            Stmt::For {
                var,
                min,
                extent,
                kind,
                body,
                ..
            } => {
                let v = self.var_name(var);
                let bounds = if min.is_int(0) {
                    self.expr(extent)?
                } else {
                    let hi = Expr::add(min.clone(), extent.clone());
                    format!("{}, {}", self.expr(min)?, self.expr(&hi)?)
                };
                let range = |f: &str| format!("{f}({bounds})");
                let iter = match kind {
                    ForKind::Serial => range("range"),
                    ForKind::Parallel => range("parallel"),
                    ForKind::Vectorized => range("vectorize"),
                    ForKind::Unrolled => range("unroll"),
                    ForKind::Thread(t) => {
                        if !min.is_int(0) {
                            return Err(unsupported("a thread loop that does not start at 0"));
                        }
                        format!("bind({:?}, {})", t.tag, self.expr(extent)?)
                    }
                };
                self.line(depth, &format!("for {v} in {iter}:"));
                self.stmt(body, depth + 1)
            }
            Stmt::Let { var, value, body } => {
                let v = self.var_name(var);
                let e = self.expr(value)?;
                self.line(depth, &format!("{v} = {e}"));
                self.stmt_step(body, depth)
            }
            Stmt::LetValue { var, value, body } => {
                let v = self.var_name(var);
                let e = self.value(value)?;
                self.line(depth, &format!("{v} = {e}"));
                self.stmt_step(body, depth)
            }
            Stmt::Realize {
                buffer,
                region,
                body,
            } => {
                let extents: Vec<Expr> = region.iter().map(|r| r.extent.clone()).collect();
                self.allocation(buffer, &extents, depth)?;
                self.stmt_step(body, depth)
            }
            Stmt::Allocate {
                buffer,
                extents,
                body,
            } => {
                self.allocation(buffer, extents, depth)?;
                self.stmt_step(body, depth)
            }
            Stmt::Produce { body, .. } => self.stmt_step(body, depth),
            Stmt::BufferStore {
                buffer,
                indices,
                value,
                ..
            } => {
                let b = self.buffer_name(buffer);
                let idx = indices
                    .iter()
                    .map(|e| self.expr(e))
                    .collect::<ApiResult<Vec<_>>>()?;
                let v = self.value(value)?;
                self.line(depth, &format!("{b}[{}] = {v}", idx.join(", ")));
                Ok(())
            }
            Stmt::IfThenElse {
                cond,
                then_case,
                else_case,
            } => {
                let c = self.value(cond)?;
                self.line(depth, &format!("if {c}:"));
                self.stmt(then_case, depth + 1)?;
                if let Some(e) = else_case {
                    self.line(depth, "else:");
                    self.stmt(e, depth + 1)?;
                }
                Ok(())
            }
            Stmt::While { .. } => Err(unsupported("a `while` loop")),
            Stmt::Seq(items) => {
                for item in items {
                    self.stmt_step(item, depth)?;
                }
                Ok(())
            }
            Stmt::Evaluate(_) => Ok(()),
            Stmt::Opaque { call, .. } => Err(unsupported(&format!("a call of `{}`", call.func))),
            Stmt::TensorCall { name, .. } => {
                Err(unsupported(&format!("a tensor intrinsic call (`{name}`)")))
            }
        }
    }

    fn allocation(&mut self, b: &Buffer, extents: &[Expr], depth: usize) -> ApiResult<()> {
        let n = self.buffer_name(b);
        let shape = self.shape(extents)?;
        let scope = if b.scope().is_empty() {
            "global"
        } else {
            b.scope()
        };
        self.line(
            depth,
            &format!("{n} = allocate({shape}, {:?}, {scope:?})", b.dtype().name()),
        );
        Ok(())
    }

    fn expr(&mut self, e: &Expr) -> ApiResult<String> {
        tir::stack::grow(|| {
            Ok(match e.kind() {
                ExprKind::Int(i) => i.to_string(),
                ExprKind::Bool(b) => if *b { "True" } else { "False" }.to_string(),
                ExprKind::Var(v) => self.var_name(v),
                ExprKind::Add(a, b) => format!("({} + {})", self.expr(a)?, self.expr(b)?),
                ExprKind::Sub(a, b) => format!("({} - {})", self.expr(a)?, self.expr(b)?),
                ExprKind::Mul(a, b) => format!("({} * {})", self.expr(a)?, self.expr(b)?),
                ExprKind::FloorDiv(a, b) => format!("({} // {})", self.expr(a)?, self.expr(b)?),
                ExprKind::FloorMod(a, b) => format!("({} % {})", self.expr(a)?, self.expr(b)?),
                ExprKind::CeilDiv(a, b) => {
                    format!("ceil_div({}, {})", self.expr(a)?, self.expr(b)?)
                }
                ExprKind::Min(a, b) => format!("min({}, {})", self.expr(a)?, self.expr(b)?),
                ExprKind::Max(a, b) => format!("max({}, {})", self.expr(a)?, self.expr(b)?),
                ExprKind::Select(c, a, b) => {
                    format!(
                        "({} if {} else {})",
                        self.expr(a)?,
                        self.expr(c)?,
                        self.expr(b)?
                    )
                }
                ExprKind::Cmp(op, a, b) => {
                    format!("({} {} {})", self.expr(a)?, cmp_symbol(*op), self.expr(b)?)
                }
                ExprKind::And(a, b) => format!("({} and {})", self.expr(a)?, self.expr(b)?),
                ExprKind::Or(a, b) => format!("({} or {})", self.expr(a)?, self.expr(b)?),
                ExprKind::Not(a) => format!("(not {})", self.expr(a)?),
            })
        })
    }

    fn value(&mut self, v: &Value) -> ApiResult<String> {
        tir::stack::grow(|| {
            Ok(match v {
                Value::Float(f, dtype) => {
                    if !f.is_finite() {
                        return Err(unsupported("an infinite or NaN constant"));
                    }
                    let text = format!("{f:?}");
                    if dtype.name() == "float32" {
                        text
                    } else {
                        format!("{}({text})", dtype.name())
                    }
                }
                Value::Int(i, _) => i.to_string(),
                Value::Index(e) => self.expr(e)?,
                Value::Var(var, _) => self.var_name(var),
                Value::Load(l) => {
                    let b = self.buffer_name(&l.buffer);
                    let idx = l
                        .indices
                        .iter()
                        .map(|e| self.expr(e))
                        .collect::<ApiResult<Vec<_>>>()?;
                    format!("{b}[{}]", idx.join(", "))
                }
                Value::Binary(op, a, b) => {
                    let (x, y) = (self.value(a)?, self.value(b)?);
                    match op {
                        BinOp::Add => format!("({x} + {y})"),
                        BinOp::Sub => format!("({x} - {y})"),
                        BinOp::Mul => format!("({x} * {y})"),
                        BinOp::Div => format!("({x} / {y})"),
                        BinOp::FloorDiv => format!("({x} // {y})"),
                        BinOp::FloorMod => format!("({x} % {y})"),
                        BinOp::Min => format!("min({x}, {y})"),
                        BinOp::Max => format!("max({x}, {y})"),
                    }
                }
                Value::Cmp(op, a, b) => format!(
                    "({} {} {})",
                    self.value(a)?,
                    cmp_symbol(*op),
                    self.value(b)?
                ),
                Value::And(a, b) => format!("({} and {})", self.value(a)?, self.value(b)?),
                Value::Or(a, b) => format!("({} or {})", self.value(a)?, self.value(b)?),
                Value::Not(a) => format!("(not {})", self.value(a)?),
                Value::Neg(a) => format!("(-{})", self.value(a)?),
                Value::Cast(t, a) => format!("{}({})", t.name(), self.value(a)?),
                Value::Select(c, a, b) | Value::IfThenElse(c, a, b) => {
                    format!(
                        "({} if {} else {})",
                        self.value(a)?,
                        self.value(c)?,
                        self.value(b)?
                    )
                }
                Value::Likely(c) => format!("likely({})", self.value(c)?),
                Value::Call(f, args) => {
                    let args = args
                        .iter()
                        .map(|a| self.value(a))
                        .collect::<ApiResult<Vec<_>>>()?;
                    let name = match f.name() {
                        "pow" => "power",
                        other => other,
                    };
                    format!("{name}({})", args.join(", "))
                }
                Value::Let(..) => return Err(unsupported("a value bound inside an expression")),
            })
        })
    }
}

fn cmp_symbol(op: arith::CmpOp) -> &'static str {
    match op {
        arith::CmpOp::Eq => "==",
        arith::CmpOp::Ne => "!=",
        arith::CmpOp::Lt => "<",
        arith::CmpOp::Le => "<=",
        arith::CmpOp::Gt => ">",
        arith::CmpOp::Ge => ">=",
    }
}

/// Python's keywords and the names a hybrid script gives meaning to.
fn is_reserved(name: &str) -> bool {
    matches!(
        name,
        "False"
            | "None"
            | "True"
            | "and"
            | "as"
            | "assert"
            | "break"
            | "class"
            | "continue"
            | "def"
            | "del"
            | "elif"
            | "else"
            | "except"
            | "finally"
            | "for"
            | "from"
            | "global"
            | "if"
            | "import"
            | "in"
            | "is"
            | "lambda"
            | "nonlocal"
            | "not"
            | "or"
            | "pass"
            | "raise"
            | "return"
            | "try"
            | "while"
            | "with"
            | "yield"
            | "range"
            | "len"
            | "min"
            | "max"
            | "output_tensor"
            | "allocate"
            | "parallel"
            | "vectorize"
            | "unroll"
            | "bind"
            | "const_range"
            | "likely"
            | "ceil_div"
    )
}
