//! TOPI's broadcasting and element-wise operators beyond `add`...`floor_divide` (`tvm.topi.broadcast`, `tvm.topi.math`): maximum, minimum, power, mod, comparisons, logical operators, clip.
//!
//! Every operator is built as TOPI v0.19 builds it (stage names, tags,
//! axis names and bodies), so that schedules written against TOPI's
//! output find what they expect:
//!
//! - `maximum`, `minimum`, `power`, `mod`, `floor_mod`, `greater`,
//!   `less`, `equal`, `not_equal`, `greater_equal`, `less_equal`,
//!   `logical_and`, `logical_or` (C++ `TOPI_DEFINE_BCAST_OP`): one stage
//!   `T_<name>` over the broadcast shape, axes `ax0, ax1, ...`, tagged
//!   `broadcast` for two tensors and `elemwise` for a tensor and a scalar;
//!   two scalars give the scalar expression. Comparisons give `bool`.
//! - `logical_not` (`T_logical_not`), `sign` (`T_sign`): C++ element-wise
//!   stages, tag `elemwise`, axes `ax0, ...`.
//! - `clip(x, a_min, a_max)`: TOPI's Python `te.compute`, a stage
//!   `compute` (tag `elemwise`, axes `i0, i1, ...`).
//! - `fast_tanh`: for float32, `T_minimum` and `T_maximum` clamping the
//!   input to [-9, 9] then `T_fast_tanh`, a rational polynomial; for other
//!   types `T_fast_tanh` of `tanh`. `fast_erf`: `T_fast_erf`, TVM's
//!   `fast_erf_float_expr` for float32 and float16, else `T_erf`.
//!
//! Operators whose bodies need what element values cannot express (bit
//! operations, integer truncating modulo, NaN tests, reinterpretation)
//! are recognised and refused with an error saying so. A float `mod`
//! (TVM's `truncmod`, printed `a % b`) is C's `fmod`, printed so: element
//! values' `%` is floor modulo.

use crate::args::{Args, Given};
use crate::error::{not_supported, type_error, ApiError, ApiResult, ErrorClass};
use crate::object::Object;
use crate::objects::{element, element_constant, float_constant, promote, to_element};
use crate::value::Value;
use crate::Host;
use arith::{CmpOp, Expr};
use te::{Attrs, BinaryOp as Op};
use tir::{DataType, Intrinsic};

/// The two-operand operators, each `T_<name>` with broadcasting.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Binary {
    /// `maximum`: `max(a, b)`.
    Maximum,
    /// `minimum`: `min(a, b)`.
    Minimum,
    /// `power`: `pow(a, b)`, floats only as in TVM.
    Power,
    /// `mod`: TVM's `truncmod` (the sign of the dividend); floats only here.
    Mod,
    /// `floor_mod`: `floormod` of integers, `a - floor(a / b) * b` of floats.
    FloorMod,
    /// `greater`: `a > b`.
    Greater,
    /// `less`: `a < b`.
    Less,
    /// `equal`: `a == b`.
    Equal,
    /// `not_equal`: `a != b`.
    NotEqual,
    /// `greater_equal`: `a >= b`.
    GreaterEqual,
    /// `less_equal`: `a <= b`.
    LessEqual,
    /// `logical_and`: `a && b` of booleans.
    LogicalAnd,
    /// `logical_or`: `a || b` of booleans.
    LogicalOr,
}

impl Binary {
    /// Every binary operator, for looking names up.
    const ALL: [Binary; 13] = [
        Binary::Maximum,
        Binary::Minimum,
        Binary::Power,
        Binary::Mod,
        Binary::FloorMod,
        Binary::Greater,
        Binary::Less,
        Binary::Equal,
        Binary::NotEqual,
        Binary::GreaterEqual,
        Binary::LessEqual,
        Binary::LogicalAnd,
        Binary::LogicalOr,
    ];

