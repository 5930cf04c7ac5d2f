//! `layout`: buffer layout transforms as `rangefinder layout --shape S
//! --map LAMBDA [--index I] --inverse` takes them: random logical shapes
//! (constant and symbolic) and index maps (`//`, `%`, offsets, reorders,
//! fused axes with right or wrong extents, splits that do not divide,
//! `te.AXIS_SEPARATOR`, the odd scaled or reversed index), sometimes
//! mutated. The input is three lines: the shape, the map, and the index.
//!
//! Oracle, by enumeration with every shape symbol bound to small values:
//! every logical index maps inside the transformed and the physical shape;
//! the map is injective; the inverse sends each image back to its logical
//! index with the padding predicate false there, and the predicate is true
//! exactly on the transformed points nothing reaches. A map rejected as
//! not injective must have two colliding indices. Every error on text has
//! a span inside that text.

use super::{Failure, Target};
use crate::mutate::mutate;
use crate::rng::Rng;
use arith::{Expr, Scope, Var};
use layout::{ErrorKind, IndexMap, Layout, LayoutError};
use std::collections::{HashMap, HashSet};
use std::fmt::Write;

/// The layout target.
pub struct LayoutTarget;

/// The most logical or transformed points enumerated per symbol binding;
/// larger layouts are checked on the parts that fit.
const LIMIT: i64 = 20_000;

/// Values the shape symbols take in turn (by position of first use).
const BINDINGS: [[i64; 3]; 2] = [[5, 3, 7], [4, 9, 1]];

const TOKENS: &[&str] = &[
    "lambda",
    ": [",
    "]",
    ", ",
    " // ",
    " % ",
    " + ",
    " * ",
    "(",
    ")",
    "te.AXIS_SEPARATOR",
    "te.AXIS_SEPARATOR, ",
    "N",
    "0",
    "-1",
    "9223372036854775807",
    "ceildiv(",
    "\n",
];

const PARAMS: [&str; 4] = ["a", "b", "c", "d"];
const SYMBOLS: [&str; 3] = ["M", "N", "P"];

/// One transformed source: a logical index or two fused ones, offset.
struct Source {
    text: String,
}

fn generate_case(rng: &mut Rng) -> String {
    let rank = 1 + rng.index(4);
    let symbolic = rng.chance(30);
    let extents: Vec<String> = (0..rank)
        .map(|_| {
            if symbolic && rng.chance(50) {
                rng.pick(&SYMBOLS).to_string()
            } else {
                rng.range(1, 9).to_string()
            }
        })
        .collect();
    let params = &PARAMS[..rank];
    // Sources: every parameter once, neighbours maybe fused.
    let mut sources: Vec<Source> = Vec::new();
    let mut order: Vec<usize> = (0..rank).collect();
    if rng.chance(20) {
        // Reversed parameter order inside the sources.
        order.reverse();
    }
    let mut k = 0;
    while k < order.len() {
        let p = params[order[k]];
        if k + 1 < order.len() && rng.chance(25) {
            let q = params[order[k + 1]];
            // The extent of the inner one; sometimes wrong (a collision or
            // a gap).
            let e = if rng.chance(90) {
                extents[order[k + 1]].clone()
            } else {
                rng.range(1, 6).to_string()
            };
            sources.push(Source {
                text: format!("({p} * {e} + {q})"),
            });
            k += 2;
            continue;
        }
        let text = match rng.below(30) {
            0..=2 => format!("({p} + {})", rng.range(1, 4)),
            3 => format!("({} - 1 - {p})", extents[order[k]]),
            4 => format!("{p} * 2"),
            _ => p.to_string(),
        };
        sources.push(Source { text });
        k += 1;
    }
    // Each source is cut into digits.
    let mut finals: Vec<String> = Vec::new();
    for s in &sources {
        let x = &s.text;
        match rng.below(20) {
            0..=6 => finals.push(x.clone()),
            7..=13 => {
                let f = rng.range(2, 5);
                finals.push(format!("{x} // {f}"));
                finals.push(format!("{x} % {f}"));
            }
            14..=18 => {
                let (a, b) = (rng.range(2, 4), rng.range(2, 4));
                finals.push(format!("{x} // {}", a * b));
                finals.push(format!("{x} // {b} % {a}"));
                finals.push(format!("{x} % {b}"));
            }
            _ => {
                // A digit left out, or one taken twice: not injective, or
                // not a layout.
                let f = rng.range(2, 4);
                finals.push(format!("{x} // {f}"));
                if rng.chance(50) {
                    finals.push(format!("{x} // {f}"));
                }
            }
        }
    }
    // Reorder, and separators between indices.
    for i in (1..finals.len()).rev() {
        if rng.chance(40) {
            let j = rng.index(i + 1);
            finals.swap(i, j);
        }
    }
    let mut body: Vec<String> = Vec::new();
    for (i, f) in finals.iter().enumerate() {
        if i > 0 && rng.chance(20) {
            body.push("te.AXIS_SEPARATOR".into());
        }
        body.push(f.clone());
    }
    if rng.chance(3) {
        body.insert(0, "te.AXIS_SEPARATOR".into());
    }
    let mut out = String::new();
    let shape = extents.join(if rng.chance(50) { "," } else { ", " });
    if rng.chance(30) {
        let _ = writeln!(out, "[{shape}]");
    } else {
        let _ = writeln!(out, "{shape}");
    }
    let _ = writeln!(out, "lambda {}: [{}]", params.join(", "), body.join(", "));
    let index: Vec<String> = extents
        .iter()
        .map(|e| {
            let n = e.parse::<i64>().unwrap_or(3);
            rng.range(0, n).to_string()
        })
        .collect();
    if rng.chance(70) {
        out.push_str(&index.join(","));
    }
    out
}

