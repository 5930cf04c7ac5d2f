//! A read under a condition narrows ranges as any read does (TC's
//! algorithm): a padded convolution written with a ternary keeps only the
//! centre tap. The ranges stay TC's; a warning at the read says so and how
//! to write the intended range.

mod common;
use common::*;
use tc::Severity;

const PADDED: &str = "def conv(float(N, C, H, W) I, float(M, C, 3, 3) W1) -> (O) {
    O(n, m, h, w) +=! (h + kh >= 1 && w + kw >= 1 && h + kh - 1 < H && w + kw - 1 < W)
        ? I(n, c, h + kh - 1, w + kw - 1) * W1(m, c, kh, kw) : 0.0
        where h in 0:H, w in 0:W
}";

#[test]
fn a_guarded_read_that_narrows_a_range_is_a_warning_at_the_read() {
    let a = analyze(PADDED);
    let d = &a.defs[0];
    assert!(!d.has_errors(), "{:?}", d.all_diagnostics());
    let r = ranges(d, 0);
    assert!(r.contains(&"1 <= kh < 2".to_string()), "{r:?}");
    assert!(r.contains(&"1 <= kw < 2".to_string()), "{r:?}");
    let w: Vec<_> = d
        .all_diagnostics()
        .into_iter()
        .filter(|x| x.severity == Severity::Warning)
        .collect();
    assert_eq!(w.len(), 2, "{w:?}");
    for (x, var) in w.iter().zip(["kh", "kw"]) {
        assert_eq!(
            &PADDED[x.span.start..x.span.end],
            "I(n, c, h + kh - 1, w + kw - 1)"
        );
        assert!(
            x.message
                .contains(&format!("narrows `{var}` to `1 <= {var} < 2`"))
                && x.message.contains("does not widen")
                && x.message.contains(&format!("where {var} in 0:3")),
            "{}",
            x.message
        );
    }
    // Written as the warning says, the full kernel is used and the
    // guarded read is in bounds where it runs.
    let fixed = PADDED.replace(
        "where h in 0:H, w in 0:W",
        "where h in 0:H, w in 0:W, kh in 0:3, kw in 0:3",
    );
    let a = analyze(&fixed);
    let d = &a.defs[0];
    assert!(d.all_diagnostics().is_empty(), "{:?}", d.all_diagnostics());
    assert!(ranges(d, 0).contains(&"0 <= kh < 3".to_string()));
}

#[test]
fn no_warning_when_the_guarded_read_does_not_narrow() {
    for src in [
        // The only read: nothing to compare with.
        "def f(float(N) A) -> (B) { B(i) = i < N ? A(i) : 0.0 }",
        // Same range either way.
        "def f(float(N) A, float(N) C) -> (B) { B(i) = i >= 0 ? A(i) : C(i) }",
        // Unguarded reads only.
        "def f(float(N) A) -> (B) { B(i) = A(i) + A(i + 1) }",
    ] {
        let a = analyze(src);
        let w = messages(&a.defs[0], Severity::Warning);
        assert!(w.is_empty(), "{src}: {w:?}");
    }
    // An index variable of the left-hand side narrowed too.
    let src = "def f(float(N) A, float(N) C) -> (B) { B(i) = C(i) + (i >= 1 ? A(i - 1) : 0.0) }";
    let a = analyze(src);
    assert_eq!(ranges(&a.defs[0], 0), ["1 <= i < N"]);
    let w = messages(&a.defs[0], Severity::Warning);
    assert!(w.len() == 1 && w[0].contains("where i in 0:N"), "{w:?}");
}

#[test]
fn a_guarded_read_never_shows_false_as_its_need() {
    // The guard does not keep the read in bounds for `i = N - 1`.
    let src = "def f(float(N) A) -> (B) { B(i) = i >= 0 ? A(i + N) : 0.0 where i in 0:N }";
    let a = analyze(src);
    let w = messages(&a.defs[0], Severity::Warning);
    assert_eq!(w.len(), 1, "{w:?}");
    assert!(
        w[0].contains("out of bounds somewhere whatever the sizes"),
        "{w:?}"
    );
    assert!(!w[0].contains("False"), "{w:?}");
}
