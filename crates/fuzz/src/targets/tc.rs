//! `tc`: Tensor Comprehensions sources as `rangefinder tc --run` takes
//! them: one or more definitions of chained statements (pointwise, `+=!`,
//! `max=!`, `min=!`, `*=!` reductions, `+=` updates, index offsets,
//! strides and reversals, reduction variables from kernels or `where`
//! ranges, `where` ranges on output variables, constant and symbolic
//! sizes, integer tensors, gathers through index tensors, clamped or
//! not), sometimes mutated, and hostile ones: long flat
//! chains, many statements or definitions, deep nesting. The sizes the run
//! binds are in a leading comment (`# sizes: N=5 M=3`); a size it does not
//! name is 5.
//!
//! Oracle (for generated, unmutated sources that the front end accepts):
//! `tc::report` with a run, as the command does, lowers each definition to
//! `te`, runs it on random inputs and compares it with direct evaluation,
//! with every read checked; and each inferred range is the one TC's
//! inference gives, the largest that stays in bounds: widened by one at
//! either end (ranges from `where` clauses aside), direct evaluation reads
//! out of bounds. For every source: each diagnostic's span lies inside the
//! source.

use super::{Failure, Target};
use crate::mutate::mutate;
use crate::rng::Rng;
use std::collections::HashMap;
use std::fmt::Write;
use tc::ast::{AssignOp, Dim};
use tc::eval::Buffer;
use tc::{DefAnalysis, Severity};

/// The TC target.
pub struct TcTarget;

/// The first line of a mutated source: for those only crashes, hangs and
/// bad spans count.
const MUTATED: &str = "# mutated\n";

/// The first line of a hostile source (long, many, deep): the run is
/// checked, the ranges are not widened (too slow for the gain), and a
/// right-hand side too deep to lower to `te` may run by direct evaluation
/// alone.
const HOSTILE: &str = "# hostile\n";

/// The value of a size the sizes comment does not name (2 in hostile
/// sources).
const DEFAULT_SIZE: i64 = 5;

const TOKENS: &[&str] = &[
    "def ",
    "(",
    ")",
    "{",
    "}",
    "+=!",
    "max=!",
    " = ",
    "+=",
    " where ",
    " in ",
    "0:3",
    "exists ",
    ", ",
    " + ",
    " * ",
    "2*",
    "-",
    "i",
    "r_k",
    "N",
    "float(N, M)",
    "int32",
    "->",
    "?",
    " : ",
    ";",
    "\n",
    "1e40",
    "9223372036854775807",
];

const SYMBOLS: [&str; 3] = ["N", "M", "L"];
const LHS: [&str; 2] = ["i", "j"];
const RED: [&str; 2] = ["r_k", "r_l"];

/// A tensor a statement may read.
#[derive(Clone)]
struct Readable {
    name: String,
}

/// One extent: a constant or a size symbol.
fn extent(rng: &mut Rng, symbolic: bool) -> String {
    if symbolic && rng.chance(60) {
        rng.pick(&SYMBOLS).to_string()
    } else {
        rng.range(3, 12).to_string()
    }
}

/// An index for dimension `d` of a read: `coef * v + red + konst`.
fn index(rng: &mut Rng, v: &str, red: Option<&str>) -> String {
    let mut s = match rng.below(8) {
        0 => format!("2*{v}"),
        1 => format!("3 * {v}"),
        2 => format!("-{v}"),
        _ => v.to_string(),
    };
    if let Some(r) = red {
        if rng.chance(80) {
            s = format!("{s} + {r}");
        } else {
            s = format!("{s} + 2*{r}");
        }
    }
    match rng.below(5) {
        0 => s = format!("{s} + {}", rng.range(1, 2)),
        1 => s = format!("{s} - 1"),
        _ => {}
    }
    if s.starts_with('-') && rng.chance(70) {
        // Reversed: `c - v`.
        s = format!("{} {s}", rng.range(4, 9));
    }
    s
}

