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

/// TC's diagnostics go through the same renderer: the caret after a line
/// of two-byte characters stands under the offending character.
#[test]
fn tc_carets_after_non_ascii_text_point_at_the_character() {
    let dir = std::env::temp_dir().join(format!("rangefinder-diag-tc-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("bad.tc");
    let source = format!(
        "def f(float(N) A) -> (B) {{\n  B(i) = A(i) # {}\n  B(i) = $ + A(i)\n}}\n",
        "é".repeat(3)
    );
    std::fs::write(&path, &source).unwrap();
    let o = rangefinder(&["tc", path.to_str().unwrap(), "--size", "N=4"]);
    let _ = std::fs::remove_dir_all(&dir);
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.contains(":3:10"), "line 3, column 10: {out}");
    let lines: Vec<&str> = out.lines().collect();
    let at = lines
        .iter()
        .position(|l| l.contains("B(i) = $ + A(i)"))
        .unwrap_or_else(|| panic!("the source line: {out}"));
    let column = |l: &str, c: char| l.chars().position(|x| x == c);
    assert_eq!(
        column(lines[at + 1], '┬'),
        column(lines[at], '$'),
        "the caret stands under `$`: {out}"
    );
}

/// A file that starts with a UTF-8 byte-order mark reads as the text after
/// it, for every command that reads a file; errors keep their positions.
#[test]
fn a_byte_order_mark_at_the_start_of_a_file_is_skipped() {
    let dir = std::env::temp_dir().join(format!("rangefinder-bom-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let write = |name: &str, text: &str| {
        let path = dir.join(name);
        std::fs::write(&path, format!("\u{feff}{text}")).unwrap();
        path.to_str().unwrap().to_string()
    };
    let hlo = write(
        "m.hlo",
        "HloModule m\nENTRY e {\n  p = f32[4] parameter(0)\n  ROOT r = f32[4] reverse(p), dimensions={0}\n}\n",
    );
    let tc = write("m.tc", "def copy(float(N) A) -> (B) {\n  B(i) = A(i)\n}\n");
    let batch = write("b.batch", "x // 4 * 4 + x % 4 | x=0:64\n");
    let bad = write("bad.tc", "def f(float(N) A) -> (B) {\n  B(i) = A(j)\n}\n");
    let runs = [
        rangefinder(&["hlo", &hlo]),
        rangefinder(&["tc", &tc]),
        rangefinder(&["simplify", "--batch", &batch]),
        rangefinder(&["tc", &bad]),
    ];
    let _ = std::fs::remove_dir_all(&dir);
    for o in &runs[..3] {
        assert_eq!(
            o.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&o.stderr)
        );
    }
    assert!(String::from_utf8_lossy(&runs[0].stdout).contains("(d0) -> (-d0 + 3)"));
    assert_eq!(String::from_utf8_lossy(&runs[2].stdout), "x\n");
    // `tc` reports a definition's errors with its results, on stdout.
    let err = String::from_utf8_lossy(&runs[3].stdout);
    assert!(err.contains("bad.tc:2:5"), "line 2, column 5: {err}");
}
