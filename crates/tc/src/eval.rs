//! Direct evaluation of a TC definition on concrete inputs, with the
//! semantics of TC's documentation: every statement loops over the inferred
//! ranges of its variables, `op=!` starts from the identity of `op`, `op=`
//! from the tensor's current values. Every read is checked against the
//! tensor's bounds. This is the oracle lowered programs are compared with.

use crate::ast::*;
use crate::infer::DefAnalysis;
use crate::sema::{self, Resolved, Role};
use arith::Var;
use std::cell::RefCell;
use std::collections::HashMap;
use tir::DataType;

/// A tensor with logical index bounds `[lower, lower + shape)` per
/// dimension, row-major.
#[derive(Clone, Debug, PartialEq)]
pub struct Buffer {
    /// The first index per dimension.
    pub lower: Vec<i64>,
    /// The extent per dimension.
    pub shape: Vec<i64>,
    /// The elements.
    pub data: Vec<f64>,
}

/// The most elements a tensor may have to be evaluated.
pub const ELEMENT_LIMIT: i64 = 16_000_000;

/// The number of elements of `shape`, if it is at most [`ELEMENT_LIMIT`].
pub fn elements(shape: &[i64]) -> Result<usize, String> {
    let mut n: i64 = 1;
    for d in shape {
        n = n
            .checked_mul((*d).max(0))
            .filter(|n| *n <= ELEMENT_LIMIT)
            .ok_or_else(|| {
                format!("a tensor of shape {shape:?} has more than {ELEMENT_LIMIT} elements: too large to run")
            })?;
    }
    Ok(n as usize)
}

impl Buffer {
    /// A buffer filled with `v`.
    pub fn filled(lower: Vec<i64>, shape: Vec<i64>, v: f64) -> Result<Buffer, String> {
        let n = elements(&shape)?;
        Ok(Buffer {
            lower,
            shape,
            data: vec![v; n],
        })
    }

    /// The position of logical index `idx`, if inside.
    pub fn offset(&self, idx: &[i64]) -> Option<usize> {
        if idx.len() != self.shape.len() {
            return None;
        }
        let mut off: i64 = 0;
        for ((i, lo), n) in idx.iter().zip(&self.lower).zip(&self.shape) {
            let k = i - lo;
            if k < 0 || k >= *n {
                return None;
            }
            off = off * n + k;
        }
        Some(off as usize)
    }
}

/// What direct evaluation produced.
#[derive(Clone, Debug, Default)]
pub struct Evaluation {
    /// The final value of every output.
    pub outputs: HashMap<String, Buffer>,
    /// How many reads were outside their tensor.
    pub out_of_bounds: u64,
    /// The first out-of-bounds reads, described.
    pub violations: Vec<String>,
}

/// How many statement instances evaluation may run.
pub const STEP_LIMIT: u64 = 20_000_000;

/// Evaluates `def` with sizes `env` on `inputs` (by name, logical lower
/// bounds 0). `existing` gives the current values of outputs that a
/// statement updates (`+=` without `!`) before any statement defines them.
pub fn evaluate(
    def: &Def,
    a: &DefAnalysis,
    env: &HashMap<Var, i64>,
    inputs: &HashMap<String, Buffer>,
    existing: &HashMap<String, Buffer>,
) -> Result<Evaluation, String> {
    let mut ev = Evaluator {
        def,
        a,
        env,
        inputs,
        outputs: HashMap::new(),
        out_of_bounds: 0,
        violations: Vec::new(),
        vals: HashMap::new(),
        stmt: 0,
        steps: 0,
        stored_float: HashMap::new(),
        stored_wide: HashMap::new(),
    };
    for (si, s) in def.stmts.iter().enumerate() {
        ev.stmt = si;
        ev.statement(s, existing)?;
    }
    Ok(Evaluation {
        outputs: ev.outputs,
        out_of_bounds: ev.out_of_bounds,
        violations: ev.violations,
    })
}

struct Evaluator<'a> {
    def: &'a Def,
    a: &'a DefAnalysis,
    env: &'a HashMap<Var, i64>,
    inputs: &'a HashMap<String, Buffer>,
    outputs: HashMap<String, Buffer>,
    out_of_bounds: u64,
    violations: Vec<String>,
    /// Values of the statement's index variables (by position).
    vals: HashMap<String, i64>,
    stmt: usize,
    steps: u64,
    /// Whether the values last stored in each output without a declared
    /// type are floating point: an output's type is that of what defines
    /// it (as the lowered `te` compute's is), so `T(i) = A(i)` with an
    /// integer `A` divides as an integer when read.
    stored_float: HashMap<String, bool>,
    /// Likewise, whether those values are double precision.
    stored_wide: HashMap<String, bool>,
}

