//! Values that share their parts stand for far more than they hold: a
//! string, list or `PrimExpr` doubled in a loop, a container holding the
//! same container twice. Every operation that would write such a value
//! out (build it, print it, compare it, use it in a schedule) is a quick
//! error at its span or a bounded result, never a walk of the tree it
//! stands for, an exhausted memory or a wrong answer.

fn error_of(source: &str) -> script::ScriptError {
    match script::run(source) {
        Ok(_) => panic!("ran without error:\n{source}"),
        Err(e) => e,
    }
}

/// `line` in a loop of 100 steps, after `setup`.
fn doubling(setup: &str, line: &str) -> String {
    format!("{setup}\nfor _ in range(100):\n    {line}\n")
}

#[test]
fn sequences_doubling_in_a_loop_stop_at_the_budget() {
    for (setup, line, what) in [
        ("s = 'ab'", "s = s + s", "`+` would build"),
        ("s = [1]", "s = s + s", "`+` would build"),
        ("s = (1,)", "s = s + s", "`+` would build"),
        ("s = [1]", "s += s", "`+=` would build"),
        ("s = [1]", "s.extend(s)", "`extend` would build"),
        ("s = 'ab'", "s = f'{s}{s}'", "the f-string would build"),
        ("s = 'ab'", "s = '%s%s' % (s, s)", "`%` would build"),
        (
            "s = 'ab'",
            "s = '{}{}'.format(s, s)",
            "`format` would build",
        ),
        ("s = 'ab'", "s = ''.join([s, s])", "`join` would build"),
        (
            "s = 'ab'",
            "s = s.replace('a', 'aa')",
            "`replace` may build",
        ),
        ("s = 'ab'", "s = s * 2", "`*` would build"),
    ] {
        let source = doubling(setup, line);
        let e = error_of(&source);
        assert!(e.message.starts_with(what), "{line}: {}", e.message);
        assert!(e.message.contains("more than 10000000"), "{}", e.message);
        assert_eq!(e.line, 3, "{line}: at the doubling line");
    }
}

#[test]
fn sequences_below_the_budget_are_built_exactly() {
    let run = script::run(
        "s = 'ab'\nfor _ in range(20):\n    s = s + s\nl = [1]\nfor _ in range(20):\n    l.extend(l)\n\
         print(len(s), len(l), len(s.replace('a', 'aa')), len(''.join([s, s])))\n",
    )
    .unwrap();
    assert_eq!(run.printed, "2097152 1048576 3145728 4194304\n");
}

#[test]
fn printing_a_shared_container_is_bounded() {
    // `x` stands for 2^100 items; its text is cut at the budget with `...`.
    let run = script::run(
        "x = [1]\nfor _ in range(100):\n    x = [x, x]\ns = str(x)\nprint(len(s) < 50000000, s[:6], s[-5:])\n",
    )
    .unwrap();
    assert_eq!(run.printed, "True [[[[[[  ...]\n");
    // Small shared containers print in full, as in Python.
    let run =
        script::run("x = [1]\nfor _ in range(3):\n    x = [x, x]\nprint(x)\nprint({1: x[0]})\n")
            .unwrap();
    assert_eq!(
        run.printed,
        "[[[[1], [1]], [[1], [1]]], [[[1], [1]], [[1], [1]]]]\n{1: [[[1], [1]], [[1], [1]]]}\n"
    );
}

#[test]
fn comparing_shared_containers_is_an_error_past_the_budget_never_a_wrong_answer() {
    let setup = "x = (1,)\ny = (1,)\nfor _ in range(100):\n    x = (x, x)\n    y = (y, y)\n";
    for use_ in [
        "x == y",
        "x != y",
        "x < y",
        "x in [y]",
        "[x].index(y)",
        "[x, y].count(y)",
        "sorted([x, y])",
        "set([x, y])",
        "{x: 1, y: 2}",
        "{x} | {y}",
        "{x}.issubset({y})",
        "max(x, y)",
    ] {
        let e = error_of(&format!("{setup}z = {use_}\n"));
        assert!(
            e.message.contains("visits more than 10000000 items"),
            "{use_}: {}",
            e.message
        );
        assert_eq!(e.line, 6, "{use_}");
    }
    // Below the budget the answers are Python's.
    let run = script::run(
        "x = (1,)\ny = (1,)\nfor _ in range(10):\n    x = (x, x)\n    y = (y, y)\n\
         print(x == y, [x, y].count(y), len(set([x, y])), len({x: 1, y: 2}), [x].index(y))\n",
    )
    .unwrap();
    assert_eq!(run.printed, "True 2 1 1 0\n");
}

#[test]
fn a_shared_primexpr_is_named_not_printed_and_refused_where_lowered() {
    let setup = "import tvm\nfrom tvm import te\nn = te.var('n')\ne = n\nfor _ in range(100):\n    e = te.max(e, e + 1)\n\
                 A = te.placeholder((n,), name='A')\n";
    let run = script::run(&format!("{setup}print(e)\n")).unwrap();
    assert_eq!(
        run.printed,
        "<PrimExpr of more than 10000000 nodes written out: too large to show>\n"
    );
    for (use_, what) in [
        (
            "B = te.compute((n,), lambda i: A[i] + 1, name='B')\ns = te.create_schedule(B.op)\ns[B].split(B.op.axis[0], factor=e)",
            "split of `i` by a factor or number of parts that written out has more than 4 billion nodes",
        ),
        (
            "B = te.compute((n,), lambda i: A[i] + 1, name='B')\ns = te.create_schedule(B.op)\ns[B].split(B.op.axis[0], nparts=e)",
            "split of `i` by a factor or number of parts that written out has",
        ),
        (
            "k = te.reduce_axis((0, e), name='k')\nB = te.compute((1,), lambda i: te.sum(A[k], axis=k), name='B')",
            "the range of `k` in `B` written out has",
        ),
        (
            "B = te.compute((n,), lambda i: A[i] + 1, name='B')\ns = te.create_schedule(B.op)\ns[B].set_store_predicate(e > 3)",
            "the condition of `set_store_predicate` written out has",
        ),
        (
            "B = te.compute((e,), lambda i: A[i] + 1, name='B')",
            "dimension 0 of `B` written out has",
        ),
        (
            "B = te.compute((n,), lambda i: A[i] + e, name='B')",
            "the body of `B` written out has",
        ),
    ] {
        let e = error_of(&format!("{setup}{use_}\n"));
        assert!(e.message.contains(what), "{use_}: {}", e.message);
    }
}
