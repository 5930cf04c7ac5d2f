//! `ib.while_loop(cond)` in extern bodies, as TOPI's binary searches use
//! it (`programs/while_loops.py`, which both front ends run): the answers
//! are worked out by hand.

mod common;

const WHILE_LOOPS: &str = include_str!("programs/while_loops.py");

#[test]
fn while_loops_search_and_count_until_their_condition_fails() {
    let printed = common::run_checked(WHILE_LOOPS, 4, 5, 0.0);
    assert!(
        printed.contains("    while ((lo[0] < hi[0])) {\n"),
        "{printed}"
    );
    // Lower bounds of each query in its sorted row.
    assert!(
        printed.contains("\n[[0, 1, 7, 7, 8], [0, 2, 4, 5, 8]]\n"),
        "{printed}"
    );
    // Collatz steps of 1, 2, 3, 6, 7 and 27.
    assert!(printed.contains("\n[0, 1, 7, 8, 16, 111]\n"), "{printed}");
    assert!(
        printed.contains("            while x_1[0] > 1:\n"),
        "{printed}"
    );
    assert!(
        printed.contains("x = T.allocate([1], \"int32\", \"local\")"),
        "{printed}"
    );
}

#[test]
fn a_while_loop_needs_a_condition() {
    let src = "import tvm\n\
        ib = tvm.tir.ir_builder.create()\n\
        with ib.while_loop(3):\n    pass\n";
    let message = common::error_message(src);
    assert!(
        message.contains("`while_loop` needs a condition such as `i < n`"),
        "{message}"
    );
}
