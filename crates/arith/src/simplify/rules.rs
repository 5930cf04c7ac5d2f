//! Rewrite rules as a table: each rule is one line, a pattern, a result and
//! an optional side condition, in the manner of Halide's
//! `rewrite(pattern, result, condition)`.
//!
//! ```text
//! min_of_max_absorbs: min(x, max(x, y)) => x;
//! min_of_divisions:   min(div(x, c0), div(y, c0)) => div(min(x, y), c0) if c0 > 0;
//! ```
//!
//! Patterns are typed: every name a table may use is declared once, in
//! [`wild!`], as an expression wildcard ([`Wild::Expr`]: `x`, `y`, `z`,
//! `w`, `v`; the same name matches equal expressions) or a constant
//! wildcard ([`Wild::Const`]: `c0`-`c3`, integer constants only), and
//! every operator in [`op!`] as a [`PatOp`]; a name or operator not
//! declared there does not compile. `min` and `max` also match with their
//! operands swapped. Side conditions read the constants as `i128` values
//! (`if c0 > 0`). A rule fires on an already simplified node; its result
//! is built from the bindings (any operator) and simplified again.
//!
//! **Termination.** Every rule's result has strictly fewer nodes than the
//! smallest tree its pattern matches (checked for every rule by
//! `every_rule_shrinks`), and the result is simplified from operands that
//! are already simplified, so each firing strictly decreases the node count
//! of the tree being simplified; no depth cap is needed.
//!
//! **Division rules.** Division, modulo and ceiling division by a constant
//! have tables of their own ([`floor_div_rules`], [`floor_div_late_rules`],
//! [`floor_mod_rules`], [`ceil_div_rules`]) over the numerator's canonical
//! linear form ([`Sum`]):
//!
//! ```text
//! div_drops_multiple: div(x * c0 + y, c1) => x * (c0 / c1) + y / c1, if c1 > 0 && c0 % c1 == 0, "...";
//! ```
//!
//! The numerator pattern is `x` (the whole sum), `x + c0` (its terms and its
//! constant) or `A * c0 + y` (any one term whose atom matches the pattern
//! `A`, its coefficient, and the rest of the sum; commutative, like
//! Halide's `+`). Side conditions and results are Rust expressions over the
//! bindings: constants are `i128` values, names are [`Bind`]s with their
//! facts (`x.min()`, `x.max()`, `x.bounded()`, `x.modulus()`, `x.residue()`, `x.len()`,
//! `x.coeffs()`) and with `+`, `-`, `*` by a constant and `/`, `%` by a
//! constant (floor semantics) building the result ([`Res`]). Matching
//! allocates nothing; a result is built only when its rule fires.
//!
//! **Termination of the division rules.** A division rule's result is
//! linear arithmetic over its bindings plus divisions by constants, and
//! each of those divisions is smaller than the rewritten one by
//! [`measure`]: the number of division and modulo nodes in the numerator,
//! then modulo before division, then the number of terms, the divisor's
//! magnitude and the constant's magnitude, compared lexicographically. The
//! measure is well founded, so the chain of divisions a firing creates is
//! finite. Debug builds check the decrease on every firing (`build_division`),
//! so the rule tests and the property tests check it.
//!
//! In debug builds every rule counts its hits ([`rule_hits`]).

use super::sum::Sum;
use super::{Info, Simplifier};
use crate::bound::ConstBound;
use crate::error::Result;
use crate::expr::{CmpOp, Expr, ExprKind};
use crate::modular::Modular;
#[cfg(debug_assertions)]
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::OnceLock;

/// A wildcard of a pattern: which binding it names.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Wild {
    /// Any expression (`x`, `y`, `z`, `w`, `v`: slots 0-4).
    Expr(u8),
    /// An integer constant (`c0`-`c3`: slots 0-3).
    Const(u8),
}

/// The expression wildcards a pattern may use.
const EXPR_SLOTS: usize = 5;
/// The constant wildcards a pattern may use.
const CONST_SLOTS: usize = 4;

/// An operator a pattern matches or a result builds: every operator of
/// [`ExprKind`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum PatOp {
    Add,
    Sub,
    Mul,
    /// Floor division.
    Div,
    /// Floor modulo.
    Mod,
    CeilDiv,
    Min,
    Max,
    Select,
    Cmp(CmpOp),
    And,
    Or,
    Not,
}

impl PatOp {
    /// The operator of `e` and its operands; `None` for a leaf.
    fn of(e: &Expr) -> Option<(PatOp, smallvec::SmallVec<[&Expr; 3]>)> {
        use ExprKind as K;
        let op = match e.kind() {
            K::Int(_) | K::Bool(_) | K::Var(_) => return None,
            K::Add(..) => PatOp::Add,
            K::Sub(..) => PatOp::Sub,
            K::Mul(..) => PatOp::Mul,
            K::FloorDiv(..) => PatOp::Div,
            K::FloorMod(..) => PatOp::Mod,
            K::CeilDiv(..) => PatOp::CeilDiv,
            K::Min(..) => PatOp::Min,
            K::Max(..) => PatOp::Max,
            K::Select(..) => PatOp::Select,
            K::Cmp(op, ..) => PatOp::Cmp(*op),
            K::And(..) => PatOp::And,
            K::Or(..) => PatOp::Or,
            K::Not(..) => PatOp::Not,
        };
        Some((op, e.children()))
    }

    /// Whether `op(a, b)` is `op(b, a)`.
    fn commutes(self) -> bool {
        matches!(self, PatOp::Min | PatOp::Max)
    }

    /// `op(args)`, or `None` for the wrong number of operands.
    fn build(self, args: &[Expr]) -> Option<Expr> {
        let two = |f: fn(Expr, Expr) -> Expr| match args {
            [a, b] => Some(f(a.clone(), b.clone())),
            _ => None,
        };
        match self {
            PatOp::Add => two(Expr::add),
            PatOp::Sub => two(Expr::sub),
            PatOp::Mul => two(Expr::mul),
            PatOp::Div => two(Expr::floor_div),
            PatOp::Mod => two(Expr::floor_mod),
            PatOp::CeilDiv => two(Expr::ceil_div),
            PatOp::Min => two(Expr::min),
            PatOp::Max => two(Expr::max),
            PatOp::And => two(Expr::and),
            PatOp::Or => two(Expr::or),
            PatOp::Cmp(op) => match args {
                [a, b] => Some(Expr::cmp(op, a.clone(), b.clone())),
                _ => None,
            },
            PatOp::Not => match args {
                [a] => Some(Expr::not(a.clone())),
                _ => None,
            },
            PatOp::Select => match args {
                [c, a, b] => Some(Expr::select(c.clone(), a.clone(), b.clone())),
                _ => None,
            },
        }
    }
}

/// A pattern or result template.
#[derive(Debug)]
pub(crate) enum Pat {
    /// A wildcard.
    Wild(Wild),
    /// An operator over sub-patterns.
    Op(PatOp, Vec<Pat>),
}

/// A side condition over the constant bindings.
pub(crate) type Cond = fn(&Bindings) -> bool;

/// One named rule.
pub(crate) struct Rule {
    /// The rule's name, reported with its hit count in debug builds.
    #[cfg_attr(not(any(test, debug_assertions)), allow(dead_code))]
    pub name: &'static str,
    pub pattern: Pat,
    pub result: Pat,
    pub cond: Option<Cond>,
    /// An input on which the rule fires (its test).
    #[cfg_attr(not(test), allow(dead_code))]
    pub example: &'static str,
    #[cfg(debug_assertions)]
    hits: AtomicU64,
}

