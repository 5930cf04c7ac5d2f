//! Flat chains of 100,000 terms in scripts (script-level arithmetic, lambda
//! and def bodies, TE compute bodies, attribute, call and subscript chains)
//! parse, run, analyse and drop on a thread with a 2 MiB stack; deep
//! nesting (`not not ...`, `a ** b ** ...`, chained conditional expressions)
//! is a clear error at the documented limit, never a stack overflow
//! (`deep_nesting.rs` tries every kind).

const N: usize = 100_000;

fn on_small_stack(f: impl FnOnce() + Send + 'static) {
    std::thread::Builder::new()
        .stack_size(2 << 20)
        .spawn(f)
        .unwrap()
        .join()
        .unwrap();
}

fn chain(term: &str, ops: &[&str], n: usize) -> String {
    let mut s = String::from(term);
    for k in 1..n {
        s.push_str(ops[k % ops.len()]);
        s.push_str(term);
    }
    s
}

#[test]
fn a_script_level_sum_of_100000_terms_runs() {
    on_small_stack(|| {
        let source = format!("x = {}\nassert x == {N}\n", chain("1", &[" + "], N));
        script::run(&source).expect("runs");
        // The sum is checked: a wrong total fails the script's assert.
        let wrong = format!("x = {}\nassert x == {}\n", chain("1", &[" + "], N), N - 1);
        assert!(script::run(&wrong).is_err());
    });
}

#[test]
fn def_and_lambda_bodies_of_100000_terms_run_when_called() {
    on_small_stack(|| {
        let source = format!(
            "def f(a):\n    return {}\ng = lambda a: {}\nh = lambda: lambda b: {}\n\
             assert f(2) == {}\nassert g(3) == 0\nassert h()(1) == {}\n",
            chain("a", &[" + "], N),
            // a - a + a - ... - a: 50,000 minus signs, 49,999 plus signs.
            chain("a", &[" + ", " - "], N),
            chain("b", &[" * "], N),
            2 * N,
            1
        );
        script::run(&source).expect("runs");
    });
}

#[test]
fn a_te_body_of_100000_terms_is_analysed_lowered_and_run() {
    on_small_stack(|| {
        let body = chain("A[i]", &[" + "], N);
        let source = format!(
            "import tvm\nfrom tvm import te\nA = te.placeholder((4,), name=\"A\")\n\
             B = te.compute((4,), lambda i: {body}, name=\"B\")\n\
             s = te.create_schedule(B.op)\nprint(tvm.lower(s, [A, B], simple_mode=True))\n"
        );
        let run = script::run(&source).expect("runs");
        assert_eq!(run.printed.matches("A[i]").count(), N);
        let target = run.target.expect("a schedule");
        let options = te::ReportOptions {
            run: true,
            seed: 1,
            ..Default::default()
        };
        let report = te::run_report(&target.schedule, &target.args, &options).unwrap();
        assert!(report.is_clean(), "{}", report.to_text());
        assert!(report.to_text().ends_with("  ok\n"));
    });
}

#[test]
fn nesting_the_text_does_not_show_is_a_clear_error() {
    on_small_stack(|| {
        for deep in [
            format!("x = {}True\n", "not ".repeat(N)),
            format!("x = {}\n", chain("1", &[" ** "], N)),
            format!("x = {}1\n", "1 if True else ".repeat(N)),
            format!("x = {}1\n", "lambda: ".repeat(N)),
        ] {
            let e = script::run(&deep).expect_err("too deep");
            assert!(e.message.contains("nesting deeper than"), "{}", e.message);
        }
        // Below the limit the same shapes run.
        let fine = format!("x = {}True\nassert x\n", "not ".repeat(100));
        script::run(&fine).expect("runs");
        let fine = format!("x = {}1\nassert x == 1\n", "1 if True else ".repeat(100));
        script::run(&fine).expect("runs");
    });
}

#[test]
fn postfix_chains_of_100000_links_parse_and_run() {
    // Calls and subscripts: `f(1)(1)...` and `x[0][0]...` evaluate.
    let calls = format!(
        "def f(x):\n    return f\ng = f{}\nassert g.__name__ == \"f\"\n",
        "(1)".repeat(N)
    );
    script::run(&calls).expect("runs");
    let items = format!(
        "x = 7\nfor i in range({N}):\n    x = [x]\ny = x{}\nassert y == 7\n",
        "[0]".repeat(N)
    );
    script::run(&items).expect("runs");
    // Attributes: the chain parses; running it stops at its first link.
    let attributes = format!("a = 1\nx = a{}\n", ".b".repeat(N));
    let e = script::run(&attributes).expect_err("an int has no attribute b");
    assert_eq!((e.line, e.column), (2, 5), "{e}");
    // Flat chains with prefix operators in every term.
    let minus = format!("x = {}\nassert x == -{N}\n", chain("-1", &[" + "], N));
    script::run(&minus).expect("runs");
    let nots = format!("x = {}\nassert not x\n", chain("not 1", &[" or "], N));
    script::run(&nots).expect("runs");
}

/// The report of the schedule `source` ends with, run on random inputs.
fn run_and_report(source: &str) -> te::RunReport {
    let run = script::run(source).expect("runs");
    let target = run.target.expect("a schedule");
    let options = te::ReportOptions {
        run: true,
        seed: 2,
        ..Default::default()
    };
    te::run_report(&target.schedule, &target.args, &options).unwrap()
}

#[test]
fn a_chain_of_20000_stages_built_in_a_loop_is_analysed_and_run() {
    // Each stage reads the one before: 20,000 stages nest 20,000 storage
    // scopes in the lowered program (3,000 overflowed a main thread's
    // stack before its walks grew their stack).
    on_small_stack(|| {
        let source = "import tvm\nfrom tvm import te\nA = te.placeholder((4,), name=\"A\")\n\
             def step(T):\n    return te.compute((4,), lambda i: T[i] + 1.0)\n\
             T = A\nfor k in range(20000):\n    T = step(T)\n\
             s = te.create_schedule(T.op)\n";
        let report = run_and_report(source);
        assert!(report.is_clean(), "{}", report.to_text());
        assert_eq!(report.to_text().matches("produce ").count(), 20_000);
    });
}

#[test]
fn a_chain_of_5000_inlined_stages_built_in_a_loop_is_analysed_and_run() {
    // Every stage but the last is inlined: its body is the whole chain,
    // expanded once per stage (building each inlined stage's full body in
    // turn took minutes at this length).
    on_small_stack(|| {
        let source = "import tvm\nfrom tvm import te\nA = te.placeholder((4,), name=\"A\")\n\
             T = A\nTs = []\nfor k in range(4999):\n    \
             T = te.compute((4,), lambda i: T[i] + 1.0)\n    Ts.append(T)\n\
             C = te.compute((4,), lambda i: T[i] + 1.0, name=\"C\")\n\
             s = te.create_schedule(C.op)\nfor U in Ts:\n    s[U].compute_inline()\n";
        let report = run_and_report(source);
        let text = report.to_text();
        assert!(report.is_clean(), "{text}");
        assert_eq!(text.matches("produce ").count(), 1);
        assert_eq!(text.matches("inlined into its consumers").count(), 4_999);
    });
}
