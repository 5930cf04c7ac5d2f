//! Programs printed in seed 000 (TVM InferBound), rebuilt by hand.
#![allow(dead_code)]

use arith::{Expr, Range, Var};
use tir::{Buffer, DataType, PrimFunc, Stmt, Value};

/// `B[((bi*4) + bj)]`-style flat index of a row of width `w`.
pub fn flat(row: &Var, w: i64, col: &Var) -> Expr {
    row.expr() * w + col.expr()
}

/// Seed Ex. 6 as TVM lowers it: all 16 elements of B recomputed in every
/// iteration of C's fused outer loop.
pub fn ex6_tvm() -> (PrimFunc, Buffer, Buffer) {
    let a = Buffer::new("A", DataType::Float32, [16i64]);
    let c = Buffer::new("C", DataType::Float32, [16i64]);
    let b = Buffer::new("B", DataType::Float32, [16i64]);
    let (bi, bj) = (Var::new("bi"), Var::new("bj"));
    let (xo, xi) = (Var::new("ci.cj.fused.outer"), Var::new("ci.cj.fused.inner"));
    let produce_b = Stmt::produce(
        "B",
        Stmt::for_range(
            &bi,
            0,
            4,
            Stmt::for_range(
                &bj,
                0,
                4,
                Stmt::store(
                    &b,
                    [flat(&bi, 4, &bj)],
                    Value::load(&a, [flat(&bi, 4, &bj)]) + Value::f32(2.0),
                ),
            ),
        ),
    );
    let consume = Stmt::for_range(
        &xi,
        0,
        4,
        Stmt::store(
            &c,
            [flat(&xo, 4, &xi)],
            Value::load(&b, [flat(&xo, 4, &xi)]) * Value::f32(3.0),
        ),
    );
    let body = Stmt::allocate(
        &b,
        vec![Expr::int(16)],
        Stmt::produce(
            "C",
            Stmt::for_range(&xo, 0, 4, Stmt::seq([produce_b, consume])),
        ),
    );
    (PrimFunc::new("ex6", vec![a.clone(), c.clone()], body), a, c)
}

/// Seed Ex. 6 without fuse and split, B computed at `ci`: one row of B per
/// iteration.
pub fn ex6_rows() -> (PrimFunc, Buffer, Buffer) {
    let a = Buffer::new("A", DataType::Float32, [16i64]);
    let c = Buffer::new("C", DataType::Float32, [16i64]);
    let b = Buffer::new("B", DataType::Float32, [4i64]);
    let (ci, cj, bj) = (Var::new("ci"), Var::new("cj"), Var::new("bj"));
    let produce_b = Stmt::produce(
        "B",
        Stmt::for_range(
            &bj,
            0,
            4,
            Stmt::store(
                &b,
                [bj.expr()],
                Value::load(&a, [flat(&ci, 4, &bj)]) + Value::f32(2.0),
            ),
        ),
    );
    let consume = Stmt::for_range(
        &cj,
        0,
        4,
        Stmt::store(
            &c,
            [flat(&ci, 4, &cj)],
            Value::load(&b, [cj.expr()]) * Value::f32(3.0),
        ),
    );
    let body = Stmt::allocate(
        &b,
        vec![Expr::int(4)],
        Stmt::produce(
            "C",
            Stmt::for_range(&ci, 0, 4, Stmt::seq([produce_b, consume])),
        ),
    );
    (
        PrimFunc::new("ex6_rows", vec![a.clone(), c.clone()], body),
        a,
        c,
    )
}

/// Seed Ex. 4 after ScheduleOps: `realize C([dj, 1], [dk, 1])` inside D's
/// three loops, accesses in absolute indices.
pub fn ex4() -> (PrimFunc, Buffer) {
    let d = Buffer::new("D", DataType::Int32, [4i64, 5, 16]);
    let c = Buffer::new("C", DataType::Int32, [5i64, 16]);
    let (di, dj, dk, i, j) = (
        Var::new("di"),
        Var::new("dj"),
        Var::new("dk"),
        Var::new("i"),
        Var::new("j"),
    );
    let produce_c = Stmt::produce(
        "C",
        Stmt::for_range(
            &i,
            0,
            1,
            Stmt::for_range(
                &j,
                0,
                1,
                Stmt::store(
                    &c,
                    [i.expr() + dj.expr(), j.expr() + dk.expr()],
                    Value::i32(5),
                ),
            ),
        ),
    );
    let store_d = Stmt::store(
        &d,
        [di.expr(), dj.expr(), dk.expr()],
        Value::load(&c, [dj.expr(), dk.expr()]) * Value::i32(2),
    );
    let realize_c = Stmt::realize(
        &c,
        vec![
            Range::new(dj.expr(), Expr::int(1)),
            Range::new(dk.expr(), Expr::int(1)),
        ],
        Stmt::seq([produce_c, store_d]),
    );
    let loops = Stmt::for_range(
        &di,
        0,
        4,
        Stmt::for_range(&dj, 0, 5, Stmt::for_range(&dk, 0, 16, realize_c)),
    );
    let region = vec![
        Range::from_extent(Expr::int(4)),
        Range::from_extent(Expr::int(5)),
        Range::from_extent(Expr::int(16)),
    ];
    let body = Stmt::realize(&d, region, Stmt::produce("D", loops));
    (PrimFunc::new("ex4", vec![d.clone()], body), d)
}

/// The seed's C -> D -> E chain, C at D's `dj`, D at E's `ej`, with
/// trivial loops kept.
pub fn chain() -> (PrimFunc, Buffer) {
    let e = Buffer::new("E", DataType::Int32, [80i64]);
    let d = Buffer::new("D", DataType::Int32, [1i64]);
    let c = Buffer::new("C", DataType::Int32, [1i64]);
    let [ei, ej, di, dj, ci, cj] = ["ei", "ej", "di", "dj", "ci", "cj"].map(Var::new);
    let produce_c = Stmt::produce(
        "C",
        Stmt::for_range(
            &ci,
            0,
            1,
            Stmt::for_range(
                &cj,
                0,
                1,
                Stmt::store(&c, [ci.expr() + cj.expr()], Value::i32(5)),
            ),
        ),
    );
    let store_d = Stmt::store(
        &d,
        [di.expr() + dj.expr()],
        Value::load(&c, [di.expr() + dj.expr()]) * Value::i32(2),
    );
    let produce_d = Stmt::produce(
        "D",
        Stmt::for_range(
            &di,
            0,
            1,
            Stmt::for_range(&dj, 0, 1, Stmt::seq([produce_c, store_d])),
        ),
    );
    let store_e = Stmt::store(
        &e,
        [flat(&ei, 16, &ej)],
        Value::load(&d, [Expr::int(0)]) * Value::i32(4),
    );
    let body = Stmt::produce(
        "E",
        Stmt::for_range(
            &ei,
            0,
            5,
            Stmt::for_range(&ej, 0, 16, Stmt::seq([produce_d, store_e])),
        ),
    );
    let body = Stmt::allocate(
        &d,
        vec![Expr::int(1)],
        Stmt::allocate(&c, vec![Expr::int(1)], body),
    );
    (PrimFunc::new("chain", vec![e.clone()], body), e)
}
