//! Error rendering: spans are byte offsets into the source, whatever
//! characters it holds.

use std::process::{Command, Output};

fn rangefinder(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_rangefinder"))
        .args(args)
        .output()
        .expect("binary runs")
}

#[test]
fn errors_after_non_ascii_text_show_their_line() {
    let dir = std::env::temp_dir().join(format!("rangefinder-diag-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("script.py");
    // Two lines of two-byte characters before the error: read as character
    // offsets, the byte span of the error would lie past the end of the file.
    let comment = format!("# {}\n", "é".repeat(40));
    std::fs::write(&path, format!("{comment}{comment}x = undefined_name + 1\n")).unwrap();
    let o = rangefinder(&["te", path.to_str().unwrap()]);
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains(":3:5"), "line 3, column 5: {err}");
    assert!(
        err.contains("x = undefined_name + 1"),
        "the source line: {err}"
    );
}
