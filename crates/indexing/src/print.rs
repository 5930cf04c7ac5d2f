//! XLA's text form of indexing maps and their expressions.
//!
//! The printer prints trees as they are (XLA does not reorder at print time;
//! [`crate::IndexingMap::simplify`] leaves its results in XLA's canonical
//! order). Its rules, from XLA's `PrintImpl`:
//! - precedence: `+` is 1; `*`, `/`, `ceildiv`, `mod` are 2;
//! - a child in parentheses when its precedence is lower than its parent's,
//!   or equal with a different operator; with the same operator, `+` only on
//!   the right of a printed minus, `*` never, `/`, `ceildiv`, `mod` only on
//!   the right;
//! - a "negative term" (negative constant, product with a negative constant,
//!   or a sum starting with one) on the right of `+` prints as `- term`;
//! - `x * -1` prints as `-x`, and the negation itself never gets parentheses.

use crate::map::{IndexingMap, State};
use arith::{Analyzer, Expr, ExprKind, Var};
use std::fmt::{self, Write};

/// Prints `e` in XLA's syntax, naming variables with `name`.
///
/// ```
/// let (e, scope) = arith::parse_with_scope("(x - 1) // 2 + y * -1").unwrap();
/// let text = indexing::print_expr(&e, &|v| v.name().to_string());
/// assert_eq!(text, "(x - 1) / 2 - y");
/// ```
pub fn print_expr(e: &Expr, name: &dyn Fn(&Var) -> String) -> String {
    let mut out = String::new();
    let _ = Printer {
        name,
        keep_grouping: false,
    }
    .expr(e, &mut out);
    out
}

struct Printer<'a> {
    name: &'a dyn Fn(&Var) -> String,
    /// Print sums and products with their grouping and signs as they are
    /// (`a + (b + c)`, `a + b * -4`) rather than XLA's flat form, for
    /// expressions whose flat form could overflow where they do not.
    keep_grouping: bool,
}

/// Whether XLA's flat printed form of `e` evaluates exactly as `e` does for
/// variable values within `an`'s bounds. The printer drops the grouping of
/// sums and products and prints `a + b * -c` as `a - b * c`; that is exact
/// when every chain of sums has `Σ |term| < 2^63` and every chain of
/// products `Π |factor| < 2^63`, since every partial result of any grouping,
/// and every negated term, then lies inside `i64`. One visit per node.
pub(crate) fn flat_form_is_exact(an: &Analyzer, e: &Expr) -> bool {
    const LIMIT: u128 = 1 << 63;
    let magnitude = |t: &Expr| -> u128 {
        let b = an.const_int_bound(t);
        if b.min == arith::NEG_INF || b.max == arith::POS_INF {
            return LIMIT;
        }
        (b.min.unsigned_abs() as u128).max(b.max.unsigned_abs() as u128)
    };
    let mut roots: Vec<&Expr> = vec![e];
    let mut chain: Vec<&Expr> = Vec::new();
    while let Some(r) = roots.pop() {
        let is_sum = |x: &Expr| matches!(x.kind(), ExprKind::Add(..) | ExprKind::Sub(..));
        let is_product = |x: &Expr| matches!(x.kind(), ExprKind::Mul(..));
        let same: &dyn Fn(&Expr) -> bool = if is_sum(r) {
            &is_sum
        } else if is_product(r) {
            &is_product
        } else {
            roots.extend(r.children());
            continue;
        };
        let mut total: u128 = if is_sum(r) { 0 } else { 1 };
        chain.clear();
        chain.push(r);
        while let Some(n) = chain.pop() {
            if same(n) {
                chain.extend(n.children());
                continue;
            }
            let m = magnitude(n);
            total = if is_sum(r) {
                total.saturating_add(m)
            } else {
                total.saturating_mul(m)
            };
            if total >= LIMIT {
                return false;
            }
            roots.push(n);
        }
    }
    true
}

