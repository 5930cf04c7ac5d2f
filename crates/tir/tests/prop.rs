//! Property tests: random small loop nests against a direct Rust
//! simulation. Values must agree, every out-of-bounds, out-of-region or
//! uninitialized access must be reported (the first one as the error, all of
//! them when keeping going), and nothing may panic.

use arith::{Analyzer, Expr, Range, Var};
use proptest::collection::vec;
use proptest::prelude::*;
use std::collections::HashMap;
use tir::{
    AccessKind, Buffer, DataType, Interpreter, PrimFunc, Problem, RunError, RunResult, Stmt,
    Tensor, Value,
};

/// `c + k[0]*v0 + k[1]*v1 + k[2]*v2`, over the loops that exist.
#[derive(Clone, Debug)]
struct Affine {
    c: i64,
    k: [i64; 3],
}

impl Affine {
    fn expr(&self, vars: &[Var]) -> Expr {
        let mut e = Expr::int(self.c);
        for (v, &k) in vars.iter().zip(&self.k) {
            if k != 0 {
                e = e + v.expr() * k;
            }
        }
        e
    }

    fn eval(&self, point: &[i64]) -> i64 {
        self.c + point.iter().zip(&self.k).map(|(x, k)| x * k).sum::<i64>()
    }
}

fn affine() -> impl Strategy<Value = Affine> {
    (-3i64..=3, [-2i64..=2, -2i64..=2, -2i64..=2]).prop_map(|(c, k)| Affine { c, k })
}

/// `B[store] = A[loads[0]] + A[loads[1]] + ... (+ B[self_read]) + 1` inside
/// up to three nested loops.
#[derive(Clone, Debug)]
struct Nest {
    loops: Vec<(i64, i64)>,
    a_shape: Vec<usize>,
    b_shape: Vec<usize>,
    store: [Affine; 2],
    loads: Vec<[Affine; 2]>,
    self_read: Option<[Affine; 2]>,
    a_values: Vec<i8>,
}

fn nest() -> impl Strategy<Value = Nest> {
    (
        vec(
            (-2i64..=2, prop_oneof![1 => Just(0i64), 6 => 1i64..=4]),
            1..=3,
        ),
        vec(1usize..=5, 1..=2),
        vec(1usize..=5, 1..=2),
        [affine(), affine()],
        vec([affine(), affine()], 1..=2),
        proptest::option::weighted(0.3, [affine(), affine()]),
        vec(any::<i8>(), 25),
        any::<bool>(),
    )
        .prop_map(
            |(loops, a_shape, b_shape, store, loads, self_read, a_values, fitted)| {
                let mut n = Nest {
                    loops,
                    a_shape,
                    b_shape,
                    store,
                    loads,
                    self_read,
                    a_values,
                };
                if fitted {
                    fit(&mut n);
                }
                n
            },
        )
}

/// The smallest and largest value of `aff` over the loop box, if the box
/// has points.
fn span(aff: &Affine, loops: &[(i64, i64)]) -> Option<(i64, i64)> {
    let (mut lo, mut hi) = (aff.c, aff.c);
    for (&k, &(min, extent)) in aff.k.iter().zip(loops) {
        if extent <= 0 {
            return None;
        }
        let (a, b) = (k * min, k * (min + extent - 1));
        lo += a.min(b);
        hi += a.max(b);
    }
    Some((lo, hi))
}

/// Shifts every index so that it starts at 0 over the loop box and grows
/// each shape to cover every index, so that most accesses are valid: random
/// nests alone almost never run a valid iteration.
fn fit(n: &mut Nest) {
    let loops = n.loops.clone();
    let shift = |aff: &mut Affine, dim: &mut usize| {
        if let Some((lo, hi)) = span(aff, &loops) {
            aff.c -= lo;
            *dim = (*dim).max((hi - lo + 1) as usize);
        }
    };
    let (a_nd, b_nd) = (n.a_shape.len(), n.b_shape.len());
    for l in &mut n.loads {
        for (aff, dim) in l[..a_nd].iter_mut().zip(&mut n.a_shape) {
            shift(aff, dim);
        }
    }
    for (aff, dim) in n.store[..b_nd].iter_mut().zip(&mut n.b_shape) {
        shift(aff, dim);
    }
    if let Some(r) = &mut n.self_read {
        for (aff, dim) in r[..b_nd].iter_mut().zip(&mut n.b_shape) {
            shift(aff, dim);
        }
    }
}

