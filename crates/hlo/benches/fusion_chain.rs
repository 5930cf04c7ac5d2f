//! Output-to-input maps of long op chains, composed and simplified as the
//! composition goes: a fusion of N chained reshape / transpose / broadcast /
//! slice / elementwise ops (target: < 20 ms for N = 1000, linear growth),
//! and an entry computation alternating transposes and reshapes, whose exact
//! expressions double at every op until widened (target: < 50 ms for 100 ops).

use divan::Bencher;

fn main() {
    divan::main();
}

/// A fusion whose body is `n` ops cycling through
/// transpose -> reshape -> reshape -> broadcast -> slice -> reshape -> exponential
/// on `f32[8,16]`.
fn chain(n: usize) -> String {
    let mut body = vec!["  v0 = f32[8,16] parameter(0)".to_string()];
    let steps = [
        ("f32[16,8]", "transpose", ", dimensions={1,0}"),
        ("f32[128]", "reshape", ""),
        ("f32[8,16]", "reshape", ""),
        ("f32[2,8,16]", "broadcast", ", dimensions={1,2}"),
        ("f32[1,8,16]", "slice", ", slice={[1:2], [0:8], [0:16]}"),
        ("f32[8,16]", "reshape", ""),
        ("f32[8,16]", "exponential", ""),
    ];
    let mut shape = "f32[8,16]";
    for i in 1..=n {
        let (s, op, attrs) = steps[(i - 1) % steps.len()];
        let root = if i == n { "ROOT " } else { "" };
        body.push(format!("  {root}v{i} = {s} {op}(v{}){attrs}", i - 1));
        shape = s;
    }
    format!(
        "HloModule chain\n\nf {{\n{}\n}}\n\nENTRY e {{\n  p0 = f32[8,16] parameter(0)\n  ROOT fusion = {shape} fusion(p0), kind=kLoop, calls=f\n}}\n",
        body.join("\n")
    )
}

#[divan::bench(args = [250, 500, 1000])]
fn fusion_chain(bencher: Bencher, n: usize) {
    let module = hlo::parse_module(&chain(n)).expect("the generated chain parses");
    bencher.bench(|| {
        let maps = hlo::analyze(divan::black_box(&module), &hlo::Query::default()).expect("maps");
        divan::black_box(maps)
    });
}

#[divan::bench(args = [1000])]
fn parse_chain(bencher: Bencher, n: usize) {
    let text = chain(n);
    bencher.bench(|| hlo::parse_module(divan::black_box(&text)).expect("parses"));
}

/// An entry computation of `n` ops alternating transpose and reshape on
/// `f32[6,4]`: exact composed expressions double at every op, so this
/// measures the widening that keeps composition linear.
fn transpose_reshape_chain(n: usize) -> String {
    let mut lines = vec![
        "HloModule chain".to_string(),
        "ENTRY e {".to_string(),
        "  v0 = f32[6,4] parameter(0)".to_string(),
    ];
    let (mut a, mut b) = (6, 4);
    for i in 1..=n {
        std::mem::swap(&mut a, &mut b);
        let op = if i % 2 == 1 {
            format!("transpose(v{}), dimensions={{1,0}}", i - 1)
        } else {
            format!("reshape(v{})", i - 1)
        };
        let root = if i == n { "ROOT " } else { "" };
        lines.push(format!("  {root}v{i} = f32[{a},{b}] {op}"));
    }
    lines.push("}".to_string());
    lines.join("\n")
}

#[divan::bench(args = [24, 32, 100])]
fn transpose_reshape_to_parameters(bencher: Bencher, n: usize) {
    let module = hlo::parse_module(&transpose_reshape_chain(n)).expect("the chain parses");
    let query = hlo::Query {
        to_parameters: true,
        ..Default::default()
    };
    bencher.bench(|| {
        let maps = hlo::analyze(divan::black_box(&module), &query).expect("maps");
        divan::black_box(maps)
    });
}
