//! What `tvm.lower` returns: the lowered program, printed as TVM prints
//! it, with `mod["main"]`, `.body`, and the loop IR's statements for
//! `tvm.tir.stmt_functor.post_order_visit` (`isinstance(x, tvm.tir.For)`,
//! `x.loop_var`, `x.extent`, `x.min`, `x.buffer`).

use crate::args::Args;
use crate::error::{type_error, ApiError, ApiResult};
use crate::function::Class;
use crate::functions::call_back;
use crate::object::Object;
use crate::value::Value;
use crate::Host;
use std::rc::Rc;

/// A lowered program and its text.
pub struct LoweredModule {
    /// The program.
    pub func: tir::PrimFunc,
    /// What `print` shows.
    pub text: String,
    /// The name `tvm.lower(..., name=...)` gave the function (`"main"` by
    /// default), under which `mod[name]` finds it.
    pub name: String,
    /// The tensor each buffer stores, for a program before storage
    /// flattening (`te.schedule.ScheduleOps`), whose statements name their
    /// producers (`ProducerRealize`, `ProducerStore`); empty for a lowered
    /// program, whose statements name buffers.
    pub producers: std::collections::HashMap<tir::BufferId, te::Tensor>,
}

impl LoweredModule {
    /// A program after lowering, whose statements name buffers.
    pub fn new(name: String, text: String, func: tir::PrimFunc) -> LoweredModule {
        LoweredModule {
            func,
            text,
            name,
            producers: Default::default(),
        }
    }

    /// The tensor `buf` stores, in a program before storage flattening.
    fn producer(&self, buf: &tir::Buffer) -> Option<&te::Tensor> {
        self.producers.get(&buf.id())
    }
}

/// A statement of a lowered program: the program and the path to the
/// statement (child indices from the body), so that visiting a program
/// copies no statement.
#[derive(Clone)]
pub struct StmtRef {
    module: Rc<LoweredModule>,
    path: Rc<[usize]>,
}

impl StmtRef {
    /// The body of `module`.
    pub(crate) fn body(module: &Rc<LoweredModule>) -> StmtRef {
        StmtRef {
            module: module.clone(),
            path: Rc::from(Vec::new()),
        }
    }

    /// The statement.
    pub fn stmt(&self) -> &tir::Stmt {
        let mut s = &self.module.func.body;
        for &i in self.path.iter() {
            s = s.children()[i];
        }
        s
    }

    fn child(&self, i: usize) -> StmtRef {
        let mut path = self.path.to_vec();
        path.push(i);
        StmtRef {
            module: self.module.clone(),
            path: Rc::from(path),
        }
    }

    /// Whether both name the same statement.
    pub fn same_as(&self, other: &StmtRef) -> bool {
        Rc::ptr_eq(&self.module, &other.module) && self.path == other.path
    }

    /// The statement's class, as TVM names it: before storage flattening
    /// a realize or a store of a tensor is a `ProducerRealize` or a
    /// `ProducerStore`.
    pub(crate) fn class(&self) -> &'static str {
        let stmt = self.stmt();
        match stmt {
            tir::Stmt::Realize { buffer, .. } if self.module.producer(buffer).is_some() => {
                "ProducerRealize"
            }
            tir::Stmt::BufferStore { buffer, .. } if self.module.producer(buffer).is_some() => {
                "ProducerStore"
            }
            _ => stmt_class(stmt),
        }
    }
}

/// `func` as TVM's lowering leaves it to a program that walks it: the
/// stages' `produce` markers are gone (TVM's `tvm.lower` keeps none), so
/// that `mod["main"].body` is the outermost loop, except around the stages
/// named in `extern_stages`, which TVM marks with an `extern_scope`
/// attribute statement.
pub(crate) fn without_produce(
    func: &tir::PrimFunc,
    extern_stages: &std::collections::HashSet<String>,
) -> tir::PrimFunc {
    struct Strip<'a>(&'a std::collections::HashSet<String>);
    impl tir::mutate::Mutator for Strip<'_> {
        type Error = std::convert::Infallible;
        fn stmt(&mut self, s: &tir::Stmt) -> Result<tir::Stmt, Self::Error> {
            match s {
                tir::Stmt::Produce { name, body } if !self.0.contains(name) => self.stmt(body),
                other => tir::mutate::walk_stmt(self, other),
            }
        }
    }
    let Ok(body) = tir::mutate::Mutator::stmt(&mut Strip(extern_stages), &func.body);
    tir::PrimFunc::new(func.name.clone(), func.params.clone(), body)
}

