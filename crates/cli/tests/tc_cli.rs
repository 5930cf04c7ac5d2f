//! `rangefinder tc`: text and JSON output, sizes, `--run`, exit codes.

use serde_json::Value;
use std::path::Path;
use std::process::Command;

fn example(name: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../examples/tc")
        .join(name)
        .to_str()
        .unwrap()
        .to_string()
}

fn run(args: &[&str]) -> (Option<i32>, String, String) {
    let o = Command::new(env!("CARGO_BIN_EXE_rangefinder"))
        .args(args)
        .output()
        .unwrap();
    (
        o.status.code(),
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

fn temp(name: &str, text: &str) -> String {
    let p = std::env::temp_dir().join(format!("rangefinder_tc_{}_{name}", std::process::id()));
    std::fs::write(&p, text).unwrap();
    p.to_str().unwrap().to_string()
}

#[test]
fn text_ranges_and_shapes() {
    let (code, out, _) = run(&["tc", &example("c02_stencil.tc")]);
    assert_eq!(code, Some(0));
    assert_eq!(
        out,
        "def stencil\n  0 <= i < N - L + 1\n  0 <= k < L\n  A: N - L + 1\n"
    );
    let (code, out, _) = run(&[
        "tc",
        &example("c02_stencil.tc"),
        "--size",
        "N=10",
        "--size",
        "L=3",
    ]);
    assert_eq!(code, Some(0));
    assert!(out.contains("0 <= i < N - L + 1    (0 <= i < 8)"), "{out}");
    assert!(out.contains("A: N - L + 1    (8)"), "{out}");
}

#[test]
fn diagnostics_have_source_line_and_caret() {
    let (code, out, _) = run(&["tc", &example("c09_dynamic_stride.tc")]);
    assert_eq!(code, Some(1));
    assert!(
        out.contains("Error: cannot infer the range of `i`"),
        "{out}"
    );
    assert!(out.contains("A(i) = B(S(0)*i)"), "{out}");
    assert!(out.contains("───┬──"), "{out}");
    let (code, out, _) = run(&["tc", &example("c03_precondition.tc")]);
    assert_eq!(code, Some(0), "a warning is not an error");
    assert!(
        out.contains("Warning: `C(i + j)` may read out of bounds"),
        "{out}"
    );
    let (code, out, _) = run(&["tc", &example("c04_lut.tc")]);
    assert_eq!(code, Some(0));
    assert!(
        out.contains("Advice: index 0 of `B` depends on tensor values"),
        "{out}"
    );
}

#[test]
fn json_output() {
    let (code, out, _) = run(&[
        "tc",
        &example("c03_precondition.tc"),
        "--json",
        "--size",
        "I=3",
        "--size",
        "J=4",
        "--size",
        "K=5",
    ]);
    assert_eq!(code, Some(1), "the precondition fails for these sizes");
    let v: Value = serde_json::from_str(&out).unwrap();
    let d = &v["defs"][0];
    assert_eq!(d["name"], "precondition");
    assert_eq!(d["ranges"][1]["var"], "j");
    assert_eq!(d["ranges"][1]["lower"], "0");
    assert_eq!(d["ranges"][1]["upper"], "J");
    assert_eq!(d["ranges"][1]["upper_value"], 4);
    assert_eq!(d["outputs"][0]["shape"], serde_json::json!(["I", "J"]));
    assert_eq!(d["outputs"][0]["shape_value"], serde_json::json!([3, 4]));
    let diag = &d["diagnostics"][0];
    assert_eq!(diag["severity"], "error");
    assert_eq!(diag["line"], 3);
    assert_eq!(diag["column"], 22);
    assert_eq!(
        diag["span"]["end"].as_u64().unwrap() - diag["span"]["start"].as_u64().unwrap(),
        8
    );
    // Without sizes, no `_value` fields.
    let (_, out, _) = run(&["tc", &example("c01_matmul.tc"), "--json"]);
    let v: Value = serde_json::from_str(&out).unwrap();
    assert!(v["defs"][0]["ranges"][0].get("lower_value").is_none());
    assert_eq!(v["defs"][0]["ranges"][2]["var"], "r_k");
    assert_eq!(v["defs"][0]["diagnostics"], serde_json::json!([]));
}

#[test]
fn run_compares_with_direct_evaluation() {
    let (code, out, err) = run(&[
        "tc",
        &example("conv_strided.tc"),
        "--run",
        "--seed",
        "4",
        "--size",
        "N=2",
        "--size",
        "C=2",
        "--size",
        "H=9",
        "--size",
        "W=11",
        "--size",
        "M=3",
        "--size",
        "KH=3",
        "--size",
        "KW=2",
    ]);
    assert_eq!(code, Some(0), "{out}{err}");
    assert!(
        out.contains("lowered to te and run: 96 output elements equal direct evaluation"),
        "{out}"
    );
    assert!(out.contains("out-of-bounds reads 0"), "{out}");
    // A precondition that fails: the run shows the reads.
    let (code, out, _) = run(&[
        "tc",
        &example("c03_precondition.tc"),
        "--run",
        "--size",
        "I=3",
        "--size",
        "J=4",
        "--size",
        "K=5",
    ]);
    assert_eq!(code, Some(1));
    assert!(out.contains("out-of-bounds reads 2"), "{out}");
    assert!(out.contains("MISMATCH"), "{out}");
    // `exp` and max and sum reductions: lowered to te and run too.
    let (code, out, _) = run(&[
        "tc",
        &example("softmax.tc"),
        "--run",
        "--size",
        "N=3",
        "--size",
        "D=4",
    ]);
    assert_eq!(code, Some(0), "{out}");
    assert!(
        out.contains("lowered to te and run: 18 output elements equal direct evaluation"),
        "{out}"
    );
    assert!(out.contains("out-of-bounds reads 0"), "{out}");
}

#[test]
fn every_example_runs() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/tc");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    let sizes = [
        "M=4", "K=16", "N=7", "L=3", "B=2", "C=2", "H=8", "W=9", "KH=3", "KW=2", "G=2", "F=2",
        "D=3", "I=8", "J=8",
    ];
    for f in files {
        let name = f.file_name().unwrap().to_string_lossy().to_string();
        let mut args = vec!["tc", f.to_str().unwrap(), "--run"];
        for s in &sizes {
            args.push("--size");
            args.push(s);
        }
        let (code, out, err) = run(&args);
        let expected = match name.as_str() {
            // The dynamic stride needs a where clause.
            "c09_dynamic_stride.tc" => 1,
            _ => 0,
        };
        assert_eq!(code, Some(expected), "{name}: {out}{err}");
        if expected == 0 {
            assert!(
                out.contains("out-of-bounds reads 0") && !out.contains("MISMATCH"),
                "{name}: {out}"
            );
        }
    }
}

