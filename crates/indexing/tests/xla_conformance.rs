//! XLA conformance: replays the map-level records of
//! `shared/conformance/xla/cases.jsonl` (XLA's own `indexing_map_test.cc` and
//! `indexing_map_serialization_test.cc`) against this crate.
//!
//! Every record's `steps` are interpreted: input texts are parsed, C++ calls
//! (`Simplify`, `ComposeIndexingMaps`, `RemoveUnusedVars`, ...) are mapped to
//! this crate's API, and each expected map is compared with the actual one
//! semantically (same domain, same values; [`indexing::semantically_equal`])
//! and, separately, as text with all whitespace removed (XLA's own
//! `ApproximateMatch`). A record passes semantically when every check it
//! contains passes; a step that cannot be interpreted fails the record with
//! the reason printed.

use indexing::{compose, semantically_equal, semantically_equal_sampled, IndexingMap, Interval};
use serde_json::Value;
use std::collections::{BTreeMap, HashMap};
use std::fmt::Write as _;
use std::path::PathBuf;

const MAP_KINDS: [&str; 10] = [
    "simplify",
    "constraint_simplify",
    "compose",
    "remove_unused_vars",
    "rescale_symbols",
    "print",
    "known_empty",
    "convert_vars",
    "parse_print_roundtrip",
    "other",
];

/// Semantic passes per kind that must not regress (a little below what the
/// crate achieves when this floor was set).
const SEMANTIC_FLOOR: [(&str, usize); 10] = [
    ("simplify", 34),
    ("constraint_simplify", 11),
    ("compose", 6),
    ("remove_unused_vars", 6),
    ("rescale_symbols", 5),
    ("print", 2),
    ("known_empty", 3),
    ("convert_vars", 3),
    ("parse_print_roundtrip", 13),
    ("other", 3),
];

/// Records whose every expected map text matches exactly, over all kinds.
const TEXT_EXACT_FLOOR: usize = 74;

/// Domains up to this many points are compared exhaustively.
const ENUMERATION_LIMIT: u64 = 2_000_000;
/// Larger domains are compared at this many pseudo-random dimension points.
const SAMPLES: usize = 4000;

fn corpus() -> Option<PathBuf> {
    // `$RANGEFINDER_SHARED`, or the `shared` directory beside the checkout.
    let shared = std::env::var_os("RANGEFINDER_SHARED").map_or_else(
        || PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared"),
        PathBuf::from,
    );
    let p = shared.join("conformance/xla/cases.jsonl");
    p.exists().then_some(p)
}

fn squash(s: &str) -> String {
    s.chars().filter(|c| !c.is_ascii_whitespace()).collect()
}

/// What one record achieved.
#[derive(Default)]
struct Outcome {
    failures: Vec<String>,
    text_diffs: Vec<String>,
    text_checks: usize,
    text_exact: usize,
    checks: usize,
}

impl Outcome {
    fn fail(&mut self, why: impl Into<String>) {
        self.failures.push(why.into());
    }
}

/// Values produced by C++ statements and used by later assertions.
#[derive(Default)]
struct Env {
    maps: HashMap<String, IndexingMap>,
    /// Maps whose text came from the corpus author's `input_derived`
    /// rendering, which already includes the constraints the C++ test adds.
    derived: Vec<String>,
    /// `SymbolicExpr x = CreateDimExpr(i)` and friends: name -> (is_dim, index).
    exprs: HashMap<String, (bool, usize)>,
    results: Option<Vec<i64>>,
    bools: HashMap<String, bool>,
    unused_vars: Option<Vec<bool>>,
    evaluator_map: Option<String>,
    /// `SymbolicMap::Get(ctx, num_dims, num_symbols, {exprs})`.
    symbolic_map: Option<(usize, usize, String)>,
}