fn generate_def(rng: &mut Rng, name: &str, out: &mut String, sizes: &mut HashMap<String, i64>) {
    let symbolic = rng.chance(60);
    let rank = 1 + rng.index(2);
    let int = rng.chance(12);
    let elem = if int {
        "int32"
    } else {
        *rng.pick(&["float", "float", "float32", "double"])
    };
    let mut params: Vec<String> = Vec::new();
    let mut readable: Vec<Readable> = Vec::new();
    let mut a_dims: Vec<String> = Vec::new();
    for t in ["A", "B"].iter().take(1 + rng.index(2)) {
        let dims: Vec<String> = (0..rank).map(|_| extent(rng, symbolic)).collect();
        if a_dims.is_empty() {
            a_dims = dims.clone();
        }
        params.push(format!("{elem}({}) {t}", dims.join(", ")));
        readable.push(Readable {
            name: t.to_string(),
        });
    }
    for s in SYMBOLS {
        if symbolic {
            sizes
                .entry(s.to_string())
                .or_insert_with(|| rng.range(3, 10));
        }
    }
    let scalar = rng.chance(15);
    if scalar {
        params.push(format!("{elem} c"));
    }
    let mut kernels: Vec<String> = Vec::new();
    let mut outputs: Vec<String> = Vec::new();
    let mut stmts: Vec<String> = Vec::new();
    let n_stmts = 1 + rng.index(4);
    for s in 0..n_stmts {
        let out_name = if s + 1 == n_stmts {
            "O".to_string()
        } else {
            format!("T{s}")
        };
        let lhs = &LHS[..rank];
        // Reduction variables: from a kernel or from a `where` range.
        let mut wheres: Vec<String> = Vec::new();
        let mut factors: Vec<String> = Vec::new();
        let mut reds: Vec<Option<&str>> = vec![None; rank];
        for d in 0..rank {
            if rng.chance(30) {
                let r = RED[d];
                reds[d] = Some(r);
                if rng.chance(50) {
                    let k = format!("K{}", kernels.len());
                    let e = extent(rng, symbolic);
                    params.push(format!("{elem}({e}) {k}"));
                    kernels.push(k.clone());
                    factors.push(format!("{k}({r})"));
                } else {
                    wheres.push(format!("{r} in 0:{}", rng.range(1, 3)));
                }
            }
        }
        for (d, v) in lhs.iter().enumerate() {
            if rng.chance(8) {
                let lo = rng.range(-1, 2);
                wheres.push(format!("{v} in {lo}:{}", lo + rng.range(0, 5)));
            } else if d == 0 && rng.chance(4) && !symbolic {
                wheres.push(format!("exists {}({})", readable[0].name, lhs.join(", ")));
            }
        }
        let n_reads = 1 + rng.index(3);
        for k in 0..n_reads {
            let src = rng.pick(&readable).clone();
            let idx: Vec<String> = (0..rank)
                .map(|d| {
                    // Every reduction variable appears in the first read.
                    let red = reds[d].filter(|_| k == 0 || rng.chance(50));
                    index(rng, lhs[d], red)
                })
                .collect();
            factors.push(format!("{}({})", src.name, idx.join(", ")));
        }
        if rank == 1 && rng.chance(10) {
            // A gather through an index tensor, clamped into `A` (in
            // bounds whatever its values) or not (its random values are
            // drawn inside `A`, as the data-dependent note asks).
            let g = format!("G{}", kernels.len());
            params.push(format!("int32({}) {g}", extent(rng, symbolic)));
            kernels.push(g.clone());
            let a0 = &readable[0].name;
            factors.push(if rng.chance(50) {
                format!("{a0}(max(min({g}({}), {} - 1), 0))", lhs[0], a_dims[0])
            } else {
                format!("{a0}({g}({}))", lhs[0])
            });
        }
        let any_red = reds.iter().any(Option::is_some);
        let join = if rng.chance(60) { " * " } else { " + " };
        let mut rhs = factors.join(join);
        match rng.below(12) {
            0 if !int => rhs = format!("exp({rhs})"),
            1 => rhs = format!("max({rhs}, 0)"),
            2 if !int => rhs = format!("{rhs} > 0 ? {rhs} : 0.5"),
            3 if scalar => rhs = format!("{rhs} * c"),
            4 => rhs = format!("({rhs}) / 2"),
            5 => rhs = format!("{rhs} - {}", rng.pick(lhs)),
            _ => {}
        }
        let op = if any_red {
            *rng.pick(&["+=!", "+=!", "max=!", "min=!", "*=!"])
        } else {
            "="
        };
        let w = if wheres.is_empty() {
            String::new()
        } else {
            format!(" where {}", wheres.join(", "))
        };
        stmts.push(format!("{out_name}({}) {op} {rhs}{w}", lhs.join(", ")));
        // An update of the same tensor, sometimes.
        if rng.chance(15) {
            let src = rng.pick(&readable).clone();
            let at = lhs.join(", ");
            let upd = match rng.below(3) {
                0 => format!("{out_name}({at}) = {out_name}({at}) + {}({at})", src.name),
                1 => format!("{out_name}({at}) += {}({at})", src.name),
                _ => format!("{out_name}({at}) max= {}({at})", src.name),
            };
            stmts.push(upd);
        }
        outputs.push(out_name.clone());
        readable.push(Readable { name: out_name });
    }
    let sep = if rng.chance(50) { "\n    " } else { " " };
    let _ = writeln!(
        out,
        "def {name}({}) -> ({}) {{{sep}{}\n}}",
        params.join(", "),
        outputs.join(", "),
        stmts.join(sep)
    );
}

