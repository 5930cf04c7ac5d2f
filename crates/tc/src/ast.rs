//! The syntax tree of a TC source: definitions, statements and expressions,
//! every node with its source span.
//!
//! Expressions live in one arena per definition and refer to each other by
//! [`ExprId`], so that a sum of 50,000 terms is 50,000 entries in a vector:
//! nothing about it recurses, not even dropping it.

use crate::diag::Span;
use std::fmt;

/// An element type of a tensor (TC's scalar types).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ScalarType {
    /// `bool`
    Bool,
    /// `uint8`
    UInt8,
    /// `uint16`
    UInt16,
    /// `uint32`
    UInt32,
    /// `uint64`
    UInt64,
    /// `int8`
    Int8,
    /// `int16`
    Int16,
    /// `int32` (also written `int`, as TC's documentation does)
    Int32,
    /// `int64`
    Int64,
    /// `float16`
    Float16,
    /// `float32`
    Float32,
    /// `float64`
    Float64,
    /// `float` (32 bits)
    Float,
    /// `double` (64 bits)
    Double,
}

impl ScalarType {
    /// The type named `word`, if it is a type keyword.
    pub fn from_keyword(word: &str) -> Option<ScalarType> {
        use ScalarType::*;
        Some(match word {
            "bool" => Bool,
            "uint8" => UInt8,
            "uint16" => UInt16,
            "uint32" => UInt32,
            "uint64" => UInt64,
            "int8" => Int8,
            "int16" => Int16,
            "int32" => Int32,
            "int64" => Int64,
            "float16" => Float16,
            "float32" => Float32,
            "float64" => Float64,
            "float" => Float,
            "double" => Double,
            _ => return None,
        })
    }

    /// The keyword.
    pub fn name(self) -> &'static str {
        use ScalarType::*;
        match self {
            Bool => "bool",
            UInt8 => "uint8",
            UInt16 => "uint16",
            UInt32 => "uint32",
            UInt64 => "uint64",
            Int8 => "int8",
            Int16 => "int16",
            Int32 => "int32",
            Int64 => "int64",
            Float16 => "float16",
            Float32 => "float32",
            Float64 => "float64",
            Float => "float",
            Double => "double",
        }
    }

    /// Whether values of the type are floating point.
    pub fn is_float(self) -> bool {
        use ScalarType::*;
        matches!(self, Float16 | Float32 | Float64 | Float | Double)
    }
}

/// A name with its span.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Ident {
    /// The text.
    pub name: String,
    /// Where it is written.
    pub span: Span,
}

/// One dimension of a tensor type: a size symbol or a constant.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Dim {
    /// A size symbol (`M` in `float(M, K)`).
    Size(Ident),
    /// A constant size (`10` in `float(10, 19)`), with its span.
    Const(i64, Span),
}

/// `float(M, K)`: an element type and dimensions (none for a scalar).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TensorType {
    /// The element type.
    pub scalar: ScalarType,
    /// The dimensions, outermost first.
    pub dims: Vec<Dim>,
    /// Where the type is written.
    pub span: Span,
}

/// A parameter or output: a name with an optional type (outputs usually
/// have their type inferred).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Param {
    /// The name.
    pub name: Ident,
    /// The declared type.
    pub ty: Option<TensorType>,
}

/// The assignment of a statement.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AssignOp {
    /// `=`
    Assign,
    /// `+=`, `*=`, `min=`, `max=` (with `init` for the `!` forms, which
    /// start from the identity of the reduction).
    Reduce {
        /// The combining operator.
        op: ReduceOp,
        /// `!`: initialise with the identity first.
        init: bool,
    },
}

impl fmt::Display for AssignOp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AssignOp::Assign => f.write_str("="),
            AssignOp::Reduce { op, init } => {
                write!(f, "{}={}", op.symbol(), if *init { "!" } else { "" })
            }
        }
    }
}

/// How a reduction combines values.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ReduceOp {
    /// `+`
    Sum,
    /// `*`
    Product,
    /// `min`
    Min,
    /// `max`
    Max,
}

impl ReduceOp {
    /// `+`, `*`, `min`, `max`.
    pub fn symbol(self) -> &'static str {
        match self {
            ReduceOp::Sum => "+",
            ReduceOp::Product => "*",
            ReduceOp::Min => "min",
            ReduceOp::Max => "max",
        }
    }
}