#[test]
fn xla_map_conformance() {
    let Some(path) = corpus() else {
        eprintln!(
            "note: shared/conformance/xla/cases.jsonl not found; skipping the XLA conformance run"
        );
        return;
    };
    let text = std::fs::read_to_string(&path).expect("the corpus file is readable");
    let mut per_kind: BTreeMap<String, (usize, usize, usize, usize)> = BTreeMap::new();
    let mut report = String::new();
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let rec: Value = serde_json::from_str(line).expect("every corpus line is JSON");
        let kind = rec["kind"].as_str().unwrap_or("");
        if !MAP_KINDS.contains(&kind) {
            continue;
        }
        let id = rec["id"].as_str().unwrap_or("?");
        let out = run_record(&rec);
        let entry = per_kind.entry(kind.to_string()).or_default();
        entry.0 += 1;
        let passed = out.failures.is_empty() && out.checks > 0;
        if passed {
            entry.1 += 1;
        }
        if out.text_checks > 0 {
            entry.3 += 1;
            if out.text_exact == out.text_checks {
                entry.2 += 1;
            }
        }
        if !passed {
            let _ = writeln!(report, "FAIL {id} [{kind}]");
            if out.checks == 0 && out.failures.is_empty() {
                let _ = writeln!(report, "    no check could be interpreted");
            }
            for f in &out.failures {
                let _ = writeln!(report, "    {f}");
            }
        } else if out.text_exact < out.text_checks {
            let _ = writeln!(
                report,
                "TEXT {id} [{kind}]: semantically equal, text differs"
            );
            for d in &out.text_diffs {
                let _ = writeln!(report, "    {d}");
            }
        }
    }
    let mut table = String::new();
    let _ = writeln!(
        table,
        "{:<24} {:>9} {:>12} {:>12}",
        "kind", "records", "semantic", "text-exact"
    );
    let (mut tr, mut ts, mut tt, mut tw) = (0, 0, 0, 0);
    for (kind, (n, sem, txt, with_text)) in &per_kind {
        let _ = writeln!(
            table,
            "{kind:<24} {n:>9} {:>12} {:>12}",
            format!("{sem}/{n}"),
            format!("{txt}/{with_text}")
        );
        tr += n;
        ts += sem;
        tt += txt;
        tw += with_text;
    }
    let _ = writeln!(
        table,
        "{:<24} {tr:>9} {:>12} {:>12}",
        "total",
        format!("{ts}/{tr}"),
        format!("{tt}/{tw}")
    );
    let _ = writeln!(table, "(text-exact counts records whose every expected map text matches, over records with map texts)");
    println!("{report}\n{table}");
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../target"));
    let dir = target.join("conformance");
    if std::fs::create_dir_all(&dir).is_ok() {
        let _ = std::fs::write(dir.join("xla_maps.txt"), format!("{table}\n{report}"));
    }
    assert!(
        tt >= TEXT_EXACT_FLOOR,
        "conformance regression: {tt} records match XLA's text, the floor is {TEXT_EXACT_FLOOR}"
    );
    for (kind, floor) in SEMANTIC_FLOOR {
        let got = per_kind.get(kind).map_or(0, |e| e.1);
        assert!(
            got >= floor,
            "conformance regression: {kind} passes {got}, the floor is {floor}"
        );
    }
}

