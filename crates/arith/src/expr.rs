//! Immutable, shared integer and boolean expressions.
//!
//! An [`Expr`] is a reference-counted node that caches its structural hash and
//! node count, so cloning is a pointer copy, hashing is free and equality of
//! two different trees is almost always decided by the hashes alone. Nodes are
//! `Send + Sync`: expressions can be built and simplified on several threads.
//!
//! Construction through [`Expr::add`] and friends is *raw*: it builds exactly
//! the tree it is asked for (the parser relies on this so that node counts of
//! parsed text are node counts of the text). Simplification lives in
//! [`crate::simplify`].

use smallvec::SmallVec;
use std::cmp::Ordering;
use std::fmt;
use std::hash::{Hash, Hasher};
use std::sync::atomic::{AtomicU64, Ordering as AtomicOrdering};
use std::sync::Arc;

/// A named integer variable with an identity of its own.
///
/// Two variables with the same name are different variables unless one is a
/// clone of the other.
///
/// ```
/// use arith::Var;
/// let a = Var::new("i");
/// let b = Var::new("i");
/// assert_ne!(a, b);
/// assert_eq!(a, a.clone());
/// assert_eq!(a.name(), "i");
/// ```
#[derive(Clone)]
pub struct Var(Arc<VarInner>);

struct VarInner {
    name: Box<str>,
    id: u64,
}

static NEXT_VAR_ID: AtomicU64 = AtomicU64::new(1);

impl Var {
    /// A fresh variable called `name`.
    pub fn new(name: impl Into<String>) -> Var {
        let id = NEXT_VAR_ID.fetch_add(1, AtomicOrdering::Relaxed);
        Var(Arc::new(VarInner {
            name: name.into().into_boxed_str(),
            id,
        }))
    }

    /// The variable's name, as printed.
    pub fn name(&self) -> &str {
        &self.0.name
    }

    /// A process-wide unique number for this variable.
    pub fn id(&self) -> u64 {
        self.0.id
    }

    /// This variable as an expression.
    pub fn expr(&self) -> Expr {
        Expr::var(self.clone())
    }
}

impl PartialEq for Var {
    fn eq(&self, other: &Var) -> bool {
        self.0.id == other.0.id
    }
}
impl Eq for Var {}
impl Hash for Var {
    fn hash<H: Hasher>(&self, h: &mut H) {
        self.0.id.hash(h)
    }
}
impl PartialOrd for Var {
    fn partial_cmp(&self, other: &Var) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Var {
    /// By name first, so that printed canonical forms do not depend on the
    /// order in which variables were created; the id breaks ties.
    fn cmp(&self, other: &Var) -> Ordering {
        self.name()
            .cmp(other.name())
            .then(self.id().cmp(&other.id()))
    }
}
impl fmt::Debug for Var {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.name())
    }
}
impl fmt::Display for Var {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A comparison operator.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum CmpOp {
    /// `==`
    Eq,
    /// `!=`
    Ne,
    /// `<`
    Lt,
    /// `<=`
    Le,
    /// `>`
    Gt,
    /// `>=`
    Ge,
}

impl CmpOp {
    /// The operator's text.
    pub fn symbol(self) -> &'static str {
        match self {
            CmpOp::Eq => "==",
            CmpOp::Ne => "!=",
            CmpOp::Lt => "<",
            CmpOp::Le => "<=",
            CmpOp::Gt => ">",
            CmpOp::Ge => ">=",
        }
    }

    /// Applies the comparison to two values (integers, or the element
    /// values of tensor programs).
    pub fn apply<T: PartialOrd>(self, a: T, b: T) -> bool {
        match self {
            CmpOp::Eq => a == b,
            CmpOp::Ne => a != b,
            CmpOp::Lt => a < b,
            CmpOp::Le => a <= b,
            CmpOp::Gt => a > b,
            CmpOp::Ge => a >= b,
        }
    }

