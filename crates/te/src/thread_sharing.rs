//! Schedules whose threads share work in a way rangefinder does not model.
//!
//! rangefinder's lowered programs run each thread's iteration alone, one
//! after another, and its InferBound relaxes thread loops only within a
//! stage's consumer. Two kinds of TVM schedule rely on threads running
//! together: a shared stage fetched cooperatively by the threads around its
//! consumer, and a reduction across threads that already run. Both would
//! give wrong bounds or values, so InferBound refuses them
//! ([`crate::ErrorKind::Unsupported`]), whichever front end asked.

use crate::iter_var::{IterKind, IterVar};
use crate::schedule::{Attach, Schedule, Stage};
use crate::thread::ThreadTag;

/// Why `s` cannot be bounded and run as TVM would, if it holds a
/// cooperative fetch rangefinder does not model: a stage whose storage the
/// threads of a block share (`shared`) and whose own loops are bound to
/// those threads, computed inside a stage that is itself computed inside
/// loops bound to them (TVM's GEMM schedules: `s[AA].compute_at(s[CC], k)`
/// with `CC` at `s[C]`'s `threadIdx` loop and `AA`'s loops bound to the
/// same threads). TVM sizes such a stage for the whole block and every
/// thread fetches its part; rangefinder's InferBound relaxes thread loops
/// only within the stage's consumer, and its run executes threads one
/// after another, so the stage would be sized per thread and read before
/// the other threads wrote it.
pub(crate) fn unsupported_thread_sharing(s: &Schedule) -> Option<String> {
    s.stages().iter().find_map(|st| {
        cooperative_stage(s, st).or_else(|| reduction_across_enclosing_threads(s, st))
    })
}

/// A stage computed inside a loop bound to a thread that binds one of its
/// own reduction loops to the same thread: TVM combines the threads'
/// partial results (an all-reduce across the threads already running), and
/// rangefinder, which runs each thread's iteration alone, would keep one
/// thread's part. Such a schedule is refused, not given a wrong value.
fn reduction_across_enclosing_threads(s: &Schedule, st: &Stage) -> Option<String> {
    let own: Vec<(IterVar, ThreadTag)> = st
        .leaf_iter_vars()
        .iter()
        .filter(|iv| iv.kind() == IterKind::Reduce)
        .filter_map(|iv| st.thread_tag(iv).map(|t| (iv.clone(), t)))
        .collect();
    if own.is_empty() {
        return None;
    }
    let mut child = st;
    for _ in 0..s.stages().len() {
        let Attach::At { parent, axis } = child.attach() else {
            return None;
        };
        let outer = s.stage(parent).ok()?;
        let leaves = outer.leaf_iter_vars();
        let end = leaves.iter().position(|iv| iv == axis)?;
        for iv in &leaves[..=end] {
            if let Some(tag) = outer.thread_tag(iv) {
                if let Some((red, _)) = own.iter().find(|(_, t)| *t == tag) {
                    return Some(format!(
                        "`{}` reduces over `{}` bound to `{tag}` inside the loop `{}` of `{}`, \
                         bound to the same threads: that is a reduction across running threads, \
                         which rangefinder does not support; compute `{}` at a loop outside \
                         `{}`, or bind its reduction to another thread axis",
                        st.name(),
                        red.name(),
                        iv.name(),
                        outer.name(),
                        st.name(),
                        iv.name()
                    ));
                }
            }
        }
        child = outer;
    }
    None
}

/// The cooperative fetch of [`unsupported_thread_sharing`] for the stage
/// `st`.
fn cooperative_stage(s: &Schedule, st: &Stage) -> Option<String> {
    let scope = st.scope()?;
    let own: Vec<ThreadTag> = st
        .leaf_iter_vars()
        .iter()
        .filter_map(|iv| st.thread_tag(iv))
        .filter(|t| scope.relaxes(*t))
        .collect();
    if own.is_empty() {
        return None;
    }
    // The stage it is computed in, then that stage's own placement: the
    // loops around that placement are beyond the consumer.
    let Attach::At { parent, .. } = st.attach() else {
        return None;
    };
    let mut child = s.stage(parent).ok()?;
    // Each step goes to an enclosing stage; a placement cycle is rejected
    // by InferBound, and the walk is bounded by the number of stages.
    for _ in 0..s.stages().len() {
        let Attach::At { parent, axis } = child.attach() else {
            return None;
        };
        let outer = s.stage(parent).ok()?;
        let leaves = outer.leaf_iter_vars();
        let end = leaves.iter().position(|iv| iv == axis)?;
        if let Some(tag) = leaves[..=end]
            .iter()
            .filter_map(|iv| outer.thread_tag(iv))
            .find(|t| own.contains(t))
        {
            return Some(format!(
                "`{}` ({scope}) is fetched cooperatively by the threads `{tag}` of `{}`, which \
                 enclose its consumer `{}`: rangefinder does not support this (its storage \
                 would be sized per thread, and its threads run one after another); compute \
                 it without binding its loops to `{tag}`, or at a loop of `{}`",
                st.name(),
                outer.name(),
                child.name(),
                outer.name()
            ));
        }
        child = outer;
    }
    None
}
