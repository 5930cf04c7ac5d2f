//! Tensor expressions, schedules, bound inference and lowering (TVM's TE,
//! seeds 000 and 003).
//!
//! Build tensors with [`placeholder`] and [`compute_named`], schedule them
//! with [`create_schedule`] and the [`Schedule`] primitives, then ask
//! [`infer_bound`] for the range of every loop, [`lower`] (or
//! [`schedule_ops`]) for the loop program in `tir`, [`report`] for
//! everything per stage (ranges, attach paths, regions, storage), and
//! [`check`] to run the program on random inputs against [`Reference`]
//! evaluation of the definitions.
//!
//! Primitives that add stages follow TVM: [`Schedule::cache_read`],
//! [`Schedule::cache_write`], [`Schedule::rfactor`],
//! [`Schedule::create_group`]; [`auto_inline_injective`] and the other
//! AutoInline rules; [`create_read_graph`] and [`post_order_dfs`].
//!
//! Loops can be bound to GPU threads ([`Schedule::bind`],
//! [`IterVar::thread_axis`]) and stages given a [`StorageScope`]
//! ([`Schedule::set_scope`]): a producer shared by threads covers all of
//! them, as TVM's InferBound does. Lowering prints a bound loop as TVM's
//! `thread_extent` attribute over the thread index and the interpreter runs
//! it as a loop; loops carry the annotations `parallel`, `vectorize`,
//! `unroll` and `pragma` ([`Schedule::parallel`], ...), which change no
//! bound. [`Lowering::tvmscript`] prints the TVMScript form.
//!
//! Beyond TVM (seed 000): a split whose factor does not divide its extent
//! gives the inner loop `min(factor, extent - outer * factor)` iterations
//! (a loop bound to a thread runs the factor with a `likely` guard, as TVM),
//! so nothing outside the domain is computed; sets passed up through a fuse
//! give the exact rows and columns when they form a box and the minimal box
//! per iteration otherwise; storage is sized by the largest region over the
//! iterations.
//!
//! ```
//! use tir::DataType;
//! let a = te::placeholder([4, 4], "A", DataType::Float32).unwrap();
//! let b = te::compute_named([4, 4], &["bi", "bj"], |i| a.at([&i[0], &i[1]]) + 2.0, "B").unwrap();
//! let c = te::compute_named([4, 4], &["ci", "cj"], |i| b.at([&i[0], &i[1]]) * 3.0, "C").unwrap();
//! let mut s = te::create_schedule(&[c.clone()]);
//! let (ci, cj) = (c.op().axis()[0].clone(), c.op().axis()[1].clone());
//! s.compute_at(&b, &c, &ci).unwrap();
//! let bounds = te::infer_bound(&s).unwrap();
//! // B is computed one row at a time: row `ci`, all four columns.
//! assert_eq!(bounds.range(&b.op().axis()[0]).unwrap().to_string(), "[ci, ci + 1)");
//! assert_eq!(bounds.range(&b.op().axis()[1]).unwrap().to_string(), "[0, 4)");
//! ```
#![warn(missing_docs)]

mod annotate;
mod auto_inline;
mod bound;
mod cache;
mod check;
mod comm_reducer;
mod cross_thread;
mod error;
mod extern_op;
mod graph;
mod group;
mod hybrid_schedule;
mod inline;
mod iter_var;
mod iteration_regions;
mod json;
mod layout;
mod loop_index;
mod lower;
mod normalize;
mod operation;
mod prim_func;
mod read_graph;
mod reference;
mod report;
mod rfactor;
mod rng;
mod run_report;
mod scan;
mod schedule;
mod simp;
mod tensor_compute;
mod tensorize;
mod thread;
mod value;

pub use annotate::LoopAnnotation;
pub use auto_inline::{
    auto_inline_broadcast, auto_inline_elem_wise, auto_inline_injective, is_elem_wise,
};
pub use bound::{infer_bound, Bounds, BOUND_BUDGET};
pub use check::{
    check, check_block_form, check_limited, CheckReport, RunLimits, StageCheck, DEFAULT_MAX_STEPS,
    RUN_ELEMENT_LIMIT,
};
pub use comm_reducer::{CommReduce, CommReducer};
pub use error::{ErrorKind, Result, TeError};
pub use extern_op::{
    decl_buffer, element_to_buffers, extern_of, extern_op, extern_op_outputs, hybrid_op, ExternOp,
};
pub use group::Group;
pub use iter_var::{IterKind, IterVar};
pub use iteration_regions::{
    attach_loops, default_iterations, every_attach_loops, every_iteration_region,
    iteration_regions, AttachLoop, IterationRegions, PhysicalRegions, RegionQuery,
};
pub use json::{load_json, save_json, JsonObject};
pub use lower::{
    lower, schedule_ops, schedule_ops_with_tensors, tvmscript, Lowering, PrintForm, StorageStyle,
};
pub use operation::{
    compute, compute_named, placeholder, reduce_axis, try_compute_multi, try_compute_multi_tagged,
    try_compute_named, try_compute_tagged, var, AttrValue, Attrs, ComputeOp, OpId, OpKind,
    Operation, Tensor, MAX_BODY_NODES,
};
pub use prim_func::{
    create_prim_func, create_prim_func_with_index_dtype, create_prim_func_with_scalars, PrimFuncArg,
};
pub use read_graph::{create_read_graph, post_order_dfs, ReadGraph};
pub use reference::Reference;
pub use report::{report, report_lowered, IterVarReport, Placement, Report, StageReport};
pub use rng::XorShift;
pub use run_report::{
    run_report, run_report_reusing, ReportOptions, RunReport, RUN_SIZE, TOLERANCE,
};
pub use scan::{scan, scan_op, scan_states, ScanOp};
pub use schedule::{create_schedule, Attach, Relation, Schedule, SplitBy, Stage, StorageRequests};
pub use tensor_compute::{
    tensor_compute_of, try_compute_or_intrinsic, ComputeBody, IntrinCall, TensorComputeOp,
};
pub use tensorize::{decl_tensor_intrin, IntrinCalls, TensorIntrin};
pub use thread::{StorageScope, ThreadTag, WmmaFragment};
pub use value::{max, min, prod, reduce_where, sum, BinaryOp, Reduce, Reducer, Value, ValueKind};