#[test]
fn exit_codes_for_bad_arguments_and_files() {
    let (code, _, err) = run(&["tc", "/nonexistent/file.tc"]);
    assert_eq!(code, Some(2));
    assert!(err.contains("cannot read"), "{err}");
    let (code, _, err) = run(&["tc", &example("c01_matmul.tc"), "--size", "M"]);
    assert_eq!(code, Some(2));
    assert!(err.contains("NAME=VALUE"), "{err}");
    let (code, _, _) = run(&["tc", &example("c01_matmul.tc"), "--size", "M=-1"]);
    assert_eq!(code, Some(2));
    let (code, _, err) = run(&["tc", &example("c01_matmul.tc"), "--run", "--size", "M=2"]);
    assert_eq!(code, Some(2));
    assert!(
        err.contains("--size K=") && err.contains("--size N="),
        "{err}"
    );
    let (code, out, err) = run(&["tc", &example("c01_matmul.tc"), "--size", "Q=2"]);
    assert_eq!(code, Some(0), "{out}");
    assert!(err.contains("no definition has a size symbol `Q`"), "{err}");
    // A syntax error is an error in the program: exit 1, with the caret.
    let f = temp("syntax.tc", "def f(float(N) A) -> (B) { B(i) = A(i) + }");
    let (code, out, _) = run(&["tc", &f]);
    assert_eq!(code, Some(1));
    assert!(out.contains("expected an expression"), "{out}");
    let (code, out, _) = run(&["tc", &f, "--json"]);
    assert_eq!(code, Some(1));
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["diagnostics"][0]["severity"], "error");
    // Binary garbage and deep nesting: diagnostics, no crash.
    let f = temp(
        "garbage.tc",
        &format!(
            "def f() -> (O) {{ O = {}1{} }}",
            "(".repeat(50_000),
            ")".repeat(50_000)
        ),
    );
    let (code, out, _) = run(&["tc", &f]);
    assert_eq!(code, Some(1));
    assert!(out.contains("nests more than"), "{out}");
}

