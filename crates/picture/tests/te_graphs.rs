//! The stage graph and IterVar graphs of seed 000's worked examples,
//! rendered to pixels: leaves green, roots and relations not, outputs
//! blue, attached stages outlined.

mod support;

use picture::{
    iter_var_picture, render, stage_graph, stage_graph_picture, te_page, te_pictures, work_picture,
    Color, Drawing,
};
use support::rasterize;

/// The schedule and report of an example script under `examples/te`.
fn example(file: &str) -> (te::Schedule, te::RunReport) {
    let path = format!("{}/../../examples/te/{file}", env!("CARGO_MANIFEST_DIR"));
    let source = std::fs::read_to_string(&path).expect("the example exists");
    let run = script::run(&source).expect("the example runs");
    let target = run.target.expect("the example creates a schedule");
    let options = te::ReportOptions {
        run: true,
        ..Default::default()
    };
    let report = te::run_report(&target.schedule, &target.args, &options).expect("it lowers");
    (target.schedule, report)
}

fn ex6_iter_vars() -> Drawing {
    let (s, r) = example("ex6_fuse_split.py");
    iter_var_picture(&s, &r.report, "C").expect("C is a stage")
}

#[test]
fn ex6_fuse_then_split_draws_leaves_green_and_the_roots_and_fused_axis_not() {
    let d = ex6_iter_vars();
    let px = rasterize(&d);
    // The loops of C after fuse and split.
    assert_eq!(px.at_anchor(&d, "C:ci.cj.fused.outer"), Color::GREEN);
    assert_eq!(px.at_anchor(&d, "C:ci.cj.fused.inner"), Color::GREEN);
    // The roots were fused away; the fused axis was split: neither is a loop.
    assert_eq!(px.at_anchor(&d, "C:ci"), Color::BACKGROUND);
    assert_eq!(px.at_anchor(&d, "C:cj"), Color::BACKGROUND);
    assert_eq!(px.at_anchor(&d, "C:ci.cj.fused"), Color::WHITE);
    // The two relations, fuse first.
    assert_eq!(px.at_anchor(&d, "C:r0"), Color::SKY_BLUE);
    assert_eq!(px.at_anchor(&d, "C:r1"), Color::SKY_BLUE);
}

#[test]
fn ex6_iter_var_graph_puts_roots_above_relations_above_loops() {
    let d = ex6_iter_vars();
    let y = |name: &str| d.anchor(&format!("C:{name}")).unwrap().1;
    assert!(y("ci") < y("r0"));
    assert!(y("r0") < y("ci.cj.fused"));
    assert!(y("ci.cj.fused") < y("r1"));
    assert!(y("r1") < y("ci.cj.fused.outer"));
    assert!((y("ci.cj.fused.outer") - y("ci.cj.fused.inner")).abs() < 0.01);
    // Each node carries its range and the relations their factor.
    assert!(d.svg.contains(">[0, 16)<"), "{}", d.svg);
    assert!(d.svg.contains(">split factor=4<"), "{}", d.svg);
    assert!(d.svg.contains(">B computed here<"), "{}", d.svg);
}

#[test]
fn ex6_stage_b_computed_at_the_outer_loop_has_every_loop_green() {
    let (s, r) = example("ex6_fuse_split.py");
    let d = iter_var_picture(&s, &r.report, "B").unwrap();
    let px = rasterize(&d);
    assert_eq!(px.at_anchor(&d, "B:bi"), Color::GREEN);
    assert_eq!(px.at_anchor(&d, "B:bj"), Color::GREEN);
    // The row C needs per outer iteration: one row, four columns.
    assert!(d.svg.contains(">[0, 4)<"), "{}", d.svg);
}

#[test]
fn ex4_stage_graph_draws_the_output_blue_and_marks_the_attach_point() {
    let (s, r) = example("t04_attach_path.py");
    let d = stage_graph_picture(&s, &r.report);
    let px = rasterize(&d);
    assert_eq!(px.at_anchor(&d, "stages:D"), Color::BLUE);
    assert_eq!(px.at_anchor(&d, "stages:C"), Color::BACKGROUND);
    // The producer above its consumer.
    assert!(d.anchor("stages:C").unwrap().1 < d.anchor("stages:D").unwrap().1);
    // C's attach point and its one-element region, as TVM's realize.
    assert!(d.svg.contains(">compute_at D.dk<"), "{}", d.svg);
    assert!(d.svg.contains(">realize [dj, 1) x [dk, 1)<"), "{}", d.svg);
    assert!(d.svg.contains(">at dk<"), "{}", d.svg);
    // Thick outline on the attached stage: the pixel just inside the top
    // edge of C's box is ink, not the fill.
    let (x, _) = d.anchor("stages:C").unwrap();
    let top = (0..d.size.1 as i32)
        .map(|y| y as f64)
        .find(|&y| px.at(x - 30.0, y) == Color::INK)
        .expect("C has a dark outline");
    assert!(top < d.anchor("stages:C").unwrap().1);
}

