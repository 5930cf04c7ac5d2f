//! `rangefinder te FILE --svg OUT.svg [--at NAME=VALUE]...`: the region
//! pictures, written besides the usual report.

use std::path::PathBuf;
use std::process::{Command, Output};

fn example(name: &str) -> String {
    let p: PathBuf = [
        env!("CARGO_MANIFEST_DIR"),
        "..",
        "..",
        "examples",
        "te",
        name,
    ]
    .iter()
    .collect();
    p.to_str().unwrap().to_string()
}

fn rangefinder(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_rangefinder"))
        .args(args)
        .output()
        .expect("runs rangefinder")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// A fresh path in the target directory's temporary folder.
fn out_path(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"));
    dir.join(name)
}

#[test]
fn svg_is_written_besides_the_text_report() {
    let path = out_path("t09_at_1.svg");
    let _ = std::fs::remove_file(&path);
    let file = example("t09_fuse_split_nondivisible.py");
    let out = rangefinder(&[
        "te",
        &file,
        "--run",
        "--svg",
        path.to_str().unwrap(),
        "--at",
        "ci.cj.fused.outer=1",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    assert!(
        stdout.contains("stage B: computed at C.ci.cj.fused.outer"),
        "{stdout}"
    );
    assert!(stdout.contains("B: runs 26, needed 16"), "{stdout}");
    let svg = std::fs::read_to_string(&path).unwrap();
    assert!(svg.starts_with("<svg"), "{svg}");
    assert!(svg.contains("B at ci.cj.fused.outer = 1: computes 8, needs 3, wastes 5"));
    assert!(svg.contains("whole run: runs 26, needed 16"));
}

#[test]
fn svg_to_stdout_follows_the_report() {
    let file = example("t04_attach_path.py");
    let out = rangefinder(&["te", &file, "--svg", "-", "--at", "dk=3"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    let report = stdout.find("stage C: computed at D.dk").unwrap();
    let svg = stdout.find("<svg").unwrap();
    assert!(report < svg);
    assert!(stdout.contains("C at di = 0, dj = 0, dk = 3: computes 1, needs 1"));
    assert!(stdout.trim_end().ends_with("</svg>"));
}

#[test]
fn an_unknown_loop_lists_the_attach_loops() {
    let file = example("t09_fuse_split_nondivisible.py");
    let out = rangefinder(&["te", &file, "--svg", "-", "--at", "xo=1"]);
    assert_eq!(out.status.code(), Some(2));
    let err = text(&out.stderr);
    assert!(
        err.contains(
            "no attach loop is called `xo`; the attach loops are B: ci.cj.fused.outer in [0, 6)"
        ),
        "{err}"
    );
    assert!(!err.contains("panicked"), "{err}");
}

#[test]
fn a_value_out_of_range_lists_the_attach_loops() {
    let file = example("t04_attach_path.py");
    let out = rangefinder(&["te", &file, "--svg", "-", "--at", "dj=5"]);
    assert_eq!(out.status.code(), Some(2));
    let err = text(&out.stderr);
    assert!(err.contains("`dj` = 5 is outside [0, 5)"), "{err}");
    assert!(
        err.contains("its attach loops are di in [0, 4), dj in [0, 5), dk in [0, 16)"),
        "{err}"
    );
}

#[test]
fn a_malformed_at_is_a_usage_error() {
    let file = example("t04_attach_path.py");
    let out = rangefinder(&["te", &file, "--svg", "-", "--at", "dk"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("is not NAME=VALUE"));
    let out = rangefinder(&["te", &file, "--svg", "-", "--at", "dk=x"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("is not an integer"));
}

#[test]
fn at_without_svg_and_an_unwritable_path_are_diagnostics() {
    let file = example("t04_attach_path.py");
    let out = rangefinder(&["te", &file, "--at", "dk=1"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("give `--svg OUT.svg` or `--html OUT.html` too"));
    let bad = out_path("no/such/dir/x.svg");
    let out = rangefinder(&["te", &file, "--svg", bad.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    let err = text(&out.stderr);
    assert!(err.contains("cannot write the picture to"), "{err}");
    assert!(!err.contains("panicked"), "{err}");
}

#[test]
fn a_program_without_attached_stages_draws_a_note_and_refuses_at() {
    let file = example("t01_no_attach.py");
    let out = rangefinder(&["te", &file, "--svg", "-"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(text(&out.stdout).contains("No stage is computed at a loop"));
    let out = rangefinder(&["te", &file, "--svg", "-", "--at", "i=0"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("no stage is computed at a loop"));
}

#[test]
fn json_keeps_stdout_json_and_the_picture_goes_to_its_file() {
    let file = example("t04_attach_path.py");
    let out = rangefinder(&["te", &file, "--json", "--svg", "-"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("write it to a file"));
    let path = out_path("t04_json.svg");
    let out = rangefinder(&["te", &file, "--json", "--svg", path.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(json["stages"][0]["name"], "C");
    assert!(std::fs::read_to_string(&path)
        .unwrap()
        .contains("C at di = 0, dj = 0, dk = 0"));
}
