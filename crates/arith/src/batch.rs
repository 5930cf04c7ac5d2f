//! Many cases simplified one after another, as `rangefinder simplify
//! --batch` reads them: one line `EXPR | NAME=LO:HI ...` per case.

use crate::analyzer::Analyzer;
use crate::bound::ConstBound;
use crate::error::Result;
use crate::expr::Expr;
use crate::scope::{NameHasher, Scope};
use std::collections::HashMap;
use std::hash::BuildHasherDefault;

/// How many distinct contexts a [`Batch`] keeps bound at once; past that
/// it starts over, so a file of all-different contexts costs no more
/// memory than its longest stretch of this many.
const MAX_CONTEXTS: usize = 1024;

/// A run of batch cases.
///
/// Names resolve through one [`Scope`] for the whole run, so a name used on
/// many lines is one variable. Each line is simplified under the ranges
/// written on it and nothing else: no fact or result of one line reaches
/// another. Lines whose range text is the same (most lines of a real
/// batch: the variables of one test, declared once) share one analyzer
/// bound to those ranges, the way a compiler binds an analyzer once and
/// asks it many questions; the analyzer is only read while simplifying.
///
/// ```
/// let mut batch = arith::Batch::new();
/// let a = batch.simplify_line("(x * 4 + 3) // 4 | x=0:8").unwrap();
/// let b = batch.simplify_line("x % 16 | x=0:8").unwrap();
/// assert_eq!((a.to_string(), b.to_string()), ("x".to_string(), "x".to_string()));
/// // Another line's ranges are not this line's.
/// assert_eq!(batch.simplify_line("x % 16").unwrap().to_string(), "x % 16");
/// ```
#[derive(Default)]
pub struct Batch {
    scope: Scope,
    /// Analyzers bound to the range text they were read from.
    contexts: HashMap<Box<str>, Analyzer, BuildHasherDefault<NameHasher>>,
}

impl Batch {
    /// A run with no names and no contexts yet.
    pub fn new() -> Batch {
        Batch::default()
    }

    /// Parses one line (`EXPR`, or `EXPR | NAME=LO:HI ...` as
    /// [`crate::parse_case`] reads it) and simplifies the expression under
    /// the line's ranges. Error spans are byte offsets in `line`.
    pub fn simplify_line(&mut self, line: &str) -> Result<Expr> {
        let (expr, analyzer) = self.read_line(line)?;
        analyzer.simplify(&expr)
    }

    /// What `simplify --batch --json` reports of one line: the parsed
    /// input, its simplified form and the constant bounds the line's ranges
    /// prove for it.
    ///
    /// ```
    /// let mut batch = arith::Batch::new();
    /// let case = batch.analyze_line("x % 8 + 1 | x=0:64").unwrap();
    /// assert_eq!(case.simplified.to_string(), "x % 8 + 1");
    /// assert_eq!((case.bound.min, case.bound.max), (1, 8));
    /// ```
    pub fn analyze_line(&mut self, line: &str) -> Result<BatchCase> {
        let (input, analyzer) = self.read_line(line)?;
        let simplified = analyzer.simplify(&input)?;
        let bound = analyzer.const_int_bound(&input);
        Ok(BatchCase {
            input,
            simplified,
            bound,
        })
    }

    /// The line's expression and the analyzer bound to its ranges.
    fn read_line(&mut self, line: &str) -> Result<(Expr, &Analyzer)> {
        let (expr_text, specs) = line.split_once('|').unwrap_or((line, ""));
        let expr = crate::parse_in(expr_text, &mut self.scope)?;
        if !self.contexts.contains_key(specs) {
            let ranges = crate::parse_range_specs(specs, &mut self.scope)
                .map_err(|e| e.shifted(line.len() - specs.len()))?;
            let mut analyzer = Analyzer::new();
            analyzer.bind_all(&ranges);
            if self.contexts.len() >= MAX_CONTEXTS {
                self.contexts.clear();
            }
            self.contexts.insert(specs.into(), analyzer);
        }
        Ok((expr, &self.contexts[specs]))
    }
}

/// One line of a batch as [`Batch::analyze_line`] reads it.
#[derive(Clone, Debug)]
pub struct BatchCase {
    /// The expression as parsed.
    pub input: Expr,
    /// Its simplified form under the line's ranges.
    pub simplified: Expr,
    /// The constant bounds of the input under the line's ranges.
    pub bound: ConstBound,
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every line gives what a fresh parse and analyzer give, whether its
    /// context was seen before or not.
    #[test]
    fn a_shared_context_gives_what_a_fresh_one_gives() {
        let lines = [
            "x // 4 * 4 + x % 4 | x=0:64",
            "min(x, y) | x=0:4 y=5:9",
            "x % 8 | x=0:64",
            "min(x, y) | x=0:4 y=5:9",
            "x - y | y=0:n - 1 n=1:9 x=n:n + 1",
            "x - y | y=0:n - 1 n=1:9 x=n:n + 1",
            "min(x, y)",
            "x % 8 | x=0:8",
        ];
        let mut batch = Batch::new();
        for line in lines {
            let got = batch.simplify_line(line).unwrap();
            let case = crate::parse_case(line, &mut Scope::new()).unwrap();
            let mut an = Analyzer::new();
            an.bind_all(&case.ranges);
            let want = an.simplify(&case.expr).unwrap();
            assert_eq!(got.to_string(), want.to_string(), "{line}");
        }
    }

    /// An error in the ranges points into the line, and a context that
    /// failed is not kept.
    #[test]
    fn a_bad_context_is_reported_at_its_place_every_time() {
        let mut batch = Batch::new();
        for _ in 0..2 {
            let e = batch.simplify_line("x + 1 | x=0:(").unwrap_err();
            let line = "x + 1 | x=0:(";
            let span = e.span.expect("a span");
            assert!(span.start > line.find('|').unwrap(), "{span:?}");
            assert!(span.end <= line.len(), "{span:?}");
        }
        assert!(batch.contexts.is_empty());
    }

    /// A run of more distinct contexts than are kept still answers each
    /// line under its own ranges.
    #[test]
    fn many_contexts_start_over_without_mixing() {
        let mut batch = Batch::new();
        for hi in 2..(MAX_CONTEXTS as i64 + 40) {
            let line = format!("min(x, {hi}) | x=0:{hi}");
            let got = batch.simplify_line(&line).unwrap();
            assert_eq!(got.to_string(), "x", "{line}");
            assert!(batch.contexts.len() <= MAX_CONTEXTS);
        }
    }
}
