//! Lowering a TC definition to `te`, and running it against direct
//! evaluation.
//!
//! Each statement becomes a compute over the extents of its left-hand
//! variables (index `i` of the compute is `lower + i` of the statement);
//! `op=!` with reduction variables becomes a `te` reduction over their
//! ranges; `op=` without `!` combines with the tensor's current values: an
//! earlier statement's result, or, when no statement defined it before, an
//! extra input holding the values the tensor had (`<name>_in`). A tensor
//! defined by several statements gets one compute per statement
//! (`<name>_s0`, `<name>_s1`, ..., the last one named `<name>`).
//!
//! What `te` cannot express is an error with a span: data-dependent indices,
//! built-in functions, comparisons of tensor values, `*=` reductions. Then
//! `--run` still evaluates the definition directly and checks every read.

use crate::ast::*;
use crate::diag::Diagnostic;
use crate::eval::{self, Buffer};
use crate::index::{Converter, Name, MAX_DEPTH};
use crate::infer::DefAnalysis;
use crate::sema::{self, Resolved, Role};
use arith::{Analyzer, Expr, Var};
use std::collections::HashMap;
use te::{Tensor, Value, ValueKind};
use tir::DataType;

/// A definition as `te` tensors.
pub struct Lowered {
    /// The schedule of the outputs (default: every stage at the root).
    pub schedule: te::Schedule,
    /// The inputs: parameters in order, then the current values of
    /// outputs updated before any definition (`<name>_in`).
    pub inputs: Vec<(String, Tensor)>,
    /// The outputs, as their last definitions.
    pub outputs: Vec<(String, Tensor)>,
}

impl Lowered {
    /// The inputs the outputs read (an input only named in `exists`
    /// clauses is not part of the program).
    pub fn read_inputs(&self) -> Vec<(String, Tensor)> {
        self.inputs
            .iter()
            .filter(|(_, t)| self.schedule.stage(t).is_ok())
            .cloned()
            .collect()
    }

    /// Read inputs then outputs: the parameters of the lowered function.
    pub fn args(&self) -> Vec<Tensor> {
        self.read_inputs()
            .iter()
            .chain(&self.outputs)
            .map(|(_, t)| t.clone())
            .collect()
    }
}

/// The element type `te` uses for a TC type (`uint64` and `float16` have no
/// counterpart: `int64` and `float32`).
pub fn dtype(t: ScalarType) -> DataType {
    use ScalarType::*;
    match t {
        Bool => DataType::Bool,
        UInt8 => DataType::UInt8,
        UInt16 => DataType::UInt16,
        UInt32 => DataType::UInt32,
        UInt64 | Int64 => DataType::Int64,
        Int8 => DataType::Int8,
        Int16 => DataType::Int16,
        Int32 => DataType::Int32,
        Float16 | Float32 | Float => DataType::Float32,
        Float64 | Double => DataType::Float64,
    }
}

