//! Lowering to te of what needs more than index arithmetic: built-ins,
//! data-dependent indices, comparisons of values, casts, `%`, products;
//! each run by the interpreter against direct evaluation.

mod common;
use common::*;
use std::collections::HashMap;
use tc::lower::RunReport;

fn sizes(s: &[(&str, i64)]) -> HashMap<String, i64> {
    s.iter().map(|(n, v)| (n.to_string(), *v)).collect()
}

/// Runs the first definition of `src` with `sz` and seed `seed`.
fn run(src: &str, sz: &[(&str, i64)], seed: u64) -> RunReport {
    let a = analyze(src);
    assert!(!a.defs[0].has_errors(), "{:?}", a.defs[0].all_diagnostics());
    tc::lower::run(&a.program.defs[0], &a.defs[0], &sizes(sz), seed).unwrap()
}

/// Lowered, every output element compared and equal, no invalid read.
fn assert_clean(r: &RunReport) {
    assert!(r.lowered, "{r:?}");
    assert!(r.compared > 0, "{r:?}");
    assert!(r.is_clean(1e-5), "{r:?}");
}

/// The `tvm.lower` text of the first definition of `src`.
fn lowered_text(src: &str) -> String {
    let a = analyze(src);
    let l = tc::lower::to_te(&a.program.defs[0], &a.defs[0]).unwrap();
    te::lower(&l.schedule, &l.args()).unwrap().to_string()
}

const SOFTMAX: &str = "def softmax(float(N, D) I) -> (O, maxVal, expSum) {
    maxVal(n) max=! I(n, d)
    expSum(n) +=! exp(I(n, d) - maxVal(n))
    O(n, d) = exp(I(n, d) - maxVal(n)) / expSum(n)
}";

#[test]
fn softmax_runs_lowered() {
    for seed in 0..4 {
        assert_clean(&run(SOFTMAX, &[("N", 3), ("D", 5)], seed));
    }
}

#[test]
fn a_gather_with_an_index_tensor_in_range_runs_lowered() {
    // `idx` indexes `A` directly: its random values lie in [0, N).
    let src = "def gather(float(N) A, int32(M) idx) -> (O) { O(i) +=! A(idx(i)) }";
    for seed in 0..4 {
        assert_clean(&run(src, &[("N", 4), ("M", 9)], seed));
    }
    let src = "def lut(float(E, D) LUT, int32(B, L) I) -> (O) {
        O(b, d) +=! LUT(I(b, r_l), d)
    }";
    assert_clean(&run(src, &[("E", 3), ("D", 4), ("B", 2), ("L", 5)], 1));
}

#[test]
fn a_gather_from_an_earlier_statement_computes_it_whole() {
    let src = "def g(float(N) A, int32(M) idx) -> (O, B) {
        B(i) = A(i) * 2
        O(j) = B(idx(j))
    }";
    assert_clean(&run(src, &[("N", 6), ("M", 3)], 2));
    let text = lowered_text(src);
    assert!(text.contains("O[j] = B[idx[j]]"), "{text}");
}

#[test]
fn an_out_of_range_index_value_is_reported_on_both_sides() {
    // `idx(i) + 1` is not a direct read of `idx`: its values are 1 or 2,
    // so with N = 2 every read of `A` is past the end.
    let src = "def g(float(N) A, int32(M) idx) -> (O) { O(i) = A(idx(i) + 1) }";
    let r = run(src, &[("N", 2), ("M", 3)], 0);
    assert!(r.lowered, "{r:?}");
    assert_eq!(r.out_of_bounds, 6, "{r:?}");
    assert!(
        r.violations
            .iter()
            .any(|v| v.starts_with("load of A[") && v.contains("outside the buffer's shape [2]")),
        "{r:?}"
    );
    assert!(
        r.violations
            .iter()
            .any(|v| v.starts_with("statement 1 reads `A`")),
        "{r:?}"
    );
}

#[test]
fn products_with_and_without_initialisation() {
    let src = "def p(float(N, K) A) -> (O) { O(i) *=! A(i, k) }";
    assert_clean(&run(src, &[("N", 3), ("K", 4)], 3));
    let text = lowered_text(src);
    assert!(text.contains("O[i] = 1.000000f"), "{text}");
    assert!(text.contains("O[i] = (O[i]*A[i, k])"), "{text}");
    let src = "def p(float(N, K) A) -> (O) { O(i) *= A(i, k) }";
    assert_clean(&run(src, &[("N", 3), ("K", 4)], 3));
}

