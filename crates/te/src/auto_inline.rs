//! Automatic inlining (`te.schedule.AutoInlineElemWise`,
//! `AutoInlineBroadcast`, `AutoInlineInjective`): inline every stage of a
//! kind that nothing has scheduled yet and that is not an output.

use crate::operation::Operation;
use crate::schedule::{Attach, Schedule, Stage};
use crate::value::ValueKind;

/// `te.schedule.AutoInlineElemWise(s)`: inlines every element-wise stage
/// (each read is of the element at the stage's own axes, in order) that is
/// not an output and not yet scheduled (no split, fuse, reorder or
/// attachment). Returns how many stages it inlined.
///
/// ```
/// use tir::DataType;
/// let a = te::placeholder([8], "A", DataType::Float32).unwrap();
/// let b = te::compute_named([8], &["i"], |i| a.at([&i[0]]) + 1.0, "B").unwrap();
/// let c = te::compute_named([8], &["i"], |i| b.at([&i[0]]) * 2.0, "C").unwrap();
/// let mut s = te::create_schedule(&[c.clone()]);
/// assert_eq!(te::auto_inline_elem_wise(&mut s), 1);
/// assert_eq!(s.stage(&b).unwrap().attach(), &te::Attach::Inline);
/// ```
pub fn auto_inline_elem_wise(s: &mut Schedule) -> usize {
    inline_where(s, is_elem_wise)
}

/// `te.schedule.AutoInlineBroadcast(s)`: inlines every unscheduled
/// stage, not an output, without a reduction and tagged `"broadcast"` (as
/// TOPI tags its broadcasts). Returns how many stages it inlined.
pub fn auto_inline_broadcast(s: &mut Schedule) -> usize {
    inline_where(s, |op| {
        op.as_compute().is_some() && op.reduce_axis().is_empty() && op.tag() == "broadcast"
    })
}

/// `te.schedule.AutoInlineInjective(s)`: inlines every unscheduled stage,
/// not an output, that is a compute without a reduction. Returns how many
/// stages it inlined.
///
/// ```
/// use tir::DataType;
/// let a = te::placeholder([8], "A", DataType::Float32).unwrap();
/// let b = te::compute_named([4], &["i"], |i| a.at([i[0].clone() * 2]), "B").unwrap();
/// let c = te::compute_named([4], &["i"], |i| b.at([&i[0]]) * 2.0, "C").unwrap();
/// let mut s = te::create_schedule(&[c.clone()]);
/// assert_eq!(te::auto_inline_elem_wise(&mut s), 0); // B reads A[i * 2]
/// assert_eq!(te::auto_inline_injective(&mut s), 1);
/// ```
pub fn auto_inline_injective(s: &mut Schedule) -> usize {
    inline_where(s, |op| {
        op.as_compute().is_some() && op.reduce_axis().is_empty()
    })
}

/// Whether every read in `op`'s body is of the element at `op`'s own axes,
/// in order (TVM's `IsElemWise`; a read at computed indices is not).
pub fn is_elem_wise(op: &Operation) -> bool {
    let Some(c) = op.as_compute() else {
        return false;
    };
    let mut elem_wise = true;
    let mut pending = vec![c.body.clone()];
    while let Some(v) = pending.pop() {
        match v.kind() {
            ValueKind::Load(_, idx) => {
                elem_wise &= idx.len() == c.axis.len()
                    && idx
                        .iter()
                        .zip(&c.axis)
                        .all(|(e, a)| e.as_var() == Some(a.var()));
            }
            ValueKind::Gather(..) => elem_wise = false,
            _ => {}
        }
        if !elem_wise {
            return false;
        }
        v.for_each_operand(|x| pending.push(x.clone()));
    }
    true
}

/// Whether anything scheduled the stage (TVM's `Stage::is_scheduled`): a
/// split, fuse or reorder of its loops, or a placement other than the root.
fn is_scheduled(st: &Stage) -> bool {
    !st.relations().is_empty()
        || st.attach() != &Attach::Root
        || st.leaf_iter_vars() != st.all_iter_vars()
}

fn inline_where(s: &mut Schedule, kind: impl Fn(&Operation) -> bool) -> usize {
    let chosen: Vec<Operation> = s
        .stages()
        .iter()
        .filter(|st| !is_scheduled(st) && !st.is_output() && kind(st.op()))
        .map(|st| st.op().clone())
        .collect();
    let mut inlined = 0;
    for op in chosen {
        // A reduction read element-wise is chosen by TVM's rule but cannot
        // be inlined; it stays where it is.
        if s.compute_inline(&op).is_ok() {
            inlined += 1;
        }
    }
    inlined
}
