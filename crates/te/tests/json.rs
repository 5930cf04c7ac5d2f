//! `save_json` and `load_json`: what is saved loads back into a program
//! that prints and lowers the same, with fresh identities; what cannot be
//! saved, or a document that is not one `save_json` wrote, is an error.
// `&[t.clone()]` mirrors TVM's `create_schedule([t])`.
#![allow(clippy::cloned_ref_to_slice_refs)]

use arith::Expr;
use std::collections::BTreeMap;
use te::{
    compute_named, create_schedule, load_json, placeholder, reduce_axis, save_json, sum, AttrValue,
    IterVar, JsonObject, Schedule, Tensor, Value,
};
use tir::{DataType, PragmaValue};

fn round_trip_schedule(s: &Schedule) -> Schedule {
    let text = save_json(&JsonObject::Schedule(Box::new(s.clone()))).unwrap();
    match load_json(&text).unwrap() {
        JsonObject::Schedule(loaded) => *loaded,
        _ => panic!("a schedule loads as a schedule"),
    }
}

fn round_trip_tensor(t: &Tensor) -> Tensor {
    let text = save_json(&JsonObject::Tensor(t.clone())).unwrap();
    match load_json(&text).unwrap() {
        JsonObject::Tensor(loaded) => loaded,
        _ => panic!("a tensor loads as a tensor"),
    }
}

fn lowered(s: &Schedule) -> String {
    te::lower(s, &s.default_args()).unwrap().to_string()
}

/// TVM's `test_schedule_create`: symbolic shapes, a shared stage computed
/// inside a split loop, a reorder.
#[test]
fn a_scheduled_program_lowers_the_same_after_loading() {
    let (m, n, l) = (te::var("m"), te::var("n"), te::var("l"));
    let a = placeholder([m.expr(), l.expr()], "A", DataType::Float32).unwrap();
    let b = placeholder([n.expr(), l.expr()], "B", DataType::Float32).unwrap();
    let aa = compute_named(
        [m.expr(), l.expr()],
        &["i", "j"],
        |i| a.at([&i[0], &i[1]]),
        "AA",
    )
    .unwrap();
    let t = compute_named(
        [m.expr(), n.expr(), l.expr()],
        &["i", "j", "k"],
        |i| aa.at([&i[0], &i[2]]) * b.at([&i[1], &i[2]]),
        "T",
    )
    .unwrap();
    let mut s = create_schedule(&[t.clone()]);
    s.set_scope(&aa, "shared").unwrap();
    let (_, xi) = s.split(&t, &t.op().axis()[0], 10).unwrap();
    let (xi1, xi2) = s.split(&t, &xi, 2).unwrap();
    s.compute_at(&aa, &t, &xi1).unwrap();
    s.split(&aa, &aa.op().axis()[0], 10).unwrap();
    s.reorder(&t, &[xi2, xi1]).unwrap();
    let loaded = round_trip_schedule(&s);
    assert_eq!(lowered(&loaded), lowered(&s));
    assert_eq!(
        loaded.outputs()[0].body(0).unwrap().to_string(),
        s.outputs()[0].body(0).unwrap().to_string()
    );
    // Fresh identities: the loaded program shares nothing with the saved.
    assert_ne!(loaded.outputs()[0].id(), s.outputs()[0].id());
    assert_ne!(loaded.outputs()[0].axis()[0], t.op().axis()[0]);
}

/// TVM's `test_tensor_reduce`: a reduction reading through a call.
#[test]
fn a_reduction_prints_the_same_after_loading() {
    let (m, n, l) = (te::var("m"), te::var("n"), te::var("l"));
    let a = placeholder([m.expr(), l.expr()], "A", DataType::Float32).unwrap();
    let b = placeholder([n.expr(), l.expr()], "B", DataType::Float32).unwrap();
    let t = compute_named(
        [m.expr(), n.expr(), l.expr()],
        &["i", "j", "k"],
        |i| a.at([&i[0], &i[2]]) * b.at([&i[1], &i[2]]),
        "T",
    )
    .unwrap();
    let rv = reduce_axis((Expr::int(0), l.expr()), "k");
    let c = compute_named(
        [m.expr(), n.expr()],
        &["i", "j"],
        |i| {
            sum(
                t.at([i[0].clone(), i[1].clone(), rv.expr() + 1]),
                &[rv.clone()],
            )
        },
        "C",
    )
    .unwrap();
    let loaded = round_trip_tensor(&c);
    let body = |t: &Tensor| t.op().body(0).unwrap().to_string();
    assert_eq!(body(&loaded), body(&c));
    assert_eq!(loaded.name(), "C");
    let shape = |t: &Tensor| t.shape().iter().map(|d| d.to_string()).collect::<Vec<_>>();
    assert_eq!(shape(&loaded), shape(&c));
    assert_eq!(loaded.op().reduce_axis().len(), 1);
    let (s0, s1) = (create_schedule(&[c.clone()]), create_schedule(&[loaded]));
    assert_eq!(lowered(&s1), lowered(&s0));
}

