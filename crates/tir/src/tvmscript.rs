//! The TVMScript form of a program, as TVM v0.19 prints what `tvm.lower`
//! returns: an `@I.ir_module` with one `@T.prim_func def main(...)`, over
//! flattened buffers.
//!
//! What TVM's printer does and this one follows:
//! - parameters are `A: T.Buffer((8, 10), "float32")`; the flattened view
//!   of each (`A_1 = T.Buffer((80,), data=A.data)`) and of each allocation
//!   (`B_1 = T.Buffer((16,), data=B)`) is declared in the innermost scope
//!   holding all its uses, just before the statement that first uses it;
//! - names are made Python identifiers (`i.outer` is `i_outer`) and kept
//!   apart within a scope by `_1`, `_2` suffixes;
//! - directly nested serial loops from 0 become `for i, j in T.grid(n, m):`;
//!   other kinds are `T.parallel`, `T.vectorized`, `T.unroll`; a thread
//!   launch is `blockIdx_x = T.launch_thread("blockIdx.x", 16)`;
//! - a scoped statement (thread launch, allocation, attribute, `let`) that
//!   ends its block is written as an assignment over the rest of the block,
//!   elsewhere as a `with` block;
//! - expressions use Python operators with Python's precedence
//!   (`bx * 64 + tx < 1000`), `T.float32(2.0)` for float constants.
//!
//! `produce` markers, which TVM's current lowering no longer has, are left
//! out.

use crate::buffer::{Buffer, BufferId};
use crate::dtype::DataType;
use crate::flatten::{flatten, FlattenError};
use crate::stmt::{ForKind, PragmaValue, PrimFunc, Stmt};
use crate::value::{BinOp, Value};
use arith::{Expr, ExprKind, Var};
use std::collections::{HashMap, HashSet};

/// The TVMScript text of `func` as TVM v0.19 prints `tvm.lower(...)`
/// (`mod.script()`): `func` is flattened first, and access indices are
/// simplified as TVM's lowering leaves them.
///
/// ```
/// use arith::Var;
/// use tir::{Buffer, DataType, PrimFunc, Stmt, Value};
/// let a = Buffer::new("A", DataType::Float32, [4i64]);
/// let b = Buffer::new("B", DataType::Float32, [4i64]);
/// let i = Var::new("i");
/// let body = Stmt::for_range(&i, 0, 4,
///     Stmt::store(&b, [i.expr()], Value::load(&a, [i.expr()]) * Value::f32(2.0)));
/// let text = tir::tvmscript(&PrimFunc::new("B", vec![a, b], Stmt::produce("B", body))).unwrap();
/// assert!(text.ends_with("\
///         for i in range(4):
///             B_1 = T.Buffer((4,), data=B.data)
///             A_1 = T.Buffer((4,), data=A.data)
///             B_1[i] = A_1[i] * T.float32(2.0)
/// "), "{text}");
/// ```
pub fn tvmscript(func: &PrimFunc) -> Result<String, FlattenError> {
    let flat = flatten(func)?;
    // Not simplified again: the lowering simplified the indices, and the
    // offsets flattening builds print as TVM's do once Python's precedence
    // drops their parentheses; simplifying would also rewrite the bound
    // checks (`x < 1000` as `x <= 999`).
    let body = &flat.func.body;
    let mut p = ScriptPrinter::default();
    // The module aliases of the header are taken.
    p.names.extend(["T".to_string(), "I".to_string()]);
    let mut out = String::from(
        "# from tvm.script import ir as I\n# from tvm.script import tir as T\n\n\
         @I.ir_module\nclass Module:\n    @T.prim_func\n    def main(",
    );
    let mut params = Vec::new();
    for (logical, physical) in func.params.iter().zip(&flat.func.params) {
        let name = p.define(logical.name());
        params.push(format!(
            "{name}: T.Buffer({}, \"{}\")",
            p.shape(logical.shape()),
            logical.dtype()
        ));
        p.sources.insert(physical.id(), format!("{name}.data"));
    }
    // Scalar float parameters follow the buffers, as TVM lists a scalar
    // `Var` among a function's parameters.
    for (v, t) in func.float_params() {
        let name = p.define_var(&v);
        params.push(format!("{name}: T.{t}"));
    }
    out.push_str(&params.join(", "));
    out.push_str("):\n");
    out.push_str(
        "        T.func_attr({\"from_legacy_te_schedule\": T.bool(True), \"tir.noalias\": T.bool(True)})\n",
    );
    // Sizes of the program: defined at the top, as TVM defines the
    // variables of symbolic shapes.
    let mut sizes: Vec<Var> = Vec::new();
    for b in &func.params {
        for e in b.shape() {
            e.for_each_var(&mut |v| {
                if !sizes.contains(v) {
                    sizes.push(v.clone());
                }
            });
        }
    }
    for v in &sizes {
        let name = p.define_var(v);
        out.push_str(&format!("        {name} = T.int32()\n"));
    }
    let mut frames = FrameFinder::default();
    frames.block(body, &mut vec![0]);
    p.home = frames.lca;
    let text = p.block(body, 2);
    out.push_str(&text);
    Ok(out)
}

