//! The `rangefinder layout` contract: text and JSON output for the seed's
//! layouts (L3-L8), symbolic shapes, and exit code 2 with a positioned
//! message on bad input.

use serde_json::Value;
use std::process::{Command, Output};

fn rangefinder(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_rangefinder"))
        .args(args)
        .output()
        .expect("binary runs")
}

fn json(args: &[&str]) -> Value {
    let mut a = vec!["layout"];
    a.extend_from_slice(args);
    a.push("--json");
    let o = rangefinder(&a);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    serde_json::from_slice(&o.stdout).expect("JSON")
}

const L4: &str = "lambda n, h, w, c: [n, c // 4, h, te.AXIS_SEPARATOR, w, c % 4]";

#[test]
fn l3_text_output() {
    let o = rangefinder(&[
        "layout",
        "--shape",
        "16,64,64,128",
        "--map",
        "lambda n, h, w, c: [n, c // 4, h, w, c % 4]",
        "--index",
        "11,37,23,101",
        "--inverse",
    ]);
    assert!(o.status.success());
    assert_eq!(
        String::from_utf8_lossy(&o.stdout),
        "logical shape:     [16, 64, 64, 128]\n\
         transformed shape: [16, 32, 64, 64, 4]\n\
         physical shape:    [8388608]\n\
         bijective:         true\n\
         logical index:     [11, 37, 23, 101]\n\
         transformed index: [11, 25, 37, 23, 1]\n\
         physical index:    [6186333]\n\
         inverse:           lambda i0, i1, i2, i3, i4: [i0, i2, i3, i1 * 4 + i4]\n\
         padding predicate: none (every transformed index is reached)\n"
    );
}

#[test]
fn l4_json_keys() {
    let v = json(&[
        "--shape",
        "16,64,64,128",
        "--map",
        L4,
        "--index",
        "11,37,23,101",
        "--inverse",
    ]);
    assert_eq!(
        v["transformed_shape"],
        serde_json::json!([16, 32, 64, 64, 4])
    );
    assert_eq!(v["physical_shape"], serde_json::json!([32768, 256]));
    assert_eq!(
        v["transformed_index"],
        serde_json::json!([11, 25, 37, 23, 1])
    );
    assert_eq!(v["physical_index"], serde_json::json!([24165, 93]));
    assert_eq!(v["bijective"], Value::Bool(true));
    assert_eq!(v["padding_predicate"], Value::Null);
    assert_eq!(
        v["inverse"],
        "lambda i0, i1, i2, i3, i4: [i0, i2, i3, i1 * 4 + i4]"
    );
}

#[test]
fn without_inverse_the_inverse_keys_are_absent() {
    let v = json(&["--shape", "16,64,64,128", "--map", L4]);
    assert!(v.get("inverse").is_none() && v.get("padding_predicate").is_none());
    // Without --index, indices are expressions of the lambda's parameters.
    assert_eq!(
        v["transformed_index"],
        serde_json::json!(["n", "c // 4", "h", "w", "c % 4"])
    );
}

#[test]
fn l5_to_l8_symbolic_shapes() {
    for (map, want) in [
        (
            "lambda m,n,p,q: [m,n,p,q]",
            serde_json::json!(["M * N * P * Q"]),
        ),
        (
            "lambda m,n,p,q: [m, n, te.AXIS_SEPARATOR, p, q]",
            serde_json::json!(["M * N", "P * Q"]),
        ),
        (
            "lambda m,n,p,q: [m, te.AXIS_SEPARATOR, n, p, te.AXIS_SEPARATOR, q]",
            serde_json::json!(["M", "N * P", "Q"]),
        ),
        (
            "lambda m,n,p,q: [m, q//4, n, te.AXIS_SEPARATOR, p, q%4]",
            serde_json::json!(["M * ceildiv(Q, 4) * N", "P * 4"]),
        ),
    ] {
        let v = json(&["--shape", "M,N,P,Q", "--map", map, "--inverse"]);
        assert_eq!(v["physical_shape"], want, "{map}");
        let padded = map.contains("//");
        assert_eq!(v["bijective"], Value::Bool(!padded), "{map}");
        assert_eq!(v["padding_predicate"].is_null(), !padded, "{map}");
    }
}

