//! Evaluating a map at points and enumerating its domain.
//!
//! Expressions are compiled once into arith's postfix [`Compiled`] program
//! over variable positions, so enumerating a domain costs no allocation and
//! no name lookups per point. Arithmetic is checked: an overflow or a division by
//! zero makes the value undefined (`None`), never a wrapped number.

use crate::interval::Interval;
use crate::map::{IndexingMap, State};
use arith::{ArithError, Compiled, ErrorKind, Expr, ExprKind, Result, Stack, Var};

/// An expression compiled against the variable order of one map: arith's
/// [`Compiled`], admitted only for index expressions (a comparison or a
/// `select` in a map is an error, not a value).
#[derive(Clone, Debug)]
pub(crate) struct Program(Compiled);

impl Program {
    pub(crate) fn compile(map: &IndexingMap, e: &Expr) -> Result<Program> {
        let vars: Vec<Var> = map.all_vars().map(|v| v.var().clone()).collect();
        Program::compile_with(&vars, e)
    }

    /// [`Program::compile`] with the map's variables, in order, given.
    fn compile_with(vars: &[Var], e: &Expr) -> Result<Program> {
        // Pre-order, so that the error names the outermost offending node.
        let mut stack = vec![e];
        while let Some(n) = stack.pop() {
            use ExprKind::*;
            match n.kind() {
                Int(_) | Add(..) | Sub(..) | Mul(..) | FloorDiv(..) | FloorMod(..)
                | CeilDiv(..) | Min(..) | Max(..) => {}
                ExprKind::Var(v) if !vars.contains(v) => {
                    return Err(ArithError::new(
                        ErrorKind::Unbound,
                        format!("`{v}` is not a variable of this map"),
                    ))
                }
                ExprKind::Var(_) => {}
                _ => {
                    return Err(ArithError::new(
                        ErrorKind::Type,
                        format!("`{n}` is not an index expression and cannot be evaluated"),
                    ))
                }
            }
            stack.extend(n.children().into_iter().rev());
        }
        Ok(Program(Compiled::new(e, vars)?))
    }

    /// The value at `point` (values of all variables in map order), or
    /// `None` when the arithmetic is undefined there.
    pub(crate) fn run(&self, point: &[i64], stack: &mut Stack) -> Option<i64> {
        self.0.run(point, stack)
    }
}

/// A map compiled for repeated evaluation.
pub(crate) struct CompiledMap {
    pub results: Vec<Program>,
    pub constraints: Vec<(Program, Interval)>,
    pub bounds: Vec<Interval>,
    pub num_dims: usize,
    stack: Stack,
}

impl CompiledMap {
    pub(crate) fn new(map: &IndexingMap) -> Result<CompiledMap> {
        let vars: Vec<Var> = map.all_vars().map(|v| v.var().clone()).collect();
        Ok(CompiledMap {
            results: map
                .results
                .iter()
                .map(|r| Program::compile_with(&vars, r))
                .collect::<Result<_>>()?,
            constraints: map
                .constraints
                .iter()
                .map(|c| Ok((Program::compile_with(&vars, &c.expr)?, c.interval)))
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