    /// The operator `op'` with `a op b == b op' a`.
    pub fn swapped(self) -> CmpOp {
        match self {
            CmpOp::Lt => CmpOp::Gt,
            CmpOp::Le => CmpOp::Ge,
            CmpOp::Gt => CmpOp::Lt,
            CmpOp::Ge => CmpOp::Le,
            other => other,
        }
    }

    /// The operator `op'` with `a op' b == not (a op b)`.
    pub fn negated(self) -> CmpOp {
        match self {
            CmpOp::Eq => CmpOp::Ne,
            CmpOp::Ne => CmpOp::Eq,
            CmpOp::Lt => CmpOp::Ge,
            CmpOp::Le => CmpOp::Gt,
            CmpOp::Gt => CmpOp::Le,
            CmpOp::Ge => CmpOp::Lt,
        }
    }
}

/// The node kinds of an expression.
///
/// Division and modulo round toward negative infinity (floor semantics), as in
/// Python, XLA and Tensor Comprehensions.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum ExprKind {
    /// An integer constant.
    Int(i64),
    /// A boolean constant (`True`, `False`).
    Bool(bool),
    /// An integer variable.
    Var(Var),
    /// `a + b`
    Add(Expr, Expr),
    /// `a - b`
    Sub(Expr, Expr),
    /// `a * b`
    Mul(Expr, Expr),
    /// `a // b`, floor division.
    FloorDiv(Expr, Expr),
    /// `a % b`, floor modulo (the sign of `b`).
    FloorMod(Expr, Expr),
    /// `ceildiv(a, b)`, ceiling division.
    CeilDiv(Expr, Expr),
    /// `min(a, b)`
    Min(Expr, Expr),
    /// `max(a, b)`
    Max(Expr, Expr),
    /// `select(c, a, b)`: `a` where `c` holds, else `b`.
    Select(Expr, Expr, Expr),
    /// A comparison of two integers.
    Cmp(CmpOp, Expr, Expr),
    /// `a and b`
    And(Expr, Expr),
    /// `a or b`
    Or(Expr, Expr),
    /// `not a`
    Not(Expr),
}

/// Whether an expression denotes an integer or a truth value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Type {
    /// A 64-bit signed integer.
    Int,
    /// `True` or `False`.
    Bool,
}

struct Node {
    kind: ExprKind,
    hash: u64,
    size: u32,
    ty: Type,
}

impl ExprKind {
    /// Moves the children out, leaving a leaf behind.
    fn take_children(&mut self, out: &mut Vec<Expr>) {
        use ExprKind::*;
        match std::mem::replace(self, Int(0)) {
            Int(_) | Bool(_) | Var(_) => {}
            Add(a, b)
            | Sub(a, b)
            | Mul(a, b)
            | FloorDiv(a, b)
            | FloorMod(a, b)
            | CeilDiv(a, b)
            | Min(a, b)
            | Max(a, b)
            | Cmp(_, a, b)
            | And(a, b)
            | Or(a, b) => out.extend([a, b]),
            Select(c, a, b) => out.extend([c, a, b]),
            Not(a) => out.push(a),
        }
    }
}

/// Trees larger than this many nodes are dropped with a work list; smaller
/// ones by the ordinary recursive drop, whose depth their size bounds.
const RECURSIVE_DROP_NODES: u32 = 2048;

/// Dropping a large tree is iterative: the default drop would recurse once
/// per level and overflow the stack on a sum of 100,000 terms (a left-deep
/// chain of that depth). Children still shared elsewhere only lose a
/// reference; large children owned by this node alone are unlinked onto a
/// work list.
impl Drop for Node {
    fn drop(&mut self) {
        if self.size <= RECURSIVE_DROP_NODES {
            return;
        }
        let mut pending = Vec::new();
        self.kind.take_children(&mut pending);
        while let Some(e) = pending.pop() {
            if e.0.size <= RECURSIVE_DROP_NODES {
                continue;
            }
            if let Some(mut node) = Arc::into_inner(e.0) {
                node.kind.take_children(&mut pending);
            }
        }
    }
}

