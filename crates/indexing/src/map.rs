//! The [`IndexingMap`] type: construction, access and constraints.

use crate::build;
use crate::interval::Interval;
use crate::variable::{VarKind, Variable};
use arith::{ArithError, ErrorKind, Expr, ExprKind, Result, Var};

/// A constraint `expr in [lower, upper]` on the variables of a map.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Constraint {
    /// The constrained expression.
    pub expr: Expr,
    /// The values `expr` may take.
    pub interval: Interval,
}

/// Whether a map is an ordinary map or one of XLA's two sentinels.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum State {
    Defined,
    /// Proven to have an empty domain; prints `KNOWN EMPTY`.
    KnownEmpty,
    /// No map at all (XLA's `GetUndefined`); prints `UNDEFINED`.
    Undefined,
}

/// XLA's indexing map: a function from dimension indices `d` (and the range
/// and runtime variables `s`, `rt` it enumerates) to result indices, with an
/// inclusive range for every variable and extra constraints
/// `g(d, s) in [lb, ub]` that restrict the domain.
///
/// Results and constraints are [`arith::Expr`]s over the map's variables.
/// The map prints and parses in XLA's text form:
///
/// ```
/// use indexing::IndexingMap;
/// let mut map = IndexingMap::parse(
///     "(d0, d1) -> (d0 + d1 floordiv 16, d1 mod 16), domain: d0 in [0, 6], d1 in [0, 14]",
/// ).unwrap();
/// map.simplify();
/// assert_eq!(map.to_string(), "(d0, d1) -> (d0, d1), domain: d0 in [0, 6], d1 in [0, 14]");
/// ```
#[derive(Clone, Debug)]
pub struct IndexingMap {
    pub(crate) dims: Vec<Variable>,
    pub(crate) symbols: Vec<Variable>,
    pub(crate) rt_vars: Vec<Variable>,
    pub(crate) results: Vec<Expr>,
    pub(crate) constraints: Vec<Constraint>,
    pub(crate) state: State,
}

impl IndexingMap {
    /// A map with the given variables and results and no constraints.
    ///
    /// Fails when a result uses a variable that is not one of the map's, uses
    /// an operator indexing maps do not have (conditions, `select`), or when
    /// a variable is listed twice. A variable with an empty range makes the
    /// map known-empty.
    ///
    /// ```
    /// use indexing::{IndexingMap, Interval, Variable};
    /// let d0 = Variable::new(Interval::new(0, 31));
    /// let map = IndexingMap::new(vec![d0.clone()], vec![], vec![], vec![d0.expr() * 2]).unwrap();
    /// assert_eq!(map.to_string(), "(d0) -> (d0 * 2), domain: d0 in [0, 31]");
    /// ```
    pub fn new(
        dims: Vec<Variable>,
        symbols: Vec<Variable>,
        rt_vars: Vec<Variable>,
        results: Vec<Expr>,
    ) -> Result<IndexingMap> {
        let mut map = IndexingMap {
            dims,
            symbols,
            rt_vars,
            results,
            constraints: Vec::new(),
            state: State::Defined,
        };
        map.check_distinct_vars()?;
        for r in &map.results {
            map.check_expr(r)?;
        }
        if map.all_vars().any(|v| v.bounds().is_empty()) {
            map.state = State::KnownEmpty;
        }
        Ok(map)
    }

    /// Builds a map from closures over fresh variables: `results` receives
    /// the dimension and symbol expressions and returns the results.
    ///
    /// ```
    /// use indexing::{IndexingMap, Interval};
    /// // reduce of f32[4, 8] over dimension 1: (d0)[s0] -> (d0, s0)
    /// let map = IndexingMap::from_fn(&[Interval::new(0, 3)], &[Interval::new(0, 7)], |d, s| {
    ///     vec![d[0].clone(), s[0].clone()]
    /// })
    /// .unwrap();
    /// assert_eq!(map.to_string(), "(d0)[s0] -> (d0, s0), domain: d0 in [0, 3], s0 in [0, 7]");
    /// ```
    pub fn from_fn(
        dim_bounds: &[Interval],
        symbol_bounds: &[Interval],
        results: impl FnOnce(&[Expr], &[Expr]) -> Vec<Expr>,
    ) -> Result<IndexingMap> {
        let dims = fresh_vars(VarKind::Dim, dim_bounds);
        let symbols = fresh_vars(VarKind::Symbol, symbol_bounds);
        let d: Vec<Expr> = dims.iter().map(Variable::expr).collect();
        let s: Vec<Expr> = symbols.iter().map(Variable::expr).collect();
        let out = results(&d, &s);
        IndexingMap::new(dims, symbols, vec![], out)
    }

    /// The identity map on a tensor of shape `shape`:
    /// `(d0, ..., dn) -> (d0, ..., dn)` with `di in [0, shape[i] - 1]`.
    pub fn identity(shape: &[i64]) -> IndexingMap {
        let bounds: Vec<Interval> = shape.iter().map(|&n| Interval::of_size(n)).collect();
        let dims = fresh_vars(VarKind::Dim, &bounds);
        let results = dims.iter().map(Variable::expr).collect();
        let state = if shape.iter().any(|&n| n <= 0) {
            State::KnownEmpty
        } else {
            State::Defined
        };
        IndexingMap {
            dims,
            symbols: vec![],
            rt_vars: vec![],
            results,
            constraints: vec![],
            state,
        }
    }

