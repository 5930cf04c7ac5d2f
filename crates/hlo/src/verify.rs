//! The verifier that runs after parsing, as XLA's `HloVerifier` does: a
//! module whose instructions break their opcode's rules (operand count,
//! dimension numbers, shapes, tuple indices, constants that do not fit
//! their type) is rejected with an error at the offending instruction, so
//! no analysis ever sees it.

use crate::error::{ErrorKind, ParseError};
use crate::module::{Computation, Instruction, Module};
use crate::opcode::Opcode;
use crate::ops::is_elementwise;
use crate::shape::{ArrayShape, Shape};
use std::ops::Range;

/// Checks every instruction of `module` (parsed from `source`).
pub(crate) fn verify(module: &Module, source: &str) -> Result<(), ParseError> {
    for comp in &module.computations {
        for inst in &comp.instructions {
            let check = Check {
                module,
                comp,
                inst,
                source,
            };
            check.instruction()?;
        }
    }
    Ok(())
}

struct Check<'a> {
    module: &'a Module,
    comp: &'a Computation,
    inst: &'a Instruction,
    source: &'a str,
}

type VResult<T> = Result<T, ParseError>;

impl<'a> Check<'a> {
    fn error_at(&self, span: Range<usize>, message: String) -> ParseError {
        let mut e = ParseError::new(
            self.source,
            span,
            format!(
                "invalid `{}` ({}): {message}",
                self.inst.name, self.inst.opcode
            ),
        );
        e.kind = ErrorKind::Invalid;
        e
    }

    fn error(&self, message: String) -> ParseError {
        self.error_at(self.inst.span.clone(), message)
    }

    /// The error placed on attribute `name` when it is written.
    fn attr_error(&self, name: &str, message: String) -> ParseError {
        match self.inst.attrs.0.iter().find(|a| a.name == name) {
            Some(a) => self.error_at(a.span.clone(), message),
            None => self.error(message),
        }
    }