fn run_record(rec: &Value) -> Outcome {
    let mut out = Outcome::default();
    let mut env = Env::default();
    let derived = rec["input_derived"].as_object();
    let steps = rec["steps"].as_array().cloned().unwrap_or_default();
    for step in &steps {
        let event = step["event"].as_str().unwrap_or("");
        let res = match event {
            "input" => {
                let var = step["var"].as_str().unwrap_or("");
                let text = step["text"].as_str().unwrap_or("");
                match IndexingMap::parse(text) {
                    Ok(m) => {
                        env.maps.insert(var.to_string(), m);
                        Ok(())
                    }
                    Err(e) => Err(format!("input `{var}` does not parse: {e}")),
                }
            }
            "construct" => {
                let var = step["var"].as_str().unwrap_or("");
                match derived.and_then(|d| d.get(var)).and_then(Value::as_str) {
                    Some(text) => match IndexingMap::parse(text) {
                        Ok(m) => {
                            env.maps.insert(var.to_string(), m);
                            env.derived.push(var.to_string());
                            Ok(())
                        }
                        Err(e) => Err(format!("derived input `{var}` does not parse: {e}")),
                    },
                    None => Err(format!(
                        "`{var}` is built in C++ with no text rendering: {}",
                        cxx(step)
                    )),
                }
            }
            "call" => run_call(&mut env, step, &mut out),
            "assert" => run_assert(&mut env, step["cxx"].as_str().unwrap_or(""), &mut out),
            "expect_map" => {
                let subject = step["subject_cxx"].as_str().unwrap_or("");
                let expected = step["expected"].as_str().unwrap_or("");
                match subject_map(&env, subject) {
                    Ok(actual) => {
                        check_map(&actual, expected, &mut out);
                        Ok(())
                    }
                    Err(e) => Err(e),
                }
            }
            "parse_and_check" => {
                let input = step["input"].as_str().unwrap_or("");
                match IndexingMap::parse(input) {
                    Ok(m) => {
                        check_map(&m, input, &mut out);
                        Ok(())
                    }
                    Err(e) => Err(format!("does not parse: {e}")),
                }
            }
            other => Err(format!("unknown step `{other}`")),
        };
        if let Err(e) = res {
            out.fail(e);
        }
    }
    out
}

fn cxx(step: &Value) -> &str {
    step["cxx"].as_str().unwrap_or("")
}

/// Compares `actual` with the expected text: text (whitespace removed) and
/// meaning.
fn check_map(actual: &IndexingMap, expected: &str, out: &mut Outcome) {
    out.checks += 1;
    out.text_checks += 1;
    let printed = actual.to_string();
    if squash(&printed) == squash(expected) {
        out.text_exact += 1;
        return;
    }
    let expected_line = expected.split_whitespace().collect::<Vec<_>>().join(" ");
    out.text_diffs
        .push(format!("got      {printed}\n    expected {expected_line}"));
    let want = match IndexingMap::parse(expected) {
        Ok(m) => m,
        Err(e) => return out.fail(format!("expected map does not parse: {e}")),
    };
    match equal(actual, &want) {
        Ok(true) => {}
        Ok(false) => out.fail(format!(
            "not equal: got {printed}\n    expected {expected_line}"
        )),
        Err(e) => out.fail(format!("cannot compare: {e}")),
    }
}

/// Exhaustive comparison when the domain is small enough, otherwise at
/// sampled dimension points.
fn equal(a: &IndexingMap, b: &IndexingMap) -> Result<bool, String> {
    match semantically_equal(a, b, ENUMERATION_LIMIT) {
        Ok(r) => Ok(r),
        Err(_) => semantically_equal_sampled(a, b, SAMPLES, 0x5eed, ENUMERATION_LIMIT)
            .map_err(|e| e.to_string()),
    }
}

fn get_map<'a>(env: &'a Env, name: &str) -> Result<&'a IndexingMap, String> {
    let name = name.trim().trim_start_matches('*');
    env.maps
        .get(name)
        .ok_or_else(|| format!("no map named `{name}`"))
}

/// The map a C++ subject expression denotes.
fn subject_map(env: &Env, subject: &str) -> Result<IndexingMap, String> {
    let s = subject.trim();
    if s == "ToString(IndexingMap::GetUndefined())" {
        return Ok(IndexingMap::undefined());
    }
    if let Some(inner) = s
        .strip_prefix("ToString(")
        .and_then(|r| r.strip_suffix(')'))
    {
        return subject_map(env, inner);
    }
    if let Some((a, b)) = s.split_once(" * ") {
        return compose(get_map(env, a)?, get_map(env, b)?).map_err(|e| e.to_string());
    }
    if let Some(m) = s.strip_suffix(".ConvertSymbolsToDimensions()") {
        return Ok(get_map(env, m)?.convert_symbols_to_dimensions());
    }
    if let Some(args) = s
        .strip_prefix("ConvertRangeVariablesToDimensions(")
        .and_then(|r| r.strip_suffix(')'))
    {
        let (m, list) = args
            .split_once(',')
            .ok_or("malformed ConvertRangeVariablesToDimensions")?;
        let idx: Vec<usize> = ints(list).into_iter().map(|v| v as usize).collect();
        return get_map(env, m)?
            .convert_range_vars_to_dimensions(&idx)
            .map_err(|e| e.to_string());
    }
    get_map(env, s).cloned()
}

