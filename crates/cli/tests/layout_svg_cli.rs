//! `rangefinder layout --svg`: the picture written beside the usual output,
//! and bad input (symbolic shapes, unwritable paths, maps that are not
//! injective) a diagnostic, never a panic.

use std::process::{Command, Output};

fn rangefinder(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_rangefinder"))
        .args(args)
        .output()
        .expect("binary runs")
}

fn temp(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("rangefinder-layout-svg-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

#[test]
fn the_padded_layout_is_drawn_to_the_path_and_the_text_is_unchanged() {
    let path = temp("padded.svg");
    let args = [
        "layout",
        "--shape",
        "14",
        "--map",
        "lambda i: [i // 4, i % 4]",
    ];
    let plain = rangefinder(&args);
    let mut with_svg = args.to_vec();
    let p = path.to_str().unwrap();
    with_svg.extend(["--svg", p]);
    let o = rangefinder(&with_svg);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(o.stdout, plain.stdout);
    let svg = std::fs::read_to_string(&path).unwrap();
    assert!(svg.starts_with("<svg"));
    assert!(svg.contains("padding: 2 of 16"), "{svg}");
    assert!(svg.contains("hatch-"));
}

#[test]
fn a_dash_writes_the_picture_after_the_text() {
    let o = rangefinder(&[
        "layout",
        "--shape",
        "8",
        "--map",
        "lambda i: [i // 4, te.AXIS_SEPARATOR, i % 4]",
        "--svg",
        "-",
    ]);
    assert!(o.status.success());
    let out = String::from_utf8(o.stdout).unwrap();
    let at = out.find("<svg").expect("a picture on stdout");
    assert!(out[..at].contains("physical shape:    [2, 4]"));
    assert!(out.trim_end().ends_with("</svg>"));
}

#[test]
fn a_symbolic_shape_or_an_unwritable_path_is_a_diagnostic() {
    for (shape, path) in [("n", "-"), ("8", "/nonexistent-dir/x.svg")] {
        let o = rangefinder(&[
            "layout",
            "--shape",
            shape,
            "--map",
            "lambda i: [i // 4, i % 4]",
            "--svg",
            path,
        ]);
        assert_eq!(o.status.code(), Some(2));
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(err.starts_with("error: "), "{err}");
        assert!(!err.contains("panicked"), "{err}");
    }
}

#[test]
fn a_map_that_is_not_injective_is_an_error_and_its_collision_is_drawn() {
    let path = temp("collision.svg");
    let o = rangefinder(&[
        "layout",
        "--shape",
        "12",
        "--map",
        "lambda i: [i % 8]",
        "--svg",
        path.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("not injective"));
    let svg = std::fs::read_to_string(&path).unwrap();
    assert!(
        svg.contains("not injective: [0] and [8] both map to [0]"),
        "{svg}"
    );
}