/// A long, deep or degenerate case: what a hostile input does to a front
/// end.
fn generate_hostile(rng: &mut Rng) -> String {
    let n = [10, 100, 1_000, 10_000][rng.index(4)];
    let params = |k: usize| (0..k).map(|t| format!("a{t}")).collect::<Vec<_>>();
    match rng.below(8) {
        // `n` dimensions of extent 1 or 2.
        0 => {
            let k = n.min(2_000);
            let p = params(k);
            let shape: Vec<&str> = (0..k).map(|t| if t % 7 == 0 { "2" } else { "1" }).collect();
            let mut body = p.clone();
            body.reverse();
            format!(
                "{}\nlambda {}: [{}]",
                shape.join(","),
                p.join(", "),
                body.join(", ")
            )
        }
        // A sum of `n` terms.
        1 => format!("8\nlambda a: [{}]", vec!["a"; n].join(" + ")),
        // Parentheses `n` deep.
        2 => format!("8\nlambda a: [{}a{}]", "(".repeat(n), ")".repeat(n)),
        // `n` separators.
        3 => format!(
            "8\nlambda a: [a // 2, {}a % 2]",
            "te.AXIS_SEPARATOR, ".repeat(n)
        ),
        // Digits of a long chain of splits.
        4 => {
            let k = n.min(60);
            let digits: Vec<String> = (0..k)
                .map(|t| format!("a // {} % 2", 1u64 << t.min(62)))
                .collect();
            format!("1152921504606846976\nlambda a: [{}]", digits.join(", "))
        }
        // Division by zero, negative divisors, negative results.
        5 => format!(
            "{}\nlambda a: [a {} {}]",
            rng.range(1, 9),
            rng.pick(&["//", "%"]),
            rng.pick(&["0", "-2", "-1", "(1 - 1)"])
        ),
        6 => format!("{}\nlambda a: [a - {}]", rng.range(1, 9), rng.range(1, 3)),
        // Extents near 2^63.
        _ => format!(
            "9223372036854775807, {}\nlambda a, b: [b, a]\n9223372036854775806, 0",
            rng.range(1, 3)
        ),
    }
}

