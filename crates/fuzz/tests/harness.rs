//! The harness itself: deterministic cases, caught panics, survived aborts,
//! findings written, exit codes.

use std::process::Command;

fn fuzz(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_fuzz"))
        .args(args)
        .output()
        .expect("fuzz runs")
}

#[test]
fn failures_are_caught_recorded_and_survived() {
    let dir = std::env::temp_dir().join(format!("fuzz-selftest-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let o = fuzz(&[
        "selftest",
        "--cases",
        "40",
        "--jobs",
        "2",
        "--findings",
        dir.to_str().unwrap(),
    ]);
    let out = String::from_utf8_lossy(&o.stdout);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{out}\n{err}");
    assert!(out.contains("40 cases"), "{out}");
    assert!(err.contains("panic: self-test panic"), "{err}");
    assert!(err.contains("stack-overflow"), "{err}");
    assert!(err.contains("wrong: self-test wrong answer"), "{err}");
    let files: Vec<String> = std::fs::read_dir(dir.join("selftest"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    for class in ["panic", "stack-overflow", "wrong"] {
        assert!(
            files
                .iter()
                .any(|f| f.starts_with(class) && f.ends_with(".txt")),
            "{class}: {files:?}"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn known_open_classes_are_named_and_not_counted() {
    let dir = std::env::temp_dir().join(format!("fuzz-known-{}", std::process::id()));
    let o = fuzz(&[
        "selftest",
        "--cases",
        "40",
        "--findings",
        dir.to_str().unwrap(),
        "--known-open",
        "panic",
        "--known-open",
        "stack-overflow",
        "--known-open",
        "wrong",
    ]);
    let out = String::from_utf8_lossy(&o.stdout);
    assert_eq!(o.status.code(), Some(0), "{out}");
    assert!(out.contains("known-open class `panic`"), "{out}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn cases_are_deterministic_per_seed() {
    for target in ["expr", "map", "hlo", "te", "tc", "layout"] {
        let a = fuzz(&[target, "--case", "17", "--seed", "5"]);
        let b = fuzz(&[target, "--case", "17", "--seed", "5"]);
        let c = fuzz(&[target, "--case", "17", "--seed", "6"]);
        let first = |o: &std::process::Output| {
            let s = String::from_utf8_lossy(&o.stdout).into_owned();
            s[..s.rfind("\n-- ").unwrap_or(s.len())].to_string()
        };
        assert_eq!(first(&a), first(&b), "{target}");
        assert_ne!(first(&a), first(&c), "{target}");
    }
}

#[test]
fn a_few_cases_of_every_target_run() {
    let dir = std::env::temp_dir().join(format!("fuzz-smoke-{}", std::process::id()));
    for target in ["expr", "map", "hlo", "te", "tc", "layout"] {
        let o = fuzz(&[
            target,
            "--cases",
            "20",
            "--findings",
            dir.to_str().unwrap(),
            "--known-open",
            "run-error",
            "--known-open",
            "bound",
        ]);
        let out = String::from_utf8_lossy(&o.stdout);
        assert!(out.contains(&format!("fuzz {target}: 20 cases")), "{out}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// Every input that once was a finding and has been fixed stays fixed:
/// replayed through its target, none is a finding again.
#[test]
fn fixed_findings_stay_fixed() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("regressions");
    let mut replayed = 0;
    for target in ["expr", "map", "hlo", "te", "tc", "layout"] {
        let Ok(dir) = std::fs::read_dir(root.join(target)) else {
            continue;
        };
        for entry in dir {
            let path = entry.unwrap().path();
            let o = fuzz(&[target, "--input", path.to_str().unwrap()]);
            assert!(
                o.status.success(),
                "{}: {}{}",
                path.display(),
                String::from_utf8_lossy(&o.stdout),
                String::from_utf8_lossy(&o.stderr)
            );
            replayed += 1;
        }
    }
    assert!(replayed >= 20, "only {replayed} regression inputs found");
}