/// The nodes of more than [`SHARED_WALK_NODES`] nodes a walk has met: a
/// node shared many times (a graph of `e + e`) is walked once, so walks
/// take time in the size of the graph, not of the tree it stands for.
/// Small nodes are not recorded: they cost less to walk again than to
/// remember.
#[derive(Default)]
struct MetBefore(Option<crate::IdSet<(usize, usize)>>);

/// The size above which [`MetBefore`] records a node.
pub(crate) const SHARED_WALK_NODES: u32 = 64;

impl MetBefore {
    /// Whether `e` is large and was met before (recording it if not).
    fn node(&mut self, e: &Expr) -> bool {
        self.pair(e, e)
    }

    /// Whether the pair `(a, b)` is large and was met before (recording it
    /// if not).
    fn pair(&mut self, a: &Expr, b: &Expr) -> bool {
        a.0.size > SHARED_WALK_NODES
            && !self
                .0
                .get_or_insert_with(Default::default)
                .insert((a.node_id(), b.node_id()))
    }
}

/// A shared, immutable expression.
///
/// ```
/// use arith::{Expr, Var};
/// let x = Var::new("x");
/// let e = Expr::add(Expr::mul(x.expr(), Expr::int(4)), Expr::int(1));
/// assert_eq!(e.to_string(), "x * 4 + 1");
/// assert_eq!(e.node_count(), 5);
/// ```
#[derive(Clone)]
pub struct Expr(Arc<Node>);

/// Small integers and the booleans, made once: constants are the most
/// common leaves, and sharing them turns an allocation into a reference
/// count increment.
struct SharedConstants {
    ints: Vec<Expr>,
    bools: [Expr; 2],
}

/// The range of integers [`SharedConstants`] holds.
const SHARED_INTS: std::ops::RangeInclusive<i64> = -64..=256;

impl SharedConstants {
    #[inline]
    fn int(&self, v: i64) -> Option<&Expr> {
        if SHARED_INTS.contains(&v) {
            Some(&self.ints[(v - SHARED_INTS.start()) as usize])
        } else {
            None
        }
    }
}

fn shared_constants() -> &'static SharedConstants {
    static TABLE: std::sync::OnceLock<SharedConstants> = std::sync::OnceLock::new();
    TABLE.get_or_init(|| SharedConstants {
        ints: SHARED_INTS.map(|v| Expr::make(ExprKind::Int(v))).collect(),
        bools: [
            Expr::make(ExprKind::Bool(false)),
            Expr::make(ExprKind::Bool(true)),
        ],
    })
}

#[inline]
fn mix(h: u64, v: u64) -> u64 {
    (h.rotate_left(5) ^ v).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95)
}

impl Expr {
    fn make(kind: ExprKind) -> Expr {
        let (hash, size, ty) = {
            let tag = |t: u64| mix(0x9e37_79b9_7f4a_7c15, t);
            let bin = |t: u64, a: &Expr, b: &Expr| {
                (
                    mix(mix(tag(t), a.0.hash), b.0.hash),
                    a.0.size.saturating_add(b.0.size).saturating_add(1),
                )
            };
            match &kind {
                ExprKind::Int(v) => (mix(tag(1), *v as u64), 1, Type::Int),
                ExprKind::Bool(v) => (mix(tag(2), *v as u64), 1, Type::Bool),
                ExprKind::Var(v) => (mix(tag(3), v.id()), 1, Type::Int),
                ExprKind::Add(a, b) => with_ty(bin(4, a, b), Type::Int),
                ExprKind::Sub(a, b) => with_ty(bin(5, a, b), Type::Int),
                ExprKind::Mul(a, b) => with_ty(bin(6, a, b), Type::Int),
                ExprKind::FloorDiv(a, b) => with_ty(bin(7, a, b), Type::Int),
                ExprKind::FloorMod(a, b) => with_ty(bin(8, a, b), Type::Int),
                ExprKind::CeilDiv(a, b) => with_ty(bin(9, a, b), Type::Int),
                ExprKind::Min(a, b) => with_ty(bin(10, a, b), Type::Int),
                ExprKind::Max(a, b) => with_ty(bin(11, a, b), Type::Int),
                ExprKind::Select(c, a, b) => {
                    let (h, s) = bin(12, a, b);
                    (mix(h, c.0.hash), s.saturating_add(c.0.size), a.ty())
                }
                ExprKind::Cmp(op, a, b) => with_ty(bin(13 + *op as u64 * 64, a, b), Type::Bool),
                ExprKind::And(a, b) => with_ty(bin(14, a, b), Type::Bool),
                ExprKind::Or(a, b) => with_ty(bin(15, a, b), Type::Bool),
                ExprKind::Not(a) => (
                    mix(tag(16), a.0.hash),
                    a.0.size.saturating_add(1),
                    Type::Bool,
                ),
            }
        };
        Expr(Arc::new(Node {
            kind,
            hash,
            size,
            ty,
        }))
    }