#[test]
fn a_stage_attached_at_a_stage_that_does_not_read_it_directly_gets_a_dashed_edge() {
    // B is read by C, which is inlined into D; B is computed in D's loop.
    let source = "import tvm
A = tvm.placeholder((8,), name='A')
B = tvm.compute((8,), lambda i: A[i] + 1, name='B')
C = tvm.compute((8,), lambda i: B[i] * 2, name='C')
D = tvm.compute((8,), lambda d: C[d] + 3, name='D')
s = tvm.create_schedule(D.op)
s[C].compute_inline()
s[B].compute_at(s[D], D.op.axis[0])
";
    let target = script::run(source).unwrap().target.unwrap();
    let r = te::report(&target.schedule, &target.args).unwrap();
    let d = render(&stage_graph("g", &target.schedule, &r));
    for st in ["A", "B", "C", "D"] {
        assert!(d.anchor(&format!("g:{st}")).is_some(), "{st}");
    }
    assert!(d.svg.contains(">compute_at d<"), "{}", d.svg);
    assert!(d.svg.contains("stroke-dasharray"), "{}", d.svg);
    let px = rasterize(&d);
    assert_eq!(px.at_anchor(&d, "g:C"), Color::YELLOW);
    assert_eq!(px.at_anchor(&d, "g:D"), Color::BLUE);
    assert_eq!(px.at_anchor(&d, "g:A"), Color::WHITE);
}

#[test]
fn inlined_stages_are_drawn_yellow_and_say_so() {
    let (s, r) = example("gather_inlined.py");
    let d = stage_graph_picture(&s, &r.report);
    let px = rasterize(&d);
    let inlined: Vec<&te::Stage> = s
        .stages()
        .iter()
        .filter(|st| st.attach() == &te::Attach::Inline)
        .collect();
    assert!(!inlined.is_empty());
    for st in inlined {
        assert_eq!(
            px.at_anchor(&d, &format!("stages:{}", st.name())),
            Color::YELLOW
        );
    }
    assert!(d.svg.contains(">inlined<"));
}

#[test]
fn the_page_holds_every_stage_the_lowered_program_and_the_extra_pictures() {
    let (s, r) = example("ex6_fuse_split.py");
    let extra = vec![("B".to_string(), ex6_iter_vars())];
    let html = te_page("ex6", &s, &r, &extra).finish();
    for id in [
        "stage-graph",
        "work",
        "stage-A",
        "stage-B",
        "stage-C",
        "lowered",
    ] {
        assert!(html.contains(&format!("id=\"{id}\"")), "{id}");
    }
    assert!(html.contains("compute_at C.ci.cj.fused.outer"));
    // The extra picture lands in B's section, before C's.
    let b = html.find("id=\"stage-B\"").unwrap();
    let c = html.find("id=\"stage-C\"").unwrap();
    let extra_at = html.find("IterVar graph of C").unwrap();
    assert!(b < extra_at && extra_at < c);
    // The run's counts: B computes each of its 16 elements once.
    assert!(html.contains("<td>runs</td><td>16</td>"), "{html}");
}

#[test]
fn the_work_bars_show_needed_blue_and_recomputation_orange() {
    // Ex. 4: C is computed once per iteration of D's three loops, 320
    // times, for the 80 elements D reads.
    let (s, r) = example("t04_attach_path.py");
    let check = r.check.as_ref().unwrap();
    let c = check.stage("C").unwrap();
    assert_eq!((c.runs, c.needed), (320, 80));
    let d = work_picture(&s, check);
    let px = rasterize(&d);
    assert_eq!(px.at_anchor(&d, "work:C:needed"), Color::BLUE);
    assert_eq!(px.at_anchor(&d, "work:C:extra"), Color::ORANGE);
    assert_eq!(px.at_anchor(&d, "work:D:needed"), Color::BLUE);
    assert!(d.anchor("work:D:extra").is_none());
    // The bars are to scale and start at one edge: from C's needed part
    // (40 runs in) to its extra part (200 in) is 160 runs, to D's bar's
    // middle (160 in) 120.
    let c_needed = d.anchor("work:C:needed").unwrap().0;
    let c_extra = d.anchor("work:C:extra").unwrap().0;
    let d_needed = d.anchor("work:D:needed").unwrap().0;
    assert!(((c_extra - c_needed) * 3.0 - (d_needed - c_needed) * 4.0).abs() < 0.5);
}

