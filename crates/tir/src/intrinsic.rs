//! Pure floating-point math functions called on element values (TVM's
//! `tir.exp`, `tir.sqrt`, ...; CUDA's math library, which Tensor
//! Comprehensions exposes as built-ins).

use std::fmt;

macro_rules! intrinsics {
    ($($variant:ident $name:literal $arity:literal,)*) => {
        /// A math function on floating-point values, named as CUDA's math
        /// library and TVM's intrinsics name it (`exp`, `fabs`, `atan2`).
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum Intrinsic {
            $(
                #[doc = concat!("`", $name, "`, ", stringify!($arity), " argument(s).")]
                $variant,
            )*
        }

        impl Intrinsic {
            /// Every intrinsic, in alphabetical order of names.
            pub const ALL: &'static [Intrinsic] = &[$(Intrinsic::$variant),*];

            /// The printed name (`exp`).
            pub fn name(self) -> &'static str {
                match self {
                    $(Intrinsic::$variant => $name,)*
                }
            }

            /// The number of arguments.
            pub fn arity(self) -> usize {
                match self {
                    $(Intrinsic::$variant => $arity,)*
                }
            }
        }
    };
}

intrinsics! {
    Acos "acos" 1,
    Acosh "acosh" 1,
    Asin "asin" 1,
    Asinh "asinh" 1,
    Atan "atan" 1,
    Atan2 "atan2" 2,
    Atanh "atanh" 1,
    BitwiseAnd "bitwise_and" 2,
    BitwiseNot "bitwise_not" 1,
    BitwiseOr "bitwise_or" 2,
    BitwiseXor "bitwise_xor" 2,
    Cbrt "cbrt" 1,
    Ceil "ceil" 1,
    Copysign "copysign" 2,
    Cos "cos" 1,
    Cosh "cosh" 1,
    Cospi "cospi" 1,
    Erf "erf" 1,
    Exp "exp" 1,
    Exp10 "exp10" 1,
    Exp2 "exp2" 1,
    Expm1 "expm1" 1,
    Fabs "fabs" 1,
    Fdim "fdim" 2,
    Fdivide "fdivide" 2,
    Floor "floor" 1,
    Fma "fma" 3,
    Fmax "fmax" 2,
    Fmin "fmin" 2,
    Fmod "fmod" 2,
    Hypot "hypot" 2,
    Log "log" 1,
    Log10 "log10" 1,
    Log1p "log1p" 1,
    Log2 "log2" 1,
    Logb "logb" 1,
    Nextafter "nextafter" 2,
    Norm3d "norm3d" 3,
    Norm4d "norm4d" 4,
    Popcount "popcount" 1,
    Pow "pow" 2,
    Rcbrt "rcbrt" 1,
    Remainder "remainder" 2,
    Rhypot "rhypot" 2,
    Rnorm3d "rnorm3d" 3,
    Rnorm4d "rnorm4d" 4,
    Round "round" 1,
    Rsqrt "rsqrt" 1,
    ShiftLeft "shift_left" 2,
    ShiftRight "shift_right" 2,
    Sigmoid "sigmoid" 1,
    Sin "sin" 1,
    Sinh "sinh" 1,
    Sinpi "sinpi" 1,
    Sqrt "sqrt" 1,
    Tan "tan" 1,
    Tanh "tanh" 1,
    Trunc "trunc" 1,
}

impl Intrinsic {
    /// The intrinsic printed as `name`, if any.
    pub fn from_name(name: &str) -> Option<Intrinsic> {
        Intrinsic::ALL.iter().copied().find(|i| i.name() == name)
    }

    /// The intrinsic TVM's `tvm.tir.NAME` (also `te.NAME`) builds on tensor
    /// elements: its printed name, or one of TVM's other spellings
    /// (`power` is `pow`, and `abs` of a float is `fabs`).
    ///
    /// ```
    /// use tir::Intrinsic;
    /// assert_eq!(Intrinsic::from_tvm_name("power"), Some(Intrinsic::Pow));
    /// assert_eq!(Intrinsic::from_tvm_name("exp"), Some(Intrinsic::Exp));
    /// assert_eq!(Intrinsic::from_tvm_name("compute"), None);
    /// ```
    pub fn from_tvm_name(name: &str) -> Option<Intrinsic> {
        match name {
            "power" => Some(Intrinsic::Pow),
            "abs" => Some(Intrinsic::Fabs),
            _ => Intrinsic::from_name(name),
        }
    }