/// Lowers an analysed definition without errors to `te`.
pub fn to_te(def: &Def, a: &DefAnalysis) -> Result<Lowered, Diagnostic> {
    if let Some(e) = a
        .diagnostics
        .iter()
        .find(|d| d.severity == crate::Severity::Error)
    {
        return Err(e.clone());
    }
    let size = |n: &str| a.size(n).map(|v| v.expr());
    let mut inputs = Vec::new();
    let mut placeholders: HashMap<String, Tensor> = HashMap::new();
    for p in &def.params {
        let Some(ty) = &p.ty else { continue };
        let shape: Vec<Expr> = ty
            .dims
            .iter()
            .map(|d| match d {
                Dim::Const(v, _) => Expr::int(*v),
                Dim::Size(s) => size(&s.name).unwrap_or(Expr::int(0)),
            })
            .collect();
        let t = te::placeholder(shape, &p.name.name, dtype(ty.scalar))
            .map_err(|e| Diagnostic::error(p.name.span, e.message))?;
        placeholders.insert(p.name.name.clone(), t.clone());
        inputs.push((p.name.name.clone(), t));
    }
    let mut count: HashMap<&str, usize> = HashMap::new();
    for s in &def.stmts {
        *count.entry(s.lhs.name.as_str()).or_default() += 1;
    }
    let mut seen: HashMap<&str, usize> = HashMap::new();
    // The current version of each output and its logical lower bounds.
    let mut current: HashMap<String, (Tensor, Vec<Expr>)> = HashMap::new();
    let an = Analyzer::new();
    for (si, s) in def.stmts.iter().enumerate() {
        let sa = &a.stmts[si];
        let cs = &a.checked.stmts[si];
        let k = seen.entry(s.lhs.name.as_str()).or_default();
        let version = *k;
        *k += 1;
        let name = if version + 1 == count[s.lhs.name.as_str()] {
            s.lhs.name.clone()
        } else {
            format!("{}_s{version}", s.lhs.name)
        };
        if def.exprs.height(s.rhs) > MAX_DEPTH {
            return Err(Diagnostic::error(
                def.exprs.get(s.rhs).span,
                format!("the right-hand side nests more than {MAX_DEPTH} levels: too deep to lower to te"),
            ));
        }
        let mut lhs_vars = Vec::new();
        let mut lower = Vec::new();
        let mut shape = Vec::new();
        for ix in &s.indices {
            let r = sa
                .ranges
                .iter()
                .find(|r| r.name == ix.name)
                .ok_or_else(|| Diagnostic::error(ix.span, "no inferred range"))?;
            lhs_vars.push(r.var.clone());
            lower.push(r.lower.clone());
            shape.push(
                an.simplify(&Expr::sub(r.upper.clone(), r.lower.clone()))
                    .unwrap_or_else(|_| Expr::sub(r.upper.clone(), r.lower.clone())),
            );
        }
        let mut raxes = Vec::new();
        for r in sa.ranges.iter().filter(|r| !r.on_lhs) {
            raxes.push((
                r.var.clone(),
                te::reduce_axis((r.lower.clone(), r.upper.clone()), &r.name),
            ));
        }
        let cx = ValueCx {
            def,
            a,
            cs,
            vars: sa
                .ranges
                .iter()
                .map(|r| (r.name.clone(), r.var.clone()))
                .collect(),
            placeholders: &placeholders,
            current: &current,
        };
        let rhs = cx.value(s.rhs, 0)?;
        let axes_iv: Vec<te::IterVar> = raxes.iter().map(|(_, iv)| iv.clone()).collect();
        let reduced = |op: ReduceOp, v: Value| -> Result<Value, Diagnostic> {
            Ok(match op {
                ReduceOp::Sum => te::sum(v, &axes_iv),
                ReduceOp::Max => te::max(v, &axes_iv),
                ReduceOp::Min => te::min(v, &axes_iv),
                ReduceOp::Product => {
                    return Err(Diagnostic::error(
                        s.op_span,
                        "te has no product reduction: a `*=` statement with reduction \
                         variables cannot be lowered",
                    ))
                }
            })
        };
        // The current values of the tensor, at this statement's indices.
        let prev_at = |current: &HashMap<String, (Tensor, Vec<Expr>)>,
                       inputs: &mut Vec<(String, Tensor)>|
         -> Result<Value, Diagnostic> {
            let (t, lo) = match current.get(&s.lhs.name) {
                Some(x) => x.clone(),
                None => {
                    let t = te::placeholder(
                        shape.clone(),
                        &format!("{}_in", s.lhs.name),
                        dtype(a.checked.tensors[&s.lhs.name].scalar),
                    )
                    .map_err(|e| Diagnostic::error(s.lhs.span, e.message))?;
                    inputs.push((s.lhs.name.clone(), t.clone()));
                    (t, lower.clone())
                }
            };
            let idx: Vec<Expr> = lhs_vars
                .iter()
                .zip(&lower)
                .zip(&lo)
                .map(|((v, l), pl)| offset(v.expr(), l, pl))
                .collect();
            Ok(t.at(idx))
        };
        let combine = |op: ReduceOp, x: Value, y: Value| -> Value {
            match op {
                ReduceOp::Sum => x + y,
                ReduceOp::Product => x * y,
                ReduceOp::Min => Value::min(x, y),
                ReduceOp::Max => Value::max(x, y),
            }
        };
        let body = match s.op {
            AssignOp::Assign => rhs,
            // `op=!` without reduction variables: `identity op rhs` is `rhs`.
            AssignOp::Reduce { init: true, .. } if raxes.is_empty() => rhs,
            AssignOp::Reduce { op, init: true } => reduced(op, rhs)?,
            AssignOp::Reduce { op, init: false } => {
                let prev = prev_at(&current, &mut inputs)?;
                if raxes.is_empty() {
                    combine(op, prev, rhs)
                } else {
                    let red_body = reduced(op, rhs)?;
                    let red = build(
                        &shape,
                        &s.indices,
                        &lhs_vars,
                        &lower,
                        &raxes,
                        red_body,
                        &format!("{name}_red"),
                    )
                    .map_err(|e| Diagnostic::error(s.span, e))?;
                    let at: Vec<Expr> = lhs_vars
                        .iter()
                        .zip(&lower)
                        .map(|(v, l)| offset(v.expr(), l, l))
                        .collect();
                    combine(op, prev, red.at(at))
                }
            }
        };
        let t = build(&shape, &s.indices, &lhs_vars, &lower, &raxes, body, &name)
            .map_err(|e| Diagnostic::error(s.span, e))?;
        current.insert(s.lhs.name.clone(), (t, lower));
    }
    let mut outputs = Vec::new();
    for o in &def.outputs {
        if let Some((t, _)) = current.get(&o.name.name) {
            outputs.push((o.name.name.clone(), t.clone()));
        }
    }
    let ops: Vec<Tensor> = outputs.iter().map(|(_, t)| t.clone()).collect();
    Ok(Lowered {
        schedule: te::create_schedule(&ops),
        inputs,
        outputs,
    })
}