#[test]
fn graph_pictures_print_the_same_text_every_time() {
    let (s, r) = example("ex6_fuse_split.py");
    let d = te_pictures(&s, &r.report, &[]);
    assert_eq!(d.svg, te_pictures(&s, &r.report, &[]).svg);
    insta::assert_snapshot!(d.svg);
}

#[test]
fn every_example_program_draws_every_stage_without_failing() {
    // Scans, extern calls, rfactor, cache stages, thread bindings and
    // tensorized loops: whatever a program schedules, each of its stages
    // is a node of the stage graph and a section of the page.
    let dir = format!("{}/../../examples/te", env!("CARGO_MANIFEST_DIR"));
    let mut files: Vec<std::path::PathBuf> = Vec::new();
    for sub in ["", "programs"] {
        for entry in std::fs::read_dir(format!("{dir}/{sub}")).unwrap() {
            let p = entry.unwrap().path();
            if p.extension().is_some_and(|e| e == "py") {
                files.push(p);
            }
        }
    }
    files.sort();
    let mut drawn = 0;
    for path in &files {
        let source = std::fs::read_to_string(path).unwrap();
        // Programs the interpreter does not run yet are the business of
        // the program corpus tests.
        let Some(target) = script::run(&source).ok().and_then(|r| r.target) else {
            continue;
        };
        let options = te::ReportOptions::default();
        let Ok(r) = te::run_report(&target.schedule, &target.args, &options) else {
            continue;
        };
        let d = stage_graph_picture(&target.schedule, &r.report);
        let page = te_page("p", &target.schedule, &r, &[]).finish();
        for st in target.schedule.stages() {
            let name = st.name();
            assert!(
                d.anchor(&format!("stages:{name}")).is_some(),
                "{path:?} {name}"
            );
            assert!(
                page.contains(&format!("id=\"stage-{}\"", picture::escape(name))),
                "{path:?} {name}"
            );
            if !r.report.stage(name).unwrap().iter_vars.is_empty() {
                assert!(iter_var_picture(&target.schedule, &r.report, name).is_some());
            }
        }
        drawn += 1;
    }
    println!("drew {drawn} of {} programs", files.len());
    assert!(
        drawn >= 60,
        "only {drawn} of {} programs drawn",
        files.len()
    );
}

#[test]
fn a_reduction_s_runs_are_grey_not_counted_as_recomputation() {
    // B sums 4 values per element: 32 updates for 8 elements, none
    // recomputed.
    let source = "import tvm
A = tvm.placeholder((8, 4), name='A')
k = tvm.reduce_axis((0, 4), name='k')
B = tvm.compute((8,), lambda i: tvm.sum(A[i, k], axis=k), name='B')
s = tvm.create_schedule(B.op)
";
    let target = script::run(source).unwrap().target.unwrap();
    let options = te::ReportOptions {
        run: true,
        ..Default::default()
    };
    let r = te::run_report(&target.schedule, &target.args, &options).unwrap();
    let check = r.check.as_ref().unwrap();
    let b = check.stage("B").unwrap();
    assert_eq!((b.runs, b.needed), (32, 8));
    let d = work_picture(&target.schedule, check);
    let px = rasterize(&d);
    assert_eq!(px.at_anchor(&d, "work:B:runs"), Color::BACKGROUND);
    assert!(d.anchor("work:B:extra").is_none());
}

#[test]
fn extra_pictures_are_drawn_after_their_stage_s_graph_with_their_anchors() {
    let (s, r) = example("ex6_fuse_split.py");
    // A grid stands in for the per-iteration regions of B.
    let regions = render(&picture::Grid::new("R", 2, 4, &|row, _| {
        picture::Cell::of(if row == 0 {
            picture::Role::Needed
        } else {
            picture::Role::Wasted
        })
    }));
    let d = te_pictures(&s, &r.report, &[("B".to_string(), regions.clone())]);
    let px = rasterize(&d);
    // The embedded picture's anchors moved with it and its colours are
    // where they say.
    assert_eq!(px.at_anchor(&d, "R[0,3]"), Color::BLUE);
    assert_eq!(px.at_anchor(&d, "R[1,0]"), Color::ORANGE);
    let plain = te_pictures(&s, &r.report, &[]);
    assert!(d.size.1 >= plain.size.1 + regions.size.1);
    // After B's graph, before C's.
    let y = d.anchor("R[0,0]").unwrap().1;
    assert!(d.anchor("B:bi").unwrap().1 < y && y < d.anchor("C:ci").unwrap().1);
    // A name of no stage is left out.
    let none = te_pictures(&s, &r.report, &[("Z".to_string(), regions)]);
    assert_eq!(none.svg, plain.svg);
}