/// What a pattern's wildcards matched, by slot.
#[derive(Default, Debug)]
pub(crate) struct Bindings {
    exprs: [Option<Expr>; EXPR_SLOTS],
    consts: [Option<i64>; CONST_SLOTS],
}

impl Bindings {
    /// The constants `c0`-`c3` (0 when unbound), widened so that side
    /// conditions cannot overflow.
    pub(crate) fn consts(&self) -> [i128; CONST_SLOTS] {
        self.consts.map(|c| i128::from(c.unwrap_or(0)))
    }

    /// What `w` is bound to, as an expression.
    fn get(&self, w: Wild) -> Option<Expr> {
        match w {
            Wild::Expr(i) => self.exprs[usize::from(i)].clone(),
            Wild::Const(i) => self.consts[usize::from(i)].map(Expr::int),
        }
    }

    /// Which slots are bound, one bit each (expressions, then constants),
    /// to undo a failed alternative.
    fn mark(&self) -> u16 {
        let mut m = 0;
        for (i, e) in self.exprs.iter().enumerate() {
            m |= u16::from(e.is_some()) << i;
        }
        for (i, c) in self.consts.iter().enumerate() {
            m |= u16::from(c.is_some()) << (EXPR_SLOTS + i);
        }
        m
    }

    /// Unbinds every slot bound since `mark`.
    fn undo(&mut self, mark: u16) {
        for i in 0..EXPR_SLOTS {
            if mark & (1 << i) == 0 {
                self.exprs[i] = None;
            }
        }
        for i in 0..CONST_SLOTS {
            if mark & (1 << (EXPR_SLOTS + i)) == 0 {
                self.consts[i] = None;
            }
        }
    }
}

/// The wildcards a rule table may use, each declared once with its kind.
macro_rules! wild {
    (x) => {
        Wild::Expr(0)
    };
    (y) => {
        Wild::Expr(1)
    };
    (z) => {
        Wild::Expr(2)
    };
    (w) => {
        Wild::Expr(3)
    };
    (v) => {
        Wild::Expr(4)
    };
    (c0) => {
        Wild::Const(0)
    };
    (c1) => {
        Wild::Const(1)
    };
    (c2) => {
        Wild::Const(2)
    };
    (c3) => {
        Wild::Const(3)
    };
}

/// The operators a rule table may use, by their names in the tables.
macro_rules! op {
    (add) => {
        PatOp::Add
    };
    (sub) => {
        PatOp::Sub
    };
    (mul) => {
        PatOp::Mul
    };
    (div) => {
        PatOp::Div
    };
    (mod) => {
        PatOp::Mod
    };
    (ceildiv) => {
        PatOp::CeilDiv
    };
    (min) => {
        PatOp::Min
    };
    (max) => {
        PatOp::Max
    };
    (select) => {
        PatOp::Select
    };
    (eq) => {
        PatOp::Cmp(CmpOp::Eq)
    };
    (ne) => {
        PatOp::Cmp(CmpOp::Ne)
    };
    (lt) => {
        PatOp::Cmp(CmpOp::Lt)
    };
    (le) => {
        PatOp::Cmp(CmpOp::Le)
    };
    (gt) => {
        PatOp::Cmp(CmpOp::Gt)
    };
    (ge) => {
        PatOp::Cmp(CmpOp::Ge)
    };
    (and) => {
        PatOp::And
    };
    (or) => {
        PatOp::Or
    };
    (not) => {
        PatOp::Not
    };
}

/// Builds a [`Pat`] from `op(a, b, ...)` notation.
macro_rules! pat {
    ($f:ident ( $($args:tt)* )) => {
        Pat::Op(op!($f), pat!(@args [] $($args)*))
    };
    ($f:ident) => {
        Pat::Wild(wild!($f))
    };
    // Comma-separated arguments, each a name or a call.
    (@args [$($done:expr),*]) => { vec![$($done),*] };
    (@args [$($done:expr),*] $f:ident ( $($inner:tt)* ) $(, $($rest:tt)*)?) => {
        pat!(@args [$($done,)* pat!($f($($inner)*))] $($($rest)*)?)
    };
    (@args [$($done:expr),*] $f:ident $(, $($rest:tt)*)?) => {
        pat!(@args [$($done,)* pat!($f)] $($($rest)*)?)
    };
}

/// The rule table: `name: pattern => result [if condition], "example";`.
/// The leading `[c0, c1, c2, c3];` names the constants conditions read.
macro_rules! rules {
    ($consts:tt ; $( $name:ident : $($p:ident)? ( $($pat:tt)* ) => $r:ident $(( $($res:tt)* ))?
        $(if $cond:expr)? , $example:literal ; )*) => {
        vec![$(Rule {
            name: stringify!($name),
            pattern: pat!($($p)? ( $($pat)* )),
            result: pat!($r $(( $($res)* ))?),
            cond: None $(.or(Some((|b: &Bindings| {
                #[allow(unused_variables)]
                let $consts = b.consts();
                $cond
            }) as Cond)))?,
            example: $example,
            #[cfg(debug_assertions)]
            hits: AtomicU64::new(0),
        }),*]
    };
}

/// The rules for `min` and `max`.
pub(crate) fn min_max_rules() -> &'static [Rule] {
    static RULES: OnceLock<Vec<Rule>> = OnceLock::new();
    RULES.get_or_init(|| {
        rules! { [c0, c1, c2, c3];
            min_of_max_absorbs: min(x, max(x, y)) => x, "min(x, max(x, y))";
            max_of_min_absorbs: max(x, min(x, y)) => x, "max(min(y, x), x)";
            min_of_maxes_with_common_operand: min(max(x, y), max(x, z)) => max(x, min(y, z)),
                "min(max(y, x), max(z, x))";
            max_of_mins_with_common_operand: max(min(x, y), min(x, z)) => min(x, max(y, z)),
                "max(min(x, y), min(z, x))";
            min_of_divisions: min(div(x, c0), div(y, c0)) => div(min(x, y), c0) if c0 > 0,
                "min(x // 4, y // 4)";
            min_of_divisions_by_negative: min(div(x, c0), div(y, c0)) => div(max(x, y), c0)
                if c0 < 0, "min(x // -4, y // -4)";
            max_of_divisions: max(div(x, c0), div(y, c0)) => div(max(x, y), c0) if c0 > 0,
                "max(x // 4, y // 4)";
            max_of_divisions_by_negative: max(div(x, c0), div(y, c0)) => div(min(x, y), c0)
                if c0 < 0, "max(x // -4, y // -4)";
            min_of_selects: min(select(w, x, y), select(w, z, v)) => select(w, min(x, z), min(y, v)),
                "min(select(z < 0, x, y), select(z < 0, y + 1, x - 1))";
            max_of_selects: max(select(w, x, y), select(w, z, v)) => select(w, max(x, z), max(y, v)),
                "max(select(z < 0, x, y), select(z < 0, y + 1, x - 1))";
        }
    })
}

/// The structural rules for `select`: equal branches, and a condition
/// that says the branches are equal where it picks the other one.
pub(crate) fn select_rules() -> &'static [Rule] {
    static RULES: OnceLock<Vec<Rule>> = OnceLock::new();
    RULES.get_or_init(|| {
        rules! { [c0, c1, c2, c3];
            select_of_equal_branches: select(x, y, y) => y, "select(x < 1, y, y)";
            select_on_equality_of_its_branches: select(eq(x, y), x, y) => y,
                "select(x == y * 2, x, y * 2)";
            select_on_equality_of_its_swapped_branches: select(eq(x, y), y, x) => x,
                "select(x == y * 2, y * 2, x)";
            select_on_inequality_of_its_branches: select(ne(x, y), x, y) => x,
                "select(x != y * 2, x, y * 2)";
            select_on_inequality_of_its_swapped_branches: select(ne(x, y), y, x) => y,
                "select(x != y * 2, y * 2, x)";
        }
    })
}