    /// TOPI's name of the operator (`maximum`); the stage is `T_<name>`.
    fn name(self) -> &'static str {
        match self {
            Binary::Maximum => "maximum",
            Binary::Minimum => "minimum",
            Binary::Power => "power",
            Binary::Mod => "mod",
            Binary::FloorMod => "floor_mod",
            Binary::Greater => "greater",
            Binary::Less => "less",
            Binary::Equal => "equal",
            Binary::NotEqual => "not_equal",
            Binary::GreaterEqual => "greater_equal",
            Binary::LessEqual => "less_equal",
            Binary::LogicalAnd => "logical_and",
            Binary::LogicalOr => "logical_or",
        }
    }

    /// The comparison the operator is, if it is one (its result is `bool`).
    fn comparison(self) -> Option<CmpOp> {
        Some(match self {
            Binary::Greater => CmpOp::Gt,
            Binary::Less => CmpOp::Lt,
            Binary::Equal => CmpOp::Eq,
            Binary::NotEqual => CmpOp::Ne,
            Binary::GreaterEqual => CmpOp::Ge,
            Binary::LessEqual => CmpOp::Le,
            _ => return None,
        })
    }
}

/// The operators of this module, one per TOPI function.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BroadcastOp {
    /// `tvm.topi.maximum` and the other broadcasting binary operators.
    Binary(Binary),
    /// `tvm.topi.logical_not`: `!x` of a boolean tensor.
    LogicalNot,
    /// `tvm.topi.clip(x, a_min, a_max)`.
    Clip,
    /// `tvm.topi.sign`: -1, 0 or 1 in the input's type.
    Sign,
    /// `tvm.topi.fast_tanh`: a clamped rational approximation of `tanh`.
    FastTanh,
    /// `tvm.topi.fast_erf`: a clamped rational approximation of `erf`.
    FastErf,
    /// A TOPI operator whose body element values cannot express: the
    /// TVM name, and what is missing.
    Unrepresentable(&'static str, &'static str),
}

/// TOPI's operators that are recognised but cannot be built: each with
/// the modules it is found in, and why.
const UNREPRESENTABLE: &[(&str, bool, &str)] = &[
    ("logical_xor", true, "bitwise XOR"),
    ("bitwise_and", true, "bitwise AND"),
    ("bitwise_or", true, "bitwise OR"),
    ("bitwise_xor", true, "bitwise XOR"),
    ("bitwise_not", true, "bitwise NOT"),
    ("left_shift", true, "bit shifts"),
    ("right_shift", true, "bit shifts"),
    ("isnan", false, "a NaN test"),
    ("isfinite", false, "a finiteness test"),
    ("isinf", false, "an infinity test"),
    (
        "fast_exp",
        false,
        "bit reinterpretation of floats and bit shifts",
    ),
    ("reinterpret", false, "bit reinterpretation"),
];

impl BroadcastOp {
    /// The operator `module_path.name`, if this module builds it:
    /// broadcasting operators under `tvm.topi.broadcast`, element-wise ones
    /// under `tvm.topi.math`, all under `tvm.topi`.
    pub(crate) fn lookup(module_path: &str, name: &str) -> Option<BroadcastOp> {
        if !matches!(
            module_path,
            "tvm.topi" | "tvm.topi.broadcast" | "tvm.topi.math"
        ) {
            return None;
        }
        let top = module_path == "tvm.topi";
        let broadcast_module = top || module_path == "tvm.topi.broadcast";
        let math_module = top || module_path == "tvm.topi.math";
        if let Some(b) = Binary::ALL.iter().find(|b| b.name() == name) {
            return broadcast_module.then_some(BroadcastOp::Binary(*b));
        }
        if let Some((n, in_broadcast, why)) = UNREPRESENTABLE.iter().find(|u| u.0 == name) {
            // `math.py` has shifts of its own, which `broadcast`'s hide.
            let found = if *in_broadcast {
                broadcast_module || matches!(*n, "left_shift" | "right_shift")
            } else {
                math_module
            };
            return found.then_some(BroadcastOp::Unrepresentable(n, why));
        }
        match name {
            "logical_not" if broadcast_module => Some(BroadcastOp::LogicalNot),
            "clip" if math_module => Some(BroadcastOp::Clip),
            "sign" if math_module => Some(BroadcastOp::Sign),
            "fast_tanh" if math_module => Some(BroadcastOp::FastTanh),
            "fast_erf" if math_module => Some(BroadcastOp::FastErf),
            _ => None,
        }
    }

