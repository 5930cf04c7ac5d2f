//! `rangefinder te` run as a program on the example scripts.

use std::path::PathBuf;
use std::process::{Command, Output};

fn example(name: &str) -> PathBuf {
    [
        env!("CARGO_MANIFEST_DIR"),
        "..",
        "..",
        "examples",
        "te",
        name,
    ]
    .iter()
    .collect()
}

fn rangefinder(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_rangefinder"))
        .args(args)
        .output()
        .expect("runs rangefinder")
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

#[test]
fn text_output_lists_stages_and_the_run() {
    let path = example("t08_fuse_split.py");
    let out = rangefinder(&["te", path.to_str().unwrap(), "--run", "--seed", "3"]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = stdout(&out);
    assert!(
        text.contains("stage B: computed at C.ci.cj.fused.outer"),
        "{text}"
    );
    assert!(text.contains("  attach path: ci.cj.fused.outer"), "{text}");
    assert!(
        text.contains("  realize: [ci.cj.fused.outer, 1) x [0, 4)"),
        "{text}"
    );
    assert!(text.contains("  allocation: 4 elements"), "{text}");
    assert!(text.contains("lowered:\n"), "{text}");
    assert!(text.contains("  B: runs 16, needed 16"), "{text}");
    assert!(text.contains("out-of-bounds accesses 0"), "{text}");
}

#[test]
fn json_output_has_the_documented_shape() {
    let path = example("t09_fuse_split_nondivisible.py");
    let out = rangefinder(&["te", path.to_str().unwrap(), "--json", "--run"]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("stdout is JSON");
    let stages = v["stages"].as_array().expect("stages");
    let names: Vec<&str> = stages.iter().map(|s| s["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["A", "B", "C"]);
    let b = &stages[1];
    assert_eq!(b["attach_path"], serde_json::json!(["ci.cj.fused.outer"]));
    assert_eq!(b["allocation"], 8);
    assert_eq!(b["runs"], 26);
    assert_eq!(b["realize"].as_array().unwrap().len(), 2);
    assert!(b["realize"][0]["min"].is_string() && b["realize"][0]["extent"].is_string());
    let iv = &b["iter_vars"][0];
    assert!(iv["name"].is_string() && iv["min"].is_string() && iv["extent"].is_string());
    assert!(v["lowered"].as_str().unwrap().contains("produce B"));
    assert_eq!(v["check"]["out_of_bounds"], 0);
    assert!(v["check"]["max_abs_error"].as_f64().unwrap() < 1e-4);
}

#[test]
fn json_without_run_has_no_runs_or_check() {
    let path = example("t02_compute_at_inner.py");
    let out = rangefinder(&["te", path.to_str().unwrap(), "--json"]);
    assert_eq!(out.status.code(), Some(0));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("stdout is JSON");
    assert!(v.get("check").is_none());
    assert!(v["stages"][0].get("runs").is_none());
    assert_eq!(
        v["stages"][0]["realize"][0],
        serde_json::json!({"min": "i", "extent": "1"})
    );
}

#[test]
fn script_errors_exit_2_with_line_and_column() {
    let dir = std::env::temp_dir().join(format!("rangefinder-te-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("bad.py");
    std::fs::write(&file, "import tvm\nx = 1\nclass A:\n    x = 0\nA()\n").unwrap();
    let out = rangefinder(&["te", file.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("instances of a class the script defines"),
        "{err}"
    );
    assert!(err.contains("bad.py:5:1"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// A symbolic five-stage pipeline whose exact bounds grow exponentially:
/// bounds over the budget are widened (and said so, in text and JSON), and
/// the program still runs correctly.
#[test]
fn oversized_symbolic_bounds_are_widened_and_reported() {
    let path = example("symbolic_nparts_chain.py");
    let out = rangefinder(&["te", path.to_str().unwrap(), "--run"]);
    let text = stdout(&out);
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(text.contains("  widened: i (exact bound over"), "{text}");
    assert!(text.contains("out-of-bounds accesses 0"), "{text}");
    assert!(text.contains("  ok\n"), "{text}");
    assert!(text.len() < 60_000, "output of {} bytes", text.len());
    let out = rangefinder(&["te", path.to_str().unwrap(), "--json"]);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("stdout is JSON");
    let widened: Vec<&serde_json::Value> = v["stages"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|s| s.get("widened"))
        .collect();
    assert!(!widened.is_empty(), "{v}");
    assert_eq!(widened[0], &serde_json::json!(["i"]));
}

/// Symbolic allocations print as expressions in text, as numbers do.
#[test]
fn text_prints_symbolic_allocations_without_quotes() {
    let path = example("symbolic_nparts_chain.py");
    let text = stdout(&rangefinder(&["te", path.to_str().unwrap()]));
    assert!(text.contains("  allocation: (n) elements"), "{text}");
    assert!(!text.contains("allocation: \""), "{text}");
}

/// Writes `source` to a fresh file under the temporary directory.
fn script_file(name: &str, source: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("rangefinder-te-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, source).unwrap();
    path
}

/// `from __future__ import ...` (the first line of TVM's tutorials) is
/// accepted, and a script that builds tensors without a schedule runs.
#[test]
fn future_imports_and_tensor_only_scripts_run() {
    let path = script_file(
        "future.py",
        "from __future__ import absolute_import, print_function\nimport tvm\nfrom tvm import te\n\
         A = te.placeholder((8,), name=\"A\")\nB = te.compute((8,), lambda i: A[i] + 1, name=\"B\")\n\
         print(B.shape[0])\n",
    );
    let out = rangefinder(&["te", path.to_str().unwrap()]);
    let text = stdout(&out);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(text.starts_with("8\n"), "{text}");
    assert!(text.contains("creates no schedule"), "{text}");
    let out = rangefinder(&["te", path.to_str().unwrap(), "--json"]);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("stdout is JSON");
    assert_eq!(v["stages"], serde_json::json!([]));
}

/// A program too large to run (2**62 or 2**40 input elements) is a clear
/// error under `--run`, not a panic or an allocation abort.
#[test]
fn programs_too_large_to_run_are_refused() {
    for (name, dim) in [("huge.py", "2**31"), ("big.py", "2**20")] {
        let path = script_file(
            name,
            &format!(
                "import tvm\nfrom tvm import te\nA = te.placeholder(({dim}, {dim}), name=\"A\")\n\
                 B = te.compute(({dim}, {dim}), lambda i, j: A[i, j] + 1, name=\"B\")\n\
                 s = te.create_schedule(B.op)\n"
            ),
        );
        let out = rangefinder(&["te", path.to_str().unwrap(), "--run"]);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{err}");
        assert!(err.contains("cannot run the program"), "{err}");
        let out = rangefinder(&["te", path.to_str().unwrap()]);
        assert_eq!(out.status.code(), Some(0));
    }
}

/// A producer's loop named like its consumer's enclosing loop prints as
/// `i_1`, so the two never mix in one index.
#[test]
fn shadowing_loops_print_apart() {
    let path = example("shadowing_loops.py");
    let text = stdout(&rangefinder(&["te", path.to_str().unwrap()]));
    assert!(text.contains("for (i_1, 0, 2)"), "{text}");
    assert!(
        text.contains("B[i_1, 0] = A[(i + i_1), (i + i_1)]"),
        "{text}"
    );
}

/// Indices an inlined body receives are simplified, as TVM does: the
/// producer then needs 3 elements per iteration and 20 runs, not 10 and 34.
#[test]
fn inlined_indices_are_simplified() {
    let path = example("inline_simplifies_indices.py");
    let text = stdout(&rangefinder(&["te", path.to_str().unwrap(), "--run"]));
    assert!(text.contains("allocate B[float32 * 3]"), "{text}");
    assert!(text.contains("  B: runs 20, needed 20"), "{text}");
}

/// A producer of a zero-padded symbolic tensor computed at the consumer's
/// loop allocates one element, as with concrete sizes.
#[test]
fn symbolic_padding_allocates_one_element() {
    let path = example("symbolic_zero_padding.py");
    let text = stdout(&rangefinder(&["te", path.to_str().unwrap(), "--run"]));
    let b = text.split("stage B").nth(1).expect("stage B");
    assert!(b.contains("  allocation: 1 elements"), "{text}");
    assert!(text.contains("  ok\n"), "{text}");
}

/// Fusing a `(n, n - 1)` consumer and splitting it by 2 computes a box of B
/// per outer iteration (84 runs at n = 7), not all of B each time (882).
#[test]
fn fused_symbolic_rows_are_not_recomputed_whole() {
    let path = example("fuse_split_symbolic_rows.py");
    let text = stdout(&rangefinder(&["te", path.to_str().unwrap(), "--run"]));
    assert!(text.contains("  B: runs 84, needed 42"), "{text}");
}

/// A compute body that is a flat sum of 100,000 loads is analysed,
/// lowered, printed and run without overflowing the stack, with the main
/// thread's stack limited to 2 MiB (`ulimit -s`, where a shell is present).
#[test]
fn long_flat_bodies_run_on_a_small_stack() {
    let body = vec!["A[i]"; 100_000].join(" + ");
    let path = script_file(
        "long_body.py",
        &format!(
            "import tvm\nfrom tvm import te\nA = te.placeholder((4,), name=\"A\")\n\
             B = te.compute((4,), lambda i: {body}, name=\"B\")\ns = te.create_schedule(B.op)\n\
             print(tvm.lower(s, [A, B], simple_mode=True))\n"
        ),
    );
    let exe = env!("CARGO_BIN_EXE_rangefinder");
    let out = Command::new("sh")
        .arg("-c")
        .arg("ulimit -s 2048 && exec \"$0\" te \"$1\" --run")
        .arg(exe)
        .arg(&path)
        .output()
        .unwrap_or_else(|_| rangefinder(&["te", path.to_str().unwrap(), "--run"]));
    let text = stdout(&out);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // Every term, in the script's own print and in the report's program.
    assert_eq!(text.matches("A[i]").count(), 2 * 100_000);
    assert!(
        text.ends_with("  ok\n"),
        "{}",
        &text[text.len().saturating_sub(300)..]
    );
}

/// `--print tvmscript` prints the lowered program as TVM v0.19's
/// `tvm.lower(...).script()`, thread launches and bound checks included;
/// the default stays TVM's legacy text.
#[test]
fn print_tvmscript_gives_the_tvmscript_form() {
    let path = script_file(
        "launch.py",
        "import tvm\nfrom tvm import te\n\
A = te.placeholder((1000,), name=\"A\")\n\
B = te.compute((1000,), lambda i: A[i] * 2.0, name=\"B\")\n\
s = te.create_schedule(B.op)\n\
bx, tx = s[B].split(B.op.axis[0], factor=64)\n\
s[B].bind(bx, te.thread_axis(\"blockIdx.x\"))\n\
s[B].bind(tx, te.thread_axis(\"threadIdx.x\"))\n",
    );
    let out = rangefinder(&[
        "te",
        path.to_str().unwrap(),
        "--print",
        "tvmscript",
        "--run",
    ]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = stdout(&out);
    assert!(
        text.contains(
            "lowered:\n# from tvm.script import ir as I\n# from tvm.script import tir as T\n"
        ),
        "{text}"
    );
    assert!(
        text.contains("        threadIdx_x = T.launch_thread(\"threadIdx.x\", 64)\n        if T.likely(blockIdx_x * 64 + threadIdx_x < 1000):\n"),
        "{text}"
    );
    assert!(text.contains("  ok\n"), "{text}");
    let legacy = stdout(&rangefinder(&["te", path.to_str().unwrap()]));
    assert!(
        legacy.contains("  // attr [iter_var(threadIdx.x, , threadIdx.x)] thread_extent = 64\n  if (likely((((blockIdx.x*64) + threadIdx.x) < 1000))) {\n"),
        "{legacy}"
    );
    let bad = rangefinder(&["te", path.to_str().unwrap(), "--print", "html"]);
    assert_eq!(bad.status.code(), Some(2));
}