/// Numbers the scopes of a program (the function, loops, thread launches,
/// allocations, attributes, `let`s, branches) in the order the printer
/// opens them, and finds for each buffer the innermost one holding all its
/// uses.
#[derive(Default)]
struct FrameFinder {
    next: usize,
    lca: HashMap<BufferId, Vec<usize>>,
}

impl FrameFinder {
    fn open(&mut self) -> usize {
        self.next += 1;
        self.next
    }

    fn use_buffer(&mut self, b: &Buffer, path: &[usize]) {
        match self.lca.get_mut(&b.id()) {
            None => {
                self.lca.insert(b.id(), path.to_vec());
            }
            Some(prefix) => {
                let common = prefix.iter().zip(path).take_while(|(a, b)| a == b).count();
                prefix.truncate(common);
            }
        }
    }

    fn value(&mut self, v: &Value, path: &[usize]) {
        v.for_each_load(&mut |l| self.use_buffer(&l.buffer, path));
    }

    /// The statements of one scope's body.
    fn block(&mut self, s: &Stmt, path: &mut Vec<usize>) {
        for c in flat_seq(s) {
            self.stmt(c, path);
        }
    }

    fn scoped(&mut self, body: &Stmt, path: &mut Vec<usize>) {
        let f = self.open();
        path.push(f);
        self.block(body, path);
        path.pop();
    }

    fn stmt(&mut self, s: &Stmt, path: &mut Vec<usize>) {
        match s {
            Stmt::For { pragmas, .. } => {
                // One scope per pragma attribute around the loop, as the
                // printer writes them.
                for _ in pragmas {
                    let f = self.open();
                    path.push(f);
                }
                let (_, inner) = grid(s);
                self.scoped(inner, path);
                path.truncate(path.len() - pragmas.len());
            }
            Stmt::LetValue { value, body, .. } => {
                self.value(value, path);
                self.scoped(body, path)
            }
            Stmt::Let { body, .. } | Stmt::Allocate { body, .. } | Stmt::Realize { body, .. } => {
                self.scoped(body, path)
            }
            Stmt::Produce { body, .. } => self.block(body, path),
            Stmt::While { cond, body } => {
                self.value(cond, path);
                self.scoped(body, path);
            }
            Stmt::IfThenElse {
                cond,
                then_case,
                else_case,
            } => {
                self.value(cond, path);
                self.scoped(then_case, path);
                if let Some(e) = else_case {
                    self.scoped(e, path);
                }
            }
            Stmt::BufferStore { buffer, value, .. } => {
                self.use_buffer(buffer, path);
                self.value(value, path);
            }
            Stmt::Evaluate(v) => self.value(v, path),
            Stmt::Opaque { call, .. } => {
                for a in &call.args {
                    match a {
                        crate::opaque::CallArg::Buffer(b) => self.use_buffer(b, path),
                        crate::opaque::CallArg::Value(v) => self.value(v, path),
                        crate::opaque::CallArg::Str(_) => {}
                    }
                }
            }
            Stmt::TensorCall { args, .. } => {
                for (b, _) in args {
                    self.use_buffer(b, path);
                }
            }
            Stmt::Seq(_) => self.block(s, path),
        }
    }
}