    /// [`Self::apply`] for a call of type `dtype`: a bitwise intrinsic's
    /// result keeps the low bits of the type, as the machine's integers do
    /// (`uint32` shifted left wraps around), read back signed or unsigned.
    pub fn apply_as(self, args: &[f64], dtype: crate::DataType) -> Option<f64> {
        let r = self.apply(args)?;
        if !self.is_bitwise() || dtype.is_float() || dtype.bits() >= 64 {
            return Some(r);
        }
        let (x, bits) = (r as i64, dtype.bits());
        let unsigned = matches!(
            dtype,
            crate::DataType::Bool
                | crate::DataType::UInt8
                | crate::DataType::UInt16
                | crate::DataType::UInt32
        );
        let low = if unsigned {
            x & ((1i64 << bits) - 1)
        } else {
            (x << (64 - bits)) >> (64 - bits)
        };
        Some(low as f64)
    }

    /// Whether the intrinsic works on the bits of integers (`bitwise_and`,
    /// `shift_left`, `popcount`, ...): its arguments and result are
    /// integers, where the others compute in floating point.
    pub fn is_bitwise(self) -> bool {
        use Intrinsic::*;
        matches!(
            self,
            BitwiseAnd | BitwiseNot | BitwiseOr | BitwiseXor | Popcount | ShiftLeft | ShiftRight
        )
    }

    /// The function applied to `args` (in double precision; callers round
    /// to their type; bitwise intrinsics on the integers the values hold,
    /// two's complement in 64 bits). `None` when the number of arguments is
    /// wrong.
    pub fn apply(self, args: &[f64]) -> Option<f64> {
        use Intrinsic::*;
        if args.len() != self.arity() {
            return None;
        }
        if self.is_bitwise() {
            let (a, b) = (args[0] as i64, args.get(1).map_or(0, |b| *b as i64));
            // A shift by a negative count or past the width: C leaves it
            // undefined; here the bits all leave.
            let count = u32::try_from(b).ok().filter(|n| *n < 64);
            return Some(match self {
                BitwiseAnd => a & b,
                BitwiseOr => a | b,
                BitwiseXor => a ^ b,
                BitwiseNot => !a,
                Popcount => i64::from(a.count_ones()),
                ShiftLeft => count.map_or(0, |n| a.wrapping_shl(n)),
                _ => count.map_or(if a < 0 { -1 } else { 0 }, |n| a >> n),
            } as f64);
        }
        let a = args[0];
        let b = args.get(1).copied().unwrap_or(0.0);
        let c = args.get(2).copied().unwrap_or(0.0);
        let sum_sq = || args.iter().map(|v| v * v).sum::<f64>();
        Some(match self {
            Acos => a.acos(),
            Acosh => a.acosh(),
            Asin => a.asin(),
            Asinh => a.asinh(),
            Atan => a.atan(),
            Atan2 => a.atan2(b),
            Atanh => a.atanh(),
            Cbrt => a.cbrt(),
            Ceil => a.ceil(),
            Copysign => a.copysign(b),
            Cos => a.cos(),
            Cosh => a.cosh(),
            Cospi => (a * std::f64::consts::PI).cos(),
            Erf => libm::erf(a),
            Exp => a.exp(),
            Exp10 => 10f64.powf(a),
            Exp2 => a.exp2(),
            Expm1 => a.exp_m1(),
            Fabs => a.abs(),
            Fdim => (a - b).max(0.0),
            Fdivide => a / b,
            Floor => a.floor(),
            Fma => a.mul_add(b, c),
            Fmax => a.max(b),
            Fmin => a.min(b),
            Fmod => a % b,
            Hypot => a.hypot(b),
            Log => a.ln(),
            Log10 => a.log10(),
            Log1p => a.ln_1p(),
            Log2 => a.log2(),
            Logb => a.abs().log2().floor(),
            Nextafter => next_after(a, b),
            Norm3d | Norm4d => sum_sq().sqrt(),
            Pow => a.powf(b),
            Rcbrt => 1.0 / a.cbrt(),
            Remainder => a - b * (a / b).round_ties_even(),
            Rhypot => 1.0 / a.hypot(b),
            Rnorm3d | Rnorm4d => 1.0 / sum_sq().sqrt(),
            Round => a.round(),
            Rsqrt => 1.0 / a.sqrt(),
            Sigmoid => 1.0 / (1.0 + (-a).exp()),
            Sin => a.sin(),
            Sinh => a.sinh(),
            Sinpi => (a * std::f64::consts::PI).sin(),
            Sqrt => a.sqrt(),
            Tan => a.tan(),
            Tanh => a.tanh(),
            Trunc => a.trunc(),
            BitwiseAnd | BitwiseNot | BitwiseOr | BitwiseXor | Popcount | ShiftLeft
            | ShiftRight => unreachable!("bitwise intrinsics return above"),
        })
    }
}