impl Target for LayoutTarget {
    fn name(&self) -> &'static str {
        "layout"
    }

    fn extension(&self) -> &'static str {
        "layout"
    }

    fn generate(&self, rng: &mut Rng) -> String {
        if rng.chance(3) {
            return generate_hostile(rng);
        }
        let text = generate_case(rng);
        if rng.chance(25) {
            mutate(&text, TOKENS, rng)
        } else {
            text
        }
    }

    fn check(&self, input: &str) -> Result<bool, Failure> {
        let mut lines = input.split('\n');
        let shape_text = lines.next().unwrap_or("");
        let map_text = lines.next().unwrap_or("");
        let index_text = lines.next().filter(|t| !t.trim().is_empty());
        let mut scope = Scope::new();
        let shape = match layout::parse_shape(shape_text, &mut scope) {
            Ok(s) => s,
            Err(e) => return rejected("--shape", shape_text, &e),
        };
        let map = match IndexMap::parse_with(map_text, &scope) {
            Ok(m) => m,
            Err(e) => return rejected("--map", map_text, &e),
        };
        let symbols = symbols_of(&shape);
        let layout = match Layout::new(shape.clone(), Some(map.clone())) {
            Ok(l) => l,
            Err(e) => {
                if e.kind == ErrorKind::NotInjective && symbols.is_empty() {
                    check_collision(&map, &shape, &e)?;
                }
                return rejected("--map", map_text, &e);
            }
        };
        // What the command prints, for the index given or the symbolic one.
        let symbolic: Vec<Expr> = map.initial_indices().iter().map(|v| v.expr()).collect();
        if let Some(text) = index_text {
            match layout::parse_index(text, &shape) {
                Ok(p) => {
                    let _ = layout::index_beyond_shape(text, &p, &shape);
                    let p: Vec<Expr> = p.into_iter().map(Expr::int).collect();
                    if let Err(e) = layout.physical_index(&p) {
                        // The command points an error of the given index
                        // without a place of its own at the whole index.
                        let e = e.at(Some(0..text.len()));
                        spanned("--index", text, &e)?;
                    }
                }
                Err(e) => spanned("--index", text, &e)?,
            }
        }
        let transformed = layout.transformed_index(&symbolic).map_err(|e| {
            Failure::new(
                "symbolic-index",
                format!("the layout was built but its symbolic index fails: {e}"),
            )
        })?;
        let physical = layout.flatten(&transformed).map_err(|e| {
            Failure::new(
                "symbolic-index",
                format!("the layout was built but flattening its index fails: {e}"),
            )
        })?;
        let _ = (map.to_string(), layout.inverse().map(|m| m.to_string()));
        let bindings: Vec<HashMap<Var, i64>> = if symbols.is_empty() {
            vec![HashMap::new()]
        } else {
            BINDINGS
                .iter()
                .map(|b| symbols.iter().cloned().zip(b.iter().copied()).collect())
                .collect()
        };
        for env in &bindings {
            check_on(
                &layout,
                &map,
                &transformed,
                &physical,
                env,
                layout.logical_shape(),
            )?;
        }
        Ok(true)
    }
}

/// The shape symbols, in order of first use.
fn symbols_of(shape: &[Expr]) -> Vec<Var> {
    let mut out: Vec<Var> = Vec::new();
    for e in shape {
        e.for_each_var(&mut |v| {
            if !out.contains(v) {
                out.push(v.clone());
            }
        });
    }
    out
}

/// A rejection: fine when its span (if any) lies inside the text; syntax
/// and name errors must have one.
fn rejected(arg: &str, text: &str, e: &LayoutError) -> Result<bool, Failure> {
    spanned(arg, text, e)?;
    Ok(false)
}

fn spanned(arg: &str, text: &str, e: &LayoutError) -> Result<(), Failure> {
    match &e.span {
        Some(s) if s.start > s.end || s.end > text.len() => Err(Failure::new(
            "span",
            format!(
                "`{arg}` error `{}` has span {s:?} outside the {}-byte text",
                e.message,
                text.len()
            ),
        )),
        Some(s) if !text.is_char_boundary(s.start) || !text.is_char_boundary(s.end) => {
            Err(Failure::new(
                "span",
                format!(
                    "`{arg}` error `{}` has span {s:?} inside a character",
                    e.message
                ),
            ))
        }
        None => Err(Failure::new(
            "no-span",
            format!("`{arg}` error without a span: {}", e.message),
        )),
        _ => Ok(()),
    }
}

