//! The shape-independent structure of a map: each transformed index as some
//! digits of a *source*, where a source is a fusion of logical indices plus
//! an offset (`c`, `c + 1`, `h * 64 + w`).
//!
//! `(c + 1) // 4 % 8` is the digits of `c + 1` from weight 4 up, eight of
//! them. Maps of this form are exactly what layout transforms are made of
//! (splits, fusions, offsets, reorders); for them the transformed shape, the
//! inverse and the padding follow digit by digit (see `analysis`).

use crate::fold;
use arith::{Expr, ExprKind, Var};
use std::collections::HashMap;

/// `Σ coeff * initial[index] + offset`: a fusion of logical indices.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Source {
    /// `(position of the logical index, coefficient)`, one per index used.
    pub terms: Vec<(usize, Expr)>,
    /// The part without logical indices.
    pub offset: Expr,
}

/// What one transformed index is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Axis {
    /// `(source // lower) % modulus`, or `source // lower` without a
    /// modulus (the top digits).
    Digits {
        /// Which source (index into [`SplitForm::sources`]).
        source: usize,
        /// The weight of the lowest digit taken.
        lower: Expr,
        /// How many values the digits take, when bounded by a modulo.
        modulus: Option<Expr>,
    },
    /// A constant index.
    Constant(i64),
    /// Not of this form; the position of the offending index.
    Other,
}

/// Every transformed index in split form.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SplitForm {
    /// The distinct sources.
    pub sources: Vec<Source>,
    /// One entry per transformed index.
    pub axes: Vec<Axis>,
}

impl SplitForm {
    /// Puts each of `finals` (over `initial`) in split form.
    pub fn new(initial: &[Var], finals: &[Expr]) -> SplitForm {
        let initial = &Positions::new(initial);
        let mut sources: Vec<Source> = Vec::new();
        // Each source's position, found by hash: a search of the list per
        // index is quadratic in the rank.
        let mut ids: HashMap<Source, usize> = HashMap::new();
        let axes = finals
            .iter()
            .map(|e| match digits(initial, e) {
                Some(Digit::Constant(c)) => Axis::Constant(c),
                Some(Digit::Of {
                    source,
                    lower,
                    modulus,
                }) => {
                    let id = *ids.entry(source.clone()).or_insert_with(|| {
                        sources.push(source);
                        sources.len() - 1
                    });
                    Axis::Digits {
                        source: id,
                        lower,
                        modulus,
                    }
                }
                None => Axis::Other,
            })
            .collect();
        SplitForm { sources, axes }
    }
}

enum Digit {
    Constant(i64),
    Of {
        source: Source,
        lower: Expr,
        modulus: Option<Expr>,
    },
}

/// The position of each logical index by variable id: looking a variable
/// up in the list of indices is linear in the rank, once per occurrence.
pub(crate) struct Positions(HashMap<u64, usize>);

impl Positions {
    pub(crate) fn new(initial: &[Var]) -> Positions {
        Positions(
            initial
                .iter()
                .enumerate()
                .map(|(k, v)| (v.id(), k))
                .collect(),
        )
    }

    /// The position of `v` among the logical indices, if it is one.
    pub(crate) fn of(&self, v: &Var) -> Option<usize> {
        self.0.get(&v.id()).copied()
    }
}

fn uses_any(e: &Expr, initial: &Positions) -> bool {
    let mut found = false;
    e.for_each_var(&mut |v| found |= initial.of(v).is_some());
    found
}

/// Which nodes of an expression use a logical index, each decided once
/// (by node identity) in a post-order walk: asking every node of a long
/// sum on its own walks the sum once per term.
struct Uses<'a> {
    initial: &'a Positions,
    memo: HashMap<usize, bool>,
}