    /// TVM's dotted name of the operator, for messages.
    pub(crate) fn tvm_name(self) -> &'static str {
        match self {
            BroadcastOp::Binary(b) => match b {
                Binary::Maximum => "tvm.topi.maximum",
                Binary::Minimum => "tvm.topi.minimum",
                Binary::Power => "tvm.topi.power",
                Binary::Mod => "tvm.topi.mod",
                Binary::FloorMod => "tvm.topi.floor_mod",
                Binary::Greater => "tvm.topi.greater",
                Binary::Less => "tvm.topi.less",
                Binary::Equal => "tvm.topi.equal",
                Binary::NotEqual => "tvm.topi.not_equal",
                Binary::GreaterEqual => "tvm.topi.greater_equal",
                Binary::LessEqual => "tvm.topi.less_equal",
                Binary::LogicalAnd => "tvm.topi.logical_and",
                Binary::LogicalOr => "tvm.topi.logical_or",
            },
            BroadcastOp::LogicalNot => "tvm.topi.logical_not",
            BroadcastOp::Clip => "tvm.topi.clip",
            BroadcastOp::Sign => "tvm.topi.sign",
            BroadcastOp::FastTanh => "tvm.topi.fast_tanh",
            BroadcastOp::FastErf => "tvm.topi.fast_erf",
            BroadcastOp::Unrepresentable(n, _) => match n {
                "logical_xor" => "tvm.topi.logical_xor",
                "bitwise_and" => "tvm.topi.bitwise_and",
                "bitwise_or" => "tvm.topi.bitwise_or",
                "bitwise_xor" => "tvm.topi.bitwise_xor",
                "bitwise_not" => "tvm.topi.bitwise_not",
                "left_shift" => "tvm.topi.left_shift",
                "right_shift" => "tvm.topi.right_shift",
                "isnan" => "tvm.topi.isnan",
                "isfinite" => "tvm.topi.isfinite",
                "isinf" => "tvm.topi.isinf",
                "fast_exp" => "tvm.topi.fast_exp",
                _ => "tvm.topi.reinterpret",
            },
        }
    }
}

/// Builds `op` from a call's arguments.
pub(crate) fn call(_host: &mut dyn Host, args: Args, op: BroadcastOp) -> ApiResult<Value> {
    match op {
        BroadcastOp::Binary(b) => {
            let a = args.bind(b.name(), &["lhs", "rhs"])?;
            binary(b, a.required("lhs")?, a.required("rhs")?)
        }
        BroadcastOp::LogicalNot => {
            let a = args.bind("logical_not", &["data"])?;
            logical_not(a.required("data")?)
        }
        BroadcastOp::Clip => {
            let a = args.bind("clip", &["x", "a_min", "a_max"])?;
            clip(a.required("x")?, a.required("a_min")?, a.required("a_max")?)
        }
        BroadcastOp::Sign => {
            let a = args.bind("sign", &["x"])?;
            sign(&tensor_arg(a.required("x")?, op)?)
        }
        BroadcastOp::FastTanh => {
            let a = args.bind("fast_tanh", &["x"])?;
            fast_tanh(&tensor_arg(a.required("x")?, op)?)
        }
        BroadcastOp::FastErf => {
            let a = args.bind("fast_erf", &["x"])?;
            fast_erf(&tensor_arg(a.required("x")?, op)?)
        }
        BroadcastOp::Unrepresentable(_, why) => Err(ApiError::not_supported(format!(
            "`{}` is not supported by rangefinder: its body needs {why}, which rangefinder's \
             tensor element expressions cannot represent",
            op.tvm_name()
        ))),
    }
}