/// One simulated buffer: shape, accessible region, values, and which
/// stores are still unread.
struct Mem {
    name: &'static str,
    shape: Vec<i64>,
    region: Vec<(i64, i64)>,
    data: HashMap<Vec<i64>, f64>,
    /// Elements stored and not read since.
    unread: std::collections::HashSet<Vec<i64>>,
    /// Stores whose value was overwritten before any read.
    wasted: u64,
}

/// An expected violation: kind, buffer, indices, problem.
type Expected = (AccessKind, &'static str, Vec<i64>, Problem);

impl Mem {
    fn new(name: &'static str, shape: &[usize]) -> Mem {
        let shape: Vec<i64> = shape.iter().map(|&d| d as i64).collect();
        let region = shape.iter().map(|&d| (0, d)).collect();
        Mem {
            name,
            shape,
            region,
            data: HashMap::new(),
            unread: Default::default(),
            wasted: 0,
        }
    }

    fn check(&self, kind: AccessKind, ix: &[i64]) -> Option<Expected> {
        let v = |p| Some((kind, self.name, ix.to_vec(), p));
        if ix.iter().zip(&self.shape).any(|(&i, &n)| i < 0 || i >= n) {
            return v(Problem::OutsideShape {
                shape: self.shape.clone(),
            });
        }
        if ix
            .iter()
            .zip(&self.region)
            .any(|(&i, &(m, e))| i < m || i >= m + e)
        {
            return v(Problem::OutsideRegion {
                min: self.region.iter().map(|r| r.0).collect(),
                extent: self.region.iter().map(|r| r.1).collect(),
            });
        }
        if kind == AccessKind::Load && !self.data.contains_key(ix) {
            return v(Problem::Uninitialized);
        }
        None
    }

    /// A load as the keep-going interpreter does it: zero when invalid.
    fn load(&mut self, ix: &[i64], log: &mut Vec<Expected>) -> f64 {
        match self.check(AccessKind::Load, ix) {
            Some(v) => {
                log.push(v);
                0.0
            }
            None => {
                self.unread.remove(ix);
                self.data[ix]
            }
        }
    }

    fn store(&mut self, ix: &[i64], x: f64, log: &mut Vec<Expected>) {
        match self.check(AccessKind::Store, ix) {
            Some(v) => log.push(v),
            None => {
                self.data.insert(ix.to_vec(), x);
                if !self.unread.insert(ix.to_vec()) {
                    self.wasted += 1;
                }
            }
        }
    }

    fn dense(&self) -> Vec<f64> {
        let t = Tensor::from_fn(
            &self.shape.iter().map(|&d| d as usize).collect::<Vec<_>>(),
            |ix| {
                let ix: Vec<i64> = ix.iter().map(|&i| i as i64).collect();
                self.data.get(&ix).copied().unwrap_or(0.0)
            },
        );
        t.data().to_vec()
    }
}

/// Every point of the nest, outermost loop first.
fn points(loops: &[(i64, i64)]) -> Vec<Vec<i64>> {
    let mut out = vec![Vec::new()];
    for &(min, extent) in loops {
        out = out
            .into_iter()
            .flat_map(|p| (min..min + extent).map(move |x| [p.clone(), vec![x]].concat()))
            .collect();
    }
    out
}

fn build(n: &Nest) -> (PrimFunc, Buffer, Buffer, Tensor) {
    let a = Buffer::new("A", DataType::Float32, n.a_shape.iter().map(|&d| d as i64));
    let b = Buffer::new("B", DataType::Float32, n.b_shape.iter().map(|&d| d as i64));
    let vars: Vec<Var> = (0..n.loops.len())
        .map(|k| Var::new(format!("i{k}")))
        .collect();
    let idx = |aff: &[Affine; 2], ndim: usize| -> Vec<Expr> {
        aff[..ndim].iter().map(|x| x.expr(&vars)).collect()
    };
    let mut value = Value::f32(1.0);
    for l in &n.loads {
        value = value + Value::load(&a, idx(l, a.ndim()));
    }
    if let Some(r) = &n.self_read {
        value = value + Value::load(&b, idx(r, b.ndim()));
    }
    let mut body = Stmt::store(&b, idx(&n.store, b.ndim()), value);
    for (v, &(min, extent)) in vars.iter().zip(&n.loops).rev() {
        body = Stmt::for_loop(v, min, extent, body);
    }
    let count: usize = n.a_shape.iter().product();
    let values = n
        .a_values
        .iter()
        .cycle()
        .take(count)
        .map(|&x| x as f64)
        .collect();
    let input = Tensor::new(n.a_shape.clone(), values).unwrap();
    (
        PrimFunc::new("nest", vec![a.clone(), b.clone()], body),
        a,
        b,
        input,
    )
}

/// Runs the nest directly, keeping going past violations.
fn simulate(n: &Nest, input: &Tensor) -> (Mem, Vec<Expected>, u64) {
    let mut a = Mem::new("A", &n.a_shape);
    Tensor::from_fn(&n.a_shape, |ix| {
        let x = input.get(ix).unwrap();
        a.data.insert(ix.iter().map(|&i| i as i64).collect(), x);
        x
    });
    let mut b = Mem::new("B", &n.b_shape);
    let mut log = Vec::new();
    let pts = points(&n.loops);
    for p in &pts {
        let at = |aff: &[Affine; 2], ndim: usize| -> Vec<i64> {
            aff[..ndim].iter().map(|x| x.eval(p)).collect()
        };
        let mut x = 1.0;
        for l in &n.loads {
            x += a.load(&at(l, a.shape.len()), &mut log);
        }
        if let Some(r) = &n.self_read {
            x += b.load(&at(r, b.shape.len()), &mut log);
        }
        let s = at(&n.store, b.shape.len());
        b.store(&s, x, &mut log);
    }
    (b, log, pts.len() as u64)
}

/// Flattens and simplifies `f`, runs it on `inputs` reshaped, and checks
/// that it computes what the logical run `logical` did.
fn check_flattened(
    f: &PrimFunc,
    inputs: &HashMap<Buffer, Tensor>,
    logical: &RunResult,
) -> Result<(), TestCaseError> {
    let flat = tir::flatten(f).map_err(|e| TestCaseError::fail(e.to_string()))?;
    let body = tir::simplify(&flat.func.body, &Analyzer::new()).unwrap();
    let g = PrimFunc::new("flat", flat.func.params.clone(), body);
    let reshaped = inputs
        .iter()
        .map(|(b, t)| {
            (
                flat.physical(b).unwrap().clone(),
                t.reshape(vec![t.data().len()]).unwrap(),
            )
        })
        .collect::<HashMap<_, _>>();
    let physical = tir::run(&g, &reshaped, &HashMap::new())
        .map_err(|e| TestCaseError::fail(format!("flattened program failed: {e}\n{g}")))?;
    for p in &f.params {
        prop_assert_eq!(
            logical.tensor(p).unwrap().data(),
            physical.tensor(flat.physical(p).unwrap()).unwrap().data()
        );
    }
    prop_assert_eq!(logical.stage_runs(), physical.stage_runs());
    prop_assert_eq!(logical.unused_stores(), physical.unused_stores());

    // Lifting the allocations out of the loops changes nothing for a
    // program that reads only what it wrote in the same iteration.
    let hoisted = PrimFunc::new("hoisted", g.params.clone(), tir::hoist_allocations(&g.body));
    let lifted = tir::run(&hoisted, &reshaped, &HashMap::new())
        .map_err(|e| TestCaseError::fail(format!("hoisted program failed: {e}\n{hoisted}")))?;
    for p in &g.params {
        prop_assert_eq!(
            physical.tensor(p).unwrap().data(),
            lifted.tensor(p).unwrap().data()
        );
    }
    prop_assert_eq!(physical.stage_runs(), lifted.stage_runs());
    prop_assert_eq!(physical.unused_stores(), lifted.unused_stores());
    Ok(())
}

fn check_first_error(err: RunError, expected: &Expected) -> Result<(), TestCaseError> {
    let RunError::Access(v) = err else {
        return Err(TestCaseError::fail(format!(
            "expected an access error, got {err}"
        )));
    };
    prop_assert_eq!(
        (v.kind, v.buffer.as_str(), &v.indices, &v.problem),
        (expected.0, expected.1, &expected.2, &expected.3)
    );
    prop_assert!(!v.stmt.contains('\n'));
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 1000, ..ProptestConfig::default() })]

    #[test]
    fn loop_nests_agree_with_direct_execution(n in nest()) {
        let (f, a, b, input) = build(&n);
        let inputs = HashMap::from([(a, input.clone())]);
        let (mem, log, iterations) = simulate(&n, &input);
        let sizes = HashMap::new();

        match (tir::run(&f, &inputs, &sizes), log.first()) {
            (Ok(out), None) => {
                prop_assert_eq!(out.tensor(&b).unwrap().data(), &mem.dense()[..]);
                prop_assert_eq!(out.unwritten(&b).unwrap(), (mem.dense().len() - mem.data.len()) as u64);
                prop_assert_eq!(out.runs("B"), iterations);
                check_flattened(&f, &inputs, &out)?;
            }
            (Err(err), Some(first)) => check_first_error(err, first)?,
            (Ok(_), Some(first)) => return Err(TestCaseError::fail(format!("missed violation {first:?}"))),
            (Err(err), None) => return Err(TestCaseError::fail(format!("unexpected error {err}"))),
        }

        let out = Interpreter::new().keep_going(true).run(&f, &inputs, &sizes).unwrap();
        prop_assert_eq!(out.violation_count(), log.len() as u64);
        prop_assert_eq!(out.tensor(&b).unwrap().data(), &mem.dense()[..]);
        prop_assert_eq!(out.unused("B"), mem.wasted);
        for (v, e) in out.violations().iter().zip(&log) {
            prop_assert_eq!((v.kind, v.buffer.as_str(), &v.indices, &v.problem), (e.0, e.1, &e.2, &e.3));
        }
    }
}

