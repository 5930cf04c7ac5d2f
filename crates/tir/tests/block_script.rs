//! The TVMScript text of functions in block form
//! (`tir::block::block_tvmscript`), as TVM v0.19 prints `func.script()` for
//! what `te.create_prim_func` returns, on small hand-built functions.

use arith::{CmpOp, Expr, Range, Var};
use tir::block::{block_tvmscript, Block, BlockFunc, BlockIterVar, BlockStmt, IterKind};
use tir::{Buffer, DataType, ForKind, ThreadLaunch, Value};

fn spatial(v: &Var, extent: i64) -> BlockIterVar {
    BlockIterVar::new(v, Range::from_extent(Expr::int(extent)), IterKind::Spatial)
}

fn reduce(v: &Var, extent: i64) -> BlockIterVar {
    BlockIterVar::new(v, Range::from_extent(Expr::int(extent)), IterKind::Reduce)
}

/// `for x in range(n): for y in range(m): ...` with block variables bound
/// to the loops: what `create_prim_func` builds for a compute.
fn nest(loops: &[(&Var, i64)], inner: BlockStmt) -> BlockStmt {
    loops
        .iter()
        .rev()
        .fold(inner, |body, (v, n)| BlockStmt::for_range(v, *n, body))
}

#[test]
fn elementwise_block_remaps_its_loops() {
    let a = Buffer::new("A", DataType::Float32, [128i64, 128]);
    let b = Buffer::new("B", DataType::Float32, [128i64, 128]);
    let (i, j, vi, vj) = (
        Var::new("i"),
        Var::new("j"),
        Var::new("v_i"),
        Var::new("v_j"),
    );
    let store = BlockStmt::store(
        &b,
        [vi.expr(), vj.expr()],
        Value::load(&a, [vi.expr(), vj.expr()]) * Value::f32(2.0),
    );
    let block = Block::new("B", vec![spatial(&vi, 128), spatial(&vj, 128)], store);
    let body = nest(
        &[(&i, 128), (&j, 128)],
        BlockStmt::realize(vec![i.expr(), j.expr()], block),
    );
    let f = BlockFunc::new("main", vec![a, b], vec![], body).completed();
    assert_eq!(
        block_tvmscript(&f),
        r#"# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((128, 128), "float32"), B: T.Buffer((128, 128), "float32")):
    T.func_attr({"tir.noalias": T.bool(True)})
    # with T.block("root"):
    for i, j in T.grid(128, 128):
        with T.block("B"):
            v_i, v_j = T.axis.remap("SS", [i, j])
            T.reads(A[v_i, v_j])
            T.writes(B[v_i, v_j])
            B[v_i, v_j] = A[v_i, v_j] * T.float32(2.0)
"#
    );
}

#[test]
fn reduction_with_init() {
    let a = Buffer::new("A", DataType::Float32, [128i64, 128]);
    let b = Buffer::new("B", DataType::Float32, [128i64, 128]);
    let c = Buffer::new("C", DataType::Float32, [128i64, 128]);
    let (x, y, k) = (Var::new("x"), Var::new("y"), Var::new("k"));
    let (vx, vy, vk) = (Var::new("v_x"), Var::new("v_y"), Var::new("v_k"));
    let c_at = [vx.expr(), vy.expr()];
    let update = BlockStmt::store(
        &c,
        c_at.clone(),
        Value::load(&c, c_at.clone())
            + Value::load(&a, [vx.expr(), vk.expr()]) * Value::load(&b, [vy.expr(), vk.expr()]),
    );
    let block = Block::new(
        "C",
        vec![spatial(&vx, 128), spatial(&vy, 128), reduce(&vk, 128)],
        update,
    )
    .with_init(BlockStmt::store(&c, c_at, Value::f32(0.0)));
    let body = nest(
        &[(&x, 128), (&y, 128), (&k, 128)],
        BlockStmt::realize(vec![x.expr(), y.expr(), k.expr()], block),
    );
    let f = BlockFunc::new("main", vec![a, b, c], vec![], body).completed();
    assert_eq!(
        block_tvmscript(&f),
        r#"# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((128, 128), "float32"), B: T.Buffer((128, 128), "float32"), C: T.Buffer((128, 128), "float32")):
    T.func_attr({"tir.noalias": T.bool(True)})
    # with T.block("root"):
    for x, y, k in T.grid(128, 128, 128):
        with T.block("C"):
            v_x, v_y, v_k = T.axis.remap("SSR", [x, y, k])
            T.reads(A[v_x, v_k], B[v_y, v_k])
            T.writes(C[v_x, v_y])
            with T.init():
                C[v_x, v_y] = T.float32(0.0)
            C[v_x, v_y] = C[v_x, v_y] + A[v_x, v_k] * B[v_y, v_k]
"#
    );
}