/// The tensor argument `g` of `op`, or a type error naming the operator.
fn tensor_arg(g: &Given, op: BroadcastOp) -> ApiResult<te::Tensor> {
    crate::topi_ops::tensor_arg(g, op.tvm_name())
}

/// A C++ `te::compute` over `shape`: axes `ax0, ax1, ...`.
fn cpp_compute(
    shape: Vec<Expr>,
    f: impl FnOnce(&[Expr]) -> ApiResult<te::Value>,
    name: &str,
    tag: &str,
) -> ApiResult<te::Tensor> {
    let names: Vec<String> = (0..shape.len()).map(|d| format!("ax{d}")).collect();
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    build(shape, &names, f, name, tag)
}

/// A compute (axes named `names`) whose body builder may fail with an
/// API error, which is passed on as it is.
fn build(
    shape: Vec<Expr>,
    names: &[&str],
    f: impl FnOnce(&[Expr]) -> ApiResult<te::Value>,
    name: &str,
    tag: &str,
) -> ApiResult<te::Tensor> {
    use crate::functions::BuildFailure;
    te::try_compute_tagged::<BuildFailure>(
        shape,
        names,
        |i| f(i).map_err(BuildFailure::Host),
        name,
        tag,
        Attrs::new(),
    )
    .map_err(ApiError::from)
}

/// A built tensor as a program value.
fn tensor_value(t: te::Tensor) -> Value {
    Value::Object(Object::Tensor(t))
}

/// A scalar operand as TVM converts it to a `PrimExpr`: a Python int is an
/// `int32` constant, a float a `float32` one, a bool a `bool` one.
fn scalar(g: &Given) -> ApiResult<te::Value> {
    match promote(&g.value) {
        Value::Bool(b) => Ok(te::Value::index(Expr::bool(b))),
        v => to_element(&v, g.place()),
    }
}

/// Whether `v` is a boolean: of type `bool`, or a condition on indices.
fn is_bool(v: &te::Value) -> bool {
    v.dtype() == DataType::Bool
        || matches!(v.kind(), te::ValueKind::Index(e) if e.ty() == arith::Type::Bool)
}

/// `v` as a value of type `to`: a constant becomes a constant of that
/// type, anything else is cast.
fn convert(v: te::Value, to: DataType) -> ApiResult<te::Value> {
    if v.dtype() == to || is_bool(&v) && to == DataType::Bool {
        return Ok(v);
    }
    let constant = matches!(v.kind(), te::ValueKind::Float(_))
        || matches!(v.kind(), te::ValueKind::Index(e) if e.as_int().is_some());
    match element_constant(&v).filter(|_| constant) {
        Some(c) if to.is_float() => Ok(float_constant(c, to)),
        Some(c) => {
            if let Some((lo, hi)) = to.int_range() {
                if c.fract() != 0.0 || c < lo as f64 || c > hi as f64 {
                    return Err(ApiError::new(
                        ErrorClass::ValueError,
                        format!("the constant {c} does not fit in {to}"),
                    ));
                }
            }
            let i = c as i64;
            Ok(if matches!(to, DataType::Int32 | DataType::Int64) {
                te::Value::int(i)
            } else {
                te::Value::cast(to, te::Value::int(i))
            })
        }
        None => Ok(te::Value::cast(to, v)),
    }
}

/// TVM's `BinaryOpMatchTypes`: an integer side meeting a float is
/// converted to the float's type; otherwise a constant takes the other
/// side's type, and of two non-constants the narrower is widened.
fn match_types(a: te::Value, b: te::Value) -> ApiResult<(te::Value, te::Value)> {
    let (da, db) = (a.dtype(), b.dtype());
    if da == db || is_bool(&a) && is_bool(&b) {
        return Ok((a, b));
    }
    let constant = |v: &te::Value| match v.kind() {
        te::ValueKind::Float(_) => true,
        te::ValueKind::Index(e) => e.as_int().is_some(),
        _ => false,
    };
    let to = if da.is_float() != db.is_float() {
        if da.is_float() {
            da
        } else {
            db
        }
    } else if constant(&a) && !constant(&b) {
        db
    } else if constant(&b) && !constant(&a) {
        da
    } else {
        da.promote(db)
    };
    Ok((convert(a, to)?, convert(b, to)?))
}