/// The statements of a body, nested sequences and `produce` markers
/// opened.
fn flat_seq(s: &Stmt) -> Vec<&Stmt> {
    let mut out = Vec::new();
    let mut pending = vec![s];
    while let Some(s) = pending.pop() {
        match s {
            Stmt::Seq(v) => pending.extend(v.iter().rev()),
            Stmt::Produce { body, .. } => pending.push(body),
            _ => out.push(s),
        }
    }
    out
}

/// The loops of `s` that print as one `T.grid` (serial, from 0, no
/// pragmas, directly nested, extents independent of the others), and the
/// body inside them. A single loop when no grid forms.
pub(crate) fn grid<S: GridLoop>(s: &S) -> (Vec<&S>, &S) {
    let mut loops: Vec<&S> = vec![s];
    let Some((_, _, body, plain)) = s.as_loop() else {
        return (loops, s);
    };
    let mut inner: &S = body;
    if !plain {
        return (loops, inner);
    }
    while let Some((_, extent, next, plain)) = inner.as_loop() {
        let depends = loops
            .iter()
            .any(|l| l.as_loop().is_some_and(|(var, ..)| extent.uses_var(var)));
        if !plain || depends {
            break;
        }
        loops.push(inner);
        inner = next;
    }
    (loops, inner)
}

/// A statement that may be a loop, for [`grid`].
pub(crate) trait GridLoop {
    /// `(variable, extent, body, plain)` of a loop, `plain` when it is a
    /// serial loop from 0 with nothing attached, which a grid may hold.
    fn as_loop(&self) -> Option<(&Var, &Expr, &Self, bool)>;
}

impl GridLoop for Stmt {
    fn as_loop(&self) -> Option<(&Var, &Expr, &Stmt, bool)> {
        match self {
            Stmt::For {
                var,
                min,
                extent,
                kind,
                pragmas,
                body,
            } => Some((
                var,
                extent,
                body,
                *kind == ForKind::Serial && min.is_int(0) && pragmas.is_empty(),
            )),
            _ => None,
        }
    }
}

#[derive(Default)]
pub(crate) struct ScriptPrinter {
    /// Names in use, with the scopes that defined them (released when the
    /// scope closes).
    pub(crate) names: HashSet<String>,
    pub(crate) vars: HashMap<Var, String>,
    /// What each buffer's storage is: `A.data` for parameters, the
    /// allocation's variable for allocated buffers.
    sources: HashMap<BufferId, String>,
    /// The printed name of each declared buffer view, and the scope it
    /// was declared in.
    pub(crate) buffers: HashMap<BufferId, (String, usize)>,
    /// The scope path holding all uses of each buffer.
    home: HashMap<BufferId, Vec<usize>>,
    /// The open scopes, innermost last, with the declarations waiting to
    /// be written before the statement being printed in each.
    open: Vec<(usize, Vec<String>)>,
    next: usize,
}

/// Python's binding strength of an operator, weakest first.
#[derive(Clone, Copy, PartialEq, PartialOrd)]
pub(crate) enum Prec {
    Or,
    And,
    Not,
    Cmp,
    Add,
    Mul,
    Unary,
    Atom,
}

/// `hint` as a Python identifier: characters that cannot be in one become
/// `_`, and a name that would start with a digit (or be empty) gets a `_`
/// in front.
///
/// ```
/// assert_eq!(tir::python_identifier("i.outer"), "i_outer");
/// assert_eq!(tir::python_identifier("0x"), "_0x");
/// ```
pub fn python_identifier(hint: &str) -> String {
    let mut base: String = hint
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect();
    if base.is_empty() || base.starts_with(|c: char| c.is_ascii_digit()) {
        base.insert(0, '_');
    }
    base
}

