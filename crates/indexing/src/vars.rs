//! Removing unused variables and turning range variables into dimensions.

use crate::map::{IndexingMap, State};
use crate::variable::{VarKind, Variable};
use arith::{ArithError, ErrorKind, Result, Var};
use std::collections::HashSet;

impl IndexingMap {
    /// Removes dimensions, range variables and runtime variables that no
    /// result uses, as XLA's `RemoveUnusedVars`. A variable stays when a
    /// constraint links it to a variable that stays; constraints on removed
    /// variables only are dropped (a dropped constraint that no value in its
    /// variables' ranges satisfies makes the map known-empty; constraints that
    /// are only jointly unsatisfiable are not detected, so the result may
    /// over-approximate, never under-approximate). Returns, for every
    /// variable (dims, then range vars, then rt vars), whether it was removed.
    ///
    /// ```
    /// use indexing::IndexingMap;
    /// let mut map = IndexingMap::parse(
    ///     "(d0, d1)[s0, s1] -> (s0, d1, s1), domain: d0 in [0, 49], d1 in [0, 59], s0 in [0, 69], s1 in [0, 19], d0 mod 3 in [0, 0]",
    /// ).unwrap();
    /// assert_eq!(map.remove_unused_vars(), vec![true, false, false, false]);
    /// assert_eq!(map.to_string(), "(d0)[s0, s1] -> (s0, d0, s1), domain: d0 in [0, 59], s0 in [0, 69], s1 in [0, 19]");
    /// ```
    pub fn remove_unused_vars(&mut self) -> Vec<bool> {
        self.remove_unused(&[VarKind::Dim, VarKind::Symbol, VarKind::Runtime])
    }

    /// Removes unused dimensions only; see [`IndexingMap::remove_unused_vars`].
    pub fn remove_unused_dims(&mut self) -> Vec<bool> {
        self.remove_unused(&[VarKind::Dim])
    }

    /// Removes unused range and runtime variables only (XLA's
    /// `RemoveUnusedSymbols`); see [`IndexingMap::remove_unused_vars`].
    pub fn remove_unused_symbols(&mut self) -> Vec<bool> {
        self.remove_unused(&[VarKind::Symbol, VarKind::Runtime])
    }

    fn remove_unused(&mut self, removable: &[VarKind]) -> Vec<bool> {
        let total = self.all_vars().count();
        if self.state != State::Defined {
            return vec![false; total];
        }
        let mut kept: HashSet<Var> = HashSet::new();
        for r in &self.results {
            r.for_each_var(&mut |v| {
                kept.insert(v.clone());
            });
        }
        for kind in [VarKind::Dim, VarKind::Symbol, VarKind::Runtime] {
            if !removable.contains(&kind) {
                kept.extend(self.vars_of(kind).iter().map(|v| v.var().clone()));
            }
        }
        let constraint_vars: Vec<Vec<Var>> =
            self.constraints.iter().map(|c| c.expr.vars()).collect();
        loop {
            let mut grew = false;
            for vars in &constraint_vars {
                if vars.iter().any(|v| kept.contains(v)) {
                    for v in vars {
                        grew |= kept.insert(v.clone());
                    }
                }
            }
            if !grew {
                break;
            }
        }
        // A constraint on removed variables only is dropped; if no value in
        // their ranges can satisfy it, the whole map was empty.
        let dropped_infeasible = self
            .constraints
            .iter()
            .zip(&constraint_vars)
            .any(|(c, vars)| {
                !vars.iter().any(|v| kept.contains(v))
                    && self
                        .expression_range(&c.expr)
                        .intersect(c.interval)
                        .is_empty()
            });
        let mut k = 0;
        self.constraints.retain(|_| {
            k += 1;
            constraint_vars[k - 1].iter().any(|v| kept.contains(v))
        });
        let removed: Vec<bool> = self.all_vars().map(|v| !kept.contains(v.var())).collect();
        for kind in [VarKind::Dim, VarKind::Symbol, VarKind::Runtime] {
            self.vars_of_mut(kind).retain(|v| kept.contains(v.var()));
        }
        if dropped_infeasible {
            self.mark_known_empty();
        }
        removed
    }

    /// The same map with every range and runtime variable turned into a
    /// dimension, appended after the existing ones (XLA's
    /// `ConvertSymbolsToDimensions`).
    pub fn convert_symbols_to_dimensions(&self) -> IndexingMap {
        let mut map = self.clone();
        let symbols = std::mem::take(&mut map.symbols);
        let rt = std::mem::take(&mut map.rt_vars);
        map.dims.extend(symbols);
        map.dims.extend(rt);
        map
    }

    /// The same map with the range variables at `indices` turned into
    /// dimensions, appended after the existing ones in the order given
    /// (XLA's `ConvertRangeVariablesToDimensions`). Fails on an index out of
    /// range or listed twice.
    pub fn convert_range_vars_to_dimensions(&self, indices: &[usize]) -> Result<IndexingMap> {
        let mut seen = HashSet::new();
        for &i in indices {
            if i >= self.symbols.len() || !seen.insert(i) {
                return Err(ArithError::new(
                    ErrorKind::Invalid,
                    format!(
                        "range variable {i} cannot be converted: the map has {} range variables and each may be listed once",
                        self.symbols.len()
                    ),
                ));
            }
        }
        let mut map = self.clone();
        map.dims
            .extend(indices.iter().map(|&i| self.symbols[i].clone()));
        map.symbols = self
            .symbols
            .iter()
            .enumerate()
            .filter(|(i, _)| !seen.contains(i))
            .map(|(_, v)| v.clone())
            .collect();
        Ok(map)
    }

    /// Renames every range variable `sN` (or custom name `n`) to
    /// `{prefix}sN` (`{prefix}n`), for printing a map beside another whose
    /// symbols mean something else.
    ///
    /// ```
    /// use indexing::IndexingMap;
    /// let mut map = IndexingMap::parse("(d0)[s0] -> (d0 + s0), domain: d0 in [0, 3], s0 in [0, 1]").unwrap();
    /// map.prefix_symbol_names("rt0.");
    /// assert_eq!(map.to_string(), "(d0)[rt0.s0] -> (d0 + rt0.s0), domain: d0 in [0, 3], rt0.s0 in [0, 1]");
    /// ```
    pub fn prefix_symbol_names(&mut self, prefix: &str) {
        for (i, v) in self.symbols.iter_mut().enumerate() {
            let old = v
                .name()
                .map_or_else(|| VarKind::Symbol.default_name(i), str::to_string);
            *v = Variable::from_var(v.var().clone(), v.bounds(), Some(format!("{prefix}{old}")));
        }
    }
}