/// A long, many-part or deeply nested source: the things a hostile input
/// does to a front end.
fn generate_hostile(rng: &mut Rng) -> String {
    let n = [100, 1_000, 5_000, 20_000][rng.index(4)];
    match rng.below(11) {
        // A chain of lets, each naming the one before.
        7 => {
            let k = (n / 10).max(2);
            let mut w = vec!["v0 = A(i)".to_string()];
            w.extend((1..k).map(|t| format!("v{t} = v{} + 1.0", t - 1)));
            format!(
                "def f(float(N) A) -> (O) {{ O(i) = v{} where {} }}",
                k - 1,
                w.join(", ")
            )
        }
        // Unary minus `n` deep.
        8 => format!(
            "def f(float(N) A) -> (O) {{ O(i) = {}A(i) }}",
            "-".repeat(n)
        ),
        // A tensor of `n / 10` dimensions.
        9 => {
            let k = (n / 10).max(2);
            let dims = vec!["N"; k].join(", ");
            let idx: Vec<String> = (0..k).map(|t| format!("i{t}")).collect();
            format!(
                "def f(float({dims}) A) -> (O) {{ O({}) = A({}) }}",
                idx.join(", "),
                idx.join(", ")
            )
        }
        // A product of `n` reads reduced over a `where` range.
        10 => format!(
            "def f(float(N) A) -> (O) {{ O(i) +=! {} where r in 0:2 }}",
            vec!["A(i + r)"; n].join(" * ")
        ),
        // A sum of `n` reads.
        0 => format!(
            "def f(float(N) A) -> (O) {{ O(i) = {} }}",
            vec!["A(i)"; n].join(" + ")
        ),
        // An index of `n` terms.
        1 => format!(
            "def f(float(N) A) -> (O) {{ O(i) = A(i{}) }}",
            " + 0".repeat(n)
        ),
        // A chain of `n / 10` statements.
        2 => {
            let k = (n / 10).max(2);
            let mut s = String::from("def f(float(N) A) -> (");
            let names: Vec<String> = (0..k).map(|t| format!("T{t}")).collect();
            s.push_str(&names.join(", "));
            s.push_str(") {\n  T0(i) = A(i)\n");
            for t in 1..k {
                let _ = writeln!(s, "  T{t}(i) = T{}(i) + 1.0", t - 1);
            }
            s.push('}');
            s
        }
        // `n / 10` definitions.
        3 => (0..(n / 10).max(2))
            .map(|k| {
                format!("def f{k}(float(N) A) -> (O) {{ O(i) +=! A(i + r) where r in 0:2 }}\n")
            })
            .collect(),
        // Deep parentheses.
        4 => format!(
            "def f(float(N) A) -> (O) {{ O(i) = {}A(i){} }}",
            "(".repeat(n),
            ")".repeat(n)
        ),
        // A deep index.
        5 => format!(
            "def f(float(N) A) -> (O) {{ O(i) = A({}i{}) }}",
            "(".repeat(n / 10),
            ")".repeat(n / 10)
        ),
        // A long `where` list.
        _ => {
            let w: Vec<String> = (0..n / 10).map(|k| format!("v{k} = A(i)")).collect();
            format!(
                "def f(float(N) A) -> (O) {{ O(i) = A(i) where {} }}",
                w.join(", ")
            )
        }
    }
}

fn generate_source(rng: &mut Rng) -> String {
    let mut body = String::new();
    let mut sizes: HashMap<String, i64> = HashMap::new();
    let defs = 1 + rng.below(3).saturating_sub(1);
    for d in 0..defs {
        generate_def(rng, &format!("f{d}"), &mut body, &mut sizes);
    }
    let mut named: Vec<String> = sizes.iter().map(|(n, v)| format!("{n}={v}")).collect();
    named.sort();
    format!("# sizes: {}\n{body}", named.join(" "))
}