#[test]
fn padding_predicate_is_a_lambda_over_the_transformed_axes() {
    let v = json(&[
        "--shape",
        "15",
        "--map",
        "lambda i: [i // 4, i % 4]",
        "--inverse",
    ]);
    assert_eq!(v["inverse"], "lambda i0, i1: [i0 * 4 + i1]");
    assert_eq!(v["padding_predicate"], "lambda i0, i1: i0 * 4 + i1 >= 15");
    assert_eq!(v["bijective"], Value::Bool(false));
}

#[test]
fn bad_input_exits_2_with_a_positioned_message() {
    for (shape, map, index, want) in [
        (
            "4,4",
            "lambda i, j: [i + j]",
            None,
            "[0, 1] and [1, 0] both map to [1]",
        ),
        ("4,4", "lambda i, j: [i + k]", None, "unknown name `k`"),
        (
            "4,4,3",
            "lambda i, j: [i, j]",
            None,
            "takes 2 indices but the shape has 3",
        ),
        ("4,4", "lambda i, j: [i, j", None, "unclosed `[`"),
        ("4,4", "lambda i, j [i, j]", None, "expected `:`"),
        ("4,0", "lambda i, j: [i, j]", None, "at least 1"),
        ("4,4", "lambda i, j: [i, j]", Some("-1,1"), "negative"),
        (
            "4,4",
            "lambda i, j: [i, j]",
            Some("1"),
            "the index has 1 entries",
        ),
        // An index whose physical offset overflows points at the index
        // (fuzz `layout`, seed 3, case 18542).
        (
            "[6, 8]",
            "lambda a, b: [a, b]",
            Some("9223372036854775807,7"),
            "64 bits\n   ╭─[ --index:1:1 ]",
        ),
    ] {
        let mut args = vec!["layout", "--shape", shape, "--map", map];
        if let Some(i) = index {
            args.extend(["--index", i]);
        }
        let o = rangefinder(&args);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        assert!(err.contains(want), "{args:?}: {err}");
        assert!(err.contains("─"), "{args:?}: no source pointer in {err}");
        assert!(!err.contains("panicked"), "{err}");
    }
}

#[test]
fn l1_l2_seed_indices_beyond_the_shape_warn_and_compute() {
    for (map, index, want) in [
        ("lambda i, j: [i, j]", "10,15", 45),
        ("lambda i, j: [i, j]", "20,23", 83),
        ("lambda i, j: [j, i]", "10,15", 40),
        ("lambda i, j: [j, i]", "20,23", 66),
    ] {
        let o = rangefinder(&[
            "layout", "--shape", "2,3", "--map", map, "--index", index, "--json",
        ]);
        assert!(o.status.success());
        assert!(String::from_utf8_lossy(&o.stderr).contains("outside [0, 2)"));
        let v: Value = serde_json::from_slice(&o.stdout).unwrap();
        assert_eq!(
            v["physical_index"],
            serde_json::json!([want]),
            "{map} {index}"
        );
        assert_eq!(v["physical_shape"], serde_json::json!([6]));
    }
}

