//! Structural equality of functions in block form, as TVM's
//! `tvm.ir.assert_structural_equal` compares them: node for node, with the
//! variables and buffers each side defines (parameters, shape variables,
//! loop and block variables, allocations) matched by where they are
//! defined, not by name. Block names are not compared, as in TVM.
//!
//! One difference, on purpose: integer index expressions and conditions
//! are compared in canonical form (both sides simplified after the
//! variables are matched), so `yy - 1 < 14` and `yy < 15` are the same
//! index condition. Float values, statements and regions are compared
//! node for node.

use crate::block::{Block, BlockFunc, BlockIterVar, BlockStmt, BufferRegion};
use crate::buffer::{Buffer, BufferId};
use crate::value::Value;
use arith::{Analyzer, Expr, Range, Var};
use std::collections::HashMap;

/// `Ok` when `a` and `b` are the same function up to the names of what
/// they define; otherwise where they first differ, and how.
///
/// ```
/// use arith::{Expr, Range, Var};
/// use tir::block::{Block, BlockFunc, BlockIterVar, BlockStmt, IterKind};
/// use tir::{Buffer, DataType, Value};
/// let func = |name: &str, k: f64| {
///     let a = Buffer::new("A", DataType::Float32, [8i64]);
///     let (i, v) = (Var::new(name), Var::new("v"));
///     let dom = Range::from_extent(Expr::int(8));
///     let block = Block::new("B", vec![BlockIterVar::new(&v, dom, IterKind::Spatial)],
///         BlockStmt::store(&a, [v.expr()], Value::f32(k)));
///     BlockFunc::new("main", vec![a], vec![], BlockStmt::for_range(&i, 8,
///         BlockStmt::realize(vec![i.expr()], block))).completed()
/// };
/// assert!(tir::block::structural_diff(&func("i", 1.0), &func("j", 1.0)).is_ok());
/// assert!(tir::block::structural_diff(&func("i", 1.0), &func("i", 2.0)).is_err());
/// ```
pub fn structural_diff(a: &BlockFunc, b: &BlockFunc) -> Result<(), String> {
    let mut eq = Matcher::default();
    let (pa, pb) = (a.all_params(), b.all_params());
    if pa.len() != pb.len() {
        return Err(format!(
            "the functions take {} and {} parameters",
            pa.len(),
            pb.len()
        ));
    }
    // Scalars first: buffer shapes may use them.
    for (x, y) in pa.iter().zip(&pb) {
        match (x, y) {
            (Err(u), Err(v)) => eq.define_var(u, v),
            (Ok(_), Ok(_)) => {}
            _ => {
                return Err("a parameter is a buffer on one side and a scalar on the other".into())
            }
        }
    }
    for (x, y) in pa.iter().zip(&pb) {
        if let (Ok(x), Ok(y)) = (x, y) {
            eq.define_buffer(x, y)?;
        }
    }
    let sorted = |attrs: &[(String, String)]| {
        let mut v = attrs.to_vec();
        v.sort();
        v
    };
    if sorted(&a.attrs) != sorted(&b.attrs) {
        return Err(format!(
            "the function attributes differ: {:?} against {:?}",
            sorted(&a.attrs),
            sorted(&b.attrs)
        ));
    }
    eq.buffers_defined(&a.alloc_buffers, &b.alloc_buffers, "the root block")?;
    eq.stmt(&a.body, &b.body)
}

#[derive(Default)]
struct Matcher {
    vars: HashMap<Var, Var>,
    buffers: HashMap<BufferId, BufferId>,
    an: Analyzer,
}

impl Matcher {
    fn define_var(&mut self, a: &Var, b: &Var) {
        self.vars.insert(a.clone(), b.clone());
    }

    /// Matches buffer `a` with `b`, defining the variables of `a`'s shape
    /// that are not yet defined.
    fn define_buffer(&mut self, a: &Buffer, b: &Buffer) -> Result<(), String> {
        if a.dtype() != b.dtype() || a.ndim() != b.ndim() {
            return Err(format!(
                "buffer `{}` is {} of {} axes, `{}` is {} of {}",
                a.name(),
                a.dtype(),
                a.ndim(),
                b.name(),
                b.dtype(),
                b.ndim()
            ));
        }
        for (x, y) in a.shape().iter().zip(b.shape()) {
            if let (Some(u), Some(v)) = (x.as_var(), y.as_var()) {
                if !self.vars.contains_key(u) {
                    self.define_var(u, v);
                }
            }
            self.expr(x, y, &format!("the shape of `{}`", a.name()))?;
        }
        self.buffers.insert(a.id(), b.id());
        Ok(())
    }

