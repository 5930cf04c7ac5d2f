//! The TVMScript text of a function in block form, as TVM v0.19 prints
//! `func.script()` for a function `te.create_prim_func` made.
//!
//! What TVM's printer does and this one follows:
//! - the function is named after its `global_symbol` attribute, which is
//!   then left out of `T.func_attr` (a function without one is
//!   `@T.prim_func(private=True) def main`); the attributes are printed
//!   sorted by key;
//! - a parameter whose shape is constant is `A: T.Buffer((128, 128),
//!   "float32")`; one with a variable in its shape is a handle
//!   (`var_A: T.handle`) matched in the body (`A = T.match_buffer(var_A,
//!   (m, n))`), the sizes it introduces declared just before
//!   (`m, n = T.int32(), T.int32()`);
//! - the root block is the comment `# with T.block("root"):` followed by
//!   its allocations, when the function allocates buffers or realizes
//!   blocks;
//! - a block lists its iteration variables (`T.axis.remap("SSR", [x, y,
//!   k])` for a run of them bound to enclosing loops over their own
//!   domains, `T.axis.spatial(128, x * 2 + 1)` otherwise), `T.where`, its
//!   regions, `T.block_attr`, its allocations, `with T.init():` and its
//!   body;
//! - loops are `T.grid` for directly nested serial loops from 0, else
//!   `range`, `T.parallel`, `T.vectorized`, `T.unroll`,
//!   `T.thread_binding`;
//! - names are Python identifiers kept apart within a scope by `_1`, `_2`
//!   suffixes; values and indices print as [`crate::tvmscript`] prints
//!   them (Python's precedence, `T.float32(2.0)`);
//! - a variable nothing defines is declared (`n = T.int32()`) in the
//!   innermost scope holding all its uses, before the statement that first
//!   uses it.

use crate::block::{Block, BlockFunc, BlockRealize, BlockStmt, BufferRegion, IterKind};
use crate::buffer::{Buffer, BufferId};
use crate::dtype::DataType;
use crate::stmt::ForKind;
use crate::tvmscript::{grid, GridLoop, Prec, ScriptPrinter};
use crate::value::Value;
use arith::{Expr, Range, Var};
use std::collections::{HashMap, HashSet};

/// The TVMScript text of `func`, as TVM v0.19 prints a function in block
/// form (`func.script()` of what `te.create_prim_func` returns).
///
/// ```
/// use arith::{Expr, Range, Var};
/// use tir::block::{Block, BlockFunc, BlockIterVar, BlockStmt, IterKind};
/// use tir::{Buffer, DataType, Value};
/// let a = Buffer::new("A", DataType::Float32, [16i64]);
/// let b = Buffer::new("B", DataType::Float32, [16i64]);
/// let (i, vi) = (Var::new("i"), Var::new("v_i"));
/// let store = BlockStmt::store(&b, [vi.expr()], Value::load(&a, [vi.expr()]) * Value::f32(2.0));
/// let iv = BlockIterVar::new(&vi, Range::from_extent(Expr::int(16)), IterKind::Spatial);
/// let body = BlockStmt::for_range(&i, 16, BlockStmt::realize(vec![i.expr()], Block::new("B", vec![iv], store)));
/// let f = BlockFunc::new("main", vec![a, b], vec![], body).completed();
/// assert_eq!(tir::block::block_tvmscript(&f), r#"# from tvm.script import tir as T
///
/// @T.prim_func
/// def main(A: T.Buffer((16,), "float32"), B: T.Buffer((16,), "float32")):
///     T.func_attr({"tir.noalias": T.bool(True)})
///     ## with T.block("root"):
///     for i in range(16):
///         with T.block("B"):
///             v_i = T.axis.spatial(16, i)
///             T.reads(A[v_i])
///             T.writes(B[v_i])
///             B[v_i] = A[v_i] * T.float32(2.0)
/// "#);
/// ```
pub fn block_tvmscript(func: &BlockFunc) -> String {
    BlockPrinter::new(func).function(func)
}

