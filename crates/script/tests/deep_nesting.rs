//! The parser recurses once per nested construct, so every kind of nesting
//! is bounded before parsing: at the limit a script parses, one level past
//! it the error names the limit and points at the construct that crossed
//! it. Each case runs on a thread with a 256 KiB stack, and each kind is
//! also tried 100,000 levels deep (blocks 2,000), so a kind the bound missed shows as a
//! crash or as a parse where an error was due.

use proptest::prelude::*;
use script::{Script, MAX_INDENTATION, MAX_NESTING};

fn on_small_stack(f: impl FnOnce() + Send + 'static) {
    std::thread::Builder::new()
        .stack_size(256 << 10)
        .spawn(f)
        .unwrap()
        .join()
        .unwrap();
}

/// A nesting kind: how to nest it `k` times, and how many levels `k`
/// nestings count against [`MAX_NESTING`].
struct Kind {
    name: &'static str,
    build: fn(usize) -> String,
    levels: fn(usize) -> usize,
}

fn same(k: usize) -> usize {
    k
}

fn double(k: usize) -> usize {
    2 * k
}

fn kinds() -> Vec<Kind> {
    vec![
        Kind {
            name: "parentheses",
            build: |k| format!("x = {}1{}\n", "(".repeat(k), ")".repeat(k)),
            levels: same,
        },
        Kind {
            name: "lists",
            build: |k| format!("x = {}1{}\n", "[".repeat(k), "]".repeat(k)),
            levels: same,
        },
        Kind {
            name: "dicts",
            build: |k| format!("x = {}1{}\n", "{1: ".repeat(k), "}".repeat(k)),
            levels: same,
        },
        Kind {
            name: "calls",
            build: |k| format!("x = {}1{}\n", "f(".repeat(k), ")".repeat(k)),
            levels: same,
        },
        Kind {
            name: "subscripts",
            build: |k| format!("x = {}0{}\n", "a[".repeat(k), "]".repeat(k)),
            levels: same,
        },
        Kind {
            name: "prefix operators",
            build: |k| {
                format!(
                    "x = {}1\n",
                    "-+~".chars().cycle().take(k).collect::<String>()
                )
            },
            levels: same,
        },
        Kind {
            name: "not",
            build: |k| format!("x = {}True\n", "not ".repeat(k)),
            levels: same,
        },
        Kind {
            name: "** chains",
            build: |k| format!("x = 1{}\n", " ** 1".repeat(k)),
            levels: same,
        },
        Kind {
            name: "** with prefix operators",
            build: |k| format!("x = 2{}\n", " ** -2".repeat(k / 2)),
            levels: |k| k / 2 * 2,
        },
        Kind {
            name: "conditional expressions",
            build: |k| format!("x = {}1\n", "1 if c else ".repeat(k)),
            levels: same,
        },
        Kind {
            name: "conditions of conditional expressions",
            build: |k| format!("x = 1 if {}c else 2\n", "not ".repeat(k.saturating_sub(1))),
            levels: same,
        },
        Kind {
            name: "lambdas",
            build: |k| format!("x = {}1\n", "lambda: ".repeat(k)),
            levels: same,
        },
        Kind {
            name: "lambdas with parameters",
            build: |k| format!("x = {}1\n", "lambda a, b=-1, *c, **d: ".repeat(k)),
            // The innermost default's `-` is inside all the lambdas.
            levels: |k| k + 1,
        },
        Kind {
            name: "await",
            build: |k| format!("async def f():\n    x = {}1\n", "await ".repeat(k)),
            levels: same,
        },
        Kind {
            name: "yield",
            build: |k| format!("def f():\n    x = {}1\n", "yield ".repeat(k)),
            levels: same,
        },
        Kind {
            name: "starred arguments",
            build: |k| format!("f({}a)\n", "* ".repeat(k.saturating_sub(1))),
            levels: same,
        },
        Kind {
            name: "** arguments",
            build: |k| format!("x = {}{{}}{}\n", "{**".repeat(k / 2), "}".repeat(k / 2)),
            levels: |k| k / 2 * 2 + 1,
        },
        Kind {
            name: "walrus",
            build: |k| format!("x = {}1{}\n", "(a := ".repeat(k), ")".repeat(k)),
            levels: double,
        },
        Kind {
            name: "f-strings",
            build: |k| format!("x = {}1{}\n", "f\"{".repeat(k), "}\"".repeat(k)),
            levels: double,
        },
        Kind {
            name: "f-string format specs",
            build: |k| format!("x = {}1{}\n", "f'{x:{".repeat(k), "}}'".repeat(k)),
            // The string, its field, its spec's field.
            levels: |k| 3 * k,
        },
    ]
}

