//! Pictures of Tensor Comprehensions range inference (seed 004): each index
//! variable's inferred range on a number line, with one bar per access (or
//! `where` clause) that bounds it, showing the bound that access alone
//! imposes. The accesses that decided an end of the range are filled and
//! outlined, and the round of inference that decided the variable is said.
//!
//! Ends are drawn at the values the given sizes make them; without a value
//! for a size, the bounds are written out symbolically instead.

use crate::number_line::{Bar, NumberLine};
use crate::palette::{Fill, Role};
use crate::panel::{render, Column, Legend, LegendEntry, Text};
use crate::svg::{Drawing, TextStyle};
use arith::{Expr, Var};
use std::collections::HashMap;
use tc::{AccessBound, VarRange};

/// The value of `e` under `sizes`, when every symbol has one.
fn value(e: &Expr, sizes: &HashMap<String, i64>) -> Option<i64> {
    e.eval(&|v: &Var| sizes.get(v.name()).copied()).ok()
}

/// `[lower, upper)` as text, `-inf`/`+inf` for a missing side.
fn bound_text(lower: Option<&Expr>, upper: Option<&Expr>) -> String {
    let end = |e: Option<&Expr>, inf: &str| e.map_or(inf.to_string(), ToString::to_string);
    format!("[{}, {})", end(lower, "-inf"), end(upper, "+inf"))
}

/// What a bar's note says about the ends a bound decides.
fn decides_text(lower: bool, upper: bool) -> &'static str {
    match (lower, upper) {
        (true, true) => "decides both ends",
        (true, false) => "decides the lower end",
        (false, true) => "decides the upper end",
        (false, false) => "",
    }
}

/// The access of `b` as written in `source` (its span), or its own text
/// for a `where` clause or a span outside the source.
fn written(source: &str, b: &AccessBound) -> String {
    if b.access.starts_with("where ") {
        return b.access.clone();
    }
    source.get(b.span.range()).map_or_else(
        || b.access.clone(),
        |s| s.split_whitespace().collect::<Vec<_>>().join(" "),
    )
}

/// The part of the picture for one variable: a heading and its number line
/// (or, without values for its sizes, the bounds as text).
fn variable(page: &mut Column, id: &str, source: &str, r: &VarRange, sizes: &HashMap<String, i64>) {
    let when = match r.round {
        Some(k) => format!("decided in round {k}"),
        None => "given by a where clause".to_string(),
    };
    let range = format!("{} <= {} < {}", r.lower, r.name, r.upper);
    let deciding = r.deciding_under(sizes);
    let (lo, hi) = (value(&r.lower, sizes), value(&r.upper, sizes));
    let numeric = match (lo, hi) {
        (Some(a), Some(b)) => Some((a, b)),
        _ => None,
    };
    let mut heading = format!("{range}   ({when})");
    if let Some((a, b)) = numeric {
        if range != format!("{a} <= {} < {b}", r.name) {
            heading.push_str(&format!("   = [{a}, {b})"));
        }
    }
    page.push(Text::new(
        &heading,
        TextStyle {
            bold: true,
            ..TextStyle::BODY
        },
    ));
    let Some((a, b)) = numeric else {
        // No values: the bounds as text, the deciding ones in bold.
        for (bound, (dl, du)) in r.bounds.iter().zip(&deciding) {
            let line = format!(
                "  {}: {}  {}",
                written(source, bound),
                bound_text(bound.lower.as_ref(), bound.upper.as_ref()),
                decides_text(*dl, *du)
            );
            let style = TextStyle {
                bold: *dl || *du,
                ..TextStyle::LABEL
            };
            page.push(Text::new(line.trim_end(), style));
        }
        return;
    };
    // The axis covers the range and every finite end of a bound.
    let mut span = (a.min(b - 1), a.max(b - 1));
    for bound in &r.bounds {
        for v in [
            bound.lower.as_ref().and_then(|e| value(e, sizes)),
            bound
                .upper
                .as_ref()
                .and_then(|e| value(e, sizes))
                .map(|u| u - 1),
        ]
        .into_iter()
        .flatten()
        {
            span = (span.0.min(v), span.1.max(v));
        }
    }
    let mut bars = vec![Bar {
        label: r.name.clone(),
        interval: (a < b).then_some((a, b - 1)),
        fill: Role::Needed.fill(),
        note: if a < b {
            format!("[{a}, {b})")
        } else {
            format!("[{a}, {b}): empty")
        },
        emphasised: false,
    }];
    for (bound, (dl, du)) in r.bounds.iter().zip(&deciding) {
        let l = bound.lower.as_ref().map(|e| value(e, sizes));
        let u = bound.upper.as_ref().map(|e| value(e, sizes));
        let text = bound_text(bound.lower.as_ref(), bound.upper.as_ref());
        // A side that does not evaluate is written out; an open side runs
        // to the edge of the axis.
        let interval = match (l, u) {
            (Some(None), _) | (_, Some(None)) => None,
            (l, u) => {
                let from = l.flatten().unwrap_or(span.0);
                let to = u.flatten().map_or(span.1, |x| x - 1);
                (from <= to).then_some((from, to))
            }
        };
        let decides = *dl || *du;
        let mut note = text;
        if decides {
            note.push_str(&format!("  {}", decides_text(*dl, *du)));
        }
        bars.push(Bar {
            label: written(source, bound),
            interval,
            fill: if decides {
                Role::Selected.fill()
            } else {
                Role::Plain.fill()
            },
            note,
            emphasised: decides,
        });
    }
    page.push(NumberLine::new(id, bars, Some(span)));
}

