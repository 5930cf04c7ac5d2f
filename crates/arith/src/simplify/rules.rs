//! Rewrite rules as a table: each rule is one line, a pattern, a result and
//! an optional side condition, in the manner of Halide's
//! `rewrite(pattern, result, condition)`.
//!
//! ```text
//! min_of_max_absorbs: min(x, max(x, y)) => x;
//! min_of_divisions:   min(div(x, c0), div(y, c0)) => div(min(x, y), c0) if c0 > 0;
//! ```
//!
//! In patterns, `x`, `y`, `z`, `w` match any expression (the same name
//! matches equal expressions), `c0`, `c1` match integer constants, and
//! `min`, `max`, `div` (floor division), `select` match their operators;
//! `min` and `max` also match with their operands swapped. A rule fires on
//! an already simplified node; its result is built from the bindings and
//! simplified again.
//!
//! **Termination.** Every rule's result has strictly fewer nodes than the
//! smallest tree its pattern matches (checked for every rule by
//! `every_rule_shrinks`), and the result is simplified from operands that
//! are already simplified, so each firing strictly decreases the node count
//! of the tree being simplified; no depth cap is needed.
//!
//! In debug builds every rule counts its hits ([`rule_hits`]).

use crate::expr::{Expr, ExprKind};
#[cfg(debug_assertions)]
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::OnceLock;

