//! Writing a picture given with `--svg PATH` (`-` for standard output).

use std::io::Write;
use std::path::Path;

/// Writes `svg` to `path`, or to standard output when `path` is `-`; the
/// error says which path could not be written and why.
pub fn write_svg(path: &Path, svg: &str) -> Result<(), String> {
    if path.as_os_str() == "-" {
        let mut out = std::io::stdout();
        return out
            .write_all(svg.as_bytes())
            .and_then(|()| out.flush())
            .map_err(|e| format!("--svg: cannot write the picture to standard output: {e}"));
    }
    std::fs::write(path, svg).map_err(|e| format!("--svg: cannot write `{}`: {e}", path.display()))
}