    fn buffers_defined(&mut self, a: &[Buffer], b: &[Buffer], at: &str) -> Result<(), String> {
        if a.len() != b.len() {
            return Err(format!(
                "{at} allocates {} buffers on one side and {} on the other",
                a.len(),
                b.len()
            ));
        }
        for (x, y) in a.iter().zip(b) {
            self.define_buffer(x, y)?;
        }
        Ok(())
    }

    fn buffer(&self, a: &Buffer, b: &Buffer, at: &str) -> Result<(), String> {
        let same = match self.buffers.get(&a.id()) {
            Some(m) => *m == b.id(),
            None => a.id() == b.id(),
        };
        if same {
            Ok(())
        } else {
            Err(format!(
                "{at}: buffer `{}` is `{}` on the other side",
                a.name(),
                b.name()
            ))
        }
    }

    fn canonical(&self, e: &Expr) -> Expr {
        self.an.simplify(e).unwrap_or_else(|_| e.clone())
    }

    fn expr(&self, a: &Expr, b: &Expr, at: &str) -> Result<(), String> {
        let mapped = a.substitute(&mut |v: &Var| self.vars.get(v).map(Var::expr));
        if mapped == *b || self.canonical(&mapped) == self.canonical(b) {
            Ok(())
        } else {
            Err(format!("{at}: `{a}` differs from `{b}`"))
        }
    }

    fn exprs(&self, a: &[Expr], b: &[Expr], at: &str) -> Result<(), String> {
        if a.len() != b.len() {
            return Err(format!("{at}: {} indices against {}", a.len(), b.len()));
        }
        a.iter().zip(b).try_for_each(|(x, y)| self.expr(x, y, at))
    }

    fn range(&self, a: &Range, b: &Range, at: &str) -> Result<(), String> {
        self.expr(&a.min, &b.min, at)?;
        self.expr(&a.extent, &b.extent, at)
    }

    fn regions(&self, a: &[BufferRegion], b: &[BufferRegion], at: &str) -> Result<(), String> {
        let show = |r: &[BufferRegion]| {
            r.iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join(", ")
        };
        if a.len() != b.len() {
            return Err(format!("{at}: [{}] against [{}]", show(a), show(b)));
        }
        for (x, y) in a.iter().zip(b) {
            self.buffer(&x.buffer, &y.buffer, at)?;
            if x.region.len() != y.region.len() {
                return Err(format!("{at}: `{x}` against `{y}`"));
            }
            for (r, s) in x.region.iter().zip(&y.region) {
                self.range(r, s, &format!("{at} `{x}` against `{y}`"))?;
            }
        }
        Ok(())
    }

    fn iter_vars(
        &mut self,
        a: &[BlockIterVar],
        b: &[BlockIterVar],
        at: &str,
    ) -> Result<(), String> {
        if a.len() != b.len() {
            return Err(format!(
                "{at} has {} iteration variables on one side and {} on the other",
                a.len(),
                b.len()
            ));
        }
        for (x, y) in a.iter().zip(b) {
            if x.kind != y.kind {
                return Err(format!(
                    "{at}: `{}` is of kind {} and `{}` of kind {}",
                    x.var,
                    x.kind.letter(),
                    y.var,
                    y.kind.letter()
                ));
            }
            self.range(&x.dom, &y.dom, &format!("{at}, the domain of `{}`", x.var))?;
            self.define_var(&x.var, &y.var);
        }
        Ok(())
    }