/// Two computes through an intermediate buffer of the root block; the
/// second block's variables take the names the first one released, and
/// an `int32` allocation names its type.
#[test]
fn root_allocations() {
    let a = Buffer::new("A", DataType::Float32, [16i64]);
    let b = Buffer::new("B", DataType::Float32, [16i64]);
    let t = Buffer::new("T", DataType::Int32, [16i64]);
    let c = Buffer::new("C", DataType::Float32, [16i64]);
    let (i, vi) = (Var::new("i"), Var::new("v_i"));
    let (i2, vi2) = (Var::new("i"), Var::new("v_i"));
    let first = Block::new(
        "B",
        vec![spatial(&vi, 16)],
        BlockStmt::seq(vec![
            BlockStmt::store(
                &b,
                [vi.expr()],
                Value::load(&a, [vi.expr()]) + Value::f32(1.0),
            ),
            BlockStmt::store(&t, [vi.expr()], Value::index(vi.expr() * 2)),
        ]),
    );
    let second = Block::new(
        "C",
        vec![spatial(&vi2, 16)],
        BlockStmt::store(
            &c,
            [vi2.expr()],
            Value::load(&b, [vi2.expr()])
                * Value::cast(DataType::Float32, Value::load(&t, [vi2.expr()])),
        ),
    );
    let body = BlockStmt::seq(vec![
        BlockStmt::for_range(&i, 16, BlockStmt::realize(vec![i.expr()], first)),
        BlockStmt::for_range(&i2, 16, BlockStmt::realize(vec![i2.expr()], second)),
    ]);
    let f = BlockFunc::new("main", vec![a, c], vec![b, t], body).completed();
    assert_eq!(
        block_tvmscript(&f),
        r#"# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((16,), "float32"), C: T.Buffer((16,), "float32")):
    T.func_attr({"tir.noalias": T.bool(True)})
    # with T.block("root"):
    B = T.alloc_buffer((16,))
    T_1 = T.alloc_buffer((16,), "int32")
    for i in range(16):
        with T.block("B"):
            v_i = T.axis.spatial(16, i)
            T.reads(A[v_i])
            T.writes(B[v_i], T_1[v_i])
            B[v_i] = A[v_i] + T.float32(1.0)
            T_1[v_i] = v_i * 2
    for i in range(16):
        with T.block("C"):
            v_i = T.axis.spatial(16, i)
            T.reads(B[v_i], T_1[v_i])
            T.writes(C[v_i])
            C[v_i] = B[v_i] * T.Cast("float32", T_1[v_i])
"#
    );
}