/// The body of `op` on two values of matched types.
fn apply(op: Binary, a: te::Value, b: te::Value) -> ApiResult<te::Value> {
    let (a, b) = match_types(a, b)?;
    let float = a.dtype().is_float();
    if let Some(cmp) = op.comparison() {
        return Ok(te::Value::cmp(cmp, a, b));
    }
    Ok(match op {
        Binary::Maximum => te::Value::max(a, b),
        Binary::Minimum => te::Value::min(a, b),
        Binary::Power if float => te::Value::call(Intrinsic::Pow, vec![a, b]),
        Binary::Power => {
            return Err(type_error(
                None,
                format!(
                    "`topi.power` applies to floats only (as TVM's `pow`), not {}: cast the \
                     operands to a float type",
                    a.dtype()
                ),
            ))
        }
        // A float's truncating modulo is C's `fmod`.
        Binary::Mod if float => te::Value::call(Intrinsic::Fmod, vec![a, b]),
        Binary::Mod => {
            return Err(not_supported(
                None,
                "`topi.mod` of integers (TVM's truncating modulo `truncmod`) is not supported: \
                 rangefinder's integer element modulo is floor modulo; use `topi.floor_mod` \
                 when the operands are not negative",
            ))
        }
        Binary::FloorMod if float => {
            let quotient = te::Value::call(
                Intrinsic::Floor,
                vec![te::Value::binary(Op::Div, a.clone(), b.clone())],
            );
            te::Value::binary(Op::Sub, a, te::Value::binary(Op::Mul, quotient, b))
        }
        Binary::FloorMod => te::Value::binary(Op::Mod, a, b),
        Binary::LogicalAnd | Binary::LogicalOr => {
            if !is_bool(&a) || !is_bool(&b) {
                return Err(type_error(
                    None,
                    format!(
                        "`topi.{}` takes booleans, found {} and {}: compare the operands first",
                        op.name(),
                        a.dtype(),
                        b.dtype()
                    ),
                ));
            }
            if op == Binary::LogicalAnd {
                te::Value::and(a, b)
            } else {
                te::Value::or(a, b)
            }
        }
        _ => unreachable!("comparisons are handled above"),
    })
}

/// `op(lhs, rhs)`: two tensors broadcast (`broadcast`), a tensor and a
/// scalar element by element (`elemwise`), two scalars the expression.
fn binary(op: Binary, lhs: &Given, rhs: &Given) -> ApiResult<Value> {
    let name = format!("T_{}", op.name());
    match (&lhs.value, &rhs.value) {
        (Value::Object(Object::Tensor(a)), Value::Object(Object::Tensor(b))) => {
            let (shape, ia, ib) = broadcast_shape(a.shape(), b.shape())?;
            cpp_compute(
                shape,
                |o| apply(op, a.at(ia.indices(o)), b.at(ib.indices(o))),
                &name,
                "broadcast",
            )
            .map(tensor_value)
        }
        (Value::Object(Object::Tensor(a)), _) => {
            let s = scalar(rhs)?;
            cpp_compute(
                a.shape().to_vec(),
                |o| apply(op, a.at(o.to_vec()), s),
                &name,
                "elemwise",
            )
            .map(tensor_value)
        }
        (_, Value::Object(Object::Tensor(b))) => {
            let s = scalar(lhs)?;
            cpp_compute(
                b.shape().to_vec(),
                |o| apply(op, s, b.at(o.to_vec())),
                &name,
                "elemwise",
            )
            .map(tensor_value)
        }
        _ => scalar_binary(op, lhs, rhs),
    }
}

