//! TVM's own InferBound and schedule-structure tests (v0.19.0), copied
//! verbatim from `shared/conformance/tvm/bound_inference.md` into
//! `tests/tvm_bound_inference/*.py` and run as scripts: their asserts must
//! hold. Where rangefinder is tighter than TVM, the assert was edited and
//! marked `# rangefinder: tighter because ...`.
//!
//! Tests that need what rangefinder does not model (cache stages, rfactor,
//! scan, groups, tensor intrinsics) must fail with an error that names it.

use std::path::PathBuf;

/// The tests of `test_te_schedule_bound_inference.py` (21 in all) that run and pass.
const PASSING_MAIN: &[&str] = &[
    "test_bound1",
    "test_bound2",
    "test_bound_split_ext_less_than_factor",
    "test_bound_split_ext_less_than_naprts",
    "test_bound_split_divisible",
    "test_bound_tile_divisible",
    "test_bound_fusesplit1",
    "test_bound_fusesplit2",
    "test_bound_conv1d",
    "test_bound_blur",
    "test_bound_simplification_failure",
    "test_bound_block",
    // Thread binding and storage scopes.
    "test_bound3",
    "test_bound_warp",
    "test_bound_nest_thread",
];

/// The other tests of the corpus (its appendices) that run and pass.
const PASSING_OTHER: &[&str] = &[
    "test_split",
    "test_tile",
    "test_fuse",
    "test_fuse_with_split",
    "test_reorder",
    "test_fuse_with_out_of_order_axis",
    "test_fuse_with_out_of_order_axis_with_reorder",
    // Computing a stage at its own loop raises at `tvm.lower`, inside the
    // test's `pytest.raises`, as in TVM.
    "test_compute_at",
];

/// Tests outside the subset, with the text their error must contain.
const UNSUPPORTED: &[(&str, &str)] = &[
    ("test_bound_scan", "`tvm.te.scan` is not supported"),
    ("test_bound_rfactor", "`s.rfactor`"),
    ("test_bound_group_schedule", "`s.create_group`"),
    ("test_bound_nest_group", "`s.create_group`"),
    // Binds threads, but its shared and local stages come from cache_read
    // and cache_write.
    ("test_gemm_bound", "`s.cache_write`"),
    (
        "test_bound_tensor_compute_op",
        "`tvm.tir.decl_buffer` is not supported",
    ),
    // Also needs cache_write and storage_align.
    ("test_bound_tile_mod", "unknown data type `float16`"),
    ("test_schedule_scan", "`tvm.te.scan` is not supported"),
    // Tensor intrinsics; the TVMScript `T` namespace is the first thing missing.
    ("test_tensorize_vadd", "name `T` is not defined"),
    ("test_tensorize_matmul", "name `T` is not defined"),
    // TVM's Singleton relation (fusing zero axes), then pickling.
    ("test_singleton", "fusing no axes is not supported"),
];

fn program(name: &str) -> String {
    let path: PathBuf = [
        env!("CARGO_MANIFEST_DIR"),
        "tests",
        "tvm_bound_inference",
        &format!("{name}.py"),
    ]
    .iter()
    .collect();
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

#[test]
fn every_copied_test_is_classified() {
    let dir: PathBuf = [env!("CARGO_MANIFEST_DIR"), "tests", "tvm_bound_inference"]
        .iter()
        .collect();
    let mut files: Vec<String> = std::fs::read_dir(&dir)
        .expect("test programs")
        .filter_map(|e| {
            let name = e.ok()?.file_name().into_string().ok()?;
            name.strip_suffix(".py").map(String::from)
        })
        .collect();
    files.sort();
    let mut listed: Vec<String> = PASSING_MAIN
        .iter()
        .chain(PASSING_OTHER)
        .copied()
        .chain(UNSUPPORTED.iter().map(|u| u.0))
        .map(String::from)
        .collect();
    listed.sort();
    assert_eq!(files, listed);
    assert_eq!(files.len(), 34, "every test program of bound_inference.md");
}

#[test]
fn supported_tests_pass_their_asserts() {
    for name in PASSING_MAIN.iter().chain(PASSING_OTHER) {
        if let Err(e) = script::run(&program(name)) {
            panic!("{name}: {e}");
        }
    }
    println!(
        "{} of the 21 main InferBound tests and {} of the 13 others run and pass",
        PASSING_MAIN.len(),
        PASSING_OTHER.len()
    );
}

#[test]
fn unsupported_tests_name_what_is_missing() {
    for (name, fragment) in UNSUPPORTED {
        match script::run(&program(name)) {
            Ok(_) => panic!("{name} ran: move it to the passing tests"),
            Err(e) => {
                assert!(
                    e.message.contains(fragment),
                    "{name}: `{}` lacks `{fragment}`",
                    e.message
                )
            }
        }
    }
}

#[test]
fn an_edited_assert_still_fails_on_a_wrong_answer() {
    // The `tighter` edits compare with an exact expression; a wrong extent
    // must still fail them.
    let source =
        program("test_bound1").replace("te.min(m - xo.var * 8, 8)", "te.min(m - xo.var * 8, 7)");
    let err = script::run(&source).expect_err("a wrong expected extent fails");
    assert!(
        err.message.contains("assert_prim_expr_equal failed"),
        "{}",
        err.message
    );
}