impl ScriptPrinter {
    /// A fresh Python name for `hint`: non-identifier characters become
    /// `_`, and a name in use gets the first free `_k` suffix.
    pub(crate) fn define(&mut self, hint: &str) -> String {
        let base = python_identifier(hint);
        let mut name = base.clone();
        let mut k = 0;
        while self.names.contains(&name) {
            k += 1;
            name = format!("{base}_{k}");
        }
        self.names.insert(name.clone());
        name
    }

    fn define_var(&mut self, v: &Var) -> String {
        let name = self.define(v.name());
        self.vars.insert(v.clone(), name.clone());
        name
    }

    pub(crate) fn release_var(&mut self, v: &Var) {
        if let Some(name) = self.vars.remove(v) {
            self.names.remove(&name);
        }
    }

    fn shape(&self, shape: &[Expr]) -> String {
        let dims: Vec<String> = shape.iter().map(|e| self.expr(e)).collect();
        if dims.len() == 1 {
            format!("({},)", dims[0])
        } else {
            format!("({})", dims.join(", "))
        }
    }

    /// The name of buffer `b` at a use, declaring its view first in the
    /// scope that holds all its uses.
    fn buffer(&mut self, b: &Buffer) -> String {
        if let Some((name, _)) = self.buffers.get(&b.id()) {
            return name.clone();
        }
        let name = self.define(b.name());
        let source = self
            .sources
            .get(&b.id())
            .cloned()
            .unwrap_or_else(|| format!("{}.data", b.name()));
        let mut decl = format!("{name} = T.Buffer({}", self.shape(b.shape()));
        if b.dtype() != DataType::Float32 {
            decl.push_str(&format!(", \"{}\"", b.dtype()));
        }
        decl.push_str(&format!(", data={source}"));
        if !b.scope().is_empty() && b.scope() != "global" {
            decl.push_str(&format!(", scope=\"{}\"", b.scope()));
        }
        decl.push(')');
        let home = self.home.get(&b.id()).and_then(|p| p.last().copied());
        // The scope holding every use is open; the innermost one else.
        let k = self
            .open
            .iter()
            .rposition(|(f, _)| Some(*f) == home)
            .unwrap_or(self.open.len() - 1);
        self.open[k].1.push(decl);
        self.buffers.insert(b.id(), (name.clone(), self.open[k].0));
        name
    }

    /// The statements of a scope, at `depth` levels of four spaces; the
    /// scope must have been opened (`open`).
    fn body(&mut self, s: &Stmt, depth: usize) -> String {
        let items = flat_seq(s);
        let mut out = String::new();
        if items.is_empty() {
            out.push_str(&format!("{}T.evaluate(0)\n", pad(depth)));
        }
        let n = items.len();
        for (k, c) in items.into_iter().enumerate() {
            let text = self.stmt(c, depth, k + 1 == n);
            let decls = std::mem::take(&mut self.open.last_mut().expect("a scope is open").1);
            for d in decls {
                out.push_str(&format!("{}{d}\n", pad(depth)));
            }
            out.push_str(&text);
        }
        out
    }

    /// The whole function body.
    fn block(&mut self, s: &Stmt, depth: usize) -> String {
        self.open.push((0, Vec::new()));
        let text = self.body(s, depth);
        self.open.pop();
        text
    }

    /// A scope's body: opened, printed, closed; its buffer views are
    /// released with it.
    fn scope(&mut self, body: &Stmt, depth: usize) -> String {
        self.next += 1;
        let id = self.next;
        self.open.push((id, Vec::new()));
        let text = self.body(body, depth);
        self.open.pop();
        let declared: Vec<BufferId> = self
            .buffers
            .iter()
            .filter(|(_, (_, scope))| *scope == id)
            .map(|(b, _)| *b)
            .collect();
        for b in declared {
            if let Some((name, _)) = self.buffers.remove(&b) {
                self.names.remove(&name);
            }
        }
        text
    }

