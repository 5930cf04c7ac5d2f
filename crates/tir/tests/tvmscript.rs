//! The TVMScript form (`tir::tvmscript`), as TVM v0.19 prints
//! `tvm.lower(...).script()`, on hand-built programs using each construct;
//! and the legacy text of the same constructs.

use arith::{CmpOp, Expr, Range, Var};
use insta::assert_snapshot;
use tir::{
    Buffer, DataType, ForKind, Intrinsic, Pragma, PragmaValue, PrimFunc, Stmt, ThreadLaunch, Value,
};

/// A program with a grid, a thread launch, an allocation that does not end
/// its block, a `let`, both kinds of conditional value, a pragma and each
/// loop kind.
fn program() -> PrimFunc {
    let a = Buffer::new("A", DataType::Float32, [4i64, 8]);
    let b = Buffer::new("B", DataType::Int64, [4i64]);
    let t = Buffer::new("T", DataType::Int32, [8i64]).with_scope("shared");
    let (i, j, k, tx, x) = (
        Var::new("i"),
        Var::new("j.inner"),
        Var::new("k"),
        Var::new("threadIdx.x"),
        Var::new("x"),
    );
    let fill = Stmt::allocate(
        &t,
        vec![Expr::int(8)],
        Stmt::for_range(
            &k,
            0,
            8,
            Stmt::store(&t, [k.expr()], Value::index(k.expr() * 2)),
        ),
    );
    let grid = Stmt::for_range(
        &i,
        0,
        4,
        Stmt::for_range(
            &j,
            0,
            8,
            Stmt::store(
                &a,
                [i.expr(), j.expr()],
                Value::if_then_else(
                    Value::index(Expr::lt(j.expr(), Expr::int(4))),
                    Value::f32(0.5),
                    Value::select(
                        Value::cmp(
                            CmpOp::Gt,
                            Value::load(&a, [i.expr(), j.expr()]),
                            Value::f32(0.0),
                        ),
                        Value::call(Intrinsic::Exp, vec![Value::load(&a, [i.expr(), j.expr()])]),
                        Value::f32(-2.5),
                    ),
                ),
            ),
        ),
    );
    let launch = ThreadLaunch {
        tag: "threadIdx.x".into(),
        dom: None,
    };
    let threads = Stmt::for_kind(
        &tx,
        0,
        4,
        ForKind::Thread(launch),
        Vec::new(),
        Stmt::let_stmt(
            &x,
            tx.expr() + 1,
            Stmt::if_then_else(
                Value::likely(Value::index(Expr::lt(x.expr(), Expr::int(4)))),
                Stmt::store(
                    &b,
                    [tx.expr()],
                    Value::cast(DataType::Int64, Value::index(x.expr())),
                ),
                Stmt::store(&b, [tx.expr()], Value::Int(7, DataType::Int64)),
            ),
        ),
    );
    let pragma = Pragma {
        key: "auto_unroll_max_step".into(),
        value: PragmaValue::Int(16),
        dom: Some(Range::from_extent(Expr::int(4))),
    };
    let kinds = Stmt::for_kind(
        &i,
        0,
        4,
        ForKind::Parallel,
        vec![pragma],
        Stmt::for_kind(
            &j,
            0,
            8,
            ForKind::Vectorized,
            Vec::new(),
            Stmt::for_kind(
                &k,
                0,
                2,
                ForKind::Unrolled,
                Vec::new(),
                Stmt::store(&a, [i.expr(), j.expr()], Value::f32(1e-7)),
            ),
        ),
    );
    PrimFunc::new("f", vec![a, b], Stmt::seq([fill, grid, threads, kinds]))
}

#[test]
fn each_construct_in_tvmscript() {
    assert_snapshot!(tir::tvmscript(&program()).unwrap(), @r###"
    # from tvm.script import ir as I
    # from tvm.script import tir as T

    @I.ir_module
    class Module:
        @T.prim_func
        def main(A: T.Buffer((4, 8), "float32"), B: T.Buffer((4,), "int64")):
            T.func_attr({"from_legacy_te_schedule": T.bool(True), "tir.noalias": T.bool(True)})
            with T.allocate([8], "int32", "shared") as T_1:
                for k in range(8):
                    T_2 = T.Buffer((8,), "int32", data=T_1, scope="shared")
                    T_2[k] = k * 2
            A_1 = T.Buffer((32,), data=A.data)
            for i, j_inner in T.grid(4, 8):
                A_1[i * 8 + j_inner] = T.if_then_else(j_inner < 4, T.float32(0.5), T.Select(A_1[i * 8 + j_inner] > T.float32(0.0), T.exp(A_1[i * 8 + j_inner]), T.float32(-2.5)))
            with T.launch_thread("threadIdx.x", 4) as threadIdx_x:
                x: T.int32 = threadIdx_x + 1
                B_1 = T.Buffer((4,), "int64", data=B.data)
                if T.likely(x < 4):
                    B_1[threadIdx_x] = T.Cast("int64", x)
                else:
                    B_1[threadIdx_x] = T.int64(7)
            T.attr(T.iter_var(i, T.Range(0, 4), "DataPar", ""), "pragma_auto_unroll_max_step", 16)
            for i in T.parallel(4):
                for j_inner in T.vectorized(8):
                    for k in T.unroll(2):
                        A_1[i * 8 + j_inner] = T.float32(9.9999999999999995e-08)
    "###);
}

#[test]
fn each_construct_in_the_legacy_text() {
    assert_snapshot!(program().to_string(), @r###"
    // attr [T] storage_scope = "shared"
    allocate T[int32 * 8]
    for (k, 0, 8) {
      T[k] = (k*2)
    }
    for (i, 0, 4) {
      for (j.inner, 0, 8) {
        A[i, j.inner] = if_then_else((j.inner < 4), 0.500000f, select((A[i, j.inner] > 0.000000f), exp(A[i, j.inner]), -2.500000f))
      }
    }
    // attr [iter_var(threadIdx.x, , threadIdx.x)] thread_extent = 4
    let x = (threadIdx.x + 1)
    if (likely((x < 4))) {
      B[threadIdx.x] = int64(x)
    } else {
      B[threadIdx.x] = (int64)7
    }
    // attr [iter_var(i, range(min=0, ext=4))] pragma_auto_unroll_max_step = 16
    parallel (i, 0, 4) {
      vectorized (j.inner, 0, 8) {
        unrolled (k, 0, 2) {
          A[i, j.inner] = 1e-07f
        }
      }
    }
    "###);
}
