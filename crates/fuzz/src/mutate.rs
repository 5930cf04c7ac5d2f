//! Text mutations shared by the targets: small edits that keep most of the
//! input intact, so the front end gets past its first token and fails (or
//! does not) somewhere deep inside.

use crate::rng::Rng;

/// Applies one to three random edits to `text`. `tokens` are fragments of
/// the target's own syntax to insert.
pub fn mutate(text: &str, tokens: &[&str], rng: &mut Rng) -> String {
    let mut bytes = text.as_bytes().to_vec();
    for _ in 0..1 + rng.below(3) {
        let len = bytes.len();
        let at = if len == 0 { 0 } else { rng.index(len + 1) };
        match rng.below(9) {
            // Delete a run of bytes.
            0 if len > 0 => {
                let end = (at + 1 + rng.index(8)).min(len);
                bytes.drain(at.min(len)..end);
            }
            // Duplicate a run of bytes.
            1 if len > 0 => {
                let start = rng.index(len);
                let end = (start + 1 + rng.index(24)).min(len);
                let piece = bytes[start..end].to_vec();
                bytes.splice(at..at, piece);
            }
            // Insert a token of the syntax.
            2 | 3 => {
                let t = rng.pick(tokens).as_bytes().to_vec();
                bytes.splice(at..at, t);
            }
            // Replace a digit run with an extreme number.
            4 => {
                let n = *rng.pick(&[
                    "0",
                    "-1",
                    "9223372036854775807",
                    "-9223372036854775808",
                    "9223372036854775808",
                    "4611686018427387904",
                    "2147483648",
                    "99999999999999999999",
                ]);
                if let Some(d) = (at..len).find(|&i| bytes[i].is_ascii_digit()) {
                    let mut e = d;
                    while e < len && bytes[e].is_ascii_digit() {
                        e += 1;
                    }
                    bytes.splice(d..e, n.bytes());
                }
            }
            // Flip one byte to a random printable or non-ASCII character.
            5 if len > 0 => {
                let c = *rng.pick(&["é", "∑", "\u{0}", "\t", "\n", "#", "\"", "'", "\\"]);
                bytes.splice(at.min(len - 1)..at.min(len - 1) + 1, c.bytes());
            }
            // Deep nesting around a position.
            6 => {
                let depth = 1 + rng.index(400);
                let open = *rng.pick(&["(", "-", "min(", "[", "{"]);
                let piece = open.repeat(depth);
                bytes.splice(at..at, piece.bytes());
            }
            // Truncate.
            7 if len > 0 => bytes.truncate(at),
            // Swap two halves.
            _ if len > 1 => {
                let mid = rng.index(len);
                bytes.rotate_left(mid);
            }
            _ => {}
        }
    }
    // Keep the text valid UTF-8 (the front ends take `&str`).
    String::from_utf8_lossy(&bytes).into_owned()
}
