//! Observed runs (`Interpreter::run_observed`): the regions and accesses of
//! watched buffers with the loops open at the time, and the same result as
//! an unobserved run.

use arith::{Expr, Range, Var};
use std::collections::HashMap;
use tir::{
    AccessKind, Buffer, DataType, Interpreter, LoopState, ObservedAccess, Observer, PrimFunc, Stmt,
    Tensor, Value,
};

/// Everything an observer is told, as text.
#[derive(Default)]
struct Log(Vec<String>);

fn loops_text(loops: &[LoopState<'_>]) -> String {
    let parts: Vec<String> = loops
        .iter()
        .map(|l| format!("{}={} from {}", l.var.name(), l.value, l.first))
        .collect();
    parts.join(" ")
}

impl Observer for Log {
    fn watches(&mut self, b: &Buffer) -> bool {
        b.name() == "B"
    }
    fn enter_region(&mut self, _: &Buffer, min: &[i64], extent: &[i64], loops: &[LoopState<'_>]) {
        self.0.push(format!(
            "enter {min:?} {extent:?} in [{}]",
            loops_text(loops)
        ));
    }
    fn leave_region(&mut self, _: &Buffer) {
        self.0.push("leave".into());
    }
    fn access(&mut self, a: &ObservedAccess<'_>) {
        let kind = match a.kind {
            AccessKind::Load => "load",
            AccessKind::Store => "store",
        };
        self.0.push(format!(
            "{kind} {:?} by {:?} in [{}]",
            a.indices,
            a.stage,
            loops_text(a.loops)
        ));
    }
}

/// `for (i, 1, 3) { realize B([i, 2]) { for (j, 0, 2) B[i + j] = A[i + j];
/// C[i] = B[i] + B[i + 1] } }`
fn program() -> (PrimFunc, Buffer, Buffer) {
    let a = Buffer::new("A", DataType::Float32, [4i64]);
    let b = Buffer::new("B", DataType::Float32, [4i64]);
    let c = Buffer::new("C", DataType::Float32, [4i64]);
    let (i, j) = (Var::new("i"), Var::new("j"));
    let produce = Stmt::for_range(
        &j,
        0,
        2,
        Stmt::store(
            &b,
            [i.expr() + j.expr()],
            Value::load(&a, [i.expr() + j.expr()]),
        ),
    );
    let consume = Stmt::store(
        &c,
        [i.expr()],
        Value::load(&b, [i.expr()]) + Value::load(&b, [i.expr() + 1]),
    );
    let body = Stmt::for_range(
        &i,
        1,
        3,
        Stmt::realize(
            &b,
            vec![Range::new(i.expr(), Expr::int(2))],
            Stmt::seq([produce, consume]),
        ),
    );
    (PrimFunc::new("f", vec![a.clone(), c.clone()], body), a, c)
}

#[test]
fn regions_and_accesses_are_reported_with_the_open_loops() {
    let (f, a, _) = program();
    let inputs = HashMap::from([(a, Tensor::new(vec![4], vec![1.0, 2.0, 3.0, 4.0]).unwrap())]);
    let mut log = Log::default();
    Interpreter::new()
        .run_observed(&f, &inputs, &HashMap::new(), &mut log)
        .unwrap();
    let first: Vec<&str> = log.0.iter().take(6).map(String::as_str).collect();
    assert_eq!(
        first,
        [
            "enter [1] [2] in [i=1 from 1]",
            "store [1] by Some(\"B\") in [i=1 from 1 j=0 from 0]",
            "store [2] by Some(\"B\") in [i=1 from 1 j=1 from 0]",
            "load [1] by Some(\"C\") in [i=1 from 1]",
            "load [2] by Some(\"C\") in [i=1 from 1]",
            "leave",
        ]
    );
    assert_eq!(log.0.len(), 12);
    assert_eq!(log.0[6], "enter [2] [2] in [i=2 from 1]");
}

#[test]
fn an_observed_run_gives_the_same_result() {
    let (f, a, c) = program();
    let inputs = HashMap::from([(a, Tensor::new(vec![4], vec![1.0, 2.0, 3.0, 4.0]).unwrap())]);
    let plain = Interpreter::new()
        .run(&f, &inputs, &HashMap::new())
        .unwrap();
    let observed = Interpreter::new()
        .run_observed(&f, &inputs, &HashMap::new(), &mut Log::default())
        .unwrap();
    assert_eq!(plain.tensor(&c), observed.tensor(&c));
    assert_eq!(plain.stage_runs(), observed.stage_runs());
    assert_eq!(plain.tensor(&c).unwrap().data()[1..3], [5.0, 7.0]);
}
