//! Rules for `select`.

use super::{Info, Out, Simplifier};
use crate::expr::{Expr, ExprKind, Type};

impl Simplifier<'_> {
    pub(super) fn visit_select(&mut self, c: &Expr, a: &Expr, b: &Expr) -> Out {
        let (c, _) = self.visit(c)?;
        // A decided condition only simplifies the branch it picks: the other
        // one may be undefined there (`select(x != 0, y // x, 0)`).
        match c.as_bool() {
            Some(true) => return self.visit(a),
            Some(false) => return self.visit(b),
            None => {}
        }
        let (a, _) = self.visit(a)?;
        let (b, _) = self.visit(b)?;
        self.make_select(c, a, b)
    }

    /// `select(c, a, b)` for simplified operands.
    pub(crate) fn make_select(&mut self, c: Expr, a: Expr, b: Expr) -> Out {
        match c.as_bool() {
            Some(true) => {
                let i = self.info(&a);
                return Ok((a, i));
            }
            Some(false) => {
                let i = self.info(&b);
                return Ok((b, i));
            }
            None => {}
        }
        if a == b {
            let i = self.info(&a);
            return Ok((a, i));
        }
        // select(c1, select(c2, x, y), y) -> select(c1 and c2, x, y)
        if let ExprKind::Select(c2, x, y) = a.kind() {
            if *y == b {
                let (both, _) = self.and_simplified(c.clone(), c2.clone())?;
                let plain = Expr::select(c.clone(), a.clone(), b.clone()).node_count();
                let (alt, ai) = self.make_select(both, x.clone(), b.clone())?;
                if alt.node_count() < plain {
                    return Ok((alt, ai));
                }
            }
        }
        // select(c1, x, select(c2, x, y)) -> select(c1 or c2, x, y)
        if let ExprKind::Select(c2, x, y) = b.kind() {
            if *x == a {
                let (either, _) = self.or_simplified(c.clone(), c2.clone())?;
                let plain = Expr::select(c.clone(), a.clone(), b.clone()).node_count();
                let (alt, ai) = self.make_select(either, a.clone(), y.clone())?;
                if alt.node_count() < plain {
                    return Ok((alt, ai));
                }
            }
        }
        if let ExprKind::Not(inner) = c.kind() {
            return self.make_select(inner.clone(), b, a);
        }
        if a.ty() == Type::Bool {
            match (a.as_bool(), b.as_bool()) {
                (Some(true), Some(false)) => return Ok((c, Info::BOOL)),
                (Some(false), Some(true)) => return self.not_simplified(c),
                (Some(true), None) => return self.or_simplified(c, b),
                (Some(false), None) => {
                    let (nc, _) = self.not_simplified(c)?;
                    return self.and_simplified(nc, b);
                }
                (None, Some(true)) => {
                    let (nc, _) = self.not_simplified(c)?;
                    return self.or_simplified(nc, a);
                }
                (None, Some(false)) => return self.and_simplified(c, a),
                _ => {}
            }
        }
        let ia = self.info(&a);
        let ib = self.info(&b);
        let info = Info {
            bound: ia.bound.union(ib.bound),
            modular: ia.modular.union(ib.modular),
        };
        Ok((Expr::select(c, a, b), info))
    }
}
