//! Rendering errors with source spans, rustc style.

use ariadne::{Color, Config, IndexType, Label, Report, ReportKind, Source};
use std::io::IsTerminal;
use std::ops::Range;
use std::process::ExitCode;

/// Exit code for bad input.
pub const BAD_INPUT: u8 = 2;

/// How serious a rendered message is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Level {
    /// The input has no meaning.
    Error,
    /// Possibly wrong.
    Warning,
    /// Something the user should know.
    Note,
}

/// Prints `message` for the text `source` (named `name`), pointing at `span`
/// when there is one, and returns the bad-input exit code.
pub fn report(name: &str, source: &str, message: &str, span: Option<Range<usize>>) -> ExitCode {
    match span {
        Some(span) => {
            let color = std::io::stderr().is_terminal();
            eprint!(
                "{}",
                render(Level::Error, name, source, message, message, span, color)
            );
        }
        None => eprintln!("error: {message}"),
    }
    ExitCode::from(BAD_INPUT)
}

/// Prints a warning for the text `source` (named `name`) at `span`.
pub fn warn(name: &str, source: &str, message: &str, span: Range<usize>) {
    let color = std::io::stderr().is_terminal();
    eprint!(
        "{}",
        render(Level::Warning, name, source, message, message, span, color)
    );
}

/// `message` about `source` (named `name`) with `label` at `span`, rustc
/// style: the one renderer of every command. Spans are byte offsets, as
/// every front end reports them; a span that does not fall on character
/// boundaries is widened to the enclosing characters.
pub fn render(
    level: Level,
    name: &str,
    source: &str,
    message: &str,
    label: &str,
    span: Range<usize>,
    color: bool,
) -> String {
    let (kind, c) = match level {
        Level::Error => (ReportKind::Error, Color::Red),
        Level::Warning => (ReportKind::Warning, Color::Yellow),
        Level::Note => (ReportKind::Advice, Color::Blue),
    };
    let span = clamp(span, source);
    let r = Report::build(kind, (name, span.clone()))
        .with_config(
            Config::default()
                .with_color(color)
                .with_index_type(IndexType::Byte),
        )
        .with_message(message)
        .with_label(Label::new((name, span)).with_message(label).with_color(c))
        .finish();
    let mut buf = Vec::new();
    let _ = r.write((name, Source::from(source)), &mut buf);
    String::from_utf8_lossy(&buf).into_owned()
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