/// For a constant shape rejected as not injective: two logical indices
/// with one image must exist (points where the map has no value are left
/// out).
fn check_collision(map: &IndexMap, shape: &[Expr], e: &LayoutError) -> Result<(), Failure> {
    let Some(dims) = shape.iter().map(Expr::as_int).collect::<Option<Vec<i64>>>() else {
        return Ok(());
    };
    if points(&dims).is_none_or(|n| n > LIMIT) {
        return Ok(());
    }
    let mut seen = HashSet::new();
    let mut collision = false;
    layout::for_each_point(&dims, |p| {
        if let Ok(t) = map.map_point(p) {
            collision |= !seen.insert(t);
        }
    });
    if collision {
        Ok(())
    } else {
        Err(Failure::new(
            "false-collision",
            format!(
                "rejected as not injective ({}), but no two indices collide",
                e.message
            ),
        ))
    }
}

/// The number of points of `dims`, if it fits.
fn points(dims: &[i64]) -> Option<i64> {
    dims.iter().try_fold(1i64, |n, &d| n.checked_mul(d.max(0)))
}

/// Positions of index variables, by variable (a search of the list per
/// occurrence is quadratic on maps of thousands of indices).
type Vars = HashMap<Var, usize>;

fn positions(vars: &[Var]) -> Vars {
    vars.iter()
        .enumerate()
        .map(|(k, v)| (v.clone(), k))
        .collect()
}

/// Evaluates `e` at `point` of `vars`, the symbols bound by `env`.
fn eval(e: &Expr, vars: &Vars, point: &[i64], env: &HashMap<Var, i64>) -> Result<i64, String> {
    e.eval(&|v: &Var| {
        vars.get(v)
            .map(|&k| point[k])
            .or_else(|| env.get(v).copied())
    })
    .map_err(|x| format!("`{e}` has no value: {}", x.message))
}

fn eval_all(
    es: &[Expr],
    vars: &Vars,
    point: &[i64],
    env: &HashMap<Var, i64>,
) -> Result<Vec<i64>, String> {
    es.iter().map(|e| eval(e, vars, point, env)).collect()
}

/// The values of a shape under `env`: `None` when a symbolic extent
/// overflows with these values (it may well fit with others).
fn eval_shape(
    what: &str,
    es: &[Expr],
    env: &HashMap<Var, i64>,
) -> Result<Option<Vec<i64>>, Failure> {
    let dims = match eval_all(es, &Vars::new(), &[], env) {
        Ok(d) => d,
        Err(_) if !env.is_empty() => return Ok(None),
        Err(m) => return Err(Failure::new("shape", format!("{what}: {m}"))),
    };
    if let Some(d) = dims.iter().find(|&&d| d < 1) {
        return Err(Failure::new(
            "shape",
            format!("{what} {dims:?} has the extent {d} with {}", show_env(env)),
        ));
    }
    Ok(Some(dims))
}

fn show_env(env: &HashMap<Var, i64>) -> String {
    let mut s: Vec<String> = env
        .iter()
        .map(|(v, x)| format!("{} = {x}", v.name()))
        .collect();
    s.sort();
    if s.is_empty() {
        "constant sizes".into()
    } else {
        s.join(", ")
    }
}