/// The structural rules for `and`, `or` and `not`: a double negation, and
/// absorption. Each result is defined wherever the input is: where the
/// kept operand decides the input, the dropped one is not evaluated.
pub(crate) fn logic_rules() -> &'static [Rule] {
    static RULES: OnceLock<Vec<Rule>> = OnceLock::new();
    RULES.get_or_init(|| {
        rules! { [c0, c1, c2, c3];
            not_of_not: not(not(x)) => x, "not (not (x < 1 and y < 2))";
            and_absorbs_or: and(x, or(x, y)) => x, "x < 1 and (x < 1 or y < 2)";
            and_absorbs_swapped_or: and(x, or(y, x)) => x, "x < 1 and (y < 2 or x < 1)";
            and_absorbed_by_or: and(or(x, y), x) => x, "(x < 1 or y < 2) and x < 1";
            and_absorbed_by_swapped_or: and(or(y, x), x) => x, "(y < 2 or x < 1) and x < 1";
            or_absorbs_and: or(x, and(x, y)) => x, "x < 1 or x < 1 and y < 2";
            or_absorbs_swapped_and: or(x, and(y, x)) => x, "x < 1 or y < 2 and x < 1";
            or_absorbed_by_and: or(and(x, y), x) => x, "x < 1 and y < 2 or x < 1";
            or_absorbed_by_swapped_and: or(and(y, x), x) => x, "y < 2 and x < 1 or x < 1";
        }
    })
}

/// Every rule table over whole nodes, for listings and tests.
#[cfg(any(test, debug_assertions))]
fn node_rule_tables() -> [&'static [Rule]; 3] {
    [min_max_rules(), select_rules(), logic_rules()]
}

/// Applies the first rule of `rules` that matches `e`, returning its
/// result (to be simplified again).
pub(crate) fn apply(rules: &'static [Rule], e: &Expr) -> Option<Expr> {
    for r in rules {
        let mut b = Bindings::default();
        if matches(&r.pattern, e, &mut b) && r.cond.is_none_or(|c| c(&b)) {
            #[cfg(debug_assertions)]
            r.hits.fetch_add(1, Ordering::Relaxed);
            return build(&r.result, &b);
        }
    }
    None
}

/// [`apply`] to `root(kids)` without building the node unless some rule's
/// pattern fits its shape: the root operator and the operators of the
/// operands (either order for `min` and `max`). Most nodes fit none, and
/// building one to find that out costs an allocation.
pub(crate) fn apply_to(
    rules: &'static [Rule],
    root: PatOp,
    kids: &[&Expr],
    node: impl FnOnce() -> Expr,
) -> Option<Expr> {
    rules
        .iter()
        .any(|r| shape_fits(&r.pattern, root, kids))
        .then(|| apply(rules, &node()))
        .flatten()
}

/// Whether `p` may match `root(kids)`, judging by operators alone.
fn shape_fits(p: &Pat, root: PatOp, kids: &[&Expr]) -> bool {
    let Pat::Op(op, args) = p else {
        return true;
    };
    let fits = |p: &Pat, e: &Expr| match p {
        Pat::Op(op, _) => PatOp::of(e).is_some_and(|(o, _)| o == *op),
        Pat::Wild(Wild::Const(_)) => e.as_int().is_some(),
        Pat::Wild(Wild::Expr(_)) => true,
    };
    if *op != root || args.len() != kids.len() {
        return false;
    }
    let in_order = args.iter().zip(kids).all(|(p, e)| fits(p, e));
    in_order
        || (root.commutes()
            && kids.len() == 2
            && fits(&args[0], kids[1])
            && fits(&args[1], kids[0]))
}

fn matches(p: &Pat, e: &Expr, b: &mut Bindings) -> bool {
    match p {
        Pat::Wild(Wild::Expr(i)) => match &b.exprs[usize::from(*i)] {
            Some(bound) => bound == e,
            None => {
                b.exprs[usize::from(*i)] = Some(e.clone());
                true
            }
        },
        Pat::Wild(Wild::Const(i)) => {
            let Some(v) = e.as_int() else {
                return false;
            };
            match b.consts[usize::from(*i)] {
                Some(bound) => bound == v,
                None => {
                    b.consts[usize::from(*i)] = Some(v);
                    true
                }
            }
        }
        Pat::Op(op, args) => {
            let Some((o, kids)) = PatOp::of(e) else {
                return false;
            };
            if o != *op || kids.len() != args.len() {
                return false;
            }
            let mark = b.mark();
            if args.iter().zip(&kids).all(|(p, k)| matches(p, k, b)) {
                return true;
            }
            b.undo(mark);
            if op.commutes() {
                if matches(&args[0], kids[1], b) && matches(&args[1], kids[0], b) {
                    return true;
                }
                b.undo(mark);
            }
            false
        }
    }
}

fn build(p: &Pat, b: &Bindings) -> Option<Expr> {
    match p {
        Pat::Wild(w) => b.get(*w),
        Pat::Op(op, args) => {
            let a: Option<smallvec::SmallVec<[Expr; 3]>> =
                args.iter().map(|p| build(p, b)).collect();
            op.build(&a?)
        }
    }
}

// ------------------------------------------------------------ division rules

/// The operator a division rule rewrites; its divisor is a constant.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum DivOp {
    /// Floor division.
    Div,
    /// Floor modulo.
    Mod,
    /// Ceiling division.
    CeilDiv,
}

/// A numerator pattern of a division rule, matched against the numerator's
/// canonical linear form ([`Sum`]).
#[derive(Debug)]
pub(crate) enum Num {
    /// `x`: the whole numerator.
    Whole(Wild),
    /// `x + c0`: the terms (at least one) and the constant (which may be 0).
    Offset(Wild, Wild),
    /// `A * c0 + y`: any one term whose atom matches `A`, its coefficient,
    /// and the rest of the sum (possibly the constant alone). With a
    /// constant name in place of `y` (`A * c0 + c2`) the term must be the
    /// only one and the name binds the constant (which may be 0).
    Term(Pat, Wild, Wild),
}

/// A side condition or result of a division rule, over a candidate match.
pub(crate) type LinearFn<T> = fn(&Match<'_>) -> T;

/// One named division rule: `op(numerator, c1) => result, if condition`.
pub(crate) struct LinearRule {
    /// The rule's name, reported with its hit count in debug builds.
    #[cfg_attr(not(any(test, debug_assertions)), allow(dead_code))]
    pub name: &'static str,
    /// The operator the rule rewrites.
    #[cfg_attr(not(test), allow(dead_code))]
    pub op: DivOp,
    pub num: Num,
    /// The constant wildcard the divisor binds.
    pub divisor: Wild,
    pub cond: Option<LinearFn<bool>>,
    pub result: LinearFn<Res>,
    /// An input on which the rule fires (its test).
    #[cfg_attr(not(test), allow(dead_code))]
    pub example: &'static str,
    #[cfg(debug_assertions)]
    hits: AtomicU64,
}

/// What an expression name of a division rule is bound to.
#[derive(Clone, Debug)]
pub(crate) enum Slot {
    Unbound,
    /// The whole numerator.
    Whole,
    /// The numerator without its constant.
    Offset,
    /// The numerator without the matched term.
    Rest,
    /// The matched term's atom.
    Atom,
    /// An expression inside the matched term's atom.
    Expr(Expr),
}

/// The bindings of one candidate match of a division rule: expression names
/// `x`, `y`, `z` (slots 0-2) and constants `c0`-`c3`.
#[derive(Clone, Debug)]
pub(crate) struct Env<'s> {
    sum: &'s Sum,
    info: Info,
    term: usize,
    slots: [Slot; 3],
    consts: [i64; 4],
    /// Which of `consts` are bound, one bit each.
    bound: u8,
}

