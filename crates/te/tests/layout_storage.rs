//! Storage of transformed tensors: an intermediate computed at a loop
//! stores the transformed image of its region per iteration (not the whole
//! tensor), and the report gives a transformed tensor's physical shape and
//! size.
#![allow(clippy::cloned_ref_to_slice_refs)]

use layout::IndexMap;
use te::{compute_named, create_schedule, placeholder, ReportOptions};
use tir::DataType;

#[test]
fn a_transformed_intermediate_at_a_row_loop_stores_one_row() {
    // B (4 x 6), transposed, computed per row of C: 6 elements, not 24.
    let a = placeholder([4, 6], "A", DataType::Float32).unwrap();
    let b = compute_named([4, 6], &["i", "j"], |x| a.at([&x[0], &x[1]]) + 1.0, "B").unwrap();
    let c = compute_named([4, 6], &["i", "j"], |x| b.at([&x[0], &x[1]]) * 2.0, "C").unwrap();
    let mut s = create_schedule(&[c.clone()]);
    s.transform_layout(
        &b,
        IndexMap::parse("lambda i, j: [j // 2, i, j % 2]").unwrap(),
    )
    .unwrap();
    s.compute_at(&b, &c, &c.op().axis()[0]).unwrap();
    let options = ReportOptions {
        run: true,
        seed: 4,
        ..Default::default()
    };
    let r = te::run_report(&s, &[a, c], &options).unwrap();
    assert!(r.is_clean(), "{}", r.to_text());
    let text = r.report.program.to_string();
    assert!(text.contains("allocate B[float32 * 6]"), "{text}");
    let json = r.to_json();
    assert_eq!(json["stages"][1]["allocation"], 6, "{}", r.to_text());
    assert_eq!(json["stages"][1]["physical_shape"][0], "24");
    assert_eq!(r.check.as_ref().unwrap().stage("B").unwrap().runs, 24);
}

#[test]
fn a_transformed_intermediate_on_a_symbolic_axis_runs_clean() {
    // Rows of a symbolic count, packed by 2 along j, B per row of C.
    let n = arith::Var::new("n");
    let a = placeholder([n.expr(), 6.into()], "A", DataType::Float32).unwrap();
    let b = compute_named(
        [n.expr(), 6.into()],
        &["i", "j"],
        |x| a.at([&x[0], &x[1]]) + 1.0,
        "B",
    )
    .unwrap();
    let c = compute_named(
        [n.expr(), 6.into()],
        &["i", "j"],
        |x| b.at([&x[0], &x[1]]) * 2.0,
        "C",
    )
    .unwrap();
    let mut s = create_schedule(&[c.clone()]);
    s.transform_layout(
        &b,
        IndexMap::parse("lambda i, j: [i, j // 2, j % 2]").unwrap(),
    )
    .unwrap();
    s.compute_at(&b, &c, &c.op().axis()[0]).unwrap();
    let r = te::run_report(
        &s,
        &[a, c],
        &ReportOptions {
            run: true,
            seed: 2,
            ..Default::default()
        },
    )
    .unwrap();
    assert!(r.is_clean(), "{}", r.to_text());
    assert!(r
        .report
        .program
        .to_string()
        .contains("allocate B[float32 * 6]"));
}

#[test]
fn the_report_gives_a_transformed_input_its_physical_shape_and_size() {
    // 5 x 6 = 30 logical elements, padded to 5 x 2 x 4 = 40.
    let a = placeholder([5, 6], "A", DataType::Float32).unwrap();
    let b = compute_named([5, 6], &["i", "j"], |x| a.at([&x[0], &x[1]]) * 2.0, "B").unwrap();
    let mut s = create_schedule(&[b.clone()]);
    s.transform_layout(
        &a,
        IndexMap::parse("lambda i, j: [i, j // 4, j % 4]").unwrap(),
    )
    .unwrap();
    let r = te::run_report(
        &s,
        &[a, b],
        &ReportOptions {
            run: true,
            seed: 1,
            ..Default::default()
        },
    )
    .unwrap();
    assert!(r.is_clean(), "{}", r.to_text());
    let json = r.to_json();
    assert_eq!(json["stages"][0]["allocation"], 40);
    assert_eq!(json["stages"][0]["physical_shape"][0], "40");
    let text = r.to_text();
    assert!(
        text.contains("  physical shape: [40]\n  allocation: 40 elements"),
        "{text}"
    );
}