/// A scope of the printed program (the function, a loop or grid, a block,
/// an init, a branch): what was defined in it, released when it closes,
/// and the declarations waiting to be written before its next statement.
struct Frame {
    id: usize,
    pending: Vec<String>,
    vars: Vec<Var>,
    buffers: Vec<BufferId>,
}

struct BlockPrinter {
    p: ScriptPrinter,
    /// The loops around the statement being printed: variable, first
    /// value, extent.
    loops: Vec<(Var, Expr, Expr)>,
    /// For each variable nothing defines, the scope to declare it in.
    free: HashMap<Var, usize>,
    frames: Vec<Frame>,
    next: usize,
    /// Whether the statement being printed ends its scope's statements.
    last: bool,
}

/// A loop of the block form prints in a `T.grid` when it is serial from 0.
impl GridLoop for BlockStmt {
    fn as_loop(&self) -> Option<(&Var, &Expr, &BlockStmt, bool)> {
        match self {
            BlockStmt::For {
                var,
                min,
                extent,
                kind,
                body,
            } => Some((var, extent, body, *kind == ForKind::Serial && min.is_int(0))),
            _ => None,
        }
    }
}

/// The statements of a body, nested sequences opened.
fn flat_seq(s: &BlockStmt) -> Vec<&BlockStmt> {
    let mut out = Vec::new();
    let mut pending = vec![s];
    while let Some(s) = pending.pop() {
        match s {
            BlockStmt::Seq(v) => pending.extend(v.iter().rev()),
            _ => out.push(s),
        }
    }
    out
}

/// `a + b` as TVM's `operator+` builds it: constants folded, a zero
/// operand dropped.
fn fold_add(a: &Expr, b: &Expr) -> Expr {
    match (a.as_int(), b.as_int()) {
        (Some(x), Some(y)) => Expr::int(x + y),
        (Some(0), _) => b.clone(),
        (_, Some(0)) => a.clone(),
        _ => Expr::add(a.clone(), b.clone()),
    }
}