impl<'s> Env<'s> {
    fn new(sum: &'s Sum, info: Info) -> Env<'s> {
        Env {
            sum,
            info,
            term: usize::MAX,
            slots: [Slot::Unbound, Slot::Unbound, Slot::Unbound],
            consts: [0; 4],
            bound: 0,
        }
    }

    /// Binds the constant wildcard `w` to `v`; false when it is bound to
    /// another value (or `w` is not a constant wildcard).
    fn bind_const(&mut self, w: Wild, v: i64) -> bool {
        let Wild::Const(i) = w else {
            return false;
        };
        let i = usize::from(i);
        if self.bound & (1 << i) != 0 {
            return self.consts[i] == v;
        }
        self.bound |= 1 << i;
        self.consts[i] = v;
        true
    }

    /// Binds the expression wildcard `w` (`x`, `y` or `z`) to `slot`;
    /// false for any other wildcard.
    fn bind(&mut self, w: Wild, slot: Slot) -> bool {
        match w {
            Wild::Expr(i) if usize::from(i) < self.slots.len() => {
                self.slots[usize::from(i)] = slot;
                true
            }
            _ => false,
        }
    }

    /// The linear form of slot `i`.
    fn slot_sum(&self, i: usize) -> Result<Sum> {
        Ok(match &self.slots[i] {
            Slot::Whole => self.sum.clone(),
            Slot::Offset => Sum {
                terms: self.sum.terms.clone(),
                konst: 0,
            },
            Slot::Rest => {
                let mut s = self.sum.clone();
                s.terms.remove(self.term);
                s
            }
            Slot::Atom => {
                let t = &self.sum.terms[self.term];
                let mut s = Sum::default();
                s.add_atom_info(&t.atom, 1, t.info)?;
                s
            }
            Slot::Expr(e) => {
                let mut s = Sum::default();
                add_result(&mut s, e, None)?;
                s
            }
            Slot::Unbound => return Err(overflow()),
        })
    }
}

/// Adds `e` (with its facts when known) to `s`.
pub(crate) fn add_result(s: &mut Sum, e: &Expr, info: Option<Info>) -> Result<()> {
    match e.kind() {
        ExprKind::Int(_) | ExprKind::Add(..) | ExprKind::Sub(..) => s.add_expr(e, 1),
        ExprKind::Mul(a, b) if a.as_int().is_some() || b.as_int().is_some() => s.add_expr(e, 1),
        _ => s.add_atom_info(e, 1, info),
    }
}

fn overflow() -> crate::error::ArithError {
    crate::error::ArithError::new(
        crate::error::ErrorKind::Overflow,
        "a rule's constant does not fit in 64 bits",
    )
}

/// A candidate match as a rule's side condition and result see it.
pub(crate) struct Match<'a> {
    env: &'a Env<'a>,
    si: &'a Simplifier<'a>,
}

impl<'a> Match<'a> {
    /// The expression names `[x, y, z]`.
    pub(crate) fn binds(&'a self) -> [Bind<'a>; 3] {
        [0, 1, 2].map(|slot| Bind { m: self, slot })
    }

    /// The constants `[c0, c1, c2, c3]` (0 when unbound), widened so that
    /// conditions and folds cannot overflow.
    pub(crate) fn consts(&self) -> [i128; 4] {
        self.env.consts.map(i128::from)
    }

    fn fact(&self, slot: usize) -> Info {
        let env = self.env;
        match &env.slots[slot] {
            Slot::Whole => env.info,
            // The terms without the constant; nothing is known when the
            // constant cannot be negated.
            Slot::Offset => match env.sum.konst.checked_neg() {
                Some(k) => Info {
                    bound: env.info.bound.add(ConstBound::point(k)),
                    modular: env.info.modular.add(Modular::exact(k)),
                },
                None => Info::ANY,
            },
            Slot::Rest => {
                let mut bound = ConstBound::point(env.sum.konst);
                let mut modular = Modular::exact(env.sum.konst);
                for (i, t) in env.sum.terms.iter().enumerate() {
                    if i != env.term {
                        let f = t.info.unwrap_or_else(|| self.si.info(&t.atom));
                        bound = bound.add(f.bound.mul_const(t.coeff));
                        modular = modular.add(f.modular.mul(Modular::exact(t.coeff)));
                    }
                }
                Info { bound, modular }
            }
            Slot::Atom => {
                let t = &env.sum.terms[env.term];
                t.info.unwrap_or_else(|| self.si.info(&t.atom))
            }
            Slot::Expr(e) => self.si.info(e),
            Slot::Unbound => Info::ANY,
        }
    }

    /// The number of terms of slot `slot`'s linear form, counting a
    /// nonzero constant as one, and the gcd of its coefficients.
    fn shape(&self, slot: usize) -> (i128, i128) {
        let one = |s: &Sum| {
            (
                (s.terms.len() + usize::from(s.konst != 0)) as i128,
                i128::from(s.coeff_gcd()),
            )
        };
        let env = self.env;
        match &env.slots[slot] {
            Slot::Whole => one(env.sum),
            Slot::Offset => (env.sum.terms.len() as i128, i128::from(env.sum.coeff_gcd())),
            _ => env.slot_sum(slot).map_or((0, 0), |s| one(&s)),
        }
    }
}

/// Stands for an infinite bound in side conditions and results.
pub(crate) const INFINITY: i128 = 1 << 100;

/// A bound's end as a rule sees it: `NEG_INF` and `POS_INF` (`i64::MIN`,
/// `i64::MAX`) are infinite, not values.
fn widen(v: i64) -> i128 {
    match v {
        crate::bound::NEG_INF => -INFINITY,
        crate::bound::POS_INF => INFINITY,
        v => i128::from(v),
    }
}

/// An expression name in a side condition or result: its facts, and an
/// operand of the result's arithmetic.
#[derive(Clone, Copy)]
pub(crate) struct Bind<'a> {
    m: &'a Match<'a>,
    slot: usize,
}

impl Bind<'_> {
    /// Its smallest value; an infinite end is [`INFINITY`] (with its
    /// sign), far outside `i64`, so that no result built from it fits.
    pub(crate) fn min(self) -> i128 {
        widen(self.m.fact(self.slot).bound.min)
    }
    /// Its largest value; an infinite end is [`INFINITY`].
    pub(crate) fn max(self) -> i128 {
        widen(self.m.fact(self.slot).bound.max)
    }
    /// Whether both bounds are finite.
    pub(crate) fn bounded(self) -> bool {
        self.m.fact(self.slot).bound.is_finite()
    }
    /// `m` in "always `r` modulo `m`" (0 when exact, 1 when nothing known).
    pub(crate) fn modulus(self) -> i128 {
        i128::from(self.m.fact(self.slot).modular.coeff)
    }
    /// `r` in "always `r` modulo `m`".
    pub(crate) fn residue(self) -> i128 {
        i128::from(self.m.fact(self.slot).modular.base)
    }
    /// The number of terms of its linear form (a nonzero constant counts).
    pub(crate) fn len(self) -> i128 {
        self.m.shape(self.slot).0
    }
    /// The gcd of its coefficients.
    pub(crate) fn coeffs(self) -> i128 {
        self.m.shape(self.slot).1
    }
    /// Its linear form with every coefficient divided by `g` (which
    /// divides them all) and the constant floor-divided by `g`.
    pub(crate) fn shrunk(self, g: i128) -> Res {
        Res::Shrunk(self.slot, g)
    }
}