/// Bindings that are not the loops themselves: each variable on its own
/// line, a domain not from 0 as `(min, min + extent)`, and a run of
/// remappable ones between them remapped together.
#[test]
fn bindings_that_are_not_a_remap() {
    let a = Buffer::new("A", DataType::Float32, [128i64, 8, 8]);
    let (x, y, z) = (Var::new("x"), Var::new("y"), Var::new("z"));
    let (vx, vy, vz) = (Var::new("v_x"), Var::new("v_y"), Var::new("v_z"));
    let iters = vec![
        spatial(&vx, 128),
        BlockIterVar::new(
            &vy,
            Range::new(Expr::int(0), Expr::int(8)),
            IterKind::Spatial,
        ),
        BlockIterVar::new(
            &vz,
            Range::new(Expr::int(0), Expr::int(8)),
            IterKind::Reduce,
        ),
    ];
    let block = Block::new(
        "A",
        iters,
        BlockStmt::store(&a, [vx.expr(), vy.expr(), vz.expr()], Value::f32(1.0)),
    );
    let body = nest(
        &[(&x, 64), (&y, 8), (&z, 8)],
        BlockStmt::realize(vec![x.expr() * 2 + 1, y.expr(), z.expr()], block),
    );
    let f = BlockFunc::new("main", vec![a.clone()], vec![], body).completed();
    let text = block_tvmscript(&f);
    assert!(
        text.ends_with(
            r#"
    for x, y, z in T.grid(64, 8, 8):
        with T.block("A"):
            v_x = T.axis.spatial(128, x * 2 + 1)
            v_y, v_z = T.axis.remap("SR", [y, z])
            T.reads()
            T.writes(A[v_x, v_y, v_z])
            A[v_x, v_y, v_z] = T.float32(1.0)
"#
        ),
        "{text}"
    );

    // An opaque axis, a domain from 4 and a lone remappable variable.
    let (i, j) = (Var::new("i"), Var::new("j"));
    let (vi, vj) = (Var::new("vi"), Var::new("vj"));
    let iters = vec![
        BlockIterVar::new(
            &vi,
            Range::new(Expr::int(4), Expr::int(16)),
            IterKind::Spatial,
        ),
        BlockIterVar::new(&vj, Range::from_extent(Expr::int(8)), IterKind::Opaque),
    ];
    let b = Buffer::new("B", DataType::Float32, [20i64, 8]);
    let block = Block::new(
        "B",
        iters,
        BlockStmt::store(&b, [vi.expr(), vj.expr()], Value::f32(0.5)),
    );
    let body = BlockStmt::For {
        var: i.clone(),
        min: Expr::int(4),
        extent: Expr::int(16),
        kind: ForKind::Serial,
        body: Box::new(BlockStmt::for_range(
            &j,
            8,
            BlockStmt::realize(vec![i.expr(), j.expr()], block),
        )),
    };
    let f = BlockFunc::new("main", vec![b], vec![], body).completed();
    let text = block_tvmscript(&f);
    assert!(
        text.ends_with(
            r#"
    for i in range(4, 20):
        for j in range(8):
            with T.block("B"):
                vi = T.axis.spatial((4, 20), i)
                vj = T.axis.opaque(8, j)
                T.reads()
                T.writes(B[vi, vj])
                B[vi, vj] = T.float32(0.5)
"#
        ),
        "{text}"
    );
}

