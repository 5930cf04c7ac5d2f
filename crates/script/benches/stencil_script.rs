//! `rangefinder te` on the stencil chain, in one process: parsing the
//! script, running it, and the whole command's work (parse, run, report as
//! text). Process start-up is not included.

#[path = "../examples/common/stencil_script.rs"]
mod stencil_script;
use stencil_script::stencil_script;

fn main() {
    divan::main();
}

#[divan::bench(args = [50])]
fn parse(bencher: divan::Bencher, stages: usize) {
    let source = stencil_script(stages);
    bencher.bench(|| script::Script::parse(&source).unwrap());
}

#[divan::bench(args = [50])]
fn run(bencher: divan::Bencher, stages: usize) {
    let source = stencil_script(stages);
    let script = script::Script::parse(&source).unwrap();
    bencher.bench_local(|| script.run().unwrap());
}

/// What `rangefinder te FILE` computes: the script parsed and run, and the
/// report printed.
#[divan::bench(args = [50])]
fn parse_run_report(bencher: divan::Bencher, stages: usize) {
    let source = stencil_script(stages);
    let options = te::ReportOptions {
        run: false,
        seed: 0,
        max_steps: Some(te::DEFAULT_MAX_STEPS),
        interrupt: None,
    };
    bencher.bench(|| {
        let run = script::run(&source).unwrap();
        let target = run.target.unwrap();
        te::run_report_reusing(&target.schedule, &target.args, &options, target.lowering)
            .unwrap()
            .to_text()
    });
}
