//! Pictures of seed 004's range inference, rendered to pixels.

mod support;

use picture::{tc_picture, Color, Drawing};
use std::collections::HashMap;
use support::{rasterize, Pixels};

/// The fill just inside end `end` (`lo` or `hi`) of bar `bar`, and whether
/// the end itself is drawn with the dark outline of a deciding bar.
fn end(px: &Pixels, d: &Drawing, bar: &str, end: &str) -> (Color, bool) {
    let (x, y) = d.anchor(&format!("{bar}:{end}")).unwrap();
    let inward = if end == "lo" { 3.0 } else { -3.0 };
    // The outline is blended at its edges: dark, if not exactly ink.
    let dark = |c: Color| c.0.max(c.1).max(c.2) < 110;
    (
        px.at(x + inward, y),
        dark(px.at(x, y)) || dark(px.at(x - inward / 3.0, y)),
    )
}

fn picture(source: &str, sizes: &[(&str, i64)]) -> Drawing {
    let sizes: HashMap<String, i64> = sizes.iter().map(|(n, v)| (n.to_string(), *v)).collect();
    tc_picture(source, &tc::analyze(source), &sizes)
}

const STENCIL: &str =
    "def stencil(float(N) B, float(L) K) -> (A) {\n    A(i) +=! B(i + k) * K(k)\n}\n";

#[test]
fn the_convolution_draws_the_deciding_read_over_the_range_it_decided() {
    let d = picture(STENCIL, &[("N", 10), ("L", 3)]);
    let px = rasterize(&d);
    // i: bar 0 is the range [0, 8), bar 1 the bound B(i + k) imposes,
    // which decided it: the same ends, filled vermillion.
    assert_eq!(px.at_anchor(&d, "stencil/0/i:0"), Color::BLUE);
    for side in ["lo", "hi"] {
        assert_eq!(
            end(&px, &d, "stencil/0/i:1", side),
            (Color::VERMILLION, true)
        );
        let (x_range, _) = d.anchor(&format!("stencil/0/i:0:{side}")).unwrap();
        let (x_bound, _) = d.anchor(&format!("stencil/0/i:1:{side}")).unwrap();
        assert_eq!(x_range, x_bound, "{side}");
    }
    // Past its upper end (value 7) the bar stops.
    let (x, y) = d.anchor("stencil/0/i:1:hi").unwrap();
    assert_ne!(px.at(x + 6.0, y), Color::VERMILLION);
    // k was decided in round 1 by K(k), i in round 2.
    assert_eq!(px.at_anchor(&d, "stencil/0/k:1"), Color::VERMILLION);
    assert!(d.svg.contains("decided in round 2"));
    assert!(d.svg.contains("decided in round 1"));
}

#[test]
fn a_read_that_does_not_decide_is_drawn_plain_beside_the_one_that_does() {
    // B(i + 1) allows [-1, 9), C(i) allows [0, 6): C decides both ends.
    let d = picture(
        "def f(float(N) B, float(M) C) -> (A) { A(i) = B(i + 1) + C(i) }",
        &[("N", 10), ("M", 6)],
    );
    let px = rasterize(&d);
    assert_eq!(px.at_anchor(&d, "f/0/i:1"), Color::BACKGROUND);
    assert_eq!(end(&px, &d, "f/0/i:2", "lo"), (Color::VERMILLION, true));
    assert_eq!(end(&px, &d, "f/0/i:2", "hi"), (Color::VERMILLION, true));
    assert_eq!(end(&px, &d, "f/0/i:1", "hi"), (Color::BACKGROUND, false));
    // B's bar starts one before the range and ends three after it.
    let x = |name: &str| d.anchor(name).unwrap().0;
    assert!(x("f/0/i:1:lo") < x("f/0/i:0:lo"));
    assert!(x("f/0/i:1:hi") > x("f/0/i:0:hi"));
}

#[test]
fn which_read_decides_follows_the_sizes() {
    // `0 <= i < min((N + 1) // 2, N - 5)`.
    let src = "def f(float(N) B) -> (A) { A(i) = B(2*i) + B(i + 5) }";
    let small = picture(src, &[("N", 8)]);
    let px = rasterize(&small);
    assert_eq!(end(&px, &small, "f/0/i:2", "hi"), (Color::VERMILLION, true));
    let large = picture(src, &[("N", 20)]);
    let px = rasterize(&large);
    assert_eq!(end(&px, &large, "f/0/i:1", "hi"), (Color::VERMILLION, true));
    assert_eq!(
        end(&px, &large, "f/0/i:2", "hi"),
        (Color::BACKGROUND, false)
    );
}

#[test]
fn without_sizes_the_bounds_are_written_out() {
    let d = picture(STENCIL, &[]);
    assert!(d.anchor("stencil/0/i:0").is_none());
    assert!(d
        .svg
        .contains("B(i + k): [0, N - L + 1)  decides both ends"));
    assert!(d.svg.contains("font-weight=\"bold\">  B(i + k)"));
}

#[test]
fn errors_and_syntax_errors_are_said_not_drawn() {
    let d = picture("def f(float(N) B) -> (A) { A(i) = B(j) }", &[]);
    assert!(d.svg.contains("error: "), "{}", d.svg);
    let d = picture("def f(", &[]);
    assert!(d.svg.contains("syntax error"));
}

#[test]
fn the_picture_of_the_convolution_prints_the_same_text() {
    let d = picture(STENCIL, &[("N", 10), ("L", 3)]);
    assert_eq!(d.svg, picture(STENCIL, &[("N", 10), ("L", 3)]).svg);
    insta::assert_snapshot!(d.svg);
}