/// A value, whether it is floating point (integer division floors), and
/// whether it is double precision. A single-precision value is rounded to
/// `float32` after every operation, as the lowered program computes it:
/// an intermediate value past `float32`'s range is infinite in both, where
/// a `float64` evaluation would come back into range and disagree.
#[derive(Clone, Copy)]
struct V {
    x: f64,
    float: bool,
    wide: bool,
}

impl V {
    /// An integer (or boolean) value.
    fn int(x: f64) -> V {
        V {
            x,
            float: false,
            wide: false,
        }
    }

    /// A floating-point value of double precision when `wide`, else
    /// rounded to single precision.
    fn float(x: f64, wide: bool) -> V {
        V {
            x: if wide { x } else { x as f32 as f64 },
            float: true,
            wide,
        }
    }

    /// `x` with the type of an arithmetic operation on `a` and `b`: the
    /// floating-point operand's, the wider of two (as `te` promotes).
    fn of_operation(x: f64, a: V, b: V) -> V {
        if a.float || b.float {
            V::float(x, (a.float && a.wide) || (b.float && b.wide))
        } else {
            V::int(x)
        }
    }
}

/// The value a reduction that starts afresh (`+=!`, `max=!`, ...) starts
/// from in `dtype`: te's identity, as the lowered program starts from it
/// (for `max` and `min` the lowest and highest finite value of the type,
/// not an infinity).
fn identity(op: ReduceOp, dtype: DataType) -> f64 {
    let reducer = match op {
        ReduceOp::Sum => te::Reducer::Sum,
        ReduceOp::Product => te::Reducer::Prod,
        ReduceOp::Min => te::Reducer::Min,
        ReduceOp::Max => te::Reducer::Max,
    };
    reducer.identity(dtype)
}

fn combine(op: ReduceOp, a: f64, b: f64) -> f64 {
    match op {
        ReduceOp::Sum => a + b,
        ReduceOp::Product => a * b,
        ReduceOp::Min => a.min(b),
        ReduceOp::Max => a.max(b),
    }
}

