//! The example programs of the Tensor Comprehensions repository, read from
//! the shared conformance corpus (`conformance/tc/range_inference_cases.md`,
//! section 7) at test and bench time.
//!
//! The corpus gives every program verbatim with the features found in it.
//! Templates (placeholders filled at run time), programs inside comments or
//! doctest prompts are not TC as written and are left out; one template is
//! filled here ([`FILLED`]). The rest are sorted by what TC itself does with
//! them: rejected by its parser ([`SYNTAX_ERRORS`]), rejected by its checks
//! ([`REJECTED`]), or accepted (every other program).

use std::path::PathBuf;

/// Programs TC's parser rejects, by number: `C(0) +=! ...` (#104), `and`
/// and `=<` (#151), and the range `0..2` (#146, accepted once the
/// documentation's typo is corrected, see [`CORRECTED`]).
pub const SYNTAX_ERRORS: &[u32] = &[104, 146, 151];

/// Programs TC's checks reject, with a fragment of the error: where-ranges
/// bounded by index variables (#152), a temporary tensor (#160).
pub const REJECTED: &[(u32, &str)] = &[
    (152, "range bounds must be size expressions"),
    (160, "temporary tensors are not supported"),
];

/// A template whose placeholders are filled with the values given.
pub const FILLED: &[(u32, &[(&str, &str)])] = &[(57, &[("<pos_dist>", "2"), ("<neg_dist>", "3")])];

/// A program whose typo is corrected: `(number, wrong, right)`.
pub const CORRECTED: &[(u32, &str, &str)] = &[(146, "r_kh in 0..2", "r_kh in 0:2")];

/// The flags of the corpus's index that mark text that is not a TC program
/// as written.
const NOT_A_PROGRAM: &[&str] = &["TEMPLATE", "IN-C++-COMMENT", "doctest-prompts"];

/// One program of the corpus.
pub struct Program {
    /// Its number in the corpus.
    pub number: u32,
    /// Its text, verbatim.
    pub text: String,
    /// Whether the index flags it as not TC as written.
    pub not_a_program: bool,
}

/// The corpus text, or `None` (with a note) when the shared directory is
/// not beside the checkout. A shared directory without the corpus is a
/// failure: the tests would silently stop covering it.
pub fn corpus() -> Option<String> {
    let shared = std::env::var_os("RANGEFINDER_SHARED")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared"));
    let path = shared.join("conformance/tc/range_inference_cases.md");
    match std::fs::read_to_string(&path) {
        Ok(text) => Some(text),
        Err(_) if !shared.join("conformance").is_dir() => {
            println!(
                "note: {} is absent; skipping the TC repository's programs",
                shared.join("conformance").display()
            );
            None
        }
        Err(e) => panic!("{}: {e}", path.display()),
    }
}

/// Every program of section 7, in order.
pub fn programs(corpus: &str) -> Vec<Program> {
    let start = corpus.find("### 7a.").expect("section 7a of the corpus");
    let section = &corpus[start..];
    let sources = section.find("### 7b.").expect("section 7b of the corpus");
    let (index, sources) = section.split_at(sources);
    let mut flagged = Vec::new();
    for row in index.lines().filter(|l| l.starts_with("| ")) {
        let cells: Vec<&str> = row.split('|').map(str::trim).collect();
        if let (Some(n), Some(features)) = (cells.get(1), cells.get(cells.len().saturating_sub(2)))
        {
            if let Ok(n) = n.parse::<u32>() {
                if NOT_A_PROGRAM
                    .iter()
                    .any(|f| features.split_whitespace().any(|w| w == *f))
                {
                    flagged.push(n);
                }
            }
        }
    }
    let mut out = Vec::new();
    for entry in sources.split("\n**#").skip(1) {
        let number: u32 = entry
            .split_whitespace()
            .next()
            .and_then(|n| n.parse().ok())
            .expect("a program number");
        let open = entry.find("\n```").expect("a code block") + "\n```".len();
        let body = &entry[open..];
        let body = &body[body.find('\n').expect("a code block line") + 1..];
        let close = body.find("```").expect("a closed code block");
        out.push(Program {
            number,
            text: body[..close].to_string(),
            not_a_program: flagged.contains(&number),
        });
    }
    out
}

/// The program numbered `number`.
pub fn program(programs: &[Program], number: u32) -> &str {
    &programs
        .iter()
        .find(|p| p.number == number)
        .unwrap_or_else(|| panic!("program #{number} is not in the corpus"))
        .text
}

/// Every program TC accepts, with templates filled and typos corrected, as
/// one source with a `# #N` comment before each.
pub fn accepted_source(programs: &[Program]) -> String {
    let mut src = String::new();
    for p in programs {
        let rejected = REJECTED.iter().any(|r| r.0 == p.number);
        let corrected = CORRECTED.iter().find(|c| c.0 == p.number);
        let filled = FILLED.iter().find(|f| f.0 == p.number);
        if rejected
            || (p.not_a_program && filled.is_none())
            || (SYNTAX_ERRORS.contains(&p.number) && corrected.is_none())
        {
            continue;
        }
        let mut text = p.text.clone();
        if let Some((_, wrong, right)) = corrected {
            assert!(
                text.contains(wrong),
                "#{}: `{wrong}` is not in the program",
                p.number
            );
            text = text.replace(wrong, right);
        }
        for (placeholder, value) in filled.iter().flat_map(|f| f.1.iter()) {
            assert!(
                text.contains(placeholder),
                "#{}: no `{placeholder}`",
                p.number
            );
            text = text.replace(placeholder, value);
        }
        src.push_str(&format!("# #{}\n{text}\n", p.number));
    }
    src
}
