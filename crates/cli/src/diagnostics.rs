//! Rendering errors with source spans, rustc style.

use ariadne::{Color, Config, IndexType, Label, Report, ReportKind, Source};
use std::io::IsTerminal;
use std::ops::Range;
use std::process::ExitCode;

/// Exit code for bad input.
pub const BAD_INPUT: u8 = 2;

/// Prints `message` for the text `source` (named `name`), pointing at `span`
/// when there is one, and returns the bad-input exit code. Spans are byte
/// offsets, as every front end reports them; a span that does not fall on
/// character boundaries is widened to the enclosing characters.
pub fn report(name: &str, source: &str, message: &str, span: Option<Range<usize>>) -> ExitCode {
    match span {
        Some(span) => render(ReportKind::Error, Color::Red, name, source, message, span),
        None => eprintln!("error: {message}"),
    }
    ExitCode::from(BAD_INPUT)
}

/// Prints a warning for the text `source` (named `name`) at `span`.
pub fn warn(name: &str, source: &str, message: &str, span: Range<usize>) {
    render(
        ReportKind::Warning,
        Color::Yellow,
        name,
        source,
        message,
        span,
    );
}

/// Prints `message` about `source` at `span` to standard error.
fn render(
    kind: ReportKind<'_>,
    color: Color,
    name: &str,
    source: &str,
    message: &str,
    span: Range<usize>,
) {
    let span = clamp(span, source);
    let r = Report::build(kind, (name, span.clone()))
        .with_config(
            Config::default()
                .with_color(std::io::stderr().is_terminal())
                .with_index_type(IndexType::Byte),
        )
        .with_message(message)
        .with_label(
            Label::new((name, span))
                .with_message(message)
                .with_color(color),
        )
        .finish();
    let _ = r.eprint((name, Source::from(source)));
}

/// The span cut to the source and widened to character boundaries.
fn clamp(span: Range<usize>, source: &str) -> Range<usize> {
    let len = source.len();
    let mut start = span.start.min(len);
    while !source.is_char_boundary(start) {
        start -= 1;
    }
    let mut end = span.end.clamp(start, len);
    while !source.is_char_boundary(end) {
        end += 1;
    }
    start..end
}

/// Prints a plain error (no source text) and returns the bad-input exit code.
pub fn fail(message: impl std::fmt::Display) -> ExitCode {
    eprintln!("error: {message}");
    ExitCode::from(BAD_INPUT)
}
