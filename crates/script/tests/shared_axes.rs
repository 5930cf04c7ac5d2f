//! A reduce axis given to two computes in a TE script: a split in one stage
//! leaves the other stage's plain loop, and the program runs as defined.

const SOURCE: &str = "import tvm
from tvm import te
A = te.placeholder((4, 8), name=\"A\")
k = te.reduce_axis((0, 8), name=\"k\")
B = te.compute((4,), lambda i: te.sum(A[i, k], axis=k), name=\"B\")
D = te.compute((4,), lambda i: te.sum(A[i, k] * 2, axis=k), name=\"D\")
s = te.create_schedule([D.op, B.op])
s[B].split(B.op.reduce_axis[0], factor=3)
print(tvm.lower(s, [A, B, D], simple_mode=True))
";

#[test]
fn a_split_of_a_shared_reduce_axis_stays_in_its_stage() {
    let run = script::run(SOURCE).expect("runs");
    let text = &run.printed;
    let d_start = text.find("produce D {").expect("D is produced");
    let b_start = text.find("produce B {").expect("B is produced");
    let d_block = if d_start < b_start {
        &text[d_start..b_start]
    } else {
        &text[d_start..]
    };
    assert!(!d_block.contains("k.outer"), "{text}");
    assert!(d_block.contains("for (k, 0, 8)"), "{text}");
    let target = run.target.expect("a schedule");
    for seed in 0..2 {
        let options = te::ReportOptions {
            run: true,
            seed,
            ..Default::default()
        };
        let report = te::run_report(&target.schedule, &target.args, &options).unwrap();
        assert!(report.is_clean(), "{}", report.to_text());
    }
}
