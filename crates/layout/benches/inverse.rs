//! `IndexMap::inverse` and `IndexMap::non_surjective_inverse` on the maps of
//! TVM's padding table (index_map_cases.md section 1a) and on seed 001's
//! L3/L4. The map is parsed once; each iteration derives the inverse (and
//! the padding predicate) for the shape from scratch.

use arith::Expr;
use layout::IndexMap;

fn main() {
    divan::main();
}

const CASES: &[(&str, &str, &[i64])] = &[
    ("no_padding", "lambda i: [i // 4, i % 4]", &[16]),
    ("right_padding", "lambda i: [i // 4, i % 4]", &[15]),
    (
        "left_padding",
        "lambda i: [(i + 1) // 4, (i + 1) % 4]",
        &[15],
    ),
    (
        "left_and_right_padding",
        "lambda i: [(i + 1) // 4, (i + 1) % 4]",
        &[14],
    ),
    (
        "2d_padding",
        "lambda i, j: [(i + 1) // 4, (j + 5) // 8, (i + 1) % 4, (j + 5) % 8]",
        &[14, 31],
    ),
    (
        "multiple_right_padding",
        "lambda i: [i // 32, (i // 4) % 8, i % 4]",
        &[116],
    ),
    (
        "multiple_right_padding_transpose",
        "lambda i: [(i // 4) % 8, i // 32, i % 4]",
        &[116],
    ),
    (
        "multiple_left_padding",
        "lambda i: [(i + 5) // 32, ((i + 5) // 4) % 8, (i + 5) % 4]",
        &[123],
    ),
    (
        "multiple_left_padding_with_transpose",
        "lambda i: [((i + 5) // 4) % 8, (i + 5) // 32, (i + 5) % 4]",
        &[123],
    ),
    ("outer_loop_extent_one", "lambda i: [i // 4, i % 4]", &[3]),
    (
        "L3",
        "lambda n, h, w, c: [n, c // 4, h, w, c % 4]",
        &[16, 64, 64, 128],
    ),
    (
        "L4",
        "lambda n, h, w, c: [n, c // 4, h, te.AXIS_SEPARATOR, w, c % 4]",
        &[16, 64, 64, 128],
    ),
];

fn names() -> Vec<&'static str> {
    CASES.iter().map(|c| c.0).collect()
}

fn setup(name: &str) -> (IndexMap, Vec<Expr>) {
    let (_, text, dims) = CASES.iter().find(|c| c.0 == name).expect("case");
    let map = IndexMap::parse(text).expect("parses");
    (map, dims.iter().map(|&d| Expr::int(d)).collect())
}

#[divan::bench(args = ["no_padding", "L3", "L4"])]
fn inverse(bencher: divan::Bencher, name: &str) {
    let (map, shape) = setup(name);
    bencher.bench(|| map.inverse(divan::black_box(&shape)).expect("bijective"));
}

#[divan::bench(args = names())]
fn non_surjective_inverse(bencher: divan::Bencher, name: &str) {
    let (map, shape) = setup(name);
    bencher.bench(|| {
        map.non_surjective_inverse(divan::black_box(&shape))
            .expect("injective")
    });
}
