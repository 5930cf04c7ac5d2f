//! The worker: runs cases in order, announcing each on stdout before it
//! runs (`start I`) and reporting how it ended (`ok I`, or `fail I CLASS
//! MESSAGE` for a wrong answer or a caught panic). Aborts need no report:
//! the supervisor sees the process die after `start I`.

use crate::rng::Rng;
use crate::targets::{Failure, Target};
use crate::Options;
use std::cell::RefCell;
use std::io::Write;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::process::ExitCode;

thread_local! {
    /// The message and place of the last panic, recorded by the hook.
    static LAST_PANIC: RefCell<String> = const { RefCell::new(String::new()) };
}

/// Replaces the panic hook with one that records the panic instead of
/// printing it (a caught panic is a finding, written to its file).
pub fn quiet_panics() {
    std::panic::set_hook(Box::new(|info| {
        let place = info
            .location()
            .map(|l| format!("{}:{}", l.file(), l.line()))
            .unwrap_or_default();
        let msg = info
            .payload()
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| info.payload().downcast_ref::<String>().cloned())
            .unwrap_or_default();
        LAST_PANIC.with(|p| *p.borrow_mut() = format!("{msg} at {place}"));
    }));
}

/// The input of case `case`.
pub fn input(target: &dyn Target, seed: u64, case: u64) -> String {
    target.generate(&mut Rng::for_case(seed, case))
}

/// Runs one case, turning a panic into a failure of class `panic`.
pub fn run_case(target: &dyn Target, text: &str) -> Result<bool, Failure> {
    match catch_unwind(AssertUnwindSafe(|| target.check(text))) {
        Ok(r) => r,
        Err(_) => {
            let msg = LAST_PANIC.with(|p| p.borrow().clone());
            Err(Failure::new("panic", msg))
        }
    }
}

/// Runs cases `start..cases` (worker mode).
pub fn run(target: &dyn Target, opts: &Options, start: u64) -> ExitCode {
    quiet_panics();
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    for case in start..opts.cases {
        let text = input(target, opts.seed, case);
        if writeln!(out, "start {case}")
            .and_then(|_| out.flush())
            .is_err()
        {
            return ExitCode::from(1);
        }
        let began = std::time::Instant::now();
        let result = run_case(target, &text);
        let micros = began.elapsed().as_micros();
        let line = match result {
            Ok(accepted) => format!("ok {case} {} {micros}", u8::from(accepted)),
            Err(f) => format!("fail {case} {} {}", f.class, one_line(&f.message)),
        };
        if writeln!(out, "{line}").is_err() {
            return ExitCode::from(1);
        }
    }
    let _ = out.flush();
    ExitCode::SUCCESS
}

/// Runs one case in this process and prints its input and outcome; a panic
/// is not caught, so its backtrace can be seen.
pub fn reproduce(target: &dyn Target, seed: u64, case: u64) -> ExitCode {
    let text = input(target, seed, case);
    println!("{text}");
    check_text(target, &text)
}

/// Checks `text` in this process and prints the outcome.
pub fn check_text(target: &dyn Target, text: &str) -> ExitCode {
    match target.check(text) {
        Ok(accepted) => {
            println!(
                "-- ok ({})",
                if accepted {
                    "accepted"
                } else {
                    "rejected with an error"
                }
            );
            ExitCode::SUCCESS
        }
        Err(f) => {
            println!("-- {}: {}", f.class, f.message);
            ExitCode::from(1)
        }
    }
}

fn one_line(s: &str) -> String {
    s.replace(['\n', '\r'], " ")
}