/// TVM's `test_scan_multi_out`: a scan of two states.
#[test]
fn a_scan_of_two_states_loads_as_a_scan() {
    let (m, n) = (te::var("m"), te::var("n"));
    let x = placeholder([m.expr(), n.expr()], "X", DataType::Float32).unwrap();
    let s1 = placeholder([m.expr(), n.expr()], "s1", DataType::Float32).unwrap();
    let s2 = placeholder([m.expr(), n.expr()], "s2", DataType::Float32).unwrap();
    let init1 = compute_named(
        [Expr::int(1), n.expr()],
        &["_", "i"],
        |i| x.at([Expr::int(0), i[1].clone()]),
        "init1",
    )
    .unwrap();
    let init2 = compute_named(
        [Expr::int(1), n.expr()],
        &["_", "i"],
        |_| Value::float(0.0),
        "init2",
    )
    .unwrap();
    let up1 = compute_named(
        [m.expr(), n.expr()],
        &["t", "i"],
        |i| s1.at([&i[0] - 1, i[1].clone()]) + x.at([&i[0], &i[1]]),
        "update1",
    )
    .unwrap();
    let up2 = compute_named(
        [m.expr(), n.expr()],
        &["t", "i"],
        |i| s2.at([&i[0] - 1, i[1].clone()]) + s1.at([&i[0] - 1, i[1].clone()]),
        "update2",
    )
    .unwrap();
    let (update2, state1) = (up2.clone(), s1.clone());
    let op = te::scan_states(&[init1, init2], &[up1, up2], &[s1, s2], &[], "scan").unwrap();
    let text = save_json(&JsonObject::Operation(op.clone())).unwrap();
    let JsonObject::Operation(loaded) = load_json(&text).unwrap() else {
        panic!("an operation loads as an operation")
    };
    assert!(te::scan_op(&loaded).is_some());
    assert_eq!(loaded.num_outputs(), 2);
    let (a, b) = (
        create_schedule(&op.outputs()),
        create_schedule(&loaded.outputs()),
    );
    assert_eq!(lowered(&b), lowered(&a));
    // A schedule of the scan saves too: the group of its body is the
    // schedule's own and comes back with it; a group made by
    // `create_group` is refused by name.
    let mut s = a.clone();
    assert_eq!(s.groups().len(), 1);
    assert_eq!(lowered(&round_trip_schedule(&s)), lowered(&a));
    let g = s.create_group(&[update2], &[state1], false).unwrap();
    assert_eq!(s.group_members(g).len(), 1);
    let err = save_json(&JsonObject::Schedule(Box::new(s))).unwrap_err();
    assert!(err.message.contains("create_group"), "{}", err.message);
}

#[test]
fn tags_and_attributes_survive() {
    let a = placeholder([8], "A", DataType::Float32).unwrap();
    let n = te::var("n");
    let attrs = BTreeMap::from([
        ("hello".to_string(), AttrValue::Int(1)),
        (
            "arr".to_string(),
            AttrValue::List(vec![AttrValue::Int(10), AttrValue::Int(12)]),
        ),
        ("s".to_string(), AttrValue::Str("x".into())),
        ("f".to_string(), AttrValue::Float(0.5)),
        ("e".to_string(), AttrValue::Expr(n.expr() * 2)),
        ("t".to_string(), AttrValue::Tensor(a.clone())),
    ]);
    let c = te::try_compute_tagged(
        [8],
        &["i"],
        |i| Ok::<_, te::TeError>(a.at([&i[0]]) + 1.0),
        "C",
        "conv",
        attrs,
    )
    .unwrap();
    let loaded = round_trip_tensor(&c);
    assert_eq!(loaded.op().tag(), "conv");
    let shown = |t: &Tensor| {
        t.op()
            .attrs()
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect::<Vec<_>>()
    };
    assert_eq!(shown(&loaded), shown(&c));
    // The tensor attribute is the loaded program's own `A`.
    let Some(AttrValue::Tensor(t)) = loaded.op().attrs().get("t") else {
        panic!("a tensor attribute")
    };
    assert_eq!(t.op().id(), loaded.op().input_tensors()[0].op().id());
}

