//! Where the simplifier's benchmarks and examples read their batch of
//! cases: TVM's corpus (`shared/conformance/tvm/arith_simplify.batch`,
//! beside the checkout or under `$RANGEFINDER_SHARED`), else the bundled
//! `examples/simplify/index_exprs.batch`.

use std::path::PathBuf;

/// The batch file to time.
pub fn corpus_path() -> PathBuf {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let shared = std::env::var_os("RANGEFINDER_SHARED")
        .map(PathBuf::from)
        .unwrap_or_else(|| root.join("../../../shared"))
        .join("conformance/tvm/arith_simplify.batch");
    if shared.exists() {
        shared
    } else {
        root.join("../../examples/simplify/index_exprs.batch")
    }
}