/// The sizes the leading comment names.
fn sizes_of(input: &str) -> HashMap<String, i64> {
    let mut out = HashMap::new();
    for line in input.lines().take(3) {
        let Some(rest) = line.strip_prefix("# sizes:") else {
            continue;
        };
        for item in rest.split_whitespace() {
            if let Some((n, v)) = item.split_once('=') {
                if let Ok(v) = v.parse::<i64>() {
                    if (0..=64).contains(&v) {
                        out.insert(n.to_string(), v);
                    }
                }
            }
        }
    }
    out
}

impl Target for TcTarget {
    fn name(&self) -> &'static str {
        "tc"
    }

    fn extension(&self) -> &'static str {
        "tc"
    }

    fn generate(&self, rng: &mut Rng) -> String {
        if rng.chance(3) {
            return format!("{HOSTILE}{}", generate_hostile(rng));
        }
        let source = generate_source(rng);
        if rng.chance(25) {
            format!("{MUTATED}{}", mutate(&source, TOKENS, rng))
        } else {
            source
        }
    }

    fn check(&self, input: &str) -> Result<bool, Failure> {
        let mut sizes = sizes_of(input);
        let analysis = tc::analyze(input);
        // Hostile tensors may have thousands of dimensions: size 2 keeps a
        // run of ten of them small (and more are refused by the element
        // limit at once).
        let default = if input.starts_with(HOSTILE) {
            2
        } else {
            DEFAULT_SIZE
        };
        for def in &analysis.defs {
            for (n, _) in &def.sizes {
                sizes.entry(n.clone()).or_insert(default);
            }
        }
        let options = tc::ReportOptions {
            sizes,
            run: true,
            seed: 1,
        };
        let report = tc::report(input, &options);
        let all = report
            .analysis
            .syntax_error
            .iter()
            .chain(report.defs.iter().flat_map(|d| &d.diagnostics));
        for d in all {
            let s = d.span;
            if s.start > s.end
                || s.end > input.len()
                || !input.is_char_boundary(s.start)
                || !input.is_char_boundary(s.end)
            {
                return Err(Failure::new(
                    "span",
                    format!(
                        "diagnostic `{}` has span {}..{}, not inside the {}-byte source",
                        d.message,
                        s.start,
                        s.end,
                        input.len()
                    ),
                ));
            }
            if d.message.is_empty() {
                return Err(Failure::new("span", "a diagnostic without a message"));
            }
        }
        let _ = report.to_json(input);
        if report.analysis.syntax_error.is_some() {
            return Ok(false);
        }
        let mutated = input.starts_with(MUTATED);
        let mut accepted = !report.defs.is_empty();
        for ((def, ast), r) in report
            .analysis
            .defs
            .iter()
            .zip(&report.analysis.program.defs)
            .zip(&report.defs)
        {
            if r.diagnostics.iter().any(|d| d.severity == Severity::Error) {
                accepted = false;
                continue;
            }
            let Some(run) = &r.run else {
                accepted = false;
                continue;
            };
            if mutated {
                continue;
            }
            // A right-hand side nested deeper than the lowering's limit
            // (a sum of thousands of reads) is run by direct evaluation
            // alone, with the reason given: an open limitation of the
            // lowering, not a wrong answer.
            // Sizes that empty a range leave the lowered program out too
            // (it takes ranges to be non-empty), with that reason.
            let hostile = input.starts_with(HOSTILE);
            if let Some(why) = run
                .not_lowered
                .as_ref()
                .filter(|why| !hostile && !why.contains("has an empty range with these sizes"))
            {
                return Err(Failure::new(
                    "not-lowered",
                    format!("`{}` was not lowered to te: {why}", def.name),
                ));
            }
            if run.out_of_bounds > 0 {
                return Err(Failure::new(
                    "out-of-bounds",
                    format!(
                        "`{}`: {} reads outside their tensor, e.g. {}",
                        def.name,
                        run.out_of_bounds,
                        run.violations.first().cloned().unwrap_or_default()
                    ),
                ));
            }
            if run.max_scaled_error > tc::TOLERANCE {
                return Err(Failure::new(
                    "mismatch",
                    format!(
                        "`{}`: the lowered program differs from direct evaluation by {} ({} relative to the value)",
                        def.name, run.max_abs_error, run.max_scaled_error
                    ),
                ));
            }
            if !hostile {
                check_ranges_maximal(ast, def, &options.sizes)?;
            }
        }
        Ok(accepted)
    }
}

