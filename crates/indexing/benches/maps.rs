//! Costs of the operations compilers run thousands of times per model:
//! parsing, simplifying, composing and comparing maps.

use indexing::{compose, semantically_equal, IndexingMap};

fn main() {
    divan::main();
}

const RESHAPE: &str =
    "(d0, d1, d2) -> ((d0 * 100 + d1 * 10 + d2) floordiv 20, (d0 * 100 + d1 * 10 + d2) mod 20), \
                       domain: d0 in [0, 9], d1 in [0, 9], d2 in [0, 9]";
const RESHAPE_BACK: &str =
    "(d0, d1) -> ((d0 * 20 + d1) floordiv 100, ((d0 * 20 + d1) mod 100) floordiv 10, \
                            (d0 * 20 + d1) mod 10), domain: d0 in [0, 49], d1 in [0, 19]";

#[divan::bench]
fn parse() -> IndexingMap {
    IndexingMap::parse(divan::black_box(RESHAPE)).unwrap()
}

#[divan::bench]
fn simplify_s2(bencher: divan::Bencher) {
    let map = IndexingMap::parse(
        "(d0, d1, d2) -> ((d0 * 100 + d1 * 10 + d2) floordiv 100, ((d0 * 100 + d1 * 10 + d2) mod 100) floordiv 10, \
         d2 mod 10), domain: d0 in [0, 9], d1 in [0, 9], d2 in [0, 9]",
    )
    .unwrap();
    bencher.bench(|| {
        let mut m = map.clone();
        m.simplify();
        m
    });
}

#[divan::bench]
fn compose_and_simplify_reshapes(bencher: divan::Bencher) {
    let (a, b) = (
        IndexingMap::parse(RESHAPE).unwrap(),
        IndexingMap::parse(RESHAPE_BACK).unwrap(),
    );
    bencher.bench(|| {
        let mut m = compose(&a, &b).unwrap();
        m.simplify();
        m
    });
}

#[divan::bench]
fn semantically_equal_1000_points(bencher: divan::Bencher) {
    let (a, b) = (
        IndexingMap::parse(RESHAPE).unwrap(),
        IndexingMap::parse(RESHAPE).unwrap(),
    );
    bencher.bench(|| semantically_equal(&a, &b, 1 << 20).unwrap());
}

#[divan::bench]
fn print(bencher: divan::Bencher) {
    let map = IndexingMap::parse(RESHAPE_BACK).unwrap();
    bencher.bench(|| map.to_string());
}