/// Loop kinds, pragmas, bindings, storage requests, store predicates, a
/// fuse of no axes and rfactor's new stage all replay.
#[test]
fn every_schedule_primitive_replays() {
    let a = placeholder([64, 32], "A", DataType::Float32).unwrap();
    let b = compute_named([64, 32], &["i", "j"], |i| a.at([&i[0], &i[1]]) * 2.0, "B").unwrap();
    let k = reduce_axis((0, 32), "k");
    let c = compute_named(
        [64],
        &["i"],
        |i| sum(b.at([i[0].clone(), k.expr()]), &[k.clone()]),
        "C",
    )
    .unwrap();
    let mut s = create_schedule(&[c.clone()]);
    let (ko, _) = s.split(&c, &k, 8).unwrap();
    let cf = s.rfactor(&c, &ko, 0).unwrap();
    let (bo, bi) = s.split(&b, &b.op().axis()[0], 16).unwrap();
    let (ji, jo) = (b.op().axis()[1].clone(), bi.clone());
    s.reorder(&b, &[ji.clone(), jo.clone()]).unwrap();
    s.parallel(&b, &bo).unwrap();
    s.vectorize(&b, &jo).unwrap();
    s.pragma(&b, &bo, "auto_unroll_max_step", Some(PragmaValue::Int(16)))
        .unwrap();
    s.storage_align(&b, &b.op().axis()[0], 32, 1).unwrap();
    s.double_buffer(&b).unwrap();
    let x = s.fuse_none(&cf).unwrap();
    s.unroll(&cf, &x).unwrap();
    let row = b.op().axis()[0].expr();
    s.set_store_predicate(&b, Expr::cmp(arith::CmpOp::Lt, row, Expr::int(60)))
        .unwrap();
    let loaded = round_trip_schedule(&s);
    assert_eq!(lowered(&loaded), lowered(&s));

    let mut g = create_schedule(&[b.clone()]);
    let (o, i) = g.split(&b, &b.op().axis()[0], 8).unwrap();
    g.bind(&b, &o, &IterVar::thread_axis("blockIdx.x").unwrap())
        .unwrap();
    g.bind(&b, &i, &IterVar::thread_axis("threadIdx.x").unwrap())
        .unwrap();
    let loaded = round_trip_schedule(&g);
    assert_eq!(lowered(&loaded), lowered(&g));
}

/// Loops fused after a reorder made them adjacent, then reordered again.
#[test]
fn a_fuse_between_reorders_replays() {
    let a = placeholder([4, 5, 6], "A", DataType::Float32).unwrap();
    let b = compute_named(
        [4, 5, 6],
        &["i", "j", "k"],
        |x| a.at([&x[0], &x[1], &x[2]]) + 1.0,
        "B",
    )
    .unwrap();
    let ax = b.op().axis().to_vec();
    let mut s = create_schedule(&[b.clone()]);
    s.reorder(&b, &[ax[1].clone(), ax[0].clone(), ax[2].clone()])
        .unwrap();
    let f = s.fuse(&b, &ax[0], &ax[2]).unwrap();
    s.reorder(&b, &[f, ax[1].clone()]).unwrap();
    let loaded = round_trip_schedule(&s);
    assert_eq!(lowered(&loaded), lowered(&s));
}

/// Nothing in saving or loading recurses as deep as a body or a pipeline
/// is long.
#[test]
fn long_bodies_and_pipelines_round_trip() {
    let a = placeholder([8], "A", DataType::Float32).unwrap();
    let c = compute_named(
        [8],
        &["i"],
        |i| {
            let mut v = a.at([&i[0]]);
            for k in 0..20_000 {
                v = v + (k as f64);
            }
            v
        },
        "C",
    )
    .unwrap();
    let loaded = round_trip_tensor(&c);
    assert_eq!(
        loaded.op().body(0).unwrap().written_size(),
        c.op().body(0).unwrap().written_size()
    );

    let mut t = a.clone();
    for k in 0..2_000 {
        let prev = t.clone();
        t = compute_named([8], &["i"], |i| prev.at([&i[0]]) + 1.0, &format!("S{k}")).unwrap();
    }
    let mut s = create_schedule(&[t.clone()]);
    s.split(&t, &t.op().axis()[0], 4).unwrap();
    let loaded = round_trip_schedule(&s);
    assert_eq!(loaded.stages().len(), s.stages().len());
}

