//! `rangefinder hlo FILE --svg PATH --at d0=..` and `rangefinder map TEXT
//! --svg PATH`: the picture is written beside the usual text, `-` writes it
//! alone to standard output, and a bad element or path is a diagnostic.

use std::path::{Path, PathBuf};
use std::process::Command;

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

fn example(name: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../examples/hlo")
        .join(name)
        .to_str()
        .unwrap()
        .to_string()
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("rangefinder-hlo-svg-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

#[test]
fn svg_is_written_beside_the_maps() {
    let out = scratch("gather.svg");
    let gather = example("x19_gather.hlo");
    let (code, stdout, err) = run(&[
        "hlo",
        &gather,
        "--svg",
        out.to_str().unwrap(),
        "--at",
        "d0=1,d1=1,d2=2",
    ]);
    assert_eq!(code, Some(0), "{err}");
    assert!(stdout.starts_with("operand id = 0"), "{stdout}");
    let svg = std::fs::read_to_string(&out).unwrap();
    assert!(svg.starts_with("<svg"), "{svg}");
    assert!(svg.contains("output element d = (1, 1, 2)"));
    // The runtime positions are hatched, with their ranges in the caption.
    assert!(svg.contains("url(#hatch-56b4e9-ffffff)"));
    assert!(svg.contains("rt0 in [0, 9], rt1 in [0, 6]"));
    // Repeated --at adds up to the same element and the same picture.
    let again = scratch("gather2.svg");
    let (code, _, err) = run(&[
        "hlo",
        &gather,
        "--svg",
        again.to_str().unwrap(),
        "--at",
        "d0=1",
        "--at",
        "d1=1",
        "--at",
        "d2=2",
    ]);
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(std::fs::read_to_string(&again).unwrap(), svg);
}

#[test]
fn svg_to_standard_output_replaces_the_text() {
    let (code, stdout, err) = run(&[
        "hlo",
        &example("x14_reduce_window.hlo"),
        "--svg",
        "-",
        "--at",
        "d0=7,d1=2",
    ]);
    assert_eq!(code, Some(0), "{err}");
    assert!(stdout.starts_with("<svg") && stdout.trim_end().ends_with("</svg>"));
    assert!(stdout.contains("reads 512 elements"), "{stdout}");
    // Without --at: the middle element, and the picture says so.
    let (code, stdout, _) = run(&["hlo", &example("x14_reduce_window.hlo"), "--svg", "-"]);
    assert_eq!(code, Some(0));
    assert!(stdout.contains("output element d = (512, 1)"));
    assert!(stdout.contains("the middle element"));
}

#[test]
fn a_bad_element_or_path_is_a_diagnostic() {
    let gather = example("x19_gather.hlo");
    let out = scratch("bad.svg");
    let out = out.to_str().unwrap();
    for (at, says) in [
        ("d3=0", "`d3` is not an axis of the output"),
        ("d0=4", "d0=4 is outside the output: d0 is in [0, 3]"),
        ("d0=-1", "is outside the output"),
        ("d0", "is not `dK=V`"),
        ("d0=x", "is not an integer index"),
        ("d1=1,d1=2", "given twice"),
        ("k=1", "`k` is not an axis"),
    ] {
        let (code, stdout, err) = run(&["hlo", &gather, "--svg", out, "--at", at]);
        assert_eq!(code, Some(2), "{at}: {err}");
        assert!(err.contains(says), "{at}: {err}");
        assert!(!err.contains("panicked"), "{at}: {err}");
        assert!(stdout.is_empty(), "{at}: nothing is printed: {stdout}");
    }
    let (code, _, err) = run(&["hlo", &gather, "--svg", "/nonexistent-dir/x.svg"]);
    assert_eq!(code, Some(2));
    assert!(
        err.contains("cannot write the picture to /nonexistent-dir/x.svg"),
        "{err}"
    );
    let (code, _, err) = run(&["hlo", &gather, "--at", "d0=1"]);
    assert_eq!(code, Some(2), "--at needs --svg: {err}");
    let (code, _, err) = run(&["hlo", &gather, "--svg", out, "--input-to-output"]);
    assert_eq!(code, Some(2));
    assert!(err.contains("output-to-input"), "{err}");
    let (code, _, err) = run(&["hlo", &gather, "--svg", out, "--instruction", "operand"]);
    assert_eq!(code, Some(2));
    assert!(err.contains("reads no operand"), "{err}");
}

#[test]
fn a_map_alone_is_drawn_over_its_ranges() {
    let (code, stdout, err) = run(&[
        "map",
        "(d0)[s0] -> (d0 * 2 + s0), domain: d0 in [0, 5], s0 in [0, 2]",
        "--svg",
        "-",
        "--at",
        "d0=2",
    ]);
    assert_eq!(code, Some(0), "{err}");
    assert!(stdout.starts_with("<svg"));
    assert!(stdout.contains("reads 3 elements"), "{stdout}");
    assert!(stdout.contains("input: [13]"), "{stdout}");
    let (code, _, err) = run(&[
        "map",
        "(d0) -> (d0), domain: d0 in [0, 5]",
        "--svg",
        "-",
        "--at",
        "d0=6",
    ]);
    assert_eq!(code, Some(2));
    assert!(err.contains("outside"), "{err}");
}

#[test]
fn the_committed_picture_is_what_the_readme_command_draws() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    let command =
        "rangefinder hlo examples/hlo/x19_gather.hlo --svg docs/hlo_gather.svg --at d0=1,d1=1,d2=2";
    assert!(readme.contains(command), "the README shows the command");
    let (code, stdout, err) = run(&[
        "hlo",
        root.join("examples/hlo/x19_gather.hlo").to_str().unwrap(),
        "--svg",
        "-",
        "--at",
        "d0=1,d1=1,d2=2",
    ]);
    assert_eq!(code, Some(0), "{err}");
    let committed = std::fs::read_to_string(root.join("docs/hlo_gather.svg")).unwrap();
    assert_eq!(
        stdout, committed,
        "run the README command to update docs/hlo_gather.svg"
    );
}
