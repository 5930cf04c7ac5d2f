//! Substitution of inlined stages into the bodies that read them.
//!
//! A read of an inlined stage is expanded where a stage that is not inlined
//! reads it: the definition with its axes replaced by the indices read,
//! each index simplified under the reader's axes (`(i // 5) * 5 + i % 5` is
//! `i`), as TVM does when it inlines. Reads inside that definition are
//! expanded the same way, on demand, so only the bodies of stages that are
//! not inlined are ever built; and each inlined stage is expanded once per
//! distinct index tuple within one reader, the result shared by every read
//! of it. A chain of `n` inlined stages read at the same indices is thus
//! expanded in `O(n)` into a value of `n` shared nodes.

use std::cell::{OnceCell, RefCell};
use std::collections::HashMap;

use crate::operation::{ComputeOp, OpId, Tensor};
use crate::schedule::{Attach, Stage};
use crate::simp::simp;
use crate::value::Value;
use arith::{Analyzer, Expr};

/// The stages of a schedule with what their inlined reads expand to.
pub(crate) struct Inliner<'a> {
    stages: &'a [Stage],
    index: &'a arith::IdMap<OpId, usize>,
    /// Per stage: its body with inlined reads expanded in its own context,
    /// built only when a gather binds its axes to values.
    own_bodies: Vec<OnceCell<Option<Value>>>,
}

impl<'a> Inliner<'a> {
    pub fn new(stages: &'a [Stage], index: &'a arith::IdMap<OpId, usize>) -> Inliner<'a> {
        Inliner {
            stages,
            index,
            own_bodies: (0..stages.len()).map(|_| OnceCell::new()).collect(),
        }
    }

    /// The body of stage `i` (`None` for placeholders) with every read of an
    /// inlined stage expanded; its own indices stay as written.
    pub fn body(&self, i: usize) -> Option<Value> {
        self.own_bodies[i]
            .get_or_init(|| {
                let c = self.stages[i].op().as_compute()?;
                Some(Reader::new(self, c).expand(&c.body))
            })
            .clone()
    }

    /// The body of output `k` of stage `i` (`None` for placeholders) with
    /// every read of an inlined stage expanded.
    pub fn body_of_output(&self, i: usize, k: usize) -> Option<Value> {
        let op = self.stages[i].op();
        let c = op.as_compute()?;
        Some(Reader::new(self, c).expand(op.body(k)?))
    }

    /// The stage of `t` if it is inlined.
    fn inlined(&self, t: &Tensor) -> Option<usize> {
        let p = self.index[&t.op().id()];
        (self.stages[p].attach() == &Attach::Inline).then_some(p)
    }
}

/// One stage that reads inlined stages: its axes over their ranges (to
/// simplify the indices the inlined definitions receive) and the
/// expansions built so far, per inlined stage and index tuple.
struct Reader<'a, 'b> {
    inliner: &'b Inliner<'a>,
    compute: &'b ComputeOp,
    analyzer: OnceCell<Analyzer>,
    memo: RefCell<HashMap<(usize, Vec<Expr>), Value>>,
}

impl<'a, 'b> Reader<'a, 'b> {
    fn new(inliner: &'b Inliner<'a>, compute: &'b ComputeOp) -> Self {
        Reader {
            inliner,
            compute,
            analyzer: OnceCell::new(),
            memo: RefCell::new(HashMap::new()),
        }
    }

    fn analyzer(&self) -> &Analyzer {
        self.analyzer.get_or_init(|| {
            let mut an = Analyzer::new();
            for iv in self.compute.axis.iter().chain(&self.compute.reduce_axis) {
                if let Some(r) = iv.dom() {
                    an.bind(iv.var(), r.clone());
                }
            }
            an
        })
    }

    /// The reader's own body with its inlined reads expanded.
    fn expand(&self, body: &Value) -> Value {
        body.rewrite_reads(
            &mut |e| e.clone(),
            &mut |t, idx| self.load(t, idx),
            &mut |t, idx| self.gather(t, idx, false),
        )
    }

    /// `t[idx]` expanded when `t` is inlined (`None` keeps the read).
    fn load(&self, t: &Tensor, idx: &[Expr]) -> Option<Value> {
        let p = self.inliner.inlined(t)?;
        let key = (p, idx.to_vec());
        if let Some(v) = self.memo.borrow().get(&key) {
            return Some(v.clone());
        }
        let c = self.inliner.stages[p].op().as_compute()?;
        let axis = &c.axis;
        let an = self.analyzer();
        let v = c.body.rewrite_reads(
            &mut |e| {
                let e = e.substitute(&mut |v| {
                    axis.iter()
                        .position(|a| a.var() == v)
                        .map(|k| idx[k].clone())
                });
                simp(an, e)
            },
            &mut |t, idx| self.load(t, idx),
            &mut |t, idx| self.gather(t, idx, true),
        );
        self.memo.borrow_mut().insert(key, v.clone());
        Some(v)
    }

    /// A gather of an inlined tensor (read at indices computed from values)
    /// is its definition with its axes bound to those values, as TVM
    /// substitutes it; inside an inlined definition its indices are
    /// simplified under the reader's axes like every other index there.
    fn gather(&self, t: &Tensor, idx: &[Value], simplify: bool) -> Option<Value> {
        let p = self.inliner.inlined(t)?;
        let body = self.inliner.body(p)?;
        let axes: Vec<(arith::Var, Value)> = self.inliner.stages[p]
            .op()
            .axis()
            .iter()
            .zip(idx)
            .map(|(a, v)| (a.var().clone(), v.clone()))
            .collect();
        let bound = body.bind_axes(&axes);
        if !simplify {
            return Some(bound);
        }
        let an = self.analyzer();
        Some(bound.rewrite(&mut |e| simp(an, e.clone()), &mut |_, _| None))
    }
}