#[test]
fn comparisons_of_values_casts_modulo_and_builtins() {
    let src = "def f(float(N) A, int32(N) C) -> (O, P, Q, R) {
        O(i) = A(i) > 0 ? A(i) : 0.0
        P(i) = (A(i) > 0 && C(i) != 1) ? fmax(A(i), 0.5) : tanh(A(i))
        Q(i) = int32(A(i) * 4) % 3 + C(i) % 2
        R(i) = !(A(i) < 0) ? sqrt(fabs(A(i))) : pow(A(i), 2)
    }";
    for seed in 0..4 {
        assert_clean(&run(src, &[("N", 7)], seed));
    }
}

#[test]
fn an_input_nothing_reads_is_passed_through() {
    let src = "def f(float(N) A, float(N) B) -> (O) { O(i) = A(i) where exists B(i) }";
    let a = analyze(src);
    let l = tc::lower::to_te(&a.program.defs[0], &a.defs[0]).unwrap();
    let f = te::lower(&l.schedule, &l.args()).unwrap();
    let names: Vec<&str> = f.params.iter().map(|b| b.name()).collect();
    assert_eq!(names, ["A", "B", "O"]);
    assert_clean(&run(src, &[("N", 4)], 0));
}

#[test]
fn snapshot_of_a_program_using_each_new_node() {
    let src = "def all(float(N, K) A, int32(M) idx) -> (P, O) {
        P(i) *=! tanh(A(i, k))
        O(j) = P(idx(j)) >= 0 ? float(int32(P(idx(j)) * 8) % 3) : exp(P(idx(j)))
    }";
    assert_clean(&run(src, &[("N", 4), ("K", 3), ("M", 5)], 5));
    insta::assert_snapshot!(lowered_text(src));
}

#[test]
fn every_builtin_is_an_intrinsic_of_its_arity_or_cannot_run() {
    // Special functions with no exact implementation in Rust's standard
    // library: neither side can evaluate them.
    let unevaluated = [
        "cyl_bessel_i0",
        "cyl_bessel_i1",
        "erf",
        "erfc",
        "erfcinv",
        "erfcx",
        "erfinv",
        "j0",
        "j1",
        "lgamma",
        "normcdf",
        "normcdfinv",
        "tgamma",
        "y0",
        "y1",
    ];
    for (name, arity) in tc::sema::BUILTINS {
        match tir::Intrinsic::from_name(name) {
            Some(f) => assert_eq!(f.arity(), *arity, "{name}"),
            None => assert!(unevaluated.contains(name), "{name}"),
        }
    }
    let src = "def f(float(N) A) -> (O) { O(i) = lgamma(A(i)) }";
    let a = analyze(src);
    let e = match tc::lower::to_te(&a.program.defs[0], &a.defs[0]) {
        Err(e) => e,
        Ok(_) => panic!("lgamma lowered"),
    };
    assert!(
        e.message.contains("`lgamma` has no exact implementation"),
        "{}",
        e.message
    );
}

#[test]
fn dots_with_its_related_sizes_runs_lowered() {
    // TC issue #55's triangular dots: `KP1 = K + 1`, which the uniform
    // sizes of tests/programs.rs cannot give; `Idx` is read under guards.
    let src =
        "def dots(float(N, C) NormData, int32(KP1) Idx, float(K, MAX_L, MAX_L) Beta) -> (Dots) {
        Dots(k, max_l_1, max_l_2) +=! (max_l_1 >= max_l_2) ? 0.0 :
            ((Idx(k) + max_l_1 >= Idx(k + 1) || Idx(k) + max_l_2 >= Idx(k + 1)) ?
              0.0 :
              NormData(Idx(k) + max_l_1, r_c) * NormData(Idx(k) + max_l_2, r_c))
            where k in 0:K, max_l_1 in 0:MAX_L, max_l_2 in 0:MAX_L
    }";
    let sz = [("N", 6), ("C", 3), ("K", 4), ("KP1", 5), ("MAX_L", 3)];
    for seed in 0..4 {
        assert_clean(&run(src, &sz, seed));
    }
}

/// An update of a tensor whose range does not start at zero reads the
/// current values where they are stored (from the lower bound), not one
/// lower bound further (fuzz `tc`, seed 0, case 1192).
#[test]
fn an_update_of_a_tensor_stored_from_a_nonzero_lower_bound_reads_its_own_elements() {
    let src = "def f(float(L) A, float(M) K) -> (T, U) {
        T(i) max=! K(r_k) * A(i + r_k - 1) * A(3 * i + r_k - 1)
        U(i) = T(i)
        U(i) += T(i)
    }";
    for seed in 0..3 {
        assert_clean(&run(src, &[("L", 7), ("M", 2)], seed));
    }
    // `i` runs from 1: `U_s0` holds `T(1), T(2)` at 0 and 1.
    let text = lowered_text(src);
    assert!(text.contains("U[i] = (U_s0[i] + T[i])"), "{text}");
    // The reduction of the update is stored from the lower bound too.
    let src = "def g(float(N) A, float(N) B) -> (O) {
        O(i) = A(i - 1) where i in 1:N
        O(i) += B(i + r - 1) where r in 0:2
    }";
    assert_clean(&run(src, &[("N", 6)], 0));
}