    /// A scoped statement `rhs` over `body`: `lhs = rhs` and the body at
    /// the same depth when it ends its block, else a `with` block.
    fn scoped(
        &mut self,
        lhs: Option<&str>,
        rhs: &str,
        body: &Stmt,
        depth: usize,
        last: bool,
    ) -> String {
        let mut out = pad(depth);
        if last {
            match lhs {
                Some(l) => out.push_str(&format!("{l} = {rhs}\n")),
                None => out.push_str(&format!("{rhs}\n")),
            }
            out.push_str(&self.scope(body, depth));
        } else {
            match lhs {
                Some(l) => out.push_str(&format!("with {rhs} as {l}:\n")),
                None => out.push_str(&format!("with {rhs}:\n")),
            }
            out.push_str(&self.scope(body, depth + 1));
        }
        out
    }

    fn stmt(&mut self, s: &Stmt, depth: usize, last: bool) -> String {
        crate::stack::grow(|| self.stmt_step(s, depth, last))
    }

    fn stmt_step(&mut self, s: &Stmt, depth: usize, last: bool) -> String {
        match s {
            Stmt::For {
                var,
                min,
                extent,
                kind,
                pragmas,
                body,
            } => {
                if let Some((p, rest)) = pragmas.split_first() {
                    // Each pragma is an attribute around the loop.
                    let node = format!(
                        "T.iter_var({}, {}, \"DataPar\", \"\")",
                        var.name()
                            .replace(|c: char| !c.is_ascii_alphanumeric() && c != '_', "_"),
                        p.dom.as_ref().map_or_else(
                            || "None".to_string(),
                            |r| format!(
                                "T.Range({}, {})",
                                self.expr(&r.min),
                                self.expr(&end(&r.min, &r.extent))
                            )
                        )
                    );
                    let value = match &p.value {
                        PragmaValue::Int(x) => x.to_string(),
                        PragmaValue::Str(s) => format!("{s:?}"),
                    };
                    let rhs = format!("T.attr({node}, \"pragma_{}\", {value})", p.key);
                    let inner = Stmt::for_kind(
                        var,
                        min.clone(),
                        extent.clone(),
                        kind.clone(),
                        rest.to_vec(),
                        (**body).clone(),
                    );
                    return self.scoped(None, &rhs, &inner, depth, last);
                }
                if let ForKind::Thread(t) = kind {
                    let ext = self.expr(extent);
                    let rhs = format!("T.launch_thread(\"{}\", {ext})", t.tag);
                    let name = self.define_var(var);
                    let text = self.scoped(Some(&name), &rhs, body, depth, last);
                    self.release_var(var);
                    return text;
                }
                let (loops, inner) = grid(s);
                let mut names = Vec::new();
                let mut extents = Vec::new();
                let mut header = String::new();
                for l in &loops {
                    if let Stmt::For {
                        var, min, extent, ..
                    } = l
                    {
                        let range = if min.is_int(0) {
                            self.expr(extent)
                        } else {
                            format!("{}, {}", self.expr(min), self.expr(&end(min, extent)))
                        };
                        extents.push(range);
                        names.push(self.define_var(var));
                    }
                }
                if loops.len() > 1 {
                    header.push_str(&format!(
                        "for {} in T.grid({}):\n",
                        names.join(", "),
                        extents.join(", ")
                    ));
                } else {
                    let f = match kind {
                        ForKind::Parallel => "T.parallel",
                        ForKind::Vectorized => "T.vectorized",
                        ForKind::Unrolled => "T.unroll",
                        _ => "range",
                    };
                    header.push_str(&format!("for {} in {f}({}):\n", names[0], extents[0]));
                }
                let text = self.scope(inner, depth + 1);
                for l in &loops {
                    if let Stmt::For { var, .. } = l {
                        self.release_var(var);
                    }
                }
                format!("{}{header}{text}", pad(depth))
            }
            Stmt::Let { var, body, .. } | Stmt::LetValue { var, body, .. } => {
                let rhs = match s {
                    Stmt::LetValue { value, .. } => self.value(value, Prec::Or),
                    Stmt::Let { value, .. } => self.expr(value),
                    _ => unreachable!("a let"),
                };
                let name = self.define_var(var);
                let text = if last {
                    let mut out = format!("{}{name}: T.int32 = {rhs}\n", pad(depth));
                    out.push_str(&self.scope(body, depth));
                    out
                } else {
                    self.scoped(
                        Some(&name),
                        &format!("T.LetStmt({rhs})"),
                        body,
                        depth,
                        false,
                    )
                };
                self.release_var(var);
                text
            }
            Stmt::Allocate {
                buffer,
                extents,
                body,
            } => {
                let dims: Vec<String> = extents.iter().map(|e| self.expr(e)).collect();
                let scope = if buffer.scope().is_empty() {
                    "global"
                } else {
                    buffer.scope()
                };
                let rhs = format!(
                    "T.allocate([{}], \"{}\", \"{scope}\")",
                    dims.join(", "),
                    buffer.dtype()
                );
                let name = self.define(buffer.name());
                self.sources.insert(buffer.id(), name.clone());
                let text = self.scoped(Some(&name), &rhs, body, depth, last);
                self.names.remove(&name);
                text
            }
            Stmt::Realize { buffer, body, .. } => {
                // Not left after flattening; printed as an allocation of
                // the whole buffer should one remain.
                let alloc = Stmt::allocate(buffer, buffer.shape().to_vec(), (**body).clone());
                self.stmt(&alloc, depth, last)
            }
            Stmt::Produce { body, .. } => self.body(body, depth),
            Stmt::While { cond, body } => {
                let c = self.value(cond, Prec::Or);
                let mut out = format!("{}while {c}:\n", pad(depth));
                out.push_str(&self.scope(body, depth + 1));
                out
            }
            Stmt::IfThenElse {
                cond,
                then_case,
                else_case,
            } => {
                let c = self.value(cond, Prec::Or);
                let mut out = format!("{}if {c}:\n", pad(depth));
                out.push_str(&self.scope(then_case, depth + 1));
                if let Some(e) = else_case {
                    out.push_str(&format!("{}else:\n", pad(depth)));
                    out.push_str(&self.scope(e, depth + 1));
                }
                out
            }
            Stmt::BufferStore {
                buffer,
                indices,
                value,
                ..
            } => {
                let name = self.buffer(buffer);
                let idx: Vec<String> = indices.iter().map(|e| self.index(e)).collect();
                let v = self.value(value, Prec::Or);
                format!("{}{name}[{}] = {v}\n", pad(depth), idx.join(", "))
            }
            Stmt::Evaluate(v) => {
                let text = self.value(v, Prec::Or);
                let text = if matches!(v, Value::Call(..)) {
                    text
                } else {
                    format!("T.evaluate({text})")
                };
                format!("{}{text}\n", pad(depth))
            }
            // Calls the program cannot look into keep the legacy text of
            // the call, evaluated (TVMScript has no finer form for them here).
            Stmt::Opaque { call, .. } => format!("{}T.evaluate({call})\n", pad(depth)),
            Stmt::TensorCall { .. } => {
                let legacy = crate::print::Printer::new()
                    .header(s)
                    .trim_end()
                    .to_string();
                format!("{}T.evaluate({legacy})\n", pad(depth))
            }
            Stmt::Seq(_) => self.body(s, depth),
        }
    }

