//! Evaluation of expressions at a point: the oracle every analysis is tested
//! against.

use crate::error::{ArithError, ErrorKind, Result};
use crate::expr::{Expr, ExprKind, Var};
use crate::num;

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
        use ExprKind::*;
        let b = |v: bool| v as i64;
        Ok(match self.kind() {
            Int(v) => *v,
            Bool(v) => *v as i64,
            Var(v) => env(v).ok_or_else(|| {
                ArithError::new(ErrorKind::Unbound, format!("no value for variable `{v}`"))
            })?,
            Add(x, y) => num::add(x.eval(env)?, y.eval(env)?)?,
            Sub(x, y) => num::sub(x.eval(env)?, y.eval(env)?)?,
            Mul(x, y) => num::mul(x.eval(env)?, y.eval(env)?)?,
            FloorDiv(x, y) => num::floor_div(x.eval(env)?, y.eval(env)?)?,
            FloorMod(x, y) => num::floor_mod(x.eval(env)?, y.eval(env)?)?,
            CeilDiv(x, y) => num::ceil_div(x.eval(env)?, y.eval(env)?)?,
            Min(x, y) => x.eval(env)?.min(y.eval(env)?),
            Max(x, y) => x.eval(env)?.max(y.eval(env)?),
            // Only the chosen branch is evaluated: `select(x != 0, y // x, 0)`
            // is defined everywhere.
            Select(c, x, y) => {
                if c.eval(env)? != 0 {
                    x.eval(env)?
                } else {
                    y.eval(env)?
                }
            }
            Cmp(op, x, y) => b(op.apply(x.eval(env)?, y.eval(env)?)),
            // `and` and `or` stop at the first operand that decides them, as
            // in Python: `x != 0 and y // x > 2` is defined at `x = 0`.
            And(x, y) => b(x.eval(env)? != 0 && y.eval(env)? != 0),
            Or(x, y) => b(x.eval(env)? != 0 || y.eval(env)? != 0),
            Not(x) => b(x.eval(env)? == 0),
        })
    }

    /// Evaluates with values given as `(variable, value)` pairs.
    pub fn eval_with(&self, values: &[(&Var, i64)]) -> Result<i64> {
        self.eval(&|v| values.iter().find(|(w, _)| *w == v).map(|(_, x)| *x))
    }
}
