//! The region pictures of `rangefinder te --svg`, rendered to pixels, for
//! seed 000's Ex. 4 (an element per iteration, needed) and Ex. 6 (fused
//! then split: by 4 a row per iteration and nothing wasted; by 3 a box of
//! rows of which only some elements are read, the rest drawn as wasted).

mod support;

use picture::{region_panels, render, te_regions_svg, Color, Drawing};
use support::rasterize;
use te::{RunLimits, RunReport};

/// The script `file` of `examples/te/`, with the split factor replaced
/// when `factor` is given.
fn example(file: &str, factor: Option<(&str, &str)>) -> script::Target {
    let path = format!("{}/../../examples/te/{file}", env!("CARGO_MANIFEST_DIR"));
    let mut source = std::fs::read_to_string(path).unwrap();
    if let Some((from, to)) = factor {
        assert!(source.contains(from), "{file} has `{from}`");
        source = source.replace(from, to);
    }
    script::run(&source).unwrap().target.unwrap()
}

fn report(t: &script::Target, run: bool) -> RunReport {
    let options = te::ReportOptions {
        run,
        ..Default::default()
    };
    te::run_report(&t.schedule, &t.args, &options).unwrap()
}

fn draw(t: &script::Target, at: &[(&str, i64)]) -> Drawing {
    let at: Vec<(String, i64)> = at.iter().map(|(n, v)| (n.to_string(), *v)).collect();
    te_regions_svg(
        &t.schedule,
        &t.args,
        &report(t, true),
        &at,
        &RunLimits::default(),
    )
    .unwrap()
}

/// The colour of every element of a 4 x 4 picture with anchor prefix `id`,
/// as letters: N needed, W wasted, M missing, . untouched.
fn cells(d: &Drawing, id: &str, rows: usize, cols: usize) -> Vec<String> {
    let px = rasterize(d);
    (0..rows)
        .map(|r| {
            (0..cols)
                .map(|c| match px.at_anchor(d, &format!("{id}[{r},{c}]")) {
                    Color::BLUE => 'N',
                    Color::ORANGE => 'W',
                    Color::VERMILLION => 'M',
                    Color::BACKGROUND => '.',
                    other => panic!("unexpected colour {other:?} at [{r},{c}]"),
                })
                .collect()
        })
        .collect()
}

#[test]
fn ex4_c_is_one_needed_element_per_iteration_of_dk() {
    let t = example("t04_attach_path.py", None);
    let d = draw(&t, &[("dj", 3), ("dk", 5)]);
    let id = "C@di=0,dj=3,dk=5";
    let mut want = vec![".".repeat(16); 5];
    want[3] = ".....N..........".to_string();
    assert_eq!(cells(&d, id, 5, 16), want);
    assert!(d
        .svg
        .contains("C at di = 0, dj = 3, dk = 5: computes 1, needs 1"));
    assert!(d.svg.contains("realize [3, 1) x [5, 1) at this iteration"));
    assert!(d.svg.contains("whole run: runs 320, needed 80"));
}

#[test]
fn ex6_split_by_4_computes_one_row_and_wastes_nothing() {
    let t = example("ex6_fuse_split.py", None);
    let d = draw(&t, &[("ci.cj.fused.outer", 2)]);
    assert_eq!(
        cells(&d, "B@ci.cj.fused.outer=2", 4, 4),
        ["....", "....", "NNNN", "...."]
    );
    assert!(d
        .svg
        .contains("B at ci.cj.fused.outer = 2: computes 4, needs 4"));
    assert!(!d.svg.contains("wastes"));
}

#[test]
fn ex6_split_by_3_shows_the_over_computation_as_wasted_cells() {
    let t = example("t09_fuse_split_nondivisible.py", None);
    // Fused elements 3, 4, 5 span rows 0 and 1: both rows are computed.
    let d = draw(&t, &[("ci.cj.fused.outer", 1)]);
    assert_eq!(
        cells(&d, "B@ci.cj.fused.outer=1", 4, 4),
        ["WWWN", "NNWW", "....", "...."]
    );
    assert!(d
        .svg
        .contains("B at ci.cj.fused.outer = 1: computes 8, needs 3, wastes 5"));
    assert!(d.svg.contains("realize [0, 2) x [0, 4) at this iteration"));
    assert!(d.svg.contains("whole run: runs 26, needed 16"));
    // Iteration 3 (elements 9, 10, 11) stays within row 2: no waste.
    let d = draw(&t, &[("ci.cj.fused.outer", 3)]);
    assert_eq!(
        cells(&d, "B@ci.cj.fused.outer=3", 4, 4),
        ["....", "....", ".NNN", "...."]
    );
}

#[test]
fn the_same_program_with_factor_3_in_the_ex6_script_draws_the_same_waste() {
    let t = example(
        "ex6_fuse_split.py",
        Some(("fused_axes, 4)", "fused_axes, 3)")),
    );
    let d = draw(&t, &[("ci.cj.fused.outer", 1)]);
    assert_eq!(
        cells(&d, "B@ci.cj.fused.outer=1", 4, 4),
        ["WWWN", "NNWW", "....", "...."]
    );
}

#[test]
fn without_at_the_first_and_a_middle_iteration_are_drawn_each_with_a_legend() {
    let t = example("t09_fuse_split_nondivisible.py", None);
    let d = draw(&t, &[]);
    assert!(d.anchor("B@ci.cj.fused.outer=0[0,0]").is_some());
    assert!(d.anchor("B@ci.cj.fused.outer=3[0,0]").is_some());
    assert_eq!(d.svg.matches("class=\"legend\"").count(), 2);
    assert!(d.svg.contains("computed, never read"));
    let panels = region_panels(
        &t.schedule,
        &t.args,
        &report(&t, false),
        None,
        &[],
        &RunLimits::default(),
    )
    .unwrap();
    assert_eq!(panels.len(), 2);
    // Without a run the caption has no runs.
    let d = render(panels[0].as_ref());
    assert!(!d.svg.contains("whole run"));
}