/// A split loop whose last iterations are cut off by the block's
/// predicate, other loop kinds, and annotations.
#[test]
fn predicate_and_loop_kinds() {
    let a = Buffer::new("A", DataType::Float32, [10i64]);
    let b = Buffer::new("B", DataType::Float32, [10i64]);
    let (o, n, vi) = (Var::new("i.outer"), Var::new("i.inner"), Var::new("v_i"));
    let at = o.expr() * 4 + n.expr();
    let block = Block {
        annotations: vec![
            ("schedule_rule".into(), "\"None\"".into()),
            ("meta_schedule.unroll".into(), "True".into()),
        ],
        ..Block::new(
            "B",
            vec![spatial(&vi, 10)],
            BlockStmt::store(
                &b,
                [vi.expr()],
                Value::load(&a, [vi.expr()]) - Value::f32(1.5),
            ),
        )
    };
    let realize = BlockStmt::Block(Box::new(tir::block::BlockRealize {
        bindings: vec![at.clone()],
        predicate: Expr::lt(at, Expr::int(10)),
        block,
    }));
    let body = BlockStmt::For {
        var: o.clone(),
        min: Expr::int(0),
        extent: Expr::int(3),
        kind: ForKind::Parallel,
        body: Box::new(BlockStmt::For {
            var: n.clone(),
            min: Expr::int(0),
            extent: Expr::int(4),
            kind: ForKind::Vectorized,
            body: Box::new(realize),
        }),
    };
    let f = BlockFunc::new("main", vec![a, b], vec![], body).completed();
    assert_eq!(
        block_tvmscript(&f),
        r#"# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((10,), "float32"), B: T.Buffer((10,), "float32")):
    T.func_attr({"tir.noalias": T.bool(True)})
    # with T.block("root"):
    for i_outer in T.parallel(3):
        for i_inner in T.vectorized(4):
            with T.block("B"):
                v_i = T.axis.spatial(10, i_outer * 4 + i_inner)
                T.where(i_outer * 4 + i_inner < 10)
                T.reads(A[v_i])
                T.writes(B[v_i])
                T.block_attr({"meta_schedule.unroll": T.bool(True), "schedule_rule": "None"})
                B[v_i] = A[v_i] - T.float32(1.5)
"#
    );

    // Unrolled and thread-bound loops.
    let c = Buffer::new("C", DataType::Int32, [8i64]);
    let (u, t, vc) = (Var::new("u"), Var::new("threadIdx.x"), Var::new("v"));
    let block = Block::new(
        "C",
        vec![spatial(&vc, 8)],
        BlockStmt::store(&c, [vc.expr()], Value::i32(7)),
    );
    let body = BlockStmt::For {
        var: t.clone(),
        min: Expr::int(0),
        extent: Expr::int(2),
        kind: ForKind::Thread(ThreadLaunch {
            tag: "threadIdx.x".into(),
            dom: None,
        }),
        body: Box::new(BlockStmt::For {
            var: u.clone(),
            min: Expr::int(0),
            extent: Expr::int(4),
            kind: ForKind::Unrolled,
            body: Box::new(BlockStmt::realize(vec![t.expr() * 4 + u.expr()], block)),
        }),
    };
    let f = BlockFunc::new("main", vec![c], vec![], body).completed();
    let text = block_tvmscript(&f);
    assert!(
        text.ends_with(
            r#"
    for threadIdx_x in T.thread_binding(2, thread="threadIdx.x"):
        for u in T.unroll(4):
            with T.block("C"):
                v = T.axis.spatial(8, threadIdx_x * 4 + u)
                T.reads()
                T.writes(C[v])
                C[v] = 7
"#
        ),
        "{text}"
    );
}

/// Parameters with variables in their shapes are handles matched in the
/// body, the sizes declared before the first match that uses them.
#[test]
fn symbolic_shapes_match_buffers() {
    let (m, n) = (Var::new("m"), Var::new("n"));
    let a = Buffer::new("A", DataType::Float32, [m.expr(), n.expr()]);
    let b = Buffer::new("B", DataType::Int32, [m.expr(), n.expr()]);
    let s = Buffer::new("S", DataType::Float32, [4i64]);
    let (i, j, vi, vj) = (
        Var::new("i"),
        Var::new("j"),
        Var::new("v_i"),
        Var::new("v_j"),
    );
    let iters = vec![
        BlockIterVar::new(&vi, Range::from_extent(m.expr()), IterKind::Spatial),
        BlockIterVar::new(&vj, Range::from_extent(n.expr()), IterKind::Spatial),
    ];
    let block = Block::new(
        "B",
        iters,
        BlockStmt::store(
            &b,
            [vi.expr(), vj.expr()],
            Value::cast(
                DataType::Int32,
                Value::load(&a, [vi.expr(), vj.expr()]) + Value::load(&s, [Expr::int(0)]),
            ),
        ),
    );
    let body = BlockStmt::for_range(
        &i,
        m.expr(),
        BlockStmt::for_range(
            &j,
            n.expr(),
            BlockStmt::realize(vec![i.expr(), j.expr()], block),
        ),
    );
    let f = BlockFunc::new("main", vec![a, s, b], vec![], body).completed();
    assert_eq!(
        block_tvmscript(&f),
        r#"# from tvm.script import tir as T

@T.prim_func
def main(var_A: T.handle, S: T.Buffer((4,), "float32"), var_B: T.handle):
    T.func_attr({"tir.noalias": T.bool(True)})
    m, n = T.int32(), T.int32()
    A = T.match_buffer(var_A, (m, n))
    B = T.match_buffer(var_B, (m, n), "int32")
    # with T.block("root"):
    for i, j in T.grid(m, n):
        with T.block("B"):
            v_i, v_j = T.axis.remap("SS", [i, j])
            T.reads(A[v_i, v_j], S[0])
            T.writes(B[v_i, v_j])
            B[v_i, v_j] = T.Cast("int32", A[v_i, v_j] + S[0])
"#
    );
}