/// `v + lo - base`, simplified when the bounds are equal.
fn offset(v: Expr, lo: &Expr, base: &Expr) -> Expr {
    if lo == base {
        return v;
    }
    Expr::sub(Expr::add(v, lo.clone()), base.clone())
}

/// A compute over `shape` whose axis `d` stands for `lower[d] + axis`.
fn build(
    shape: &[Expr],
    indices: &[Ident],
    lhs_vars: &[Var],
    lower: &[Expr],
    raxes: &[(Var, te::IterVar)],
    body: Value,
    name: &str,
) -> Result<Tensor, String> {
    let names: Vec<&str> = indices.iter().map(|i| i.name.as_str()).collect();
    te::compute_named(
        shape.to_vec(),
        &names,
        |axes| {
            body.substitute(&mut |v: &Var| {
                if let Some(d) = lhs_vars.iter().position(|x| x == v) {
                    let a = axes[d].clone();
                    return Some(if lower[d].is_int(0) {
                        a
                    } else {
                        Expr::add(a, lower[d].clone())
                    });
                }
                raxes.iter().find(|(x, _)| x == v).map(|(_, iv)| iv.expr())
            })
        },
        name,
    )
    .map_err(|e| e.message)
}

struct ValueCx<'a> {
    def: &'a Def,
    a: &'a DefAnalysis,
    cs: &'a sema::CheckedStmt,
    vars: HashMap<String, Var>,
    placeholders: &'a HashMap<String, Tensor>,
    current: &'a HashMap<String, (Tensor, Vec<Expr>)>,
}

