//! The JAX corpus under `examples/hlo/corpus/` (printed by
//! `examples/hlo/jax/corpus.py`): every module parses, and the whole-module
//! maps of its entry (`rangefinder hlo FILE --to-parameters`, for every
//! array output of the ROOT) are computed without an error. Where an op
//! has no map the entry says "unknown indexing"; the test counts those
//! entries by op, in both directions (`--input-to-output` too), prints the
//! figure (`cargo test -p hlo --test corpus -- --nocapture`) and holds it
//! under a ceiling that only comes down.

use hlo::{Module, OperandIndexing, Query};
use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;

/// Ceilings on the figure, a ratchet: each is the figure when it was last
/// measured. They may only be lowered (to the figure the test prints, as
/// ops gain maps), never raised: an analysis change or a new module that
/// leaves more maps unknown fails here. An (output, parameter) entry says
/// "unknown indexing" at most once, so giving an op a map can only lower
/// these counts, even where it exposes another op without a map behind it.
const MAX_MODULES_WITH_UNKNOWN_INDEXING: usize = 0;
/// Ceiling on the `--to-parameters` entries that say "unknown indexing"
/// (same ratchet).
const MAX_UNKNOWN_ENTRIES: usize = 0;
/// Ceiling on the modules whose `--to-parameters --input-to-output` entries
/// say "unknown indexing" (same ratchet).
const MAX_MODULES_WITH_UNKNOWN_INDEXING_INPUT_TO_OUTPUT: usize = 0;
/// Ceiling on the `--to-parameters --input-to-output` entries that say
/// "unknown indexing" (same ratchet).
const MAX_UNKNOWN_ENTRIES_INPUT_TO_OUTPUT: usize = 0;

fn corpus_files() -> Vec<PathBuf> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../examples/hlo/corpus");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "hlo"))
        .collect();
    files.sort();
    files
}

/// The op an error is about, found by the span of the instruction it
/// names (`custom-call` with its target): the key of the breakdown.
fn op_of(module: &Module, error: &hlo::AnalysisError) -> String {
    let found = module.computations.iter().find_map(|c| {
        c.instructions
            .iter()
            .find(|i| Some(&i.span) == error.span.as_ref())
    });
    match found {
        Some(inst) => match inst.attrs.raw("custom_call_target") {
            Some(target) => format!("{} {target}", inst.opcode),
            None => inst.opcode.to_string(),
        },
        None => format!("(no instruction: {})", error.message),
    }
}

/// Counts of one op (or of the whole corpus).
#[derive(Default)]
struct Tally {
    entries: usize,
    modules: BTreeSet<String>,
}

/// The whole-module maps of every corpus module in one direction.
#[derive(Default)]
struct Figure {
    modules: usize,
    outputs: usize,
    entries: usize,
    maps: usize,
    unknown: Tally,
    by_op: BTreeMap<String, Tally>,
}

/// Runs `--to-parameters` (with `--input-to-output` when asked) for every
/// array output of every corpus module's ROOT; any error fails the test.
fn figure(files: &[PathBuf], input_to_output: bool) -> Figure {
    let mut fig = Figure {
        modules: files.len(),
        ..Figure::default()
    };
    for file in files {
        let name = file.file_name().unwrap().to_string_lossy().into_owned();
        let text = std::fs::read_to_string(file).unwrap();
        let module = hlo::parse_module(&text).unwrap_or_else(|e| panic!("{name}: {e}"));
        let root = module.entry_computation().root_instruction();
        for output in 0..root.shape.output_count() {
            if root
                .shape
                .output(output)
                .and_then(|s| s.as_array())
                .is_none()
            {
                continue;
            }
            let query = Query {
                to_parameters: true,
                input_to_output,
                output,
                ..Query::default()
            };
            let result = hlo::analyze(&module, &query).unwrap_or_else(|e| {
                panic!("{name} --to-parameters --output {output} (input to output: {input_to_output}): {e}")
            });
            fig.outputs += 1;
            for entry in &result.operands {
                fig.entries += 1;
                match &entry.indexing {
                    OperandIndexing::Maps(m) => fig.maps += m.len(),
                    OperandIndexing::Unsupported(e) => {
                        fig.unknown.entries += 1;
                        fig.unknown.modules.insert(name.clone());
                        let op = fig.by_op.entry(op_of(&module, e)).or_default();
                        op.entries += 1;
                        op.modules.insert(name.clone());
                    }
                }
            }
        }
    }
    fig
}