/// `op` of two scalars: an index expression when both are (`maximum(i,
/// 0)`), else an element expression.
fn scalar_binary(op: Binary, lhs: &Given, rhs: &Given) -> ApiResult<Value> {
    let index = |g: &Given| match promote(&g.value) {
        Value::Int(i) => Some(Expr::int(i)),
        Value::Index(e) if e.ty() != arith::Type::Bool => Some(e),
        _ => None,
    };
    if let (Some(a), Some(b)) = (index(lhs), index(rhs)) {
        let e = match op {
            Binary::Maximum => Some(Expr::max(a, b)),
            Binary::Minimum => Some(Expr::min(a, b)),
            Binary::FloorMod => Some(Expr::floor_mod(a, b)),
            _ => op.comparison().map(|c| Expr::cmp(c, a, b)),
        };
        if let Some(e) = e {
            return Ok(Value::Index(e));
        }
    }
    let v = apply(op, scalar(lhs)?, scalar(rhs)?)?;
    Ok(element(v))
}

/// How one operand of a broadcast is read at the output's indices: from
/// which output dimension each of its dimensions takes its index, or 0
/// for a dimension of size 1 stretched over the output.
struct Reader(Vec<Option<usize>>);

impl Reader {
    /// The operand's indices at the output's indices `o`.
    fn indices(&self, o: &[Expr]) -> Vec<Expr> {
        self.0
            .iter()
            .map(|d| d.map_or_else(|| Expr::int(0), |d| o[d].clone()))
            .collect()
    }
}

/// TOPI's `BroadcastShape`: dimensions aligned from the end; equal ones
/// are kept, one of size 1 takes the other's (and is read at 0), two
/// symbolic ones their maximum, a symbolic and a constant the constant;
/// two different constants are an error.
fn broadcast_shape(s1: &[Expr], s2: &[Expr]) -> ApiResult<(Vec<Expr>, Reader, Reader)> {
    let n = s1.len().max(s2.len());
    let mut shape = vec![Expr::int(0); n];
    let mut r1 = vec![None; s1.len()];
    let mut r2 = vec![None; s2.len()];
    let constant = crate::objects::constant_value;
    for k in 1..=n {
        let d = n - k;
        match (s1.len().checked_sub(k), s2.len().checked_sub(k)) {
            (Some(i), Some(j)) => {
                let (a, b) = (&s1[i], &s2[j]);
                let (ca, cb) = (constant(a), constant(b));
                let (dim, use1, use2) = if a == b || (ca.is_some() && ca == cb) {
                    (a.clone(), true, true)
                } else if ca == Some(1) {
                    (b.clone(), false, true)
                } else if cb == Some(1) {
                    (a.clone(), true, false)
                } else {
                    match (ca, cb) {
                        (None, None) => (Expr::max(a.clone(), b.clone()), true, true),
                        (None, Some(_)) => (b.clone(), true, true),
                        (Some(_), None) => (a.clone(), true, true),
                        (Some(x), Some(y)) => {
                            return Err(ApiError::new(
                                ErrorClass::ValueError,
                                format!(
                                    "cannot broadcast shapes: dimension {d} is {x} on one side \
                                     and {y} on the other (each must be equal or 1)"
                                ),
                            ))
                        }
                    }
                };
                shape[d] = dim;
                r1[i] = use1.then_some(d);
                r2[j] = use2.then_some(d);
            }
            (Some(i), None) => {
                shape[d] = s1[i].clone();
                r1[i] = Some(d);
            }
            (None, Some(j)) => {
                shape[d] = s2[j].clone();
                r2[j] = Some(d);
            }
            (None, None) => unreachable!("k is at most the longer rank"),
        }
    }
    Ok((shape, Reader(r1), Reader(r2)))
}

/// `logical_not(data)`: `T_logical_not` (tag `elemwise`) of a boolean
/// tensor, or the negation of a condition.
fn logical_not(g: &Given) -> ApiResult<Value> {
    let not = |v: te::Value| {
        if !is_bool(&v) {
            return Err(type_error(
                g.place(),
                format!(
                    "`topi.logical_not` takes booleans, found {}: compare first",
                    v.dtype()
                ),
            ));
        }
        Ok(te::Value::new(te::ValueKind::Not(v)))
    };
    match promote(&g.value) {
        Value::Object(Object::Tensor(x)) => cpp_compute(
            x.shape().to_vec(),
            |o| not(x.at(o.to_vec())),
            "T_logical_not",
            "elemwise",
        )
        .map(tensor_value),
        Value::Bool(b) => Ok(Value::Index(Expr::bool(!b))),
        Value::Index(e) if e.ty() == arith::Type::Bool => Ok(Value::Index(Expr::not(e))),
        _ => Ok(element(not(scalar(g)?)?)),
    }
}