/// A rule's result: linear arithmetic over names and constants, and
/// divisions by constants (built and simplified by the simplifier).
#[derive(Debug)]
pub(crate) enum Res {
    Name(usize),
    Shrunk(usize, i128),
    Const(i128),
    Add(Box<Res>, Box<Res>),
    Scale(Box<Res>, i128),
    Div(Box<Res>, i128),
    Mod(Box<Res>, i128),
}

/// What can be an operand of a result.
pub(crate) trait IntoRes {
    fn res(self) -> Res;
}

impl IntoRes for Res {
    fn res(self) -> Res {
        self
    }
}

impl IntoRes for Bind<'_> {
    fn res(self) -> Res {
        Res::Name(self.slot)
    }
}

impl IntoRes for i128 {
    fn res(self) -> Res {
        Res::Const(self)
    }
}

/// A folded constant in a result.
pub(crate) fn fold(v: i128) -> Res {
    Res::Const(v)
}

macro_rules! res_ops {
    ($($t:ty),*) => {$(
        impl<T: IntoRes> std::ops::Add<T> for $t {
            type Output = Res;
            fn add(self, o: T) -> Res {
                Res::Add(Box::new(self.res()), Box::new(o.res()))
            }
        }
        impl<T: IntoRes> std::ops::Sub<T> for $t {
            type Output = Res;
            fn sub(self, o: T) -> Res {
                Res::Add(Box::new(self.res()), Box::new(Res::Scale(Box::new(o.res()), -1)))
            }
        }
        impl std::ops::Mul<i128> for $t {
            type Output = Res;
            fn mul(self, k: i128) -> Res {
                Res::Scale(Box::new(self.res()), k)
            }
        }
        /// Floor division by a constant.
        impl std::ops::Div<i128> for $t {
            type Output = Res;
            fn div(self, k: i128) -> Res {
                Res::Div(Box::new(self.res()), k)
            }
        }
        /// Floor modulo by a constant.
        impl std::ops::Rem<i128> for $t {
            type Output = Res;
            fn rem(self, k: i128) -> Res {
                Res::Mod(Box::new(self.res()), k)
            }
        }
    )*};
}
res_ops!(Res, Bind<'_>);

/// `floor(a / b)` (0 for `b == 0`, which side conditions rule out).
pub(crate) fn floor(a: i128, b: i128) -> i128 {
    if b == 0 {
        return 0;
    }
    // 64-bit division where the operands allow (128-bit division is a
    // library call).
    if let (Ok(x), Ok(y)) = (i64::try_from(a), i64::try_from(b)) {
        if let Some(q) = x.checked_div(y) {
            let adjust = x % y != 0 && ((x < 0) != (y < 0));
            return i128::from(q) - i128::from(adjust);
        }
    }
    let q = a / b;
    if a % b != 0 && ((a < 0) != (b < 0)) {
        q - 1
    } else {
        q
    }
}

/// `ceil(a / b)`.
pub(crate) fn ceil(a: i128, b: i128) -> i128 {
    -floor(-a, b)
}

/// `a - b * floor(a / b)`.
pub(crate) fn fmod(a: i128, b: i128) -> i128 {
    a - b * floor(a, b)
}

/// The non-negative gcd.
pub(crate) fn gcd(a: i128, b: i128) -> i128 {
    if let (Ok(x), Ok(y)) = (i64::try_from(a), i64::try_from(b)) {
        let (mut x, mut y) = (x.unsigned_abs(), y.unsigned_abs());
        while y != 0 {
            (x, y) = (y, x % y);
        }
        return i128::from(x);
    }
    let (mut a, mut b) = (a.abs(), b.abs());
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

/// Builds a numerator pattern and the divisor's name from
/// `x, c1` / `x + c0, c1` / `A * c0 + y, c1`.
macro_rules! linear_num {
    ($x:ident , $d:ident) => {
        (Num::Whole(wild!($x)), wild!($d))
    };
    ($x:ident + $k:ident , $d:ident) => {
        (Num::Offset(wild!($x), wild!($k)), wild!($d))
    };
    ($x:ident * $k:ident + $y:ident , $d:ident) => {
        (Num::Term(Pat::Wild(wild!($x)), wild!($k), wild!($y)), wild!($d))
    };
    ($f:ident ( $($a:tt)* ) * $k:ident + $y:ident , $d:ident) => {
        (Num::Term(pat!($f($($a)*)), wild!($k), wild!($y)), wild!($d))
    };
}

macro_rules! linear_op {
    (div) => {
        DivOp::Div
    };
    (mod) => {
        DivOp::Mod
    };
    (ceildiv) => {
        DivOp::CeilDiv
    };
}

/// The division rule table:
/// `name: op(numerator, c1) => result, [if condition,] "example";`.
///
/// The leading `[x, y, z] [c0, c1, c2, c3];` names the expression and
/// constant bindings, which conditions and results use as local values:
/// constants as `i128`, expressions as [`Bind`]s with their facts
/// (`x.min()`, `x.max()`, `x.modulus()`, `x.residue()`, `x.len()`,
/// `x.coeffs()`) and arithmetic (`+`, `-`, `*` by a constant, `/` and `%`
/// by a constant, floor semantics).
macro_rules! linear_rules {
    ($binds:tt $consts:tt ;
     $( $name:ident : $op:ident ( $($num:tt)* ) => $res:expr $(, if $cond:expr)? , $example:literal ; )*) => {
        vec![$({
            let (num, divisor) = linear_num!($($num)*);
            LinearRule {
                name: stringify!($name),
                op: linear_op!($op),
                num,
                divisor,
                cond: None $(.or(Some((|m: &Match<'_>| {
                    #[allow(unused_variables)]
                    let $binds = m.binds();
                    #[allow(unused_variables)]
                    let $consts = m.consts();
                    $cond
                }) as LinearFn<bool>)))?,
                result: |m: &Match<'_>| {
                    #[allow(unused_variables)]
                    let $binds = m.binds();
                    #[allow(unused_variables)]
                    let $consts = m.consts();
                    IntoRes::res($res)
                },
                example: $example,
                #[cfg(debug_assertions)]
                hits: AtomicU64::new(0),
            }
        }),*]
    };
}

/// Floor division by a constant, first stage: the rules that look at the
/// whole numerator or at single terms. The rules without `c1 > 0` hold for
/// either sign of the divisor and also run for negative divisors.
pub(crate) fn floor_div_rules() -> &'static [LinearRule] {
    static RULES: OnceLock<Vec<LinearRule>> = OnceLock::new();
    RULES.get_or_init(|| {
        linear_rules! { [x, y, z] [c0, c1, c2, c3];
            div_in_one_block: div(x, c1) => fold(floor(x.min(), c1)),
                if x.bounded() && floor(x.min(), c1) == floor(x.max(), c1), "(x + 4) // 16";
            div_by_common_factor: div(x, c1) => x.shrunk(gcd(x.coeffs(), c1)) / (c1 / gcd(x.coeffs(), c1)),
                if c1 > 0 && gcd(x.coeffs(), c1) > 1, "(x * 6 + y * 4 + 3) // 8";
            div_drops_constant_multiple: div(x + c0, c1) => x / c1 + c0 / c1,
                if c0 != 0 && c0 % c1 == 0, "(x * 3 + y + 8) // 4";
            div_drops_multiple: div(x * c0 + y, c1) => x * (c0 / c1) + y / c1,
                if c0 % c1 == 0, "(x * 8 + y * 3) // 4";
            div_of_two_valued_atom: div(x * c0 + c2, c1) =>
                (x - x.min()) * (floor(c0 * x.max() + c2, c1) - floor(c0 * x.min() + c2, c1))
                    + floor(c0 * x.min() + c2, c1),
                if x.max() - x.min() == 1, "(x % 2 + 1) // 2";
        }
    })
}

