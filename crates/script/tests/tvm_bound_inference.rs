//! TVM's own InferBound and schedule-structure tests (v0.19.0), read at test
//! time from `shared/conformance/tvm/bound_inference.md` and run as
//! scripts: their asserts must hold. Where rangefinder is tighter than TVM,
//! an assert is replaced (the table [`TIGHTER`] says where and why).
//!
//! Tests that need what rangefinder does not model (tensor intrinsics as
//! compute bodies, TVMScript, fusing no axes) must fail with an error that
//! names it.
//!
//! Without the shared corpus beside the checkout these tests print a note
//! and pass; with it, a test program missing from it is a failure.

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
    // Scans, cache stages, rfactor and groups.
    "test_bound_scan",
    "test_bound_rfactor",
    "test_bound_group_schedule",
    "test_bound_nest_group",
    // Shared stages fetched cooperatively by the threads around their
    // consumer: sized for the block (64 rows), each thread fetching its part.
    "test_gemm_bound",
    // A compute whose body calls a tensor intrinsic on a slice of a tensor
    // (`intrin(B[i:10, 0:20])`, a `TensorComputeOp`): the producer is
    // bounded by the region passed. (Its intrinsic reads three rows of a
    // region that has fewer for `i >= 8`; the test only infers bounds, and
    // `--run` reports those reads.)
    "test_bound_tensor_compute_op",
    // Padded shared storage (`storage_align`): printed, bounds unchanged.
    "test_bound_tile_mod",
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
    // A scan, normalized, through ScheduleOps.
    "test_schedule_scan",
];

/// Tests outside the subset, with the text their error must contain.
const UNSUPPORTED: &[(&str, &str)] = &[
    // Tensor intrinsics; the TVMScript `T` namespace is the first thing missing.
    ("test_tensorize_vadd", "name `T` is not defined"),
    ("test_tensorize_matmul", "name `T` is not defined"),
    // Fusing zero axes (TVM's Singleton relation) and its asserts pass;
    // then the schedule is pickled, through a `pkl` the extract does not
    // import (TVM's test file imports `pickle as pkl`).
    ("test_singleton", "name `pkl` is not defined"),
];

/// An assert that rangefinder answers more tightly than TVM: in `test`, the
/// one line that reads `line` (stripped) is replaced by `by`, indented as
/// that line was.
struct Tighter {
    test: &'static str,
    line: &'static str,
    by: &'static str,
}

