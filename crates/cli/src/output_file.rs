//! Writing a picture or page given with `--svg PATH` or `--html PATH`
//! (`-` for standard output, after the usual text).

use std::io::Write;
use std::path::Path;

/// Writes `text` to `path`, or to standard output when `path` is `-`; the
/// error names `what` was being written (`the picture`, `the HTML
/// report`), where, and why.
pub fn write_output(what: &str, path: &Path, text: &str) -> Result<(), String> {
    if path.as_os_str() == "-" {
        let mut out = std::io::stdout();
        return out
            .write_all(text.as_bytes())
            .and_then(|()| out.flush())
            .map_err(|e| format!("cannot write {what} to standard output: {e}"));
    }
    std::fs::write(path, text)
        .map_err(|e| format!("cannot write {what} to {}: {e}", path.display()))
}