/// A constant of `dtype` (TVM's `make_const`).
fn constant_of(dtype: DataType, value: f64) -> te::Value {
    if dtype.is_float() {
        float_constant(value, dtype)
    } else if matches!(dtype, DataType::Int32 | DataType::Int64) {
        te::Value::int(value as i64)
    } else {
        te::Value::cast(dtype, te::Value::int(value as i64))
    }
}

/// `clip(x, a_min, a_max)` as TOPI's Python writes it: a stage `compute`
/// (tag `elemwise`, axes `i0, ...`) of `max(min(x, a_max), a_min)`, the
/// bounds constants of `x`'s type (or casts of expressions to it).
fn clip(x: &Given, lo: &Given, hi: &Given) -> ApiResult<Value> {
    let t = tensor_arg(x, BroadcastOp::Clip)?;
    let dtype = t.dtype();
    let bound = |g: &Given| -> ApiResult<te::Value> {
        match promote(&g.value) {
            v @ (Value::Int(_) | Value::Float(_) | Value::Bool(_)) => {
                let typed = crate::functions::typed_constant(&v, dtype, g.place())?;
                let c = to_element(&typed, g.place())?;
                convert(c, dtype).map_err(|e| e.at(g.at.clone()))
            }
            Value::Index(e) if e.as_int().is_some() => {
                let c = to_element(&Value::Index(e), g.place())?;
                convert(c, dtype).map_err(|e| e.at(g.at.clone()))
            }
            other => {
                let v = to_element(&other, g.place())?;
                Ok(if v.dtype() == dtype {
                    v
                } else {
                    te::Value::cast(dtype, v)
                })
            }
        }
    };
    let (min_val, max_val) = (bound(lo)?, bound(hi)?);
    let names: Vec<String> = (0..t.ndim()).map(|d| format!("i{d}")).collect();
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    build(
        t.shape().to_vec(),
        &names,
        |i| {
            let v = t.at(i.to_vec());
            Ok(te::Value::max(te::Value::min(v, max_val), min_val))
        },
        "compute",
        "elemwise",
    )
    .map(tensor_value)
}

/// `sign(x)`: `T_sign` (tag `elemwise`), `x > 0 ? 1 : (x < 0 ? -1 : 0)`
/// in `x`'s type.
fn sign(x: &te::Tensor) -> ApiResult<Value> {
    let dt = x.dtype();
    cpp_compute(
        x.shape().to_vec(),
        |o| {
            let v = x.at(o.to_vec());
            let (zero, one, minus_one) = (
                constant_of(dt, 0.0),
                constant_of(dt, 1.0),
                constant_of(dt, -1.0),
            );
            let s1 = te::Value::select_value(
                te::Value::cmp(CmpOp::Lt, v.clone(), zero.clone()),
                minus_one,
                zero.clone(),
            );
            Ok(te::Value::select_value(
                te::Value::cmp(CmpOp::Gt, v, zero),
                one,
                s1,
            ))
        },
        "T_sign",
        "elemwise",
    )
    .map(tensor_value)
}

/// `p(x) / q(x)`: the odd numerator `x * (a1 + a3 x^2 + ...)` over the
/// even denominator `b0 + b2 x^2 + ...`, each evaluated by Horner's rule
/// from its highest coefficient, as TVM writes its fast approximations.
fn rational(x: te::Value, alphas: &[f64], betas: &[f64], dt: DataType) -> te::Value {
    let x2 = x.clone() * x.clone();
    let horner = |coeffs: &[f64]| {
        // Highest first: `x2 * c_n + c_{n-1}`, then `x2 * p + c`.
        let mut it = coeffs.iter().rev();
        let top = constant_of(dt, *it.next().expect("coefficients"));
        let next = constant_of(dt, *it.next().expect("two coefficients"));
        let mut p = x2.clone() * top + next;
        for &c in it {
            p = x2.clone() * p + constant_of(dt, c);
        }
        p
    };
    let p = x * horner(alphas);
    let q = horner(betas);
    p / q
}

