//! Runs XLA's indexing-analysis test expectations (`cases.jsonl`, kinds
//! `op_output_to_input`, `op_input_to_output`, `fusion`) and compares every
//! expected map with ours semantically: same domain, same results at every
//! point (`indexing::semantically_equal`), falling back to the XLA text
//! (whitespace removed) when a domain is too large to enumerate.
//!
//! Prints the pass figures per kind and per opcode and writes them to
//! `target/conformance/xla_ops.txt`.

use hlo::{Module, OperandIndexing};
use indexing::{semantically_equal, IndexingMap};
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::PathBuf;

/// Opcodes this crate gives maps for; records using others are "unsupported".
const SUPPORTED: &[&str] = &[
    "add",
    "all-gather",
    "bitcast",
    "broadcast",
    "concatenate",
    "constant",
    "convert",
    "convolution",
    "copy",
    "divide",
    "dot",
    "dynamic-slice",
    "dynamic-update-slice",
    "exponential",
    "gather",
    "get-tuple-element",
    "iota",
    "log",
    "map",
    "maximum",
    "multiply",
    "pad",
    "reduce",
    "reduce-window",
    "reshape",
    "reverse",
    "rsqrt",
    "scaled-dot",
    "select",
    "slice",
    "subtract",
    "transpose",
    "tuple",
    "fusion",
    "parameter",
    "compare",
    "minimum",
    "negate",
];

/// Enumeration budget for one semantic comparison.
const LIMIT: u64 = 3_000_000;

/// `$RANGEFINDER_SHARED/conformance/xla/cases.jsonl`, or the `shared`
/// directory beside the checkout.
fn corpus_path() -> PathBuf {
    let shared = std::env::var_os("RANGEFINDER_SHARED").map_or_else(
        || PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared"),
        PathBuf::from,
    );
    shared.join("conformance/xla/cases.jsonl")
}

#[derive(Default)]
struct Tally {
    pass: usize,
    total: usize,
}

enum Outcome {
    Pass,
    Fail(String),
    /// The runner has no equivalent of this test's API.
    Skipped(String),
}

fn strip_ws(s: &str) -> String {
    s.chars().filter(|c| !c.is_whitespace()).collect()
}