/// A producer computed at a consumer's outer loop, as `compute_at` lowers
/// it, with random region, producer range and consumer offset:
///
/// ```text
/// for (xo, 0, outer) {
///   realize T([xo*f + lo, ext]) {
///     for (t, 0, pe) { T[xo*f + t + ps] = A[xo*f + t + ps] }
///     for (xi, 0, f) { C[xo*f + xi] = T[xo*f + xi + cs]*2 }
///   }
/// }
/// ```
#[derive(Clone, Debug)]
struct Attached {
    outer: i64,
    f: i64,
    lo: i64,
    ext: i64,
    pe: i64,
    ps: i64,
    cs: i64,
}

fn attached() -> impl Strategy<Value = Attached> {
    (1i64..=3, 1i64..=4).prop_flat_map(|(outer, f)| {
        (
            // Mostly the exact choice, so that a quarter of the programs are valid.
            prop_oneof![3 => Just(0i64), 1 => -1i64..=1],
            prop_oneof![3 => Just(f), 1 => 0..=f + 1],
            prop_oneof![3 => Just(f), 1 => 0..=f + 1],
            prop_oneof![3 => Just(0i64), 1 => -1i64..=1],
            prop_oneof![3 => Just(0i64), 1 => -1i64..=1],
        )
            .prop_map(move |(lo, ext, pe, ps, cs)| Attached {
                outer,
                f,
                lo,
                ext,
                pe,
                ps,
                cs,
            })
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 500, ..ProptestConfig::default() })]

    #[test]
    fn realized_regions_are_enforced(p in attached()) {
        let n = p.outer * p.f;
        let a = Buffer::new("A", DataType::Float32, [n]);
        let t = Buffer::new("T", DataType::Float32, [n]);
        let c = Buffer::new("C", DataType::Float32, [n]);
        let [xo, tv, xi] = ["xo", "t", "xi"].map(Var::new);
        let base = || xo.expr() * p.f;
        let pidx = base() + tv.expr() + p.ps;
        let cidx = base() + xi.expr() + p.cs;
        let body = Stmt::seq([
            Stmt::for_range(&tv, 0, p.pe, Stmt::store(&t, [pidx.clone()], Value::load(&a, [pidx]))),
            Stmt::for_range(&xi, 0, p.f, Stmt::store(&c, [base() + xi.expr()], Value::load(&t, [cidx]) * Value::f32(2.0))),
        ]);
        let region = vec![Range::new(base() + p.lo, Expr::int(p.ext))];
        let f = PrimFunc::new("attached", vec![a.clone(), c.clone()], Stmt::for_range(&xo, 0, p.outer, Stmt::realize(&t, region, body)));
        let input = Tensor::from_fn(&[n as usize], |ix| ix[0] as f64 + 1.0);

        // Direct simulation.
        let mut am = Mem::new("A", &[n as usize]);
        for i in 0..n {
            am.data.insert(vec![i], i as f64 + 1.0);
        }
        let mut cm = Mem::new("C", &[n as usize]);
        let mut log = Vec::new();
        let mut t_runs = 0;
        let mut t_wasted = 0;
        for o in 0..p.outer {
            let mut tm = Mem::new("T", &[n as usize]);
            tm.region = vec![(o * p.f + p.lo, p.ext)];
            for k in 0..p.pe {
                t_runs += 1;
                let i = o * p.f + k + p.ps;
                let x = am.load(&[i], &mut log);
                tm.store(&[i], x, &mut log);
            }
            for k in 0..p.f {
                let x = tm.load(&[o * p.f + k + p.cs], &mut log);
                cm.store(&[o * p.f + k], x * 2.0, &mut log);
            }
            // Values nobody read die with the realize.
            t_wasted += tm.wasted + tm.unread.len() as u64;
        }

        let inputs = HashMap::from([(a, input)]);
        let sizes = HashMap::new();
        match (tir::run(&f, &inputs, &sizes), log.first()) {
            (Ok(out), None) => {
                prop_assert_eq!(out.tensor(&c).unwrap().data(), &cm.dense()[..]);
                prop_assert_eq!(out.runs("T"), t_runs);
                prop_assert_eq!(out.largest_region(&t), Some(p.ext as u64));
                check_flattened(&f, &inputs, &out)?;
            }
            (Err(err), Some(first)) => check_first_error(err, first)?,
            (Ok(_), Some(first)) => return Err(TestCaseError::fail(format!("missed violation {first:?}"))),
            (Err(err), None) => return Err(TestCaseError::fail(format!("unexpected error {err}"))),
        }
        let out = Interpreter::new().keep_going(true).run(&f, &inputs, &sizes).unwrap();
        prop_assert_eq!(out.violation_count(), log.len() as u64);
        prop_assert_eq!(out.tensor(&c).unwrap().data(), &cm.dense()[..]);
        prop_assert_eq!(out.unused("T"), t_wasted);
        prop_assert_eq!(out.unused("C"), cm.wasted);
    }
}