impl ValueCx<'_> {
    fn lookup(&self, n: &str) -> Option<Name> {
        match self.cs.resolve(n, &self.a.checked)? {
            Resolved::Index(_) => self.vars.get(n).map(|v| Name::Var(v.clone())),
            Resolved::Size => self.a.size(n).map(|v| Name::Var(v.clone())),
            Resolved::Let(e) => Some(Name::Let(e)),
            Resolved::Scalar => Some(Name::Value),
        }
    }

    fn index(&self, id: ExprId) -> Option<Expr> {
        let lookup = |n: &str| self.lookup(n);
        let mut c = Converter {
            arena: &self.def.exprs,
            lookup: &lookup,
            holes: None,
        };
        c.to_arith(id).ok().flatten()
    }

    fn unsupported(&self, id: ExprId, what: &str) -> Diagnostic {
        Diagnostic::error(
            self.def.exprs.get(id).span,
            format!("cannot lower to te: {what}"),
        )
    }

    fn value(&self, id: ExprId, depth: usize) -> Result<Value, Diagnostic> {
        if depth > MAX_DEPTH {
            return Err(self.unsupported(id, "the expression nests too deeply"));
        }
        let e = self.def.exprs.get(id);
        Ok(match &e.kind {
            ExprKind::Int(v) => Value::int(*v),
            ExprKind::Float(v) => Value::float(*v),
            ExprKind::Ident(n) => match self.lookup(n) {
                Some(Name::Var(v)) => Value::index(v.expr()),
                Some(Name::Let(x)) => self.value(x, depth + 1)?,
                _ => self.load(id, n, &[])?,
            },
            ExprKind::Unary(UnaryOp::Neg, a) => {
                Value::new(ValueKind::Neg(self.value(*a, depth + 1)?))
            }
            ExprKind::Binary(op, a, b) => {
                let bin = match op {
                    BinaryOp::Add => Some(te::BinaryOp::Add),
                    BinaryOp::Sub => Some(te::BinaryOp::Sub),
                    BinaryOp::Mul => Some(te::BinaryOp::Mul),
                    BinaryOp::Div => Some(te::BinaryOp::Div),
                    BinaryOp::Min => Some(te::BinaryOp::Min),
                    BinaryOp::Max => Some(te::BinaryOp::Max),
                    _ => None,
                };
                match bin {
                    Some(op) => {
                        Value::binary(op, self.value(*a, depth + 1)?, self.value(*b, depth + 1)?)
                    }
                    None => match self.index(id) {
                        Some(x) if x.ty() == arith::Type::Int => Value::index(x),
                        _ => {
                            return Err(self.unsupported(
                                id,
                                &format!(
                                    "`{}` on tensor values has no te counterpart",
                                    op.symbol()
                                ),
                            ))
                        }
                    },
                }
            }
            ExprKind::Ternary(c, a, b) => {
                match self.index(*c) {
                    Some(cond) if cond.ty() == arith::Type::Bool => {
                        Value::select(cond, self.value(*a, depth + 1)?, self.value(*b, depth + 1)?)
                    }
                    _ => return Err(self.unsupported(
                        *c,
                        "te selects on index conditions only; this condition reads tensor values",
                    )),
                }
            }
            ExprKind::Cast(t, a) => {
                if t.is_float() {
                    self.value(*a, depth + 1)?
                } else {
                    match self.index(*a) {
                        Some(x) if x.ty() == arith::Type::Int => Value::index(x),
                        _ => {
                            return Err(self.unsupported(
                                id,
                                "converting tensor values to integers has no te counterpart",
                            ))
                        }
                    }
                }
            }
            ExprKind::Unary(UnaryOp::Not, _) => {
                return Err(self.unsupported(id, "`!` on values has no te counterpart"))
            }
            ExprKind::Call(name, args) => {
                if sema::builtin_arity(&name.name).is_some() {
                    return Err(self.unsupported(
                        id,
                        &format!("the built-in `{}` has no te counterpart", name.name),
                    ));
                }
                self.load(id, &name.name, args)?
            }
        })
    }

    fn load(&self, id: ExprId, tensor: &str, args: &[ExprId]) -> Result<Value, Diagnostic> {
        let mut idx = Vec::with_capacity(args.len());
        for a in args {
            match self.index(*a) {
                Some(x) if x.ty() == arith::Type::Int => idx.push(x),
                _ => {
                    return Err(self.unsupported(
                        *a,
                        "this index depends on tensor values (te loads take index expressions)",
                    ))
                }
            }
        }
        let role = self.a.checked.tensors.get(tensor).map(|t| t.role);
        if role == Some(Role::Input) {
            let t = self
                .placeholders
                .get(tensor)
                .ok_or_else(|| self.unsupported(id, "unknown input"))?;
            return Ok(t.at(idx));
        }
        let (t, lo) = self
            .current
            .get(tensor)
            .ok_or_else(|| self.unsupported(id, "read before definition"))?;
        let idx: Vec<Expr> = idx
            .into_iter()
            .zip(lo)
            .map(|(x, l)| {
                if l.is_int(0) {
                    x
                } else {
                    Expr::sub(x, l.clone())
                }
            })
            .collect();
        Ok(t.at(idx))
    }
}