    fn block(&mut self, a: &Block, b: &Block) -> Result<(), String> {
        let at = format!("block `{}`", a.name);
        self.iter_vars(&a.iter_vars, &b.iter_vars, &at)?;
        self.buffers_defined(&a.alloc_buffers, &b.alloc_buffers, &at)?;
        self.regions(&a.reads, &b.reads, &format!("{at} reads"))?;
        self.regions(&a.writes, &b.writes, &format!("{at} writes"))?;
        self.stmt(&a.body, &b.body)?;
        match (&a.init, &b.init) {
            (None, None) => {}
            (Some(x), Some(y)) => self.stmt(x, y)?,
            _ => return Err(format!("{at} has an init on one side only")),
        }
        if a.annotations != b.annotations {
            return Err(format!(
                "{at}: annotations {:?} against {:?}",
                a.annotations, b.annotations
            ));
        }
        Ok(())
    }

    fn stmt(&mut self, a: &BlockStmt, b: &BlockStmt) -> Result<(), String> {
        crate::stack::grow(|| self.stmt_step(a, b))
    }

    fn stmt_step(&mut self, a: &BlockStmt, b: &BlockStmt) -> Result<(), String> {
        match (a, b) {
            (
                BlockStmt::For {
                    var: v,
                    min: m,
                    extent: e,
                    kind: k,
                    body: x,
                },
                BlockStmt::For {
                    var: w,
                    min: n,
                    extent: f,
                    kind: l,
                    body: y,
                },
            ) => {
                let at = format!("the loop over `{v}`");
                self.expr(m, n, &at)?;
                self.expr(e, f, &at)?;
                if k != l {
                    return Err(format!("{at} is {k:?} against {l:?}"));
                }
                self.define_var(v, w);
                self.stmt(x, y)
            }
            (BlockStmt::Block(r), BlockStmt::Block(s)) => {
                let at = format!("the realization of block `{}`", r.block.name);
                self.exprs(&r.bindings, &s.bindings, &at)?;
                self.expr(&r.predicate, &s.predicate, &at)?;
                self.block(&r.block, &s.block)
            }
            (
                BlockStmt::Store {
                    buffer: p,
                    indices: i,
                    value: v,
                },
                BlockStmt::Store {
                    buffer: q,
                    indices: j,
                    value: w,
                },
            ) => {
                let at = format!("the store to `{}`", p.name());
                self.buffer(p, q, &at)?;
                self.exprs(i, j, &at)?;
                self.value(v, w, &at)
            }
            (
                BlockStmt::If {
                    cond: c,
                    then_case: t,
                    else_case: e,
                },
                BlockStmt::If {
                    cond: d,
                    then_case: u,
                    else_case: f,
                },
            ) => {
                self.value(c, d, "a condition")?;
                self.stmt(t, u)?;
                match (e, f) {
                    (None, None) => Ok(()),
                    (Some(x), Some(y)) => self.stmt(x, y),
                    _ => Err("an `if` has an `else` on one side only".into()),
                }
            }
            (BlockStmt::Seq(x), BlockStmt::Seq(y)) if x.len() == y.len() => {
                x.iter().zip(y).try_for_each(|(s, t)| self.stmt(s, t))
            }
            (BlockStmt::Evaluate(x), BlockStmt::Evaluate(y)) => self.value(x, y, "an evaluation"),
            (
                BlockStmt::Let {
                    var: v,
                    dtype: s,
                    value: x,
                    body: p,
                },
                BlockStmt::Let {
                    var: w,
                    dtype: t,
                    value: y,
                    body: q,
                },
            ) => {
                let at = format!("the `let` of `{v}`");
                if s != t {
                    return Err(format!("{at} is {s} against {t}"));
                }
                // The value is outside the binding; the variable is
                // matched where it is defined, as TVM does.
                self.value(x, y, &at)?;
                self.define_var(v, w);
                self.stmt(p, q)
            }
            _ => Err(format!(
                "a {} stands where the other side has a {}",
                stmt_kind(a),
                stmt_kind(b)
            )),
        }
    }

    fn value(&mut self, a: &Value, b: &Value, at: &str) -> Result<(), String> {
        crate::stack::grow(|| self.value_step(a, b, at))
    }

