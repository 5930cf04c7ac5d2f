//! Bad input never panics: damaged example scripts and random text give an
//! error or a result.

use proptest::prelude::*;
use std::path::PathBuf;

fn examples() -> Vec<String> {
    let dir: PathBuf = [env!("CARGO_MANIFEST_DIR"), "..", "..", "examples", "te"]
        .iter()
        .collect();
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("examples/te")
        .filter_map(|e| Some(e.ok()?.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "py"))
        .collect();
    files.sort();
    files
        .iter()
        .map(|p| std::fs::read_to_string(p).expect("readable example"))
        .collect()
}

/// Cuts `source` at two character boundaries chosen by `a` and `b` (fractions
/// of its length) and splices `insert` in between.
fn damage(source: &str, a: f64, b: f64, insert: &str) -> String {
    let bounds: Vec<usize> = source
        .char_indices()
        .map(|(i, _)| i)
        .chain([source.len()])
        .collect();
    let pick = |f: f64| bounds[((bounds.len() - 1) as f64 * f) as usize];
    let (lo, hi) = (pick(a.min(b)), pick(a.max(b)));
    format!("{}{insert}{}", &source[..lo], &source[hi..])
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

    #[test]
    fn damaged_examples_do_not_panic(
        which in 0usize..64,
        a in 0.0f64..1.0,
        b in 0.0f64..1.0,
        insert in prop_oneof![
            Just(""), Just("("), Just(")"), Just(","), Just("0"), Just("-1"), Just("[0]"),
            Just(".op"), Just(" * 2"), Just("\n    "), Just("s[C]"), Just("lambda: 1"),
        ],
    ) {
        let all = examples();
        let source = damage(&all[which % all.len()], a, b, insert);
        if let Err(e) = script::run(&source) {
            prop_assert!(e.line >= 1 && e.column >= 1);
            prop_assert!(e.span.start <= source.len() + 1);
        }
    }

    #[test]
    fn random_text_does_not_panic(text in "[a-z0-9_ ().,:=+*/%\\[\\]\n-]{0,80}") {
        let _ = script::run(&text);
    }
}

/// A value of any Python kind, including extreme ones.
fn python_value() -> impl Strategy<Value = &'static str> {
    prop_oneof![
        Just("0"),
        Just("-1"),
        Just("9223372036854775807"),
        Just("-9223372036854775807 - 1"),
        Just("2.5"),
        Just("float('nan')"),
        Just("float('inf')"),
        Just("'s'"),
        Just("'\u{3000}é x'"),
        Just("''"),
        Just("[1, [2]]"),
        Just("(1,)"),
        Just("{'k': [1]}"),
        Just("{1, 2}"),
        Just("None"),
        Just("True"),
        Just("len"),
        Just("lambda *a, **k: a"),
        Just("ValueError('v')"),
    ]
}

/// An operation on Python values.
fn python_operation() -> impl Strategy<Value = &'static str> {
    prop_oneof![
        Just("{a} % {b}"),
        Just("{a} * {b}"),
        Just("{a} << {b}"),
        Just("{a}[{b}:{b}:{b}]"),
        Just("{a}[{b}]"),
        Just("format({a}, {b})"),
        Just("'%*d %s' % ({a}, {b})"),
        Just("'{{:{{}}}}'.format({a}, {b})"),
        Just("f'{{{a}!r:>{b}}}'"),
        Just("sorted([{a}, {b}])"),
        Just("sum([{a}], {b})"),
        Just("dict({a})"),
        Just("set({a})"),
        Just("round({a}, {b})"),
        Just("divmod({a}, {b})"),
        Just("str({a}).center({b})"),
        Just("str({a}).split({b})"),
        Just("max({a}, key={b})"),
        Just("isinstance({a}, {b})"),
        Just("getattr({a}, {b})"),
        Just("{a} in {b}"),
        Just("list(map({a}, {b}))"),
        Just("__import__('math').ceil({a})"),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]

    /// Python operations on odd values give a result or an error, never a
    /// panic, whatever the types.
    #[test]
    fn python_operations_do_not_panic(
        op in python_operation(),
        a in python_value(),
        b in python_value(),
        caught in any::<bool>(),
    ) {
        let expr = op.replace("{a}", a).replace("{b}", b);
        let source = if caught {
            format!("import math\ntry:\n    print({expr})\nexcept Exception as e:\n    print(e)\n")
        } else {
            format!("import math\nx = {expr}\nprint(x)\n")
        };
        if let Err(e) = script::run(&source) {
            prop_assert!(e.line >= 1 && e.column >= 1);
        }
    }
}

/// Containers nested 300,000 deep are built, compared, printed and freed
/// without exhausting the stack.
#[test]
fn deeply_nested_containers_do_not_overflow_the_stack() {
    let source = "l = []\nt = ()\nd = {}\nm = []\n\
                  for i in range(300000):\n    l = [l]\n    t = (t,)\n    d = {'k': d}\n    m = [m]\n\
                  print(len(str(l)) < 5000, l == l, t == t, {t: 1}[t], len(str(d)) < 20000)\n\
                  l = None\nprint(m == [m])\n";
    let err = script::run(source).expect_err("too deep to compare");
    assert_eq!(err.line, 12, "{}", err.message);
    assert!(
        err.message.contains("nested more than 500 deep"),
        "{}",
        err.message
    );
    let shown = source.replace("print(m == [m])\n", "");
    let run = script::run(&shown).expect("the script runs");
    assert_eq!(run.printed, "True True True 1 True\n");
}