    /// The node kind, for matching.
    #[inline]
    pub fn kind(&self) -> &ExprKind {
        &self.0.kind
    }

    /// Whether this is an integer or a boolean expression.
    #[inline]
    pub fn ty(&self) -> Type {
        self.0.ty
    }

    /// The number of nodes in the tree (constants and variables count one),
    /// counting a shared subtree once per use; it saturates at `u32::MAX`
    /// (a graph of shared nodes can stand for a tree larger than memory).
    #[inline]
    pub fn node_count(&self) -> usize {
        self.0.size as usize
    }

    /// The cached structural hash.
    #[inline]
    pub fn structural_hash(&self) -> u64 {
        self.0.hash
    }

    /// Whether both handles point to the same node.
    #[inline]
    pub fn ptr_eq(&self, other: &Expr) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }

    /// The identity of the shared node (its address): equal for clones of
    /// one handle, for memo tables keyed by node identity. Valid while a
    /// handle to the node is alive.
    #[inline]
    pub fn node_id(&self) -> usize {
        Arc::as_ptr(&self.0) as usize
    }

    /// `a / d` rounding toward zero (TVM's `truncdiv`) for a positive
    /// constant `d`, written with floor operators; `None` unless `d > 0`.
    ///
    /// ```
    /// use arith::Expr;
    /// let e = Expr::trunc_div(Expr::int(-7), 2).unwrap();
    /// assert_eq!(e.eval(&|_| None).unwrap(), -3);
    /// ```
    pub fn trunc_div(a: Expr, d: i64) -> Option<Expr> {
        if d <= 0 {
            return None;
        }
        let d = Expr::int(d);
        let neg = Expr::sub(Expr::int(0), a.clone());
        Some(Expr::select(
            Expr::ge(a.clone(), Expr::int(0)),
            Expr::floor_div(a, d.clone()),
            Expr::sub(Expr::int(0), Expr::floor_div(neg, d)),
        ))
    }

    /// The remainder of [`Expr::trunc_div`] (TVM's `truncmod`), with the
    /// sign of `a`; `None` unless `d > 0`.
    ///
    /// ```
    /// use arith::Expr;
    /// let e = Expr::trunc_mod(Expr::int(-7), 2).unwrap();
    /// assert_eq!(e.eval(&|_| None).unwrap(), -1);
    /// ```
    pub fn trunc_mod(a: Expr, d: i64) -> Option<Expr> {
        let q = Expr::trunc_div(a.clone(), d)?;
        Some(Expr::sub(a, Expr::mul(q, Expr::int(d))))
    }

    /// Whether [`Expr::int`] returns a node made once for the whole
    /// process for `v` (small integers), rather than a new node.
    #[inline]
    pub(crate) fn is_shared_int(v: i64) -> bool {
        SHARED_INTS.contains(&v)
    }

    /// An integer constant.
    pub fn int(v: i64) -> Expr {
        match shared_constants().int(v) {
            Some(e) => e.clone(),
            None => Expr::make(ExprKind::Int(v)),
        }
    }
    /// A boolean constant.
    pub fn bool(v: bool) -> Expr {
        shared_constants().bools[v as usize].clone()
    }
    /// A variable reference.
    pub fn var(v: Var) -> Expr {
        Expr::make(ExprKind::Var(v))
    }
    /// `a + b`, as written.
    pub fn add(a: Expr, b: Expr) -> Expr {
        Expr::make(ExprKind::Add(a, b))
    }
    /// `a - b`, as written.
    pub fn sub(a: Expr, b: Expr) -> Expr {
        Expr::make(ExprKind::Sub(a, b))
    }
    /// `a * b`, as written.
    pub fn mul(a: Expr, b: Expr) -> Expr {
        Expr::make(ExprKind::Mul(a, b))
    }
    /// `a // b`, as written.
    pub fn floor_div(a: Expr, b: Expr) -> Expr {
        Expr::make(ExprKind::FloorDiv(a, b))
    }
    /// `a % b`, as written.
    pub fn floor_mod(a: Expr, b: Expr) -> Expr {
        Expr::make(ExprKind::FloorMod(a, b))
    }
    /// `ceildiv(a, b)`, as written.
    pub fn ceil_div(a: Expr, b: Expr) -> Expr {
        Expr::make(ExprKind::CeilDiv(a, b))
    }
    /// `min(a, b)`, as written.
    pub fn min(a: Expr, b: Expr) -> Expr {
        Expr::make(ExprKind::Min(a, b))
    }
    /// `max(a, b)`, as written.
    pub fn max(a: Expr, b: Expr) -> Expr {
        Expr::make(ExprKind::Max(a, b))
    }
    /// `select(c, a, b)`, as written.
    pub fn select(c: Expr, a: Expr, b: Expr) -> Expr {
        Expr::make(ExprKind::Select(c, a, b))
    }
    /// `a op b`, as written.
    pub fn cmp(op: CmpOp, a: Expr, b: Expr) -> Expr {
        Expr::make(ExprKind::Cmp(op, a, b))
    }
    /// `a == b`
    pub fn eq(a: Expr, b: Expr) -> Expr {
        Expr::cmp(CmpOp::Eq, a, b)
    }
    /// `a != b`
    pub fn ne(a: Expr, b: Expr) -> Expr {
        Expr::cmp(CmpOp::Ne, a, b)
    }
    /// `a < b`
    pub fn lt(a: Expr, b: Expr) -> Expr {
        Expr::cmp(CmpOp::Lt, a, b)
    }
    /// `a <= b`
    pub fn le(a: Expr, b: Expr) -> Expr {
        Expr::cmp(CmpOp::Le, a, b)
    }
    /// `a > b`
    pub fn gt(a: Expr, b: Expr) -> Expr {
        Expr::cmp(CmpOp::Gt, a, b)
    }
    /// `a >= b`
    pub fn ge(a: Expr, b: Expr) -> Expr {
        Expr::cmp(CmpOp::Ge, a, b)
    }
    /// `a and b`, as written.
    pub fn and(a: Expr, b: Expr) -> Expr {
        Expr::make(ExprKind::And(a, b))
    }
    /// `a or b`, as written.
    pub fn or(a: Expr, b: Expr) -> Expr {
        Expr::make(ExprKind::Or(a, b))
    }
    /// `not a`, as written.
    pub fn not(a: Expr) -> Expr {
        Expr::make(ExprKind::Not(a))
    }

    /// The value if this is an integer constant.
    #[inline]
    pub fn as_int(&self) -> Option<i64> {
        match self.kind() {
            ExprKind::Int(v) => Some(*v),
            _ => None,
        }
    }

    /// The value if this is a boolean constant.
    #[inline]
    pub fn as_bool(&self) -> Option<bool> {
        match self.kind() {
            ExprKind::Bool(v) => Some(*v),
            _ => None,
        }
    }

    /// The variable if this is a variable reference.
    #[inline]
    pub fn as_var(&self) -> Option<&Var> {
        match self.kind() {
            ExprKind::Var(v) => Some(v),
            _ => None,
        }
    }

    /// Whether this is the integer constant `v`.
    #[inline]
    pub fn is_int(&self, v: i64) -> bool {
        self.as_int() == Some(v)
    }

    /// The direct children, in order.
    pub fn children(&self) -> smallvec::SmallVec<[&Expr; 3]> {
        use ExprKind::*;
        match self.kind() {
            Int(_) | Bool(_) | Var(_) => smallvec::SmallVec::new(),
            Add(a, b)
            | Sub(a, b)
            | Mul(a, b)
            | FloorDiv(a, b)
            | FloorMod(a, b)
            | CeilDiv(a, b)
            | Min(a, b)
            | Max(a, b)
            | Cmp(_, a, b)
            | And(a, b)
            | Or(a, b) => {
                smallvec::smallvec![a, b]
            }
            Select(c, a, b) => smallvec::smallvec![c, a, b],
            Not(a) => smallvec::smallvec![a],
        }
    }

    /// Rebuilds this node with new children (same count and order as
    /// [`Expr::children`]); returns `self` unchanged when they are identical.
    pub fn with_children(&self, new: &[Expr]) -> Expr {
        use ExprKind::*;
        let old = self.children();
        if old.len() == new.len() && old.iter().zip(new).all(|(a, b)| a.ptr_eq(b)) {
            return self.clone();
        }
        let a = || new[0].clone();
        let b = || new[1].clone();
        match self.kind() {
            Int(_) | Bool(_) | Var(_) => self.clone(),
            Add(..) => Expr::add(a(), b()),
            Sub(..) => Expr::sub(a(), b()),
            Mul(..) => Expr::mul(a(), b()),
            FloorDiv(..) => Expr::floor_div(a(), b()),
            FloorMod(..) => Expr::floor_mod(a(), b()),
            CeilDiv(..) => Expr::ceil_div(a(), b()),
            Min(..) => Expr::min(a(), b()),
            Max(..) => Expr::max(a(), b()),
            Cmp(op, ..) => Expr::cmp(*op, a(), b()),
            And(..) => Expr::and(a(), b()),
            Or(..) => Expr::or(a(), b()),
            Not(..) => Expr::not(a()),
            Select(..) => Expr::select(new[0].clone(), new[1].clone(), new[2].clone()),
        }
    }

    /// Calls `f` on the variables of the expression, left to right: on
    /// every occurrence in a tree, and once for a subexpression of more
    /// than 64 nodes however often it is shared (a graph of `e + e` stands
    /// for a tree far larger than itself, and is walked in its own size).
    /// Every variable is met, first in order of first occurrence.
    pub fn for_each_var(&self, f: &mut impl FnMut(&Var)) {
        let mut pending: SmallVec<[&Expr; 16]> = smallvec::smallvec![self];
        let mut met = MetBefore::default();
        while let Some(e) = pending.pop() {
            if met.node(e) {
                continue;
            }
            match e.kind() {
                ExprKind::Var(v) => f(v),
                ExprKind::Int(_) | ExprKind::Bool(_) => {}
                // Pushed in reverse so that they are visited left to right.
                _ => pending.extend(e.children().into_iter().rev()),
            }
        }
    }

    /// The distinct variables, in order of first occurrence.
    pub fn vars(&self) -> Vec<Var> {
        let mut out: Vec<Var> = Vec::new();
        let mut seen = std::collections::HashSet::new();
        self.for_each_var(&mut |v| {
            if seen.insert(v.id()) {
                out.push(v.clone())
            }
        });
        out
    }

    /// Whether `v` occurs in this expression.
    pub fn uses_var(&self, v: &Var) -> bool {
        let mut pending: SmallVec<[&Expr; 16]> = smallvec::smallvec![self];
        // Large shared nodes are searched once (a graph of `e + e` stands
        // for a tree far larger than itself).
        let mut met = MetBefore::default();
        while let Some(e) = pending.pop() {
            if met.node(e) {
                continue;
            }
            match e.kind() {
                ExprKind::Var(w) if w == v => return true,
                ExprKind::Var(_) | ExprKind::Int(_) | ExprKind::Bool(_) => {}
                _ => pending.extend(e.children()),
            }
        }
        false
    }

    /// Replaces variables by expressions; `f` returns `None` to keep a
    /// variable. Untouched subtrees are shared, not copied. Iterative (a
    /// post-order walk with explicit stacks), so depth is not limited by the
    /// call stack.
    ///
    /// A subexpression of more than 64 nodes is rewritten once however
    /// often it is shared, and the result shares it the same way.
    pub fn substitute(&self, f: &mut impl FnMut(&Var) -> Option<Expr>) -> Expr {
        // (node, children already rewritten?); small trees stay on the
        // stack. A result is `None` for a subtree that did not change, so
        // that unchanged parts are neither cloned nor rebuilt.
        let mut pending: SmallVec<[(&Expr, bool); 16]> = smallvec::smallvec![(self, false)];
        let mut done: SmallVec<[Option<Expr>; 8]> = SmallVec::new();
        // Results of large nodes by identity.
        let mut shared: Option<crate::IdMap<usize, Option<Expr>>> = None;
        while let Some((e, expanded)) = pending.pop() {
            let large = e.0.size > SHARED_WALK_NODES;
            if large && !expanded {
                if let Some(r) = shared.as_ref().and_then(|m| m.get(&e.node_id())) {
                    done.push(r.clone());
                    continue;
                }
            }
            match e.kind() {
                ExprKind::Var(v) => done.push(f(v)),
                ExprKind::Int(_) | ExprKind::Bool(_) => done.push(None),
                _ if !expanded => {
                    pending.push((e, true));
                    pending.extend(e.children().into_iter().rev().map(|c| (c, false)));
                }
                _ => {
                    let kids = e.children();
                    let at = done.len() - kids.len();
                    let node = if done[at..].iter().all(Option::is_none) {
                        None
                    } else {
                        let new: SmallVec<[Expr; 3]> = done[at..]
                            .iter_mut()
                            .zip(&kids)
                            .map(|(n, k)| n.take().unwrap_or_else(|| (*k).clone()))
                            .collect();
                        Some(e.with_children(&new))
                    };
                    done.truncate(at);
                    if large {
                        shared
                            .get_or_insert_with(Default::default)
                            .insert(e.node_id(), node.clone());
                    }
                    done.push(node);
                }
            }
        }
        done.pop()
            .expect("one result per walk")
            .unwrap_or_else(|| self.clone())
    }

    /// A total order on expressions that depends only on structure and
    /// variable names (then ids): used to sort the terms of canonical sums.
    ///
    /// A pair of large nodes met again was found equal the first time (the
    /// walk would have stopped otherwise), so two graphs of shared nodes
    /// compare in time of their own size.
    pub fn structural_cmp(&self, other: &Expr) -> Ordering {
        // Pre-order, left to right: the first node that differs decides.
        let mut pending: Vec<(&Expr, &Expr)> = Vec::new();
        let mut compared = MetBefore::default();
        let (mut a, mut b) = (self, other);
        loop {
            if !a.ptr_eq(b) && !compared.pair(a, b) {
                let o = a.head_cmp(b);
                if o != Ordering::Equal {
                    return o;
                }
                let (ka, kb) = (a.children(), b.children());
                pending.extend(ka.into_iter().zip(kb).rev());
            }
            match pending.pop() {
                Some((x, y)) => (a, b) = (x, y),
                None => return Ordering::Equal,
            }
        }
    }

    /// Compares kinds and payloads, ignoring children.
    fn head_cmp(&self, other: &Expr) -> Ordering {
        let ra = self.kind_rank();
        let rb = other.kind_rank();
        if ra != rb {
            return ra.cmp(&rb);
        }
        match (self.kind(), other.kind()) {
            (ExprKind::Int(a), ExprKind::Int(b)) => a.cmp(b),
            (ExprKind::Bool(a), ExprKind::Bool(b)) => a.cmp(b),
            (ExprKind::Var(a), ExprKind::Var(b)) => a.cmp(b),
            (ExprKind::Cmp(oa, ..), ExprKind::Cmp(ob, ..)) => oa.cmp(ob),
            _ => Ordering::Equal,
        }
    }

    fn kind_rank(&self) -> u8 {
        match self.kind() {
            ExprKind::Var(_) => 0,
            ExprKind::Mul(..) => 1,
            ExprKind::FloorDiv(..) => 2,
            ExprKind::FloorMod(..) => 3,
            ExprKind::CeilDiv(..) => 4,
            ExprKind::Min(..) => 5,
            ExprKind::Max(..) => 6,
            ExprKind::Select(..) => 7,
            ExprKind::Add(..) => 8,
            ExprKind::Sub(..) => 9,
            ExprKind::Cmp(..) => 10,
            ExprKind::And(..) => 11,
            ExprKind::Or(..) => 12,
            ExprKind::Not(..) => 13,
            ExprKind::Bool(_) => 14,
            ExprKind::Int(_) => 15,
        }
    }
}

