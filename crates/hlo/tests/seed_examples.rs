//! The golden cases X1-X18 of seed 002 (`conformance/seeds.md`, typos
//! corrected), run on the modules in `examples/hlo/`.

use hlo::{Module, OperandIndexing, Query};
use indexing::{semantically_equal, IndexingMap};
use std::path::PathBuf;

fn module(file: &str) -> Module {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../examples/hlo")
        .join(file);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    hlo::parse_module(&text).unwrap_or_else(|e| panic!("{file}: {e}"))
}

/// Checks that operand `k` of the result has exactly the maps `expected`
/// (any order), each compared by what it denotes.
fn check(file: &str, query: Query, expected: &[&[&str]]) {
    let m = module(file);
    let r = hlo::analyze(&m, &query).unwrap();
    assert_eq!(r.operands.len(), expected.len(), "{file}: {r}");
    for (k, want) in expected.iter().enumerate() {
        let OperandIndexing::Maps(maps) = &r.operands[k].indexing else {
            panic!("{file}: operand {k} unsupported: {r}");
        };
        assert_eq!(maps.len(), want.len(), "{file} operand {k}: {r}");
        let mut used = vec![false; maps.len()];
        for w in *want {
            let w_map =
                IndexingMap::parse(w).unwrap_or_else(|e| panic!("bad expectation {w}: {e}"));
            let hit = maps.iter().enumerate().position(|(i, m)| {
                // Same printed form (after parsing ours) first; enumerate otherwise.
                !used[i]
                    && (w_map.to_string() == m.map.to_string()
                        || semantically_equal(&w_map, &m.map, 50_000_000).unwrap())
            });
            match hit {
                Some(i) => used[i] = true,
                None => panic!("{file} operand {k}: no map equal to `{w}` in\n{r}"),
            }
        }
    }
}

fn o2i() -> Query {
    Query::default()
}

fn i2o() -> Query {
    Query {
        input_to_output: true,
        ..Query::default()
    }
}

#[test]
fn x01_broadcast() {
    check(
        "x01_broadcast.hlo",
        o2i(),
        &[&["(d0, d1, d2) -> (d1), domain: d0 in [0, 9], d1 in [0, 19], d2 in [0, 29]"]],
    );
    check(
        "x01_broadcast.hlo",
        i2o(),
        &[&["(d0)[s0, s1] -> (s0, d0, s1), domain: d0 in [0, 19], s0 in [0, 9], s1 in [0, 29]"]],
    );
}

#[test]
fn x02_add() {
    let id = "(d0, d1) -> (d0, d1), domain: d0 in [0, 9], d1 in [0, 19]";
    check("x02_add.hlo", o2i(), &[&[id], &[id]]);
    check("x02_add.hlo", i2o(), &[&[id], &[id]]);
}

#[test]
fn x03_transpose() {
    check("x03_transpose.hlo", o2i(), &[&["(d0, d1, d2, d3) -> (d0, d3, d1, d2), domain: d0 in [0, 2], d1 in [0, 5], d2 in [0, 127], d3 in [0, 12287]"]]);
    check("x03_transpose.hlo", i2o(), &[&["(d0, d1, d2, d3) -> (d0, d2, d3, d1), domain: d0 in [0, 2], d1 in [0, 12287], d2 in [0, 5], d3 in [0, 127]"]]);
}

#[test]
fn x04_reverse() {
    let m = "(d0, d1, d2, d3) -> (d0, -d1 + 16, -d2 + 8, d3), domain: d0 in [0, 0], d1 in [0, 16], d2 in [0, 8], d3 in [0, 8]";
    check("x04_reverse.hlo", o2i(), &[&[m]]);
    check("x04_reverse.hlo", i2o(), &[&[m]]);
    // The printed form keeps d0 (a size-1 dimension) as the seed writes it.
    let r = hlo::analyze(&module("x04_reverse.hlo"), &o2i()).unwrap();
    assert_eq!(r.to_string(), format!("operand id = 0\n{m}\n"));
}