/// A `where` clause.
#[derive(Clone, Debug, PartialEq)]
pub enum WhereClause {
    /// `i in lb:ub`: `lb <= i < ub`.
    Range {
        /// The variable.
        var: Ident,
        /// The first value.
        lower: ExprId,
        /// One past the last value.
        upper: ExprId,
        /// The whole clause.
        span: Span,
    },
    /// `exists e`: the accesses of `e` constrain ranges; `e` is not computed.
    Exists {
        /// The expression.
        expr: ExprId,
        /// The whole clause.
        span: Span,
    },
    /// `x = e`: `x` stands for `e` in the statement.
    Let {
        /// The name.
        name: Ident,
        /// Its value.
        expr: ExprId,
        /// The whole clause.
        span: Span,
    },
}

/// A statement: `T(i, j) op= rhs where ...`.
#[derive(Clone, Debug, PartialEq)]
pub struct Stmt {
    /// The tensor written.
    pub lhs: Ident,
    /// Its index variables.
    pub indices: Vec<Ident>,
    /// The assignment.
    pub op: AssignOp,
    /// The span of the assignment operator.
    pub op_span: Span,
    /// The right-hand side.
    pub rhs: ExprId,
    /// `<=> name(accesses)`, kept for completeness; it does not affect
    /// inference.
    pub equivalent: Option<(Ident, Vec<ExprId>)>,
    /// The `where` clauses, in order.
    pub wheres: Vec<WhereClause>,
    /// The whole statement.
    pub span: Span,
}

/// One `def`.
#[derive(Clone, Debug, PartialEq)]
pub struct Def {
    /// The name.
    pub name: Ident,
    /// The inputs.
    pub params: Vec<Param>,
    /// The outputs.
    pub outputs: Vec<Param>,
    /// The statements, in order.
    pub stmts: Vec<Stmt>,
    /// The expressions of all statements.
    pub exprs: ExprArena,
    /// The whole definition.
    pub span: Span,
}

/// Refers to an expression of a [`Def`]'s arena.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ExprId(pub u32);

/// A unary operator.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum UnaryOp {
    /// `-a`
    Neg,
    /// `!a`
    Not,
}

/// A binary operator (`min`/`max` included: TC parses them as two-argument
/// operators).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BinaryOp {
    /// `||`
    Or,
    /// `&&`
    And,
    /// `<`
    Lt,
    /// `>`
    Gt,
    /// `<=`
    Le,
    /// `>=`
    Ge,
    /// `==`
    Eq,
    /// `!=`
    Ne,
    /// `+`
    Add,
    /// `-`
    Sub,
    /// `*`
    Mul,
    /// `/` (floor division on integers)
    Div,
    /// `%` (floor modulo on integers)
    Mod,
    /// `min(a, b)`
    Min,
    /// `max(a, b)`
    Max,
}

impl BinaryOp {
    /// The operator as written.
    pub fn symbol(self) -> &'static str {
        use BinaryOp::*;
        match self {
            Or => "||",
            And => "&&",
            Lt => "<",
            Gt => ">",
            Le => "<=",
            Ge => ">=",
            Eq => "==",
            Ne => "!=",
            Add => "+",
            Sub => "-",
            Mul => "*",
            Div => "/",
            Mod => "%",
            Min => "min",
            Max => "max",
        }
    }

    /// Whether the operator compares two values.
    pub fn is_comparison(self) -> bool {
        use BinaryOp::*;
        matches!(self, Lt | Gt | Le | Ge | Eq | Ne)
    }
}

/// The node kinds of an expression.
#[derive(Clone, Debug, PartialEq)]
pub enum ExprKind {
    /// An integer literal.
    Int(i64),
    /// A floating-point literal.
    Float(f64),
    /// A name: an index variable, a size symbol, a scalar, a `where` let.
    Ident(String),
    /// `op a`
    Unary(UnaryOp, ExprId),
    /// `a op b`, `min(a, b)`, `max(a, b)`
    Binary(BinaryOp, ExprId, ExprId),
    /// `c ? a : b`
    Ternary(ExprId, ExprId, ExprId),
    /// `name(args)`: a tensor access or a built-in function call.
    Call(Ident, Vec<ExprId>),
    /// `type(e)`
    Cast(ScalarType, ExprId),
}

/// An expression node.
#[derive(Clone, Debug, PartialEq)]
pub struct Expr {
    /// What it is.
    pub kind: ExprKind,
    /// Where it is written.
    pub span: Span,
}

/// The expressions of one definition.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ExprArena {
    nodes: Vec<Expr>,
}

impl ExprArena {
    /// Adds a node and returns its id.
    pub fn push(&mut self, kind: ExprKind, span: Span) -> ExprId {
        self.nodes.push(Expr { kind, span });
        ExprId((self.nodes.len() - 1) as u32)
    }

