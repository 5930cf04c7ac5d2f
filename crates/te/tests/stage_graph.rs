//! Tags and attributes of operations, automatic inlining, the read graph,
//! `normalize` and attachments to loops that were split or fused, and
//! schedule groups.
#![allow(clippy::cloned_ref_to_slice_refs)]

use te::{
    auto_inline_broadcast, auto_inline_elem_wise, auto_inline_injective, check, compute_named,
    create_read_graph, create_schedule, infer_bound, lower, placeholder, post_order_dfs,
    reduce_axis, sum, try_compute_tagged, Attach, AttrValue, Attrs, TeError, Tensor, Value,
};
use tir::DataType;

fn tagged(t: &Tensor, name: &str, tag: &str, f: impl Fn(Value) -> Value) -> Tensor {
    let names = ["i", "j", "k"];
    try_compute_tagged(
        t.shape().to_vec(),
        &names[..t.ndim()],
        |i| Ok::<_, TeError>(f(t.at(i.to_vec()))),
        name,
        tag,
        Attrs::new(),
    )
    .unwrap()
}

#[test]
fn tags_and_attributes_stay_on_the_operation() {
    let a = placeholder([4], "A", DataType::Float32).unwrap();
    let mut attrs = Attrs::new();
    attrs.insert("n".to_string(), AttrValue::Int(4));
    attrs.insert("alpha".to_string(), AttrValue::Float(0.5));
    attrs.insert("size".to_string(), AttrValue::Expr(arith::Expr::int(4)));
    attrs.insert(
        "workload".to_string(),
        AttrValue::List(vec![AttrValue::Str("relu".into()), AttrValue::Int(4)]),
    );
    let b = try_compute_tagged(
        [4],
        &["i"],
        |i| Ok::<_, TeError>(a.at([&i[0]]) * 2.0),
        "B",
        "elemwise",
        attrs.clone(),
    )
    .unwrap();
    assert_eq!(b.op().tag(), "elemwise");
    assert_eq!(b.op().attrs(), &attrs);
    assert_eq!(b.op().attrs()["workload"].to_string(), "[\"relu\", 4]");
    assert_eq!(b.op().attrs()["alpha"].to_string(), "0.5");
    // Untagged computes and placeholders have an empty tag and no attributes.
    let c = compute_named([4], &["i"], |i| b.at([&i[0]]) + 1.0, "C").unwrap();
    assert_eq!(c.op().tag(), "");
    assert!(c.op().attrs().is_empty() && a.op().attrs().is_empty());
    // cache_write keeps them on the cache stage, as TVM copies them.
    let mut s = create_schedule(&[c.clone()]);
    let bl = s.cache_write(&b, "local").unwrap();
    assert_eq!(bl.op().tag(), "elemwise");
    assert_eq!(bl.op().attrs(), &attrs);
    assert_eq!(s.stage(&b).unwrap().op().tag(), "elemwise");
}

#[test]
fn auto_inline_follows_tvms_rules() {
    let a = placeholder([8, 8], "A", DataType::Float32).unwrap();
    let elem = tagged(&a, "E", "elemwise", |v| v + 1.0);
    let bcast = compute_named([8, 8], &["i", "j"], |i| elem.at([&i[0], &i[0]]) * 2.0, "T").unwrap();
    let bcast = tagged(&bcast, "Bc", "broadcast", |v| v - 1.0);
    let k = reduce_axis((0, 8), "k");
    let red = compute_named(
        [8, 8],
        &["i", "j"],
        |i| sum(bcast.at([&i[0], &k.expr()]), &[k.clone()]),
        "R",
    )
    .unwrap();
    let out = tagged(&red, "O", "elemwise", |v| v * 3.0);
    let args = [a.clone(), out.clone()];

    // Element-wise: E and Bc read at their own axes; T reads E[i, i].
    let mut s = create_schedule(&[out.clone()]);
    assert_eq!(auto_inline_elem_wise(&mut s), 2);
    let inlined: Vec<&str> = s
        .stages()
        .iter()
        .filter(|st| st.attach() == &Attach::Inline)
        .map(|st| st.name())
        .collect();
    assert_eq!(inlined, ["E", "Bc"]);
    assert!(check(&s, &args, &Default::default(), 1)
        .unwrap()
        .is_clean(1e-6));

    // Broadcast: only the stage tagged so.
    let mut s = create_schedule(&[out.clone()]);
    assert_eq!(auto_inline_broadcast(&mut s), 1);
    assert_eq!(s.stage(&bcast).unwrap().attach(), &Attach::Inline);

    // Injective: every compute without a reduction but the output; a
    // scheduled stage is left alone.
    let mut s = create_schedule(&[out.clone()]);
    s.split(&bcast, &bcast.op().axis()[0], 2).unwrap();
    assert_eq!(auto_inline_injective(&mut s), 2);
    let inlined: Vec<&str> = s
        .stages()
        .iter()
        .filter(|st| st.attach() == &Attach::Inline)
        .map(|st| st.name())
        .collect();
    assert_eq!(inlined, ["E", "T"]);
    assert!(check(&s, &args, &Default::default(), 1)
        .unwrap()
        .is_clean(1e-6));
}

