//! Types in indices and stores: an index must be integral and a declared
//! integer output takes no float without a cast, as TC's semantic checks
//! say ("expected integral type", "narrower type").

mod common;
use common::*;
use tc::Severity;

/// The error messages of the first definition, with the text each points at.
fn errors(src: &str) -> Vec<(String, String)> {
    let a = analyze(src);
    a.defs[0]
        .all_diagnostics()
        .into_iter()
        .filter(|d| d.severity == Severity::Error)
        .map(|d| (d.message, src[d.span.start..d.span.end].to_string()))
        .collect()
}

#[test]
fn a_float_index_is_an_error_at_the_index() {
    for (src, at) in [
        // A read of a float tensor.
        (
            "def f(float(N) A, float(N) C) -> (B) { B(i) = A(C(i)) }",
            "C(i)",
        ),
        // Arithmetic with one.
        (
            "def f(float(N) A, float(N) C) -> (B) { B(i) = A(i + C(i)) }",
            "i + C(i)",
        ),
        // A float scalar input.
        (
            "def f(float(N) A, float s) -> (B) { B(i) = A(i * s) }",
            "i * s",
        ),
        // A built-in is float.
        (
            "def f(float(N) A) -> (B) { B(i) = A(floor(i)) }",
            "floor(i)",
        ),
        // Through a let.
        (
            "def f(float(N) A, float(N) C) -> (B) { B(i) = A(x) where x = C(i) }",
            "x",
        ),
        // An output defined with a float value, read as an index.
        (
            "def f(float(N) A, float(N) C) -> (T, B) { T(i) = C(i) B(i) = A(T(i)) }",
            "T(i)",
        ),
        // A float literal (already rejected).
        ("def f(float(N) A) -> (B) { B(i) = A(i + 1.5) }", "i + 1.5"),
    ] {
        let e = errors(src);
        assert_eq!(e.len(), 1, "{src}: {e:?}");
        assert!(
            e[0].0.contains("expected integral type but found float"),
            "{src}: {e:?}"
        );
        assert_eq!(e[0].1, at, "{src}");
    }
}

#[test]
fn integral_indices_are_accepted() {
    for src in [
        "def f(float(N) A, int32(N) C) -> (B) { B(i) = A(C(i)) }",
        "def f(float(N) A, uint8(N) C) -> (B) { B(i) = A(C(i)) }",
        "def f(float(N) A, float(N) C) -> (B) { B(i) = A(int32(C(i))) }",
        "def f(float(N) A, int64(N) C) -> (B) { B(i) = A(x) where x = C(i) + 1 }",
        // An output holding integers may index.
        "def f(float(N) A, int32(N) C) -> (T, B) { T(i) = C(i) B(i) = A(T(i)) }",
        "def f(float(N) A) -> (B) { B(i) = A(i < 2 ? i : 0) where i in 0:N }",
    ] {
        assert!(errors(src).is_empty(), "{src}: {:?}", errors(src));
    }
}

#[test]
fn a_float_stored_into_an_integer_output_needs_a_cast() {
    let src = "def f(float(N) A) -> (int32(N) B) { B(i) = A(i) }";
    let e = errors(src);
    assert_eq!(e.len(), 1, "{e:?}");
    assert!(
        e[0].0
            .starts_with("attempting to assign type float to narrower type int32"),
        "{e:?}"
    );
    assert_eq!(e[0].1, "A(i)");
    // A reduction stores too; a wider integer into a narrower one.
    for src in [
        "def f(float(N, M) A) -> (int32(N) B) { B(i) +=! A(i, j) }",
        "def f(int64(N) A) -> (int32(N) B) { B(i) = A(i) }",
        "def f(double(N) A) -> (float(N) B) { B(i) = A(i) }",
    ] {
        let e = errors(src);
        assert!(
            e.len() == 1 && e[0].0.contains("to narrower type"),
            "{src}: {e:?}"
        );
    }
    // What matches into the declared type is accepted.
    for src in [
        "def f(float(N) A) -> (int32(N) B) { B(i) = int32(A(i)) }",
        "def f(int32(N) A) -> (float(N) B) { B(i) = A(i) }",
        "def f(int32(N) A) -> (int64(N) B) { B(i) = A(i) * 2 }",
        "def f(float(N) A) -> (B) { B(i) = A(i) }",
    ] {
        assert!(errors(src).is_empty(), "{src}: {:?}", errors(src));
    }
}
