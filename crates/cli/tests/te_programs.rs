//! The corpus of real TE programs (`examples/te/programs`): TOPI-style
//! computes and schedules on real network shapes, each a script that TVM
//! v0.19 runs unchanged. Every program goes through `rangefinder te FILE
//! --run`. A program may be refused (exit code 2: an API rangefinder does
//! not provide yet), but none may crash (a panic, a signal) or give a wrong
//! value (exit code 1: `--run` found a mismatch or an out-of-bounds access;
//! or a value check of the script failed), and at least
//! [`PROGRAMS_THAT_RUN`] must run clean.

use std::path::{Path, PathBuf};
use std::process::Command;

/// How many programs run clean today: a floor, raised as features land.
const PROGRAMS_THAT_RUN: usize = 100;

/// The corpus has at least this many programs.
const PROGRAMS: usize = 60;

fn programs() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/te/programs");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "py"))
        .collect();
    files.sort();
    files
}

/// What one run of a program came to.
#[derive(Debug, PartialEq)]
enum Outcome {
    Clean,
    /// Refused with this first line of the error.
    Refused(String),
    /// Crashed or gave a wrong value: why.
    Failed(String),
}

fn run(path: &Path) -> Outcome {
    let o = Command::new(env!("CARGO_BIN_EXE_rangefinder"))
        .args(["te", path.to_str().unwrap(), "--run"])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&o.stdout);
    let stderr = String::from_utf8_lossy(&o.stderr);
    let value_check = ["Not equal to tolerance", "Mismatched elements"];
    match o.status.code() {
        Some(0) => Outcome::Clean,
        Some(1) => Outcome::Failed(format!("--run found a wrong value:\n{stdout}")),
        Some(2) if stderr.contains("panicked at") => {
            Outcome::Failed(format!("panicked:\n{stderr}"))
        }
        Some(2) if value_check.iter().any(|m| stderr.contains(m)) => {
            Outcome::Failed(format!("a value check of the script failed:\n{stderr}"))
        }
        Some(2) => Outcome::Refused(
            stderr
                .lines()
                .find(|l| !l.trim().is_empty())
                .unwrap_or("")
                .to_owned(),
        ),
        Some(code) => Outcome::Failed(format!("exit code {code}:\n{stderr}")),
        None => Outcome::Failed(format!("killed by a signal:\n{stderr}")),
    }
}

#[test]
fn every_program_runs_or_is_refused_and_none_crashes_or_gives_a_wrong_value() {
    let files = programs();
    assert!(
        files.len() >= PROGRAMS,
        "the corpus has {} programs, fewer than {PROGRAMS}",
        files.len()
    );
    let mut clean = 0;
    let mut failures = Vec::new();
    for f in &files {
        let name = f.file_name().unwrap().to_string_lossy();
        match run(f) {
            Outcome::Clean => {
                clean += 1;
                println!("pass    {name}");
            }
            Outcome::Refused(why) => println!("refused {name} | {why}"),
            Outcome::Failed(why) => {
                println!("FAILED  {name} | {why}");
                failures.push(format!("{name}: {why}"));
            }
        }
    }
    println!(
        "{clean}/{} run unchanged under rangefinder te with --run clean",
        files.len()
    );
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    assert!(
        clean >= PROGRAMS_THAT_RUN,
        "only {clean} programs run clean, fewer than the {PROGRAMS_THAT_RUN} that did"
    );
}