#[test]
fn read_graph_and_post_order_are_tvms() {
    let a = placeholder([4], "A", DataType::Float32).unwrap();
    let b = placeholder([4], "B", DataType::Float32).unwrap();
    let c = compute_named([4], &["i"], |i| a.at([&i[0]]) + b.at([&i[0]]), "C").unwrap();
    let d = compute_named([4], &["i"], |i| c.at([&i[0]]) * a.at([&i[0]]), "D").unwrap();
    let g = create_read_graph(&[d.op().clone()]);
    assert_eq!(g.len(), 4);
    assert_eq!(g.reads(d.op()).unwrap(), &[c.clone(), a.clone()]);
    assert_eq!(g.reads(c.op()).unwrap(), &[a.clone(), b.clone()]);
    let order: Vec<String> = post_order_dfs(&[d.op().clone()], &g)
        .unwrap()
        .iter()
        .map(|o| o.name().to_string())
        .collect();
    assert_eq!(order, ["A", "B", "C", "D"]);
    let partial = create_read_graph(&[c.op().clone()]);
    let e = post_order_dfs(&[d.op().clone()], &partial).unwrap_err();
    assert!(
        e.message.contains("`D` is not in the read graph"),
        "{}",
        e.message
    );
}

#[test]
fn post_order_of_a_long_chain_does_not_exhaust_the_stack() {
    let mut t = placeholder([2], "A", DataType::Float32).unwrap();
    for k in 0..20_000 {
        let prev = t.clone();
        t = compute_named([2], &["i"], |i| prev.at([&i[0]]) + 1.0, &format!("T{k}")).unwrap();
    }
    let g = create_read_graph(&[t.op().clone()]);
    let order = post_order_dfs(&[t.op().clone()], &g).unwrap();
    assert_eq!(order.len(), 20_001);
    assert_eq!(order[0].name(), "A");
}

/// TVM re-targets an attachment to a loop that is no longer a loop: the
/// inner loop of its split, the loop it was fused into.
#[test]
fn compute_at_an_axis_already_split_uses_the_inner_loop() {
    let a = placeholder([8, 4], "A", DataType::Float32).unwrap();
    let b = compute_named([8, 4], &["i", "j"], |i| a.at([&i[0], &i[1]]) + 1.0, "B").unwrap();
    let c = compute_named([8, 4], &["i", "j"], |i| b.at([&i[0], &i[1]]) * 2.0, "C").unwrap();
    let mut s = create_schedule(&[c.clone()]);
    let (i, j) = (c.op().axis()[0].clone(), c.op().axis()[1].clone());
    let (io, ii) = s.split(&c, &i, 2).unwrap();
    s.compute_at(&b, &c, &i).unwrap();
    assert_eq!(
        s.stage(&b).unwrap().attach(),
        &Attach::At {
            parent: c.op().clone(),
            axis: ii.clone()
        }
    );
    let text = lower(&s, &[a.clone(), c.clone()]).unwrap().to_string();
    let want = "\
produce C {
  for (i.outer, 0, 4) {
    for (i.inner, 0, 2) {
      // attr [B] storage_scope = \"global\"
      allocate B[float32 * 1 * 4]
      produce B {
        for (j, 0, 4) {
          B[0, j] = (A[((i.outer*2) + i.inner), j] + 1.000000f)
        }
      }
      for (j, 0, 4) {
        C[((i.outer*2) + i.inner), j] = (B[0, j]*2.000000f)
      }
    }
  }
}
";
    assert_eq!(text, want);
    assert!(check(&s, &[a.clone(), c.clone()], &Default::default(), 1)
        .unwrap()
        .is_clean(0.0));
    // Split and fused before compute_at: the fused loop.
    let mut s = create_schedule(&[c.clone()]);
    let (_io, ii) = s.split(&c, &i, 2).unwrap();
    let f = s.fuse(&c, &ii, &j).unwrap();
    s.compute_at(&b, &c, &i).unwrap();
    let bounds = infer_bound(&s).unwrap();
    assert_eq!(bounds.attach_path(1).first(), Some(&f));
    let r = check(&s, &[a, c], &Default::default(), 1).unwrap();
    assert!(r.is_clean(0.0), "{r:?}");
    assert_eq!(r.stage("B").unwrap().runs, 32);
    let _ = io;
}