/// `fast_tanh(x)`: for float32, `T_minimum` = `min(9, x)`, `T_maximum` =
/// `max(-9, T_minimum)`, then `T_fast_tanh`, TVM's rational polynomial of
/// the clamped value; for other types `T_fast_tanh` of `tanh(x)`.
fn fast_tanh(x: &te::Tensor) -> ApiResult<Value> {
    let shape = x.shape().to_vec();
    if x.dtype() != DataType::Float32 {
        return cpp_compute(
            shape,
            |o| Ok(te::Value::call(Intrinsic::Tanh, vec![x.at(o.to_vec())])),
            "T_fast_tanh",
            "elemwise",
        )
        .map(tensor_value);
    }
    let dt = x.dtype();
    let lowered = cpp_compute(
        shape.clone(),
        |o| apply(Binary::Minimum, constant_of(dt, 9.0), x.at(o.to_vec())),
        "T_minimum",
        "elemwise",
    )?;
    let clamped = cpp_compute(
        shape.clone(),
        |o| {
            apply(
                Binary::Maximum,
                constant_of(dt, -9.0),
                lowered.at(o.to_vec()),
            )
        },
        "T_maximum",
        "elemwise",
    )?;
    const ALPHAS: [f64; 7] = [
        4.89352455891786e-03,
        6.37261928875436e-04,
        1.48572235717979e-05,
        5.12229709037114e-08,
        -8.60467152213735e-11,
        2.00018790482477e-13,
        -2.76076847742355e-16,
    ];
    const BETAS: [f64; 4] = [
        4.89352518554385e-03,
        2.26843463243900e-03,
        1.18534705686654e-04,
        1.19825839466702e-06,
    ];
    cpp_compute(
        shape,
        |o| Ok(rational(clamped.at(o.to_vec()), &ALPHAS, &BETAS, dt)),
        "T_fast_tanh",
        "elemwise",
    )
    .map(tensor_value)
}

/// `fast_erf(x)`: for float32 and float16, `T_fast_erf` of TVM's
/// `fast_erf_float_expr` (the input clamped to [-4, 4], then a rational
/// polynomial with single-precision coefficients); for other types
/// `T_erf` of `erf(x)`.
fn fast_erf(x: &te::Tensor) -> ApiResult<Value> {
    let shape = x.shape().to_vec();
    let dt = x.dtype();
    if !matches!(dt, DataType::Float32 | DataType::Float16) {
        return cpp_compute(
            shape,
            |o| Ok(te::Value::call(Intrinsic::Erf, vec![x.at(o.to_vec())])),
            "T_erf",
            "elemwise",
        )
        .map(tensor_value);
    }
    // TVM writes the coefficients as C `float` literals.
    let single = |c: f64| f64::from(c as f32);
    let alphas = [
        -1.60960333262415e-02,
        -2.95459980854025e-03,
        -7.34990630326855e-04,
        -5.69250639462346e-05,
        -2.10102402082508e-06,
        2.77068142495902e-08,
        -2.72614225801306e-10,
    ]
    .map(single);
    let betas = [
        -1.42647390514189e-02,
        -7.37332916720468e-03,
        -1.68282697438203e-03,
        -2.13374055278905e-04,
        -1.45660718464996e-05,
    ]
    .map(single);
    cpp_compute(
        shape,
        |o| {
            let clamped = te::Value::max(
                te::Value::min(x.at(o.to_vec()), constant_of(dt, 4.0)),
                constant_of(dt, -4.0),
            );
            Ok(rational(clamped, &alphas, &betas, dt))
        },
        "T_fast_erf",
        "elemwise",
    )
    .map(tensor_value)
}
