//! HLO opcodes, as XLA's `HloOpcode`: one variant per operation, with its
//! text spelling and the number of operands it takes.

use std::fmt;

/// How many operands an opcode takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Arity {
    /// Exactly this many.
    Exactly(usize),
    /// This many or more (XLA's variadic opcodes).
    AtLeast(usize),
}

impl Arity {
    /// Whether `n` operands are allowed.
    pub fn allows(self, n: usize) -> bool {
        match self {
            Arity::Exactly(k) => n == k,
            Arity::AtLeast(k) => n >= k,
        }
    }
}

impl fmt::Display for Arity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Arity::Exactly(1) => f.write_str("exactly 1 operand"),
            Arity::Exactly(n) => write!(f, "exactly {n} operands"),
            Arity::AtLeast(1) => f.write_str("at least 1 operand"),
            Arity::AtLeast(n) => write!(f, "at least {n} operands"),
        }
    }
}

macro_rules! opcodes {
    ($($variant:ident = $text:literal, $arity:expr;)*) => {
        /// An HLO operation (XLA's `HloOpcode`).
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum Opcode {
            $(
                #[doc = concat!("`", $text, "`")]
                $variant,
            )*
        }

        impl Opcode {
            /// Every opcode.
            pub const ALL: &'static [Opcode] = &[$(Opcode::$variant),*];

            /// The opcode as HLO text spells it.
            pub fn as_str(self) -> &'static str {
                match self {
                    $(Opcode::$variant => $text,)*
                }
            }

            /// The number of operands it takes.
            pub fn arity(self) -> Arity {
                match self {
                    $(Opcode::$variant => $arity,)*
                }
            }

            /// The opcode spelled `text`, if there is one.
            ///
            /// ```
            /// use hlo::Opcode;
            /// assert_eq!(Opcode::parse("count-leading-zeros"), Some(Opcode::Clz));
            /// assert_eq!(Opcode::parse("clz"), None);
            /// ```
            pub fn parse(text: &str) -> Option<Opcode> {
                match text {
                    $($text => Some(Opcode::$variant),)*
                    _ => None,
                }
            }
        }
    };
}