impl fmt::Display for Intrinsic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The next double after `a` in the direction of `b` (C's `nextafter`).
fn next_after(a: f64, b: f64) -> f64 {
    if a.is_nan() || b.is_nan() {
        return f64::NAN;
    }
    if a == b {
        return b;
    }
    if a == 0.0 {
        let tiny = f64::from_bits(1);
        return if b > 0.0 { tiny } else { -tiny };
    }
    let bits = a.to_bits();
    let up = (b > a) == (a > 0.0);
    f64::from_bits(if up { bits + 1 } else { bits - 1 })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_are_sorted() {
        for i in Intrinsic::ALL {
            assert_eq!(Intrinsic::from_name(i.name()), Some(*i));
        }
        let names: Vec<&str> = Intrinsic::ALL.iter().map(|i| i.name()).collect();
        let mut sorted = names.clone();
        sorted.sort();
        assert_eq!(names, sorted);
        assert_eq!(Intrinsic::from_name("erfinv"), None);
    }

    #[test]
    fn applies_with_the_right_arity_only() {
        assert_eq!(Intrinsic::Exp.apply(&[0.0]), Some(1.0));
        assert_eq!(Intrinsic::BitwiseXor.apply(&[6.0, 3.0]), Some(5.0));
        assert_eq!(Intrinsic::Popcount.apply(&[255.0]), Some(8.0));
        assert_eq!(Intrinsic::ShiftRight.apply(&[-8.0, 1.0]), Some(-4.0));
        // The machine's integers wrap at their width.
        let u32 = crate::DataType::UInt32;
        assert_eq!(
            Intrinsic::ShiftLeft.apply_as(&[3.0, 31.0], u32),
            Some(2147483648.0)
        );
        assert_eq!(
            Intrinsic::BitwiseNot.apply_as(&[0.0], u32),
            Some(4294967295.0)
        );
        assert_eq!(
            Intrinsic::BitwiseNot.apply_as(&[0.0], crate::DataType::Int8),
            Some(-1.0)
        );
        assert_eq!(Intrinsic::Exp.apply_as(&[0.0], u32), Some(1.0));
        assert_eq!(Intrinsic::Exp.apply(&[0.0, 1.0]), None);
        assert_eq!(Intrinsic::Fmax.apply(&[-1.0, 2.0]), Some(2.0));
        assert_eq!(Intrinsic::Sigmoid.apply(&[0.0]), Some(0.5));
        assert_eq!(Intrinsic::Fma.apply(&[2.0, 3.0, 1.0]), Some(7.0));
        assert_eq!(Intrinsic::Norm4d.apply(&[1.0, 1.0, 1.0, 1.0]), Some(2.0));
        assert_eq!(
            Intrinsic::Nextafter.apply(&[1.0, 2.0]),
            Some(1.0 + f64::EPSILON)
        );
    }
}