/// Floor division by a constant, last stage (after the searches of
/// `div.rs`): constants and single-term numerators.
pub(crate) fn floor_div_late_rules() -> &'static [LinearRule] {
    static RULES: OnceLock<Vec<LinearRule>> = OnceLock::new();
    RULES.get_or_init(|| {
        linear_rules! { [x, y, z] [c0, c1, c2, c3];
            div_of_div: div(div(x, c0) * c2 + c3, c1) => (x + c3 * c0) / (c0 * c1),
                if c1 > 0 && c0 > 0 && c2 == 1, "(x // 2 + 3) // 4";
            div_of_mod: div(mod(x, c0) * c2 + c3, c1) => (x / c1) % (c0 / c1),
                if c1 > 0 && c0 > 0 && c2 == 1 && c3 == 0 && c0 % c1 == 0, "(x % 8) // 2";
            div_of_digit: div(mod(div(x, c0), c2) * c3 + y, c1) => (x % (c0 * c2)) / (c0 * c1),
                if c0 > 0 && c1 > 0 && c2 > 0 && c3 == 1 && y.len() == 0, "x // 2 % 8 // 3";
        }
    })
}

/// Floor modulo by a constant (positive or negative).
pub(crate) fn floor_mod_rules() -> &'static [LinearRule] {
    static RULES: OnceLock<Vec<LinearRule>> = OnceLock::new();
    RULES.get_or_init(|| {
        linear_rules! { [x, y, z] [c0, c1, c2, c3];
            mod_in_one_block: mod(x, c1) => x - c1 * floor(x.min(), c1),
                if x.bounded() && floor(x.min(), c1) == floor(x.max(), c1), "(x + 4) % 16";
            mod_of_aligned: mod(x, c1) => fold(fmod(x.residue(), c1)),
                if x.modulus() != 0 && x.modulus() % c1 == 0, "(x * 8 + 3) % 4";
            mod_drops_multiple: mod(x * c0 + y, c1) => y % c1,
                if c0 % c1 == 0, "(x * 8 + y) % 4";
            mod_of_inner_mod: mod(mod(x, c0) * c2 + y, c1) => (x * c2 + y) % c1,
                if c0 % c1 == 0 && (c2 == 1 || x.len() == 1), "(x % 8 + y) % 4";
            mod_reduces_constant: mod(x + c0, c1) => (x + c0.rem_euclid(c1)) % c1,
                if c0.abs() >= c1.abs(), "(x + 9) % 4";
        }
    })
}

/// Ceiling division by a constant.
pub(crate) fn ceil_div_rules() -> &'static [LinearRule] {
    static RULES: OnceLock<Vec<LinearRule>> = OnceLock::new();
    RULES.get_or_init(|| {
        linear_rules! { [x, y, z] [c0, c1, c2, c3];
            ceildiv_in_one_block: ceildiv(x, c1) => fold(ceil(x.min(), c1)),
                if x.bounded() && ceil(x.min(), c1) == ceil(x.max(), c1), "ceildiv(x + 12, 16)";
        }
    })
}

/// A rule's result: an expression already simplified, or a linear form
/// still to be finished (so that a chain of rules finishes its sum once).
pub(crate) enum Lin {
    Done(Expr, Info),
    Sum(Sum),
}

impl Lin {
    /// Adds `self` to `s`.
    pub(crate) fn add_to(self, s: &mut Sum) -> Result<()> {
        self.add_scaled_to(s, 1)
    }

    /// Adds `k * self` to `s`.
    pub(crate) fn add_scaled_to(self, s: &mut Sum, k: i64) -> Result<()> {
        match self {
            Lin::Done(e, i) if k == 1 => add_result(s, &e, Some(i)),
            Lin::Done(e, _) => s.add_expr(&e, k),
            Lin::Sum(t) => {
                for u in t.terms {
                    s.add_atom_info(&u.atom, crate::num::mul(u.coeff, k)?, u.info)?;
                }
                s.konst = crate::num::add(s.konst, crate::num::mul(t.konst, k)?)?;
                Ok(())
            }
        }
    }
}

/// The termination measure of a division by a constant, compared
/// lexicographically: the number of division and modulo nodes in the
/// numerator, modulo before division, the numerator's number of terms, the
/// divisor's magnitude, the magnitude of the numerator's constant.
pub(crate) fn measure(num: &Sum, op: DivOp, c: i64) -> (usize, u8, usize, u64, u64) {
    let mut divisions = 0;
    for t in &num.terms {
        crate::walk::any_node(&t.atom, |n| {
            divisions += usize::from(matches!(
                n.kind(),
                ExprKind::FloorDiv(..) | ExprKind::FloorMod(..) | ExprKind::CeilDiv(..)
            ));
            false
        });
    }
    let rank = match op {
        DivOp::Mod => 0,
        DivOp::Div | DivOp::CeilDiv => 1,
    };
    (
        divisions,
        rank,
        num.terms.len(),
        c.unsigned_abs(),
        num.konst.unsigned_abs(),
    )
}