#[test]
fn size_bindings_are_checked() {
    let f = example("c02_stencil.tc");
    for (args, want) in [
        (
            vec!["--size", "N=3", "--size", "N=4"],
            "`N=3` and `N=4` both bind `N`",
        ),
        (vec!["--size", "=3"], "`=3`: the size has no name"),
        (vec!["--size", "N=0"], "size `N` must be at least 1, got 0"),
        (
            vec!["--size", "N=-2"],
            "size `N` must be at least 1, got -2",
        ),
        (
            vec!["--size", "N=99999999999999999999"],
            "99999999999999999999 does not fit a 64-bit integer",
        ),
        (vec!["--size", "N"], "expected NAME=VALUE"),
    ] {
        let mut all = vec!["tc", f.as_str()];
        all.extend(args.iter().copied());
        let (code, out, err) = run(&all);
        assert_eq!(code, Some(2), "{args:?}: {out}{err}");
        assert!(err.contains(want), "{args:?}: {err}");
    }
}

#[test]
fn sizes_without_a_value_are_listed() {
    let (code, out, _) = run(&["tc", &example("c02_stencil.tc"), "--size", "N=10"]);
    assert_eq!(code, Some(0), "{out}");
    assert!(out.contains("no value was given for size `L`"), "{out}");
    assert!(!out.contains("size `N`"), "{out}");
}

#[test]
fn an_empty_or_overflowing_extent_is_an_error_with_its_values() {
    let f = temp(
        "shift.tc",
        "def f(float(N) I, float(M) J) -> (O) {\n  O(i) = I(i + 2) + J(i)\n}\n",
    );
    let (code, out, _) = run(&["tc", &f, "--size", "N=1", "--size", "M=4"]);
    assert_eq!(code, Some(1), "{out}");
    assert!(
        out.contains("O: min(M, N - 2)\n"),
        "no value is printed: {out}"
    );
    assert!(!out.contains("(-1)"), "{out}");
    assert!(
        out.contains("dimension 0 has the extent `min(M, N - 2)` = -1 (M = 4, N = 1)"),
        "{out}"
    );
    let f = temp(
        "half.tc",
        "def f(float(N) I) -> (O) {\n  O(i) = I(i / 2)\n}\n",
    );
    let (code, out, _) = run(&["tc", &f, "--size", "N=9223372036854775807"]);
    assert_eq!(code, Some(1), "{out}");
    assert!(
        out.contains("is `N * 2`, which cannot be computed with N = 9223372036854775807"),
        "{out}"
    );
}

#[test]
fn division_in_an_index_runs() {
    let f = temp(
        "div.tc",
        "def f(float(N) I) -> (O) {\n  O(i) = I((i + 1) / 2)\n}\n",
    );
    let (code, out, err) = run(&["tc", &f, "--size", "N=5", "--run"]);
    assert_eq!(code, Some(0), "{out}{err}");
    assert!(
        out.contains("-1 <= i < N * 2 - 1    (-1 <= i < 9)"),
        "{out}"
    );
    assert!(out.contains("out-of-bounds reads 0"), "{out}");
    assert!(out.contains("    ok\n"), "{out}");
}

#[test]
fn a_guarded_read_that_narrows_is_a_warning_in_text_and_json() {
    let f = temp(
        "padded.tc",
        "def conv(float(N, C, H, W) I, float(M, C, 3, 3) W1) -> (O) {\n  O(n, m, h, w) +=! \
         (h + kh >= 1 && w + kw >= 1 && h + kh - 1 < H && w + kw - 1 < W) ? I(n, c, h + kh - 1, \
         w + kw - 1) * W1(m, c, kh, kw) : 0.0 where h in 0:H, w in 0:W\n}\n",
    );
    let (code, out, _) = run(&["tc", &f]);
    assert_eq!(code, Some(0), "a warning is not an error: {out}");
    assert!(out.contains("1 <= kh < 2"), "TC's range is kept: {out}");
    assert!(
        out.contains("Warning: this read narrows `kh` to `1 <= kh < 2`"),
        "{out}"
    );
    let (code, out, _) = run(&["tc", &f, "--json"]);
    assert_eq!(code, Some(0));
    let v: Value = serde_json::from_str(&out).unwrap();
    let warnings: Vec<&Value> = v["defs"][0]["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["severity"] == "warning")
        .collect();
    assert_eq!(warnings.len(), 2, "{out}");
    assert!(warnings[0]["message"]
        .as_str()
        .unwrap()
        .contains("where kh in 0:3"));
    assert_eq!(warnings[0]["line"], 2);
}