    /// An access index, simplified as TVM simplifies flattened offsets
    /// (`(i * 4 + j) * 10 + k` is `i * 40 + j * 10 + k`, `0 + j` is `j`).
    pub(crate) fn index(&self, e: &Expr) -> String {
        let simple = arith::Analyzer::new().simplify(e);
        self.expr(simple.as_ref().unwrap_or(e))
    }

    pub(crate) fn expr(&self, e: &Expr) -> String {
        self.expr_in(e, Prec::Or)
    }

    /// `e` in a context binding at least as strongly as `ctx`: in
    /// parentheses when its own operator binds more weakly.
    fn expr_in(&self, e: &Expr, ctx: Prec) -> String {
        crate::stack::grow(|| {
            let (text, prec) = self.expr_step(e);
            wrap(text, prec, ctx)
        })
    }

    fn expr_step(&self, e: &Expr) -> (String, Prec) {
        use ExprKind::*;
        let bin = |a: &Expr, op: &str, b: &Expr, p: Prec| {
            (
                format!("{} {op} {}", self.expr_in(a, p), self.expr_in(b, next(p))),
                p,
            )
        };
        let call = |name: &str, args: &[&Expr]| {
            let args: Vec<String> = args.iter().map(|a| self.expr(a)).collect();
            (format!("T.{name}({})", args.join(", ")), Prec::Atom)
        };
        match e.kind() {
            Int(v) if *v < 0 => (v.to_string(), Prec::Unary),
            Int(v) => (v.to_string(), Prec::Atom),
            Bool(b) => (
                format!("T.bool({})", if *b { "True" } else { "False" }),
                Prec::Atom,
            ),
            Var(v) => (
                self.vars
                    .get(v)
                    .cloned()
                    .unwrap_or_else(|| v.name().to_string()),
                Prec::Atom,
            ),
            Add(a, b) => bin(a, "+", b, Prec::Add),
            Sub(a, b) => bin(a, "-", b, Prec::Add),
            Mul(a, b) => bin(a, "*", b, Prec::Mul),
            FloorDiv(a, b) => bin(a, "//", b, Prec::Mul),
            FloorMod(a, b) => bin(a, "%", b, Prec::Mul),
            CeilDiv(a, b) => call("ceildiv", &[a, b]),
            Min(a, b) => call("min", &[a, b]),
            Max(a, b) => call("max", &[a, b]),
            Select(c, a, b) => call("Select", &[c, a, b]),
            Cmp(op, a, b) => bin(a, op.symbol(), b, Prec::Cmp),
            And(a, b) => bin(a, "and", b, Prec::And),
            Or(a, b) => bin(a, "or", b, Prec::Or),
            Not(a) => (format!("not {}", self.expr_in(a, Prec::Not)), Prec::Not),
        }
    }