/// Every script in `examples/layout` lowers, shows the physical indices its
/// `# expect:` lines give, and (except the full-size `*_load.py` ones,
/// whose 8M-element input is slow to build) runs with the outputs of the
/// untransformed definitions and no out-of-bounds access.
#[test]
fn every_layout_example_lowers_and_runs() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/layout");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "py"))
        .collect();
    files.sort();
    assert!(files.len() >= 6, "{files:?}");
    for f in files {
        let path = f.to_str().unwrap();
        let load_only = path.ends_with("_load.py");
        let mut args = vec!["te", path];
        if !load_only {
            args.push("--run");
        }
        let o = rangefinder(&args);
        let out = String::from_utf8_lossy(&o.stdout);
        assert!(
            o.status.success(),
            "{path}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        let source = std::fs::read_to_string(&f).unwrap();
        let expects: Vec<&str> = source
            .lines()
            .filter_map(|l| l.strip_prefix("# expect: "))
            .collect();
        assert!(!expects.is_empty(), "{path} has no `# expect:` line");
        for e in expects {
            assert!(out.contains(e), "{path}: `{e}` not in\n{out}");
        }
        if !load_only {
            assert!(
                out.contains("largest absolute error 0,")
                    && out.contains("out-of-bounds accesses 0"),
                "{path}: {out}"
            );
        }
    }
}

fn text(args: &[&str]) -> String {
    let mut a = vec!["layout"];
    a.extend_from_slice(args);
    let o = rangefinder(&a);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    String::from_utf8_lossy(&o.stdout).into_owned()
}

#[test]
fn reversals_are_accepted() {
    let out = text(&[
        "--shape",
        "5",
        "--map",
        "lambda i: [4 - i]",
        "--index",
        "1",
        "--inverse",
    ]);
    assert_eq!(
        out,
        "logical shape:     [5]\n\
         transformed shape: [5]\n\
         physical shape:    [5]\n\
         bijective:         true\n\
         logical index:     [1]\n\
         transformed index: [3]\n\
         physical index:    [3]\n\
         inverse:           lambda i0: [4 - i0]\n\
         padding predicate: none (every transformed index is reached)\n"
    );
    let v = json(&[
        "--shape",
        "n",
        "--map",
        "lambda i: [n - 1 - i]",
        "--inverse",
    ]);
    assert_eq!(v["transformed_shape"], serde_json::json!(["n"]));
    assert_eq!(v["inverse"], "lambda i0: [n - 1 - i0]");
    assert_eq!(v["bijective"], Value::Bool(true));
}

#[test]
fn a_split_of_a_remainder_is_accepted_with_its_padding() {
    let v = json(&[
        "--shape",
        "20",
        "--map",
        "lambda i: [i // 10, (i % 10) // 9, i % 10 % 9]",
        "--index",
        "19",
        "--inverse",
    ]);
    assert_eq!(v["transformed_shape"], serde_json::json!([2, 2, 9]));
    assert_eq!(v["transformed_index"], serde_json::json!([1, 1, 0]));
    assert_eq!(v["inverse"], "lambda i0, i1, i2: [i0 * 10 + (i1 * 9 + i2)]");
    assert_eq!(
        v["padding_predicate"],
        "lambda i0, i1, i2: i1 * 9 + i2 >= 10"
    );
    assert_eq!(v["bijective"], Value::Bool(false));
}

#[test]
fn digits_fused_with_another_index_are_accepted() {
    let v = json(&[
        "--shape",
        "4,3,6",
        "--map",
        "lambda i, k, j: [(k*6 + j) // 2, (k*6 + j) % 2 * 4 + i]",
        "--index",
        "3,2,5",
        "--inverse",
    ]);
    assert_eq!(v["transformed_shape"], serde_json::json!([9, 8]));
    assert_eq!(v["transformed_index"], serde_json::json!([8, 7]));
    assert_eq!(
        v["inverse"],
        "lambda i0, i1: [i1 % 4, (i0 * 2 + i1 // 4) // 6, (i0 * 2 + i1 // 4) % 6]"
    );
    assert_eq!(v["bijective"], Value::Bool(true));
}

#[test]
fn a_collision_on_a_symbolic_shape_names_its_condition() {
    let o = rangefinder(&["layout", "--shape", "n", "--map", "lambda i: [i % 8]"]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains(
            "not injective: with n = 9, [0] and [8] both map to [0], as they do whenever 8 < n"
        ),
        "{err}"
    );
}