/// Every inferred range not given by a `where` clause is the largest in
/// bounds: widened by one at either end, direct evaluation reads out of
/// bounds (statements with an empty range are left out: they read
/// nothing).
fn check_ranges_maximal(
    ast: &tc::ast::Def,
    def: &DefAnalysis,
    sizes: &HashMap<String, i64>,
) -> Result<(), Failure> {
    // `exists` clauses give ranges without a read.
    let exists = |s: &tc::ast::Stmt| {
        s.wheres
            .iter()
            .any(|w| matches!(w, tc::ast::WhereClause::Exists { .. }))
    };
    if ast.stmts.iter().any(exists) {
        return Ok(());
    }
    let env: HashMap<arith::Var, i64> = def
        .sizes
        .iter()
        .filter_map(|(n, v)| sizes.get(n).map(|x| (v.clone(), *x)))
        .collect();
    let ev = |e: &arith::Expr| e.eval(&|v: &arith::Var| env.get(v).copied()).ok();
    let dim = |d: &Dim| match d {
        Dim::Const(v, _) => Some(*v),
        Dim::Size(s) => sizes.get(&s.name).copied(),
    };
    let mut inputs: HashMap<String, Buffer> = HashMap::new();
    for p in &ast.params {
        let Some(ty) = &p.ty else { continue };
        let Some(shape) = ty.dims.iter().map(dim).collect::<Option<Vec<i64>>>() else {
            return Ok(());
        };
        let Ok(b) = Buffer::filled(vec![0; shape.len()], shape, 1.0) else {
            return Ok(());
        };
        inputs.insert(p.name.name.clone(), b);
    }
    // Current values of tensors updated before any definition: the
    // statement's own (unwidened) box.
    let mut existing: HashMap<String, Buffer> = HashMap::new();
    let mut defined: Vec<&str> = Vec::new();
    for (si, s) in ast.stmts.iter().enumerate() {
        if matches!(s.op, AssignOp::Reduce { init: false, .. })
            && !defined.contains(&s.lhs.name.as_str())
        {
            let mut lower = Vec::new();
            let mut shape = Vec::new();
            for ix in &s.indices {
                let Some(r) = def.stmts[si].ranges.iter().find(|r| r.name == ix.name) else {
                    return Ok(());
                };
                let (Some(lo), Some(hi)) = (ev(&r.lower), ev(&r.upper)) else {
                    return Ok(());
                };
                lower.push(lo);
                shape.push((hi - lo).max(0));
            }
            let Ok(mut b) = Buffer::filled(lower.clone(), shape, 1.0) else {
                return Ok(());
            };
            b.lower = lower;
            existing.insert(s.lhs.name.clone(), b);
        }
        defined.push(s.lhs.name.as_str());
    }
    for (si, st) in def.stmts.iter().enumerate() {
        let values: Option<Vec<(i64, i64)>> = st
            .ranges
            .iter()
            .map(|r| ev(&r.lower).zip(ev(&r.upper)))
            .collect();
        let Some(values) = values else { continue };
        if values.iter().any(|(lo, hi)| hi <= lo) {
            continue;
        }
        for (ri, r) in st.ranges.iter().enumerate() {
            if r.from_where {
                continue;
            }
            for (end, delta) in [("lower", -1i64), ("upper", 1)] {
                let mut widened = def.clone();
                let range = &mut widened.stmts[si].ranges[ri];
                if delta < 0 {
                    range.lower = arith::Expr::sub(range.lower.clone(), arith::Expr::int(1));
                } else {
                    range.upper = arith::Expr::add(range.upper.clone(), arith::Expr::int(1));
                }
                let Ok(e) = tc::eval::evaluate(ast, &widened, &env, &inputs, &existing) else {
                    continue;
                };
                if e.out_of_bounds == 0 {
                    let (lo, hi) = values[ri];
                    return Err(Failure::new(
                        "range",
                        format!(
                            "`{}`, statement {}: the range {lo} <= {} < {hi} ({} <= {} < {}) is not the largest in bounds: its {end} end widened by one still reads in bounds",
                            def.name,
                            si + 1,
                            r.name,
                            r.lower,
                            r.name,
                            r.upper
                        ),
                    ));
                }
            }
        }
    }
    Ok(())
}