/// An operator for the parenthesization rules.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Op {
    Add,
    Mul,
    Div,
    CeilDiv,
    Mod,
    /// Constants, variables, `min(...)`, `max(...)`, negations: never in
    /// parentheses.
    Atom,
}

impl Op {
    fn of(e: &Expr) -> Op {
        use ExprKind::*;
        match e.kind() {
            Add(..) | Sub(..) => Op::Add,
            Mul(..) if negated_operand(e).is_some() => Op::Atom,
            Mul(..) => Op::Mul,
            FloorDiv(..) => Op::Div,
            CeilDiv(..) => Op::CeilDiv,
            FloorMod(..) => Op::Mod,
            _ => Op::Atom,
        }
    }

    fn precedence(self) -> u8 {
        match self {
            Op::Add => 1,
            Op::Mul | Op::Div | Op::CeilDiv | Op::Mod => 2,
            Op::Atom => 3,
        }
    }
}

/// `x` when `e` is `x * -1` or `-1 * x`.
fn negated_operand(e: &Expr) -> Option<&Expr> {
    match e.kind() {
        ExprKind::Mul(x, c) if c.as_int() == Some(-1) && x.as_int().is_none() => Some(x),
        ExprKind::Mul(c, x) if c.as_int() == Some(-1) && x.as_int().is_none() => Some(x),
        _ => None,
    }
}

/// Whether `e` prints as `- <negated e>` on the right of a `+`.
fn is_negative_term(e: &Expr) -> bool {
    match e.kind() {
        ExprKind::Int(v) => *v < 0 && *v != i64::MIN,
        ExprKind::Mul(a, b) => {
            let neg = |x: &Expr| x.as_int().is_some_and(|v| v < 0 && v != i64::MIN);
            neg(b) || (neg(a) && b.as_int().is_none())
        }
        ExprKind::Add(a, _) | ExprKind::Sub(a, _) => is_negative_term(a),
        _ => false,
    }
}

/// `-e` for a negative term, built so that it prints without a sign.
fn negate_term(e: &Expr) -> Expr {
    crate::build::neg(match e.kind() {
        ExprKind::Add(a, b) => {
            return Expr::add(negate_term(a), crate::build::neg(b.clone()));
        }
        ExprKind::Sub(a, b) => return Expr::add(negate_term(a), b.clone()),
        ExprKind::Mul(c, x) if c.as_int().is_some() && x.as_int().is_none() => {
            Expr::mul(x.clone(), c.clone())
        }
        _ => e.clone(),
    })
}