impl Simplifier<'_> {
    /// Rewrites `op(s, c)` (with `info` the facts of `s`) by the first rule
    /// of `rules` that matches, returning the result's linear form.
    pub(crate) fn apply_linear(
        &mut self,
        rules: &'static [LinearRule],
        op: DivOp,
        s: &Sum,
        info: Info,
        c: i64,
    ) -> Result<Option<Lin>> {
        for r in rules {
            let Some((res, env)) = self.match_linear(r, s, info, c) else {
                continue;
            };
            // The measure is only checked in debug builds, and on
            // numerators small enough to count in passing (counting a deep
            // chain's divisions at each of its levels is quadratic).
            let checked = cfg!(debug_assertions)
                && s.terms.iter().map(|t| t.atom.node_count()).sum::<usize>()
                    <= crate::stack::RECURSION_NODES;
            let top = if checked {
                measure(s, op, c)
            } else {
                Default::default()
            };
            let built = match &res {
                // A division alone is returned as its own result.
                Res::Div(a, k) => self.build_division(a, *k, DivOp::Div, &env, top, r.name),
                Res::Mod(a, k) => self.build_division(a, *k, DivOp::Mod, &env, top, r.name),
                _ => self.build_linear(&res, &env, top, r.name).map(Lin::Sum),
            };
            match built {
                Ok(out) => {
                    #[cfg(debug_assertions)]
                    r.hits.fetch_add(1, Ordering::Relaxed);
                    return Ok(Some(out));
                }
                Err(e) if e.kind == crate::error::ErrorKind::Overflow => continue,
                Err(e) => return Err(e),
            }
        }
        Ok(None)
    }

    /// The first binding of `r`'s pattern to `op(s, c)` that meets its side
    /// condition, with the rule's result over it.
    fn match_linear<'s>(
        &self,
        r: &LinearRule,
        s: &'s Sum,
        info: Info,
        c: i64,
    ) -> Option<(Res, Env<'s>)> {
        let mut env = Env::new(s, info);
        env.bind_const(r.divisor, c);
        // The condition and result over a candidate binding.
        let check = |env: &Env<'_>| -> Option<Res> {
            let m = Match { env, si: self };
            if r.cond.is_some_and(|f| !f(&m)) {
                return None;
            }
            Some((r.result)(&m))
        };
        match &r.num {
            Num::Whole(x) => {
                if !env.bind(*x, Slot::Whole) {
                    return None;
                }
                check(&env).map(|res| (res, env))
            }
            Num::Offset(x, k) => {
                if s.terms.is_empty() || !env.bind_const(*k, s.konst) || !env.bind(*x, Slot::Offset)
                {
                    return None;
                }
                check(&env).map(|res| (res, env))
            }
            Num::Term(atom, k, rest) => {
                let rest_is_const = matches!(rest, Wild::Const(_));
                if rest_is_const && s.terms.len() != 1 {
                    return None;
                }
                let (consts, bound) = (env.consts, env.bound);
                for (i, t) in s.terms.iter().enumerate() {
                    // Back to the divisor's binding alone.
                    env.consts = consts;
                    env.bound = bound;
                    env.slots = [Slot::Unbound, Slot::Unbound, Slot::Unbound];
                    env.term = i;
                    if let Pat::Wild(x) = atom {
                        if !env.bind(*x, Slot::Atom) {
                            continue;
                        }
                    } else {
                        let mut b = Bindings::default();
                        if !matches(atom, &t.atom, &mut b) {
                            continue;
                        }
                        let mut ok = true;
                        for (i, e) in b.exprs.into_iter().enumerate() {
                            if let Some(e) = e {
                                ok &= env.bind(Wild::Expr(i as u8), Slot::Expr(e));
                            }
                        }
                        for (i, c) in b.consts.into_iter().enumerate() {
                            if let Some(v) = c {
                                ok &= env.bind_const(Wild::Const(i as u8), v);
                            }
                        }
                        if !ok {
                            continue;
                        }
                    }
                    if !env.bind_const(*k, t.coeff) {
                        continue;
                    }
                    let bound_rest = if rest_is_const {
                        env.bind_const(*rest, s.konst)
                    } else {
                        env.bind(*rest, Slot::Rest)
                    };
                    if !bound_rest {
                        continue;
                    }
                    if let Some(res) = check(&env) {
                        return Some((res, env));
                    }
                }
                None
            }
        }
    }

    /// The linear form of a rule's result. Every division it builds is
    /// smaller than the rewritten one by [`measure`] (checked in debug
    /// builds), so rules cannot rewrite in a cycle.
    fn build_linear(
        &mut self,
        res: &Res,
        env: &Env,
        top: (usize, u8, usize, u64, u64),
        name: &str,
    ) -> Result<Sum> {
        let mut out = Sum::default();
        self.build_into(res, 1, env, &mut out, top, name)?;
        Ok(out)
    }

    /// Adds `k * res` to `out` (in place: sums are not copied around).
    fn build_into(
        &mut self,
        res: &Res,
        k: i64,
        env: &Env,
        out: &mut Sum,
        top: (usize, u8, usize, u64, u64),
        name: &str,
    ) -> Result<()> {
        use crate::num::{add, mul};
        let k64 = |k: i128| i64::try_from(k).map_err(|_| overflow());
        match res {
            Res::Name(i) | Res::Shrunk(i, _) => {
                let g = match res {
                    Res::Shrunk(_, g) => k64(*g)?,
                    _ => 1,
                };
                if g <= 0 {
                    return Err(overflow());
                }
                let sum = env.sum;
                let term = |t: &super::sum::Term, out: &mut Sum| -> Result<()> {
                    if t.coeff % g != 0 {
                        return Err(overflow());
                    }
                    out.add_atom_info(&t.atom, mul(t.coeff / g, k)?, t.info)
                };
                let konst = |out: &mut Sum| -> Result<()> {
                    out.konst = add(out.konst, mul(sum.konst.div_euclid(g), k)?)?;
                    Ok(())
                };
                match &env.slots[*i] {
                    Slot::Whole | Slot::Offset | Slot::Rest => {
                        for (j, t) in sum.terms.iter().enumerate() {
                            if !(matches!(env.slots[*i], Slot::Rest) && j == env.term) {
                                term(t, out)?;
                            }
                        }
                        if !matches!(env.slots[*i], Slot::Offset) {
                            konst(out)?;
                        }
                    }
                    Slot::Atom if g == 1 => {
                        let t = &sum.terms[env.term];
                        out.add_atom_info(&t.atom, k, t.info)?
                    }
                    Slot::Expr(e) if g == 1 => out.add_expr(e, k)?,
                    Slot::Atom | Slot::Expr(_) | Slot::Unbound => return Err(overflow()),
                }
            }
            Res::Const(v) => out.konst = add(out.konst, mul(k64(*v)?, k)?)?,
            Res::Add(a, b) => {
                self.build_into(a, k, env, out, top, name)?;
                self.build_into(b, k, env, out, top, name)?;
            }
            Res::Scale(a, m) => self.build_into(a, mul(k, k64(*m)?)?, env, out, top, name)?,
            Res::Div(a, m) | Res::Mod(a, m) => {
                let op = if matches!(res, Res::Div(..)) {
                    DivOp::Div
                } else {
                    DivOp::Mod
                };
                self.build_division(a, *m, op, env, top, name)?
                    .add_scaled_to(out, k)?;
            }
        }
        Ok(())
    }

    /// `op(a, k)` for a rule's result; the division must be smaller than
    /// the rewritten one by [`measure`] (checked in debug builds).
    fn build_division(
        &mut self,
        a: &Res,
        k: i128,
        op: DivOp,
        env: &Env,
        top: (usize, u8, usize, u64, u64),
        name: &str,
    ) -> Result<Lin> {
        let n = self.build_linear(a, env, top, name)?;
        let k = i64::try_from(k).map_err(|_| overflow())?;
        debug_assert!(
            top == Default::default() || measure(&n, op, k) < top,
            "{name}: the result's division is not smaller than the rewritten one: {} ({:?}) vs {:?} from {}",
            n.rebuild(),
            measure(&n, op, k),
            top,
            env.sum.rebuild()
        );
        self.divide_linear(n, op, k)
    }
}