impl<'a> Uses<'a> {
    fn new(initial: &'a Positions) -> Uses<'a> {
        Uses {
            initial,
            memo: HashMap::new(),
        }
    }

    /// Whether `e` uses a logical index.
    fn of(&mut self, e: &Expr) -> bool {
        let mut stack: Vec<(&Expr, bool)> = vec![(e, false)];
        while let Some((n, children_done)) = stack.pop() {
            if self.memo.contains_key(&n.node_id()) {
                continue;
            }
            let value = match n.kind() {
                ExprKind::Var(v) => self.initial.of(v).is_some(),
                ExprKind::Int(_) | ExprKind::Bool(_) => false,
                _ if children_done => n
                    .children()
                    .iter()
                    .any(|c| self.memo.get(&c.node_id()).copied().unwrap_or(true)),
                _ => {
                    stack.push((n, true));
                    stack.extend(n.children().into_iter().map(|c| (c, false)));
                    continue;
                }
            };
            self.memo.insert(n.node_id(), value);
        }
        self.memo[&e.node_id()]
    }
}

enum Op {
    Div(Expr),
    Mod(Expr),
}

/// `e` as digits of a source, peeling `//` and `%` by constants (or by
/// expressions free of logical indices) off the outside.
fn digits(initial: &Positions, e: &Expr) -> Option<Digit> {
    let mut ops = Vec::new();
    let mut cur = e;
    loop {
        match cur.kind() {
            ExprKind::FloorDiv(a, b) if !uses_any(b, initial) => {
                ops.push(Op::Div(b.clone()));
                cur = a;
            }
            ExprKind::FloorMod(a, b) if !uses_any(b, initial) => {
                ops.push(Op::Mod(b.clone()));
                cur = a;
            }
            _ => break,
        }
    }
    let source = linear(initial, cur)?;
    if source.terms.is_empty() {
        if !ops.is_empty() {
            return None;
        }
        return source.offset.as_int().map(Digit::Constant);
    }
    let mut lower = Expr::int(1);
    let mut modulus: Option<Expr> = None;
    for op in ops.into_iter().rev() {
        match op {
            Op::Div(d) => {
                if d.as_int().is_some_and(|d| d <= 0) {
                    return None;
                }
                match &modulus {
                    None => lower = fold::mul(&lower, &d).ok()?,
                    Some(m) => {
                        // (s % m) // d == (s // d) % (m / d) when d divides m.
                        let (mi, di) = (m.as_int()?, d.as_int()?);
                        if mi % di != 0 {
                            return None;
                        }
                        lower = fold::mul(&lower, &d).ok()?;
                        modulus = Some(Expr::int(mi / di));
                    }
                }
            }
            Op::Mod(m) => {
                if m.as_int().is_some_and(|m| m <= 0) {
                    return None;
                }
                modulus = match modulus {
                    None => Some(m),
                    Some(old) if old == m => Some(old),
                    Some(old) => {
                        let (a, b) = (old.as_int()?, m.as_int()?);
                        if a % b == 0 {
                            Some(m)
                        } else if b % a == 0 {
                            Some(old)
                        } else {
                            return None;
                        }
                    }
                };
            }
        }
    }
    Some(Digit::Of {
        source,
        lower,
        modulus,
    })
}

/// `e` as `Σ coeff * initial[k] + offset`, where coefficients and offset are
/// free of logical indices; `None` when it is not linear in them. Iterative,
/// so long sums do not deepen the stack.
fn linear(initial: &Positions, e: &Expr) -> Option<Source> {
    let mut terms: Vec<(usize, Expr)> = Vec::new();
    let mut offset = Expr::int(0);
    let mut uses = Uses::new(initial);
    let mut work: Vec<(&Expr, Expr)> = vec![(e, Expr::int(1))];
    while let Some((e, coeff)) = work.pop() {
        if !uses.of(e) {
            offset = fold::add(&offset, &fold::mul(e, &coeff).ok()?).ok()?;
            continue;
        }
        match e.kind() {
            ExprKind::Var(v) => {
                let k = initial.of(v)?;
                match terms.iter_mut().find(|(j, _)| *j == k) {
                    Some((_, c)) => *c = fold::add(c, &coeff).ok()?,
                    None => terms.push((k, coeff)),
                }
            }
            ExprKind::Add(a, b) => {
                work.push((b, coeff.clone()));
                work.push((a, coeff));
            }
            ExprKind::Sub(a, b) => {
                work.push((b, fold::mul(&coeff, &Expr::int(-1)).ok()?));
                work.push((a, coeff));
            }
            ExprKind::Mul(a, b) if !uses.of(a) => {
                work.push((b, fold::mul(&coeff, a).ok()?));
            }
            ExprKind::Mul(a, b) if !uses.of(b) => {
                work.push((a, fold::mul(&coeff, b).ok()?));
            }
            _ => return None,
        }
    }
    terms.retain(|(_, c)| !c.is_int(0));
    // A canonical order, so equal sources compare equal.
    terms.sort_by_key(|(k, _)| *k);
    Some(Source { terms, offset })
}
