//! Indexing maps of single HLO instructions, one module per op family.
//!
//! Every function here answers for one instruction in isolation: dimensions
//! index its output (or, input-to-output, one operand), results index one
//! operand (or output). Composition through fusions and calls lives in
//! [`crate::compose`].

mod all_gather;
pub(crate) mod bitcast_convert;
pub(crate) mod builder;
mod collectives;
mod concatenate;
mod control_flow;
mod convolution;
mod custom_call;
mod dimension_size;
mod dot;
mod dynamic_slice;
mod elementwise;
mod fft;
mod gather;
mod layout;
pub(crate) mod opt_barrier;
mod pad;
mod permute;
mod reduce;
mod reshape;
mod rng_bit_generator;
mod scatter;
mod select_and_scatter;
mod slice;
mod sort;
mod window;

pub(crate) use builder::Unsupported;
pub(crate) use control_flow::{
    conditional_input_to_output, conditional_output_to_input, while_input_to_output,
    while_output_to_input,
};
pub(crate) use dynamic_slice::runtime_source_name;
pub(crate) use elementwise::is_elementwise;
pub(crate) use layout::{logical_to_physical, physical_dims, physical_to_logical};

use crate::error::{AnalysisError, AnalysisErrorKind};
use crate::module::{Computation, Instruction};
use crate::opcode::Opcode;
use crate::operand_indexing::OperandIndexing;
use crate::shape::Shape;

/// One instruction and where it lives.
pub(crate) struct Op<'a> {
    pub comp: &'a Computation,
    pub instr: &'a Instruction,
}

/// What a per-op function returns: one entry per operand (or per output).
pub(crate) type OpMaps = Result<Vec<OperandIndexing>, Unsupported>;

impl<'a> Op<'a> {
    pub(crate) fn operand(&self, k: usize) -> &'a Instruction {
        &self.comp.instructions[self.instr.operands[k]]
    }

    /// The dimensions of operand `k`, which must be an array.
    pub(crate) fn operand_dims(&self, k: usize) -> Result<&'a [i64], Unsupported> {
        array_dims(&self.operand(k).shape, || {
            format!("operand {k} of `{}`", self.instr.name)
        })
    }

    /// The dimensions of output `k` (the whole shape when it is an array).
    pub(crate) fn output_dims(&self, k: usize) -> Result<&'a [i64], Unsupported> {
        let shape = self.instr.shape.output(k).ok_or_else(|| {
            AnalysisError::invalid(format!("`{}` has no output {k}", self.instr.name))
        })?;
        array_dims(shape, || format!("output {k} of `{}`", self.instr.name))
    }

    pub(crate) fn attr_ints(&self, name: &str) -> Result<&'a [i64], Unsupported> {
        self.instr.attrs.ints(name).ok_or_else(|| {
            AnalysisError::invalid(format!(
                "`{}` ({}) has no `{name}=` attribute",
                self.instr.name, self.instr.opcode
            ))
        })
    }

    pub(crate) fn num_operands(&self) -> usize {
        self.instr.operands.len()
    }
}

/// The dimensions of an array shape; `what` names it in the error (built
/// only on failure: this runs for every op of every composition).
fn array_dims(shape: &Shape, what: impl FnOnce() -> String) -> Result<&[i64], Unsupported> {
    match shape {
        Shape::Array(a) => Ok(&a.dims),
        Shape::Tuple(_) => Err(AnalysisError::invalid(format!(
            "{} is a tuple where an array was expected",
            what()
        ))),
    }
}

/// Checks that `dims` are valid, distinct dimension numbers of a rank-`rank` shape.
pub(crate) fn check_dims(dims: &[i64], rank: usize, what: &str) -> Result<Vec<usize>, Unsupported> {
    let mut seen = vec![false; rank];
    let mut out = Vec::with_capacity(dims.len());
    for &d in dims {
        if d < 0 || d as usize >= rank || seen[d as usize] {
            return Err(AnalysisError::invalid(format!(
                "{what} {dims:?} are not distinct dimensions of a rank-{rank} shape"
            )));
        }
        seen[d as usize] = true;
        out.push(d as usize);
    }
    Ok(out)
}