#[test]
fn normalize_keeps_the_program() {
    let a = placeholder([10], "A", DataType::Float32).unwrap();
    let k = reduce_axis((1, 5), "k");
    let b = compute_named(
        [6],
        &["i"],
        |i| sum(a.at([i[0].clone() + k.expr() - 1]), &[k.clone()]),
        "B",
    )
    .unwrap();
    let c = compute_named([6], &["i"], |i| b.at([&i[0]]) + 1.0, "C").unwrap();
    let mut s = create_schedule(&[c.clone()]);
    s.compute_at(&b, &c, &c.op().axis()[0]).unwrap();
    s.split(&c, &c.op().axis()[0], 4).unwrap();
    let n = s.normalize();
    let args = [a.clone(), c.clone()];
    assert_eq!(
        lower(&n, &args).unwrap().to_string(),
        lower(&s, &args).unwrap().to_string()
    );
    // The reduction over [1, 5) is rebased to start at 0, as TVM's
    // normalize does.
    assert!(lower(&n, &args)
        .unwrap()
        .to_string()
        .contains("for (k, 0, 4)"));
    assert!(check(&n, &args, &Default::default(), 1)
        .unwrap()
        .is_clean(1e-6));
}

#[test]
fn a_group_computed_at_a_loop_computes_its_stages_there() {
    let a = placeholder([8, 8], "A", DataType::Float32).unwrap();
    let b = compute_named([8, 8], &["i", "j"], |i| a.at([&i[0], &i[1]]) + 1.0, "B").unwrap();
    let c = compute_named([8, 8], &["i", "j"], |i| b.at([&i[0], &i[1]]) * 2.0, "C").unwrap();
    let d = compute_named([8, 8], &["i", "j"], |i| c.at([&i[0], &i[1]]) - 1.0, "D").unwrap();
    let mut s = create_schedule(&[d.clone()]);
    let g = s.create_group(&[c.clone()], &[a.clone()], false).unwrap();
    assert_eq!(s.group_members(g), &[b.op().clone(), c.op().clone()]);
    // Inside the group, B is computed per row of C.
    s.compute_at(&b, &c, &c.op().axis()[0]).unwrap();
    let (xo, _) = s.split(&d, &d.op().axis()[0], 4).unwrap();
    s.compute_group_at(g, &d, &xo).unwrap();
    assert_eq!(
        s.stage(&c).unwrap().attach(),
        &Attach::At {
            parent: d.op().clone(),
            axis: xo.clone()
        }
    );
    assert_eq!(
        s.stage(&b).unwrap().attach(),
        &Attach::At {
            parent: c.op().clone(),
            axis: c.op().axis()[0].clone()
        }
    );
    let args = [a.clone(), d.clone()];
    let text = lower(&s, &args).unwrap().to_string();
    let want = "\
produce D {
  for (i.outer, 0, 2) {
    // attr [C] storage_scope = \"global\"
    allocate C[float32 * 4 * 8]
    produce C {
      for (i, 0, 4) {
        // attr [B] storage_scope = \"global\"
        allocate B[float32 * 1 * 8]
        produce B {
          for (j, 0, 8) {
            B[0, j] = (A[((i.outer*4) + i), j] + 1.000000f)
          }
        }
        for (j, 0, 8) {
          C[i, j] = (B[0, j]*2.000000f)
        }
      }
    }
    for (i.inner, 0, 4) {
      for (j, 0, 8) {
        D[((i.outer*4) + i.inner), j] = (C[i.inner, j] - 1.000000f)
      }
    }
  }
}
";
    assert_eq!(text, want);
    let r = check(&s, &args, &Default::default(), 1).unwrap();
    assert!(r.is_clean(0.0), "{r:?}");
    assert_eq!(r.stage("B").unwrap().runs, 64);
    // Back to the root: the group's stages follow, B stays inside C.
    s.compute_group_root(g).unwrap();
    assert_eq!(s.stage(&c).unwrap().attach(), &Attach::Root);
    assert!(matches!(s.stage(&b).unwrap().attach(), Attach::At { .. }));
    assert!(check(&s, &args, &Default::default(), 1)
        .unwrap()
        .is_clean(0.0));
}

