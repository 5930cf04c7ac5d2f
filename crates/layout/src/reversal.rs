//! Reversed indices. A transformed index `c - e` (`3 - i % 4`, `n - 1 -
//! i`) is the transformed index `e` read backwards: the map is analysed
//! with `e`, and `c - t` stands for `e` in the inverse and the padding. A
//! logical index that the map uses only with a negative sign is replaced
//! by its flip `x = (S - 1) - x'` (an index of the same extent), the map is
//! analysed in the flipped index, and the inverse flips back.

use arith::{Analyzer, ConstBound, Expr, ExprKind, Var, POS_INF};

/// A map with its reversed transformed indices read forwards, and the
/// position and constant `c` of each.
pub(crate) type ReversedAxes = (Vec<Expr>, Vec<(usize, Expr)>);

/// The map with each transformed index of the form `c - e` (`c` free of
/// logical indices, `e` not) replaced by `e`, and those positions with
/// their `c`; `None` when there is none.
pub(crate) fn reversed_axes(initial: &[Var], finals: &[Expr]) -> Option<ReversedAxes> {
    let uses = |e: &Expr| {
        let mut found = false;
        e.for_each_var(&mut |v| found |= initial.contains(v));
        found
    };
    let mut out = finals.to_vec();
    let mut reversed = Vec::new();
    for (k, e) in finals.iter().enumerate() {
        if let ExprKind::Sub(c, inner) = e.kind() {
            if !uses(c) && uses(inner) && has_value(c) {
                out[k] = inner.clone();
                reversed.push((k, c.clone()));
            }
        }
    }
    (!reversed.is_empty()).then_some((out, reversed))
}

/// Whether `c` (free of logical indices) is a number or uses shape
/// symbols: a constant left unfolded (`4 - -9223372036854775808`
/// overflows) has no value to reverse by.
pub(crate) fn has_value(c: &Expr) -> bool {
    let mut symbolic = false;
    c.for_each_var(&mut |_| symbolic = true);
    symbolic || c.as_int().is_some()
}

/// The positions of the logical indices that occur only with a negative
/// sign (through sums, differences, products by constants and as the
/// dividend of `//` and `%`), and at least once.
pub(crate) fn negated(initial: &[Var], finals: &[Expr]) -> Vec<usize> {
    // Per index: seen positive, seen negative.
    let mut signs = vec![(false, false); initial.len()];
    let mut stack: Vec<(&Expr, bool)> = finals.iter().map(|e| (e, true)).collect();
    while let Some((e, positive)) = stack.pop() {
        match e.kind() {
            ExprKind::Var(v) => {
                if let Some(k) = initial.iter().position(|w| w == v) {
                    if positive {
                        signs[k].0 = true;
                    } else {
                        signs[k].1 = true;
                    }
                }
            }
            ExprKind::Add(a, b) => {
                stack.push((a, positive));
                stack.push((b, positive));
            }
            ExprKind::Sub(a, b) => {
                stack.push((a, positive));
                stack.push((b, !positive));
            }
            ExprKind::Mul(a, b) => match (a.as_int(), b.as_int()) {
                (Some(c), _) => stack.push((b, positive == (c >= 0))),
                (_, Some(c)) => stack.push((a, positive == (c >= 0))),
                // A symbolic factor: its sign is unknown, so the index is
                // not flipped.
                _ => {
                    stack.push((a, positive));
                    stack.push((a, !positive));
                    stack.push((b, positive));
                    stack.push((b, !positive));
                }
            },
            ExprKind::FloorDiv(a, _) | ExprKind::FloorMod(a, _) => stack.push((a, positive)),
            _ => {
                for c in e.children() {
                    stack.push((c, positive));
                    stack.push((c, !positive));
                }
            }
        }
    }
    signs
        .iter()
        .enumerate()
        .filter(|(_, &(p, n))| n && !p)
        .map(|(k, _)| k)
        .collect()
}

/// `finals` with each index at a position in `flip` replaced by `(S - 1) -
/// x` (`S` its extent in `shape`), simplified so that `4 - (4 - i)` reads
/// `i` again.
pub(crate) fn flip(
    initial: &[Var],
    finals: &[Expr],
    shape: &[Expr],
    flip: &[usize],
) -> Option<Vec<Expr>> {
    let mut an = Analyzer::new();
    for e in shape {
        e.for_each_var(&mut |v| an.update_bound(v, ConstBound::new(1, POS_INF)));
    }
    let flipped: Vec<(Var, Expr)> = flip
        .iter()
        .map(|&k| {
            let last = Expr::sub(shape[k].clone(), Expr::int(1));
            (initial[k].clone(), Expr::sub(last, initial[k].expr()))
        })
        .collect();
    finals
        .iter()
        .map(|e| {
            let mut touched = false;
            let s = e.substitute(&mut |v| {
                let hit = flipped.iter().find(|(w, _)| w == v).map(|(_, f)| f.clone());
                touched |= hit.is_some();
                hit
            });
            if touched {
                an.simplify(&s).ok()
            } else {
                Some(s)
            }
        })
        .collect()
}
