//! Concrete sizes: the numeric ranges and shapes of a definition, and its
//! preconditions decided.

use crate::ast::Dim;
use crate::diag::{Diagnostic, Span};
use crate::infer::{precondition_warning, sort_diagnostics, DefAnalysis, Status};
use arith::{Expr, Var};
use std::collections::HashMap;

/// Checks the value of size `name`: a size is a tensor dimension, and
/// inference takes every size to be at least 1 (a zero or negative size
/// would make the inferred ranges and the checks made with them wrong).
pub fn check_size(name: &str, value: i64) -> Result<(), String> {
    if name.is_empty() {
        return Err("the size has no name: write NAME=VALUE, as in `N=64`".to_string());
    }
    if !name.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
        || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
    {
        return Err(format!(
            "`{name}` is not a size name (letters, digits and `_`, not starting with a digit)"
        ));
    }
    if value < 1 {
        return Err(format!(
            "size `{name}` must be at least 1, got {value} (sizes are tensor dimensions, and \
             range inference takes them to be positive)"
        ));
    }
    Ok(())
}

/// Parses size bindings written `NAME=VALUE` (`--size N=64`), each checked
/// with [`check_size`]; a name bound twice is an error naming both
/// bindings, as is a value that does not fit 64 bits.
///
/// ```
/// let s = tc::parse_sizes(["N=8", "M = 3"]).unwrap();
/// assert_eq!((s["N"], s["M"]), (8, 3));
/// assert!(tc::parse_sizes(["N=3", "N=4"]).unwrap_err().contains("`N=3` and `N=4`"));
/// assert!(tc::parse_sizes(["=3"]).is_err());
/// assert!(tc::parse_sizes(["N=0"]).is_err());
/// ```
pub fn parse_sizes<'a>(
    bindings: impl IntoIterator<Item = &'a str>,
) -> Result<HashMap<String, i64>, String> {
    let mut sizes: HashMap<String, i64> = HashMap::new();
    let mut written: HashMap<String, &str> = HashMap::new();
    for b in bindings {
        let Some((n, v)) = b.split_once('=') else {
            return Err(format!("`{b}`: expected NAME=VALUE, as in `N=64`"));
        };
        let (n, v) = (n.trim(), v.trim());
        let value = match v.parse::<i64>() {
            Ok(x) => x,
            Err(e) if matches!(e.kind(), std::num::IntErrorKind::PosOverflow) => {
                return Err(format!(
                    "`{b}`: {v} does not fit a 64-bit integer (at most {})",
                    i64::MAX
                ))
            }
            Err(_) => return Err(format!("`{b}`: the value must be an integer")),
        };
        check_size(n, value).map_err(|e| format!("`{b}`: {e}"))?;
        if let Some(first) = written.get(n) {
            return Err(format!(
                "`{first}` and `{b}` both bind `{n}`: give each size one value"
            ));
        }
        written.insert(n.to_string(), b);
        sizes.insert(n.to_string(), value);
    }
    Ok(sizes)
}

/// The value of an expression under some sizes.
enum Value {
    /// Evaluated.
    Known(i64),
    /// A size it uses has no value.
    Unbound,
    /// Every size has a value but evaluation failed (overflow): why.
    Failed(String),
}

fn value_of(e: &Expr, env: &HashMap<Var, i64>) -> Value {
    match e.eval(&|v: &Var| env.get(v).copied()) {
        Ok(x) => Value::Known(x),
        Err(_) if e.vars().iter().any(|v| !env.contains_key(v)) => Value::Unbound,
        Err(err) => Value::Failed(err.message),
    }
}

/// `N = 5, M = 7` for the sizes `e` uses.
fn values_used(e: &Expr, env: &HashMap<Var, i64>) -> String {
    let mut used: Vec<String> = e
        .vars()
        .iter()
        .filter_map(|v| env.get(v).map(|x| format!("{} = {x}", v.name())))
        .collect();
    used.sort();
    used.dedup();
    used.join(", ")
}

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
    // Sizes left without a value: said once, at their declaration.
    for (name, _) in &def.sizes {
        if !values.contains_key(name) {
            let span = def.checked.sizes.get(name).copied().unwrap_or_default();
            diagnostics.push(Diagnostic::note(
                span,
                format!(
                    "no value was given for size `{name}`: what depends on it has no numeric \
                     value (bind it as `{name}=...`)"
                ),
            ));
        }
    }
    // An expression whose sizes all have values but that overflows.
    let overflow = |e: &Expr, what: String, span: Span| match value_of(e, &env) {
        Value::Failed(why) => Some(Diagnostic::error(
            span,
            format!(
                "{what} is `{e}`, which cannot be computed with {}: {why}",
                values_used(e, &env)
            ),
        )),
        _ => None,
    };
    let mut ranges = Vec::new();
    for (s, st) in def.stmts.iter().zip(&def.checked.stmts) {
        let mut rs = Vec::new();
        let mut empty = false;
        for r in &s.ranges {
            let pair = ev(&r.lower).zip(ev(&r.upper));
            let var_span = st
                .vars
                .iter()
                .find(|v| v.name == r.name)
                .map_or_else(Default::default, |v| v.span);
            for (bound, e) in [("lower", &r.lower), ("upper", &r.upper)] {
                diagnostics.extend(overflow(
                    e,
                    format!("the {bound} bound of `{}`", r.name),
                    var_span,
                ));
            }
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
    // A negative extent is never shown: the output has no such shape.
    let mut shapes: Vec<Option<Vec<i64>>> = Vec::new();
    for o in &def.outputs {
        let span = def
            .checked
            .tensors
            .get(&o.name)
            .map_or_else(Default::default, |t| t.span);
        let mut shape = Some(Vec::new());
        for (k, e) in o.shape.iter().enumerate() {
            match value_of(e, &env) {
                Value::Known(x) if x < 0 => {
                    diagnostics.push(Diagnostic::error(
                        span,
                        format!(
                            "output `{}` has no valid shape with these sizes: dimension {k} has \
                             the extent `{e}` = {x} ({}), its range is empty; the sizes must \
                             make every extent at least 0",
                            o.name,
                            values_used(e, &env)
                        ),
                    ));
                    shape = None;
                }
                Value::Known(x) => {
                    if let Some(s) = &mut shape {
                        s.push(x);
                    }
                }
                Value::Unbound => shape = None,
                Value::Failed(_) => {
                    diagnostics.extend(overflow(
                        e,
                        format!("the extent of dimension {k} of output `{}`", o.name),
                        span,
                    ));
                    shape = None;
                }
            }
        }
        shapes.push(shape);
    }
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