#[test]
fn a_stage_picked_by_name_may_be_computed_at_the_root() {
    let t = example("t09_fuse_split_nondivisible.py", None);
    let panels = region_panels(
        &t.schedule,
        &t.args,
        &report(&t, false),
        Some("C"),
        &[],
        &RunLimits::default(),
    )
    .unwrap();
    let d = render(panels[0].as_ref());
    // The output: every element computed, none read by another stage.
    assert_eq!(cells(&d, "C@root", 4, 4), ["WWWW"; 4]);
    assert!(d.svg.contains("C at the root: computes 16, needs 0"));
}

#[test]
fn bad_iterations_are_errors_that_list_the_attach_loops() {
    let t = example("t09_fuse_split_nondivisible.py", None);
    let r = report(&t, false);
    let limits = RunLimits::default();
    let at = [("i.outer".to_string(), 1)];
    let e = te_regions_svg(&t.schedule, &t.args, &r, &at, &limits)
        .err()
        .unwrap();
    assert!(
        e.message
            .contains("no attach loop is called `i.outer`; the attach loops are B: ci.cj.fused.outer in [0, 6)"),
        "{}",
        e.message
    );
    let at = [("ci.cj.fused.outer".to_string(), -1)];
    let e = te_regions_svg(&t.schedule, &t.args, &r, &at, &limits)
        .err()
        .unwrap();
    assert!(e.message.contains("is outside [0, 6)"), "{}", e.message);
}

#[test]
fn large_tensors_are_drawn_as_an_overview_that_keeps_the_needed_row() {
    let source = "
import tvm
A = tvm.placeholder((200, 300), name='A')
B = tvm.compute((200, 300), lambda i, j: A[i, j] + 1, name='B')
C = tvm.compute((200, 300), lambda i, j: B[i, j] * 2, name='C')
s = tvm.create_schedule(C.op)
s[B].compute_at(s[C], C.op.axis[0])
";
    let t = script::run(source).unwrap().target.unwrap();
    let d = draw(&t, &[("i", 130)]);
    let px = rasterize(&d);
    // 200 rows in blocks of 4, 300 columns in blocks of 5.
    assert_eq!(px.at_anchor(&d, "B@i=130[128,0]"), Color::BLUE);
    assert_eq!(px.at_anchor(&d, "B@i=130[128,295]"), Color::BLUE);
    assert_eq!(px.at_anchor(&d, "B@i=130[0,0]"), Color::BACKGROUND);
    assert!(d.svg.contains("overview"));
}

#[test]
fn the_ex4_picture_prints_the_same_svg_every_time() {
    let t = example("t04_attach_path.py", None);
    let d = draw(&t, &[("dj", 1), ("dk", 2)]);
    insta::assert_snapshot!(d.svg);
}

#[test]
fn a_layout_transform_draws_the_physical_buffer_beside_the_tensor() {
    let source = "
from tvm import te
A = te.placeholder((4, 6), name='A')
B = te.compute((4, 6), lambda i, j: A[i, j] + 1, name='B')
C = te.compute((4, 6), lambda i, j: B[i, j] * 2, name='C')
s = te.create_schedule(C.op)
s[B].transform_layout(lambda i, j: [j // 2, i, j % 2])
s[B].compute_at(s[C], C.op.axis[0])
";
    let t = script::run(source).unwrap().target.unwrap();
    let d = draw(&t, &[("i", 2)]);
    assert_eq!(
        cells(&d, "B@i=2", 4, 6),
        ["......", "......", "NNNNNN", "......"]
    );
    // The row's six elements in the iteration's 3 x 1 x 2 storage.
    let px = rasterize(&d);
    for p in 0..6 {
        assert_eq!(
            px.at_anchor(&d, &format!("B@i=2:physical[{p}]")),
            Color::BLUE
        );
    }
    assert!(d.svg.contains("B physical (6)"));
    // Position 1 holds element (2, 1): [1 // 2, 0, 1 % 2] in the row.
    assert!(d.svg.contains(">2,1</text>"), "{}", d.svg);
}

#[test]
fn rank_three_tensors_are_drawn_as_slices() {
    let source = "
import tvm
A = tvm.placeholder((3, 4, 5), name='A')
B = tvm.compute((3, 4, 5), lambda i, j, k: A[i, j, k] + 1, name='B')
C = tvm.compute((3, 4, 5), lambda i, j, k: B[i, j, k] * 2, name='C')
s = tvm.create_schedule(C.op)
s[B].compute_at(s[C], C.op.axis[1])
";
    let t = script::run(source).unwrap().target.unwrap();
    let d = draw(&t, &[("i", 2), ("j", 1)]);
    let px = rasterize(&d);
    // The slice i = 2 is drawn; its row j = 1 is computed and read.
    for k in 0..5 {
        assert_eq!(
            px.at_anchor(&d, &format!("B@i=2,j=1[2,1,{k}]")),
            Color::BLUE
        );
    }
    assert_eq!(px.at_anchor(&d, "B@i=2,j=1[2,0,0]"), Color::BACKGROUND);
    assert!(d.svg.contains("B at i = 2, j = 1: computes 5, needs 5"));
}