/// Where rangefinder is tighter than TVM, and why.
const TIGHTER: &[Tighter] = &[
    Tighter {
        test: "test_bound_scan",
        line: "assert bounds[XX.op.axis[1]].extent.value == 4",
        by: "\
# rangefinder: tighter because 4 need not divide n: the last iteration of
# xo only needs the n - xo*4 remaining columns of X (seed 000,
# PassDownDomain); TVM's answer is the constant 4.
tvm.testing.assert_prim_expr_equal(bounds[XX.op.axis[1]].extent, te.min(n - xo.var * 4, 4))",
    },
    Tighter {
        test: "test_bound1",
        line: "assert bounds[A1.op.axis[0]].extent.value == 8",
        by: "\
# rangefinder: tighter because 8 need not divide m: in the last iteration of
# xo only the m - xo*8 remaining rows of A1 are needed (seed 000,
# PassDownDomain); TVM's answer is the constant 8.
tvm.testing.assert_prim_expr_equal(bounds[A1.op.axis[0]].extent, te.min(m - xo.var * 8, 8))",
    },
    Tighter {
        test: "test_bound2",
        line: "assert bounds[A1.op.axis[0]].extent.value == 8",
        by: "\
# rangefinder: tighter because 8 need not divide m or l: the last tile in
# each direction only needs the rows and columns that remain (seed 000,
# PassDownDomain); TVM's answer is the constant 8 for both.
tvm.testing.assert_prim_expr_equal(bounds[A1.op.axis[0]].extent, te.min(m - xo.var * 8, 8))",
    },
    Tighter {
        test: "test_bound2",
        line: "assert bounds[A1.op.axis[1]].extent.value == 8",
        by: "tvm.testing.assert_prim_expr_equal(bounds[A1.op.axis[1]].extent, te.min(l - yo.var * 8, 8))",
    },
    Tighter {
        test: "test_bound3",
        line: "assert bounds[A1.op.axis[0]].extent.value == 32",
        by: "\
# rangefinder: tighter because 32 and 16 need not divide m and l: in the last
# iteration of xo (yo) only the remaining rows (columns) of A1 are needed
# (seed 000, PassDownDomain); TVM's answers are the constants 32 and 16. The
# threadIdx.x loop xi0 still covers all 32 rows: A1 is shared.
tvm.testing.assert_prim_expr_equal(bounds[A1.op.axis[0]].extent, te.min(m - xo.var * 32, 32))",
    },
    Tighter {
        test: "test_bound3",
        line: "assert bounds[A1.op.axis[1]].extent.value == 16",
        by: "tvm.testing.assert_prim_expr_equal(bounds[A1.op.axis[1]].extent, te.min(l - yo.var * 16, 16))",
    },
    Tighter {
        test: "test_bound_fusesplit1",
        line: "xo.var: tvm.tir.const(k, \"int32\"),",
        by: "\
xo.var: tvm.tir.const(k, \"int32\"),
# rangefinder: tighter because the last iteration of xo is partial
# (the fused axis ends at m*l) and the rows are clipped to the m
# rows of A1, which TVM ignores; m = 30 makes every substituted xo
# a full iteration ((k+1)*i <= m*j), where TVM's formula must hold.
m: tvm.tir.const(30, \"int32\"),",
    },
    Tighter {
        test: "test_bound_fusesplit1",
        line: "tvm.testing.assert_prim_expr_equal(bounds[A1.op.axis[1]].extent, l)",
        by: "\
# rangefinder: tighter because when the split1 fused iterations of one xo lie
# in a single row, only their columns are needed (the minimal box); across
# rows it is all l columns, TVM's answer.
for i in range(1, 6):
    for j in range(1, 6):
        for k in range(1, 6):
            vars = tvm.runtime.convert(
                {
                    split1: tvm.tir.const(i, \"int32\"),
                    l: tvm.tir.const(j, \"int32\"),
                    xo.var: tvm.tir.const(k, \"int32\"),
                    m: tvm.tir.const(30, \"int32\"),
                }
            )
            first, last = k * i, (k + 1) * i - 1
            if first // j == last // j:
                columns = last % j - first % j + 1
            else:
                columns = j
            tvm.testing.assert_prim_expr_equal(
                tvm.tir.stmt_functor.substitute(bounds[A1.op.axis[1]].extent, vars), columns
            )",
    },
    Tighter {
        test: "test_bound_nest_thread",
        line: "assert bounds[A1.op.axis[0]].extent.value == 1",
        by: "\
# rangefinder: tighter because 32 need not divide m: the last block needs
# only the m - bx*32 remaining elements of A2, and A1's one element is cut
# to the m elements of A, which the analyzer cannot prove bx*32 + tx stays
# below (seed 000); TVM's answers are the constants 1 and 32.
tvm.testing.assert_prim_expr_equal(
    bounds[A1.op.axis[0]].extent, te.min(m - bx.var * 32 - tx.var, 1)
)",
    },
    Tighter {
        test: "test_bound_nest_thread",
        line: "assert bounds[A2.op.axis[0]].extent.value == 32",
        by: "tvm.testing.assert_prim_expr_equal(bounds[A2.op.axis[0]].extent, te.min(m - bx.var * 32, 32))",
    },
    Tighter {
        test: "test_bound_warp",
        line: "assert bounds[A1.op.axis[0]].extent.value == 16",
        by: "\
# rangefinder: tighter because 32 and 16 need not divide m: in the last rows
# only what remains of A1 is needed (seed 000, PassDownDomain); TVM's answer
# is the constant 16, the threadIdx.x loop relaxed for warp storage.
xo2, xi0 = s[A2].leaf_iter_vars[0], s[A2].leaf_iter_vars[1]
tvm.testing.assert_prim_expr_equal(
    bounds[A1.op.axis[0]].extent, te.min(m - xo2.var * 32 - xi0.var * 16, 16)
)",
    },
];

/// What every program starts with: the imports of TVM's test files.
const PRELUDE: &str = "import tvm\nimport pytest\nimport tvm.testing\nfrom tvm import te\n\n\n";

/// The corpus text, or `None` (with a note) when the shared directory is
/// not beside the checkout. A shared directory without the corpus is a
/// failure: the tests would silently stop covering it.
fn corpus() -> Option<String> {
    let shared = std::env::var_os("RANGEFINDER_SHARED")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared"));
    let path = shared.join("conformance/tvm/bound_inference.md");
    match std::fs::read_to_string(&path) {
        Ok(text) => Some(text),
        Err(_) if !shared.join("conformance").is_dir() => {
            println!(
                "note: {} is absent; skipping TVM's InferBound tests",
                shared.join("conformance").display()
            );
            None
        }
        Err(e) => panic!("{}: {e}", path.display()),
    }
}

/// Every test of the corpus: its name and its code, as the corpus gives it
/// under a `### [FILE :: ]NAME` heading.
fn corpus_tests(text: &str) -> Vec<(String, String)> {
    let mut tests = Vec::new();
    for section in text.split("\n### ").skip(1) {
        let heading = section.lines().next().unwrap_or_default();
        let heading = heading.rsplit(":: ").next().unwrap_or(heading);
        let name = heading.split_whitespace().next().unwrap_or_default();
        let Some(start) = section.find("```python\n") else {
            continue;
        };
        let code = &section[start + "```python\n".len()..];
        let end = code.find("```").expect("a closed code block");
        tests.push((name.to_string(), code[..end].to_string()));
    }
    tests
}

/// The test `name` as a script: the prelude, the test with rangefinder's
/// tighter asserts in place, and a call of the test.
fn program(tests: &[(String, String)], name: &str) -> String {
    let (_, code) = tests
        .iter()
        .find(|(n, _)| n == name)
        .unwrap_or_else(|| panic!("`{name}` is not in the corpus"));
    let mut code = code.clone();
    for edit in TIGHTER.iter().filter(|t| t.test == name) {
        code = replace_line(&code, edit).unwrap_or_else(|e| panic!("{name}: {e}"));
    }
    format!("{PRELUDE}{code}\n\n{name}()\n")
}

/// Replaces the one line of `code` that reads `edit.line`.
fn replace_line(code: &str, edit: &Tighter) -> Result<String, String> {
    let hits: Vec<usize> = code
        .lines()
        .enumerate()
        .filter(|(_, l)| l.trim() == edit.line)
        .map(|(i, _)| i)
        .collect();
    let [at] = hits[..] else {
        return Err(format!("`{}` occurs {} times", edit.line, hits.len()));
    };
    let mut out = String::new();
    for (i, line) in code.lines().enumerate() {
        if i == at {
            let indent = &line[..line.len() - line.trim_start().len()];
            for by in edit.by.lines() {
                out.push_str(indent);
                out.push_str(by);
                out.push('\n');
            }
        } else {
            out.push_str(line);
            out.push('\n');
        }
    }
    Ok(out)
}

#[test]
fn every_corpus_test_is_classified() {
    let Some(text) = corpus() else { return };
    let mut names: Vec<String> = corpus_tests(&text).into_iter().map(|t| t.0).collect();
    names.sort();
    let mut listed: Vec<String> = PASSING_MAIN
        .iter()
        .chain(PASSING_OTHER)
        .copied()
        .chain(UNSUPPORTED.iter().map(|u| u.0))
        .map(String::from)
        .collect();
    listed.sort();
    assert_eq!(names, listed);
    assert_eq!(names.len(), 34, "every test program of bound_inference.md");
}

/// Where the passing programs are written as they were run, for the
/// Python package's tests to run the same programs under CPython.
fn written_programs() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../target/conformance/tvm_bound_inference")
}

#[test]
fn supported_tests_pass_their_asserts() {
    let Some(text) = corpus() else { return };
    let tests = corpus_tests(&text);
    let dir = written_programs();
    std::fs::create_dir_all(&dir).expect("a directory under target/");
    for name in PASSING_MAIN.iter().chain(PASSING_OTHER) {
        let source = program(&tests, name);
        std::fs::write(dir.join(format!("{name}.py")), &source).expect("a writable target/");
        if let Err(e) = script::run(&source) {
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
    let Some(text) = corpus() else { return };
    let tests = corpus_tests(&text);
    for (name, fragment) in UNSUPPORTED {
        match script::run(&program(&tests, name)) {
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
fn every_tighter_assert_replaces_a_line_of_the_corpus() {
    let Some(text) = corpus() else { return };
    let tests = corpus_tests(&text);
    for edit in TIGHTER {
        let (_, code) = tests
            .iter()
            .find(|(n, _)| n == edit.test)
            .expect("a corpus test");
        replace_line(code, edit).unwrap_or_else(|e| panic!("{}: {e}", edit.test));
    }
}

#[test]
fn an_edited_assert_still_fails_on_a_wrong_answer() {
    let Some(text) = corpus() else { return };
    // The `tighter` edits compare with an exact expression; a wrong extent
    // must still fail them.
    let source = program(&corpus_tests(&text), "test_bound1")
        .replace("te.min(m - xo.var * 8, 8)", "te.min(m - xo.var * 8, 7)");
    let err = script::run(&source).expect_err("a wrong expected extent fails");
    assert!(
        err.message.contains("assert_prim_expr_equal failed"),
        "{}",
        err.message
    );
}