#[test]
fn what_cannot_be_saved_is_named() {
    use tir::{CallArg, OpaqueCall, Stmt};
    let a = placeholder([4], "A", DataType::Float32).unwrap();
    let c = te::extern_op(
        [4],
        &[a.clone()],
        |ins, outs| {
            let args = vec![
                CallArg::Buffer(ins[0].clone()),
                CallArg::Buffer(outs[0].clone()),
            ];
            Ok::<_, te::TeError>(Stmt::opaque(OpaqueCall::packed("my.copy", args), true))
        },
        "C",
        None,
        None,
        None,
    )
    .unwrap();
    let err = save_json(&JsonObject::Tensor(c)).unwrap_err();
    assert_eq!(err.kind, te::ErrorKind::Unsupported);
    assert!(
        err.message.contains("extern or hybrid operation `C`"),
        "{}",
        err.message
    );
}

#[test]
fn documents_save_json_did_not_write_are_errors() {
    let a = placeholder([4], "A", DataType::Float32).unwrap();
    let b = compute_named([4], &["i"], |i| a.at([&i[0]]) + 1.0, "B").unwrap();
    let good = save_json(&JsonObject::Tensor(b)).unwrap();
    let cases = [
        ("{", "is not JSON"),
        ("[1, 2]", "not one `save_json` wrote"),
        (&good.replace("\"version\":1", "\"version\":7"), "version"),
        (&good.replace("\"v0\"", "\"v0 + w\""), "does not declare"),
        (&good.replace("\"v0\"", "\"v0 +\""), "does not parse"),
        (
            &good.replace("[[0,0],", "[[5,0],"),
            "used before it is defined",
        ),
        (
            &good.replace("\"float32\"", "\"float99\""),
            "not a data type",
        ),
        (
            &good.replace("\"binary\":[\"add\"", "\"binary\":[\"pow\""),
            "not a binary operator",
        ),
        (
            &good.replace("\"root\":{\"tensor\":[1,0]}", "\"root\":{\"tensor\":[1,3]}"),
            "no output 3",
        ),
    ];
    for (text, want) in cases {
        let err = match load_json(text) {
            Err(e) => e,
            Ok(_) => panic!("`{text}` loads"),
        };
        assert!(err.message.contains(want), "{text}: {}", err.message);
    }
}

mod hostile {
    use super::*;
    use proptest::prelude::*;

    /// A saved schedule with splits, a fuse, a reorder, an attachment, a
    /// binding and a reduction: the document the edits start from.
    fn document() -> String {
        let a = placeholder([12, 10], "A", DataType::Float32).unwrap();
        let b = compute_named([12, 10], &["i", "j"], |i| a.at([&i[0], &i[1]]) * 2.0, "B").unwrap();
        let k = reduce_axis((0, 10), "k");
        let c = compute_named(
            [12],
            &["i"],
            |i| sum(b.at([i[0].clone(), k.expr()]), &[k.clone()]),
            "C",
        )
        .unwrap();
        let mut s = create_schedule(&[c.clone()]);
        let (o, i) = s.split(&c, &c.op().axis()[0], 4).unwrap();
        s.reorder(&c, &[i.clone(), o.clone()]).unwrap();
        let (bo, _) = s.split(&b, &b.op().axis()[0], 3).unwrap();
        s.fuse(&b, &bo, &s.stage(&b).unwrap().leaf_iter_vars()[1].clone())
            .unwrap();
        s.compute_at(&b, &c, &o).unwrap();
        s.bind(&c, &i, &IterVar::thread_axis("threadIdx.x").unwrap())
            .unwrap();
        save_json(&JsonObject::Schedule(Box::new(s))).unwrap()
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(400))]

        /// Changed positions, names and numbers give an error or a schedule
        /// that lowers or refuses to, never a panic.
        #[test]
        fn edited_documents_load_or_fail_without_panicking(
            edits in prop::collection::vec((any::<prop::sample::Index>(), 0u8..12), 1..4),
        ) {
            let mut bytes = document().into_bytes();
            for (at, what) in edits {
                let k = at.index(bytes.len());
                bytes[k] = match what {
                    0..=9 => b'0' + what,
                    10 => b'"',
                    _ => b'-',
                };
            }
            let Ok(text) = String::from_utf8(bytes) else { return Ok(()) };
            if let Ok(JsonObject::Schedule(s)) = load_json(&text) {
                let _ = te::lower(&s, &s.default_args());
            }
        }
    }
}