    /// A map with `num_dims` dimensions and `num_results` results whose
    /// domain is known to be empty (prints `KNOWN EMPTY`).
    pub fn known_empty(num_dims: usize, num_results: usize) -> IndexingMap {
        IndexingMap {
            dims: (0..num_dims)
                .map(|_| Variable::new(Interval::new(0, -1)))
                .collect(),
            symbols: vec![],
            rt_vars: vec![],
            results: vec![Expr::int(0); num_results],
            constraints: vec![],
            state: State::KnownEmpty,
        }
    }

    /// XLA's undefined map (prints `UNDEFINED`): the indexing is unknown.
    pub fn undefined() -> IndexingMap {
        IndexingMap {
            dims: vec![],
            symbols: vec![],
            rt_vars: vec![],
            results: vec![],
            constraints: vec![],
            state: State::Undefined,
        }
    }

    /// Whether the domain is known to be empty.
    pub fn is_known_empty(&self) -> bool {
        self.state == State::KnownEmpty
    }

    /// Whether this is the undefined map.
    pub fn is_undefined(&self) -> bool {
        self.state == State::Undefined
    }

    /// Marks the domain as empty.
    pub fn mark_known_empty(&mut self) {
        if self.state == State::Defined {
            self.state = State::KnownEmpty;
            self.constraints.clear();
        }
    }

    /// The dimensions, in order.
    pub fn dims(&self) -> &[Variable] {
        &self.dims
    }

    /// The range variables (symbols), in order.
    pub fn symbols(&self) -> &[Variable] {
        &self.symbols
    }

    /// The runtime variables, in order.
    pub fn rt_vars(&self) -> &[Variable] {
        &self.rt_vars
    }

    /// The result expressions.
    pub fn results(&self) -> &[Expr] {
        &self.results
    }

    /// The constraints, in the order they were added.
    pub fn constraints(&self) -> &[Constraint] {
        &self.constraints
    }

    /// The number of dimensions.
    pub fn num_dims(&self) -> usize {
        self.dims.len()
    }

    /// The number of range variables.
    pub fn num_symbols(&self) -> usize {
        self.symbols.len()
    }

    /// The number of results.
    pub fn num_results(&self) -> usize {
        self.results.len()
    }

    /// Dimension `i` as an expression (panics when out of range, like slice
    /// indexing).
    pub fn dim_expr(&self, i: usize) -> Expr {
        self.dims[i].expr()
    }

    /// Range variable `i` as an expression (panics when out of range).
    pub fn symbol_expr(&self, i: usize) -> Expr {
        self.symbols[i].expr()
    }

    /// Every variable: dimensions, then range variables, then runtime
    /// variables. This is the order of points given to
    /// [`IndexingMap::evaluate`] and of the domain in the printed form.
    pub fn all_vars(&self) -> impl Iterator<Item = &Variable> {
        self.dims.iter().chain(&self.symbols).chain(&self.rt_vars)
    }

    /// The kind and position of `var` in this map.
    pub fn find_var(&self, var: &Var) -> Option<(VarKind, usize)> {
        let find = |vs: &[Variable]| vs.iter().position(|v| v.var() == var);
        find(&self.dims)
            .map(|i| (VarKind::Dim, i))
            .or_else(|| find(&self.symbols).map(|i| (VarKind::Symbol, i)))
            .or_else(|| find(&self.rt_vars).map(|i| (VarKind::Runtime, i)))
    }

    /// The printed name of `var`: its custom name or its positional default.
    pub fn var_name(&self, var: &Var) -> String {
        match self.find_var(var) {
            Some((kind, i)) => {
                let v = self.vars_of(kind).get(i);
                match v.and_then(Variable::name) {
                    Some(n) => n.to_string(),
                    None => kind.default_name(i),
                }
            }
            None => var.name().to_string(),
        }
    }

    pub(crate) fn vars_of(&self, kind: VarKind) -> &[Variable] {
        match kind {
            VarKind::Dim => &self.dims,
            VarKind::Symbol => &self.symbols,
            VarKind::Runtime => &self.rt_vars,
        }
    }

    pub(crate) fn vars_of_mut(&mut self, kind: VarKind) -> &mut Vec<Variable> {
        match kind {
            VarKind::Dim => &mut self.dims,
            VarKind::Symbol => &mut self.symbols,
            VarKind::Runtime => &mut self.rt_vars,
        }
    }

    /// Narrows the range of dimension `i` to `bounds` (intersection); an
    /// empty result makes the map known-empty.
    pub fn restrict_dim(&mut self, i: usize, bounds: Interval) {
        self.restrict(VarKind::Dim, i, bounds)
    }