    pub(crate) fn value(&mut self, v: &Value, ctx: Prec) -> String {
        crate::stack::grow(|| {
            let (text, prec) = self.value_step(v);
            wrap(text, prec, ctx)
        })
    }

    fn value_step(&mut self, v: &Value) -> (String, Prec) {
        let bin = |s: &mut Self, a: &Value, op: &str, b: &Value, p: Prec| {
            let l = s.value(a, p);
            let r = s.value(b, next(p));
            (format!("{l} {op} {r}"), p)
        };
        let call = |s: &mut Self, name: &str, args: &[&Value]| {
            let args: Vec<String> = args.iter().map(|a| s.value(a, Prec::Or)).collect();
            (format!("T.{name}({})", args.join(", ")), Prec::Atom)
        };
        match v {
            Value::Float(x, t) => (format!("T.{t}({})", python_float(*x)), Prec::Atom),
            Value::Int(x, DataType::Int32) if *x < 0 => (x.to_string(), Prec::Unary),
            Value::Int(x, DataType::Int32) => (x.to_string(), Prec::Atom),
            Value::Int(x, DataType::Bool) => (
                format!("T.bool({})", if *x != 0 { "True" } else { "False" }),
                Prec::Atom,
            ),
            Value::Int(x, t) => (format!("T.{t}({x})"), Prec::Atom),
            Value::Index(e) => self.expr_step(e),
            Value::Var(var, _) => self.expr_step(&var.expr()),
            Value::Load(l) => {
                let name = self.buffer(&l.buffer);
                let idx: Vec<String> = l.indices.iter().map(|e| self.index(e)).collect();
                (format!("{name}[{}]", idx.join(", ")), Prec::Atom)
            }
            Value::Binary(op, a, b) => match op {
                BinOp::Add => bin(self, a, "+", b, Prec::Add),
                BinOp::Sub => bin(self, a, "-", b, Prec::Add),
                BinOp::Mul => bin(self, a, "*", b, Prec::Mul),
                BinOp::Div => bin(self, a, "/", b, Prec::Mul),
                BinOp::FloorDiv => bin(self, a, "//", b, Prec::Mul),
                BinOp::FloorMod => bin(self, a, "%", b, Prec::Mul),
                BinOp::Min => call(self, "min", &[a, b]),
                BinOp::Max => call(self, "max", &[a, b]),
            },
            Value::Cmp(op, a, b) => bin(self, a, op.symbol(), b, Prec::Cmp),
            Value::And(a, b) => bin(self, a, "and", b, Prec::And),
            Value::Or(a, b) => bin(self, a, "or", b, Prec::Or),
            Value::Not(a) => (format!("not {}", self.value(a, Prec::Not)), Prec::Not),
            Value::Neg(a) => (format!("-{}", self.value(a, Prec::Unary)), Prec::Unary),
            Value::Cast(t, a) => {
                let x = self.value(a, Prec::Or);
                (format!("T.Cast(\"{t}\", {x})"), Prec::Atom)
            }
            Value::Select(c, a, b) => call(self, "Select", &[c, a, b]),
            Value::IfThenElse(c, a, b) => call(self, "if_then_else", &[c, a, b]),
            Value::Likely(c) => call(self, "likely", &[c]),
            Value::Call(op, args) => {
                let refs: Vec<&Value> = args.iter().collect();
                call(self, &op.to_string(), &refs)
            }
            Value::Let(var, x, body) => {
                // As the other printer: the value stands where the
                // variable is used.
                let text = Var::new(self.value(x, Prec::Atom));
                let body = body
                    .map_indices(&mut |e| e.substitute(&mut |v| (v == var).then(|| text.expr())));
                self.value_step(&body)
            }
        }
    }
}