/// The enumeration oracle under one binding of the shape symbols.
fn check_on(
    l: &Layout,
    map: &IndexMap,
    transformed: &[Expr],
    physical: &[Expr],
    env: &HashMap<Var, i64>,
    logical_shape: &[Expr],
) -> Result<(), Failure> {
    // A symbolic logical extent below 1 under these sizes (`-M` with
    // `M = 5`) is the input's own doing: the layout has no points there.
    let given = eval_all(logical_shape, &Vars::new(), &[], env).ok();
    if !env.is_empty() && given.is_some_and(|d| d.iter().any(|&d| d < 1)) {
        return Ok(());
    }
    let (Some(logical), Some(tshape), Some(pshape)) = (
        eval_shape("the logical shape", logical_shape, env)?,
        eval_shape("the transformed shape", l.transformed_shape(), env)?,
        eval_shape("the physical shape", l.physical_shape(), env)?,
    ) else {
        return Ok(());
    };
    let (Some(n), Some(tn)) = (points(&logical), points(&tshape)) else {
        return Ok(());
    };
    if n > LIMIT {
        return Ok(());
    }
    let at = show_env(env);
    let vars = &positions(map.initial_indices());
    let inverse = l.inverse();
    let inv_vars = &positions(inverse.map(|m| m.initial_indices()).unwrap_or_default());
    let padding = l.padding_predicate();
    let mut image: HashSet<Vec<i64>> = HashSet::new();
    let mut phys_seen: HashSet<Vec<i64>> = HashSet::new();
    let mut failure: Option<Failure> = None;
    layout::for_each_point(&logical, |p| {
        if failure.is_some() {
            return;
        }
        let fail = |class: &str, m: String| Some(Failure::new(class, format!("{m} ({at})")));
        let t = match eval_all(transformed, vars, p, env) {
            Ok(t) => t,
            Err(m) => {
                failure = fail("undefined", format!("logical index {p:?}: {m}"));
                return;
            }
        };
        if t.iter().zip(&tshape).any(|(x, n)| *x < 0 || x >= n) {
            failure = fail(
                "outside",
                format!(
                    "logical index {p:?} maps to {t:?}, outside the transformed shape {tshape:?}"
                ),
            );
            return;
        }
        if !image.insert(t.clone()) {
            failure = fail(
                "not-injective",
                format!("the layout was accepted but two logical indices map to {t:?}, one of them {p:?}"),
            );
            return;
        }
        match eval_all(physical, vars, p, env) {
            Ok(x) if x.iter().zip(&pshape).any(|(x, n)| *x < 0 || x >= n) => {
                failure = fail(
                    "outside",
                    format!(
                        "logical index {p:?} is at {x:?}, outside the physical shape {pshape:?}"
                    ),
                );
                return;
            }
            Ok(x) => {
                if !phys_seen.insert(x.clone()) {
                    failure = fail(
                        "not-injective",
                        format!(
                            "two logical indices share the physical index {x:?}, one of them {p:?}"
                        ),
                    );
                    return;
                }
            }
            Err(m) => {
                failure = fail("undefined", format!("physical index of {p:?}: {m}"));
                return;
            }
        }
        if let Some(inv) = inverse {
            match eval_all(inv.final_indices(), inv_vars, &t, env) {
                Ok(back) if back == p => {}
                Ok(back) => {
                    failure = fail(
                        "inverse",
                        format!("{p:?} maps to {t:?}, which the inverse `{inv}` sends to {back:?}"),
                    );
                    return;
                }
                Err(m) => {
                    failure = fail("inverse", format!("inverse at {t:?}: {m}"));
                    return;
                }
            }
        }
        if let Some(pad) = padding {
            match eval(pad, inv_vars, &t, env) {
                Ok(0) => {}
                Ok(_) => {
                    failure = fail(
                        "padding",
                        format!("the padding predicate `{pad}` holds at {t:?}, the image of {p:?}"),
                    )
                }
                Err(m) => failure = fail("padding", format!("at {t:?}: {m}")),
            }
        }
    });
    if let Some(f) = failure {
        return Err(f);
    }
    if l.is_bijective() != (image.len() as i64 == tn) && env.is_empty() {
        return Err(Failure::new(
            "padding",
            format!(
                "bijective is {} but {} of {tn} transformed points are reached",
                l.is_bijective(),
                image.len()
            ),
        ));
    }
    // Unreached transformed points are exactly where the predicate holds.
    if tn <= LIMIT && image.len() as i64 != tn {
        let Some(pad) = padding else {
            return Err(Failure::new(
                "padding",
                format!(
                    "{} of {tn} transformed points are reached but there is no padding predicate ({at})",
                    image.len()
                ),
            ));
        };
        let mut failure = None;
        layout::for_each_point(&tshape, |t| {
            if failure.is_some() || image.contains(t) {
                return;
            }
            match eval(pad, inv_vars, t, env) {
                Ok(0) => {
                    failure = Some(Failure::new(
                        "padding",
                        format!("no logical index reaches {t:?} but the padding predicate `{pad}` is false there ({at})"),
                    ))
                }
                Ok(_) => {}
                Err(m) => failure = Some(Failure::new("padding", format!("at {t:?}: {m} ({at})"))),
            }
        });
        if let Some(f) = failure {
            return Err(f);
        }
    }
    Ok(())
}
