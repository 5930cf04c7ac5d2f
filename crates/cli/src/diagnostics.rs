//! Rendering errors with source spans, rustc style.

use ariadne::{Color, Config, Label, Report, ReportKind, Source};
use std::io::IsTerminal;
use std::ops::Range;
use std::process::ExitCode;

/// Exit code for bad input.
pub const BAD_INPUT: u8 = 2;

/// Prints `message` for the text `source` (named `name`), pointing at `span`
/// when there is one, and returns the bad-input exit code.
pub fn report(name: &str, source: &str, message: &str, span: Option<Range<usize>>) -> ExitCode {
    match span {
        Some(span) => {
            let span = clamp(span, source.len());
            let r = Report::build(ReportKind::Error, (name, span.clone()))
                .with_config(Config::default().with_color(std::io::stderr().is_terminal()))
                .with_message(message)
                .with_label(
                    Label::new((name, span))
                        .with_message(message)
                        .with_color(Color::Red),
                )
                .finish();
            let _ = r.eprint((name, Source::from(source)));
        }
        None => eprintln!("error: {message}"),
    }
    ExitCode::from(BAD_INPUT)
}

/// Prints a warning for the text `source` (named `name`) at `span`.
pub fn warn(name: &str, source: &str, message: &str, span: Range<usize>) {
    let span = clamp(span, source.len());
    let r = Report::build(ReportKind::Warning, (name, span.clone()))
        .with_config(Config::default().with_color(std::io::stderr().is_terminal()))
        .with_message(message)
        .with_label(
            Label::new((name, span))
                .with_message(message)
                .with_color(Color::Yellow),
        )
        .finish();
    let _ = r.eprint((name, Source::from(source)));
}

fn clamp(span: Range<usize>, len: usize) -> Range<usize> {
    let start = span.start.min(len);
    let end = span.end.clamp(start, len);
    start..end
}

/// Prints a plain error (no source text) and returns the bad-input exit code.
pub fn fail(message: impl std::fmt::Display) -> ExitCode {
    eprintln!("error: {message}");
    ExitCode::from(BAD_INPUT)
}