fn with_ty((h, s): (u64, u32), ty: Type) -> (u64, u32, Type) {
    (h, s, ty)
}

impl PartialEq for Expr {
    /// Structural equality. Iterative, so that comparing two equal but
    /// separately built deep trees cannot overflow the stack.
    ///
    /// Pairs of large nodes already compared are not compared again, so two
    /// graphs of shared nodes (`e + e`, repeated) compare in time of their
    /// own size, not of the trees they stand for.
    fn eq(&self, other: &Expr) -> bool {
        let mut pending: Vec<(&Expr, &Expr)> = Vec::new();
        let mut compared = MetBefore::default();
        let (mut a, mut b) = (self, other);
        loop {
            if !a.ptr_eq(b) && !compared.pair(a, b) {
                if a.0.hash != b.0.hash || a.0.size != b.0.size || !same_head(a, b) {
                    return false;
                }
                pending.extend(a.children().into_iter().zip(b.children()));
            }
            match pending.pop() {
                Some((x, y)) => (a, b) = (x, y),
                None => return true,
            }
        }
    }
}

/// Whether two nodes have the same kind and the same payload (constant,
/// variable or comparison operator), ignoring their children.
fn same_head(a: &Expr, b: &Expr) -> bool {
    use ExprKind::*;
    match (a.kind(), b.kind()) {
        (Int(x), Int(y)) => x == y,
        (Bool(x), Bool(y)) => x == y,
        (Var(x), Var(y)) => x == y,
        (Cmp(p, ..), Cmp(q, ..)) => p == q,
        (x, y) => std::mem::discriminant(x) == std::mem::discriminant(y),
    }
}
impl Eq for Expr {}
impl Hash for Expr {
    fn hash<H: Hasher>(&self, h: &mut H) {
        h.write_u64(self.0.hash)
    }
}

