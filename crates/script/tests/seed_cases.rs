//! The InferBound golden cases T1-T11 of `shared/conformance/seeds.md`, as
//! the scripts in `examples/te/`: each gives exactly the attach paths,
//! regions and run counts listed there, and its lowered program, run on
//! random inputs, equals direct evaluation with no out-of-bounds access.

use arith::Var;
use std::collections::HashMap;
use std::path::PathBuf;

/// Float32 storage rounds; a wrong element differs by far more.
const TOLERANCE: f64 = 1e-4;

struct Case {
    report: te::Report,
    check: te::CheckReport,
}

fn case(file: &str) -> Case {
    let path: PathBuf = [
        env!("CARGO_MANIFEST_DIR"),
        "..",
        "..",
        "examples",
        "te",
        file,
    ]
    .iter()
    .collect();
    let source =
        std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let run = script::run(&source).unwrap_or_else(|e| panic!("{file}: {e}"));
    let target = run.target.expect("the script creates a schedule");
    assert!(
        target.symbolic_sizes().is_empty(),
        "{file}: the golden cases have constant sizes"
    );
    let report =
        te::report(&target.schedule, &target.args).unwrap_or_else(|e| panic!("{file}: {e}"));
    let check = te::check(&target.schedule, &target.args, &HashMap::new(), 7)
        .unwrap_or_else(|e| panic!("{file}: {e}"));
    assert!(
        check.is_clean(TOLERANCE),
        "{file}: error {} and {} invalid accesses {:?}",
        check.max_abs_error,
        check.out_of_bounds,
        check.violations
    );
    assert!(check.compared > 0, "{file}: no output was compared");
    Case { report, check }
}

impl Case {
    fn stage(&self, name: &str) -> &te::StageReport {
        self.report
            .stage(name)
            .unwrap_or_else(|| panic!("no stage {name}"))
    }

    fn path(&self, name: &str) -> Vec<&str> {
        self.stage(name)
            .attach_path
            .iter()
            .map(String::as_str)
            .collect()
    }

    /// The realized region as `(min, extent)` texts.
    fn region(&self, name: &str) -> Vec<(String, String)> {
        self.stage(name)
            .region
            .iter()
            .map(|r| (r.min.to_string(), r.extent.to_string()))
            .collect()
    }

    fn extents(&self, name: &str) -> Vec<String> {
        self.region(name).into_iter().map(|r| r.1).collect()
    }

    fn runs(&self, name: &str) -> u64 {
        self.check
            .stage(name)
            .unwrap_or_else(|| panic!("no run count for {name}"))
            .runs
    }

    fn allocation(&self, name: &str) -> i64 {
        self.stage(name)
            .allocation
            .iter()
            .map(|d| d.as_int().expect("constant allocation"))
            .product()
    }
}

fn pairs(items: &[(&str, &str)]) -> Vec<(String, String)> {
    items
        .iter()
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect()
}

#[test]
fn t1_no_attach_computes_all_of_c() {
    let c = case("t01_no_attach.py");
    assert_eq!(c.region("C"), pairs(&[("0", "5"), ("0", "16")]));
    assert!(c.path("C").is_empty());
    assert_eq!(c.runs("C"), 80);
}

#[test]
fn t2_compute_at_the_inner_axis_needs_one_element() {
    let c = case("t02_compute_at_inner.py");
    assert_eq!(c.region("C"), pairs(&[("i", "1"), ("j", "1")]));
    assert_eq!(c.path("C"), ["j", "i"]);
    assert_eq!(c.runs("C"), 80);
}

#[test]
fn t3_compute_at_the_outer_axis_needs_a_row() {
    let c = case("t03_compute_at_outer.py");
    assert_eq!(c.region("C"), pairs(&[("i", "1"), ("0", "16")]));
    assert_eq!(c.path("C"), ["i"]);
    assert_eq!(c.runs("C"), 80);
}

#[test]
fn t4_attach_path_holds_an_unused_loop() {
    let c = case("t04_attach_path.py");
    assert_eq!(c.region("C"), pairs(&[("dj", "1"), ("dk", "1")]));
    assert_eq!(c.path("C"), ["dk", "dj", "di"]);
    // C does not use di, so each element is computed once per di.
    assert_eq!(c.runs("C"), 4 * 5 * 16);
}

