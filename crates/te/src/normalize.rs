//! `s.normalize()` and the re-targeting of attachments: a stage computed
//! at a loop that was split or fused is computed at the loop that now runs
//! that loop's iterations, as TVM's `LegalizeInvalidAttach` does.
//!
//! TVM's normalize also substitutes inlined stages and rebases loops to
//! start at 0; here inlined stages are expanded where they are read
//! (`inline.rs`) and lowering rebases every loop, so neither changes the
//! schedule.

use crate::iter_var::IterVar;
use crate::schedule::{Attach, Relation, Schedule, Stage};

impl Schedule {
    /// `s.normalize()`: the same schedule with every attachment to a loop
    /// that was later split or fused moved to the loop that replaced it
    /// (the inner loop of a split, the fused loop of a fuse). The bounds
    /// and the lowered program are those of the original schedule.
    ///
    /// ```
    /// use tir::DataType;
    /// let a = te::placeholder([8], "A", DataType::Float32).unwrap();
    /// let b = te::compute_named([8], &["i"], |i| a.at([&i[0]]) + 1.0, "B").unwrap();
    /// let c = te::compute_named([8], &["j"], |i| b.at([&i[0]]) * 2.0, "C").unwrap();
    /// let mut s = te::create_schedule(&[c.clone()]);
    /// let j = c.op().axis()[0].clone();
    /// let (_, ji) = s.split(&c, &j, 4).unwrap();
    /// // `j` is no longer a loop: B goes to the loop that runs it, `j.inner`.
    /// s.compute_at(&b, &c, &j).unwrap();
    /// let n = s.normalize();
    /// assert_eq!(n.stage(&b).unwrap().attach(), &te::Attach::At { parent: c.op().clone(), axis: ji });
    /// ```
    pub fn normalize(&self) -> Schedule {
        let mut s = self.clone();
        for i in 0..s.stages().len() {
            if let Attach::At { parent, axis } = s.stages()[i].attach() {
                let Ok(p) = s.stage_index(parent) else {
                    continue;
                };
                let target = attach_target(&s.stages()[p], axis);
                if &target != axis {
                    let parent = parent.clone();
                    s.set_attach(
                        i,
                        Attach::At {
                            parent,
                            axis: target,
                        },
                    );
                }
            }
        }
        s
    }
}

/// The loop of `parent` that runs the iterations of `axis`: `axis` itself
/// when it is a loop, otherwise followed through the splits (to the inner
/// loop) and fuses (to the fused loop) that replaced it. An axis that is
/// neither is returned as it is; bound inference reports it.
pub(crate) fn attach_target(parent: &Stage, axis: &IterVar) -> IterVar {
    let mut target = axis.clone();
    // Each step moves to an axis created later, so this ends.
    while !parent.leaf_iter_vars().contains(&target) {
        let next = parent.relations().iter().find_map(|r| match r {
            Relation::Split {
                parent: p, inner, ..
            } if *p == target => Some(inner.clone()),
            Relation::Fuse {
                outer,
                inner,
                fused,
            } if *outer == target || *inner == target => Some(fused.clone()),
            _ => None,
        });
        match next {
            Some(n) => target = n,
            None => break,
        }
    }
    target
}
