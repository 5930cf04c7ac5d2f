//! A small builder for the maps of one op: dimensions over a shape, range
//! and runtime variables added as needed, constraints, then results.

use crate::error::AnalysisError;
use arith::Expr;
use indexing::{IndexingMap, Interval, Variable};

/// Why an op has no indexing map: an unsupported op or attribute.
pub(crate) type Unsupported = crate::error::AnalysisError;

/// Builds one [`IndexingMap`] step by step.
#[derive(Clone)]
pub(crate) struct MapBuilder {
    dims: Vec<Variable>,
    symbols: Vec<Variable>,
    rt_vars: Vec<Variable>,
    constraints: Vec<(Expr, Interval)>,
}

impl MapBuilder {
    /// A builder whose dimensions index a tensor of shape `sizes`.
    pub(crate) fn over(sizes: &[i64]) -> MapBuilder {
        MapBuilder {
            dims: sizes
                .iter()
                .map(|&n| Variable::new(Interval::of_size(n)))
                .collect(),
            symbols: Vec::new(),
            rt_vars: Vec::new(),
            constraints: Vec::new(),
        }
    }

    /// Dimension `i`.
    pub(crate) fn dim(&self, i: usize) -> Expr {
        self.dims[i].expr()
    }

    /// All dimensions as expressions.
    pub(crate) fn dims(&self) -> Vec<Expr> {
        self.dims.iter().map(Variable::expr).collect()
    }

    /// Narrows dimension `i` to `bounds`.
    pub(crate) fn restrict_dim(&mut self, i: usize, bounds: Interval) {
        let b = self.dims[i].bounds().intersect(bounds);
        self.dims[i].set_bounds(b);
    }

    /// A new range variable over `[0, size - 1]`.
    pub(crate) fn symbol(&mut self, size: i64) -> Expr {
        let v = Variable::new(Interval::of_size(size));
        let e = v.expr();
        self.symbols.push(v);
        e
    }

    /// A new runtime variable over `bounds`.
    pub(crate) fn rt_var(&mut self, bounds: Interval) -> Expr {
        let v = Variable::new(bounds);
        let e = v.expr();
        self.rt_vars.push(v);
        e
    }

    /// Adds the constraint `e in bounds`.
    pub(crate) fn constrain(&mut self, e: Expr, bounds: Interval) {
        self.constraints.push((e, bounds));
    }

    /// The map with these results (not simplified: composition simplifies
    /// once, and [`crate::analysis`] simplifies maps shown on their own).
    pub(crate) fn build(&self, results: Vec<Expr>) -> Result<IndexingMap, Unsupported> {
        let mut map = IndexingMap::new(
            self.dims.clone(),
            self.symbols.clone(),
            self.rt_vars.clone(),
            results,
        )
        .map_err(|e| AnalysisError::composition(format!("internal error building a map: {e}")))?;
        for (e, b) in &self.constraints {
            map.add_constraint(e.clone(), *b).map_err(|e| {
                AnalysisError::composition(format!("internal error adding a constraint: {e}"))
            })?;
        }
        Ok(map)
    }

    /// A map from these dimensions to a scalar: `(d...) -> ()`.
    pub(crate) fn to_scalar(&self) -> Result<IndexingMap, Unsupported> {
        let mut dims_only = MapBuilder::over(&[]);
        dims_only.dims = self.dims.clone();
        dims_only.build(Vec::new())
    }
}
