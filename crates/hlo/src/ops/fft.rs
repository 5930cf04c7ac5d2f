//! `fft` (`FFT`, `IFFT`, `RFFT`, `IRFFT`): the last `len(fft_length)`
//! dimensions are transformed, the leading ones are batch dimensions.
//!
//! Every coefficient of a discrete Fourier transform (a root of unity) is
//! non-zero, so each output element depends on every element of the
//! operand's transformed sub-array with the same batch index: identity on
//! the batch dimensions, range variables over the whole transformed
//! dimensions. That is exactly the set read, so the maps are exact.

use super::builder::MapBuilder;
use super::{Op, OpMaps};
use crate::error::AnalysisError;
use crate::operand_indexing::OperandIndexing;
use crate::ops::Unsupported;

/// (operand shape, output shape, number of transformed dimensions), checked.
fn signature<'a>(op: &Op<'a>) -> Result<(&'a [i64], &'a [i64], usize), Unsupported> {
    let name = &op.instr.name;
    let lengths = op.instr.attrs.raw("fft_length").ok_or_else(|| {
        AnalysisError::invalid(format!("fft `{name}` has no `fft_length=` attribute"))
    })?;
    let inner = lengths
        .trim()
        .strip_prefix('{')
        .and_then(|s| s.strip_suffix('}'))
        .ok_or_else(|| {
            AnalysisError::invalid(format!(
                "fft `{name}`: `fft_length={lengths}` is not a list like {{8}}"
            ))
        })?;
    let transformed = inner.split(',').filter(|s| !s.trim().is_empty()).count();
    let inp = op.operand_dims(0)?;
    let out = op.output_dims(0)?;
    let batch = inp.len().checked_sub(transformed);
    match batch {
        Some(b) if transformed <= 3 && out.len() == inp.len() && inp[..b] == out[..b] => {
            Ok((inp, out, transformed))
        }
        _ => Err(AnalysisError::invalid(format!(
            "fft `{name}`: {inp:?} and {out:?} do not share the batch dimensions before {transformed} transformed ones"
        ))),
    }
}

/// Output `(b.., f..)` reads operand `(b.., t..)` for every `t` of the
/// transformed dimensions.
pub(crate) fn output_to_input(op: &Op) -> OpMaps {
    let (inp, out, t) = signature(op)?;
    let mut b = MapBuilder::over(out);
    let batch = inp.len() - t;
    let mut results = b.dims();
    for (i, r) in results.iter_mut().enumerate().skip(batch) {
        *r = b.symbol(inp[i]);
    }
    Ok(vec![OperandIndexing::single(b.build(results)?)])
}

/// An operand element reaches every output element with its batch index.
pub(crate) fn input_to_output(op: &Op) -> OpMaps {
    let (inp, out, t) = signature(op)?;
    let mut b = MapBuilder::over(inp);
    let batch = inp.len() - t;
    let mut results = b.dims();
    for (i, r) in results.iter_mut().enumerate().skip(batch) {
        *r = b.symbol(out[i]);
    }
    Ok(vec![OperandIndexing::single(b.build(results)?)])
}
