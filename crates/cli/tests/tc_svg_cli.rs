//! `rangefinder tc FILE --svg`: the picture of the inferred ranges written
//! beside the usual output; a program with errors is still drawn (its
//! error said), and an unwritable path is a diagnostic.

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

fn temp(name: &str) -> std::path::PathBuf {
    std::env::temp_dir().join(format!("rangefinder_tc_svg_{}_{name}", std::process::id()))
}

#[test]
fn the_stencil_is_drawn_at_the_given_sizes_and_the_text_is_unchanged() {
    let path = temp("stencil.svg");
    let file = example("c02_stencil.tc");
    let plain = run(&["tc", &file, "--size", "N=10", "--size", "L=3"]);
    let drawn = run(&[
        "tc",
        &file,
        "--size",
        "N=10",
        "--size",
        "L=3",
        "--svg",
        path.to_str().unwrap(),
    ]);
    assert_eq!(drawn.0, Some(0), "{}", drawn.2);
    assert_eq!(drawn.1, plain.1);
    let svg = std::fs::read_to_string(&path).unwrap();
    assert!(svg.starts_with("<svg"));
    assert!(svg.contains("sizes: L = 3, N = 10"));
    assert!(svg.contains("decided in round 2"));
    assert!(svg.contains("B(i + k)"));
}

#[test]
fn without_sizes_the_picture_writes_the_bounds_out_on_stdout() {
    let (code, out, _) = run(&["tc", &example("c07_average_pool.tc"), "--svg", "-"]);
    assert_eq!(code, Some(0));
    let at = out.find("<svg").expect("a picture after the text");
    assert!(out[..at].contains("0 <= i < I // 2"));
    assert!(out[at..].contains("B(2*i + 1): [0, I // 2)  decides both ends"));
}

#[test]
fn a_program_with_an_error_is_drawn_with_the_error_and_fails() {
    let path = temp("dynamic.svg");
    let (code, _, _) = run(&[
        "tc",
        &example("c09_dynamic_stride.tc"),
        "--svg",
        path.to_str().unwrap(),
    ]);
    assert_eq!(code, Some(1));
    let svg = std::fs::read_to_string(&path).unwrap();
    assert!(svg.contains("error: cannot infer the range"), "{svg}");
}

#[test]
fn an_unwritable_path_is_a_diagnostic() {
    let (code, _, err) = run(&[
        "tc",
        &example("c02_stencil.tc"),
        "--svg",
        "/nonexistent-dir/x.svg",
    ]);
    assert_eq!(code, Some(2));
    assert!(
        err.starts_with("error: cannot write the picture to"),
        "{err}"
    );
}
