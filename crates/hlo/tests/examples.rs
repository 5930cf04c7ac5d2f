//! Every module under `examples/hlo/` (XLA's test modules and modules
//! printed by JAX, compiled and not) parses, and every instruction of every
//! computation is analysed in both directions, and every computation as a
//! whole, without an error: an op without a map must say "unsupported".

use hlo::{InstructionIndexing, OperandIndexing};
use std::path::PathBuf;

fn example_files() -> Vec<PathBuf> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../examples/hlo");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "hlo"))
        .collect();
    files.sort();
    files
}

/// Every map is well formed: a known-empty map or one whose runtime
/// variables are all described.
fn check(what: &str, r: &InstructionIndexing) {
    for e in &r.operands {
        if let OperandIndexing::Maps(maps) = &e.indexing {
            for m in maps {
                assert_eq!(
                    m.map.rt_vars().len(),
                    m.runtime.len(),
                    "{what}: operand {} has runtime variables without sources:\n{r}",
                    e.index
                );
            }
        }
    }
}

#[test]
fn every_example_instruction_is_analysed_both_ways() {
    let files = example_files();
    assert!(files
        .iter()
        .any(|f| f.to_string_lossy().ends_with(".compiled.hlo")));
    let mut analysed = 0;
    for file in &files {
        let text = std::fs::read_to_string(file).unwrap();
        let name = file.file_name().unwrap().to_string_lossy().into_owned();
        let module = hlo::parse_module(&text).unwrap_or_else(|e| panic!("{name}: {e}"));
        for (c, comp) in module.computations.iter().enumerate() {
            for (i, inst) in comp.instructions.iter().enumerate() {
                let what = format!("{name}: {}/{}", comp.name, inst.name);
                for out in 0..inst.shape.output_count() {
                    let r = hlo::output_to_input(&module, c, i, out, false)
                        .unwrap_or_else(|e| panic!("{what} output {out}: {e}"));
                    check(&what, &r);
                }
                for k in 0..inst.operands.len() {
                    let r = hlo::input_to_output(&module, c, i, k, false)
                        .unwrap_or_else(|e| panic!("{what} operand {k}: {e}"));
                    check(&what, &r);
                }
                analysed += 1;
            }
            let root = comp.root_instruction();
            for out in 0..root.shape.output_count() {
                if root.shape.output(out).and_then(|s| s.as_array()).is_none() {
                    continue;
                }
                let what = format!("{name}: {} as a fusion, output {out}", comp.name);
                let r =
                    hlo::to_parameters(&module, c, out).unwrap_or_else(|e| panic!("{what}: {e}"));
                check(&what, &r);
                let r = hlo::parameters_to_output(&module, c, out)
                    .unwrap_or_else(|e| panic!("{what}: {e}"));
                check(&what, &r);
            }
        }
    }
    assert!(analysed > 300, "only {analysed} instructions");
}