/// An output without a declared type has the type of what defines it, on
/// both sides: `T(i) = A(i)` with an integer `A` divides as an integer
/// (fuzz `tc`, seed 0, case 3545).
#[test]
fn an_undeclared_output_defined_from_integers_divides_as_an_integer() {
    let src = "def f(int32(5) A, int32(7) B) -> (T, O) {
        T(i) = A(2*i)
        O(i) = (B(i) * A(i) * T(i)) / 2
    }";
    for seed in 0..4 {
        assert_clean(&run(src, &[], seed));
    }
    // A float defined tensor still divides as a float.
    let src = "def g(int32(5) A) -> (T, O) { T(i) = A(i) * 1.5 O(i) = T(i) / 2 }";
    assert_clean(&run(src, &[], 0));
}

/// An update (`+=`, `max=` without `!`) reads the tensor's current values
/// at its own indices: a range reaching past the earlier definition is a
/// precondition (an error when it never holds, decided by the sizes
/// otherwise), not a silent out-of-bounds read in the run (fuzz `tc`,
/// seed 0, case 1994).
#[test]
fn an_update_reaching_past_the_earlier_definition_is_a_precondition() {
    let src = "def f(double(3) A) -> (O) { O(i) = A(i) * A(3 - i) O(i) += A(i) }";
    let a = analyze(src);
    let errors: Vec<tc::Diagnostic> = a.defs[0]
        .all_diagnostics()
        .into_iter()
        .filter(|d| d.severity == tc::Severity::Error)
        .collect();
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert!(
        errors[0].message.starts_with("`O(i)` reads out of bounds"),
        "{errors:?}"
    );
    assert_eq!(&src[errors[0].span.start..errors[0].span.end], "O(i) +=");
    // Symbolic: decided by the sizes.
    let src = "def g(float(N) A, float(M) B) -> (O) { O(i) = A(i) O(i) max= B(i) }";
    let a = analyze(src);
    assert!(!a.defs[0].has_errors(), "{:?}", a.defs[0].all_diagnostics());
    let check = |n: i64, m: i64| {
        let c = tc::bind_sizes(&a.defs[0], &sizes(&[("N", n), ("M", m)]));
        c.diagnostics
            .iter()
            .any(|d| d.severity == tc::Severity::Error && d.message.contains("`O(i)`"))
    };
    assert!(check(3, 5));
    assert!(!check(5, 3));
    assert_clean(&run(src, &[("N", 5), ("M", 3)], 0));
    // Inside the earlier range: nothing to say.
    let src = "def h(float(N) A) -> (O) { O(i) = A(i) O(i) += A(i) }";
    assert!(analyze(src).defs[0].all_diagnostics().is_empty());
}

/// Direct evaluation computes `float32` values as the program does,
/// rounded after every operation: a product of six factors near 7, which
/// a `float64` evaluation would get right to about 1e-2 more, agrees
/// exactly (fuzz `tc`, seed 0, case 3582).
#[test]
fn float32_products_agree_exactly() {
    let src = "def f(float(7, 12) A, float(6) K) -> (O) { O(i, j) *=! K(r) * A(i, j + 2*r) - i }";
    let r = run(src, &[], 0);
    assert_clean(&r);
    assert_eq!(r.max_abs_error, 0.0, "{r:?}");
}

/// An intermediate value past `float32`'s range is infinite in direct
/// evaluation too, as in the program, whether it is stored in a tensor or
/// only computed: multiplied back into range afterwards it stays infinite
/// (fuzz `tc`, seed 20261129, case 36763, where `float64` intermediates
/// made a correct program a mismatch). A `double` tensor keeps the value.
#[test]
fn intermediates_past_float32_overflow_in_both_evaluations() {
    let stored =
        "def f(float(4) A) -> (T, O) { T(i) = exp(A(i) * 0.5 + 100.0) O(i) = T(i) * 0.0000000001 }";
    let r = run(stored, &[], 0);
    assert_clean(&r);
    assert_eq!(r.max_abs_error, 0.0, "{r:?}");
    let computed = "def g(float(4) A) -> (O) { O(i) = exp(A(i) * 0.5 + 100.0) * 0.0000000001 }";
    let r = run(computed, &[], 0);
    assert_clean(&r);
    assert_eq!(r.max_abs_error, 0.0, "{r:?}");
    let wide = "def h(double(4) A) -> (double(4) T, O) { T(i) = exp(A(i) * 0.5 + 100.0) O(i) = T(i) * 0.0000000001 }";
    assert_clean(&run(wide, &[], 0));
}