impl Evaluator<'_> {
    fn statement(&mut self, s: &Stmt, existing: &HashMap<String, Buffer>) -> Result<(), String> {
        let sa = &self.a.stmts[self.stmt];
        let env = self.env;
        let ev = |e: &arith::Expr| {
            e.eval(&|v: &Var| env.get(v).copied())
                .map_err(|e| format!("cannot evaluate a range: {}", e.message))
        };
        let mut ranges: Vec<(String, i64, i64)> = Vec::new();
        for r in &sa.ranges {
            ranges.push((r.name.clone(), ev(&r.lower)?, ev(&r.upper)?));
        }
        let mut lower = Vec::new();
        let mut shape = Vec::new();
        for ix in &s.indices {
            let r = ranges
                .iter()
                .find(|r| r.0 == ix.name)
                .ok_or_else(|| format!("no range for `{}`", ix.name))?;
            lower.push(r.1);
            shape.push(r.2.saturating_sub(r.1).max(0));
        }
        let mut buf = Buffer::filled(lower.clone(), shape.clone(), 0.0)?;
        // The type of what is stored: a declared type, else that of what
        // defines it (as the lowered `te` compute's is).
        let declared_ty = self
            .def
            .outputs
            .iter()
            .find(|o| o.name.name == s.lhs.name)
            .and_then(|o| o.ty.as_ref())
            .map(|t| crate::lower::dtype(t.scalar));
        // The type of what defines it, for a statement that runs no
        // iteration too.
        let rhs_ty = declared_ty.unwrap_or_else(|| crate::lower::dtype(self.type_of(s.rhs)));
        match s.op {
            AssignOp::Assign => {}
            AssignOp::Reduce { op, init: true } => buf.data.fill(identity(op, rhs_ty)),
            AssignOp::Reduce { init: false, .. } => {
                let prev = self
                    .outputs
                    .get(&s.lhs.name)
                    .or_else(|| existing.get(&s.lhs.name))
                    .cloned();
                if let Some(prev) = prev {
                    // The current values, at the same logical indices.
                    let mut idx = lower.clone();
                    for k in 0..buf.data.len() {
                        buf.data[k] = match prev.offset(&idx) {
                            Some(o) => prev.data[o],
                            None => {
                                self.oob(&s.lhs.name, &idx);
                                0.0
                            }
                        };
                        next_index(&mut idx, &lower, &shape);
                    }
                }
            }
        }
        // Odometer over all variables.
        let total: i64 = ranges
            .iter()
            .try_fold(1i64, |acc, r| {
                acc.checked_mul(r.2.saturating_sub(r.1).max(0))
            })
            .unwrap_or(i64::MAX);
        self.steps = self.steps.saturating_add(total.max(0) as u64);
        if self.steps > STEP_LIMIT {
            return Err(format!(
                "direct evaluation would take more than {STEP_LIMIT} steps: use smaller sizes"
            ));
        }
        let mut rhs_float: Option<bool> = None;
        let mut rhs_wide: Option<bool> = None;
        // What each element is stored as: a declared type, else the type of
        // what defines it, combined with the current values' for an update
        // (as the lowered `te` compute's type is).
        let update = matches!(s.op, AssignOp::Reduce { init: false, .. });
        let prev_float = update && self.tensor_is_float(&s.lhs.name);
        let prev_wide = prev_float && self.tensor_is_wide(&s.lhs.name);
        let declared_int = self.def.outputs.iter().any(|o| {
            o.name.name == s.lhs.name
                && o.ty
                    .as_ref()
                    .is_some_and(|t| !t.scalar.is_float() && t.scalar != ScalarType::Bool)
        });
        if total > 0 {
            let mut cur: Vec<i64> = ranges.iter().map(|r| r.1).collect();
            let lo: Vec<i64> = cur.clone();
            let ext: Vec<i64> = ranges.iter().map(|r| r.2.saturating_sub(r.1)).collect();
            let pos: Vec<usize> = s
                .indices
                .iter()
                .map(|ix| ranges.iter().position(|r| r.0 == ix.name).unwrap_or(0))
                .collect();
            for _ in 0..total {
                self.vals.clear();
                for (r, v) in ranges.iter().zip(&cur) {
                    self.vals.insert(r.0.clone(), *v);
                }
                let value = self.eval(s.rhs, 0)?;
                rhs_float.get_or_insert(value.float);
                rhs_wide.get_or_insert(value.float && value.wide);
                // A declared integer output stores integers: each value is
                // converted (toward zero, as a cast) before it is combined.
                let v = if value.float && declared_int {
                    value.x.trunc()
                } else {
                    value.x
                };
                let at: Vec<i64> = pos.iter().map(|p| cur[*p]).collect();
                if let Some(o) = buf.offset(&at) {
                    let stored = match s.op {
                        AssignOp::Assign => v,
                        AssignOp::Reduce { op, .. } => combine(op, buf.data[o], v),
                    };
                    buf.data[o] = match declared_ty {
                        Some(t) => t.round(stored),
                        None if (value.float || prev_float)
                            && !((value.float && value.wide) || prev_wide) =>
                        {
                            stored as f32 as f64
                        }
                        None => stored,
                    };
                }
                next_index(&mut cur, &lo, &ext);
            }
        }
        let declared = self
            .def
            .outputs
            .iter()
            .any(|o| o.name.name == s.lhs.name && o.ty.is_some());
        if !declared {
            // An update combines with the current values, whose type counts.
            let float = rhs_float.unwrap_or(rhs_ty.is_float()) || prev_float;
            self.stored_float.insert(s.lhs.name.clone(), float);
            let wide = rhs_wide.unwrap_or(rhs_ty == DataType::Float64) || prev_wide;
            self.stored_wide.insert(s.lhs.name.clone(), float && wide);
        }
        self.outputs.insert(s.lhs.name.clone(), buf);
        Ok(())
    }

    fn oob(&mut self, tensor: &str, idx: &[i64]) {
        self.out_of_bounds += 1;
        if self.violations.len() < 8 {
            let vars: Vec<String> = {
                let mut v: Vec<String> = self
                    .vals
                    .iter()
                    .map(|(n, x)| format!("{n} = {x}"))
                    .collect();
                v.sort();
                v
            };
            self.violations.push(format!(
                "statement {} reads `{tensor}` at {idx:?}, outside its bounds ({})",
                self.stmt + 1,
                vars.join(", ")
            ));
        }
    }

    fn read(&mut self, tensor: &str, idx: &[i64]) -> f64 {
        let buf = match self.a.checked.tensors.get(tensor).map(|t| t.role) {
            Some(Role::Input) => self.inputs.get(tensor),
            _ => self.outputs.get(tensor),
        };
        match buf.and_then(|b| b.offset(idx).map(|o| b.data[o])) {
            Some(x) => x,
            None => {
                self.oob(tensor, idx);
                0.0
            }
        }
    }

    /// The static type of expression `root` of the current statement.
    fn type_of(&self, root: ExprId) -> ScalarType {
        self.type_within(root, &RefCell::new(HashMap::new()), 0)
    }

    /// [`Evaluator::type_of`], each `where` let typed once (`lets`) and
    /// nested as deeply as evaluation allows (beyond, the default `float`:
    /// evaluating such a statement fails anyway).
    fn type_within(
        &self,
        root: ExprId,
        lets: &RefCell<HashMap<ExprId, ScalarType>>,
        depth: usize,
    ) -> ScalarType {
        if depth > 4 * crate::parser::MAX_NESTING {
            return ScalarType::Float;
        }
        let cs = &self.a.checked.stmts[self.stmt];
        let name = |n: &str| match cs.resolve(n, &self.a.checked) {
            Some(Resolved::Index(_) | Resolved::Size) => ScalarType::Int32,
            Some(Resolved::Let(x)) => {
                if let Some(&t) = lets.borrow().get(&x) {
                    return t;
                }
                let t = self.type_within(x, lets, depth + 1);
                lets.borrow_mut().insert(x, t);
                t
            }
            _ => self.element_type(n),
        };
        let tensor = |n: &str| (sema::builtin_arity(n).is_none()).then(|| self.element_type(n));
        crate::types::type_of(&self.def.exprs, root, &name, &tensor)
    }

    /// The element type of `tensor` as reads see it.
    fn element_type(&self, tensor: &str) -> ScalarType {
        let declared = self.a.checked.tensors.get(tensor).map(|t| t.scalar);
        match self.stored_float.get(tensor) {
            Some(true) if self.tensor_is_wide(tensor) => ScalarType::Double,
            Some(true) => ScalarType::Float,
            Some(false) => declared
                .filter(|t| !t.is_float())
                .unwrap_or(ScalarType::Int32),
            None => declared.unwrap_or(ScalarType::Float),
        }
    }

    /// The value of `tensor` at `idx`, with the tensor's type.
    fn read_value(&mut self, tensor: &str, idx: &[i64]) -> V {
        let x = self.read(tensor, idx);
        let float = self.tensor_is_float(tensor);
        V {
            x,
            float,
            wide: float && self.tensor_is_wide(tensor),
        }
    }

    /// Whether `tensor` holds double-precision values (meaningful for a
    /// floating-point tensor).
    fn tensor_is_wide(&self, tensor: &str) -> bool {
        if let Some(&w) = self.stored_wide.get(tensor) {
            return w;
        }
        self.a
            .checked
            .tensors
            .get(tensor)
            .is_some_and(|t| crate::lower::dtype(t.scalar) == DataType::Float64)
    }

    fn tensor_is_float(&self, tensor: &str) -> bool {
        if let Some(&f) = self.stored_float.get(tensor) {
            return f;
        }
        self.a
            .checked
            .tensors
            .get(tensor)
            .is_none_or(|t| t.scalar.is_float())
    }

    fn eval(&mut self, id: ExprId, depth: usize) -> Result<V, String> {
        if depth > 4 * crate::parser::MAX_NESTING {
            return Err("expression too deeply nested to evaluate".to_string());
        }
        let arena = &self.def.exprs;
        let e = arena.get(id);
        Ok(match &e.kind {
            ExprKind::Int(v) => V::int(*v as f64),
            // A literal is `float32`, as the lowering builds it.
            ExprKind::Float(v) => V::float(*v, false),
            ExprKind::Ident(n) => {
                let cs = &self.a.checked.stmts[self.stmt];
                match cs.resolve(n, &self.a.checked) {
                    Some(Resolved::Index(_)) => V::int(
                        *self
                            .vals
                            .get(n)
                            .ok_or_else(|| format!("`{n}` has no range"))?
                            as f64,
                    ),
                    Some(Resolved::Size) => {
                        let v = self
                            .a
                            .size(n)
                            .and_then(|v| self.size_value(v))
                            .ok_or_else(|| format!("size `{n}` has no value"))?;
                        V::int(v as f64)
                    }
                    Some(Resolved::Let(x)) => self.eval(x, depth + 1)?,
                    Some(Resolved::Scalar) | None => self.read_value(n, &[]),
                }
            }
            ExprKind::Unary(op, a) => {
                let v = self.eval(*a, depth + 1)?;
                match op {
                    UnaryOp::Neg => V { x: -v.x, ..v },
                    UnaryOp::Not => V::int((v.x == 0.0) as i64 as f64),
                }
            }
            ExprKind::Binary(..) => {
                // Walk the left spine of a chain in a loop: a sum of 50,000
                // terms costs no stack.
                let mut spine = Vec::new();
                let mut cur = id;
                while let ExprKind::Binary(op, l, r) = &arena.get(cur).kind {
                    spine.push((*op, *r));
                    cur = *l;
                }
                let mut acc = self.eval(cur, depth + 1)?;
                for (op, r) in spine.into_iter().rev() {
                    if op == BinaryOp::And && acc.x == 0.0 {
                        acc = V::int(0.0);
                        continue;
                    }
                    if op == BinaryOp::Or && acc.x != 0.0 {
                        acc = V::int(1.0);
                        continue;
                    }
                    let b = self.eval(r, depth + 1)?;
                    acc = binary(op, acc, b)?;
                }
                acc
            }
            ExprKind::Ternary(c, a, b) => {
                if self.eval(*c, depth + 1)?.x != 0.0 {
                    self.eval(*a, depth + 1)?
                } else {
                    self.eval(*b, depth + 1)?
                }
            }
            ExprKind::Cast(t, a) => {
                let v = self.eval(*a, depth + 1)?;
                if t.is_float() {
                    V::float(v.x, crate::lower::dtype(*t) == DataType::Float64)
                } else if *t == ScalarType::Bool {
                    V::int((v.x != 0.0) as i64 as f64)
                } else {
                    V::int(v.x.trunc())
                }
            }
            ExprKind::Call(name, args) => {
                if sema::builtin_arity(&name.name).is_some() {
                    let mut xs = Vec::with_capacity(args.len());
                    // Single precision unless an argument is double (as
                    // `tir::call_dtype` types the call).
                    let mut wide = false;
                    for a in args {
                        let v = self.eval(*a, depth + 1)?;
                        wide |= v.float && v.wide;
                        xs.push(v.x);
                    }
                    V::float(builtin(&name.name, &xs)?, wide)
                } else {
                    let mut idx = Vec::with_capacity(args.len());
                    for a in args {
                        let v = self.eval(*a, depth + 1)?.x;
                        if !v.is_finite() || v.abs() > 1e15 {
                            return Err(format!(
                                "an index of `{}` evaluates to {v}, not an integer",
                                name.name
                            ));
                        }
                        idx.push(v.trunc() as i64);
                    }
                    self.read_value(&name.name, &idx)
                }
            }
        })
    }

    fn size_value(&self, v: &Var) -> Option<i64> {
        self.env.get(v).copied()
    }
}

