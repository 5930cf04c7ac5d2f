//! Concrete sizes: the numeric ranges and shapes of a definition, and its
//! preconditions decided.

use crate::ast::Dim;
use crate::diag::Diagnostic;
use crate::infer::{precondition_warning, sort_diagnostics, DefAnalysis, Status};
use arith::Var;
use std::collections::HashMap;

/// A definition's ranges, shapes and preconditions under concrete sizes.
#[derive(Clone, Debug)]
pub struct SizeCheck {
    /// The value of every size symbol that was given.
    pub env: HashMap<Var, i64>,
    /// Per statement, per inferred range: `(lower, upper)` when both
    /// evaluate.
    pub ranges: Vec<Vec<Option<(i64, i64)>>>,
    /// Per inferred output: its shape when every extent evaluates.
    pub shapes: Vec<Option<Vec<i64>>>,
    /// Every diagnostic, with the size-dependent preconditions decided:
    /// proved ones dropped, violated ones errors, empty ranges warnings.
    pub diagnostics: Vec<Diagnostic>,
}

/// Binds the size symbols named in `values` (others stay symbolic) and
/// evaluates what inference found.
///
/// ```
/// let a = tc::analyze("def f(float(I) B, float(K) C, float(J) D) -> (A) {
///     A(i, j) = B(i) * C(i + j) * D(j)
/// }");
/// let sizes = [("I".to_string(), 3), ("J".to_string(), 4), ("K".to_string(), 5)].into();
/// let c = tc::bind_sizes(&a.defs[0], &sizes);
/// assert!(c.diagnostics.iter().any(|d| d.severity == tc::Severity::Error));
/// let sizes = [("I".to_string(), 3), ("J".to_string(), 4), ("K".to_string(), 6)].into();
/// let c = tc::bind_sizes(&a.defs[0], &sizes);
/// assert!(c.diagnostics.is_empty());
/// ```
pub fn bind_sizes(def: &DefAnalysis, values: &HashMap<String, i64>) -> SizeCheck {
    let env: HashMap<Var, i64> = def
        .sizes
        .iter()
        .filter_map(|(n, v)| values.get(n).map(|x| (v.clone(), *x)))
        .collect();
    let ev = |e: &arith::Expr| e.eval(&|v: &Var| env.get(v).copied()).ok();
    let mut diagnostics = def.diagnostics.clone();
    let mut ranges = Vec::new();
    for (s, st) in def.stmts.iter().zip(&def.checked.stmts) {
        let mut rs = Vec::new();
        let mut empty = false;
        for r in &s.ranges {
            let pair = ev(&r.lower).zip(ev(&r.upper));
            if let Some((lo, hi)) = pair {
                if hi <= lo {
                    empty = true;
                    let span = st
                        .vars
                        .iter()
                        .find(|v| v.name == r.name)
                        .map_or_else(Default::default, |v| v.span);
                    diagnostics.push(Diagnostic::warning(
                        span,
                        format!(
                            "`{}` has an empty range with these sizes ({lo} <= {} < {hi}): \
                             the statement does nothing",
                            r.name, r.name
                        ),
                    ));
                }
            }
            rs.push(pair);
        }
        for p in &s.preconditions {
            if p.status != Status::Unknown {
                continue;
            }
            match ev(&p.condition) {
                // With an empty range nothing is read.
                Some(0) if !empty => diagnostics.push(Diagnostic::error(
                    p.span,
                    format!(
                        "`{}` reads out of bounds with these sizes: it needs `{}`",
                        p.access, p.condition
                    ),
                )),
                Some(_) => {}
                None => diagnostics.push(precondition_warning(p)),
            }
        }
        ranges.push(rs);
    }
    let shapes: Vec<Option<Vec<i64>>> = def
        .outputs
        .iter()
        .map(|o| o.shape.iter().map(ev).collect::<Option<Vec<i64>>>())
        .collect();
    // Declared output shapes against the inferred ones.
    for (o, shape) in def.outputs.iter().zip(&shapes) {
        let (Some(t), Some(shape)) = (def.checked.tensors.get(&o.name), shape) else {
            continue;
        };
        if t.dims.len() != shape.len() {
            continue;
        }
        for (k, (d, got)) in t.dims.iter().zip(shape).enumerate() {
            let (want, span) = match d {
                Dim::Const(v, span) => (Some(*v), *span),
                Dim::Size(s) => (values.get(&s.name).copied(), s.span),
            };
            if let Some(want) = want.filter(|w| w != got) {
                diagnostics.push(Diagnostic::error(
                    span,
                    format!(
                        "size bound inconsistently: dimension {k} of output `{}` is declared \
                         {want} but has {got} elements with these sizes",
                        o.name
                    ),
                ));
            }
        }
    }
    sort_diagnostics(&mut diagnostics);
    SizeCheck {
        env,
        ranges,
        shapes,
        diagnostics,
    }
}
