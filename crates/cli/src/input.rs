//! Reading the text a command analyses.

use std::path::Path;

/// The text of the file at `path`, without a leading UTF-8 byte-order mark
/// (which editors on Windows write and Python accepts), or the message to
/// print when it cannot be read.
pub fn read_text(path: &Path) -> Result<String, String> {
    let mut text = std::fs::read_to_string(path)
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    if text.starts_with('\u{feff}') {
        text.drain(..'\u{feff}'.len_utf8());
    }
    Ok(text)
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_byte_order_mark_is_not_part_of_the_text() {
        let dir = std::env::temp_dir().join(format!("rangefinder-input-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("bom.txt");
        std::fs::write(&path, "\u{feff}x + 1\n").unwrap();
        assert_eq!(super::read_text(&path).unwrap(), "x + 1\n");
        std::fs::write(&path, "x\u{feff}\n").unwrap();
        assert_eq!(super::read_text(&path).unwrap(), "x\u{feff}\n");
        let err = super::read_text(&dir.join("missing")).unwrap_err();
        assert!(err.starts_with("cannot read "), "{err}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