/// A Python string literal.
fn py_str(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '"' => out.push_str("\\\""),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// A stored attribute value as TVMScript writes it: booleans as
/// `T.bool(...)`.
fn attr_value(v: &str) -> String {
    match v {
        "True" | "False" => format!("T.bool({v})"),
        _ => v.to_string(),
    }
}

/// `{"a": 1, "b": T.bool(True)}`, sorted by key as TVM prints a map of
/// strings.
fn attr_dict(attrs: &[(String, String)]) -> String {
    let mut items: Vec<&(String, String)> = attrs.iter().collect();
    items.sort_by(|a, b| a.0.cmp(&b.0));
    let items: Vec<String> = items
        .iter()
        .map(|(k, v)| format!("{}: {}", py_str(k), attr_value(v)))
        .collect();
    format!("{{{}}}", items.join(", "))
}

/// `"main"` as `main`: the text of a string attribute.
fn unquote(v: &str) -> &str {
    v.strip_prefix('"')
        .and_then(|v| v.strip_suffix('"'))
        .unwrap_or(v)
}

fn pad(depth: usize) -> String {
    "    ".repeat(depth)
}

/// Whether a parameter prints inline as `A: T.Buffer(...)` (TVM's
/// `IsSimpleBuffer`): a constant shape, the global scope, no axis
/// separators.
fn is_simple(b: &Buffer) -> bool {
    b.shape().iter().all(|e| e.as_int().is_some())
        && (b.scope().is_empty() || b.scope() == "global")
        && b.axis_separators().is_empty()
}

/// Calls `f` on the variables of `v` not bound by a `let` inside it, left
/// to right.
fn value_vars(v: &Value, bound: &mut Vec<Var>, f: &mut impl FnMut(&Var)) {
    crate::stack::grow(|| match v {
        Value::Float(..) | Value::Int(..) => {}
        Value::Var(x, _) => {
            if !bound.contains(x) {
                f(x)
            }
        }
        Value::Index(e) => e.for_each_var(&mut |x| {
            if !bound.contains(x) {
                f(x)
            }
        }),
        Value::Load(l) => {
            for i in &l.indices {
                i.for_each_var(&mut |x| {
                    if !bound.contains(x) {
                        f(x)
                    }
                });
            }
        }
        Value::Binary(_, a, b) | Value::Cmp(_, a, b) | Value::And(a, b) | Value::Or(a, b) => {
            value_vars(a, bound, f);
            value_vars(b, bound, f);
        }
        Value::Not(a) | Value::Neg(a) | Value::Cast(_, a) | Value::Likely(a) => {
            value_vars(a, bound, f)
        }
        Value::Select(c, a, b) | Value::IfThenElse(c, a, b) => {
            value_vars(c, bound, f);
            value_vars(a, bound, f);
            value_vars(b, bound, f);
        }
        Value::Call(_, args) => args.iter().for_each(|a| value_vars(a, bound, f)),
        Value::Let(x, value, body) => {
            value_vars(value, bound, f);
            bound.push(x.clone());
            value_vars(body, bound, f);
            bound.pop();
        }
    })
}

/// Finds, for each variable that nothing defines (no parameter's shape,
/// loop or block), the innermost scope holding all its uses. Scopes are
/// numbered in the order the printer opens them.
struct FreeVars {
    next: usize,
    path: Vec<usize>,
    bound: HashSet<Var>,
    lca: HashMap<Var, Vec<usize>>,
}

impl FreeVars {
    fn open(&mut self) {
        self.next += 1;
        self.path.push(self.next);
    }

    fn close(&mut self) {
        self.path.pop();
    }

    fn use_var(&mut self, v: &Var) {
        if self.bound.contains(v) {
            return;
        }
        match self.lca.get_mut(v) {
            None => {
                self.lca.insert(v.clone(), self.path.clone());
            }
            Some(prefix) => {
                let common = prefix
                    .iter()
                    .zip(&self.path)
                    .take_while(|(a, b)| a == b)
                    .count();
                prefix.truncate(common);
            }
        }
    }

    fn expr(&mut self, e: &Expr) {
        e.for_each_var(&mut |v| self.use_var(v));
    }

    fn value(&mut self, v: &Value) {
        let mut vars = Vec::new();
        value_vars(v, &mut Vec::new(), &mut |x| vars.push(x.clone()));
        for x in &vars {
            self.use_var(x);
        }
    }

    fn regions(&mut self, regions: &[BufferRegion]) {
        for r in regions {
            for range in &r.region {
                self.expr(&range.min);
                self.expr(&range.extent);
            }
        }
    }

    fn body(&mut self, s: &BlockStmt) {
        for c in flat_seq(s) {
            self.stmt(c);
        }
    }

    fn stmt(&mut self, s: &BlockStmt) {
        crate::stack::grow(|| match s {
            BlockStmt::For { .. } => {
                let (loops, inner) = grid(s);
                self.open();
                for l in &loops {
                    if let BlockStmt::For {
                        var, min, extent, ..
                    } = l
                    {
                        self.bound.insert(var.clone());
                        self.expr(min);
                        self.expr(extent);
                    }
                }
                self.body(inner);
                for l in &loops {
                    if let BlockStmt::For { var, .. } = l {
                        self.bound.remove(var);
                    }
                }
                self.close();
            }
            BlockStmt::Block(r) => {
                for b in &r.bindings {
                    self.expr(b);
                }
                self.expr(&r.predicate);
                let block = &r.block;
                self.open();
                for iv in &block.iter_vars {
                    self.expr(&iv.dom.min);
                    self.expr(&iv.dom.extent);
                }
                let added: Vec<Var> = block
                    .iter_vars
                    .iter()
                    .filter(|iv| self.bound.insert(iv.var.clone()))
                    .map(|iv| iv.var.clone())
                    .collect();
                self.regions(&block.reads);
                self.regions(&block.writes);
                for b in &block.alloc_buffers {
                    for e in b.shape() {
                        self.expr(e);
                    }
                }
                if let Some(init) = &block.init {
                    self.open();
                    self.body(init);
                    self.close();
                }
                self.body(&block.body);
                for v in &added {
                    self.bound.remove(v);
                }
                self.close();
            }
            BlockStmt::Store { indices, value, .. } => {
                for i in indices {
                    self.expr(i);
                }
                self.value(value);
            }
            BlockStmt::If {
                cond,
                then_case,
                else_case,
            } => {
                self.value(cond);
                self.open();
                self.body(then_case);
                self.close();
                if let Some(e) = else_case {
                    self.open();
                    self.body(e);
                    self.close();
                }
            }
            BlockStmt::Seq(_) => self.body(s),
            BlockStmt::Evaluate(v) => self.value(v),
            BlockStmt::Let {
                var, value, body, ..
            } => {
                self.value(value);
                // The printer gives the `let` a scope of its own (TVM's
                // frame), where its variable is defined.
                self.open();
                let added = self.bound.insert(var.clone());
                self.body(body);
                if added {
                    self.bound.remove(var);
                }
                self.close();
            }
        })
    }
}

impl BlockPrinter {
    fn new(func: &BlockFunc) -> BlockPrinter {
        // The sizes of the parameters are defined with them.
        let mut bound: HashSet<Var> = func.scalar_params.iter().map(|(_, v)| v.clone()).collect();
        for b in &func.params {
            for e in b.shape() {
                e.for_each_var(&mut |v| {
                    bound.insert(v.clone());
                });
            }
        }
        let mut finder = FreeVars {
            next: 0,
            path: vec![0],
            bound,
            lca: HashMap::new(),
        };
        for b in &func.alloc_buffers {
            for e in b.shape() {
                finder.expr(e);
            }
        }
        finder.body(&func.body);
        let mut free: HashMap<Var, usize> = finder
            .lca
            .into_iter()
            .map(|(v, path)| (v, path.last().copied().unwrap_or(0)))
            .collect();
        // A size of a parameter standing alone is defined with it; one
        // inside a larger expression, where that is first printed.
        for v in finder.bound {
            free.insert(v, 0);
        }
        let mut p = ScriptPrinter::default();
        // The module aliases of TVM's printer are taken.
        p.names
            .extend(["I", "T", "R", "cls"].iter().map(|s| s.to_string()));
        BlockPrinter {
            p,
            loops: Vec::new(),
            free,
            frames: Vec::new(),
            next: 0,
            last: true,
        }
    }

    fn open(&mut self) {
        self.next += 1;
        self.frames.push(Frame {
            id: self.next,
            pending: Vec::new(),
            vars: Vec::new(),
            buffers: Vec::new(),
        });
    }

    fn close(&mut self) {
        let f = self.frames.pop().expect("a scope is open");
        for v in &f.vars {
            self.p.release_var(v);
        }
        for b in &f.buffers {
            if let Some((name, _)) = self.p.buffers.remove(b) {
                self.p.names.remove(&name);
            }
        }
    }

    /// A variable of the innermost scope.
    fn define_var(&mut self, v: &Var) -> String {
        let name = if v.name().is_empty() {
            self.p.define("v")
        } else {
            self.p.define(v.name())
        };
        self.p.vars.insert(v.clone(), name.clone());
        self.frames
            .last_mut()
            .expect("a scope is open")
            .vars
            .push(v.clone());
        name
    }

    /// A buffer of the innermost scope.
    fn define_buffer(&mut self, b: &Buffer) -> String {
        let hint = if b.name().is_empty() {
            "buffer"
        } else {
            b.name()
        };
        let name = self.p.define(hint);
        self.p.buffers.insert(b.id(), (name.clone(), 0));
        self.frames
            .last_mut()
            .expect("a scope is open")
            .buffers
            .push(b.id());
        name
    }

    /// Declares the variables of `e` nothing defines, at their first use,
    /// in the scope holding all their uses.
    fn touch(&mut self, e: &Expr) {
        let mut vars = Vec::new();
        e.for_each_var(&mut |v| vars.push(v.clone()));
        for v in vars {
            self.declare(&v);
        }
    }

    fn touch_value(&mut self, v: &Value) {
        let mut vars = Vec::new();
        value_vars(v, &mut Vec::new(), &mut |x| vars.push(x.clone()));
        for x in vars {
            self.declare(&x);
        }
    }

    fn declare(&mut self, v: &Var) {
        if self.p.vars.contains_key(v) {
            return;
        }
        let Some(&scope) = self.free.get(v) else {
            return;
        };
        let k = self
            .frames
            .iter()
            .rposition(|f| f.id == scope)
            .unwrap_or(self.frames.len() - 1);
        let name = self
            .p
            .define(if v.name().is_empty() { "v" } else { v.name() });
        self.p.vars.insert(v.clone(), name.clone());
        self.frames[k].pending.push(format!("{name} = T.int32()"));
        self.frames[k].vars.push(v.clone());
    }

    fn expr(&mut self, e: &Expr) -> String {
        self.touch(e);
        self.p.expr(e)
    }

    fn index(&mut self, e: &Expr) -> String {
        self.touch(e);
        self.p.index(e)
    }

    fn value(&mut self, v: &Value) -> String {
        self.touch_value(v);
        // The shared printer writes the load of a 0-d buffer `A[]`; TVM
        // writes `A[()]`. No other `[]` occurs in a value.
        self.p.value(v, Prec::Or).replace("[]", "[()]")
    }

    fn indices(&mut self, name: &str, indices: &[Expr]) -> String {
        if indices.is_empty() {
            return format!("{name}[()]");
        }
        let idx: Vec<String> = indices.iter().map(|e| self.index(e)).collect();
        format!("{name}[{}]", idx.join(", "))
    }

    fn buffer_name(&self, b: &Buffer) -> String {
        self.p
            .buffers
            .get(&b.id())
            .map(|(n, _)| n.clone())
            .unwrap_or_else(|| crate::python_identifier(b.name()))
    }

    /// `A[v_i, 0:16]`: an axis of extent one as its index, others as
    /// `min:min + extent`.
    fn region(&mut self, r: &BufferRegion) -> String {
        let name = self.buffer_name(&r.buffer);
        if r.region.is_empty() {
            return format!("{name}[()]");
        }
        let mut parts = Vec::new();
        for Range { min, extent } in &r.region {
            let lo = self.expr(min);
            if extent.as_int() == Some(1) {
                parts.push(lo);
            } else {
                let hi = self.expr(&fold_add(min, extent));
                parts.push(format!("{lo}:{hi}"));
            }
        }
        format!("{name}[{}]", parts.join(", "))
    }

    /// `(128, 128)`, `"int32"` and keyword arguments of a buffer
    /// declaration, after the variables of its shape nothing defined were
    /// declared in the innermost scope: those standing alone as one line
    /// (`m, n = T.int32(), T.int32()`), others where first used.
    fn buffer_args(&mut self, b: &Buffer, with_dtype: bool) -> String {
        let mut alone: Vec<String> = Vec::new();
        let mut dims = Vec::new();
        for e in b.shape() {
            if let Some(v) = e.as_var() {
                if !self.p.vars.contains_key(v) {
                    alone.push(self.define_var(v));
                }
            }
            dims.push(self.expr(e));
        }
        match alone.len() {
            0 => {}
            1 => self
                .frames
                .last_mut()
                .expect("a scope is open")
                .pending
                .push(format!("{} = T.int32()", alone[0])),
            n => self
                .frames
                .last_mut()
                .expect("a scope is open")
                .pending
                .push(format!(
                    "{} = {}",
                    alone.join(", "),
                    vec!["T.int32()"; n].join(", ")
                )),
        }
        let mut out = if dims.len() == 1 {
            format!("({},)", dims[0])
        } else {
            format!("({})", dims.join(", "))
        };
        if with_dtype || b.dtype() != DataType::Float32 {
            out.push_str(&format!(", \"{}\"", b.dtype()));
        }
        if !b.scope().is_empty() && b.scope() != "global" {
            out.push_str(&format!(", scope={}", py_str(b.scope())));
        }
        if !b.axis_separators().is_empty() {
            let seps: Vec<String> = b.axis_separators().iter().map(|s| s.to_string()).collect();
            out.push_str(&format!(", axis_separators=[{}]", seps.join(", ")));
        }
        out
    }

    /// Appends `line` to a scope's statements, after the declarations that
    /// printing it left waiting in the innermost scope.
    fn push_line(&mut self, out: &mut String, depth: usize, line: &str) {
        self.flush(out, depth);
        out.push_str(&format!("{}{line}\n", pad(depth)));
    }

    fn flush(&mut self, out: &mut String, depth: usize) {
        let pending = std::mem::take(&mut self.frames.last_mut().expect("a scope is open").pending);
        for d in pending {
            out.push_str(&format!("{}{d}\n", pad(depth)));
        }
    }

    /// Appends the statements of `s` to the innermost scope's.
    fn body_into(&mut self, out: &mut String, s: &BlockStmt, depth: usize) {
        let items = flat_seq(s);
        if items.is_empty() {
            self.push_line(out, depth, "T.evaluate(0)");
        }
        let n = items.len();
        for (k, c) in items.into_iter().enumerate() {
            self.last = k + 1 == n;
            let text = self.stmt(c, depth);
            self.flush(out, depth);
            out.push_str(&text);
        }
    }

    /// `s` in a scope of its own.
    fn scope(&mut self, s: &BlockStmt, depth: usize) -> String {
        self.open();
        let mut out = String::new();
        self.body_into(&mut out, s, depth);
        self.close();
        out
    }

    fn function(&mut self, func: &BlockFunc) -> String {
        self.frames.push(Frame {
            id: 0,
            pending: Vec::new(),
            vars: Vec::new(),
            buffers: Vec::new(),
        });
        let symbol = func
            .attrs
            .iter()
            .find(|(k, _)| k == "global_symbol")
            .map(|(_, v)| unquote(v).to_string());
        // Parameters: inline buffers, or handles matched in the body.
        let mut params = Vec::new();
        let mut handles = Vec::new();
        for param in func.all_params() {
            let b = match param {
                Ok(b) => b,
                Err(v) => {
                    let name = self.define_var(v);
                    params.push(format!("{name}: T.int32"));
                    continue;
                }
            };
            if is_simple(b) {
                let name = self.define_buffer(b);
                let args = self.buffer_args(b, true);
                params.push(format!("{name}: T.Buffer({args})"));
            } else {
                let handle = self.p.define(&format!("var_{}", b.name()));
                params.push(format!("{handle}: T.handle"));
                handles.push((b, handle));
            }
        }
        let mut out = String::new();
        let attrs: Vec<(String, String)> = func
            .attrs
            .iter()
            .filter(|(k, _)| symbol.is_none() || k != "global_symbol")
            .cloned()
            .collect();
        if !attrs.is_empty() {
            self.push_line(&mut out, 1, &format!("T.func_attr({})", attr_dict(&attrs)));
        }
        for (b, handle) in handles {
            let name = self.define_buffer(b);
            let args = self.buffer_args(b, false);
            self.push_line(
                &mut out,
                1,
                &format!("{name} = T.match_buffer({handle}, {args})"),
            );
        }
        let blocks = match &func.body {
            BlockStmt::Block(r) => !r.block.iter_vars.is_empty(),
            body => !body.blocks().is_empty(),
        };
        if !func.alloc_buffers.is_empty() || blocks {
            self.push_line(&mut out, 1, "# with T.block(\"root\"):");
            for b in &func.alloc_buffers {
                let name = self.define_buffer(b);
                let args = self.buffer_args(b, false);
                self.push_line(&mut out, 1, &format!("{name} = T.alloc_buffer({args})"));
            }
        }
        self.body_into(&mut out, &func.body, 1);
        self.frames.pop();
        let decorator = if symbol.is_some() {
            "@T.prim_func"
        } else {
            "@T.prim_func(private=True)"
        };
        let name = symbol.unwrap_or_else(|| "main".to_string());
        format!(
            "# from tvm.script import tir as T\n\n{decorator}\ndef {name}({}):\n{out}",
            params.join(", ")
        )
    }

    fn stmt(&mut self, s: &BlockStmt, depth: usize) -> String {
        crate::stack::grow(|| self.stmt_step(s, depth))
    }

    fn stmt_step(&mut self, s: &BlockStmt, depth: usize) -> String {
        match s {
            BlockStmt::For { kind, .. } => {
                let (loops, inner) = grid(s);
                self.open();
                let header = if loops.len() > 1 {
                    let mut names = Vec::new();
                    let mut extents = Vec::new();
                    for l in &loops {
                        if let BlockStmt::For { var, extent, .. } = l {
                            names.push(self.define_var(var));
                            extents.push(self.expr(extent));
                        }
                    }
                    format!(
                        "for {} in T.grid({}):",
                        names.join(", "),
                        extents.join(", ")
                    )
                } else {
                    let BlockStmt::For {
                        var, min, extent, ..
                    } = s
                    else {
                        unreachable!("a loop")
                    };
                    let name = self.define_var(var);
                    let mut args = Vec::new();
                    if min.is_int(0) {
                        args.push(self.expr(extent));
                    } else {
                        args.push(self.expr(min));
                        args.push(self.expr(&fold_add(min, extent)));
                    }
                    let f = match kind {
                        ForKind::Serial => "range",
                        ForKind::Parallel => "T.parallel",
                        ForKind::Vectorized => "T.vectorized",
                        ForKind::Unrolled => "T.unroll",
                        ForKind::Thread(t) => {
                            args.push(format!("thread={}", py_str(&t.tag)));
                            "T.thread_binding"
                        }
                    };
                    format!("for {name} in {f}({}):", args.join(", "))
                };
                for l in &loops {
                    if let BlockStmt::For {
                        var, min, extent, ..
                    } = l
                    {
                        self.loops.push((var.clone(), min.clone(), extent.clone()));
                    }
                }
                let mut body = String::new();
                self.body_into(&mut body, inner, depth + 1);
                self.loops.truncate(self.loops.len() - loops.len());
                self.close();
                format!("{}{header}\n{body}", pad(depth))
            }
            BlockStmt::Block(r) => self.block(r, depth),
            BlockStmt::Store {
                buffer,
                indices,
                value,
            } => {
                let name = self.buffer_name(buffer);
                let lhs = self.indices(&name, indices);
                let rhs = self.value(value);
                format!("{}{lhs} = {rhs}\n", pad(depth))
            }
            BlockStmt::If {
                cond,
                then_case,
                else_case,
            } => {
                let c = self.value(cond);
                let mut out = format!("{}if {c}:\n", pad(depth));
                out.push_str(&self.scope(then_case, depth + 1));
                if let Some(e) = else_case {
                    out.push_str(&format!("{}else:\n", pad(depth)));
                    out.push_str(&self.scope(e, depth + 1));
                }
                out
            }
            BlockStmt::Seq(_) => {
                let mut out = String::new();
                self.body_into(&mut out, s, depth);
                out
            }
            BlockStmt::Evaluate(v) => {
                let text = self.value(v);
                if matches!(v, Value::Call(..)) {
                    format!("{}{text}\n", pad(depth))
                } else {
                    format!("{}T.evaluate({text})\n", pad(depth))
                }
            }
            BlockStmt::Let {
                var,
                dtype,
                value,
                body,
            } => {
                // Ending its scope's statements, a `let` is an annotated
                // assignment followed by its body; elsewhere its body is a
                // `with` block (TVM's concise scoping).
                let concise = self.last;
                let rhs = self.value(value);
                self.open();
                let name = self.define_var(var);
                let mut text = String::new();
                let out = if concise {
                    self.body_into(&mut text, body, depth);
                    format!("{}{name}: T.{dtype} = {rhs}\n{text}", pad(depth))
                } else {
                    self.body_into(&mut text, body, depth + 1);
                    format!("{}with T.LetStmt({rhs}) as {name}:\n{text}", pad(depth))
                };
                self.close();
                out
            }
        }
    }

    /// Whether iteration variable `k` of `r` is bound to an enclosing
    /// loop over exactly its domain (a spatial or reduction axis), and so
    /// goes into a `T.axis.remap`.
    fn remappable(&self, r: &BlockRealize, k: usize) -> bool {
        let iv = &r.block.iter_vars[k];
        if iv.kind == IterKind::Opaque {
            return false;
        }
        let Some(v) = r.bindings.get(k).and_then(|b| b.as_var()) else {
            return false;
        };
        self.loops
            .iter()
            .rev()
            .find(|(l, _, _)| l == v)
            .is_some_and(|(_, min, extent)| *min == iv.dom.min && *extent == iv.dom.extent)
    }

    /// `v = T.axis.spatial(128, x * 2 + 1)`.
    fn single_axis(&mut self, r: &BlockRealize, k: usize) -> String {
        let iv = &r.block.iter_vars[k];
        let f = match iv.kind {
            IterKind::Spatial => "spatial",
            IterKind::Reduce => "reduce",
            IterKind::Opaque => "opaque",
        };
        let dom = if iv.dom.min.is_int(0) {
            self.expr(&iv.dom.extent)
        } else {
            let lo = self.expr(&iv.dom.min);
            let hi = self.expr(&fold_add(&iv.dom.min, &iv.dom.extent));
            format!("({lo}, {hi})")
        };
        let rhs = match r.bindings.get(k) {
            Some(b) => {
                let b = self.expr(b);
                format!("T.axis.{f}({dom}, {b})")
            }
            None => format!("T.axis.{f}({dom})"),
        };
        let name = self.define_var(&iv.var);
        format!("{name} = {rhs}")
    }

    /// A run of remapped iteration variables: one of them alone, more as
    /// `v_x, v_y = T.axis.remap("SS", [x, y])`.
    fn remap(&mut self, r: &BlockRealize, run: &[usize], out: &mut String, depth: usize) {
        match run {
            [] => {}
            [k] => {
                let line = self.single_axis(r, *k);
                self.push_line(out, depth, &line);
            }
            _ => {
                let mut lhs = Vec::new();
                let mut vars = Vec::new();
                let mut kinds = String::new();
                for &k in run {
                    let iv = &r.block.iter_vars[k];
                    lhs.push(self.define_var(&iv.var));
                    vars.push(self.expr(&r.bindings[k]));
                    kinds.push(iv.kind.letter());
                }
                let line = format!(
                    "{} = T.axis.remap(\"{kinds}\", [{}])",
                    lhs.join(", "),
                    vars.join(", ")
                );
                self.push_line(out, depth, &line);
            }
        }
    }

    fn block(&mut self, r: &BlockRealize, depth: usize) -> String {
        let block: &Block = &r.block;
        self.open();
        let d = depth + 1;
        let mut out = String::new();
        // Iteration variables: runs of remappable ones together.
        let mut run: Vec<usize> = Vec::new();
        for k in 0..block.iter_vars.len() {
            if self.remappable(r, k) {
                run.push(k);
            } else {
                self.remap(r, &run, &mut out, d);
                run.clear();
                let line = self.single_axis(r, k);
                self.push_line(&mut out, d, &line);
            }
        }
        self.remap(r, &run, &mut out, d);
        if r.predicate.as_bool() != Some(true) {
            let pred = self.expr(&r.predicate);
            self.push_line(&mut out, d, &format!("T.where({pred})"));
        }
        let reads: Vec<String> = block.reads.iter().map(|x| self.region(x)).collect();
        self.push_line(&mut out, d, &format!("T.reads({})", reads.join(", ")));
        let writes: Vec<String> = block.writes.iter().map(|x| self.region(x)).collect();
        self.push_line(&mut out, d, &format!("T.writes({})", writes.join(", ")));
        if !block.annotations.is_empty() {
            let attrs = attr_dict(&block.annotations);
            self.push_line(&mut out, d, &format!("T.block_attr({attrs})"));
        }
        for b in &block.alloc_buffers {
            let name = self.define_buffer(b);
            let args = self.buffer_args(b, false);
            self.push_line(&mut out, d, &format!("{name} = T.alloc_buffer({args})"));
        }
        if let Some(init) = &block.init {
            let text = self.scope(init, d + 1);
            self.push_line(&mut out, d, "with T.init():");
            out.push_str(&text);
        }
        self.body_into(&mut out, &block.body, d);
        self.close();
        format!(
            "{}with T.block({}):\n{out}",
            pad(depth),
            py_str(&block.name)
        )
    }
}