/// The largest `k` whose nesting counts at most `limit` levels.
fn largest_within(kind: &Kind, limit: usize) -> usize {
    (0..=limit + 2)
        .take_while(|&k| (kind.levels)(k) <= limit)
        .last()
        .unwrap_or(0)
}

fn too_deep(e: &script::ScriptError) -> bool {
    e.message
        .contains(&format!("nesting deeper than {MAX_NESTING} levels"))
}

#[test]
fn every_kind_of_nesting_parses_at_the_limit_and_fails_just_past_it() {
    on_small_stack(|| {
        for kind in kinds() {
            let k = largest_within(&kind, MAX_NESTING);
            let at_limit = (kind.build)(k);
            // `await` and `yield` are also refused outside functions of the
            // right kind; what matters is that the nesting limit is not hit.
            if let Err(e) = Script::parse(&at_limit) {
                assert!(!too_deep(&e), "{}: {k} levels refused: {e}", kind.name);
                assert!(e.message.starts_with("syntax error"), "{}: {e}", kind.name);
            }
            let past = (kind.build)(k + 1);
            let e = Script::parse(&past)
                .err()
                .unwrap_or_else(|| panic!("{}: {} levels parsed", kind.name, k + 1));
            assert!(too_deep(&e), "{}: {e}", kind.name);
            assert!(e.span.end <= past.len() && e.span.start < e.span.end);
            assert!(e.line >= 1 && e.column >= 1);
        }
    });
}

#[test]
fn every_kind_of_nesting_100000_deep_is_an_error_not_a_crash() {
    on_small_stack(|| {
        for kind in kinds() {
            let source = (kind.build)(100_000);
            let e = script::run(&source).expect_err(kind.name);
            assert!(too_deep(&e), "{}: {e}", kind.name);
        }
    });
}

#[test]
fn the_error_points_at_the_construct_past_the_limit() {
    let source = format!("x = {}1{}\n", "(".repeat(201), ")".repeat(201));
    let e = Script::parse(&source).err().expect("too deep");
    assert_eq!(e.span, 204..205);
    let source = format!("y = 1\nx = {}True\n", "not ".repeat(201));
    let e = Script::parse(&source).err().expect("too deep");
    assert_eq!((e.line, e.column), (2, 5 + 4 * 200));
    assert_eq!(&source[e.span.clone()], "not");
}

/// `n` blocks, each nested in the one before.
fn blocks(n: usize) -> String {
    let mut s = String::from("x = 1\n");
    for level in 0..n {
        s.push_str(&"  ".repeat(level));
        s.push_str(if level % 2 == 0 {
            "if x:\n"
        } else {
            "for i in [1]:\n"
        });
    }
    s.push_str(&"  ".repeat(n));
    s.push_str("x = x + 1\n");
    s
}

#[test]
fn blocks_nest_as_deep_as_cpython_allows() {
    on_small_stack(|| {
        // The innermost body is indented MAX_INDENTATION levels.
        let run = script::run(&format!("{}print(x)\n", blocks(MAX_INDENTATION)));
        assert_eq!(run.expect("runs").printed, "2\n");
        let source = blocks(MAX_INDENTATION + 1);
        let e = Script::parse(&source).err().expect("too deep");
        assert!(e.message.contains("indented blocks"), "{e}");
        // The body's line, at its first character.
        assert_eq!(
            (e.line, e.column),
            (MAX_INDENTATION + 3, 2 * (MAX_INDENTATION + 1) + 1)
        );
        let e = Script::parse(&blocks(2_000)).err().expect("too deep");
        assert!(e.message.contains("indented blocks"), "{e}");
    });
}

#[test]
fn brackets_in_strings_and_comments_are_not_nesting() {
    let text = "(".repeat(1000);
    for source in [
        format!("x = '{text}'  # {text}\n"),
        format!("x = \"\"\"\n{text}\n\"\"\"\n"),
        format!("x = f'{{1}}{{{{{text}'\n"),
        format!("x = rb'\\'{text}'\n"),
    ] {
        Script::parse(&source).unwrap_or_else(|e| panic!("{source}: {e}"));
    }
}