    /// Narrows the range of range variable `i` to `bounds`.
    pub fn restrict_symbol(&mut self, i: usize, bounds: Interval) {
        self.restrict(VarKind::Symbol, i, bounds)
    }

    pub(crate) fn restrict(&mut self, kind: VarKind, i: usize, bounds: Interval) {
        let Some(v) = self.vars_of_mut(kind).get_mut(i) else {
            return;
        };
        let b = v.bounds().intersect(bounds);
        v.set_bounds(b);
        if b.is_empty() {
            self.mark_known_empty();
        }
    }

    /// Adds the constraint `expr in interval`, as XLA's `AddConstraint` does.
    /// `expr` is first folded like XLA's builders fold (`(d0 - 5) mod 1` is
    /// `0`); a constraint on a single variable narrows that variable's range; a
    /// constant constraint is dropped when it holds and makes the map
    /// known-empty when it does not; a second constraint on the same
    /// expression intersects with the first.
    ///
    /// Fails when `expr` uses a variable that is not one of the map's.
    pub fn add_constraint(&mut self, expr: Expr, interval: Interval) -> Result<()> {
        self.check_expr(&expr)?;
        if self.state != State::Defined {
            return Ok(());
        }
        let expr = build::fold(&expr);
        if interval.is_empty() {
            self.mark_known_empty();
            return Ok(());
        }
        if let Some(v) = expr.as_int() {
            if !interval.contains(v) {
                self.mark_known_empty();
            }
            return Ok(());
        }
        if let Some(var) = expr.as_var() {
            if let Some((kind, i)) = self.find_var(var) {
                self.restrict(kind, i, interval);
                return Ok(());
            }
        }
        match self.constraints.iter_mut().find(|c| c.expr == expr) {
            Some(c) => {
                c.interval = c.interval.intersect(interval);
                if c.interval.is_empty() {
                    self.mark_known_empty();
                }
            }
            None => self.constraints.push(Constraint { expr, interval }),
        }
        Ok(())
    }

    /// Replaces result `i` (for builders; the expression is checked like
    /// results of [`IndexingMap::new`]).
    pub fn set_result(&mut self, i: usize, e: Expr) -> Result<()> {
        self.check_expr(&e)?;
        match self.results.get_mut(i) {
            Some(r) => {
                *r = e;
                Ok(())
            }
            None => Err(ArithError::new(
                ErrorKind::Invalid,
                format!(
                    "the map has {} results; there is no result {i}",
                    self.results.len()
                ),
            )),
        }
    }

    fn check_distinct_vars(&self) -> Result<()> {
        let mut seen = std::collections::HashSet::new();
        for v in self.all_vars() {
            if !seen.insert(v.var().clone()) {
                return Err(ArithError::new(
                    ErrorKind::Invalid,
                    format!(
                        "variable `{}` is listed twice; give each map variable its own Var",
                        v.var()
                    ),
                ));
            }
        }
        Ok(())
    }

    /// Checks that `e` is an index expression over this map's variables.
    pub(crate) fn check_expr(&self, e: &Expr) -> Result<()> {
        let mut err = None;
        visit(e, &mut |n| {
            if err.is_some() {
                return;
            }
            match n.kind() {
                ExprKind::Var(v) if self.find_var(v).is_none() => {
                    err = Some(ArithError::new(
                        ErrorKind::UnknownName,
                        format!(
                            "`{v}` is not a variable of this map; declare it as a dimension, range or runtime variable"
                        ),
                    ))
                }
                ExprKind::Select(..)
                | ExprKind::Cmp(..)
                | ExprKind::And(..)
                | ExprKind::Or(..)
                | ExprKind::Not(..)
                | ExprKind::Bool(_) => {
                    err = Some(ArithError::new(
                        ErrorKind::Type,
                        format!(
                            "`{n}` cannot appear in an indexing map: use +, -, *, floordiv, ceildiv, mod, min and max"
                        ),
                    ))
                }
                _ => {}
            }
        });
        err.map_or(Ok(()), Err)
    }
}

/// Two maps are equal when they print the same: the same variables (names
/// and ranges), results and constraints, whatever the identities of their
/// [`Var`]s. This is XLA's structural `operator==`, not semantic equality
/// (see [`crate::semantically_equal`]).
impl PartialEq for IndexingMap {
    fn eq(&self, other: &IndexingMap) -> bool {
        self.num_results() == other.num_results() && self.to_string() == other.to_string()
    }
}

impl Eq for IndexingMap {}

impl std::hash::Hash for IndexingMap {
    fn hash<H: std::hash::Hasher>(&self, h: &mut H) {
        self.to_string().hash(h)
    }
}

/// Fresh unnamed variables; their `Var`s carry the default names so that
/// `arith`'s own messages read naturally.
fn fresh_vars(kind: VarKind, bounds: &[Interval]) -> Vec<Variable> {
    bounds
        .iter()
        .enumerate()
        .map(|(i, b)| Variable::from_var(Var::new(kind.default_name(i)), *b, None))
        .collect()
}

fn visit(e: &Expr, f: &mut impl FnMut(&Expr)) {
    f(e);
    for c in e.children() {
        visit(c, f);
    }
}