    /// The node `id`.
    pub fn get(&self, id: ExprId) -> &Expr {
        &self.nodes[id.0 as usize]
    }

    /// The number of nodes.
    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    /// Whether there are no nodes.
    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }

    /// The direct children of `id`.
    pub fn children(&self, id: ExprId) -> Vec<ExprId> {
        match &self.get(id).kind {
            ExprKind::Int(_) | ExprKind::Float(_) | ExprKind::Ident(_) => Vec::new(),
            ExprKind::Unary(_, a) | ExprKind::Cast(_, a) => vec![*a],
            ExprKind::Binary(_, a, b) => vec![*a, *b],
            ExprKind::Ternary(c, a, b) => vec![*c, *a, *b],
            ExprKind::Call(_, args) => args.clone(),
        }
    }

    /// Every node of the tree under `root` (itself included), parents
    /// before children, children left to right; iterative, so any depth is
    /// fine.
    pub fn preorder(&self, root: ExprId) -> Vec<ExprId> {
        let mut out = Vec::new();
        let mut stack = vec![root];
        while let Some(id) = stack.pop() {
            out.push(id);
            let ch = self.children(id);
            stack.extend(ch.into_iter().rev());
        }
        out
    }

    /// The height of the tree under `root` (1 for a leaf), computed without
    /// recursion.
    pub fn height(&self, root: ExprId) -> usize {
        let order = self.preorder(root);
        let mut h: std::collections::HashMap<ExprId, usize> =
            std::collections::HashMap::with_capacity(order.len());
        for id in order.iter().rev() {
            let d = self
                .children(*id)
                .iter()
                .map(|c| h.get(c).copied().unwrap_or(0))
                .max()
                .unwrap_or(0);
            h.insert(*id, d + 1);
        }
        h.get(&root).copied().unwrap_or(1)
    }

    /// The expression as TC source (parenthesised where needed); iterative
    /// chains of `+` are printed without recursion depth issues only up to
    /// the analysis nesting limit, which is where it is used.
    pub fn display(&self, id: ExprId) -> String {
        let mut s = String::new();
        self.write(id, &mut s, 0);
        s
    }

    fn write(&self, id: ExprId, out: &mut String, depth: usize) {
        if depth > 64 {
            out.push_str("...");
            return;
        }
        match &self.get(id).kind {
            ExprKind::Int(v) => out.push_str(&v.to_string()),
            ExprKind::Float(v) => out.push_str(&format!("{v:?}")),
            ExprKind::Ident(n) => out.push_str(n),
            ExprKind::Unary(op, a) => {
                out.push_str(match op {
                    UnaryOp::Neg => "-",
                    UnaryOp::Not => "!",
                });
                self.write_operand(*a, out, depth);
            }
            ExprKind::Binary(op @ (BinaryOp::Min | BinaryOp::Max), a, b) => {
                out.push_str(op.symbol());
                out.push('(');
                self.write(*a, out, depth + 1);
                out.push_str(", ");
                self.write(*b, out, depth + 1);
                out.push(')');
            }
            ExprKind::Binary(op, a, b) => {
                self.write_operand(*a, out, depth);
                out.push(' ');
                out.push_str(op.symbol());
                out.push(' ');
                self.write_operand(*b, out, depth);
            }
            ExprKind::Ternary(c, a, b) => {
                self.write_operand(*c, out, depth);
                out.push_str(" ? ");
                self.write_operand(*a, out, depth);
                out.push_str(" : ");
                self.write_operand(*b, out, depth);
            }
            ExprKind::Call(name, args) => {
                out.push_str(&name.name);
                out.push('(');
                for (k, a) in args.iter().enumerate() {
                    if k > 0 {
                        out.push_str(", ");
                    }
                    self.write(*a, out, depth + 1);
                }
                out.push(')');
            }
            ExprKind::Cast(t, a) => {
                out.push_str(t.name());
                out.push('(');
                self.write(*a, out, depth + 1);
                out.push(')');
            }
        }
    }

    fn write_operand(&self, id: ExprId, out: &mut String, depth: usize) {
        let atomic = matches!(
            self.get(id).kind,
            ExprKind::Int(_)
                | ExprKind::Float(_)
                | ExprKind::Ident(_)
                | ExprKind::Call(..)
                | ExprKind::Cast(..)
                | ExprKind::Binary(BinaryOp::Min | BinaryOp::Max, ..)
        );
        if atomic {
            self.write(id, out, depth + 1);
        } else {
            out.push('(');
            self.write(id, out, depth + 1);
            out.push(')');
        }
    }
}

/// A parsed source: its definitions, in order.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Program {
    /// The definitions.
    pub defs: Vec<Def>,
}