/// One nesting wrapped around `inner`, and the levels it counts.
fn wrap(kind: u8, inner: &str) -> (String, usize) {
    match kind {
        0 => (format!("({inner})"), 1),
        1 => (format!("[{inner}]"), 1),
        2 => (format!("f({inner})"), 1),
        3 => (format!("a[{inner}]"), 1),
        4 => (format!("-({inner})"), 2),
        5 => (format!("not ({inner})"), 2),
        6 => (format!("2 ** ({inner})"), 2),
        7 => (format!("1 if c else {inner}"), 1),
        8 => (format!("lambda: {inner}"), 1),
        9 => (format!("f'{{({inner})}}'"), 3),
        10 => (format!("{{1: {inner}}}"), 1),
        _ => (format!("1 + ({inner}) * 2 - 4"), 1),
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    /// Mixed nestings parse exactly when they count at most MAX_NESTING
    /// levels: the scan counts what the parser recurses on, no more.
    #[test]
    fn mixed_nestings_parse_exactly_up_to_the_limit(
        kinds in proptest::collection::vec(0u8..12, 90..230)
    ) {
        let mut expr = String::from("x");
        let mut levels = 0;
        for kind in kinds {
            let (wrapped, more) = wrap(kind, &expr);
            expr = wrapped;
            levels += more;
        }
        let source = format!("y = {expr}\n");
        let (tx, rx) = std::sync::mpsc::channel();
        on_small_stack(move || {
            let parsed = Script::parse(&source).map(|_| ()).map_err(|e| too_deep(&e));
            tx.send(parsed).unwrap();
        });
        let parsed = rx.recv().unwrap();
        prop_assert_eq!(parsed, if levels <= MAX_NESTING { Ok(()) } else { Err(true) });
    }
}

/// Tokens to repeat into malformed scripts.
const TOKENS: &[&str] = &[
    "(", ")", "[", "]", "{", "}", "-", "~", "not ", " if ", " else ", "lambda ", ":", ",", "=",
    "*", "**", "await ", "yield ", "f'{", "}'", "'", "\"", "a", "1", " and ", " in ", " is ",
    " for ", "def ", "class ", "\n", " ", ":=", "@", "match ", "case ", "|", " as ", " from ",
    "t'{", "\\\n", "#", "\n  ", "f\"\"\"{", "!r", ".", "->", ";", "with ", "async ",
];

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    /// A short run of tokens repeated 20,000 times, valid or not, gives a
    /// result or an error: the parser's recovery never recurses past the
    /// scan's count.
    #[test]
    fn repeated_token_runs_never_overflow_the_stack(
        run in proptest::collection::vec(0..TOKENS.len(), 1..5)
    ) {
        let unit: String = run.iter().map(|&t| TOKENS[t]).collect();
        let source = format!("x = {}\n", unit.repeat(20_000));
        on_small_stack(move || {
            let _ = Script::parse(&source);
        });
    }
}

#[test]
fn brackets_that_match_nothing_and_lambdas_without_colons_are_syntax_errors() {
    // The parser would recover from these by nesting on, so they are
    // refused first, at the token at fault.
    for (source, message, column) in [
        (
            "x = (1]\n",
            "syntax error: closing bracket ']' does not match opening parenthesis '('",
            7,
        ),
        ("x = 1)\n", "syntax error: unmatched ')'", 6),
        ("x = f'{a)}'\n", "syntax error: unmatched ')'", 9),
        (
            "x = lambda a\ny = 1\n",
            "syntax error: expected ':' after the lambda's parameters",
            13,
        ),
        (
            "f(lambda a)\n",
            "syntax error: expected ':' after the lambda's parameters",
            11,
        ),
    ] {
        let e = Script::parse(source).err().expect(source);
        assert_eq!(
            (e.message.as_str(), e.line, e.column),
            (message, 1, column),
            "{source:?}"
        );
    }
    // Brackets and lambdas that match still parse, across lines too.
    Script::parse("x = [(1, {2: f'{(3)}'})]\ny = f(lambda a,\n  b=(1): a)\n").expect("parses");
}