    fn value_step(&mut self, a: &Value, b: &Value, at: &str) -> Result<(), String> {
        let differ = || Err(format!("{at}: `{a}` differs from `{b}`"));
        if let (Some(x), Some(y)) = (as_index(a), as_index(b)) {
            return self.expr(&x, &y, at);
        }
        match (a, b) {
            (Value::Float(x, s), Value::Float(y, t)) if x == y && s == t => Ok(()),
            (Value::Int(x, s), Value::Int(y, t)) if x == y && s == t => Ok(()),
            (Value::Index(x), Value::Index(y)) => self.expr(x, y, at),
            (Value::Load(x), Value::Load(y)) => {
                self.buffer(&x.buffer, &y.buffer, at)?;
                self.exprs(&x.indices, &y.indices, at)
            }
            (Value::Binary(o, x1, x2), Value::Binary(p, y1, y2)) if o == p => {
                self.value(x1, y1, at)?;
                self.value(x2, y2, at)
            }
            (Value::Cmp(o, x1, x2), Value::Cmp(p, y1, y2)) if o == p => {
                self.value(x1, y1, at)?;
                self.value(x2, y2, at)
            }
            (Value::And(x1, x2), Value::And(y1, y2)) | (Value::Or(x1, x2), Value::Or(y1, y2)) => {
                self.value(x1, y1, at)?;
                self.value(x2, y2, at)
            }
            (Value::Not(x), Value::Not(y))
            | (Value::Neg(x), Value::Neg(y))
            | (Value::Likely(x), Value::Likely(y)) => self.value(x, y, at),
            (Value::Cast(s, x), Value::Cast(t, y)) if s == t => self.value(x, y, at),
            (Value::Select(c, x1, x2), Value::Select(d, y1, y2))
            | (Value::IfThenElse(c, x1, x2), Value::IfThenElse(d, y1, y2)) => {
                self.value(c, d, at)?;
                self.value(x1, y1, at)?;
                self.value(x2, y2, at)
            }
            (Value::Call(f, xs), Value::Call(g, ys)) if f == g && xs.len() == ys.len() => xs
                .iter()
                .zip(ys)
                .try_for_each(|(x, y)| self.value(x, y, at)),
            (Value::Var(v, s), Value::Var(w, t)) if s == t => {
                if self.vars.get(v).unwrap_or(v) == w {
                    Ok(())
                } else {
                    differ()
                }
            }
            (Value::Let(v, x1, x2), Value::Let(w, y1, y2)) => {
                self.value(x1, y1, at)?;
                self.define_var(v, w);
                self.value(x2, y2, at)
            }
            _ => differ(),
        }
    }
}

/// `v` as an index expression, when it is integer arithmetic, comparisons
/// and logic over index expressions only: a script may write as values
/// what a compute holds as one index condition.
fn as_index(v: &Value) -> Option<Expr> {
    use crate::value::BinOp;
    Some(match v {
        Value::Index(e) => e.clone(),
        // An integer variable is the index variable a script names.
        Value::Var(v, t) if t.is_int() => v.expr(),
        Value::Int(x, t) if t.is_int() => Expr::int(*x),
        Value::Binary(op, a, b) => {
            let (a, b) = (as_index(a)?, as_index(b)?);
            match op {
                BinOp::Add => Expr::add(a, b),
                BinOp::Sub => Expr::sub(a, b),
                BinOp::Mul => Expr::mul(a, b),
                BinOp::FloorDiv => Expr::floor_div(a, b),
                BinOp::FloorMod => Expr::floor_mod(a, b),
                BinOp::Min => Expr::min(a, b),
                BinOp::Max => Expr::max(a, b),
                BinOp::Div => return None,
            }
        }
        Value::Cmp(op, a, b) => Expr::cmp(*op, as_index(a)?, as_index(b)?),
        Value::And(a, b) => Expr::and(as_index(a)?, as_index(b)?),
        Value::Or(a, b) => Expr::or(as_index(a)?, as_index(b)?),
        Value::Not(a) => Expr::not(as_index(a)?),
        _ => return None,
    })
}

fn stmt_kind(s: &BlockStmt) -> &'static str {
    match s {
        BlockStmt::For { .. } => "loop",
        BlockStmt::Block(_) => "block",
        BlockStmt::Store { .. } => "store",
        BlockStmt::If { .. } => "`if`",
        BlockStmt::Seq(_) => "sequence",
        BlockStmt::Evaluate(_) => "evaluation",
        BlockStmt::Let { .. } => "`let`",
    }
}
