//! `cargo run -p fuzz --profile fuzz -- TARGET --cases N [--seed S]`: a fuzz
//! harness on stable Rust.
//!
//! The targets (`targets/`): `expr` (index expressions, simplified),
//! `map` (XLA indexing maps), `hlo` (HLO modules), `te` (TE scripts with
//! schedules, lowered and run), `tc` (Tensor Comprehensions sources,
//! lowered and run against direct evaluation, their ranges checked to be
//! the largest in bounds) and `layout` (buffer layout maps, enumerated on
//! small shapes with their inverse and padding). Each module's doc says
//! what it generates and what its oracle checks.
//!
//! Every case is generated from `(seed, case number)` alone, so runs are
//! deterministic and a finding is reproduced by its two numbers
//! (`--case I`). The supervisor runs the cases in a worker child process
//! that announces each case before running it and catches panics itself; when
//! the worker dies (a stack overflow aborts the process) or a case runs past
//! the time limit, the supervisor records that case and restarts the worker
//! after it. Every failure is written, with its input, to the findings
//! directory, and makes the exit code 1.
//!
//! ```text
//! fuzz TARGET --cases N [--seed S] [--findings DIR] [--timeout SECS] [--jobs J] [--known-open CLASS]...
//! fuzz TARGET --case I [--seed S]        run one case in-process and print it
//! fuzz TARGET --input FILE               check a saved input in-process
//! TARGET: expr | map | hlo | te | tc | layout | all
//! ```

mod mutate;
mod rng;
mod supervisor;
mod targets;
mod worker;

use std::path::PathBuf;
use std::process::ExitCode;

/// Parsed command-line options.
#[derive(Clone, Debug)]
pub struct Options {
    /// The targets to run, one after another.
    pub targets: Vec<&'static dyn targets::Target>,
    /// Cases per target.
    pub cases: u64,
    /// The seed of every case.
    pub seed: u64,
    /// Where findings are written.
    pub findings: PathBuf,
    /// Seconds one case may take before it counts as a hang.
    pub timeout: u64,
    /// Workers run side by side, each on its own share of the cases.
    pub jobs: u64,
    /// Finding classes that are known and open: reported, named in a note,
    /// but not counted in the exit code.
    pub known_open: Vec<String>,
    /// Run this one case in-process (reproduction).
    pub case: Option<u64>,
    /// Check the input in this file in-process (a saved reproducer).
    pub input: Option<PathBuf>,
    /// Internal: run as the worker, starting at this case.
    pub worker_start: Option<u64>,
}

impl std::fmt::Debug for dyn targets::Target {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

const USAGE: &str = "usage: fuzz TARGET --cases N [--seed S] [--findings DIR] [--timeout SECS] [--jobs J] [--known-open CLASS]...\n       fuzz TARGET --case I [--seed S]\n       fuzz TARGET --input FILE\nTARGET: expr | map | hlo | te | tc | layout | all";

fn parse_args(args: &[String]) -> Result<Options, String> {
    let mut o = Options {
        targets: Vec::new(),
        cases: 1000,
        seed: 0,
        findings: PathBuf::from("target/fuzz-findings"),
        timeout: 20,
        jobs: 1,
        known_open: Vec::new(),
        case: None,
        input: None,
        worker_start: None,
    };
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let mut value = |name: &str| {
            it.next()
                .cloned()
                .ok_or_else(|| format!("`{name}` needs a value"))
        };
        let number = |v: String, name: &str| {
            v.parse::<u64>()
                .map_err(|_| format!("`{name}` needs a non-negative integer, found `{v}`"))
        };
        match a.as_str() {
            "--cases" => o.cases = number(value(a)?, a)?,
            "--seed" => o.seed = number(value(a)?, a)?,
            "--case" => o.case = Some(number(value(a)?, a)?),
            "--timeout" => o.timeout = number(value(a)?, a)?,
            "--jobs" => o.jobs = number(value(a)?, a)?,
            "--findings" => o.findings = PathBuf::from(value(a)?),
            "--input" => o.input = Some(PathBuf::from(value(a)?)),
            "--known-open" => o.known_open.push(value(a)?),
            "--worker" => o.worker_start = Some(number(value(a)?, a)?),
            "all" => o.targets.extend(targets::all()),
            name if !name.starts_with('-') => o
                .targets
                .push(targets::by_name(name).ok_or_else(|| format!("unknown target `{name}`"))?),
            other => return Err(format!("unknown option `{other}`")),
        }
    }
    if o.targets.is_empty() {
        return Err("name a target".into());
    }
    Ok(o)
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let opts = match parse_args(&args) {
        Ok(o) => o,
        Err(e) => {
            eprintln!("error: {e}\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    if let Some(start) = opts.worker_start {
        return worker::run(opts.targets[0], &opts, start);
    }
    if let Some(path) = &opts.input {
        return match std::fs::read_to_string(path) {
            Ok(text) => worker::check_text(opts.targets[0], &text),
            Err(e) => {
                eprintln!("error: cannot read {}: {e}", path.display());
                ExitCode::from(2)
            }
        };
    }
    if let Some(case) = opts.case {
        return worker::reproduce(opts.targets[0], opts.seed, case);
    }
    let mut failed = false;
    for t in &opts.targets {
        failed |= !supervisor::run(*t, &opts);
    }
    if failed {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}
