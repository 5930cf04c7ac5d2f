//! Times the phases of `rangefinder te` in one process: parsing, running
//! the script, and the report, on the stencil chain of `stages` stages or
//! on a script file. `cargo run --release -p script --example script_phases
//! -- 50` or `-- FILE.py` (`REPS=N` repetitions, 200 by default; the best
//! time of each phase is printed; for profiling, a larger N). The parse is
//! split further: the parser's lexer alone, which is part of it.

use std::time::{Duration, Instant};

#[path = "common/stencil_script.rs"]
mod stencil_script;

fn main() {
    let arg = std::env::args().nth(1).unwrap_or_else(|| "50".to_owned());
    let source = match arg.parse::<usize>() {
        Ok(stages) => stencil_script::stencil_script(stages),
        Err(_) => std::fs::read_to_string(&arg).expect("a readable script"),
    };
    let reps: usize = std::env::var("REPS")
        .ok()
        .and_then(|r| r.parse().ok())
        .unwrap_or(200);
    let options = te::ReportOptions {
        run: false,
        seed: 0,
        max_steps: Some(te::DEFAULT_MAX_STEPS),
        interrupt: None,
    };
    let mut best = [Duration::MAX; 5];
    for _ in 0..reps {
        let l0 = Instant::now();
        let mut lexer = python_parser::lexer::lex(&source, python_parser::Mode::Module);
        let mut tokens = 0usize;
        while lexer.next_token() != python_ast::token::TokenKind::EndOfFile {
            tokens += 1;
        }
        best[4] = best[4].min(l0.elapsed());
        std::hint::black_box(tokens);
        let t0 = Instant::now();
        let script = script::Script::parse(&source).expect("the script parses");
        let t1 = Instant::now();
        let run = script.run().expect("the script runs");
        let t2 = Instant::now();
        let text = run.target.map(|target| {
            te::run_report_reusing(&target.schedule, &target.args, &options, target.lowering)
                .expect("a report")
                .to_text()
        });
        let t3 = Instant::now();
        drop(std::hint::black_box((text, run.printed, run.schedules)));
        drop(script);
        let t4 = Instant::now();
        for (b, d) in best.iter_mut().zip([t1 - t0, t2 - t1, t3 - t2, t4 - t0]) {
            *b = (*b).min(d);
        }
    }
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    println!(
        "parse {:.3} ms (lexing {:.3} ms), run {:.3} ms, report {:.3} ms, all (with drops) {:.3} ms",
        ms(best[0]),
        ms(best[4]),
        ms(best[1]),
        ms(best[2]),
        ms(best[3])
    );
}
