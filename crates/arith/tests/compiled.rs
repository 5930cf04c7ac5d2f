//! The compiled evaluator agrees with `Expr::eval` everywhere (including
//! where the expression has no value), and the linear form rebuilds to an
//! equal expression.

use arith::{Compiled, LinearForm, Scope, Var};

const CASES: &[&str] = &[
    "x * 4 + y // 3 - z % 5",
    "select(x != 0, y // x, 7) + ceildiv(z, 3)",
    "x != 0 and y // x > 2",
    "x == 0 or y // x > 2",
    "not (min(x, y) < max(y, z))",
    "x * 4611686018427387904 + y",
    "(x - y) % (z - 1) + min(x // -2, 3)",
    "select(x < y, x, y) * 3 - max(z, 2) // (y + 10)",
];

#[test]
fn compiled_expressions_agree_with_evaluation() {
    for text in CASES {
        let mut scope = Scope::new();
        let e = arith::parse_in(text, &mut scope).unwrap();
        let vars: Vec<Var> = ["x", "y", "z"]
            .iter()
            .map(|n| scope.get(n).cloned().unwrap_or_else(|| Var::new(*n)))
            .collect();
        let p = Compiled::new(&e, &vars).unwrap();
        let mut stack = Vec::new();
        for x in -4..5 {
            for y in -4..5 {
                for z in -4..5 {
                    let point = [x, y, z];
                    let env = |w: &Var| vars.iter().position(|v| v == w).map(|i| point[i]);
                    assert_eq!(
                        p.run(&point, &mut stack),
                        e.eval(&env).ok(),
                        "{text} at {point:?}"
                    );
                }
            }
        }
        let l = LinearForm::of(&e).unwrap();
        let back = l.to_expr();
        for point in [[1, 2, 3], [-3, 4, -2], [0, 0, 2]] {
            let env = |w: &Var| vars.iter().position(|v| v == w).map(|i| point[i]);
            assert_eq!(back.eval(&env).ok(), e.eval(&env).ok(), "{text} => {back}");
        }
    }
}

#[test]
fn unknown_variables_are_an_error() {
    let (e, _) = arith::parse_with_scope("x + y").unwrap();
    assert!(Compiled::new(&e, &[]).is_err());
}

#[test]
fn a_long_chain_compiles_and_runs_without_recursion() {
    std::thread::Builder::new()
        .stack_size(8 << 20)
        .spawn(|| {
            let x = Var::new("x");
            let mut e = x.expr();
            for i in 1..50_000 {
                e = arith::Expr::add(e, arith::Expr::mul(x.expr(), arith::Expr::int(i % 3)));
            }
            let p = Compiled::new(&e, std::slice::from_ref(&x)).unwrap();
            assert_eq!(
                p.eval(&[2]),
                Some(2 * (1 + (1..50_000).map(|i| i % 3).sum::<i64>()))
            );
            let l = LinearForm::of(&e).unwrap();
            assert_eq!(
                l.coeff_of(&x.expr()),
                1 + (1..50_000).map(|i| i % 3).sum::<i64>()
            );
        })
        .unwrap()
        .join()
        .unwrap();
}

/// `run_checked` says why there is no value, as `Expr::eval` does, and an
/// undefined branch that is not chosen is no fault.
#[test]
fn run_checked_names_the_fault() {
    use arith::Undefined;
    let mut scope = Scope::new();
    let cases = [
        ("x // y", [1, 0], Err(Undefined::DivisionByZero)),
        ("x % y", [1, 0], Err(Undefined::DivisionByZero)),
        ("x * y", [i64::MAX, 2], Err(Undefined::Overflow)),
        ("x // y", [i64::MIN, -1], Err(Undefined::Overflow)),
        ("select(y == 0, 0, x // y)", [1, 0], Ok(0)),
        ("y != 0 and x // y > 0", [1, 0], Ok(0)),
        ("x + y", [2, 3], Ok(5)),
    ];
    for (text, point, want) in cases {
        let e = arith::parse_in(text, &mut scope).unwrap();
        let vars = [
            scope.get("x").unwrap().clone(),
            scope.get("y").unwrap().clone(),
        ];
        let p = Compiled::new(&e, &vars).unwrap();
        let mut stack = Vec::new();
        assert_eq!(
            p.run_checked(&point, &mut stack),
            want,
            "{text} at {point:?}"
        );
        assert_eq!(
            p.run_checked(&point[..1], &mut stack),
            Err(Undefined::MissingVariable),
            "{text}"
        );
    }
    // Positions from a lookup, as an interpreter's slots give them.
    let e = arith::parse_in("x - y", &mut scope).unwrap();
    let (x, y) = (
        scope.get("x").unwrap().clone(),
        scope.get("y").unwrap().clone(),
    );
    let p = Compiled::with_positions(&e, &mut |v| Some(if *v == x { 2 } else { 0 })).unwrap();
    assert_eq!(p.eval(&[10, 0, 3]), Some(-7));
    assert!(Compiled::with_positions(&e, &mut |v| (*v == y).then_some(0)).is_err());
}