fn print_figure(title: &str, fig: &Figure) {
    println!(
        "{title}: {} modules, {} root outputs, {} (output, parameter) entries, {} maps",
        fig.modules, fig.outputs, fig.entries, fig.maps
    );
    println!(
        "  unknown indexing: {} entries in {} of {} modules",
        fig.unknown.entries,
        fig.unknown.modules.len(),
        fig.modules
    );
    for (op, t) in &fig.by_op {
        println!(
            "    {op:<44} {:>4} entries {:>3} modules",
            t.entries,
            t.modules.len()
        );
    }
}

#[test]
fn corpus_whole_module_maps_and_unknown_indexing_figure() {
    let files = corpus_files();
    // 63 programs, each lowered and compiled: fewer modules would lower the
    // figure without any op gaining a map.
    assert!(files.len() >= 126, "only {} corpus modules", files.len());
    let fig = figure(&files, false);
    print_figure("--to-parameters", &fig);
    let names: Vec<&str> = fig.unknown.modules.iter().map(String::as_str).collect();
    println!("  modules with unknown indexing: {}", names.join(" "));
    let back = figure(&files, true);
    print_figure("--to-parameters --input-to-output", &back);
    assert_within(
        fig.unknown.modules.len(),
        MAX_MODULES_WITH_UNKNOWN_INDEXING,
        "modules",
    );
    assert_within(fig.unknown.entries, MAX_UNKNOWN_ENTRIES, "entries");
    assert_within(
        back.unknown.modules.len(),
        MAX_MODULES_WITH_UNKNOWN_INDEXING_INPUT_TO_OUTPUT,
        "modules (input to output)",
    );
    assert_within(
        back.unknown.entries,
        MAX_UNKNOWN_ENTRIES_INPUT_TO_OUTPUT,
        "entries (input to output)",
    );
}

/// Fails when `count` is over its ratchet `ceiling` (ceilings are only
/// ever lowered, as ops gain maps).
fn assert_within(count: usize, ceiling: usize, what: &str) {
    assert!(
        count <= ceiling,
        "{count} {what} say unknown indexing, more than the ceiling {ceiling}"
    );
}

/// Every instruction of every corpus module, in every computation, is
/// analysed both ways without an error (an op without a map says
/// "unknown indexing" instead), and every map's runtime variables are
/// described.
#[test]
fn every_corpus_instruction_is_analysed_both_ways() {
    let mut analysed = 0;
    for file in corpus_files() {
        let name = file.file_name().unwrap().to_string_lossy().into_owned();
        let text = std::fs::read_to_string(&file).unwrap();
        let module = hlo::parse_module(&text).unwrap_or_else(|e| panic!("{name}: {e}"));
        for (c, comp) in module.computations.iter().enumerate() {
            for (i, inst) in comp.instructions.iter().enumerate() {
                let what = format!("{name}: {}/{}", comp.name, inst.name);
                let mut results = Vec::new();
                for out in 0..inst.shape.output_count() {
                    results.push(
                        hlo::output_to_input(&module, c, i, out, false)
                            .unwrap_or_else(|e| panic!("{what} output {out}: {e}")),
                    );
                }
                for k in 0..inst.operands.len() {
                    results.push(
                        hlo::input_to_output(&module, c, i, k, false)
                            .unwrap_or_else(|e| panic!("{what} operand {k}: {e}")),
                    );
                }
                for r in &results {
                    for e in &r.operands {
                        for m in e.indexing.maps().unwrap_or_default() {
                            assert_eq!(
                                m.map.rt_vars().len(),
                                m.runtime.len(),
                                "{what}: runtime variables without sources:\n{r}"
                            );
                        }
                    }
                }
                analysed += 1;
            }
        }
    }
    assert!(analysed > 5000, "only {analysed} instructions");
}