/// The class of a statement (`For`, `BufferStore`...), as TVM names it.
pub(crate) fn stmt_class(s: &tir::Stmt) -> &'static str {
    match s {
        tir::Stmt::For { .. } => "For",
        tir::Stmt::Let { .. } | tir::Stmt::LetValue { .. } => "LetStmt",
        tir::Stmt::Realize { .. } => "BufferRealize",
        tir::Stmt::Allocate { .. } => "Allocate",
        tir::Stmt::BufferStore { .. } => "BufferStore",
        tir::Stmt::IfThenElse { .. } => "IfThenElse",
        tir::Stmt::Seq(_) => "SeqStmt",
        // A tensor intrinsic's call is an evaluated call in TVM's program.
        tir::Stmt::Evaluate(_) | tir::Stmt::TensorCall { .. } => "Evaluate",
        // TVM marks a stage's statements with an attribute statement.
        tir::Stmt::Produce { .. } => "AttrStmt",
        _ => "Stmt",
    }
}

/// The statement classes of `tvm.tir`, by name.
pub(crate) const STMT_CLASSES: &[&str] = &[
    "Stmt",
    "For",
    "LetStmt",
    "BufferRealize",
    "ProducerRealize",
    "ProducerStore",
    "Allocate",
    "BufferStore",
    "IfThenElse",
    "SeqStmt",
    "Evaluate",
    "AttrStmt",
    "PrimFunc",
    "Call",
    "ProducerLoad",
    "StmtSRef",
    "BlockRV",
];

/// `isinstance(v, tvm.tir.<class>)` for statements, for the lowered
/// function (`mod["main"]`, a `tvm.tir.PrimFunc`), for buffers, and for
/// the calls and tensor reads of expressions (`tvm.tir.Call`,
/// `tvm.tir.ProducerLoad`).
pub(crate) fn is_stmt(v: &Value, class: &str) -> bool {
    match v {
        Value::Object(Object::Call(_)) => class == "Call",
        Value::Object(Object::Element(e)) => match e.kind() {
            te::ValueKind::Call(..) => class == "Call",
            te::ValueKind::Load(..) | te::ValueKind::Gather(..) => class == "ProducerLoad",
            _ => false,
        },
        Value::Object(Object::Lowered(_)) => class == "PrimFunc",
        Value::Object(Object::TensorIr(o)) => o.type_name() == class,
        Value::Object(Object::Buffer(_) | Object::DeclBuffer(..)) => class == "Buffer",
        Value::Object(Object::Stmt(s)) => class == "Stmt" || s.class() == class,
        _ => false,
    }
}

/// `stmt.name`.
pub(crate) fn stmt_attribute(s: &StmtRef, name: &str) -> Option<Value> {
    let stmt = s.stmt();
    let child = |i| Value::Object(Object::Stmt(s.child(i)));
    if let (tir::Stmt::Realize { buffer, .. } | tir::Stmt::BufferStore { buffer, .. }, "producer") =
        (stmt, name)
    {
        let t = s.module.producer(buffer)?;
        return Some(Value::Object(Object::Tensor(t.clone())));
    }
    Some(match (stmt, name) {
        (tir::Stmt::For { var, .. }, "loop_var") => Value::Index(var.expr()),
        (tir::Stmt::For { min, .. }, "min") => Value::Index(min.clone()),
        (tir::Stmt::For { extent, .. }, "extent") => Value::Index(extent.clone()),
        (tir::Stmt::For { kind, .. }, "kind") => Value::Int(crate::objects::for_kind_value(kind)),
        (tir::Stmt::Let { var, .. } | tir::Stmt::LetValue { var, .. }, "var") => {
            Value::Index(var.expr())
        }
        (tir::Stmt::Let { value, .. }, "value") => Value::Index(value.clone()),
        // A tensor intrinsic's call, as the intrinsic's function wrote it.
        (
            tir::Stmt::TensorCall {
                written: Some(c), ..
            },
            "value",
        ) => Value::Object(Object::Call(Rc::new((**c).clone()))),
        (
            tir::Stmt::For { .. }
            | tir::Stmt::Let { .. }
            | tir::Stmt::LetValue { .. }
            | tir::Stmt::Realize { .. }
            | tir::Stmt::Allocate { .. }
            | tir::Stmt::Produce { .. },
            "body",
        ) => child(0),
        (tir::Stmt::IfThenElse { .. }, "then_case") => child(0),
        (tir::Stmt::IfThenElse { else_case, .. }, "else_case") => {
            if else_case.is_some() {
                child(1)
            } else {
                Value::None
            }
        }
        (tir::Stmt::Seq(items), "seq") => Value::list((0..items.len()).map(child).collect()),
        (
            tir::Stmt::BufferStore { buffer, .. }
            | tir::Stmt::Allocate { buffer, .. }
            | tir::Stmt::Realize { buffer, .. },
            "buffer",
        ) => Value::Object(Object::Buffer(buffer.clone())),
        (tir::Stmt::BufferStore { indices, .. }, "indices") => {
            Value::list(indices.iter().map(|e| Value::Index(e.clone())).collect())
        }
        (tir::Stmt::Realize { region, .. }, "bounds") => Value::list(
            region
                .iter()
                .map(|r| Value::Object(Object::Range(r.clone())))
                .collect(),
        ),
        (tir::Stmt::Allocate { extents, .. }, "extents") => {
            Value::list(extents.iter().map(|e| Value::Index(e.clone())).collect())
        }
        _ => return None,
    })
}

