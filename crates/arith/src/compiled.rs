//! Expressions compiled once for evaluation at many points: a postfix
//! program over variable positions, so a point costs no allocation and no
//! name lookups. The semantics are [`Expr::eval`]'s: floor division and
//! modulo, checked arithmetic (an overflow or a division by zero makes the
//! value undefined), `select` and `and`/`or` defined wherever the operand
//! they choose is.

use crate::error::{ArithError, ErrorKind, Result};
use crate::expr::{CmpOp, Expr, ExprKind, Var};
use crate::num;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Op {
    Const(i64),
    Var(usize),
    Add,
    Sub,
    Mul,
    FloorDiv,
    FloorMod,
    CeilDiv,
    Min,
    Max,
    Cmp(CmpOp),
    And,
    Or,
    Not,
    Select,
}

/// An expression compiled against an order of its variables.
///
/// ```
/// use arith::Compiled;
/// let (e, scope) = arith::parse_with_scope("select(x > 0, y // x, 0) + x % 4").unwrap();
/// let vars = [scope.get("x").unwrap().clone(), scope.get("y").unwrap().clone()];
/// let p = Compiled::new(&e, &vars).unwrap();
/// let mut stack = Vec::new();
/// assert_eq!(p.run(&[3, 10], &mut stack), Some(3 + 3));
/// assert_eq!(p.run(&[0, 10], &mut stack), Some(0));
/// ```
#[derive(Clone, Debug)]
pub struct Compiled {
    ops: Vec<Op>,
}

impl Compiled {
    /// Compiles `e`; `vars` gives each variable's position in the points
    /// passed to [`Compiled::run`]. A variable not in `vars` is an error.
    /// Deep trees (long parsed sums) compile without recursion.
    pub fn new(e: &Expr, vars: &[Var]) -> Result<Compiled> {
        let mut ops = Vec::with_capacity(e.node_count());
        // Post-order on an explicit stack: (node, children emitted).
        let mut stack: Vec<(&Expr, bool)> = vec![(e, false)];
        while let Some((n, done)) = stack.pop() {
            use ExprKind::*;
            if !done {
                match n.kind() {
                    Int(v) => ops.push(Op::Const(*v)),
                    Bool(b) => ops.push(Op::Const(*b as i64)),
                    Var(v) => {
                        let pos = vars.iter().position(|w| w == v).ok_or_else(|| {
                            ArithError::new(
                                ErrorKind::Unbound,
                                format!("`{v}` has no position in the compiled variables"),
                            )
                        })?;
                        ops.push(Op::Var(pos));
                    }
                    _ => {
                        stack.push((n, true));
                        for c in n.children().into_iter().rev() {
                            stack.push((c, false));
                        }
                    }
                }
                continue;
            }
            ops.push(match n.kind() {
                Add(..) => Op::Add,
                Sub(..) => Op::Sub,
                Mul(..) => Op::Mul,
                FloorDiv(..) => Op::FloorDiv,
                FloorMod(..) => Op::FloorMod,
                CeilDiv(..) => Op::CeilDiv,
                Min(..) => Op::Min,
                Max(..) => Op::Max,
                Cmp(op, ..) => Op::Cmp(*op),
                And(..) => Op::And,
                Or(..) => Op::Or,
                Not(..) => Op::Not,
                Select(..) => Op::Select,
                Int(_) | Bool(_) | Var(_) => unreachable!("leaves are emitted directly"),
            });
        }
        Ok(Compiled { ops })
    }

    /// The value at `point` (booleans as `0`/`1`), or `None` where the
    /// expression has no value. `stack` is scratch space reused between
    /// calls.
    pub fn run(&self, point: &[i64], stack: &mut Vec<Option<i64>>) -> Option<i64> {
        stack.clear();
        for op in &self.ops {
            let v = match *op {
                Op::Const(c) => Some(c),
                Op::Var(i) => Some(*point.get(i)?),
                Op::Not => {
                    let a = stack.pop()?;
                    a.map(|a| (a == 0) as i64)
                }
                Op::Select => {
                    let b = stack.pop()?;
                    let a = stack.pop()?;
                    let c = stack.pop()?;
                    c.and_then(|c| if c != 0 { a } else { b })
                }
                _ => {
                    let b = stack.pop()?;
                    let a = stack.pop()?;
                    match *op {
                        // Python's short circuit: the second operand only
                        // matters when the first does not decide.
                        Op::And => match a {
                            Some(0) => Some(0),
                            Some(_) => b.map(|b| (b != 0) as i64),
                            None => None,
                        },
                        Op::Or => match a {
                            Some(0) => b.map(|b| (b != 0) as i64),
                            Some(_) => Some(1),
                            None => None,
                        },
                        _ => match (a, b) {
                            (Some(a), Some(b)) => binary(*op, a, b),
                            _ => None,
                        },
                    }
                }
            };
            stack.push(v);
        }
        stack.pop().flatten()
    }

    /// [`Compiled::run`] with a fresh stack.
    pub fn eval(&self, point: &[i64]) -> Option<i64> {
        self.run(point, &mut Vec::with_capacity(self.ops.len()))
    }
}

fn binary(op: Op, a: i64, b: i64) -> Option<i64> {
    match op {
        Op::Add => a.checked_add(b),
        Op::Sub => a.checked_sub(b),
        Op::Mul => a.checked_mul(b),
        Op::FloorDiv => num::floor_div(a, b).ok(),
        Op::FloorMod => num::floor_mod(a, b).ok(),
        Op::CeilDiv => num::ceil_div(a, b).ok(),
        Op::Min => Some(a.min(b)),
        Op::Max => Some(a.max(b)),
        Op::Cmp(c) => Some(c.apply(a, b) as i64),
        _ => None,
    }
}
