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
//! Built-in functions become `te` intrinsic calls, data-dependent indices
//! (`B(C(i))`) gathers, which need the whole extent of the axes they index,
//! `*=!` a product reduction. The one thing `te` cannot express is a
//! built-in without an exact implementation (`lgamma`, `erfinv`, Bessel
//! functions, ...), which direct evaluation cannot run either: an error with
//! a span.

use crate::ast::*;
use crate::diag::Diagnostic;
use crate::eval::{self, Buffer};
use crate::index::{Converter, Name, MAX_DEPTH};
use crate::infer::DefAnalysis;
use crate::sema::{self, Resolved, Role};
use arith::{Analyzer, CmpOp, Expr, Var};
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
    /// Inputs then outputs: the parameters of the lowered function (an
    /// input nothing reads, such as one only named in `exists` clauses, is
    /// passed through).
    pub fn args(&self) -> Vec<Tensor> {
        self.inputs
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
        // A declared output type is the type of what is stored: each value
        // is converted to it before it is combined.
        let declared = def
            .outputs
            .iter()
            .find(|o| o.name.name == s.lhs.name)
            .and_then(|o| o.ty.as_ref())
            .map(|t| dtype(t.scalar));
        let rhs = match declared {
            Some(t) if rhs.dtype() != t => Value::cast(t, rhs),
            _ => rhs,
        };
        let axes_iv: Vec<te::IterVar> = raxes.iter().map(|(_, iv)| iv.clone()).collect();
        let reduced = |op: ReduceOp, v: Value| -> Result<Value, Diagnostic> {
            Ok(match op {
                ReduceOp::Sum => te::sum(v, &axes_iv),
                ReduceOp::Max => te::max(v, &axes_iv),
                ReduceOp::Min => te::min(v, &axes_iv),
                ReduceOp::Product => te::prod(v, &axes_iv),
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
                .zip(&lo)
                .map(|(v, pl)| stored_at(v.expr(), pl))
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
                        .map(|(v, l)| stored_at(v.expr(), l))
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

/// Where the logical index `v` (a statement variable, which `build`
/// replaces by `axis + lower`) lies in a tensor stored from `base`.
fn stored_at(v: Expr, base: &Expr) -> Expr {
    if base.is_int(0) {
        return v;
    }
    Expr::sub(v, base.clone())
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
        let value = |x: ExprId| self.value(x, depth + 1);
        Ok(match &e.kind {
            ExprKind::Int(v) => Value::int(*v),
            ExprKind::Float(v) => Value::float(*v),
            ExprKind::Ident(n) => match self.lookup(n) {
                Some(Name::Var(v)) => Value::index(v.expr()),
                Some(Name::Let(x)) => value(x)?,
                _ => self.load(id, n, &[], depth)?,
            },
            ExprKind::Unary(UnaryOp::Neg, a) => Value::new(ValueKind::Neg(value(*a)?)),
            ExprKind::Unary(UnaryOp::Not, a) => match self.index(id) {
                Some(x) => Value::index(x),
                None => Value::new(ValueKind::Not(value(*a)?)),
            },
            ExprKind::Binary(op, a, b) => {
                let arith = match op {
                    BinaryOp::Add => Some(te::BinaryOp::Add),
                    BinaryOp::Sub => Some(te::BinaryOp::Sub),
                    BinaryOp::Mul => Some(te::BinaryOp::Mul),
                    BinaryOp::Div => Some(te::BinaryOp::Div),
                    BinaryOp::Min => Some(te::BinaryOp::Min),
                    BinaryOp::Max => Some(te::BinaryOp::Max),
                    _ => None,
                };
                if let Some(op) = arith {
                    return Ok(Value::binary(op, value(*a)?, value(*b)?));
                }
                // On indices alone: an index expression (or condition).
                if let Some(x) = self.index(id) {
                    return Ok(Value::index(x));
                }
                let (x, y) = (value(*a)?, value(*b)?);
                let cmp = |op| Value::cmp(op, x.clone(), y.clone());
                match op {
                    BinaryOp::Mod => Value::binary(te::BinaryOp::Mod, x, y),
                    BinaryOp::Lt => cmp(CmpOp::Lt),
                    BinaryOp::Gt => cmp(CmpOp::Gt),
                    BinaryOp::Le => cmp(CmpOp::Le),
                    BinaryOp::Ge => cmp(CmpOp::Ge),
                    BinaryOp::Eq => cmp(CmpOp::Eq),
                    BinaryOp::Ne => cmp(CmpOp::Ne),
                    BinaryOp::And => Value::new(ValueKind::And(x, y)),
                    BinaryOp::Or => Value::new(ValueKind::Or(x, y)),
                    _ => unreachable!("arithmetic operators are handled above"),
                }
            }
            ExprKind::Ternary(c, a, b) => match self.index(*c) {
                Some(cond) if cond.ty() == arith::Type::Bool => {
                    Value::select(cond, value(*a)?, value(*b)?)
                }
                _ => Value::select_value(value(*c)?, value(*a)?, value(*b)?),
            },
            ExprKind::Cast(t, a) => match self.index(*a) {
                Some(x) if !t.is_float() && *t != ScalarType::Bool => Value::index(x),
                _ => Value::cast(dtype(*t), value(*a)?),
            },
            ExprKind::Call(name, args) => {
                if sema::builtin_arity(&name.name).is_some() {
                    let f = tir::Intrinsic::from_name(&name.name).ok_or_else(|| {
                        self.unsupported(
                            id,
                            &format!(
                                "the built-in `{}` has no exact implementation to run",
                                name.name
                            ),
                        )
                    })?;
                    let xs = args.iter().map(|x| value(*x)).collect::<Result<_, _>>()?;
                    Value::call(f, xs)
                } else {
                    self.load(id, &name.name, args, depth)?
                }
            }
        })
    }

    /// A read of `tensor` at `args`: a load at index expressions, or a
    /// gather when some index is computed from tensor values.
    fn load(
        &self,
        id: ExprId,
        tensor: &str,
        args: &[ExprId],
        depth: usize,
    ) -> Result<Value, Diagnostic> {
        let mut idx: Vec<Result<Expr, Value>> = Vec::with_capacity(args.len());
        for a in args {
            idx.push(match self.index(*a) {
                Some(x) if x.ty() == arith::Type::Int => Ok(x),
                _ => Err(self.value(*a, depth + 1)?),
            });
        }
        let role = self.a.checked.tensors.get(tensor).map(|t| t.role);
        let (t, lower) = if role == Some(Role::Input) {
            let t = self
                .placeholders
                .get(tensor)
                .ok_or_else(|| self.unsupported(id, "unknown input"))?;
            (t, None)
        } else {
            let (t, lo) = self
                .current
                .get(tensor)
                .ok_or_else(|| self.unsupported(id, "read before definition"))?;
            (t, Some(lo))
        };
        // Outputs are stored from their lower bounds.
        let lo = |d: usize| lower.map(|l| &l[d]).filter(|l| !l.is_int(0));
        if idx.iter().all(|x| x.is_ok()) {
            let at: Vec<Expr> = idx
                .into_iter()
                .enumerate()
                .map(|(d, x)| {
                    let x = x.expect("checked above");
                    match lo(d) {
                        Some(l) => Expr::sub(x, l.clone()),
                        None => x,
                    }
                })
                .collect();
            return Ok(t.at(at));
        }
        let at: Vec<Value> = idx
            .into_iter()
            .enumerate()
            .map(|(d, x)| match (x, lo(d)) {
                (Ok(x), Some(l)) => Value::index(Expr::sub(x, l.clone())),
                (Ok(x), None) => Value::index(x),
                (Err(v), Some(l)) => Value::binary(te::BinaryOp::Sub, v, Value::index(l.clone())),
                (Err(v), None) => v,
            })
            .collect();
        Ok(Value::gather(t, at))
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
    /// The largest difference divided by the magnitude of direct
    /// evaluation's value where that exceeds 1: the program computes in
    /// `float32`, whose rounding grows with the value (a product of six
    /// factors near 7 is off by 1e-2 while exact to 7 digits).
    pub max_scaled_error: f64,
    /// Reads outside their tensor, in the program or in direct evaluation.
    pub out_of_bounds: u64,
    /// The first invalid reads, described.
    pub violations: Vec<String>,
}

impl RunReport {
    /// No invalid read and outputs equal within `tolerance`, relative to
    /// the value's magnitude where it exceeds 1.
    pub fn is_clean(&self, tolerance: f64) -> bool {
        self.out_of_bounds == 0 && self.max_scaled_error <= tolerance
    }
}

/// The exclusive upper end of the values each integer input may take
/// because it is read directly as an index (`B(C(i))`: `C`'s values index
/// `B`): the smallest size among the axes it indexes. Integer inputs read
/// this way are what the data-dependent note asks to lie in range, so
/// random inputs honour it.
fn index_tensor_limits(
    def: &Def,
    a: &DefAnalysis,
    dim: &dyn Fn(&Dim) -> Option<i64>,
) -> HashMap<String, i64> {
    let mut limits: HashMap<String, i64> = HashMap::new();
    let int_input = |n: &str| {
        a.checked
            .tensors
            .get(n)
            .is_some_and(|t| t.role == Role::Input && !t.scalar.is_float())
    };
    for s in &def.stmts {
        for id in def.exprs.preorder(s.rhs) {
            let ExprKind::Call(name, args) = &def.exprs.get(id).kind else {
                continue;
            };
            let Some(t) = a.checked.tensors.get(&name.name) else {
                continue;
            };
            if t.role != Role::Input {
                continue;
            }
            for (d, arg) in args.iter().enumerate() {
                let index_tensor = match &def.exprs.get(*arg).kind {
                    ExprKind::Call(c, _) => &c.name,
                    ExprKind::Ident(c) => c,
                    _ => continue,
                };
                if !int_input(index_tensor) {
                    continue;
                }
                if let Some(size) = t.dims.get(d).and_then(dim) {
                    let l = limits.entry(index_tensor.clone()).or_insert(size);
                    *l = (*l).min(size);
                }
            }
        }
    }
    limits
}

/// Lowers `def` (analysed as `a`), runs it on random inputs drawn from
/// `seed` with the given sizes, and compares every output element with
/// direct evaluation (and every read of both is checked).
///
/// Random inputs are in `[-1, 1]` for floats, 0 or 1 for `bool`, and 1 or
/// 2 for integers (valid as divisors and as indices into axes of size 3 or
/// more), except that an integer input read directly as an index of an
/// input (`B(C(i))`) takes values in `[0, n)`, `n` the smallest size of
/// the axes it indexes: the range the data-dependent note asks for. Other
/// data-dependent reads may fall outside their tensor; both sides report
/// them as out-of-bounds reads.
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
    let mut draw =
        |t: ScalarType, shape: &[i64], index_limit: Option<i64>| -> Result<Buffer, Diagnostic> {
            let n = eval::elements(shape).map_err(|m| Diagnostic::error(def.name.span, m))?;
            let data = (0..n)
                .map(|_| {
                    if t.is_float() {
                        rng.uniform(-1.0, 1.0) as f32 as f64
                    } else if t == ScalarType::Bool {
                        rng.int_in(0, 1) as f64
                    } else if let Some(limit) = index_limit.filter(|&l| l > 0) {
                        rng.int_in(0, limit - 1) as f64
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
    let limits = index_tensor_limits(def, a, &|d| eval_dim(d).ok());
    let mut inputs: HashMap<String, Buffer> = HashMap::new();
    for p in &def.params {
        let Some(ty) = &p.ty else { continue };
        let shape = ty
            .dims
            .iter()
            .map(eval_dim)
            .collect::<Result<Vec<i64>, _>>()?;
        let limit = limits.get(&p.name.name).copied();
        inputs.insert(p.name.name.clone(), draw(ty.scalar, &shape, limit)?);
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
            let mut b = draw(a.checked.tensors[&s.lhs.name].scalar, &shape, None)?;
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
        max_scaled_error: 0.0,
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
    // The lowered program takes every range to be non-empty, as TC's
    // inference does: with sizes that empty one, its tensors would have
    // negative extents. Direct evaluation runs such a statement as doing
    // nothing.
    for (si, sa) in a.stmts.iter().enumerate() {
        let ev = |e: &Expr| e.eval(&|v: &Var| env.get(v).copied()).ok();
        if let Some(r) = sa.ranges.iter().find(|r| {
            ev(&r.lower)
                .zip(ev(&r.upper))
                .is_some_and(|(lo, hi)| hi < lo)
        }) {
            report.not_lowered = Some(format!(
                "statement {} has an empty range with these sizes ({} <= {} < {}), and the \
                 lowered program takes ranges to be non-empty",
                si + 1,
                ev(&r.lower).unwrap_or_default(),
                r.name,
                ev(&r.upper).unwrap_or_default()
            ));
            return Ok(report);
        }
    }
    let func = te::lower(&l.schedule, &l.args()).map_err(|e| at_def(e.message))?;
    let mut tensors = HashMap::new();
    let read = &l.inputs;
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
    for ((name, t), buf) in l.outputs.iter().zip(params) {
        // The program stores its elements in the output's type: direct
        // evaluation's values are rounded to it before they are compared
        // (`exp(100)` is infinite in `float32`).
        let float32 = t.dtype() == DataType::Float32;
        let got = result
            .tensor(buf)
            .ok_or_else(|| at_def(format!("no result for `{name}`")))?;
        let Some(want) = direct.outputs.get(name) else {
            continue;
        };
        if got.data().len() != want.data.len() {
            report.max_abs_error = f64::INFINITY;
            report.max_scaled_error = f64::INFINITY;
            continue;
        }
        for (x, y) in got.data().iter().zip(&want.data) {
            let y = &if float32 { *y as f32 as f64 } else { *y };
            // Equal values, or NaN on both sides (`rsqrt` of a negative
            // random value), agree.
            let err = if x == y || (x.is_nan() && y.is_nan()) {
                0.0
            } else {
                (x - y).abs()
            };
            let (err, scaled) = if err.is_nan() {
                (f64::INFINITY, f64::INFINITY)
            } else {
                (err, err / y.abs().max(1.0))
            };
            report.max_abs_error = report.max_abs_error.max(err);
            report.max_scaled_error = report.max_scaled_error.max(scaled);
            report.compared += 1;
        }
    }
    Ok(report)
}