fn next_index(idx: &mut [i64], lower: &[i64], ext: &[i64]) {
    for k in (0..idx.len()).rev() {
        idx[k] += 1;
        if idx[k] < lower[k].saturating_add(ext[k]) {
            return;
        }
        idx[k] = lower[k];
    }
}

fn binary(op: BinaryOp, a: V, b: V) -> Result<V, String> {
    let float = a.float || b.float;
    let bool_of = |c: bool| V::int(c as i64 as f64);
    let of = |x: f64| V::of_operation(x, a, b);
    use BinaryOp::*;
    Ok(match op {
        Add => of(a.x + b.x),
        Sub => of(a.x - b.x),
        Mul => of(a.x * b.x),
        Div if float => of(a.x / b.x),
        Div => {
            if b.x == 0.0 {
                return Err("integer division by zero".to_string());
            }
            of((a.x / b.x).floor())
        }
        Mod => {
            if b.x == 0.0 && !float {
                return Err("integer modulo by zero".to_string());
            }
            of(a.x - b.x * (a.x / b.x).floor())
        }
        Min => of(a.x.min(b.x)),
        Max => of(a.x.max(b.x)),
        Lt => bool_of(a.x < b.x),
        Gt => bool_of(a.x > b.x),
        Le => bool_of(a.x <= b.x),
        Ge => bool_of(a.x >= b.x),
        Eq => bool_of(a.x == b.x),
        Ne => bool_of(a.x != b.x),
        And => bool_of(a.x != 0.0 && b.x != 0.0),
        Or => bool_of(a.x != 0.0 || b.x != 0.0),
    })
}

/// A built-in applied to its arguments: `tir`'s intrinsics, the one
/// implementation the lowered program runs too.
fn builtin(name: &str, x: &[f64]) -> Result<f64, String> {
    let missing = || {
        format!(
            "the built-in `{name}` is not evaluated by rangefinder (no exact reference \
             implementation)"
        )
    };
    let f = tir::Intrinsic::from_name(name).ok_or_else(missing)?;
    f.apply(x)
        .ok_or_else(|| format!("`{name}` takes {} argument(s)", f.arity()))
}
