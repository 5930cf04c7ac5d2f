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
