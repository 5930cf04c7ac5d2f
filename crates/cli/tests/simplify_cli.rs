//! The `rangefinder simplify` contract: output, JSON shape, batch mode and
//! exit codes.

use std::io::Write;
use std::process::{Command, Output};

fn rangefinder(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_rangefinder"))
        .args(args)
        .output()
        .expect("binary runs")
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

#[test]
fn simplifies_with_ranges() {
    let o = rangefinder(&["simplify", "(x * 16 + y) // 8", "--range", "y=0:8"]);
    assert!(o.status.success());
    assert_eq!(stdout(&o), "x * 2\n");
}

#[test]
fn symbolic_range_ends() {
    let o = rangefinder(&[
        "simplify",
        "min(i, n - 1)",
        "--range",
        "i=0:n",
        "--range",
        "n=1:100",
    ]);
    assert_eq!(stdout(&o), "i\n");
}

#[test]
fn json_has_input_result_and_bounds() {
    let o = rangefinder(&["simplify", "x % 8 + 1", "--json"]);
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(v["input"], "x % 8 + 1");
    assert_eq!(v["simplified"], "x % 8 + 1");
    assert_eq!((v["min"].as_i64(), v["max"].as_i64()), (Some(1), Some(8)));
    let o = rangefinder(&["simplify", "x + 1", "--json"]);
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert!(v["min"].is_null() && v["max"].is_null());
}

#[test]
fn bad_input_exits_2_with_a_span() {
    for args in [
        vec!["simplify", "x + * 2"],
        vec!["simplify", "foo(x)"],
        vec!["simplify", "x // 0"],
        vec!["simplify", "9223372036854775807 + 1"],
        vec!["simplify", "x", "--range", "x=0"],
        vec!["simplify", "x", "--range", "x=0:(1"],
    ] {
        let o = rangefinder(&args);
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(err.contains("rror"), "{args:?}: {err}");
        assert!(o.stdout.is_empty());
    }
    let err = String::from_utf8_lossy(&rangefinder(&["simplify", "x + * 2"]).stderr).into_owned();
    assert!(
        err.contains("EXPR:1:5"),
        "the span points at the `*`: {err}"
    );
}

#[test]
fn batch_gives_one_line_per_case_and_goes_on_after_errors() {
    let dir = std::env::temp_dir().join(format!("rangefinder-batch-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("cases.batch");
    let mut f = std::fs::File::create(&path).unwrap();
    writeln!(f, "x // 3 * 3 + x % 3").unwrap();
    writeln!(f, "x + * 2").unwrap();
    writeln!(f, "(x * 4 + y) // 4 | y=0:4").unwrap();
    writeln!(f, "y // 0").unwrap();
    writeln!(f, "i < n | i=0:n n=1:10").unwrap();
    drop(f);
    let o = rangefinder(&["simplify", "--batch", path.to_str().unwrap()]);
    let out = stdout(&o);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 5, "{out}");
    assert_eq!(lines[0], "x");
    assert!(lines[1].starts_with("error: "));
    assert_eq!(lines[2], "x");
    assert!(lines[3].starts_with("error: "));
    assert_eq!(lines[4], "True");
    assert_eq!(
        o.status.code(),
        Some(2),
        "a failed line is reported in the exit code"
    );
}

/// Runs a batch file made of `lines` and returns the output.
fn batch(name: &str, lines: &[String]) -> Output {
    batch_with(name, lines, &[])
}

/// Runs a batch file made of `lines` with extra arguments.
fn batch_with(name: &str, lines: &[String], extra: &[&str]) -> Output {
    let dir = std::env::temp_dir().join(format!("rangefinder-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("cases.batch");
    std::fs::write(&path, lines.join("\n") + "\n").unwrap();
    let mut args = vec!["simplify", "--batch", path.to_str().unwrap()];
    args.extend_from_slice(extra);
    let o = rangefinder(&args);
    let _ = std::fs::remove_dir_all(&dir);
    o
}

#[test]
fn batch_json_gives_one_object_per_line() {
    let lines = [
        "x % 8 + 1 | x=0:64",
        "x + * 2",
        "i < n | i=0:n n=1:10",
        "y | y=0:",
    ]
    .map(String::from);
    let o = batch_with("json", &lines, &["--json"]);
    let out = stdout(&o);
    let rows: Vec<serde_json::Value> = out
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect();
    assert_eq!(rows.len(), 4, "{out}");
    assert_eq!(rows[0]["line"], 1);
    assert_eq!(rows[0]["input"], "x % 8 + 1");
    assert_eq!(rows[0]["simplified"], "x % 8 + 1");
    assert_eq!(
        (rows[0]["min"].as_i64(), rows[0]["max"].as_i64()),
        (Some(1), Some(8))
    );
    assert_eq!(rows[1]["line"], 2);
    assert!(rows[1]["error"].as_str().is_some_and(|m| !m.is_empty()));
    assert!(rows[1]["span"].is_array(), "{}", rows[1]);
    assert_eq!(rows[2]["simplified"], "True");
    // The span of an error in the ranges is a byte range of the whole line.
    let span = rows[3]["span"].as_array().expect("a span");
    assert!(
        span[0].as_u64().unwrap() as usize >= "y | ".len(),
        "{}",
        rows[3]
    );
    assert_eq!(o.status.code(), Some(2));
}

#[test]
fn batch_ranges_may_contain_spaces() {
    let o = batch(
        "spaces",
        &[
            "min(i, n - 2) | i=0:n - 1 n=2:100".to_string(),
            "x + y | x = 0 : 4  y=0:2 * 2".to_string(),
        ],
    );
    assert_eq!(stdout(&o), "i\nx + y\n");
    assert!(o.status.success());
}

#[test]
fn deep_nesting_is_an_error_line_naming_the_limit() {
    let limit = arith::MAX_NESTING.to_string();
    let lines = [
        format!("{}x{}", "(".repeat(4_000), ")".repeat(4_000)),
        format!("{}x{}", "min(".repeat(5_000), ", 1)".repeat(5_000)),
        format!("{}x", "-".repeat(43_000)),
        "x + 1".to_string(),
    ];
    let o = batch("deep", &lines);
    let out = stdout(&o);
    let got: Vec<&str> = out.lines().collect();
    assert_eq!(got.len(), 4, "{out:.300}");
    for line in &got[..3] {
        assert!(
            line.starts_with("error: ") && line.contains(&limit),
            "{line}"
        );
    }
    assert_eq!(got[3], "x + 1");
    assert_eq!(o.status.code(), Some(2));
    // The single-expression form shows where the limit was crossed.
    let o = rangefinder(&["simplify", &lines[0]]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains(&limit) && err.contains("EXPR:1:257"),
        "{err:.400}"
    );
}

#[test]
fn nesting_at_the_limit_simplifies() {
    let n = arith::MAX_NESTING;
    let lines = [
        format!("{}x{} | x=0:8", "min(".repeat(n), ", 9)".repeat(n)),
        format!("{}x + 1{}", "(".repeat(n), ")".repeat(n)),
        format!("{}x", "-".repeat(n)),
    ];
    let o = batch("limit", &lines);
    assert_eq!(stdout(&o), "x\nx + 1\nx\n");
}

/// Long flat chains through the whole command, on the 8 MiB main-thread
/// stack: the parser, printer, evaluator, drop and the simplifier's
/// collection of sums and products all iterate over the chain.
#[test]
fn long_flat_sums_and_products_simplify() {
    let sum = vec!["x"; 45_000].join(" + ");
    let product = vec!["1"; 50_000].join(" * ");
    let o = batch("flat", &[sum, product]);
    assert_eq!(stdout(&o), "x * 45000\n1\n");
}

#[test]
fn non_ascii_input_keeps_its_source_line() {
    let text = "ééééééééééééé + x + ∑";
    let o = rangefinder(&["simplify", text]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains(text), "the source line is shown: {err}");
    // Column 1 (`é` is the first character), one character underlined.
    assert!(err.contains("EXPR:1:1"), "{err}");
    let o = rangefinder(&["simplify", "x", "--range", "x=0:4 + ∑"]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("x=0:4 + ∑") && err.contains("--range:1:9"),
        "{err}"
    );
}
