//! Loop annotations: `s[t].parallel(iv)`, `vectorize`, `unroll` and
//! `pragma` (TVM's `IterVarAttr`). They say how a loop is meant to run and
//! never change which iterations run, so bound inference ignores them;
//! lowering keeps them on the loops ([`tir::ForKind`], [`tir::Pragma`]).

use crate::error::{Result, TeError};
use crate::iter_var::{IterKind, IterVar};
use crate::operation::Operation;
use crate::schedule::{Schedule, Stage};
use tir::{ForKind, PragmaValue};

/// The annotations of one loop of a stage.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct LoopAnnotation {
    /// How the loop runs: serial unless `parallel`, `vectorize` or
    /// `unroll` said otherwise (the last of them wins, as in TVM).
    pub kind: ForKind,
    /// `pragma(iv, key, value)` calls, in order: the key and the value.
    pub pragmas: Vec<(String, PragmaValue)>,
}

impl Stage {
    /// The annotations of the loop `iv`, if any were given.
    pub fn annotation(&self, iv: &IterVar) -> Option<&LoopAnnotation> {
        self.annotations.get(iv)
    }
}

impl Schedule {
    /// `s[t].parallel(iv)`: the loop `iv`'s iterations run in parallel.
    ///
    /// ```
    /// let a = te::placeholder([8], "A", tir::DataType::Float32).unwrap();
    /// let b = te::compute_named([8], &["i"], |i| a.at([&i[0]]) * 2.0, "B").unwrap();
    /// let mut s = te::create_schedule(&[b.clone()]);
    /// s.parallel(&b, &b.op().axis()[0]).unwrap();
    /// let text = te::lower(&s, &[a, b]).unwrap().to_string();
    /// assert!(text.contains("parallel (i, 0, 8) {"), "{text}");
    /// ```
    pub fn parallel(&mut self, t: &impl AsRef<Operation>, iv: &IterVar) -> Result<()> {
        self.set_kind(t.as_ref(), iv, ForKind::Parallel, "parallel")
    }

    /// `s[t].vectorize(iv)`: the loop `iv` forms one vector. A reduction
    /// loop cannot be vectorized.
    pub fn vectorize(&mut self, t: &impl AsRef<Operation>, iv: &IterVar) -> Result<()> {
        if iv.kind() == IterKind::Reduce {
            return Err(TeError::schedule(format!(
                "cannot vectorize `{}`: it is a reduction loop (vectorize a data-parallel loop)",
                iv.name()
            )));
        }
        self.set_kind(t.as_ref(), iv, ForKind::Vectorized, "vectorize")
    }

    /// `s[t].unroll(iv)`: the loop `iv` is unrolled.
    pub fn unroll(&mut self, t: &impl AsRef<Operation>, iv: &IterVar) -> Result<()> {
        self.set_kind(t.as_ref(), iv, ForKind::Unrolled, "unroll")
    }

    /// `s[t].pragma(iv, key, value)`: attaches `pragma_key = value` to the
    /// loop `iv` (value 1 when `None`). As in TVM, the keys `unroll` and
    /// `vectorize` are [`Schedule::unroll`] and [`Schedule::vectorize`].
    ///
    /// ```
    /// use tir::PragmaValue;
    /// let a = te::placeholder([8], "A", tir::DataType::Float32).unwrap();
    /// let b = te::compute_named([8], &["i"], |i| a.at([&i[0]]) * 2.0, "B").unwrap();
    /// let mut s = te::create_schedule(&[b.clone()]);
    /// let (io, _) = s.split(&b, &b.op().axis()[0], 4).unwrap();
    /// s.pragma(&b, &io, "auto_unroll_max_step", Some(PragmaValue::Int(16))).unwrap();
    /// let text = te::lower(&s, &[a, b]).unwrap().to_string();
    /// assert!(text.contains("// attr [iter_var(i.outer, )] pragma_auto_unroll_max_step = 16\n"), "{text}");
    /// ```
    pub fn pragma(
        &mut self,
        t: &impl AsRef<Operation>,
        iv: &IterVar,
        key: &str,
        value: Option<PragmaValue>,
    ) -> Result<()> {
        match key {
            "unroll" => return self.unroll(t, iv),
            "vectorize" => return self.vectorize(t, iv),
            "" => {
                return Err(TeError::schedule(format!(
                    "pragma on `{}` needs a non-empty key",
                    iv.name()
                )))
            }
            _ => {}
        }
        let st = self.annotated_loop(t.as_ref(), iv, "pragma")?;
        st.annotations
            .entry(iv.clone())
            .or_default()
            .pragmas
            .push((key.to_string(), value.unwrap_or(PragmaValue::Int(1))));
        Ok(())
    }

    fn set_kind(&mut self, op: &Operation, iv: &IterVar, kind: ForKind, what: &str) -> Result<()> {
        let st = self.annotated_loop(op, iv, what)?;
        st.annotations.entry(iv.clone()).or_default().kind = kind;
        Ok(())
    }

    /// The stage of `op`, once `iv` is known to be one of its loops.
    fn annotated_loop(&mut self, op: &Operation, iv: &IterVar, what: &str) -> Result<&mut Stage> {
        let st = self.compute_stage_mut(op, what)?;
        st.leaf_pos(iv)?;
        Ok(st)
    }
}
