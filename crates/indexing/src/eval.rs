//! Evaluating a map at points and enumerating its domain.
//!
//! Expressions are compiled once into a small postfix program over variable
//! positions, so enumerating a domain costs no allocation and no name
//! lookups per point. Arithmetic is checked: an overflow or a division by
//! zero makes the value undefined (`None`), never a wrapped number.

use crate::interval::Interval;
use crate::map::{IndexingMap, State};
use arith::{ArithError, ErrorKind, Expr, ExprKind, Result};

#[derive(Clone, Copy, Debug)]
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
}

/// An expression compiled against the variable order of one map.
#[derive(Clone, Debug)]
pub(crate) struct Program {
    ops: Vec<Op>,
}

impl Program {
    pub(crate) fn compile(map: &IndexingMap, e: &Expr) -> Result<Program> {
        let mut ops = Vec::with_capacity(e.node_count());
        emit(map, e, &mut ops)?;
        Ok(Program { ops })
    }

    /// The value at `point` (values of all variables in map order), or
    /// `None` when the arithmetic is undefined there.
    pub(crate) fn run(&self, point: &[i64], stack: &mut Vec<i64>) -> Option<i64> {
        stack.clear();
        for op in &self.ops {
            let v = match *op {
                Op::Const(c) => c,
                Op::Var(i) => *point.get(i)?,
                _ => {
                    let b = stack.pop()?;
                    let a = stack.pop()?;
                    match *op {
                        Op::Add => a.checked_add(b)?,
                        Op::Sub => a.checked_sub(b)?,
                        Op::Mul => a.checked_mul(b)?,
                        Op::FloorDiv => arith::num::floor_div(a, b).ok()?,
                        Op::FloorMod => arith::num::floor_mod(a, b).ok()?,
                        Op::CeilDiv => arith::num::ceil_div(a, b).ok()?,
                        Op::Min => a.min(b),
                        Op::Max => a.max(b),
                        Op::Const(_) | Op::Var(_) => unreachable!("leaves are handled above"),
                    }
                }
            };
            stack.push(v);
        }
        stack.pop()
    }
}

fn emit(map: &IndexingMap, e: &Expr, ops: &mut Vec<Op>) -> Result<()> {
    use ExprKind::*;
    let op = match e.kind() {
        Int(v) => {
            ops.push(Op::Const(*v));
            return Ok(());
        }
        Var(v) => {
            let pos = map.all_vars().position(|x| x.var() == v).ok_or_else(|| {
                ArithError::new(
                    ErrorKind::Unbound,
                    format!("`{v}` is not a variable of this map"),
                )
            })?;
            ops.push(Op::Var(pos));
            return Ok(());
        }
        Add(..) => Op::Add,
        Sub(..) => Op::Sub,
        Mul(..) => Op::Mul,
        FloorDiv(..) => Op::FloorDiv,
        FloorMod(..) => Op::FloorMod,
        CeilDiv(..) => Op::CeilDiv,
        Min(..) => Op::Min,
        Max(..) => Op::Max,
        _ => {
            return Err(ArithError::new(
                ErrorKind::Type,
                format!("`{e}` is not an index expression and cannot be evaluated"),
            ))
        }
    };
    for c in e.children() {
        emit(map, c, ops)?;
    }
    ops.push(op);
    Ok(())
}

/// A map compiled for repeated evaluation.
pub(crate) struct CompiledMap {
    pub results: Vec<Program>,
    pub constraints: Vec<(Program, Interval)>,
    pub bounds: Vec<Interval>,
    pub num_dims: usize,
    stack: Vec<i64>,
}

impl CompiledMap {
    pub(crate) fn new(map: &IndexingMap) -> Result<CompiledMap> {
        Ok(CompiledMap {
            results: map
                .results
                .iter()
                .map(|r| Program::compile(map, r))
                .collect::<Result<_>>()?,
            constraints: map
                .constraints
                .iter()
                .map(|c| Ok((Program::compile(map, &c.expr)?, c.interval)))
                .collect::<Result<_>>()?,
            bounds: map.all_vars().map(|v| v.bounds()).collect(),
            num_dims: map.dims.len(),
            stack: Vec::new(),
        })
    }

    /// Whether every constraint holds at `point` (ranges are not checked;
    /// an undefined constraint value does not hold).
    pub(crate) fn constraints_hold(&mut self, point: &[i64]) -> bool {
        let stack = &mut self.stack;
        self.constraints
            .iter()
            .all(|(p, iv)| p.run(point, stack).is_some_and(|v| iv.contains(v)))
    }

    /// Result values at `point`; `None` entries are undefined.
    pub(crate) fn results_at(&mut self, point: &[i64], out: &mut Vec<Option<i64>>) {
        out.clear();
        for p in &self.results {
            out.push(p.run(point, &mut self.stack));
        }
    }
}