    fn operand(&self, k: usize) -> &'a Instruction {
        &self.comp.instructions[self.inst.operands[k]]
    }

    fn operand_array(&self, k: usize) -> VResult<&'a ArrayShape> {
        self.operand(k).shape.as_array().ok_or_else(|| {
            self.error(format!(
                "operand {k} (`{}`) is a tuple where an array is needed",
                self.operand(k).name
            ))
        })
    }

    fn output_array(&self) -> VResult<&'a ArrayShape> {
        self.inst
            .shape
            .as_array()
            .ok_or_else(|| self.error("its shape is a tuple where an array is needed".into()))
    }

    /// Integer-list attribute `name`, which must be written.
    fn ints(&self, name: &str) -> VResult<&'a [i64]> {
        self.inst
            .attrs
            .ints(name)
            .ok_or_else(|| self.error(format!("it needs a `{name}={{...}}` attribute")))
    }

    /// `dims` as distinct dimension numbers of a rank-`rank` shape.
    fn dimension_numbers(&self, attr: &str, dims: &[i64], rank: usize) -> VResult<Vec<usize>> {
        let mut seen = vec![false; rank];
        let mut out = Vec::with_capacity(dims.len());
        for &d in dims {
            let ok = usize::try_from(d).ok().filter(|&u| u < rank);
            match ok {
                Some(u) if !seen[u] => {
                    seen[u] = true;
                    out.push(u);
                }
                Some(u) => {
                    return Err(self.attr_error(attr, format!("`{attr}` lists dimension {u} twice")))
                }
                None => {
                    return Err(self.attr_error(
                        attr,
                        format!("`{attr}` names dimension {d}, but the shape has rank {rank}"),
                    ))
                }
            }
        }
        Ok(out)
    }

    fn instruction(&self) -> VResult<()> {
        let inst = self.inst;
        let n = inst.operands.len();
        let arity = inst.opcode.arity();
        if !arity.allows(n) {
            return Err(self.error(format!("`{}` takes {arity}, but {n} given", inst.opcode)));
        }
        match inst.opcode {
            Opcode::Transpose => self.transpose(),
            Opcode::Broadcast => self.broadcast(),
            Opcode::Reverse => {
                let a = self.operand_array(0)?;
                self.dimension_numbers("dimensions", self.ints("dimensions")?, a.rank())?;
                self.same_dims(a, "the operand")
            }
            Opcode::Reduce => self.reduce(),
            Opcode::GetTupleElement => self.get_tuple_element(),
            Opcode::Constant => self.constant(),
            Opcode::Slice => self.slice(),
            Opcode::Reshape => self.reshape(),
            Opcode::Concatenate => self.concatenate(),
            Opcode::Iota => {
                let out = self.output_array()?;
                let dim = inst.attrs.int("iota_dimension").unwrap_or(0);
                if usize::try_from(dim).map_or(true, |d| d >= out.rank().max(1)) {
                    return Err(self.attr_error(
                        "iota_dimension",
                        format!(
                            "`iota_dimension={dim}` is not a dimension of a rank-{} shape",
                            out.rank()
                        ),
                    ));
                }
                Ok(())
            }
            Opcode::Pad => self.pad(),
            Opcode::Dot => self.dot(),
            Opcode::DynamicUpdateSlice => {
                let a = self.operand_array(0)?;
                let u = self.operand_array(1)?;
                if n != 2 + a.rank() {
                    return Err(self.error(format!(
                        "it needs the operand, the update and {} scalar offsets; {n} operands given",
                        a.rank()
                    )));
                }
                if u.rank() != a.rank() || u.dims.iter().zip(&a.dims).any(|(x, y)| x > y) {
                    return Err(self.error(format!(
                        "the update {:?} does not fit in the operand {:?}",
                        u.dims, a.dims
                    )));
                }
                self.same_dims(a, "the operand")
            }
            Opcode::ReduceWindow => {
                if !n.is_multiple_of(2) {
                    return Err(self.error(format!(
                        "a reduce-window takes inputs and as many initial values; {n} operands given"
                    )));
                }
                let a = self.operand_array(0)?;
                match inst.attrs.window() {
                    Some(w) if w.len() != a.rank() => Err(self.attr_error(
                        "window",
                        format!(
                            "`window` has {} dimensions, the operand {}",
                            w.len(),
                            a.rank()
                        ),
                    )),
                    _ => Ok(()),
                }
            }
            Opcode::DynamicSlice => {
                let a = self.operand_array(0)?;
                let sizes = self.ints("dynamic_slice_sizes")?;
                if sizes.len() != a.rank() {
                    return Err(self.attr_error(
                        "dynamic_slice_sizes",
                        format!(
                            "`dynamic_slice_sizes` has {} entries, the operand rank {}",
                            sizes.len(),
                            a.rank()
                        ),
                    ));
                }
                Ok(())
            }
            Opcode::Fusion | Opcode::Call => self.call(),
            Opcode::Tuple => match &inst.shape {
                Shape::Tuple(elems) if elems.len() == n => Ok(()),
                _ => Err(self.error(format!(
                    "a tuple of {n} operands must have a tuple shape of {n} elements"
                ))),
            },
            Opcode::BitcastConvert => {
                let a = self.operand_array(0)?;
                let out = self.output_array()?;
                crate::ops::bitcast_convert::resize(a, out)
                    .map(|_| ())
                    .map_err(|m| self.error(m))
            }
            op if is_elementwise(op) => self.elementwise(),
            _ => Ok(()),
        }
    }

    /// The output has the same dimensions as `a`.
    fn same_dims(&self, a: &ArrayShape, what: &str) -> VResult<()> {
        let out = self.output_array()?;
        if out.dims != a.dims {
            return Err(self.error(format!(
                "its shape {:?} differs from {what}'s {:?}",
                out.dims, a.dims
            )));
        }
        Ok(())
    }

    fn transpose(&self) -> VResult<()> {
        let a = self.operand_array(0)?;
        let perm = self.dimension_numbers("dimensions", self.ints("dimensions")?, a.rank())?;
        if perm.len() != a.rank() {
            return Err(self.attr_error(
                "dimensions",
                format!(
                    "`dimensions` must be a permutation of the operand's {} dimensions",
                    a.rank()
                ),
            ));
        }
        let out = self.output_array()?;
        let expected: Vec<i64> = perm.iter().map(|&p| a.dims[p]).collect();
        if out.dims != expected {
            return Err(self.error(format!(
                "the transposed shape is {expected:?}, not {:?}",
                out.dims
            )));
        }
        Ok(())
    }

    fn broadcast(&self) -> VResult<()> {
        let a = self.operand_array(0)?;
        let out = self.output_array()?;
        // XLA prints `dimensions={}` for a scalar broadcast; older text omits it.
        let listed = self.inst.attrs.ints("dimensions").unwrap_or(&[]);
        let dims = self.dimension_numbers("dimensions", listed, out.rank())?;
        if dims.len() != a.rank() {
            return Err(self.attr_error(
                "dimensions",
                format!(
                    "`dimensions` must name one output dimension for each of the operand's {}",
                    a.rank()
                ),
            ));
        }
        for (i, &d) in dims.iter().enumerate() {
            if out.dims[d] != a.dims[i] {
                return Err(self.error(format!(
                    "operand dimension {i} has size {}, output dimension {d} size {}",
                    a.dims[i], out.dims[d]
                )));
            }
        }
        Ok(())
    }

    fn reduce(&self) -> VResult<()> {
        let n = self.inst.operands.len();
        if !n.is_multiple_of(2) {
            return Err(self.error(format!(
                "a reduce takes inputs and as many initial values; {n} operands given"
            )));
        }
        let a = self.operand_array(0)?;
        let dims = self.dimension_numbers("dimensions", self.ints("dimensions")?, a.rank())?;
        for k in 1..n / 2 {
            if self.operand_array(k)?.dims != a.dims {
                return Err(self.error(format!("input {k} differs in shape from input 0")));
            }
        }
        for k in n / 2..n {
            if self.operand_array(k)?.rank() != 0 {
                return Err(self.error(format!("initial value {} must be a scalar", k - n / 2)));
            }
        }
        let kept: Vec<i64> = (0..a.rank())
            .filter(|d| !dims.contains(d))
            .map(|d| a.dims[d])
            .collect();
        for k in 0..self.inst.shape.output_count() {
            if let Some(Shape::Array(out)) = self.inst.shape.output(k) {
                if out.dims != kept {
                    return Err(self.error(format!(
                        "reducing {:?} over {dims:?} gives {kept:?}, not {:?}",
                        a.dims, out.dims
                    )));
                }
            }
        }
        Ok(())
    }

    fn get_tuple_element(&self) -> VResult<()> {
        let operand = self.operand(0);
        let Shape::Tuple(elems) = &operand.shape else {
            return Err(self.error(format!("operand `{}` is not a tuple", operand.name)));
        };
        let index = self
            .inst
            .attrs
            .int("index")
            .ok_or_else(|| self.error("it needs an `index=` attribute".into()))?;
        let Some(elem) = usize::try_from(index).ok().and_then(|i| elems.get(i)) else {
            return Err(self.attr_error(
                "index",
                format!(
                    "`index={index}` is out of range for a tuple of {} elements",
                    elems.len()
                ),
            ));
        };
        if !same_shape(elem, &self.inst.shape) {
            return Err(self.error(format!(
                "its shape differs from element {index} of `{}`",
                operand.name
            )));
        }
        Ok(())
    }

    fn constant(&self) -> VResult<()> {
        let Some(out) = self.inst.shape.as_array() else {
            return Ok(());
        };
        let Some(ty) = out.element().filter(|t| t.is_integer()) else {
            return Ok(());
        };
        let literal = self.inst.literal.as_deref().unwrap_or("");
        for token in literal
            .split(|c: char| !(c.is_ascii_alphanumeric() || c == '-' || c == '.'))
            .filter(|t| !t.is_empty())
        {
            if out.element_type == "pred" && matches!(token, "true" | "false") {
                continue;
            }
            if !token.parse::<i128>().is_ok_and(|v| ty.fits(v)) {
                let (lo, hi) = ty.integer_range().unwrap_or_default();
                return Err(self.error(format!(
                    "`{token}` is not a value of type {} (range {lo} to {hi})",
                    out.element_type
                )));
            }
        }
        Ok(())
    }

    fn slice(&self) -> VResult<()> {
        let a = self.operand_array(0)?;
        let out = self.output_array()?;
        let Some(slice) = self.inst.attrs.slice() else {
            return Err(
                self.error("it needs a `slice={[start:limit:stride], ...}` attribute".into())
            );
        };
        if slice.len() != a.rank() {
            return Err(self.attr_error(
                "slice",
                format!(
                    "`slice` has {} dimensions, the operand {}",
                    slice.len(),
                    a.rank()
                ),
            ));
        }
        for (i, s) in slice.iter().enumerate() {
            if s.stride < 1 || s.start < 0 || s.start > s.limit || s.limit > a.dims[i] {
                return Err(self.attr_error(
                    "slice",
                    format!(
                        "`[{}:{}:{}]` is not a slice of dimension {i} (size {})",
                        s.start, s.limit, s.stride, a.dims[i]
                    ),
                ));
            }
            // `start <= limit` and `stride >= 1` here; i128 keeps the sum exact.
            let size = (i128::from(s.limit) - i128::from(s.start) + i128::from(s.stride) - 1)
                / i128::from(s.stride);
            if out.dims.get(i).map(|&d| i128::from(d)) != Some(size) {
                return Err(self.error(format!(
                    "slice dimension {i} has {size} elements, the output {:?}",
                    out.dims.get(i)
                )));
            }
        }
        if out.rank() != a.rank() {
            return Err(self.error("the output rank differs from the operand's".into()));
        }
        Ok(())
    }

    fn pad(&self) -> VResult<()> {
        let a = self.operand_array(0)?;
        let out = self.output_array()?;
        if self.operand_array(1)?.rank() != 0 {
            return Err(self.error("the padding value must be a scalar".into()));
        }
        let Some(p) = self.inst.attrs.padding() else {
            return Err(self.error("it needs a `padding=` attribute".into()));
        };
        if p.len() != a.rank() || out.rank() != a.rank() {
            return Err(self.attr_error(
                "padding",
                format!(
                    "`padding` has {} dimensions, the operand {}",
                    p.len(),
                    a.rank()
                ),
            ));
        }
        for (i, d) in p.iter().enumerate() {
            let n = i128::from(a.dims[i]);
            let size = i128::from(d.low)
                + i128::from(d.high)
                + n
                + (n - 1).max(0) * i128::from(d.interior);
            if d.interior < 0 || size != i128::from(out.dims[i]) {
                return Err(self.attr_error(
                    "padding",
                    format!(
                        "padding dimension {i} ({}_{}_{}) of size {n} gives {size}, the output {}",
                        d.low, d.high, d.interior, out.dims[i]
                    ),
                ));
            }
        }
        Ok(())
    }

    fn dot(&self) -> VResult<()> {
        let l = self.operand_array(0)?;
        let r = self.operand_array(1)?;
        let out = self.output_array()?;
        let list = |name: &str, rank: usize| {
            self.dimension_numbers(name, self.inst.attrs.ints(name).unwrap_or(&[]), rank)
        };
        let lb = list("lhs_batch_dims", l.rank())?;
        let rb = list("rhs_batch_dims", r.rank())?;
        let lc = list("lhs_contracting_dims", l.rank())?;
        let rc = list("rhs_contracting_dims", r.rank())?;
        if lb.len() != rb.len() || lc.len() != rc.len() {
            return Err(self.error(
                "lhs and rhs list different numbers of batch or contracting dimensions".into(),
            ));
        }
        for (&x, &y) in lb.iter().zip(&rb).chain(lc.iter().zip(&rc)) {
            if l.dims[x] != r.dims[y] {
                return Err(self.error(format!(
                    "lhs dimension {x} (size {}) is paired with rhs dimension {y} (size {})",
                    l.dims[x], r.dims[y]
                )));
            }
        }
        if lb.iter().any(|d| lc.contains(d)) || rb.iter().any(|d| rc.contains(d)) {
            return Err(self.error("a dimension is both batch and contracting".into()));
        }
        let free = |a: &ArrayShape, b: &[usize], c: &[usize]| -> Vec<i64> {
            (0..a.rank())
                .filter(|d| !b.contains(d) && !c.contains(d))
                .map(|d| a.dims[d])
                .collect()
        };
        let mut expected: Vec<i64> = lb.iter().map(|&d| l.dims[d]).collect();
        expected.extend(free(l, &lb, &lc));
        expected.extend(free(r, &rb, &rc));
        if out.dims != expected {
            return Err(self.error(format!(
                "the product has shape {expected:?}, not {:?}",
                out.dims
            )));
        }
        Ok(())
    }

    fn reshape(&self) -> VResult<()> {
        let a = self.operand_array(0)?;
        let out = self.output_array()?;
        if a.element_count() != out.element_count() {
            return Err(self.error(format!(
                "reshaping {:?} into {:?} changes the number of elements",
                a.dims, out.dims
            )));
        }
        Ok(())
    }

    fn concatenate(&self) -> VResult<()> {
        let out = self.output_array()?;
        let dims = self.ints("dimensions")?;
        let dim = self.dimension_numbers("dimensions", dims, out.rank())?;
        let [dim] = dim[..] else {
            return Err(self.attr_error(
                "dimensions",
                "`dimensions` must name exactly one dimension".into(),
            ));
        };
        let mut total = 0i64;
        for k in 0..self.inst.operands.len() {
            let a = self.operand_array(k)?;
            let same_elsewhere = a.rank() == out.rank()
                && (0..out.rank()).all(|d| d == dim || a.dims[d] == out.dims[d]);
            if !same_elsewhere {
                return Err(self.error(format!(
                    "operand {k} {:?} does not match the output {:?} outside dimension {dim}",
                    a.dims, out.dims
                )));
            }
            total = total.saturating_add(a.dims[dim]);
        }
        if total != out.dims[dim] {
            return Err(self.error(format!(
                "the operands give {total} elements along dimension {dim}, the output {}",
                out.dims[dim]
            )));
        }
        Ok(())
    }

    fn call(&self) -> VResult<()> {
        let &[callee] = self.inst.called.as_slice() else {
            return Err(
                self.error("it must call exactly one computation (`calls=` or `to_apply=`)".into())
            );
        };
        let params = self.module.computations[callee].parameters.len();
        let n = self.inst.operands.len();
        if params != n {
            return Err(self.error(format!(
                "it passes {n} operands to `{}`, which has {params} parameters",
                self.module.computations[callee].name
            )));
        }
        Ok(())
    }

    /// Operands of an elementwise op have the output's dimensions; `select`
    /// and `clamp` may take scalars for the predicate and bounds.
    fn elementwise(&self) -> VResult<()> {
        let out = self.output_array()?;
        let scalars_ok = matches!(self.inst.opcode, Opcode::Select | Opcode::Clamp);
        for k in 0..self.inst.operands.len() {
            let a = self.operand_array(k)?;
            if a.dims != out.dims && !(scalars_ok && a.rank() == 0) {
                return Err(self.error(format!(
                    "operand {k} has shape {:?}, the output {:?}",
                    a.dims, out.dims
                )));
            }
        }
        Ok(())
    }
}

/// Whether two shapes have the same structure, element types and dimensions
/// (layouts aside).
fn same_shape(a: &Shape, b: &Shape) -> bool {
    match (a, b) {
        (Shape::Array(x), Shape::Array(y)) => x.element_type == y.element_type && x.dims == y.dims,
        (Shape::Tuple(x), Shape::Tuple(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| same_shape(p, q))
        }
        _ => false,
    }
}