/// `mod[name]`: the one function of a lowered program, by its name or
/// `"main"`.
pub(crate) fn function(module: &Rc<LoweredModule>, key: &Value) -> ApiResult<Value> {
    match key {
        Value::Str(k) if **k == *module.name || **k == *module.func.name => {
            Ok(Value::Object(Object::Lowered(module.clone())))
        }
        other => Err(ApiError::new(
            crate::ErrorClass::IndexError,
            format!(
                "the lowered program has one function, `{}`, not {}",
                module.name,
                crate::repr(other)
            ),
        )),
    }
}

/// `post_order_visit(stmt, fvisit)`: calls `fvisit` on every statement
/// nested in `stmt`, children before their parent, in program order.
pub(crate) fn post_order_visit(host: &mut dyn Host, args: Args) -> ApiResult<Value> {
    let a = args.bind("post_order_visit", &["stmt", "fvisit"])?;
    let s = a.required("stmt")?;
    let root = match &s.value {
        Value::Object(Object::Stmt(r)) => r.clone(),
        Value::Object(Object::Lowered(m)) => StmtRef::body(m),
        Value::Object(Object::Element(e)) => {
            // An expression (a compute's body): its nodes, children first.
            let f = a.required("fvisit")?;
            for node in expression_nodes_post_order(e) {
                call_back(host, &f.value, vec![node], &f.at)?;
            }
            return Ok(Value::None);
        }
        other => {
            return Err(type_error(
                s.place(),
                format!(
                    "expected a statement such as `mod[\"main\"].body`, found a {}",
                    other.type_name()
                ),
            ))
        }
    };
    let f = a.required("fvisit")?;
    // A work list of (statement, children visited): statements nest as deep
    // as a pipeline is long.
    let mut pending = vec![(root, false)];
    while let Some((node, expanded)) = pending.pop() {
        if expanded {
            call_back(
                host,
                &f.value,
                vec![Value::Object(Object::Stmt(node))],
                &f.at,
            )?;
            continue;
        }
        let n = node.stmt().children().len();
        pending.push((node.clone(), true));
        for i in (0..n).rev() {
            pending.push((node.child(i), false));
        }
    }
    Ok(Value::None)
}

/// The nodes of a tensor element expression, each after its children, as
/// TVM's `post_order_visit` meets them: element values, and the nodes of
/// the index expressions of loads and conditions. Iterative: bodies chain
/// as deep as a program nests its operators.
fn expression_nodes_post_order(root: &te::Value) -> Vec<Value> {
    enum Node<'a> {
        Element(&'a te::Value),
        Index(&'a arith::Expr),
    }
    let mut out = Vec::new();
    let mut pending = vec![(Node::Element(root), false)];
    while let Some((node, expanded)) = pending.pop() {
        match node {
            Node::Index(e) if expanded => out.push(Value::Index(e.clone())),
            Node::Element(v) if expanded => out.push(Value::Object(Object::Element(v.clone()))),
            Node::Index(e) => {
                pending.push((Node::Index(e), true));
                for c in e.children().into_iter().rev() {
                    pending.push((Node::Index(c), false));
                }
            }
            Node::Element(v) => {
                pending.push((Node::Element(v), true));
                let mut children = Vec::new();
                match v.kind() {
                    te::ValueKind::Load(_, idx) => children.extend(idx.iter().map(Node::Index)),
                    te::ValueKind::Index(e) => children.push(Node::Index(e)),
                    te::ValueKind::Select(c, ..) => children.push(Node::Index(c)),
                    _ => {}
                }
                v.for_each_operand(|o| children.push(Node::Element(o)));
                pending.extend(children.into_iter().rev().map(|c| (c, false)));
            }
        }
    }
    out
}

/// The statement classes, for `tvm.tir.For` and the others.
pub(crate) fn class(name: &str) -> Option<Class> {
    STMT_CLASSES
        .iter()
        .find(|c| **c == name)
        .map(|c| Class::Stmt(c))
}
