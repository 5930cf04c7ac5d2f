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
        Compiled::with_positions(e, &mut |v| vars.iter().position(|w| w == v))
    }

    /// [`Compiled::new`] with each variable's position given by `position`
    /// (`None`: the variable has none, an error), for callers that keep
    /// their own table of variables, such as an interpreter's slots.
    pub fn with_positions(
        e: &Expr,
        position: &mut dyn FnMut(&Var) -> Option<usize>,
    ) -> Result<Compiled> {
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
                        let pos = position(v).ok_or_else(|| {
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
    pub fn run(&self, point: &[i64], stack: &mut Stack) -> Option<i64> {
        self.run_checked(point, stack).ok()
    }

    /// [`Compiled::run`], saying why there is no value: the first fault of
    /// the operands the value depends on (an undefined branch that
    /// `select`, `and` or `or` does not choose is no fault).
    pub fn run_checked(&self, point: &[i64], stack: &mut Stack) -> Result<i64, Undefined> {
        use Undefined::MissingVariable;
        stack.clear();
        for op in &self.ops {
            // Operators replace their first operand in place: one pop per
            // binary operator instead of two pops and a push.
            match *op {
                Op::Const(c) => stack.push(Ok(c)),
                Op::Var(i) => stack.push(Ok(*point.get(i).ok_or(MissingVariable)?)),
                Op::Not => {
                    let a = stack.last_mut().ok_or(MissingVariable)?;
                    *a = a.map(|a| (a == 0) as i64);
                }
                Op::Select => {
                    let b = stack.pop().ok_or(MissingVariable)?;
                    let a = stack.pop().ok_or(MissingVariable)?;
                    let c = stack.last_mut().ok_or(MissingVariable)?;
                    *c = c.and_then(|c| if c != 0 { a } else { b });
                }
                _ => {
                    let b = stack.pop().ok_or(MissingVariable)?;
                    let slot = stack.last_mut().ok_or(MissingVariable)?;
                    *slot = match (*op, *slot) {
                        // Python's short circuit: the second operand only
                        // matters when the first does not decide.
                        (Op::And, Ok(0)) => Ok(0),
                        (Op::Or, Ok(a)) if a != 0 => Ok(1),
                        (Op::And | Op::Or, Ok(_)) => b.map(|b| (b != 0) as i64),
                        (_, Err(f)) => Err(f),
                        (_, Ok(a)) => b.and_then(|b| binary(*op, a, b)),
                    };
                }
            }
        }
        stack.pop().ok_or(MissingVariable)?
    }

    /// [`Compiled::run`] with a fresh stack.
    pub fn eval(&self, point: &[i64]) -> Option<i64> {
        self.run(point, &mut Vec::with_capacity(self.ops.len()))
    }
}

/// Why a [`Compiled`] expression has no value at a point.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Undefined {
    /// A result does not fit in 64 bits.
    Overflow,
    /// A division or modulo by zero.
    DivisionByZero,
    /// The point has no value at a variable's position (it is too short).
    MissingVariable,
}

/// The scratch stack [`Compiled::run`] reuses between calls.
pub type Stack = Vec<std::result::Result<i64, Undefined>>;

fn binary(op: Op, a: i64, b: i64) -> Result<i64, Undefined> {
    use Undefined::{DivisionByZero, Overflow};
    let divide = |f: fn(i64, i64) -> crate::Result<i64>| match b {
        0 => Err(DivisionByZero),
        _ => f(a, b).map_err(|_| Overflow),
    };
    match op {
        Op::Add => a.checked_add(b).ok_or(Overflow),
        Op::Sub => a.checked_sub(b).ok_or(Overflow),
        Op::Mul => a.checked_mul(b).ok_or(Overflow),
        Op::FloorDiv => divide(num::floor_div),
        Op::FloorMod => divide(num::floor_mod),
        Op::CeilDiv => divide(num::ceil_div),
        Op::Min => Ok(a.min(b)),
        Op::Max => Ok(a.max(b)),
        Op::Cmp(c) => Ok(c.apply(a, b) as i64),
        // `run_checked` applies the other operators itself.
        _ => Err(Undefined::MissingVariable),
    }
}