#[test]
fn t5_split_then_compute_at_the_inner_loop() {
    let c = case("t05_split_attach.py");
    assert_eq!(c.path("C"), ["j.inner", "j.outer", "i"]);
    assert_eq!(c.extents("C"), ["1", "1"]);
    assert_eq!(c.runs("C"), 80);
}

#[test]
fn t6_attach_paths_chain_through_stages() {
    let c = case("t06_chain_attach.py");
    assert_eq!(c.path("C"), ["dj", "di", "ej", "ei"]);
    assert_eq!(c.path("D"), ["ej", "ei"]);
    assert_eq!(c.extents("C"), ["1", "1"]);
    assert_eq!(c.extents("D"), ["1", "1"]);
    assert_eq!((c.runs("C"), c.runs("D")), (80, 80));
}

#[test]
fn t7_unattached_producer_of_an_attached_consumer_is_computed_whole() {
    let c = case("t07_relaxed_consumer.py");
    assert_eq!(c.region("C"), pairs(&[("0", "5"), ("0", "16")]));
    assert!(c.path("C").is_empty());
    assert_eq!(c.path("D"), ["ej", "ei"]);
    assert_eq!(c.runs("C"), 80);
}

#[test]
fn t8_fuse_then_split_gives_one_row_per_outer_iteration() {
    for file in ["t08_fuse_split.py", "ex6_fuse_split.py"] {
        let c = case(file);
        // Beyond TVM, which computes all 4x4 of B per outer iteration.
        assert_eq!(c.extents("B"), ["1", "4"], "{file}");
        assert_eq!(c.allocation("B"), 4, "{file}");
        assert_eq!(c.runs("B"), 16, "{file}: TVM runs B 64 times");
    }
}

#[test]
fn t9_fuse_then_split_by_three_uses_minimal_boxes() {
    let c = case("t09_fuse_split_nondivisible.py");
    // The largest per-iteration box is 2x4.
    assert_eq!(c.allocation("B"), 8);
    assert_eq!(
        c.runs("B"),
        26,
        "per-iteration boxes (48 for a fixed 2x4 box, 96 for TVM)"
    );
}

#[test]
fn t10_split_remainder_shrinks_the_inner_loop() {
    let c = case("t10_split_remainder.py");
    let inner = c
        .stage("C")
        .iter_vars
        .iter()
        .find(|iv| iv.name == "i.inner")
        .expect("i.inner");
    // min(16, 20 - xo*16) at each outer iteration: 16, then 4.
    let xo = inner
        .extent
        .vars()
        .into_iter()
        .find(|v| v.name() == "i.outer")
        .expect("depends on xo");
    let at = |v: i64| inner.extent.eval_with(&[(&xo, v)]).unwrap();
    assert_eq!((at(0), at(1)), (16, 4));
    assert_eq!(c.runs("B"), 20);
    assert_eq!(c.check.out_of_bounds, 0);
}

#[test]
fn t11_two_consumers_take_the_per_axis_union() {
    let c = case("t11_two_consumers.py");
    assert_eq!(c.region("T"), pairs(&[("0", "4"), ("0", "4")]));
    let t = c.check.stage("T").expect("T");
    // The over-computation the seed describes: 16 computed, 8 needed.
    assert_eq!((t.runs, t.needed), (16, 8));
}

#[test]
fn symbolic_sizes_are_found_in_shapes_and_factors() {
    let run = script::run(
        "import tvm\nfrom tvm import te\n\
         m = te.var(\"m\")\nf = te.var(\"f\")\n\
         A = te.placeholder((m,), name=\"A\")\n\
         B = te.compute((m,), lambda i: A[i] + 1, name=\"B\")\n\
         s = te.create_schedule(B.op)\n\
         xo, xi = s[B].split(B.op.axis[0], factor=f)\n",
    )
    .unwrap();
    let sizes: Vec<String> = run
        .target
        .unwrap()
        .symbolic_sizes()
        .iter()
        .map(|v: &Var| v.name().to_owned())
        .collect();
    assert_eq!(sizes, ["m", "f"]);
}
