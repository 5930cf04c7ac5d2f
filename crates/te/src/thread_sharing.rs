//! Schedules whose threads share work in a way rangefinder does not model.
//!
//! A reduction bound to a thread that the loops around its stage already
//! bind is a reduction across running threads (TVM lowers it to
//! `tvm_thread_allreduce`). rangefinder has no such combination, and
//! keeping one thread's partial result would be a wrong value, so
//! InferBound refuses the schedule ([`crate::ErrorKind::Unsupported`]),
//! whichever front end asked. (A shared stage fetched cooperatively by the
//! threads around its consumer is supported: InferBound sizes it for the
//! block, and `tir`'s interpreter runs the block's threads together.)

use crate::iter_var::{IterKind, IterVar};
use crate::schedule::{Attach, Schedule, Stage};
use crate::thread::ThreadTag;

/// Why `s` cannot be bounded and run as TVM would, if a stage reduces
/// across threads that already run it.
pub(crate) fn unsupported_thread_sharing(s: &Schedule) -> Option<String> {
    s.stages()
        .iter()
        .find_map(|st| reduction_across_enclosing_threads(s, st))
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