#[test]
fn x05_variadic_reduce() {
    let input = "(d0)[s0] -> (s0, d0), domain: d0 in [0, 9], s0 in [0, 255]";
    let init = "(d0) -> (), domain: d0 in [0, 9]";
    for output in 0..2 {
        check(
            "x05_variadic_reduce.hlo",
            Query { output, ..o2i() },
            &[&[input], &[input], &[init], &[init]],
        );
        let to_out = "(d0, d1) -> (d1), domain: d0 in [0, 255], d1 in [0, 9]";
        let init_to_out = "()[s0] -> (s0), domain: s0 in [0, 9]";
        check(
            "x05_variadic_reduce.hlo",
            Query { output, ..i2o() },
            &[&[to_out], &[to_out], &[init_to_out], &[init_to_out]],
        );
    }
}

#[test]
fn x06_slice() {
    check("x06_slice.hlo", o2i(), &[&["(d0, d1, d2) -> (d0 + 5, d1 * 7 + 3, d2 * 2), domain: d0 in [0, 4], d1 in [0, 2], d2 in [0, 24]"]]);
    check(
        "x06_slice.hlo",
        i2o(),
        &[&["(d0, d1, d2) -> (d0 - 5, (d1 - 3) floordiv 7, d2 floordiv 2), domain: d0 in [5, 9], d1 in [3, 17], d2 in [0, 48], (d1 - 3) mod 7 in [0, 0], d2 mod 2 in [0, 0]"]],
    );
}

#[test]
fn x07_to_x10_reshapes() {
    check(
        "x07_reshape_collapse.hlo",
        o2i(),
        &[&["(d0) -> (d0 floordiv 8, d0 mod 8), domain: d0 in [0, 31]"]],
    );
    check(
        "x07_reshape_collapse.hlo",
        i2o(),
        &[&["(d0, d1) -> (d0 * 8 + d1), domain: d0 in [0, 3], d1 in [0, 7]"]],
    );
    check(
        "x08_reshape_expand.hlo",
        o2i(),
        &[&["(d0, d1) -> (d0 * 8 + d1), domain: d0 in [0, 3], d1 in [0, 7]"]],
    );
    check(
        "x08_reshape_expand.hlo",
        i2o(),
        &[&["(d0) -> (d0 floordiv 8, d0 mod 8), domain: d0 in [0, 31]"]],
    );
    check("x09_reshape_generic.hlo", o2i(), &[&["(d0, d1, d2) -> (d0 * 2 + d1 floordiv 2, (d1 mod 2) * 4 + d2), domain: d0 in [0, 1], d1 in [0, 3], d2 in [0, 3]"]]);
    check("x09_reshape_generic.hlo", i2o(), &[&["(d0, d1) -> (d0 floordiv 2, (d0 mod 2) * 2 + d1 floordiv 4, d1 mod 4), domain: d0 in [0, 3], d1 in [0, 7]"]]);
    check("x10_reshape_subshapes.hlo", o2i(), &[&["(d0, d1, d2) -> (d0 floordiv 8, d0 mod 8, d1 * 4 + d2), domain: d0 in [0, 31], d1 in [0, 2], d2 in [0, 3]"]]);
    check("x10_reshape_subshapes.hlo", i2o(), &[&["(d0, d1, d2) -> (d0 * 8 + d1, d2 floordiv 4, d2 mod 4), domain: d0 in [0, 3], d1 in [0, 7], d2 in [0, 11]"]]);
    // The simplified X9 maps print as the seed gives them.
    let r = hlo::analyze(&module("x09_reshape_generic.hlo"), &o2i()).unwrap();
    assert_eq!(r.to_string(), "operand id = 0\n(d0, d1, d2) -> (d0 * 2 + d1 / 2, (d1 mod 2) * 4 + d2), domain: d0 in [0, 1], d1 in [0, 3], d2 in [0, 3]\n");
}