#[test]
fn groups_keep_their_stages_together_and_do_not_overlap() {
    let a = placeholder([8], "A", DataType::Float32).unwrap();
    let b = compute_named([8], &["i"], |i| a.at([&i[0]]) + 1.0, "B").unwrap();
    let c = compute_named([8], &["i"], |i| b.at([&i[0]]) * 2.0, "C").unwrap();
    let d = compute_named([8], &["i"], |i| c.at([&i[0]]) - 1.0, "D").unwrap();
    let mut s = create_schedule(&[d.clone()]);
    s.compute_at(&b, &d, &d.op().axis()[0]).unwrap();
    // B was computed inside D, outside the group: it goes back to the root.
    let g = s.create_group(&[c.clone()], &[a.clone()], true).unwrap();
    assert_eq!(
        s.group_members(g),
        &[a.op().clone(), b.op().clone(), c.op().clone()]
    );
    assert_eq!(s.stage(&b).unwrap().attach(), &Attach::Root);
    // A cache of a member joins the group.
    let bl = s.cache_write(&b, "local").unwrap();
    assert_eq!(
        s.group_members(g),
        &[
            a.op().clone(),
            bl.op().clone(),
            b.op().clone(),
            c.op().clone()
        ]
    );
    let e = s
        .create_group(&[d.clone()], &[b.clone()], false)
        .unwrap_err();
    assert!(e.message.contains("partly overlap"), "{}", e.message);
    let e = s.compute_group_at(g, &c, &c.op().axis()[0]).unwrap_err();
    assert!(e.message.contains("one of its own stages"), "{}", e.message);
    // A group computed at D's loop: the input A stays an input.
    s.compute_group_at(g, &d, &d.op().axis()[0]).unwrap();
    let r = check(&s, &[a.clone(), d.clone()], &Default::default(), 1).unwrap();
    assert!(r.is_clean(0.0), "{r:?}");
    assert_eq!(r.stage("B").unwrap().largest_region, Some(1));
    assert_eq!(r.stage("B.local").unwrap().largest_region, Some(1));
}