/// The precedence an operand on the right of an operator of precedence
/// `p` needs to go without parentheses (Python's operators group left).
fn next(p: Prec) -> Prec {
    match p {
        Prec::Or => Prec::And,
        Prec::And => Prec::Not,
        Prec::Not => Prec::Cmp,
        Prec::Cmp => Prec::Add,
        Prec::Add => Prec::Mul,
        Prec::Mul => Prec::Unary,
        Prec::Unary | Prec::Atom => Prec::Atom,
    }
}

fn wrap(text: String, prec: Prec, ctx: Prec) -> String {
    if prec < ctx {
        format!("({text})")
    } else {
        text
    }
}

/// `min + extent`, folded where it can be (`T.Range(0, 8)`).
fn end(min: &Expr, extent: &Expr) -> Expr {
    let sum = Expr::add(min.clone(), extent.clone());
    arith::Analyzer::new().simplify(&sum).unwrap_or(sum)
}

fn pad(depth: usize) -> String {
    "    ".repeat(depth)
}

/// A float as TVMScript writes it: integral values in fixed notation with
/// one decimal (`2.0`), others with 17 significant digits as C's `%.17g`.
fn python_float(x: f64) -> String {
    if !x.is_finite() {
        let word = if x.is_nan() {
            "nan"
        } else if x > 0.0 {
            "inf"
        } else {
            "-inf"
        };
        return format!("\"{word}\"");
    }
    if x.round() == x {
        return format!("{x:.1}");
    }
    let e = format!("{x:.16e}");
    let (mantissa, exp) = e.split_once('e').unwrap_or((&e, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    if !(-4..17).contains(&exp) {
        let m = mantissa.trim_end_matches('0').trim_end_matches('.');
        let sign = if exp < 0 { '-' } else { '+' };
        return format!("{m}e{sign}{:02}", exp.unsigned_abs());
    }
    let decimals = (16 - exp).max(0) as usize;
    let fixed = format!("{x:.decimals$}");
    if fixed.contains('.') {
        fixed
            .trim_end_matches('0')
            .trim_end_matches('.')
            .to_string()
    } else {
        fixed
    }
}