impl Printer<'_> {
    fn expr(&self, e: &Expr, out: &mut String) -> fmt::Result {
        use ExprKind::*;
        if let Some(x) = negated_operand(e) {
            out.push('-');
            return self.child(x, Op::Mul, Side::Left, out);
        }
        match e.kind() {
            Int(v) => write!(out, "{v}"),
            Var(v) => {
                out.push_str(&(self.name)(v));
                Ok(())
            }
            Add(a, b) => {
                self.child(a, Op::Add, Side::Left, out)?;
                if is_negative_term(b) && !self.keep_grouping {
                    out.push_str(" - ");
                    self.child(&negate_term(b), Op::Add, Side::RightOfMinus, out)
                } else {
                    out.push_str(" + ");
                    self.child(b, Op::Add, Side::Right, out)
                }
            }
            Sub(a, b) => {
                self.child(a, Op::Add, Side::Left, out)?;
                out.push_str(" - ");
                self.child(b, Op::Add, Side::RightOfMinus, out)
            }
            Mul(a, b) => self.binary(a, " * ", b, Op::Mul, out),
            FloorDiv(a, b) => self.binary(a, " / ", b, Op::Div, out),
            CeilDiv(a, b) => self.binary(a, " ceildiv ", b, Op::CeilDiv, out),
            FloorMod(a, b) => self.binary(a, " mod ", b, Op::Mod, out),
            Min(a, b) => self.call("min", a, b, out),
            Max(a, b) => self.call("max", a, b, out),
            // Not index expressions; IndexingMap rejects them. Print them
            // readably rather than fail.
            _ => write!(out, "{e}"),
        }
    }

    fn binary(&self, a: &Expr, op_text: &str, b: &Expr, op: Op, out: &mut String) -> fmt::Result {
        self.child(a, op, Side::Left, out)?;
        out.push_str(op_text);
        self.child(b, op, Side::Right, out)
    }

    fn call(&self, f: &str, a: &Expr, b: &Expr, out: &mut String) -> fmt::Result {
        out.push_str(f);
        out.push('(');
        self.expr(a, out)?;
        out.push_str(", ");
        self.expr(b, out)?;
        out.push(')');
        Ok(())
    }

    fn child(&self, e: &Expr, parent: Op, side: Side, out: &mut String) -> fmt::Result {
        let me = Op::of(e);
        let paren = if me.precedence() != parent.precedence() {
            me.precedence() < parent.precedence()
        } else if me != parent {
            true
        } else {
            match me {
                Op::Add | Op::Mul if self.keep_grouping => side != Side::Left,
                Op::Add => side == Side::RightOfMinus,
                Op::Mul | Op::Atom => false,
                Op::Div | Op::CeilDiv | Op::Mod => side != Side::Left,
            }
        };
        if paren {
            out.push('(');
            self.expr(e, out)?;
            out.push(')');
            Ok(())
        } else {
            self.expr(e, out)
        }
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Side {
    Left,
    Right,
    RightOfMinus,
}

impl IndexingMap {
    /// Prints an expression over this map's variables with their printed
    /// names.
    pub fn print_expr(&self, e: &Expr) -> String {
        self.print_expr_under(&self.analyzer(true), e)
    }

    /// [`IndexingMap::print_expr`] with this map's analyzer already built,
    /// so that printing a whole map builds it once.
    fn print_expr_under(&self, an: &Analyzer, e: &Expr) -> String {
        let name = |v: &Var| self.var_name(v);
        let mut out = String::new();
        let keep_grouping = !flat_form_is_exact(an, e);
        let _ = Printer {
            name: &name,
            keep_grouping,
        }
        .expr(e, &mut out);
        out
    }
}

impl fmt::Display for IndexingMap {
    /// XLA's `ToString(IndexingMap)`, on one line.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.state {
            State::Undefined => return f.write_str("UNDEFINED"),
            State::KnownEmpty => return f.write_str("KNOWN EMPTY"),
            State::Defined => {}
        }
        let names = |vs: &[crate::Variable]| -> String {
            vs.iter()
                .map(|v| self.var_name(v.var()))
                .collect::<Vec<_>>()
                .join(", ")
        };
        write!(f, "({})", names(&self.dims))?;
        if !self.symbols.is_empty() {
            write!(f, "[{}]", names(&self.symbols))?;
        }
        if !self.rt_vars.is_empty() {
            write!(f, "{{{}}}", names(&self.rt_vars))?;
        }
        let an = self.analyzer(true);
        let results: Vec<String> = self
            .results
            .iter()
            .map(|r| self.print_expr_under(&an, r))
            .collect();
        write!(f, " -> ({})", results.join(", "))?;
        if self.all_vars().next().is_none() {
            return Ok(());
        }
        f.write_str(", domain: ")?;
        let bounds: Vec<String> = self
            .all_vars()
            .map(|v| format!("{} in {}", self.var_name(v.var()), v.bounds()))
            .collect();
        f.write_str(&bounds.join(", "))?;
        let mut constraints: Vec<String> = self
            .constraints
            .iter()
            .map(|c| format!("{} in {}", self.print_expr_under(&an, &c.expr), c.interval))
            .collect();
        constraints.sort();
        for c in constraints {
            write!(f, ", {c}")?;
        }
        Ok(())
    }
}