/// TVM's `test_compute_group` and `test_nest_group`.
#[test]
fn groups_nest_as_in_tvm() {
    let (m, n) = (te::var("m"), te::var("n"));
    let shape = [m.expr(), n.expr()];
    let x = compute_named(shape.clone(), &["i", "j"], |_| Value::float(1.0), "x").unwrap();
    let x1 = compute_named(
        shape.clone(),
        &["i", "j"],
        |i| x.at([&i[0], &i[1]]) + 1.0,
        "x1",
    )
    .unwrap();
    let x2 = compute_named(shape, &["i", "j"], |i| x1.at([&i[0], &i[1]]) + 2.0, "x2").unwrap();

    let mut s = create_schedule(&[x2.clone()]);
    let g = s.create_group(&[x1.clone()], &[x.clone()], true).unwrap();
    assert_eq!(s.group_of(&x1), Some(g));
    assert_eq!(s.group_of(&x), Some(g));
    s.compute_group_at(g, &x2, &x2.op().axis()[1]).unwrap();
    assert_eq!(
        s.group_attach(g),
        Some(&Attach::At {
            parent: x2.op().clone(),
            axis: x2.op().axis()[1].clone()
        })
    );
    assert_eq!(s.group_child_count(g), 2);
    let sizes = std::collections::HashMap::from([(m.clone(), 3), (n.clone(), 5)]);
    let r = check(&s, &[x2.clone()], &sizes, 1).unwrap();
    assert!(r.is_clean(0.0), "{r:?}");
    assert_eq!(r.stage("x").unwrap().largest_region, Some(1));

    let mut s = create_schedule(&[x2.clone()]);
    let g1 = s.create_group(&[x1.clone()], &[x.clone()], false).unwrap();
    let g2 = s.create_group(&[x1.clone()], &[x.clone()], true).unwrap();
    assert_eq!(s.groups(), vec![g1, g2]);
    assert_eq!(s.group_of(&x), Some(g2));
    assert_eq!(s.group_of(&x1), Some(g1));
    assert_eq!(s.group_parent(g1), Some(g2));
    assert_eq!(s.group_parent(g2), None);
    assert_eq!(s.group_child_count(g2), 2);
    assert_eq!(s.group_child_count(g1), 1);
    // Placing the outer group places the inner group's stage too.
    s.compute_group_at(g2, &x2, &x2.op().axis()[0]).unwrap();
    assert!(matches!(s.stage(&x1).unwrap().attach(), Attach::At { .. }));
    // The inner group can only go to a stage of the outer one.
    let e = s.compute_group_at(g1, &x2, &x2.op().axis()[1]).unwrap_err();
    assert!(
        e.message.contains("outside the group that holds it"),
        "{}",
        e.message
    );
    // A member cannot be computed at a stage outside its group; inside it
    // can, and computing it at the root again returns it to the group.
    let e = s.compute_at(&x1, &x2, &x2.op().axis()[1]).unwrap_err();
    assert!(e.message.contains("is in a group"), "{}", e.message);
    s.compute_root(&x1).unwrap();
    assert_eq!(
        s.stage(&x1).unwrap().attach(),
        &Attach::At {
            parent: x2.op().clone(),
            axis: x2.op().axis()[0].clone()
        }
    );
    let r = check(&s, &[x2.clone()], &sizes, 1).unwrap();
    assert!(r.is_clean(0.0), "{r:?}");
    assert_eq!(r.stage("x1").unwrap().largest_region, Some(5));
}

/// A group placed at a loop that is split afterwards: its stages move to
/// the inner loop, and a member computed at the root again follows the
/// group there, not to the loop that no longer exists.
#[test]
fn a_group_follows_its_loop_through_a_later_split() {
    let a = placeholder([8], "A", DataType::Float32).unwrap();
    let b = compute_named([8], &["i"], |i| a.at([&i[0]]) + 1.0, "B").unwrap();
    let c = compute_named([8], &["i"], |i| b.at([&i[0]]) * 2.0, "C").unwrap();
    let d = compute_named([8], &["i"], |i| c.at([&i[0]]) - 1.0, "D").unwrap();
    let mut s = create_schedule(&[d.clone()]);
    let g = s.create_group(&[c.clone()], &[a.clone()], false).unwrap();
    let i = d.op().axis()[0].clone();
    s.compute_group_at(g, &d, &i).unwrap();
    let (_io, ii) = s.split(&d, &i, 4).unwrap();
    let at_inner = Attach::At {
        parent: d.op().clone(),
        axis: ii,
    };
    assert_eq!(s.stage(&b).unwrap().attach(), &at_inner);
    s.compute_at(&b, &c, &c.op().axis()[0]).unwrap();
    s.compute_root(&b).unwrap();
    assert_eq!(s.stage(&b).unwrap().attach(), &at_inner);
    assert_eq!(s.stage(&c).unwrap().attach(), &at_inner);
    let r = check(&s, &[a, d], &Default::default(), 1).unwrap();
    assert!(r.is_clean(0.0), "{r:?}");
}
