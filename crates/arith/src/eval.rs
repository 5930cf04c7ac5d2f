//! Evaluation of expressions at a point: the oracle every analysis is tested
//! against.

use crate::error::{ArithError, ErrorKind, Result};
use crate::expr::{Expr, ExprKind, Var};
use crate::num;
use smallvec::SmallVec;

impl Expr {
    /// Evaluates the expression with variable values from `env`. Booleans
    /// evaluate to `1` (true) or `0` (false). Overflow and division by zero
    /// are errors.
    ///
    /// ```
    /// use arith::{parse, Expr};
    /// let (e, scope) = arith::parse_with_scope("x * 4 + x // 3").unwrap();
    /// let x = scope.get("x").unwrap().clone();
    /// assert_eq!(e.eval(&|v| (v == &x).then_some(-7)).unwrap(), -28 + -3);
    /// ```
    pub fn eval<F: Fn(&Var) -> Option<i64> + ?Sized>(&self, env: &F) -> Result<i64> {
        // Leaves, the most common index expressions, need no work list.
        match self.kind() {
            ExprKind::Int(v) => return Ok(*v),
            ExprKind::Var(v) => return lookup(v, env),
            _ => {}
        }
        // An explicit work list instead of recursion, so that a sum of
        // 100,000 terms (a left-deep chain) evaluates in constant stack;
        // the lists of small expressions stay on the stack.
        let mut steps: Steps<'_> = smallvec::smallvec![Step::Visit(self)];
        let mut values: SmallVec<[i64; 16]> = SmallVec::new();
        // Values of large nodes by identity: a node shared many times (a
        // graph of `e + e`) is evaluated once.
        let mut shared: Option<crate::IdMap<usize, i64>> = None;
        while let Some(step) = steps.pop() {
            match step {
                Step::Visit(e) if e.node_count() > crate::expr::SHARED_WALK_NODES as usize => {
                    match shared.as_ref().and_then(|m| m.get(&e.node_id())) {
                        Some(v) => values.push(*v),
                        None => {
                            steps.push(Step::Remember(e));
                            visit(e, env, &mut steps, &mut values)?
                        }
                    }
                }
                Step::Visit(e) => visit(e, env, &mut steps, &mut values)?,
                Step::Remember(e) => {
                    let v = *values.last().expect("node evaluated");
                    shared
                        .get_or_insert_with(Default::default)
                        .insert(e.node_id(), v);
                }
                Step::Apply(e) => {
                    let y = values.pop().expect("operand evaluated");
                    let x = values.pop().expect("operand evaluated");
                    values.push(apply(e, x, y)?);
                }
                Step::Choose(a, b) => {
                    let c = values.pop().expect("condition evaluated");
                    steps.push(Step::Visit(if c != 0 { a } else { b }));
                }
                Step::Not => {
                    let x = values.pop().expect("operand evaluated");
                    values.push((x == 0) as i64);
                }
                Step::Truth => {
                    let x = values.pop().expect("operand evaluated");
                    values.push((x != 0) as i64);
                }
                Step::AndRest(y) => {
                    if values.pop().expect("operand evaluated") == 0 {
                        values.push(0);
                    } else {
                        steps.extend([Step::Truth, Step::Visit(y)]);
                    }
                }
                Step::OrRest(y) => {
                    if values.pop().expect("operand evaluated") != 0 {
                        values.push(1);
                    } else {
                        steps.extend([Step::Truth, Step::Visit(y)]);
                    }
                }
            }
        }
        Ok(values.pop().expect("one value per walk"))
    }

    /// Evaluates with values given as `(variable, value)` pairs.
    pub fn eval_with(&self, values: &[(&Var, i64)]) -> Result<i64> {
        self.eval(&|v| values.iter().find(|(w, _)| *w == v).map(|(_, x)| *x))
    }
}

/// The pending steps of an evaluation.
type Steps<'a> = SmallVec<[Step<'a>; 24]>;

/// The value of `v` in `env`, or an error naming it.
fn lookup<F: Fn(&Var) -> Option<i64> + ?Sized>(v: &Var, env: &F) -> Result<i64> {
    env(v)
        .ok_or_else(|| ArithError::new(ErrorKind::Unbound, format!("no value for variable `{v}`")))
}

/// One step of evaluation.
enum Step<'a> {
    /// Evaluate this expression and push its value.
    Visit(&'a Expr),
    /// Pop two values and push this node's binary operation applied to them.
    Apply(&'a Expr),
    /// Pop a condition and evaluate the first (true) or second expression.
    Choose(&'a Expr, &'a Expr),
    /// Pop a value and push its logical negation.
    Not,
    /// Pop a value and push it as a truth value (0 or 1).
    Truth,
    /// Pop the left operand of `and`; evaluate the right one only if it holds.
    AndRest(&'a Expr),
    /// Pop the left operand of `or`; evaluate the right one only if it fails.
    OrRest(&'a Expr),
    /// Record the value on top as this (large) node's value.
    Remember(&'a Expr),
}

/// Pushes a leaf's value, or the steps that evaluate a compound node.
fn visit<'a, F: Fn(&Var) -> Option<i64> + ?Sized>(
    e: &'a Expr,
    env: &F,
    steps: &mut Steps<'a>,
    values: &mut SmallVec<[i64; 16]>,
) -> Result<()> {
    use ExprKind::*;
    match e.kind() {
        Int(v) => values.push(*v),
        Bool(v) => values.push(*v as i64),
        Var(v) => values.push(lookup(v, env)?),
        // Only the chosen branch is evaluated: `select(x != 0, y // x, 0)`
        // is defined everywhere.
        Select(c, x, y) => steps.extend([Step::Choose(x, y), Step::Visit(c)]),
        // `and` and `or` stop at the first operand that decides them, as in
        // Python: `x != 0 and y // x > 2` is defined at `x = 0`.
        And(x, y) => steps.extend([Step::AndRest(y), Step::Visit(x)]),
        Or(x, y) => steps.extend([Step::OrRest(y), Step::Visit(x)]),
        Not(x) => steps.extend([Step::Not, Step::Visit(x)]),
        Add(x, y)
        | Sub(x, y)
        | Mul(x, y)
        | FloorDiv(x, y)
        | FloorMod(x, y)
        | CeilDiv(x, y)
        | Min(x, y)
        | Max(x, y)
        | Cmp(_, x, y) => steps.extend([Step::Apply(e), Step::Visit(y), Step::Visit(x)]),
    }
    Ok(())
}

/// The value of a binary node from the values of its operands.
fn apply(e: &Expr, x: i64, y: i64) -> Result<i64> {
    use ExprKind::*;
    Ok(match e.kind() {
        Add(..) => num::add(x, y)?,
        Sub(..) => num::sub(x, y)?,
        Mul(..) => num::mul(x, y)?,
        FloorDiv(..) => num::floor_div(x, y)?,
        FloorMod(..) => num::floor_mod(x, y)?,
        CeilDiv(..) => num::ceil_div(x, y)?,
        Min(..) => x.min(y),
        Max(..) => x.max(y),
        Cmp(op, ..) => op.apply(x, y) as i64,
        _ => unreachable!("only binary operations are applied"),
    })
}