/// All integers in `s`, in order.
fn ints(s: &str) -> Vec<i64> {
    let mut out = Vec::new();
    let mut cur = String::new();
    for c in s.chars().chain(std::iter::once(' ')) {
        if c.is_ascii_digit() || (c == '-' && cur.is_empty()) {
            cur.push(c);
        } else {
            if cur != "-" && !cur.is_empty() {
                if let Ok(v) = cur.parse() {
                    out.push(v);
                }
            }
            cur.clear();
            if c == '-' {
                cur.push(c);
            }
        }
    }
    out
}

/// The string literals in `s`.
fn string_literals(s: &str) -> Vec<String> {
    s.split('"')
        .skip(1)
        .step_by(2)
        .map(str::to_string)
        .collect()
}

/// Translates a C++ `SymbolicExpr` expression or an XLA expression string
/// written with positional names (`d0`, `s2`, where symbols past the range
/// variables are runtime variables) into text over `map`'s printed names.
fn translate(env: &Env, map: &IndexingMap, e: &str) -> String {
    let names: Vec<String> = map.all_vars().map(|v| map.var_name(v.var())).collect();
    let nd = map.num_dims();
    let e = e.replace('%', " mod ");
    // `a.min(b)` -> `min(a, b)` (only simple operands occur in the corpus)
    let e = rewrite_method(&rewrite_method(&e, "min"), "max");
    let mut out = String::new();
    let mut word = String::new();
    let flush = |word: &mut String, out: &mut String| {
        let w = std::mem::take(word);
        let mapped = if let Some((is_dim, i)) = env.exprs.get(&w) {
            names.get(if *is_dim { *i } else { nd + i }).cloned()
        } else if let Some(i) = w.strip_prefix('d').and_then(|r| r.parse::<usize>().ok()) {
            names.get(i).cloned().filter(|_| i < nd)
        } else if let Some(i) = w.strip_prefix('s').and_then(|r| r.parse::<usize>().ok()) {
            names.get(nd + i).cloned()
        } else {
            None
        };
        out.push_str(&mapped.unwrap_or(w));
    };
    for c in e.chars() {
        if c.is_ascii_alphanumeric() || c == '_' {
            word.push(c);
        } else {
            flush(&mut word, &mut out);
            out.push(c);
        }
    }
    flush(&mut word, &mut out);
    out
}