/// The outcome of `--run`.
#[derive(Clone, Debug, PartialEq)]
pub struct RunReport {
    /// Whether the definition was lowered to `te` and run by the
    /// interpreter (otherwise only direct evaluation ran).
    pub lowered: bool,
    /// Why it could not be lowered.
    pub not_lowered: Option<String>,
    /// Output elements compared between the program and direct evaluation.
    pub compared: u64,
    /// The largest absolute difference.
    pub max_abs_error: f64,
    /// Reads outside their tensor, in the program or in direct evaluation.
    pub out_of_bounds: u64,
    /// The first invalid reads, described.
    pub violations: Vec<String>,
}

impl RunReport {
    /// No invalid read and outputs equal within `tolerance`.
    pub fn is_clean(&self, tolerance: f64) -> bool {
        self.out_of_bounds == 0 && self.max_abs_error <= tolerance
    }
}

/// Lowers `def` (analysed as `a`), runs it on random inputs drawn from
/// `seed` with the given sizes, and compares every output element with
/// direct evaluation. When `te` cannot express the definition, only direct
/// evaluation runs (and still checks every read).
pub fn run(
    def: &Def,
    a: &DefAnalysis,
    sizes: &HashMap<String, i64>,
    seed: u64,
) -> Result<RunReport, Diagnostic> {
    let env: HashMap<Var, i64> = a
        .sizes
        .iter()
        .filter_map(|(n, v)| sizes.get(n).map(|x| (v.clone(), *x)))
        .collect();
    let at_def = |m: String| Diagnostic::error(def.name.span, m);
    let mut rng = te::XorShift::new(seed);
    let mut draw = |t: ScalarType, shape: &[i64]| -> Result<Buffer, Diagnostic> {
        let n = eval::elements(shape).map_err(|m| Diagnostic::error(def.name.span, m))?;
        let data = (0..n)
            .map(|_| {
                if t.is_float() {
                    rng.uniform(-1.0, 1.0) as f32 as f64
                } else if t == ScalarType::Bool {
                    rng.int_in(0, 1) as f64
                } else {
                    // Small positive integers: valid as indices into any
                    // dimension of size 3 or more, and as divisors.
                    rng.int_in(1, 2) as f64
                }
            })
            .collect();
        Ok(Buffer {
            lower: vec![0; shape.len()],
            shape: shape.to_vec(),
            data,
        })
    };
    let eval_dim = |d: &Dim| -> Result<i64, Diagnostic> {
        match d {
            Dim::Const(v, _) => Ok(*v),
            Dim::Size(s) => sizes.get(&s.name).copied().ok_or_else(|| {
                Diagnostic::error(s.span, format!("no value for size `{}`", s.name))
            }),
        }
    };
    let mut inputs: HashMap<String, Buffer> = HashMap::new();
    for p in &def.params {
        let Some(ty) = &p.ty else { continue };
        let shape = ty
            .dims
            .iter()
            .map(eval_dim)
            .collect::<Result<Vec<i64>, _>>()?;
        inputs.insert(p.name.name.clone(), draw(ty.scalar, &shape)?);
    }
    let lowered = to_te(def, a);
    // Current values of outputs updated before their first definition:
    // the shape of that statement.
    let mut existing: HashMap<String, Buffer> = HashMap::new();
    let mut defined: Vec<&str> = Vec::new();
    for (si, s) in def.stmts.iter().enumerate() {
        if matches!(s.op, AssignOp::Reduce { init: false, .. })
            && !defined.contains(&s.lhs.name.as_str())
            && !existing.contains_key(&s.lhs.name)
        {
            let mut lower = Vec::new();
            let mut shape = Vec::new();
            for ix in &s.indices {
                if let Some(r) = a.stmts[si].ranges.iter().find(|r| r.name == ix.name) {
                    let lo = r
                        .lower
                        .eval(&|v: &Var| env.get(v).copied())
                        .map_err(|e| at_def(e.message))?;
                    let hi = r
                        .upper
                        .eval(&|v: &Var| env.get(v).copied())
                        .map_err(|e| at_def(e.message))?;
                    lower.push(lo);
                    shape.push(hi.saturating_sub(lo).max(0));
                }
            }
            let mut b = draw(a.checked.tensors[&s.lhs.name].scalar, &shape)?;
            b.lower = lower;
            existing.insert(s.lhs.name.clone(), b);
        }
        defined.push(s.lhs.name.as_str());
    }
    let direct = eval::evaluate(def, a, &env, &inputs, &existing).map_err(at_def)?;
    let mut report = RunReport {
        lowered: false,
        not_lowered: None,
        compared: 0,
        max_abs_error: 0.0,
        out_of_bounds: direct.out_of_bounds,
        violations: direct.violations.clone(),
    };
    let l = match lowered {
        Ok(l) => l,
        Err(d) => {
            report.not_lowered = Some(d.message);
            return Ok(report);
        }
    };
    let func = te::lower(&l.schedule, &l.args()).map_err(|e| at_def(e.message))?;
    let mut tensors = HashMap::new();
    let read = l.read_inputs();
    for ((name, t), buf) in read.iter().zip(&func.params) {
        let is_param = def.params.iter().any(|p| &p.name.name == name) && t.name() == name.as_str();
        let b = if is_param {
            &inputs[name]
        } else {
            &existing[name]
        };
        let shape: Vec<usize> = b.shape.iter().map(|d| *d as usize).collect();
        let data = tir::Tensor::new(shape, b.data.clone()).map_err(|e| at_def(format!("{e:?}")))?;
        tensors.insert(buf.clone(), data);
    }
    let result = tir::Interpreter::new()
        .keep_going(true)
        .max_steps(eval::STEP_LIMIT)
        .max_reported(8)
        .run(&func, &tensors, &env)
        .map_err(|e| at_def(format!("running the lowered program failed: {e}")))?;
    report.lowered = true;
    report.out_of_bounds += result.violation_count();
    report
        .violations
        .extend(result.violations().iter().map(|v| v.to_string()));
    let params = &func.params[read.len()..];
    for ((name, _), buf) in l.outputs.iter().zip(params) {
        let got = result
            .tensor(buf)
            .ok_or_else(|| at_def(format!("no result for `{name}`")))?;
        let Some(want) = direct.outputs.get(name) else {
            continue;
        };
        if got.data().len() != want.data.len() {
            report.max_abs_error = f64::INFINITY;
            continue;
        }
        for (x, y) in got.data().iter().zip(&want.data) {
            let err = if x == y { 0.0 } else { (x - y).abs() };
            report.max_abs_error = if err.is_nan() {
                f64::INFINITY
            } else {
                report.max_abs_error.max(err)
            };
            report.compared += 1;
        }
    }
    Ok(report)
}