/// A `max=!` over an empty range leaves te's identity, the lowest finite
/// `float32` (or `int32`) value, not an infinity: direct evaluation starts
/// there too, so `T * T + T` is the same number in both evaluations (fuzz
/// `tc`, seed 777001, case 52224, where `-inf` made it NaN against `inf`).
/// A statement that runs no iteration stores the type of its right-hand
/// side.
#[test]
fn an_empty_reduction_starts_from_tes_identity() {
    let src = "def f0(float32(L, L) A, float32(7) K0) -> (T0, O) { T0(i, j) max=! exp(K0(r_k) * A(9 -i + 2*r_k, j) * A(i, j)) where i in 2:7 O(i, j) = T0(i, j) * T0(i, j) + T0(i, j) }";
    let r = run(src, &[("L", 7)], 0);
    assert_clean(&r);
    assert_eq!(r.max_abs_error, 0.0, "{r:?}");
    let src = "def g(int32(L, L) A, int32(7) K0) -> (T0, O) { T0(i, j) min=! K0(r_k) * A(9 -i + 2*r_k, j) where i in 2:7 O(i, j) = T0(i, j) - 1 }";
    let r = run(src, &[("L", 7)], 0);
    assert_clean(&r);
    assert_eq!(r.max_abs_error, 0.0, "{r:?}");
    // An integer sum of nothing is an integer zero: `(B + T0) / 2` divides
    // as integers (seed 777001, case 72790).
    let src = "def h(int32(L) A, int32(L) B, int32(N) K0) -> (T0, O) { T0(i) +=! K0(r_k) + B(i + r_k) where i in 0:5 O(i) = (B(i) + T0(i)) / 2 }";
    let r = run(src, &[("L", 4), ("N", 8)], 0);
    assert_clean(&r);
    assert_eq!(r.max_abs_error, 0.0, "{r:?}");
}

/// Direct evaluation's values are rounded to the output's element type
/// before they are compared: `exp(100)` overflows `float32` to infinity in
/// the program, as it must (fuzz `tc`, seed 1, case 18501).
#[test]
fn values_beyond_float32_compare_as_float32() {
    let src = "def f(float(4) A) -> (O) { O(i) = exp(A(i) * 0.5 + 100.0) }";
    assert_clean(&run(src, &[], 0));
    let src = "def g(double(4) A) -> (O) { O(i) = exp(A(i) * 0.5 + 100.0) }";
    assert_clean(&run(src, &[], 0));
}

/// Sizes that empty a range (the statement does nothing, a warning) run by
/// direct evaluation, with the reason the lowered program is not run: it
/// takes ranges to be non-empty, and would allocate a negative extent
/// (fuzz `tc`, seed 0, case 17995: the run failed).
#[test]
fn sizes_that_empty_a_range_run_by_direct_evaluation() {
    let src = "def f(float(L) A, float(N) B) -> (T, O) {
        T(i) = A(i)
        O(i) = T(i) * B(i + 8)
    }";
    let r = run(src, &[("L", 7), ("N", 2)], 0);
    assert!(!r.lowered, "{r:?}");
    assert!(
        r.not_lowered
            .as_deref()
            .unwrap()
            .contains("statement 2 has an empty range"),
        "{r:?}"
    );
    assert_eq!(r.out_of_bounds, 0, "{r:?}");
    assert_clean(&run(src, &[("L", 7), ("N", 12)], 0));
}

/// A declared output type is the type of what is stored, on both sides:
/// an `int32` output of float values holds them converted toward zero, and
/// a `float` output of integers divides as a float when read (the lowered
/// compute had the type of its body).
#[test]
fn a_declared_output_type_is_the_type_stored() {
    // A float stored into an integer output needs an explicit cast (TC's
    // "narrower type" rule).
    let src = "def f(float(4) A) -> (int32(4) O) { O(i) = int32(A(i) * 3.0) }";
    for seed in 0..3 {
        assert_clean(&run(src, &[], seed));
    }
    let src = "def g(int32(4) A) -> (float(4) O, T) { O(i) = A(i) T(i) = O(i) / 2 }";
    for seed in 0..3 {
        assert_clean(&run(src, &[], seed));
    }
    let src = "def h(float(4, 3) A) -> (int32(4) O) { O(i) +=! int32(A(i, r) * 3.0) }";
    assert_clean(&run(src, &[], 0));
    let src =
        "def k(int32(4, 3) A) -> (double(4) O) { O(i) max=! A(i, r) / 2 O(i) += A(i, 0) * 1.5 }";
    assert_clean(&run(src, &[], 0));
}