opcodes! {
    Abs = "abs", Arity::Exactly(1);
    Acos = "acos", Arity::Exactly(1);
    Acosh = "acosh", Arity::Exactly(1);
    Add = "add", Arity::Exactly(2);
    AddDependency = "add-dependency", Arity::Exactly(2);
    AfterAll = "after-all", Arity::AtLeast(0);
    AllGather = "all-gather", Arity::AtLeast(1);
    AllGatherDone = "all-gather-done", Arity::Exactly(1);
    AllGatherStart = "all-gather-start", Arity::AtLeast(1);
    AllReduce = "all-reduce", Arity::AtLeast(1);
    AllReduceDone = "all-reduce-done", Arity::Exactly(1);
    AllReduceStart = "all-reduce-start", Arity::AtLeast(1);
    AllToAll = "all-to-all", Arity::AtLeast(1);
    And = "and", Arity::Exactly(2);
    Asin = "asin", Arity::Exactly(1);
    Asinh = "asinh", Arity::Exactly(1);
    AsyncDone = "async-done", Arity::Exactly(1);
    AsyncStart = "async-start", Arity::AtLeast(0);
    AsyncUpdate = "async-update", Arity::AtLeast(0);
    Atan = "atan", Arity::Exactly(1);
    Atan2 = "atan2", Arity::Exactly(2);
    Atanh = "atanh", Arity::Exactly(1);
    BatchNormGrad = "batch-norm-grad", Arity::Exactly(5);
    BatchNormInference = "batch-norm-inference", Arity::Exactly(5);
    BatchNormTraining = "batch-norm-training", Arity::Exactly(3);
    Bitcast = "bitcast", Arity::Exactly(1);
    BitcastConvert = "bitcast-convert", Arity::Exactly(1);
    Broadcast = "broadcast", Arity::Exactly(1);
    Call = "call", Arity::AtLeast(0);
    Cbrt = "cbrt", Arity::Exactly(1);
    Ceil = "ceil", Arity::Exactly(1);
    Cholesky = "cholesky", Arity::Exactly(1);
    Clamp = "clamp", Arity::Exactly(3);
    Clz = "count-leading-zeros", Arity::Exactly(1);
    CollectiveBroadcast = "collective-broadcast", Arity::AtLeast(1);
    CollectivePermute = "collective-permute", Arity::AtLeast(1);
    CollectivePermuteDone = "collective-permute-done", Arity::Exactly(1);
    CollectivePermuteStart = "collective-permute-start", Arity::AtLeast(1);
    CollectiveReduce = "collective-reduce", Arity::AtLeast(1);
    Compare = "compare", Arity::Exactly(2);
    Complex = "complex", Arity::Exactly(2);
    Concatenate = "concatenate", Arity::AtLeast(1);
    Conditional = "conditional", Arity::AtLeast(1);
    Constant = "constant", Arity::Exactly(0);
    Convert = "convert", Arity::Exactly(1);
    Convolution = "convolution", Arity::AtLeast(2);
    Copy = "copy", Arity::Exactly(1);
    CopyDone = "copy-done", Arity::Exactly(1);
    CopyStart = "copy-start", Arity::Exactly(1);
    Cos = "cosine", Arity::Exactly(1);
    Cosh = "cosh", Arity::Exactly(1);
    CustomCall = "custom-call", Arity::AtLeast(0);
    Divide = "divide", Arity::Exactly(2);
    Domain = "domain", Arity::Exactly(1);
    Dot = "dot", Arity::Exactly(2);
    DynamicReshape = "dynamic-reshape", Arity::AtLeast(1);
    DynamicSlice = "dynamic-slice", Arity::AtLeast(2);
    DynamicUpdateSlice = "dynamic-update-slice", Arity::AtLeast(3);
    Erf = "erf", Arity::Exactly(1);
    Exp = "exponential", Arity::Exactly(1);
    Expm1 = "exponential-minus-one", Arity::Exactly(1);
    Fft = "fft", Arity::Exactly(1);
    Floor = "floor", Arity::Exactly(1);
    Fusion = "fusion", Arity::AtLeast(0);
    Gather = "gather", Arity::Exactly(2);
    GetDimensionSize = "get-dimension-size", Arity::Exactly(1);
    GetTupleElement = "get-tuple-element", Arity::Exactly(1);
    Imag = "imag", Arity::Exactly(1);
    Infeed = "infeed", Arity::Exactly(1);
    Iota = "iota", Arity::Exactly(0);
    IsFinite = "is-finite", Arity::Exactly(1);
    Log = "log", Arity::Exactly(1);
    Log1p = "log-plus-one", Arity::Exactly(1);
    Logistic = "logistic", Arity::Exactly(1);
    Map = "map", Arity::AtLeast(1);
    Maximum = "maximum", Arity::Exactly(2);
    Minimum = "minimum", Arity::Exactly(2);
    Mulhi = "mulhi", Arity::Exactly(2);
    Multiply = "multiply", Arity::Exactly(2);
    Negate = "negate", Arity::Exactly(1);
    Not = "not", Arity::Exactly(1);
    OptimizationBarrier = "opt-barrier", Arity::Exactly(1);
    Or = "or", Arity::Exactly(2);
    Outfeed = "outfeed", Arity::Exactly(2);
    Pad = "pad", Arity::Exactly(2);
    Parameter = "parameter", Arity::Exactly(0);
    PartitionId = "partition-id", Arity::Exactly(0);
    PopulationCount = "popcnt", Arity::Exactly(1);
    Power = "power", Arity::Exactly(2);
    RaggedAllToAll = "ragged-all-to-all", Arity::Exactly(6);
    RaggedDot = "ragged-dot", Arity::Exactly(3);
    Real = "real", Arity::Exactly(1);
    Recv = "recv", Arity::Exactly(1);
    RecvDone = "recv-done", Arity::Exactly(1);
    Reduce = "reduce", Arity::AtLeast(2);
    ReducePrecision = "reduce-precision", Arity::Exactly(1);
    ReduceScatter = "reduce-scatter", Arity::AtLeast(1);
    ReduceWindow = "reduce-window", Arity::AtLeast(2);
    Remainder = "remainder", Arity::Exactly(2);
    ReplicaId = "replica-id", Arity::Exactly(0);
    Reshape = "reshape", Arity::Exactly(1);
    Reverse = "reverse", Arity::Exactly(1);
    Rng = "rng", Arity::AtLeast(0);
    RngBitGenerator = "rng-bit-generator", Arity::Exactly(1);
    RngGetAndUpdateState = "rng-get-and-update-state", Arity::Exactly(0);
    RoundNearestAfz = "round-nearest-afz", Arity::Exactly(1);
    RoundNearestEven = "round-nearest-even", Arity::Exactly(1);
    Rsqrt = "rsqrt", Arity::Exactly(1);
    ScaledDot = "scaled-dot", Arity::Exactly(4);
    Scan = "scan", Arity::AtLeast(1);
    Scatter = "scatter", Arity::AtLeast(3);
    Select = "select", Arity::Exactly(3);
    SelectAndScatter = "select-and-scatter", Arity::Exactly(3);
    Send = "send", Arity::Exactly(2);
    SendDone = "send-done", Arity::Exactly(1);
    SetDimensionSize = "set-dimension-size", Arity::Exactly(2);
    ShiftLeft = "shift-left", Arity::Exactly(2);
    ShiftRightArithmetic = "shift-right-arithmetic", Arity::Exactly(2);
    ShiftRightLogical = "shift-right-logical", Arity::Exactly(2);
    Shuffle = "shuffle", Arity::Exactly(1);
    Sign = "sign", Arity::Exactly(1);
    Sin = "sine", Arity::Exactly(1);
    Sinh = "sinh", Arity::Exactly(1);
    Slice = "slice", Arity::Exactly(1);
    Sort = "sort", Arity::AtLeast(1);
    Sqrt = "sqrt", Arity::Exactly(1);
    StochasticConvert = "stochastic-convert", Arity::Exactly(2);
    Subtract = "subtract", Arity::Exactly(2);
    Tan = "tan", Arity::Exactly(1);
    Tanh = "tanh", Arity::Exactly(1);
    TopK = "topk", Arity::Exactly(1);
    Transpose = "transpose", Arity::Exactly(1);
    TriangularSolve = "triangular-solve", Arity::Exactly(2);
    Tuple = "tuple", Arity::AtLeast(0);
    While = "while", Arity::Exactly(1);
    Xor = "xor", Arity::Exactly(2);
}

impl fmt::Display for Opcode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}