/// A pattern or result template.
#[derive(Debug)]
pub(crate) enum Pat {
    /// `x`, `y`, ...: any expression; `c0`, `c1`: an integer constant.
    Name(&'static str),
    /// An operator over sub-patterns.
    Op(&'static str, Vec<Pat>),
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

/// What a pattern's names matched.
#[derive(Default, Debug)]
pub(crate) struct Bindings {
    exprs: smallvec::SmallVec<[(&'static str, Expr); 4]>,
}

impl Bindings {
    /// The constant bound to `name` (`c0`, `c1`).
    pub(crate) fn c(&self, name: &str) -> i64 {
        self.get(name).and_then(Expr::as_int).unwrap_or(0)
    }

    fn get(&self, name: &str) -> Option<&Expr> {
        self.exprs.iter().find(|(n, _)| *n == name).map(|(_, e)| e)
    }
}

/// Builds a [`Pat`] from `op(a, b, ...)` notation.
macro_rules! pat {
    ($f:ident ( $($args:tt)* )) => {
        Pat::Op(stringify!($f), pat!(@args [] $($args)*))
    };
    ($f:ident) => {
        Pat::Name(stringify!($f))
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

/// The rule table: `name: pattern => result [if |b| condition], "example";`.
macro_rules! rules {
    ($( $name:ident : $($p:ident)? ( $($pat:tt)* ) => $r:ident $(( $($res:tt)* ))?
        $(if $cond:expr)? , $example:literal ; )*) => {
        vec![$(Rule {
            name: stringify!($name),
            pattern: pat!($($p)? ( $($pat)* )),
            result: pat!($r $(( $($res)* ))?),
            cond: None $(.or(Some($cond as Cond)))?,
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
        rules! {
            min_of_max_absorbs: min(x, max(x, y)) => x, "min(x, max(x, y))";
            max_of_min_absorbs: max(x, min(x, y)) => x, "max(min(y, x), x)";
            min_of_maxes_with_common_operand: min(max(x, y), max(x, z)) => max(x, min(y, z)),
                "min(max(y, x), max(z, x))";
            max_of_mins_with_common_operand: max(min(x, y), min(x, z)) => min(x, max(y, z)),
                "max(min(x, y), min(z, x))";
            min_of_divisions: min(div(x, c0), div(y, c0)) => div(min(x, y), c0) if |b| b.c("c0") > 0,
                "min(x // 4, y // 4)";
            min_of_divisions_by_negative: min(div(x, c0), div(y, c0)) => div(max(x, y), c0)
                if |b| b.c("c0") < 0, "min(x // -4, y // -4)";
            max_of_divisions: max(div(x, c0), div(y, c0)) => div(max(x, y), c0) if |b| b.c("c0") > 0,
                "max(x // 4, y // 4)";
            max_of_divisions_by_negative: max(div(x, c0), div(y, c0)) => div(min(x, y), c0)
                if |b| b.c("c0") < 0, "max(x // -4, y // -4)";
            min_of_selects: min(select(w, x, y), select(w, z, v)) => select(w, min(x, z), min(y, v)),
                "min(select(z < 0, x, y), select(z < 0, y + 1, x - 1))";
            max_of_selects: max(select(w, x, y), select(w, z, v)) => select(w, max(x, z), max(y, v)),
                "max(select(z < 0, x, y), select(z < 0, y + 1, x - 1))";
        }
    })
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

fn op_of(e: &Expr) -> Option<(&'static str, smallvec::SmallVec<[&Expr; 3]>)> {
    let name = match e.kind() {
        ExprKind::Min(..) => "min",
        ExprKind::Max(..) => "max",
        ExprKind::FloorDiv(..) => "div",
        ExprKind::Select(..) => "select",
        _ => return None,
    };
    Some((name, e.children()))
}

fn matches(p: &Pat, e: &Expr, b: &mut Bindings) -> bool {
    match p {
        Pat::Name(n) => {
            let constant = n.starts_with('c');
            if constant && e.as_int().is_none() {
                return false;
            }
            match b.get(n) {
                Some(bound) => bound == e,
                None => {
                    b.exprs.push((n, e.clone()));
                    true
                }
            }
        }
        Pat::Op(name, args) => {
            let Some((op, kids)) = op_of(e) else {
                return false;
            };
            if op != *name || kids.len() != args.len() {
                return false;
            }
            let mark = b.exprs.len();
            if args.iter().zip(&kids).all(|(p, k)| matches(p, k, b)) {
                return true;
            }
            b.exprs.truncate(mark);
            // `min` and `max` commute.
            if matches!(*name, "min" | "max") {
                if matches(&args[0], kids[1], b) && matches(&args[1], kids[0], b) {
                    return true;
                }
                b.exprs.truncate(mark);
            }
            false
        }
    }
}

fn build(p: &Pat, b: &Bindings) -> Option<Expr> {
    Some(match p {
        Pat::Name(n) => b.get(n)?.clone(),
        Pat::Op(name, args) => {
            let a: Option<Vec<Expr>> = args.iter().map(|p| build(p, b)).collect();
            let a = a?;
            match (*name, a.as_slice()) {
                ("min", [x, y]) => Expr::min(x.clone(), y.clone()),
                ("max", [x, y]) => Expr::max(x.clone(), y.clone()),
                ("div", [x, y]) => Expr::floor_div(x.clone(), y.clone()),
                ("select", [c, x, y]) => Expr::select(c.clone(), x.clone(), y.clone()),
                _ => return None,
            }
        }
    })
}

/// How often each rule fired in this process (debug builds; empty in
/// release builds).
pub fn rule_hits() -> Vec<(&'static str, u64)> {
    #[cfg(debug_assertions)]
    {
        min_max_rules()
            .iter()
            .map(|r| (r.name, r.hits.load(Ordering::Relaxed)))
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
            Pat::Name(_) => 1,
            Pat::Op(_, args) => 1 + args.iter().map(min_nodes).sum::<usize>(),
        }
    }

    /// The largest number of nodes a result has per node bound to its names,
    /// given that each name's binding also occurs in the pattern: the result's
    /// size minus the pattern's, counting names as one node each. Negative
    /// means every firing shrinks the tree.
    fn growth(r: &Rule) -> isize {
        fn names<'a>(p: &'a Pat, out: &mut Vec<&'a str>) {
            match p {
                Pat::Name(n) => out.push(n),
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
        for r in min_max_rules() {
            assert!(
                growth(r) < 0,
                "{}: the result is not smaller than the pattern",
                r.name
            );
        }
    }

    /// Each rule fires on its example, and the result agrees with the input
    /// at every point of a box.
    #[test]
    fn every_rule_fires_on_its_example_and_is_sound() {
        for r in min_max_rules() {
            let (e, scope) = crate::parse_with_scope(r.example).unwrap();
            let mut an = Analyzer::new();
            let vars = e.vars();
            for v in &vars {
                an.bind(v, Range::half_open(Expr::int(-4), Expr::int(5)));
            }
            let before = hits(r.name);
            let s = an.simplify(&e).unwrap();
            assert!(
                hits(r.name) > before,
                "{} did not fire on {}",
                r.name,
                r.example
            );
            let n = vars.len() as u32;
            for k in 0..9i64.pow(n) {
                let point: Vec<i64> = (0..n).map(|i| (k / 9i64.pow(i)) % 9 - 4).collect();
                let env = |w: &crate::Var| vars.iter().position(|v| v == w).map(|i| point[i]);
                if let Ok(want) = e.eval(&env) {
                    assert_eq!(s.eval(&env).ok(), Some(want), "{}: {e} => {s}", r.name);
                }
            }
            let _ = scope;
        }
    }

    fn hits(name: &str) -> u64 {
        rule_hits()
            .into_iter()
            .find(|(n, _)| *n == name)
            .map_or(0, |(_, h)| h)
    }
}
