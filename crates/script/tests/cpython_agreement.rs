//! Python snippets (`tests/python_snippets/*.py`) print under `rangefinder
//! te`'s interpreter exactly what CPython prints for them: the `.out` file
//! beside each snippet is CPython's output. When `python3` is on the
//! machine, the snippets are also run under it, so a stale `.out` fails
//! instead of passing silently.

use std::path::{Path, PathBuf};
use std::process::Command;

fn snippets() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/python_snippets");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("the snippet directory")
        .map(|e| e.expect("a directory entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "py"))
        .collect();
    files.sort();
    assert!(
        files.len() >= 10,
        "snippets are missing from {}",
        dir.display()
    );
    files
}

fn expected(snippet: &Path) -> String {
    let out = snippet.with_extension("out");
    std::fs::read_to_string(&out).unwrap_or_else(|e| panic!("{}: {e}", out.display()))
}

#[test]
fn every_snippet_prints_what_cpython_prints() {
    let mut failures = Vec::new();
    for snippet in snippets() {
        let source = std::fs::read_to_string(&snippet).expect("a readable snippet");
        let want = expected(&snippet);
        match script::run(&source) {
            Ok(run) if run.printed == want => {}
            Ok(run) => failures.push(format!(
                "{}:\n--- CPython\n{want}--- rangefinder\n{}",
                snippet.display(),
                run.printed
            )),
            Err(e) => failures.push(format!("{}: {e}", snippet.display())),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn the_expected_outputs_are_cpythons() {
    let Ok(version) = Command::new("python3").arg("--version").output() else {
        println!("note: python3 is not on this machine; the .out files are not re-checked");
        return;
    };
    assert!(version.status.success(), "python3 --version failed");
    for snippet in snippets() {
        let out = Command::new("python3")
            .arg(&snippet)
            .output()
            .expect("python3 runs");
        assert!(
            out.status.success(),
            "{}: {}",
            snippet.display(),
            String::from_utf8_lossy(&out.stderr)
        );
        assert_eq!(
            String::from_utf8_lossy(&out.stdout),
            expected(&snippet),
            "{} under CPython",
            snippet.display()
        );
    }
}