thread_local! {
    /// Operands XLA gives no map ("unknown indexing") and this crate maps:
    /// beyond XLA, not a mismatch (each map is checked for soundness by
    /// the oracle tests).
    static BEYOND_XLA: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
    /// (maps compared, maps whose text is XLA's exactly, whitespace removed).
    static TEXT: std::cell::Cell<(usize, usize)> = const { std::cell::Cell::new((0, 0)) };
    /// Maps that denote the same relation as XLA's but print differently.
    static TEXT_DIFFS: std::cell::RefCell<Vec<String>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// Whether our map denotes the same relation as the expected text.
fn same_map(expected: &str, actual: &IndexingMap) -> Result<bool, String> {
    let same = same_relation(expected, actual)?;
    if same {
        let identical = strip_ws(expected) == strip_ws(&actual.to_string());
        TEXT.with(|t| {
            let (n, k) = t.get();
            t.set((n + 1, k + usize::from(identical)));
        });
        if !identical {
            TEXT_DIFFS.with(|d| {
                d.borrow_mut()
                    .push(format!("  XLA:  {expected}\n  ours: {actual}"))
            });
        }
    }
    Ok(same)
}

fn same_relation(expected: &str, actual: &IndexingMap) -> Result<bool, String> {
    match expected {
        "UNDEFINED" => return Ok(actual.is_undefined()),
        "KNOWN EMPTY" => return Ok(actual.is_known_empty()),
        _ => {}
    }
    let want = IndexingMap::parse(expected)
        .map_err(|e| format!("cannot parse expected `{expected}`: {e}"))?;
    match semantically_equal(&want, actual, LIMIT) {
        Ok(eq) => Ok(eq),
        // Too large to enumerate: compare with XLA's text.
        Err(_) => Ok(strip_ws(expected) == strip_ws(&actual.to_string())),
    }
}

/// Compares an expected list of maps (unordered) with one operand's indexing.
/// One expected map, with the replica map of a collective when there is one.
struct Expected {
    map: String,
    replica: Option<String>,
}

/// Compares an expected list of maps (unordered) with one operand's indexing.
fn same_set(expected: &[Expected], actual: &OperandIndexing) -> Result<(), String> {
    let names: Vec<&str> = expected.iter().map(|e| e.map.as_str()).collect();
    let maps: Vec<&hlo::OperandMap> = match actual {
        OperandIndexing::Unsupported(reason) => {
            if expected.iter().all(|e| e.map == "UNDEFINED") {
                return Ok(());
            }
            return Err(format!("unsupported ({reason}), expected {names:?}"));
        }
        OperandIndexing::Maps(_) if expected.iter().all(|e| e.map == "UNDEFINED") => {
            BEYOND_XLA.with(|b| b.set(b.get() + 1));
            return Ok(());
        }
        OperandIndexing::Maps(m) => m.iter().collect(),
    };
    let got: Vec<String> = maps.iter().map(|m| m.to_string()).collect();
    if expected.len() != maps.len() {
        return Err(format!(
            "expected {} map(s) {names:?}, got {} {got:?}",
            expected.len(),
            maps.len()
        ));
    }
    let mut used = vec![false; maps.len()];
    for e in expected {
        let mut found = false;
        for (i, m) in maps.iter().enumerate() {
            if used[i] || !same_map(&e.map, &m.map)? {
                continue;
            }
            let replica_ok = match (&e.replica, &m.replica) {
                (Some(want), Some(have)) => same_map(want, have)?,
                (None, None) => true,
                _ => false,
            };
            if replica_ok {
                used[i] = true;
                found = true;
                break;
            }
        }
        if !found {
            return Err(format!(
                "no map equal to `{}` (replica map {:?}); got {got:?}",
                e.map, e.replica
            ));
        }
    }
    Ok(())
}

fn expected_maps(entry: &Value) -> Vec<Expected> {
    let items = entry["maps"].as_array().cloned().unwrap_or_default();
    let single = items.len() == 1;
    items
        .iter()
        .filter_map(|m| {
            let map = m.as_str().or_else(|| m["map"].as_str())?.to_string();
            // The replica map sits on the map (grouped records) or on the
            // operand entry (single-op records, one map).
            let replica = m["replica_id_map"]
                .as_str()
                .or_else(|| {
                    if single {
                        entry["replica_id_map"].as_str()
                    } else {
                        None
                    }
                })
                .map(str::to_string);
            Some(Expected { map, replica })
        })
        .collect()
}

fn check_entries(expected: &[Value], actual: &[hlo::OperandEntry]) -> Outcome {
    for e in expected {
        let id = e["operand_id"].as_u64().unwrap_or(0) as usize;
        let Some(a) = actual.iter().find(|a| a.index == id) else {
            return Outcome::Fail(format!("no entry for operand id {id}"));
        };
        if let Err(msg) = same_set(&expected_maps(e), &a.indexing) {
            return Outcome::Fail(format!("operand id {id}: {msg}"));
        }
    }
    Outcome::Pass
}

fn run_case(case: &Value, module: &Module) -> Outcome {
    let target = &case["target"];
    let api = target["api"].as_str().unwrap_or("");
    let entry = module.entry;
    let root = module.entry_computation().root;
    let physical = target["use_physical_layout"].as_bool().unwrap_or(false);
    match api {
        "ComputeOutputToInputIndexing" => {
            let output = target["output_id"].as_u64().unwrap_or(0) as usize;
            let r = match hlo::output_to_input(module, entry, root, output, physical) {
                Ok(r) => r,
                Err(e) => return Outcome::Fail(e.to_string()),
            };
            match case["expected_by_operand"].as_array() {
                Some(exp) => check_entries(exp, &r.operands),
                // Constant and iota: no operands at all.
                None if r.operands.is_empty() => Outcome::Pass,
                None => Outcome::Fail(format!("expected no operands, got {}", r.operands.len())),
            }
        }
        "ComputeInputToOutputIndexing" => {
            let input = target["input_id"].as_u64().unwrap_or(0) as usize;
            match hlo::input_to_output(module, entry, root, input, physical) {
                Ok(r) => check_entries(
                    case["expected_by_operand"]
                        .as_array()
                        .map(Vec::as_slice)
                        .unwrap_or(&[]),
                    &r.operands,
                ),
                Err(e) => Outcome::Fail(e.to_string()),
            }
        }
        "GroupIndexingMapsByProducers" => {
            // The root's own output-to-input maps, keyed by producer.
            let r = match hlo::output_to_input(module, entry, root, 0, false) {
                Ok(r) => r,
                Err(e) => return Outcome::Fail(e.to_string()),
            };
            for g in case["expected_by_instruction"]
                .as_array()
                .into_iter()
                .flatten()
            {
                let name = g["instruction"].as_str().unwrap_or("");
                let Some(a) = r.operands.iter().find(|a| a.name == name) else {
                    return Outcome::Fail(format!("no group for `{name}`"));
                };
                if let Err(msg) = same_set(&expected_maps(g), &a.indexing) {
                    return Outcome::Fail(format!("group `{name}`: {msg}"));
                }
            }
            Outcome::Pass
        }
        "ComputeGroupedOutputToInputIndexing" => {
            // The C++ tests pick the start through fusion adaptors; the
            // corpus describes it in prose. These two start elsewhere.
            let id = case["id"].as_str().unwrap_or("");
            let (comp, start) = if id.ends_with("_SingleOp") {
                (entry, module.entry_computation().find("p1").unwrap())
            } else if id.ends_with("_StartNotAtRoot") {
                module.find_instruction("p0_bcast").unwrap()
            } else {
                (entry, root)
            };
            let groups = match hlo::grouped_output_to_input(module, comp, start, 0) {
                Ok(g) => g,
                Err(e) => return Outcome::Fail(e.to_string()),
            };
            for g in case["expected_by_instruction"]
                .as_array()
                .into_iter()
                .flatten()
            {
                // "p0 (parameter(0) of fused computation f)" names `p0`.
                let name = g["instruction"]
                    .as_str()
                    .unwrap_or("")
                    .split(' ')
                    .next()
                    .unwrap_or("");
                let Some(a) = groups.iter().find(|a| a.name == name) else {
                    return Outcome::Fail(format!("no group for `{name}`"));
                };
                if let Err(msg) = same_set(&expected_maps(g), &a.indexing) {
                    return Outcome::Fail(format!("group `{name}`: {msg}"));
                }
            }
            Outcome::Pass
        }
        "ComputeEpilogueInputToOutputIndexing" => {
            let args = target["args_cxx"].as_array().cloned().unwrap_or_default();
            let hero_opcode = args.first().and_then(Value::as_str).unwrap_or("");
            // The hero is named by opcode in the C++ test; find it in the fused computation.
            let Some(comp) = module
                .computations
                .iter()
                .position(|c| c.name != module.entry_computation().name)
            else {
                return Outcome::Skipped("no fused computation".into());
            };
            let c = &module.computations[comp];
            let Some(hero) = c
                .instructions
                .iter()
                .position(|i| Some(i.opcode) == hlo::Opcode::parse(hero_opcode))
            else {
                return Outcome::Skipped(format!("no `{hero_opcode}` hero"));
            };
            let per_output = match hlo::epilogue_input_to_output(module, comp, hero) {
                Ok(v) => v,
                Err(e) => return Outcome::Fail(e.to_string()),
            };
            let expected = case["expected_normalized"]
                .as_str()
                .unwrap_or("")
                .to_string();
            match same_set(
                &[Expected {
                    map: expected,
                    replica: None,
                }],
                &per_output[0],
            ) {
                Ok(()) => Outcome::Pass,
                Err(m) => Outcome::Fail(m),
            }
        }
        a if a.starts_with("print_indexing") => {
            for e in case["expected_by_output"].as_array().into_iter().flatten() {
                let output = e["output_id"].as_u64().unwrap_or(0) as usize;
                let operand = e["operand_id"].as_u64().unwrap_or(0) as usize;
                let r = match hlo::output_to_input(module, entry, root, output, false) {
                    Ok(r) => r,
                    Err(err) => return Outcome::Fail(err.to_string()),
                };
                let Some(a) = r.operands.iter().find(|a| a.index == operand) else {
                    return Outcome::Fail(format!("no operand {operand}"));
                };
                if let Err(msg) = same_set(&expected_maps(e), &a.indexing) {
                    return Outcome::Fail(format!("output {output} operand {operand}: {msg}"));
                }
            }
            Outcome::Pass
        }
        other => Outcome::Skipped(format!("API `{other}`")),
    }
}

fn opcodes_of(case: &Value) -> Vec<String> {
    let mut ops: Vec<String> = Vec::new();
    for key in ["opcodes_entry", "opcodes_called_computations"] {
        for o in case[key].as_array().into_iter().flatten() {
            if let Some(s) = o.as_str() {
                ops.push(s.to_string());
            }
        }
    }
    ops
}

#[test]
fn xla_indexing_conformance() {
    let path = corpus_path();
    let Ok(text) = std::fs::read_to_string(&path) else {
        eprintln!(
            "note: {} is absent; skipping the XLA conformance run",
            path.display()
        );
        return;
    };
    let mut by_kind: BTreeMap<String, Tally> = BTreeMap::new();
    let mut by_opcode: BTreeMap<String, Tally> = BTreeMap::new();
    let mut supported = Tally::default();
    let mut report = Vec::new();
    let mut failures_in_supported = Vec::new();
    for line in text.lines() {
        let case: Value =
            serde_json::from_str(line).expect("cases.jsonl holds one JSON object per line");
        let kind = case["kind"].as_str().unwrap_or("").to_string();
        if !matches!(
            kind.as_str(),
            "op_output_to_input" | "op_input_to_output" | "fusion"
        ) {
            continue;
        }
        let id = case["id"].as_str().unwrap_or("?").to_string();
        let opcode = case["target"]["opcode"]
            .as_str()
            .unwrap_or(case["target"]["api"].as_str().unwrap_or("?"))
            .to_string();
        let is_supported = opcodes_of(&case)
            .iter()
            .all(|o| SUPPORTED.contains(&o.as_str()))
            || case["expected_by_operand"].as_array().is_some_and(|a| {
                a.iter()
                    .all(|e| expected_maps(e).iter().all(|m| m.map == "UNDEFINED"))
            });
        let outcome = match hlo::parse_module(case["hlo"].as_str().unwrap_or("")) {
            Err(e) => Outcome::Fail(format!("parse error {e}")),
            Ok(module) => run_case(&case, &module),
        };
        let (passed, note) = match &outcome {
            Outcome::Pass => (true, "ok".to_string()),
            Outcome::Fail(m) => (false, format!("FAIL {m}")),
            Outcome::Skipped(m) => (false, format!("SKIP {m}")),
        };
        let k = by_kind.entry(kind.clone()).or_default();
        k.total += 1;
        k.pass += usize::from(passed);
        let o = by_opcode.entry(opcode.clone()).or_default();
        o.total += 1;
        o.pass += usize::from(passed);
        if is_supported {
            supported.total += 1;
            supported.pass += usize::from(passed);
            if !passed {
                failures_in_supported.push(id.clone());
            }
        }
        report.push(format!(
            "{:<5} {kind:<20} {id}{} {note}",
            if passed { "pass" } else { "-" },
            if is_supported {
                ""
            } else {
                " [unsupported op]"
            }
        ));
    }
    let mut out = String::new();
    out.push_str(
        "XLA indexing conformance (kinds op_output_to_input, op_input_to_output, fusion)\n\n",
    );
    out.push_str("by kind:\n");
    for (k, t) in &by_kind {
        out.push_str(&format!("  {k:<20} {}/{}\n", t.pass, t.total));
    }
    out.push_str("by opcode / API:\n");
    for (k, t) in &by_opcode {
        out.push_str(&format!("  {k:<40} {}/{}\n", t.pass, t.total));
    }
    let total: Tally = by_kind.values().fold(Tally::default(), |a, t| Tally {
        pass: a.pass + t.pass,
        total: a.total + t.total,
    });
    out.push_str(&format!("\nall records: {}/{}\n", total.pass, total.total));
    out.push_str(&format!(
        "records whose ops are supported: {}/{}\n\n",
        supported.pass, supported.total
    ));
    out.push_str(&format!(
        "operands XLA leaves as unknown indexing that have maps here (beyond XLA): {}\n\n",
        BEYOND_XLA.with(|b| b.get())
    ));
    let (n, k) = TEXT.with(|t| t.get());
    out.push_str(&format!(
        "maps equal to XLA's: {n}; of these printed exactly as XLA prints them: {k}\n"
    ));
    for r in &report {
        out.push_str(r);
        out.push('\n');
    }
    out.push_str("\nequal maps printed differently from XLA:\n");
    TEXT_DIFFS.with(|d| {
        for line in d.borrow().iter() {
            out.push_str(line);
            out.push('\n');
        }
    });
    print!("{out}");
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../target/conformance");
    let _ = std::fs::create_dir_all(&dir);
    let _ = std::fs::write(dir.join("xla_ops.txt"), &out);
    assert!(
        supported.pass * 100 >= supported.total * 95,
        "supported-op pass rate {}/{} is below 95%; failing: {failures_in_supported:?}",
        supported.pass,
        supported.total
    );
}
