//! Every bundled example runs through the command: HLO modules give maps,
//! TE scripts lower and pass `--run`, and the simplify batch gives one line
//! per case.

use std::path::{Path, PathBuf};
use std::process::Command;

fn examples(dir: &str, ext: &str) -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../examples")
        .join(dir);
    let mut files: Vec<PathBuf> = std::fs::read_dir(&root)
        .unwrap_or_else(|e| panic!("{}: {e}", root.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == ext))
        .collect();
    files.sort();
    assert!(!files.is_empty(), "no examples in {}", root.display());
    files
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

#[test]
fn every_hlo_example_gives_maps() {
    for f in examples("hlo", "hlo") {
        let path = f.to_str().unwrap();
        for extra in [
            &[][..],
            &["--input-to-output"][..],
            &["--to-parameters", "--json"][..],
            &["--physical", "--to-parameters"][..],
        ] {
            let mut args = vec!["hlo", path];
            args.extend_from_slice(extra);
            let (code, out, err) = run(&args);
            assert_eq!(code, Some(0), "{args:?}: {err}");
            assert!(
                out.contains("operand id") || out.contains("\"operands\""),
                "{args:?}: {out}"
            );
        }
    }
}

#[test]
fn every_te_example_lowers_and_passes_its_run() {
    for f in examples("te", "py") {
        let (code, out, err) = run(&["te", f.to_str().unwrap(), "--run"]);
        assert_eq!(code, Some(0), "{}: {err}\n{out}", f.display());
        assert!(
            out.contains("largest absolute error 0"),
            "{}: {out}",
            f.display()
        );
    }
}

#[test]
fn the_simplify_batch_gives_one_line_per_case() {
    for f in examples("simplify", "batch") {
        let cases = std::fs::read_to_string(&f).unwrap().lines().count();
        let (code, out, err) = run(&["simplify", "--batch", f.to_str().unwrap()]);
        assert_eq!(code, Some(0), "{err}");
        assert_eq!(out.lines().count(), cases);
        assert!(!out.contains("error:"), "{out}");
    }
}
