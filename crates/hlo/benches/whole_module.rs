//! Whole-module maps (`to_parameters`, as `rangefinder hlo FILE
//! --to-parameters` computes them) of deep modules printed by JAX
//! (`examples/hlo/jax/generate_deep.py`): the gradient of an L-layer 1-d CNN
//! for L = 4, 8, 16, 32 (target: 32 layers within 6x the time of 8), and a
//! 12-layer transformer's gradient, lowered and compiled (target: < 2 s);
//! and the input-to-output direction (`--input-to-output`), one walk per
//! parameter, run in parallel.

use divan::Bencher;
use std::path::PathBuf;

fn main() {
    divan::main();
}

fn module(name: &str) -> hlo::Module {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("benches/modules")
        .join(name);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    hlo::parse_module(&text).expect("the module parses")
}

fn to_parameters(bencher: Bencher, name: &str, input_to_output: bool) {
    let module = module(name);
    let query = hlo::Query {
        to_parameters: true,
        input_to_output,
        ..hlo::Query::default()
    };
    bencher.bench(|| hlo::analyze(divan::black_box(&module), &query).expect("maps"));
}

#[divan::bench(args = [4, 8, 16, 32], sample_count = 5)]
fn deep_cnn_grad(bencher: Bencher, layers: usize) {
    to_parameters(bencher, &format!("deep_cnn_grad_{layers}.hlo"), false);
}

#[divan::bench(args = ["transformer_grad_12.hlo", "transformer_grad_12.compiled.hlo"], sample_count = 3)]
fn transformer_grad(bencher: Bencher, name: &str) {
    to_parameters(bencher, name, false);
}

#[divan::bench(args = [4, 8, 16], sample_count = 3)]
fn deep_cnn_grad_input_to_output(bencher: Bencher, layers: usize) {
    to_parameters(bencher, &format!("deep_cnn_grad_{layers}.hlo"), true);
}