/// Blocks inside blocks: regions over a range of a loop inside, a block's
/// own allocation, an `if`, names kept apart from the enclosing ones, and
/// the attributes as stored when the function has no `global_symbol`.
#[test]
fn nested_blocks_and_names() {
    let a = Buffer::new("A", DataType::Float32, [4i64, 16]);
    let b = Buffer::new("B", DataType::Float32, [4i64]);
    let tmp = Buffer::new("A", DataType::Float32, [16i64]);
    let (i, k) = (Var::new("i"), Var::new("k"));
    let (vi, vk) = (Var::new("i"), Var::new("k"));
    let inner_block = Block::new(
        "B_update",
        vec![reduce(&vk, 16)],
        BlockStmt::If {
            cond: Value::cmp(
                CmpOp::Gt,
                Value::load(&a, [vi.expr(), vk.expr()]),
                Value::f32(0.0),
            ),
            then_case: Box::new(BlockStmt::store(
                &b,
                [vi.expr()],
                Value::load(&b, [vi.expr()]) + Value::load(&a, [vi.expr(), vk.expr()]),
            )),
            else_case: None,
        },
    );
    let outer_block = Block {
        alloc_buffers: vec![tmp],
        ..Block::new(
            "B",
            vec![spatial(&vi, 4)],
            BlockStmt::seq(vec![
                BlockStmt::store(&b, [vi.expr()], Value::f32(0.0)),
                BlockStmt::for_range(&k, 16, BlockStmt::realize(vec![k.expr()], inner_block)),
            ]),
        )
    };
    let body = BlockStmt::for_range(&i, 4, BlockStmt::realize(vec![i.expr()], outer_block));
    let mut f = BlockFunc::new("f", vec![a, b], vec![], body).completed();
    f.attrs = vec![("tir.noalias".into(), "True".into())];
    assert_eq!(
        block_tvmscript(&f),
        r#"# from tvm.script import tir as T

@T.prim_func(private=True)
def main(A: T.Buffer((4, 16), "float32"), B: T.Buffer((4,), "float32")):
    T.func_attr({"tir.noalias": T.bool(True)})
    # with T.block("root"):
    for i in range(4):
        with T.block("B"):
            i_1 = T.axis.spatial(4, i)
            T.reads(A[i_1, 0:16], B[i_1])
            T.writes(B[i_1])
            A_1 = T.alloc_buffer((16,))
            B[i_1] = T.float32(0.0)
            for k in range(16):
                with T.block("B_update"):
                    k_1 = T.axis.reduce(16, k)
                    T.reads(A[i_1, k_1], B[i_1])
                    T.writes(B[i_1])
                    if A[i_1, k_1] > T.float32(0.0):
                        B[i_1] = B[i_1] + A[i_1, k_1]
"#
    );
}

/// A 0-d buffer is indexed by `()`; a function without blocks or
/// allocations has no root block; a variable no shape defines is declared
/// where its uses meet.
#[test]
fn zero_dim_and_free_variables() {
    let a = Buffer::new("A", DataType::Float32, Vec::<i64>::new());
    let b = Buffer::new("B", DataType::Float32, [8i64]);
    let (i, n) = (Var::new("i"), Var::new("n"));
    let body = BlockStmt::for_range(
        &i,
        8,
        BlockStmt::store(
            &b,
            [i.expr()],
            Value::load(&a, Vec::<Expr>::new())
                + Value::cast(DataType::Float32, Value::index(n.expr())),
        ),
    );
    let f = BlockFunc::new("main", vec![a, b], vec![], body);
    assert_eq!(
        block_tvmscript(&f),
        r#"# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((), "float32"), B: T.Buffer((8,), "float32")):
    T.func_attr({"tir.noalias": T.bool(True)})
    for i in range(8):
        n = T.int32()
        B[i] = A[()] + T.Cast("float32", n)
"#
    );
}