/// The picture of range inference over `source` (its analysis by
/// [`tc::analyze`]), with `sizes` giving values to size symbols. Number
/// lines have the anchors `DEF/S/VAR:K` (bar `K` of variable `VAR` of
/// statement `S`, from 0, of definition `DEF`; bar 0 is the inferred
/// range, then one per bound), with `:lo` and `:hi` at the bar's ends.
pub fn tc_picture(source: &str, analysis: &tc::Analysis, sizes: &HashMap<String, i64>) -> Drawing {
    let mut page = Column::new(8.0);
    page.push(Text::title(
        "Tensor Comprehensions: inferred ranges and the accesses that bound them",
    ));
    let mut given: Vec<String> = sizes.iter().map(|(n, v)| format!("{n} = {v}")).collect();
    given.sort();
    page.push(Text::body(&if given.is_empty() {
        "no sizes given (--size NAME=VALUE): bounds are written out symbolically".to_string()
    } else {
        format!("sizes: {}", given.join(", "))
    }));
    if let Some(e) = &analysis.syntax_error {
        page.push(Text::body(&format!("syntax error: {}", e.message)));
    }
    for def in &analysis.defs {
        page.push(Text::title(&format!("def {}", def.name)));
        let several = def.stmts.len() > 1;
        for (si, st) in def.stmts.iter().enumerate() {
            if several {
                page.push(Text::body(&format!("statement {} ({})", si + 1, st.tensor)));
            }
            for r in &st.ranges {
                variable(
                    &mut page,
                    &format!("{}/{si}/{}", def.name, r.name),
                    source,
                    r,
                    sizes,
                );
            }
            if st.ranges.is_empty() || !st.ok {
                if let Some(d) = def
                    .diagnostics
                    .iter()
                    .find(|d| d.severity == tc::Severity::Error)
                {
                    page.push(Text::body(&format!("error: {}", d.message)));
                }
            }
        }
    }
    page.push(Legend::new(vec![
        LegendEntry::role_as(Role::Needed, "inferred range"),
        LegendEntry::role_as(Role::Selected, "the bound that decided an end"),
        LegendEntry {
            fill: Fill::Solid(crate::palette::Color::BACKGROUND),
            label: "the bound another access imposes".to_string(),
        },
    ]));
    render(&page)
}
