//! The printer against the IR printed in seed 000, and its other forms.

mod common;

use arith::{Expr, Range, Var};
use insta::assert_snapshot;
use tir::{AccessStyle, Buffer, DataType, Printer, Stmt, Value};

#[test]
fn seed_ex6_tvm_lowering() {
    let (f, ..) = common::ex6_tvm();
    assert_snapshot!(f.to_string(), @r###"
    // attr [B] storage_scope = "global"
    allocate B[float32 * 16]
    produce C {
      for (ci.cj.fused.outer, 0, 4) {
        produce B {
          for (bi, 0, 4) {
            for (bj, 0, 4) {
              B[((bi*4) + bj)] = (A[((bi*4) + bj)] + 2.000000f)
            }
          }
        }
        for (ci.cj.fused.inner, 0, 4) {
          C[((ci.cj.fused.outer*4) + ci.cj.fused.inner)] = (B[((ci.cj.fused.outer*4) + ci.cj.fused.inner)]*3.000000f)
        }
      }
    }
    "###);
}

#[test]
fn seed_ex6_rows() {
    let (f, ..) = common::ex6_rows();
    assert_snapshot!(f.to_string(), @r###"
    // attr [B] storage_scope = "global"
    allocate B[float32 * 4]
    produce C {
      for (ci, 0, 4) {
        produce B {
          for (bj, 0, 4) {
            B[bj] = (A[((ci*4) + bj)] + 2.000000f)
          }
        }
        for (cj, 0, 4) {
          C[((ci*4) + cj)] = (B[cj]*3.000000f)
        }
      }
    }
    "###);
}

#[test]
fn seed_ex4_in_call_style() {
    let (f, _) = common::ex4();
    let text = Printer::new().style(AccessStyle::Call).func(&f);
    assert_snapshot!(text, @r###"
    realize D([0, 4], [0, 5], [0, 16]) {
      produce D {
        for (di, 0, 4) {
          for (dj, 0, 5) {
            for (dk, 0, 16) {
              realize C([dj, 1], [dk, 1]) {
                produce C {
                  for (i, 0, 1) {
                    for (j, 0, 1) {
                      C((i + dj), (j + dk)) =5
                    }
                  }
                }
                D(di, dj, dk) =(C(dj, dk)*2)
              }
            }
          }
        }
      }
    }
    "###);
}

#[test]
fn seed_ex4_in_subscript_style() {
    let (f, _) = common::ex4();
    let text = f.to_string();
    assert!(text.contains("C[(i + dj), (j + dk)] = 5\n"), "{text}");
    assert!(text.contains("D[di, dj, dk] = (C[dj, dk]*2)\n"), "{text}");
}

#[test]
fn seed_chain_with_trivial_loops() {
    let (f, _) = common::chain();
    assert_snapshot!(f.to_string(), @r###"
    // attr [D] storage_scope = "global"
    allocate D[int32 * 1]
    // attr [C] storage_scope = "global"
    allocate C[int32 * 1]
    produce E {
      for (ei, 0, 5) {
        for (ej, 0, 16) {
          produce D {
            for (di, 0, 1) {
              for (dj, 0, 1) {
                produce C {
                  for (ci, 0, 1) {
                    for (cj, 0, 1) {
                      C[(ci + cj)] = 5
                    }
                  }
                }
                D[(di + dj)] = (C[(di + dj)]*2)
              }
            }
          }
          E[((ei*16) + ej)] = (D[0]*4)
        }
      }
    }
    "###);
}

#[test]
fn guards_lets_and_symbolic_extents() {
    // A split of a symbolic extent n by 16 with TVM's guard, and the
    // tighter inner extent min(16, n - xo*16).
    let n = Var::new("n");
    let a = Buffer::new("A", DataType::Float32, [n.expr()]);
    let b = Buffer::new("B", DataType::Float32, [n.expr()]);
    let (xo, xi, x) = (Var::new("x.outer"), Var::new("x.inner"), Var::new("x"));
    let idx = xo.expr() * 16 + xi.expr();
    let guarded = Stmt::if_then(
        Expr::lt(idx.clone(), n.expr()),
        Stmt::store(&b, [idx.clone()], Value::load(&a, [idx.clone()])),
    );
    let tight = Stmt::for_loop(
        &xi,
        0,
        Expr::min(Expr::int(16), n.expr() - xo.expr() * 16),
        Stmt::let_stmt(
            &x,
            idx,
            Stmt::store(&b, [x.expr()], -Value::load(&a, [x.expr()])),
        ),
    );
    let s = Stmt::for_loop(
        &xo,
        0,
        Expr::floor_div(n.expr() + 15, Expr::int(16)),
        Stmt::seq([Stmt::for_range(&xi, 0, 16, guarded), tight]),
    );
    assert_snapshot!(s.to_string(), @r###"
    for (x.outer, 0, floordiv((n + 15), 16)) {
      for (x.inner, 0, 16) {
        if ((((x.outer*16) + x.inner) < n)) {
          B[((x.outer*16) + x.inner)] = A[((x.outer*16) + x.inner)]
        }
      }
      for (x.inner, 0, min(16, (n - (x.outer*16)))) {
        let x = ((x.outer*16) + x.inner)
        B[x] = (-A[x])
      }
    }
    "###);
}

#[test]
fn values_if_else_and_realize_regions() {
    let i = Var::new("i");
    let a = Buffer::new("A", DataType::Float32, [8i64]);
    let t = Buffer::new("T", DataType::Int32, [8i64]);
    let o = Buffer::new("O", DataType::Float64, [8i64]);
    let relu = Value::select(
        Value::cmp(
            arith::CmpOp::Gt,
            Value::load(&a, [i.expr()]),
            Value::f32(0.0),
        ),
        Value::load(&a, [i.expr()]),
        Value::f32(0.0),
    );
    let body = Stmt::seq([
        Stmt::store(&t, [i.expr()], Value::cast(DataType::Int32, relu)),
        Stmt::if_then_else(
            Value::and(
                Value::index(Expr::ge(i.expr(), Expr::int(2))),
                !(Value::index(Expr::eq(
                    Expr::floor_mod(i.expr(), Expr::int(2)),
                    Expr::int(0),
                ))),
            ),
            Stmt::store(
                &o,
                [i.expr()],
                Value::binary(
                    tir::BinOp::Div,
                    Value::cast(DataType::Float64, Value::load(&t, [i.expr()])),
                    Value::f64(3.0),
                ),
            ),
            Stmt::store(
                &o,
                [i.expr()],
                Value::max(Value::index(i.expr()), Value::Int(7, DataType::Int64)),
            ),
        ),
    ]);
    let s = Stmt::realize(&t, vec![Range::new(i.expr(), Expr::int(1))], body);
    assert_snapshot!(s.to_string(), @r###"
    realize T([i, 1]) {
      T[i] = int32(select((A[i] > 0.000000f), A[i], 0.000000f))
      if (((i >= 2) && !(floormod(i, 2) == 0))) {
        O[i] = (float64(T[i])/3.000000)
      } else {
        O[i] = max(i, (int64)7)
      }
    }
    "###);
}

#[test]
fn float_constants_keep_small_and_large_values_visible() {
    assert_eq!(Value::f32(0.5).to_string(), "0.500000f");
    assert_eq!(Value::f32(-2.0).to_string(), "-2.000000f");
    // Beyond fixed notation, as C++ streams print TVM's float immediates:
    // six significant digits, a signed exponent of at least two digits.
    assert_eq!(Value::f32(1e-7).to_string(), "1e-07f");
    assert_eq!(Value::f64(1e20).to_string(), "1e+20");
    assert_eq!(Value::f64(1.25e-300).to_string(), "1.25e-300");
    assert_eq!(Value::f32(f64::from(f32::MIN)).to_string(), "-3.40282e+38f");
    assert_eq!(Value::f32(f64::from(f32::MAX)).to_string(), "3.40282e+38f");
    assert_eq!(Value::i32(-3).to_string(), "-3");
}

#[test]
fn one_line_headers_for_messages() {
    let (f, ..) = common::ex6_tvm();
    let mut headers = Vec::new();
    f.body
        .visit(&mut |s| headers.push(Printer::new().header(s)));
    assert_eq!(headers[0], "allocate B[float32 * 16]");
    assert_eq!(headers[2], "for (ci.cj.fused.outer, 0, 4)");
    assert!(headers.contains(&"B[((bi*4) + bj)] = (A[((bi*4) + bj)] + 2.000000f)".to_string()));
}