/// `let`s in a block (TVM's `LetStmt`): one ending its scope prints as an
/// annotated assignment followed by its body, one before other statements
/// as `with T.LetStmt(...) as x:`. The block's regions read indices with
/// index-valued `let`s in place (`B[(v + 1) % 4]`, not all of `B`); the
/// lowered program keeps the integer `let` and gives the float one a
/// buffer, and runs; equality matches the variables where they are
/// defined and compares their types.
#[test]
fn lets_print_bound_regions_lower_and_compare() {
    let build = |int_type: DataType, tail: bool| {
        let a = Buffer::new("A", DataType::Float32, [4i64]);
        let b = Buffer::new("B", DataType::Float32, [4i64]);
        let c = Buffer::new("C", DataType::Float32, [4i64]);
        let (i, v, s, j) = (Var::new("i"), Var::new("v"), Var::new("s"), Var::new("j"));
        let twice = Value::load(&a, [v.expr()]) * Value::f32(2.0);
        let next = Expr::floor_mod(Expr::add(v.expr(), Expr::int(1)), Expr::int(4));
        let inner = BlockStmt::let_stmt(
            &j,
            int_type,
            Value::index(next),
            BlockStmt::store(&b, [j.expr()], Value::var(&s, DataType::Float32)),
        );
        let mut body = vec![BlockStmt::let_stmt(&s, DataType::Float32, twice, inner)];
        if tail {
            body.push(BlockStmt::store(&c, [v.expr()], Value::f32(1.0)));
        }
        let block = Block::new("B", vec![spatial(&v, 4)], BlockStmt::seq(body));
        let body = nest(&[(&i, 4)], BlockStmt::realize(vec![i.expr()], block));
        BlockFunc::new("main", vec![a, b, c], vec![], body).completed()
    };
    let f = build(DataType::Int32, false);
    assert_eq!(
        block_tvmscript(&f),
        r#"# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((4,), "float32"), B: T.Buffer((4,), "float32"), C: T.Buffer((4,), "float32")):
    T.func_attr({"tir.noalias": T.bool(True)})
    # with T.block("root"):
    for i in range(4):
        with T.block("B"):
            v = T.axis.spatial(4, i)
            T.reads(A[v])
            T.writes(B[(v + 1) % 4])
            s: T.float32 = A[v] * T.float32(2.0)
            j: T.int32 = (v + 1) % 4
            B[j] = s
"#
    );
    let g = build(DataType::Int32, true);
    let text = block_tvmscript(&g);
    assert!(
        text.contains(
            "            with T.LetStmt(A[v] * T.float32(2.0)) as s:\n                j: T.int32 = (v + 1) % 4\n                B[j] = s\n            C[v] = T.float32(1.0)\n"
        ),
        "{text}"
    );
    // B[(v + 1) % 4] = 2 * A[v].
    let program = tir::block::to_loop_ir(&f);
    let lowered = program.body.to_string();
    assert!(
        lowered.contains("let j = floormod((i + 1), 4)"),
        "{lowered}"
    );
    assert!(lowered.contains("allocate s[float32 * 1]"), "{lowered}");
    let a = tir::Tensor::new(vec![4], vec![1.0, -2.0, 3.5, 0.25]).unwrap();
    let inputs = std::collections::HashMap::from([(program.params[0].clone(), a)]);
    let out = tir::run(&program, &inputs, &std::collections::HashMap::new()).unwrap();
    assert_eq!(
        out.tensor(&program.params[1]).unwrap().data(),
        [0.5, 2.0, -4.0, 7.0]
    );
    // Fresh variables of the same names and types: equal.
    assert_eq!(
        tir::block::structural_diff(&f, &build(DataType::Int32, false)),
        Ok(())
    );
    let e = tir::block::structural_diff(&f, &build(DataType::Int64, false)).unwrap_err();
    assert!(e.contains("is int32 against int64"), "{e}");
}