fn rewrite_method(e: &str, m: &str) -> String {
    let pat = format!(".{m}(");
    match e.find(&pat) {
        Some(pos) => {
            let start = e[..pos]
                .rfind(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .map_or(0, |i| i + 1);
            let rest = &e[pos + pat.len()..];
            let close = rest.find(')').unwrap_or(rest.len());
            format!(
                "{}{m}({}, {}){}",
                &e[..start],
                &e[start..pos],
                &rest[..close],
                rest.get(close + 1..).unwrap_or("")
            )
        }
        None => e.to_string(),
    }
}

fn run_call(env: &mut Env, step: &Value, out: &mut Outcome) -> Result<(), String> {
    let c = cxx(step).trim().trim_end_matches(';').trim();
    let expect = step["expect_return"].as_bool();
    let check_return = |what: &str, got: bool, out: &mut Outcome| {
        if let Some(want) = expect {
            out.checks += 1;
            if got != want {
                out.fail(format!("{what} returned {got}, XLA returns {want}"));
            }
        }
    };
    if let Some((target, rest)) = c.strip_prefix("auto ").and_then(|r| r.split_once(" = ")) {
        if let Some(rest) = rest.strip_prefix("SymbolicMap::Get(&mlir_context_,") {
            let counts = ints(rest.split('{').next().unwrap_or(""));
            let exprs = rest
                .split_once('{')
                .and_then(|(_, r)| r.rsplit_once('}'))
                .map(|(e, _)| e.to_string());
            match (counts.as_slice(), exprs) {
                ([nd, ns], Some(e)) => env.symbolic_map = Some((*nd as usize, *ns as usize, e)),
                _ => return Err(format!("malformed SymbolicMap::Get: {c}")),
            }
            return Ok(());
        }
        if let Some(args) = rest
            .strip_prefix("ComposeIndexingMaps(")
            .and_then(|r| r.strip_suffix(')'))
        {
            let (a, b) = args
                .split_once(',')
                .ok_or("malformed ComposeIndexingMaps")?;
            let m = compose(get_map(env, a)?, get_map(env, b)?).map_err(|e| e.to_string())?;
            env.maps.insert(target.to_string(), m);
            return Ok(());
        }
        if let Some(m) = rest.strip_suffix(".RemoveUnusedVars()") {
            let map = env.maps.get_mut(m.trim()).ok_or("no such map")?;
            env.unused_vars = Some(map.remove_unused_vars());
            return Ok(());
        }
        if let Some((m, args)) = rest.split_once(".Evaluate(") {
            let map = get_map(env, m)?;
            let point: Vec<i64> = ints(args.replace("&mlir_context_", "").as_str());
            env.results = Some(map.evaluate(&point).map_err(|e| e.to_string())?);
            return Ok(());
        }
        if let Some((m, args)) = rest.split_once(".ConstraintsSatisfied(") {
            let map = get_map(env, m)?;
            let point: Vec<i64> = ints(args);
            let sat = map
                .constraints_satisfied(&point)
                .map_err(|e| e.to_string())?;
            env.bools.insert(target.to_string(), sat);
            return Ok(());
        }
        return Err(format!("cannot interpret `{c}`"));
    }
    if let Some((m, arg)) = c.split_once(".Simplify(") {
        let map = env.maps.get_mut(m.trim()).ok_or(format!("no map `{m}`"))?;
        let changed = if arg.contains("kPreserve") {
            map.simplify_preserving_point_dims()
        } else {
            map.simplify()
        };
        check_return("Simplify()", changed, out);
        return Ok(());
    }
    if let Some(m) = c.strip_suffix(".RescaleSymbols()") {
        let map = env.maps.get_mut(m.trim()).ok_or(format!("no map `{m}`"))?;
        let changed = map.rescale_symbols();
        check_return("RescaleSymbols()", changed, out);
        return Ok(());
    }
    if let Some(m) = c.strip_suffix(".RemoveUnusedVars()") {
        env.maps
            .get_mut(m.trim())
            .ok_or(format!("no map `{m}`"))?
            .remove_unused_vars();
        return Ok(());
    }
    if let Some(m) = c.strip_suffix(".RemoveUnusedSymbols()") {
        env.maps
            .get_mut(m.trim())
            .ok_or(format!("no map `{m}`"))?
            .remove_unused_symbols();
        return Ok(());
    }
    if let Some((m, args)) = c.split_once(".AddConstraint(") {
        let m = m.trim();
        if env.derived.iter().any(|d| d == m) {
            // The derived text already has this constraint.
            return Ok(());
        }
        let (expr_text, interval) = match string_literals(args).first() {
            Some(lit) => (
                lit.clone(),
                args.rsplit_once("Interval")
                    .map_or(args, |(_, r)| r)
                    .to_string(),
            ),
            None => {
                let (e, iv) = args.rsplit_once(", {").ok_or("malformed AddConstraint")?;
                (e.to_string(), iv.to_string())
            }
        };
        let bounds = ints(&interval);
        let [lo, hi] = bounds[bounds.len().saturating_sub(2)..] else {
            return Err("malformed interval".into());
        };
        let map = get_map(env, m)?;
        let text = translate(env, map, &expr_text);
        let e = map
            .parse_expr(&text)
            .map_err(|e| format!("constraint `{text}`: {e}"))?;
        env.maps
            .get_mut(m)
            .ok_or("no map")?
            .add_constraint(e, Interval::new(lo, hi))
            .map_err(|e| e.to_string())?;
        return Ok(());
    }
    if let Some((lhs, rhs)) = c.split_once(" = ") {
        let name = lhs.split_whitespace().last().unwrap_or("");
        if rhs.starts_with("CreateDimExpr(") || rhs.starts_with("CreateSymbolExpr(") {
            let i = ints(rhs).first().copied().unwrap_or(0) as usize;
            env.exprs
                .insert(name.to_string(), (rhs.starts_with("CreateDimExpr("), i));
            return Ok(());
        }
        if let Some(m) = rhs.strip_suffix(".GetSymbolicMap().GetResult(3)") {
            let _ = get_map(env, m)?;
            return Ok(());
        }
        if rhs.contains("GetSymbolicConstraints()") {
            return Ok(());
        }
    }
    if c.starts_with("std::vector<IndexingMap::Variable>") {
        // Variables for a C++ construction; the derived text already has them.
        return Ok(());
    }
    if let Some(rest) = c.strip_prefix("RangeEvaluator range_evaluator(") {
        let m = rest.split(',').next().unwrap_or("").trim();
        env.evaluator_map = Some(m.to_string());
        return Ok(());
    }
    if c.starts_with("for (auto& [expr, interval] : ") {
        // XLA checks that rescaling did not corrupt its constraint hash map;
        // the equivalent here: every constraint expression occurs once.
        let m = c
            .split(" : ")
            .nth(1)
            .and_then(|r| r.split('.').next())
            .unwrap_or("");
        let map = get_map(env, m)?;
        out.checks += 1;
        let cs = map.constraints();
        for (i, a) in cs.iter().enumerate() {
            if cs[i + 1..].iter().any(|b| b.expr == a.expr) {
                out.fail("a constraint expression occurs twice");
            }
        }
        return Ok(());
    }
    Err(format!("cannot interpret `{c}`"))
}

fn run_assert(env: &mut Env, c: &str, out: &mut Outcome) -> Result<(), String> {
    let c = c.trim().trim_end_matches(';');
    out.checks += 1;
    let mut expect = |ok: bool, what: &str| {
        if !ok {
            out.fail(format!("assertion failed: {what}"));
        }
    };
    if let Some(rest) = c.strip_prefix("EXPECT_THAT(results, ElementsAre(") {
        let want = ints(rest);
        expect(
            env.results.as_deref() == Some(&want[..]),
            &format!("{c} (got {:?})", env.results),
        );
        return Ok(());
    }
    for (prefix, want) in [("EXPECT_TRUE(", true), ("EXPECT_FALSE(", false)] {
        if let Some(inner) = c.strip_prefix(prefix).and_then(|r| r.strip_suffix(')')) {
            if let Some(v) = env.bools.get(inner) {
                expect(*v == want, c);
                return Ok(());
            }
            if let Some(m) = inner.strip_suffix("->IsKnownEmpty()") {
                expect(get_map(env, m)?.is_known_empty() == want, c);
                return Ok(());
            }
            if let Some(arg) = inner
                .strip_prefix("range_evaluator.IsAlwaysPositiveOrZero(")
                .and_then(|r| r.strip_suffix(')'))
            {
                let map = get_map(env, env.evaluator_map.as_deref().unwrap_or(""))?;
                let e = map
                    .parse_expr(&translate(env, map, arg))
                    .map_err(|e| e.to_string())?;
                expect((map.expression_range(&e).lower >= 0) == want, c);
                return Ok(());
            }
        }
    }
    if let Some(inner) = c
        .strip_prefix("EXPECT_EQ(")
        .and_then(|r| r.strip_suffix(')'))
    {
        if let Some(rest) = inner.strip_prefix("range_evaluator.ComputeExpressionRange(") {
            let (arg, want) = rest
                .rsplit_once("), (Interval")
                .ok_or("malformed ComputeExpressionRange")?;
            let want = ints(want);
            let map = get_map(env, env.evaluator_map.as_deref().unwrap_or(""))?;
            let e = map
                .parse_expr(&translate(env, map, arg))
                .map_err(|e| e.to_string())?;
            let got = map.expression_range(&e);
            expect(want == [got.lower, got.upper], &format!("{c} (got {got})"));
            return Ok(());
        }
        if let Some(rest) = inner.strip_prefix('(') {
            let (prod, tail) = rest
                .split_once(").GetSymbolicMap().GetNumResults(),")
                .ok_or("malformed")?;
            let (a, b) = prod.split_once(" * ").ok_or("malformed product")?;
            let m = compose(get_map(env, a)?, get_map(env, b)?).map_err(|e| e.to_string())?;
            expect(ints(tail) == [m.num_results() as i64], c);
            return Ok(());
        }
        let (a, b) = inner.split_once(',').ok_or("malformed EXPECT_EQ")?;
        let (x, y) = (get_map(env, a)?, get_map(env, b)?);
        expect(equal(x, y)?, c);
        return Ok(());
    }
    if c.starts_with("EXPECT_THAT(ConvertToSTL(unused_vars)") {
        let want: Vec<bool> = c
            .split(['{', '}'])
            .nth(1)
            .unwrap_or("")
            .split(',')
            .map(|s| s.trim() == "true")
            .collect();
        expect(
            env.unused_vars.as_deref() == Some(&want[..]),
            &format!("{c} (got {:?})", env.unused_vars),
        );
        return Ok(());
    }
    if let Some(rest) = c.strip_prefix("ASSERT_THAT(") {
        if let Some((m, _)) = rest.split_once(".GetSymbolicConstraints(), ::testing::SizeIs(") {
            let want = ints(rest.rsplit_once("SizeIs(").map_or("", |(_, r)| r));
            expect(want == [get_map(env, m)?.constraints().len() as i64], c);
            return Ok(());
        }
    }
    if c.contains("AnyOf(std::make_tuple(") {
        // (result 3, the only constraint's expression, its interval) must be
        // one of the listed alternatives.
        let map = get_map(env, "indexing_map")?;
        let lits = string_literals(c);
        let intervals: Vec<Vec<i64>> = c.split("Interval{").skip(1).map(ints).collect();
        let got_result = squash(&map.print_expr(&map.results()[3]));
        let got = map
            .constraints()
            .first()
            .map(|k| (squash(&map.print_expr(&k.expr)), k.interval));
        let mut any = false;
        for (k, pair) in lits.chunks(2).enumerate() {
            let iv = intervals.get(k).map(|v| Interval::new(v[0], v[1]));
            let want_r = map
                .parse_expr(&translate(env, map, &pair[0]))
                .map(|e| squash(&map.print_expr(&e)));
            let want_c = map
                .parse_expr(&translate(env, map, &pair[1]))
                .map(|e| squash(&map.print_expr(&e)));
            if let (Ok(r), Ok(k), Some(iv), Some((gk, giv))) = (want_r, want_c, iv, &got) {
                any |= r == got_result && k == *gk && iv == *giv;
            }
        }
        expect(any, c);
        return Ok(());
    }
    if let Some((printer, want)) = c.split_once("HasSubstr(") {
        let got = print_symbolic_map(env, printer)?;
        let want: String = string_literals(want).concat();
        expect(
            squash(&got).contains(&squash(&want)),
            &format!("{c} (got {got})"),
        );
        return Ok(());
    }
    Err(format!("cannot interpret assertion `{c}`"))
}

/// Prints the pending `SymbolicMap::Get` map with the variable names of a
/// `ToString(map, {dims}, {range vars}, {rt vars})` call.
fn print_symbolic_map(env: &Env, call: &str) -> Result<String, String> {
    use indexing::Variable;
    let (nd, ns, exprs) = env
        .symbolic_map
        .as_ref()
        .ok_or("no SymbolicMap was built")?;
    let groups: Vec<Vec<String>> = call
        .split('{')
        .skip(1)
        .map(|g| string_literals(g.split('}').next().unwrap_or("")))
        .collect();
    let [dims, ranges, rts] = &groups[..] else {
        return Err(format!("malformed ToString call: {call}"));
    };
    if dims.len() != *nd || ranges.len() + rts.len() != *ns {
        return Err(format!(
            "the names in `{call}` do not match {nd} dims and {ns} symbols"
        ));
    }
    let point = Interval::new(0, 0);
    let vars = |names: &[String]| {
        names
            .iter()
            .map(|n| Variable::named(point, n.clone()))
            .collect::<Vec<_>>()
    };
    let (d, r, t) = (vars(dims), vars(ranges), vars(rts));
    let scope =
        IndexingMap::new(d.clone(), r.clone(), t.clone(), vec![]).map_err(|e| e.to_string())?;
    let results = exprs
        .split(',')
        .map(|e| {
            scope
                .parse_expr(&translate(env, &scope, e))
                .map_err(|err| format!("`{e}`: {err}"))
        })
        .collect::<Result<Vec<_>, _>>()?;
    Ok(IndexingMap::new(d, r, t, results)
        .map_err(|e| e.to_string())?
        .to_string())
}

/// Every map text XLA expects anywhere in the corpus (operand maps, runtime
/// variable maps, replica-id maps, grouped maps, map-test expectations,
/// serialization inputs) parses, and prints back exactly (whitespace aside).
#[test]
fn every_expected_map_text_round_trips() {
    let Some(path) = corpus() else {
        eprintln!(
            "note: shared/conformance/xla/cases.jsonl not found; skipping the round-trip run"
        );
        return;
    };
    let text = std::fs::read_to_string(&path).expect("the corpus file is readable");
    let mut texts: Vec<(String, String)> = Vec::new();
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let rec: Value = serde_json::from_str(line).expect("every corpus line is JSON");
        let id = rec["id"].as_str().unwrap_or("?").to_string();
        let mut push = |v: &Value| {
            if let Some(t) = v.as_str() {
                texts.push((id.clone(), t.to_string()));
            }
        };
        let operand_lists = [&rec["expected_by_operand"], &rec["expected_by_output"]];
        for list in operand_lists.into_iter().filter_map(Value::as_array) {
            for op in list {
                op["maps"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .for_each(&mut push);
                op["runtime_variables"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .for_each(|rt| push(&rt["map"]));
                push(&op["replica_id_map"]);
            }
        }
        for group in rec["expected_by_instruction"]
            .as_array()
            .into_iter()
            .flatten()
        {
            for m in group["maps"].as_array().into_iter().flatten() {
                push(&m["map"]);
                m["runtime_variables"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .for_each(|rt| push(&rt["map"]));
                push(&m["replica_id_map"]);
            }
        }
        for step in rec["steps"].as_array().into_iter().flatten() {
            match step["event"].as_str() {
                Some("expect_map") => push(&step["expected"]),
                Some("parse_and_check") => push(&step["input"]),
                _ => {}
            }
        }
    }
    let mut failures = Vec::new();
    for (id, t) in &texts {
        match IndexingMap::parse(t) {
            Ok(m) if squash(&m.to_string()) == squash(t) => {}
            Ok(m) => failures.push(format!(
                "{id}: prints as {m}\n    expected {}",
                t.split_whitespace().collect::<Vec<_>>().join(" ")
            )),
            Err(e) => failures.push(format!(
                "{id}: does not parse: {e}\n    {}",
                t.split_whitespace().collect::<Vec<_>>().join(" ")
            )),
        }
    }
    println!(
        "{} of {} expected map texts round-trip",
        texts.len() - failures.len(),
        texts.len()
    );
    for f in &failures {
        println!("  {f}");
    }
    assert!(
        texts.len() > 300,
        "only {} map texts found; has the corpus format changed?",
        texts.len()
    );
    assert!(
        failures.is_empty(),
        "{} map texts do not round-trip",
        failures.len()
    );
}