#[test]
fn x11_concatenate() {
    check(
        "x11_concatenate.hlo",
        o2i(),
        &[
            &["(d0, d1) -> (d0, d1), domain: d0 in [0, 2], d1 in [0, 49]"],
            &["(d0, d1) -> (d0, d1 - 50), domain: d0 in [0, 2], d1 in [50, 79]"],
        ],
    );
    check(
        "x11_concatenate.hlo",
        i2o(),
        &[
            &["(d0, d1) -> (d0, d1), domain: d0 in [0, 2], d1 in [0, 49]"],
            &["(d0, d1) -> (d0, d1 + 50), domain: d0 in [0, 2], d1 in [0, 29]"],
        ],
    );
}

#[test]
fn x12_dot() {
    check(
        "x12_dot.hlo",
        o2i(),
        &[
            &["(d0, d1, d2)[s0] -> (d0, d1, s0), domain: d0 in [0, 3], d1 in [0, 127], d2 in [0, 63], s0 in [0, 255]"],
            &["(d0, d1, d2)[s0] -> (d0, s0, d2), domain: d0 in [0, 3], d1 in [0, 127], d2 in [0, 63], s0 in [0, 255]"],
        ],
    );
    check(
        "x12_dot.hlo",
        i2o(),
        &[
            &["(d0, d1, d2)[s0] -> (d0, d1, s0), domain: d0 in [0, 3], d1 in [0, 127], d2 in [0, 255], s0 in [0, 63]"],
            &["(d0, d1, d2)[s0] -> (d0, s0, d2), domain: d0 in [0, 3], d1 in [0, 255], d2 in [0, 63], s0 in [0, 127]"],
        ],
    );
}

#[test]
fn x13_pad() {
    check(
        "x13_pad.hlo",
        o2i(),
        &[&["(d0, d1) -> ((d0 - 1) floordiv 2, d1 - 4), domain: d0 in [1, 7], d1 in [4, 7], (d0 - 1) mod 2 in [0, 0]"], &["(d0, d1) -> (), domain: d0 in [0, 11], d1 in [0, 15]"]],
    );
}

#[test]
fn x14_reduce_window() {
    check(
        "x14_reduce_window.hlo",
        o2i(),
        &[&["(d0, d1)[s0] -> (d0, d1 + s0), domain: d0 in [0, 1023], d1 in [0, 2], s0 in [0, 511]"], &["(d0, d1) -> (), domain: d0 in [0, 1023], d1 in [0, 2]"]],
    );
}

#[test]
fn x15_fusion_reads_p0_twice() {
    check(
        "x15_fusion_add_transpose.hlo",
        o2i(),
        &[&[
            "(d0, d1) -> (d0, d1), domain: d0 in [0, 999], d1 in [0, 999]",
            "(d0, d1) -> (d1, d0), domain: d0 in [0, 999], d1 in [0, 999]",
        ]],
    );
}

#[test]
fn x16_fusion_deduplicates() {
    check(
        "x16_fusion_transposes.hlo",
        o2i(),
        &[&["(d0, d1, d2) -> (d2, d0, d1), domain: d0 in [0, 9], d1 in [0, 49], d2 in [0, 19]"]],
    );
}

#[test]
fn x17_softmax_two_maps() {
    check(
        "x17_softmax_fusion.hlo",
        o2i(),
        &[&[
            "(d0, d1, d2) -> (d0, d1, d2), domain: d0 in [0, 1], d1 in [0, 64], d2 in [0, 124]",
            "(d0, d1, d2)[s0] -> (d0, d1, s0), domain: d0 in [0, 1], d1 in [0, 64], d2 in [0, 124], s0 in [0, 124]",
        ]],
    );
}

#[test]
fn x18_reshapes_cancel() {
    let id = "(d0, d1, d2) -> (d0, d1, d2), domain: d0 in [0, 9], d1 in [0, 9], d2 in [0, 9]";
    check("x18_reshape_chain.hlo", o2i(), &[&[id]]);
    let r = hlo::analyze(&module("x18_reshape_chain.hlo"), &o2i()).unwrap();
    assert_eq!(
        r.to_string(),
        format!("operand id = 0\n{id}\n"),
        "composed and simplified to the identity"
    );
}