/// Calls `f` with every point of the box `bounds` (odometer order, last
/// variable fastest) written into `point[offset..]`.
pub(crate) fn for_each_box_point(
    bounds: &[Interval],
    point: &mut [i64],
    offset: usize,
    f: &mut dyn FnMut(&[i64]),
) {
    if bounds.iter().any(|b| b.is_empty()) {
        return;
    }
    for (k, b) in bounds.iter().enumerate() {
        point[offset + k] = b.lower;
    }
    loop {
        f(point);
        // advance
        let mut k = bounds.len();
        loop {
            if k == 0 {
                return;
            }
            k -= 1;
            if point[offset + k] < bounds[k].upper {
                point[offset + k] += 1;
                break;
            }
            point[offset + k] = bounds[k].lower;
        }
    }
}

/// The number of points of a box, saturating.
pub(crate) fn box_size(bounds: &[Interval]) -> u128 {
    bounds
        .iter()
        .fold(1u128, |acc, b| acc.saturating_mul(b.len()))
}

impl IndexingMap {
    fn check_point(&self, point: &[i64]) -> Result<()> {
        let n = self.all_vars().count();
        if point.len() != n {
            return Err(ArithError::new(
                ErrorKind::Invalid,
                format!(
                    "a point of this map has {n} values (dims, then range vars, then runtime vars); {} were given",
                    point.len()
                ),
            ));
        }
        Ok(())
    }

    /// The results at `point`: values of all variables, dimensions first,
    /// then range variables, then runtime variables. Ranges and constraints
    /// are not checked (as XLA's `Evaluate`). Overflow and division by zero
    /// are errors.
    ///
    /// ```
    /// use indexing::IndexingMap;
    /// let map = IndexingMap::parse("(d0)[s0] -> (d0 * 4 + s0, d0 / 2), domain: d0 in [0, 9], s0 in [0, 3]").unwrap();
    /// assert_eq!(map.evaluate(&[5, 3]).unwrap(), vec![23, 2]);
    /// ```
    pub fn evaluate(&self, point: &[i64]) -> Result<Vec<i64>> {
        self.check_point(point)?;
        let mut stack = Vec::new();
        self.results
            .iter()
            .map(|r| {
                Program::compile(self, r)?
                    .run(point, &mut stack)
                    .ok_or_else(|| {
                        ArithError::new(
                            ErrorKind::Overflow,
                            format!(
                                "`{}` has no value at {point:?}: overflow or division by zero",
                                self.print_expr(r)
                            ),
                        )
                    })
            })
            .collect()
    }

    /// Whether every constraint holds at `point` (variable ranges are not
    /// checked, as in XLA's `ConstraintsSatisfied`).
    pub fn constraints_satisfied(&self, point: &[i64]) -> Result<bool> {
        self.check_point(point)?;
        Ok(CompiledMap::new(self)?.constraints_hold(point))
    }

    /// Whether `point` is in the domain: inside every variable range and
    /// satisfying every constraint.
    pub fn contains(&self, point: &[i64]) -> Result<bool> {
        self.check_point(point)?;
        if self.state != State::Defined {
            return Ok(false);
        }
        let inside = self
            .all_vars()
            .zip(point)
            .all(|(v, x)| v.bounds().contains(*x));
        Ok(inside && CompiledMap::new(self)?.constraints_hold(point))
    }

    /// Every point of the domain (values of all variables in map order), in
    /// lexicographic order. Fails when the box of variable ranges has more
    /// than `limit` points.
    ///
    /// ```
    /// use indexing::IndexingMap;
    /// let map = IndexingMap::parse("(d0) -> (d0), domain: d0 in [0, 9], d0 mod 4 in [0, 0]").unwrap();
    /// assert_eq!(map.domain_points(100).unwrap(), vec![vec![0], vec![4], vec![8]]);
    /// ```
    pub fn domain_points(&self, limit: u64) -> Result<Vec<Vec<i64>>> {
        if self.state != State::Defined {
            return Ok(vec![]);
        }
        let mut c = CompiledMap::new(self)?;
        let size = box_size(&c.bounds);
        if size > limit as u128 {
            return Err(too_large(size, limit));
        }
        let bounds = c.bounds.clone();
        let mut point = vec![0; bounds.len()];
        let mut out = Vec::new();
        for_each_box_point(&bounds, &mut point, 0, &mut |p| {
            if c.constraints_hold(p) {
                out.push(p.to_vec());
            }
        });
        Ok(out)
    }
}

pub(crate) fn too_large(size: u128, limit: u64) -> ArithError {
    ArithError::new(
        ErrorKind::Invalid,
        format!("the domain box has {size} points, more than the limit of {limit}; raise the limit or use smaller ranges"),
    )
}