/// How often each rule of every table fired in this process (debug
/// builds; empty in release builds).
pub fn rule_hits() -> Vec<(&'static str, u64)> {
    #[cfg(debug_assertions)]
    {
        let linear = [
            floor_div_rules(),
            floor_div_late_rules(),
            floor_mod_rules(),
            ceil_div_rules(),
        ];
        node_rule_tables()
            .into_iter()
            .flatten()
            .map(|r| (r.name, r.hits.load(Ordering::Relaxed)))
            .chain(
                linear
                    .into_iter()
                    .flatten()
                    .map(|r| (r.name, r.hits.load(Ordering::Relaxed))),
            )
            .collect()
    }
    #[cfg(not(debug_assertions))]
    {
        Vec::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Analyzer, Range};

    /// The smallest number of nodes a pattern matches.
    fn min_nodes(p: &Pat) -> usize {
        match p {
            Pat::Wild(_) => 1,
            Pat::Op(_, args) => 1 + args.iter().map(min_nodes).sum::<usize>(),
        }
    }

    /// The largest number of nodes a result has per node bound to its names,
    /// given that each name's binding also occurs in the pattern: the result's
    /// size minus the pattern's, counting names as one node each. Negative
    /// means every firing shrinks the tree.
    fn growth(r: &Rule) -> isize {
        fn names(p: &Pat, out: &mut Vec<Wild>) {
            match p {
                Pat::Wild(n) => out.push(*n),
                Pat::Op(_, a) => a.iter().for_each(|p| names(p, out)),
            }
        }
        let (mut pn, mut rn) = (Vec::new(), Vec::new());
        names(&r.pattern, &mut pn);
        names(&r.result, &mut rn);
        // A name used more often in the result than in the pattern would copy
        // its binding: count that as unbounded growth.
        if rn
            .iter()
            .any(|n| rn.iter().filter(|m| *m == n).count() > pn.iter().filter(|m| *m == n).count())
        {
            return isize::MAX;
        }
        min_nodes(&r.result) as isize - min_nodes(&r.pattern) as isize
    }

    #[test]
    fn every_rule_shrinks() {
        for r in node_rule_tables().into_iter().flatten() {
            assert!(
                growth(r) < 0,
                "{}: the result is not smaller than the pattern",
                r.name
            );
        }
    }

    /// The shape prefilter of [`apply_to`] lets through every node a rule
    /// fires on: each rule's example, its mirror image, and nodes over
    /// operands no pattern mentions.
    #[test]
    fn shape_prefilter_keeps_every_firing() {
        let mut inputs: Vec<String> = min_max_rules().iter().map(|r| r.example.into()).collect();
        for r in min_max_rules() {
            let e = crate::parse::parse(r.example).unwrap();
            let kids = e.children();
            let root = if matches!(e.kind(), ExprKind::Min(..)) {
                "min"
            } else {
                "max"
            };
            inputs.push(format!("{root}({}, {})", kids[1], kids[0]));
        }
        inputs.extend(
            [
                "min(x, y)",
                "max(x + 1, y // 2)",
                "min(x % 3, select(x < 0, 1, 2))",
            ]
            .map(String::from),
        );
        for text in inputs {
            let e = crate::parse::parse(&text).unwrap();
            let root = match e.kind() {
                ExprKind::Min(..) => PatOp::Min,
                ExprKind::Max(..) => PatOp::Max,
                _ => unreachable!("{text}"),
            };
            let kids = e.children();
            let direct = apply(min_max_rules(), &e);
            let filtered = apply_to(min_max_rules(), root, &kids, || e.clone());
            assert_eq!(direct, filtered, "{text}");
        }
    }

    /// Every rule of every table, as (name, example).
    fn all_rules() -> Vec<(&'static str, &'static str)> {
        let linear = [
            floor_div_rules(),
            floor_div_late_rules(),
            floor_mod_rules(),
            ceil_div_rules(),
        ];
        node_rule_tables()
            .into_iter()
            .flatten()
            .map(|r| (r.name, r.example))
            .chain(linear.into_iter().flatten().map(|r| (r.name, r.example)))
            .collect()
    }

    /// Each rule fires on its example, and the result agrees with the input
    /// at every point of a box. For division rules this also checks the
    /// termination measure: every division a result builds is smaller by
    /// [`measure`] than the one rewritten (a debug assertion in
    /// `build_linear`).
    #[test]
    fn every_rule_fires_on_its_example_and_is_sound() {
        for (name, example) in all_rules() {
            fires_and_is_sound(name, example);
        }
    }

    /// The division rules that hold for either sign of the divisor fire
    /// on negative divisors too.
    #[test]
    fn division_rules_fire_on_negative_divisors() {
        for (name, example) in [
            ("div_in_one_block", "(x + 5) // -16"),
            ("div_drops_constant_multiple", "(x * 3 + y + 8) // -4"),
            ("div_drops_multiple", "(x * 8 + y * 3) // -4"),
            ("div_of_two_valued_atom", "(x % 2 * 3 + 1) // -2"),
            ("mod_in_one_block", "(x + 5) % -16"),
            ("mod_of_aligned", "(x * 8 + 3) % -4"),
            ("mod_drops_multiple", "(x * 8 + y) % -4"),
            ("mod_of_inner_mod", "(x % 8 + y) % -4"),
            ("mod_reduces_constant", "(x + 9) % -4"),
            ("ceildiv_in_one_block", "ceildiv(x + 4, -16)"),
        ] {
            fires_and_is_sound(name, example);
        }
    }

    /// `name` fires on `example` with every variable in `[-4, 4]`, and the
    /// result agrees with the input at every point.
    fn fires_and_is_sound(name: &str, example: &str) {
        let e = crate::parse(example).unwrap();
        let mut an = Analyzer::new();
        let vars = e.vars();
        for v in &vars {
            an.bind(v, Range::half_open(Expr::int(-4), Expr::int(5)));
        }
        let before = hits(name);
        let s = an.simplify(&e).unwrap();
        assert!(hits(name) > before, "{name} did not fire on {example}");
        let n = vars.len() as u32;
        for k in 0..9i64.pow(n) {
            let point: Vec<i64> = (0..n).map(|i| (k / 9i64.pow(i)) % 9 - 4).collect();
            let env = |w: &crate::Var| vars.iter().position(|v| v == w).map(|i| point[i]);
            if let Ok(want) = e.eval(&env) {
                assert_eq!(s.eval(&env).ok(), Some(want), "{name}: {e} => {s}");
            }
        }
    }

    /// Every rule is listed by `rule_hits`, once.
    #[test]
    fn rule_hits_lists_every_rule_once() {
        let listed: Vec<_> = rule_hits().into_iter().map(|(n, _)| n).collect();
        for (name, _) in all_rules() {
            assert_eq!(listed.iter().filter(|n| **n == name).count(), 1, "{name}");
        }
        assert_eq!(listed.len(), all_rules().len());
    }

    /// The division rules' operators and names are what their patterns say.
    #[test]
    fn division_rules_match_their_operator() {
        for (rules, op) in [
            (floor_div_rules(), DivOp::Div),
            (floor_div_late_rules(), DivOp::Div),
            (floor_mod_rules(), DivOp::Mod),
            (ceil_div_rules(), DivOp::CeilDiv),
        ] {
            for r in rules {
                assert_eq!(r.op, op, "{}", r.name);
                assert!(matches!(r.divisor, Wild::Const(_)), "{}", r.name);
            }
        }
    }

    /// The constant helpers agree with 128-bit arithmetic at the ends of
    /// `i64` and beyond.
    #[test]
    fn constant_helpers_are_exact() {
        let m = i128::from(i64::MIN);
        for (a, b) in [
            (7, 2),
            (-7, 2),
            (7, -2),
            (-7, -2),
            (m, -1),
            (m, 3),
            (-m, 5),
            (INFINITY, 7),
        ] {
            let q = a.div_euclid(b) - i128::from(b < 0 && a.rem_euclid(b) != 0);
            assert_eq!(floor(a, b), q, "{a} / {b}");
            assert_eq!(fmod(a, b), a - b * q);
        }
        assert_eq!(gcd(m, 0), -m);
        assert_eq!(gcd(-12, 18), 6);
        assert_eq!(gcd(INFINITY, 8), 8);
    }

    /// The termination measure orders what the rules rely on.
    #[test]
    fn measure_orders_divisions() {
        let s = Sum::of(&crate::parse("x * 8 + y + 3").unwrap()).unwrap();
        let rest = Sum::of(&crate::parse("y + 3").unwrap()).unwrap();
        let reduced = Sum::of(&crate::parse("x * 8 + y + 1").unwrap()).unwrap();
        assert!(measure(&rest, DivOp::Div, 4) < measure(&s, DivOp::Div, 4));
        assert!(measure(&s, DivOp::Div, 2) < measure(&s, DivOp::Div, 4));
        assert!(measure(&s, DivOp::Mod, 8) < measure(&s, DivOp::Div, 4));
        assert!(measure(&reduced, DivOp::Mod, 2) < measure(&s, DivOp::Mod, 2));
    }

    fn hits(name: &str) -> u64 {
        rule_hits()
            .into_iter()
            .find(|(n, _)| *n == name)
            .map_or(0, |(_, h)| h)
    }
}
