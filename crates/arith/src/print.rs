//! Printing in the same Python-subset syntax that [`crate::parse`] reads:
//! whatever is printed parses back to the same tree.
//!
//! The printer walks the tree with an explicit work list instead of
//! recursion, so a sum of 100,000 terms (a left-deep chain of that depth)
//! prints without growing the call stack, and it writes every piece straight
//! into the formatter without intermediate strings.

use crate::expr::{Expr, ExprKind};
use std::fmt;

/// Binding strength, loosest first, as in Python.
fn level(e: &Expr) -> u8 {
    use ExprKind::*;
    match e.kind() {
        Or(..) => 1,
        And(..) => 2,
        Not(..) => 3,
        Cmp(..) => 4,
        Add(..) | Sub(..) => 5,
        Mul(..) | FloorDiv(..) | FloorMod(..) => 6,
        Int(v) if *v < 0 => 7,
        _ => 8,
    }
}

/// One step of the printer: print a sub-expression (in parentheses when it
/// binds looser than its context needs), or print fixed text.
enum Step<'a> {
    Expr(&'a Expr, u8),
    Text(&'static str),
}

/// Writes `v` in decimal without going through the formatting machinery.
fn write_int(f: &mut impl fmt::Write, v: i64) -> fmt::Result {
    let mut buf = [0u8; 20];
    let mut i = buf.len();
    let mut n = v.unsigned_abs();
    loop {
        i -= 1;
        buf[i] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    if v < 0 {
        f.write_str("-")?;
    }
    // Only ASCII digits were written.
    f.write_str(std::str::from_utf8(&buf[i..]).unwrap_or_default())
}

impl fmt::Display for Expr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_expr(f, self)
    }
}

impl Expr {
    /// Appends the printed expression to `out`: what `to_string` gives,
    /// without a string of its own (for writers of many results).
    ///
    /// ```
    /// let mut out = String::from("= ");
    /// arith::parse("x * 4 + 1").unwrap().print_into(&mut out);
    /// assert_eq!(out, "= x * 4 + 1");
    /// ```
    pub fn print_into(&self, out: &mut String) {
        // Writing into a `String` cannot fail.
        let _ = write_expr(out, self);
    }
}

/// Most printed expressions need no more steps than this at once.
const INLINE_STEPS: usize = 32;

fn write_expr(f: &mut impl fmt::Write, e: &Expr) -> fmt::Result {
    {
        use ExprKind::*;
        let mut steps: smallvec::SmallVec<[Step<'_>; INLINE_STEPS]> =
            smallvec::smallvec![Step::Expr(e, 0)];
        while let Some(step) = steps.pop() {
            let (e, min_level) = match step {
                Step::Text(t) => {
                    f.write_str(t)?;
                    continue;
                }
                Step::Expr(e, min_level) => (e, min_level),
            };
            if level(e) < min_level {
                f.write_str("(")?;
                steps.push(Step::Text(")"));
            }
            // Pieces are pushed in reverse order of printing.
            let mut binary = |a, op, b, lv: u8, rv: u8| {
                steps.push(Step::Expr(b, rv));
                steps.push(Step::Text(op));
                steps.push(Step::Expr(a, lv));
            };
            match e.kind() {
                Int(v) => write_int(f, *v)?,
                Bool(true) => f.write_str("True")?,
                Bool(false) => f.write_str("False")?,
                Var(v) => f.write_str(v.name())?,
                // Left-associative operators: the right child binds tighter.
                Add(a, b) => binary(a, " + ", b, 5, 6),
                Sub(a, b) => binary(a, " - ", b, 5, 6),
                Mul(a, b) => binary(a, " * ", b, 6, 7),
                FloorDiv(a, b) => binary(a, " // ", b, 6, 7),
                FloorMod(a, b) => binary(a, " % ", b, 6, 7),
                Cmp(op, a, b) => binary(a, cmp_text(*op), b, 5, 5),
                And(a, b) => binary(a, " and ", b, 2, 3),
                Or(a, b) => binary(a, " or ", b, 1, 2),
                Not(a) => {
                    f.write_str("not ")?;
                    steps.push(Step::Expr(a, 3));
                }
                CeilDiv(a, b) => call(f, &mut steps, "ceildiv(", &[a, b])?,
                Min(a, b) => call(f, &mut steps, "min(", &[a, b])?,
                Max(a, b) => call(f, &mut steps, "max(", &[a, b])?,
                Select(c, a, b) => call(f, &mut steps, "select(", &[c, a, b])?,
            }
        }
        Ok(())
    }
}

/// A comparison operator with the spaces around it.
fn cmp_text(op: crate::CmpOp) -> &'static str {
    use crate::CmpOp::*;
    match op {
        Eq => " == ",
        Ne => " != ",
        Lt => " < ",
        Le => " <= ",
        Gt => " > ",
        Ge => " >= ",
    }
}

/// `name(arg, arg, ...)`: arguments need no parentheses of their own.
fn call<'a>(
    f: &mut impl fmt::Write,
    steps: &mut smallvec::SmallVec<[Step<'a>; INLINE_STEPS]>,
    open: &'static str,
    args: &[&'a Expr],
) -> fmt::Result {
    f.write_str(open)?;
    steps.push(Step::Text(")"));
    for (i, a) in args.iter().enumerate().rev() {
        steps.push(Step::Expr(a, 0));
        if i > 0 {
            steps.push(Step::Text(", "));
        }
    }
    Ok(())
}