/// Output-to-input maps of a single (non-composite) instruction for output
/// `output`: one entry per operand.
pub(crate) fn output_to_input(op: &Op, output: usize) -> OpMaps {
    let opcode = op.instr.opcode;
    if elementwise::is_elementwise(opcode) {
        return elementwise::output_to_input(op);
    }
    match opcode {
        Opcode::Parameter
        | Opcode::Constant
        | Opcode::Iota
        | Opcode::RngGetAndUpdateState
        | Opcode::PartitionId
        | Opcode::ReplicaId => Ok(Vec::new()),
        Opcode::Broadcast => permute::broadcast_output_to_input(op),
        Opcode::Transpose => permute::transpose_output_to_input(op),
        Opcode::Reverse => permute::reverse_output_to_input(op),
        Opcode::Reduce => reduce::output_to_input(op, output),
        Opcode::Slice => slice::output_to_input(op),
        Opcode::Reshape => reshape::reshape_output_to_input(op),
        Opcode::Bitcast => reshape::bitcast_output_to_input(op),
        Opcode::BitcastConvert => bitcast_convert::output_to_input(op),
        Opcode::Concatenate => concatenate::output_to_input(op),
        Opcode::Dot => dot::output_to_input(op),
        Opcode::ScaledDot => dot::scaled_output_to_input(op),
        Opcode::Pad => pad::output_to_input(op),
        Opcode::ReduceWindow => window::reduce_window_output_to_input(op, output),
        Opcode::Convolution => convolution::output_to_input(op),
        Opcode::Gather => gather::output_to_input(op),
        Opcode::Scatter => scatter::output_to_input(op, output),
        Opcode::SelectAndScatter => select_and_scatter::output_to_input(op),
        Opcode::DynamicSlice => dynamic_slice::slice_output_to_input(op),
        Opcode::DynamicUpdateSlice => dynamic_slice::update_output_to_input(op),
        Opcode::AllGather => all_gather::output_to_input(op),
        Opcode::AllReduce => collectives::all_reduce_output_to_input(op, output),
        Opcode::ReduceScatter => collectives::reduce_scatter_output_to_input(op, output),
        Opcode::AllToAll => collectives::all_to_all_output_to_input(op, output),
        Opcode::CollectivePermute => collectives::collective_permute_output_to_input(op, output),
        Opcode::Sort => sort::sort_output_to_input(op, output),
        Opcode::TopK => sort::topk_output_to_input(op, output),
        Opcode::Fft => fft::output_to_input(op),
        Opcode::CustomCall => custom_call::output_to_input(op, output),
        Opcode::OptimizationBarrier => opt_barrier::output_to_input(op, output),
        Opcode::RngBitGenerator => rng_bit_generator::output_to_input(op, output),
        Opcode::GetDimensionSize => dimension_size::get_output_to_input(op),
        Opcode::SetDimensionSize => dimension_size::set_output_to_input(op),
        Opcode::Tuple => elementwise::tuple_output_to_input(op, output),
        Opcode::GetTupleElement => elementwise::get_tuple_element_output_to_input(op),
        _ => Err(unsupported_op(opcode)),
    }
}

/// Why `opcode` has no maps: XLA's indexing analysis has none for it
/// (`triangular-solve`, ...). (`while` and `conditional` are
/// composed through their computations in [`crate::fusion`].)
fn unsupported_op(opcode: Opcode) -> Unsupported {
    let message = match opcode {
        Opcode::Scan => "unsupported op `scan`: its maps are not implemented here".to_string(),
        _ => format!("unsupported op `{opcode}`: XLA's indexing analysis gives it no map"),
    };
    AnalysisError::new(AnalysisErrorKind::UnsupportedOp, message)
}

/// Input-to-output maps of a single instruction for operand `input`: one
/// entry per output.
pub(crate) fn input_to_output(op: &Op, input: usize) -> OpMaps {
    let opcode = op.instr.opcode;
    if input >= op.num_operands() {
        return Err(AnalysisError::invalid(format!(
            "`{}` has no operand {input}",
            op.instr.name
        )));
    }
    if elementwise::is_elementwise(opcode) {
        return elementwise::input_to_output(op, input);
    }
    match opcode {
        Opcode::Broadcast => permute::broadcast_input_to_output(op),
        Opcode::Transpose => permute::transpose_input_to_output(op),
        Opcode::Reverse => permute::reverse_input_to_output(op),
        Opcode::Reduce => reduce::input_to_output(op, input),
        Opcode::Slice => slice::input_to_output(op),
        Opcode::Reshape => reshape::reshape_input_to_output(op),
        Opcode::Bitcast => reshape::bitcast_input_to_output(op),
        Opcode::BitcastConvert => bitcast_convert::input_to_output(op),
        Opcode::Concatenate => concatenate::input_to_output(op, input),
        Opcode::Dot => dot::input_to_output(op, input),
        Opcode::Pad => pad::input_to_output(op, input),
        Opcode::ReduceWindow => window::reduce_window_input_to_output(op, input),
        Opcode::Convolution => convolution::input_to_output(op, input),
        Opcode::DynamicSlice => dynamic_slice::slice_input_to_output(op, input),
        Opcode::DynamicUpdateSlice => dynamic_slice::update_input_to_output(op, input),
        Opcode::Gather => gather::input_to_output(op, input),
        Opcode::Scatter => scatter::input_to_output(op, input),
        Opcode::SelectAndScatter => select_and_scatter::input_to_output(op, input),
        Opcode::AllGather => all_gather::input_to_output(op),
        Opcode::AllReduce => collectives::all_reduce_input_to_output(op, input),
        Opcode::ReduceScatter => collectives::reduce_scatter_input_to_output(op, input),
        Opcode::AllToAll => collectives::all_to_all_input_to_output(op, input),
        Opcode::CollectivePermute => collectives::collective_permute_input_to_output(op, input),
        Opcode::Sort => sort::sort_input_to_output(op),
        Opcode::TopK => sort::topk_input_to_output(op),
        Opcode::Fft => fft::input_to_output(op),
        Opcode::CustomCall => custom_call::input_to_output(op, input),
        Opcode::OptimizationBarrier => opt_barrier::input_to_output(op),
        Opcode::RngBitGenerator => rng_bit_generator::input_to_output(op),
        Opcode::GetDimensionSize => dimension_size::get_input_to_output(op),
        Opcode::SetDimensionSize => dimension_size::set_input_to_output(op, input),
        Opcode::Tuple => elementwise::tuple_input_to_output(op, input),
        Opcode::GetTupleElement => elementwise::get_tuple_element_input_to_output(op),
        _ => Err(unsupported_op(opcode)),
    }
}