impl fmt::Debug for Expr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

impl From<i64> for Expr {
    fn from(v: i64) -> Expr {
        Expr::int(v)
    }
}
impl From<&Var> for Expr {
    fn from(v: &Var) -> Expr {
        v.expr()
    }
}
impl From<Var> for Expr {
    fn from(v: Var) -> Expr {
        Expr::var(v)
    }
}

/// Operator sugar that builds raw trees: `x.expr() * 4 + 1`.
mod ops {
    use super::Expr;
    use std::ops::{Add, Mul, Neg, Sub};

    macro_rules! bin {
        ($tr:ident, $m:ident, $ctor:ident) => {
            impl<T: Into<Expr>> $tr<T> for Expr {
                type Output = Expr;
                fn $m(self, rhs: T) -> Expr {
                    Expr::$ctor(self, rhs.into())
                }
            }
            impl<T: Into<Expr>> $tr<T> for &Expr {
                type Output = Expr;
                fn $m(self, rhs: T) -> Expr {
                    Expr::$ctor(self.clone(), rhs.into())
                }
            }
        };
    }
    bin!(Add, add, add);
    bin!(Sub, sub, sub);
    bin!(Mul, mul, mul);

    impl Neg for Expr {
        type Output = Expr;
        fn neg(self) -> Expr {
            match self.as_int() {
                Some(v) if v != i64::MIN => Expr::int(-v),
                _ => Expr::mul(self, Expr::int(-1)),
            }
        }
    }
}

impl From<&Expr> for Expr {
    fn from(e: &Expr) -> Expr {
        e.clone()
    }
}
