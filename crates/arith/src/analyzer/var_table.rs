//! Facts by variable: what the analyzer knows about each bound variable.

use crate::bound::ConstBound;
use crate::error::{ArithError, ErrorKind};
use crate::expr::{Expr, Var};
use crate::id_hash::IdMap;
use crate::modular::Modular;
use crate::simplify::Info;
use smallvec::SmallVec;

/// Facts by variable: a short list searched in order while the analyzer
/// knows few variables (most know one to four, and a hash costs more than
/// comparing that many ids), with an index by id beyond.
#[derive(Clone, Default)]
pub(super) struct VarTable {
    pub(super) entries: SmallVec<[(u64, Var, VarFact); 4]>,
    /// Positions in `entries` by variable id, once there are many.
    pub(super) index: IdMap<u64, usize>,
}

impl VarTable {
    /// Tables with more entries than this keep an index.
    const FEW: usize = 8;

    pub(super) fn position(&self, var: &Var) -> Option<usize> {
        let id = var.id();
        if self.entries.len() <= Self::FEW {
            self.entries.iter().position(|(i, _, _)| *i == id)
        } else {
            self.index.get(&id).copied()
        }
    }

    #[inline]
    pub(super) fn get(&self, var: &Var) -> Option<&VarFact> {
        self.position(var).map(|i| &self.entries[i].2)
    }

    /// Sets the fact of `var`, returning the one it replaces.
    pub(super) fn insert(&mut self, var: &Var, fact: VarFact) -> Option<VarFact> {
        match self.position(var) {
            Some(i) => Some(std::mem::replace(&mut self.entries[i].2, fact)),
            None => {
                self.push(var, fact);
                None
            }
        }
    }

    pub(super) fn get_or_insert(&mut self, var: &Var, fact: VarFact) -> &mut VarFact {
        let i = match self.position(var) {
            Some(i) => i,
            None => self.push(var, fact),
        };
        &mut self.entries[i].2
    }

    pub(super) fn push(&mut self, var: &Var, fact: VarFact) -> usize {
        let at = self.entries.len();
        self.entries.push((var.id(), var.clone(), fact));
        if self.entries.len() == Self::FEW + 1 {
            self.rebuild_index();
        } else if self.entries.len() > Self::FEW + 1 {
            self.index.insert(var.id(), at);
        }
        at
    }

    pub(super) fn remove(&mut self, var: &Var) -> Option<VarFact> {
        let i = self.position(var)?;
        let (id, _, fact) = self.entries.swap_remove(i);
        if self.entries.len() <= Self::FEW {
            self.index.clear();
        } else {
            self.index.remove(&id);
            if let Some((moved, _, _)) = self.entries.get(i) {
                self.index.insert(*moved, i);
            }
        }
        Some(fact)
    }

    pub(super) fn rebuild_index(&mut self) {
        self.index.clear();
        if self.entries.len() > Self::FEW {
            for (i, (id, _, _)) in self.entries.iter().enumerate() {
                self.index.insert(*id, i);
            }
        }
    }
}

#[derive(Clone, Debug)]
pub(super) struct VarFact {
    /// Inclusive symbolic bounds `[lo, hi]`, when they are not constants.
    pub(super) symbolic: Option<(Expr, Expr)>,
    pub(super) info: Info,
    /// The constant ends `[lo, hi]` the variable was bound to, when it was:
    /// unlike `info.bound`, an end of `i64::MIN` or `i64::MAX` here is that
    /// value, not infinity (overflow checks need the difference).
    pub(super) declared: Option<(i64, i64)>,
}

impl VarFact {
    /// The facts of a variable known only by constant bounds.
    pub(super) fn of_bound(bound: ConstBound) -> VarFact {
        VarFact {
            symbolic: None,
            declared: None,
            info: Info {
                bound,
                modular: point_modular(bound),
            },
        }
    }

    /// The facts of binding again to a range already bound (`fresh`):
    /// constant bounds and ends narrowed, the new symbolic ends kept.
    pub(super) fn narrowed_by(&self, fresh: VarFact) -> VarFact {
        let declared = fresh.declared.map(|(l, h)| {
            self.declared
                .map_or((l, h), |(pl, ph)| (pl.max(l), ph.min(h)))
        });
        VarFact {
            symbolic: fresh.symbolic,
            declared,
            info: Info {
                bound: self.info.bound.intersect(fresh.info.bound),
                modular: fresh.info.modular,
            },
        }
    }

    /// Whether `fresh` states the same range as these facts: the same
    /// symbolic ends, or the same constant ends.
    pub(super) fn same_range(&self, fresh: &VarFact) -> bool {
        match (&self.symbolic, &fresh.symbolic) {
            (Some(a), Some(b)) => a == b,
            (None, None) => match (self.declared, fresh.declared) {
                (Some(a), Some(b)) => a == b,
                _ => self.info.bound == fresh.info.bound,
            },
            _ => false,
        }
    }

    /// The error for binding `var`, which has these facts, to `fresh`.
    pub(super) fn rebinding_error(&self, var: &Var, fresh: &VarFact) -> ArithError {
        ArithError::new(
            ErrorKind::Invalid,
            format!(
                "`{}` already has the range {}; {} differs: bind a variable once, \
                 or override its range to replace it",
                var.name(),
                self.describe(),
                fresh.describe()
            ),
        )
    }

    /// The range as the user would recognise it (inclusive ends).
    pub(super) fn describe(&self) -> String {
        match (&self.symbolic, self.declared) {
            (Some((lo, hi)), _) => format!("[{lo}, {hi}] (inclusive)"),
            (None, Some((l, h))) => format!("[{l}, {h}] (inclusive)"),
            (None, None) => format!("{} (inclusive)", self.info.bound),
        }
    }
}

/// The alignment a variable's constant bounds imply: exact for a single
/// value, nothing otherwise.
pub(super) fn point_modular(bound: ConstBound) -> Modular {
    match bound.as_point() {
        Some(v) => Modular::exact(v),
        None => Modular::EVERYTHING,
    }
}
