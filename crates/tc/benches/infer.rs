//! `cargo bench -p tc`: parsing plus range inference of the example
//! programs, per definition: the C1-C10 programs of `examples/tc/`, the other
//! examples there, and the programs of the TC repository (read from the
//! shared conformance corpus when it is beside the checkout). TC's
//! isl-based inference takes 0.3-1 ms per range query on these.

#[path = "../tests/common/repository.rs"]
#[allow(dead_code)]
mod repository;

use std::path::PathBuf;

fn main() {
    divan::main();
}

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn read(path: PathBuf) -> String {
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Every example file's text, C1-C10 first.
fn examples() -> Vec<(String, String)> {
    let dir = root().join("../../examples/tc");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "tc"))
        .collect();
    files.sort();
    files
        .into_iter()
        .map(|p| {
            (
                p.file_name().unwrap().to_string_lossy().to_string(),
                read(p),
            )
        })
        .collect()
}

/// The single-definition C1 matmul.
#[divan::bench]
fn matmul_def(b: divan::Bencher) {
    let src = read(root().join("../../examples/tc/c01_matmul.tc"));
    b.bench(|| tc::analyze(divan::black_box(&src)));
}

/// C2: the two-round stencil.
#[divan::bench]
fn stencil_def(b: divan::Bencher) {
    let src = read(root().join("../../examples/tc/c02_stencil.tc"));
    b.bench(|| tc::analyze(divan::black_box(&src)));
}

/// A strided convolution with a bias statement.
#[divan::bench]
fn conv_strided_def(b: divan::Bencher) {
    let src = read(root().join("../../examples/tc/conv_strided.tc"));
    b.bench(|| tc::analyze(divan::black_box(&src)));
}

/// Every example file (17 definitions in all).
#[divan::bench]
fn all_examples(b: divan::Bencher) {
    let files = examples();
    b.bench(|| {
        for (_, src) in &files {
            divan::black_box(tc::analyze(divan::black_box(src)));
        }
    });
}

/// The TC repository's 148 example programs, one source (nothing to
/// measure without the shared corpus).
#[divan::bench(sample_count = 20)]
fn tc_repository(b: divan::Bencher) {
    let src = repository::corpus()
        .map(|c| repository::accepted_source(&repository::programs(&c)))
        .unwrap_or_default();
    b.bench(|| tc::analyze(divan::black_box(&src)));
}
