//! `tvm.ir.save_json` and `load_json` of tensors, operations and
//! schedules: a JSON document that a later run (or another process) reads
//! back into an equal program, with fresh identities.
//!
//! The document is rangefinder's own, in the shape of TVM's (tables of
//! nodes referred to by position, so that sharing survives and nesting
//! stays flat): variables, iteration variables, operations in dependency
//! order (each with its table of body values), and the schedule. Index
//! expressions are written as text over the variables' positions (`v3 +
//! 1`) and parsed back.
//!
//! A schedule is not copied field by field: loading builds a fresh
//! schedule of the loaded outputs and replays its primitives (the splits
//! and fuses in their order, the loop order, bindings, annotations,
//! attachments and storage requests), so every step is checked as if the
//! program had asked for it, and a document that describes an impossible
//! schedule is an error rather than a broken schedule.
//!
//! ```
//! let a = te::placeholder([16], "A", tir::DataType::Float32).unwrap();
//! let b = te::compute_named([16], &["i"], |i| a.at([&i[0]]) * 2.0, "B").unwrap();
//! let mut s = te::create_schedule(&[b.clone()]);
//! s.split(&b, &b.op().axis()[0], 4).unwrap();
//! let text = te::save_json(&te::JsonObject::Schedule(Box::new(s.clone()))).unwrap();
//! let te::JsonObject::Schedule(loaded) = te::load_json(&text).unwrap() else { panic!() };
//! let args = |s: &te::Schedule| s.default_args();
//! assert_eq!(
//!     te::lower(&loaded, &args(&loaded)).unwrap().to_string(),
//!     te::lower(&s, &args(&s)).unwrap().to_string(),
//! );
//! ```

use crate::error::{ErrorKind, Result, TeError};
use crate::iter_var::{IterKind, IterVar};
use crate::operation::{AttrValue, Attrs, OpId, OpKind, Operation, Tensor};
use crate::schedule::{Attach, Relation, Schedule, SplitBy};
use crate::thread::ThreadTag;
use crate::value::{BinaryOp, Reduce, Reducer, Value, ValueKind};
use arith::{CmpOp, Expr, Range, Var};
use serde_json::{json, Map, Value as Json};
use std::collections::HashMap;
use tir::{DataType, ForKind, PragmaValue};

/// What `save_json` writes and `load_json` gives back.
#[derive(Clone)]
pub enum JsonObject {
    /// A tensor (`te.Tensor`): its operation and everything it reads.
    Tensor(Tensor),
    /// An operation (`T.op`).
    Operation(Operation),
    /// A schedule, with its whole program.
    Schedule(Box<Schedule>),
    /// A schedule with the arguments of the function built from it
    /// (`tvm.build(s, [A, B, n])`): its tensors, and the size variables
    /// the function takes as integers. A built module is saved as this.
    Function {
        /// The schedule.
        schedule: Box<Schedule>,
        /// The function's tensors, in order.
        tensors: Vec<Tensor>,
        /// The variables the function takes as integers, in order.
        sizes: Vec<Var>,
    },
}

/// The format's name and version, checked on loading.
const FORMAT: &str = "rangefinder.te";
const VERSION: i64 = 1;

/// `tvm.ir.save_json(obj)`: the document describing `obj`. Operations
/// rangefinder cannot rebuild from a description (extern, hybrid and
/// tensor-intrinsic operations, tuple reductions) and schedules with
/// tensorized loops, groups or layout transforms are refused with an error
/// that names them.
pub fn save_json(obj: &JsonObject) -> Result<String> {
    let mut w = Writer::default();
    let root = match obj {
        JsonObject::Tensor(t) => {
            let op = w.op(t.op())?;
            json!({"tensor": [op, t.value_index()]})
        }
        JsonObject::Operation(op) => json!({"operation": w.op(op)?}),
        JsonObject::Schedule(s) => json!({"schedule": w.schedule(s)?}),
        JsonObject::Function {
            schedule,
            tensors,
            sizes,
        } => {
            // The schedule first: it decides which definition of each
            // operation is written, and the tensors refer to those.
            let schedule = w.schedule(schedule)?;
            let tensors = tensors
                .iter()
                .map(|t| w.tensor(t))
                .collect::<Result<Vec<_>>>()?;
            let sizes: Vec<usize> = sizes.iter().map(|v| w.var(v)).collect();
            json!({"function": {"schedule": schedule, "tensors": tensors, "sizes": sizes}})
        }
    };
    let doc = json!({
        "format": FORMAT,
        "version": VERSION,
        "vars": w.vars.iter().map(|v| json!(v.name())).collect::<Vec<_>>(),
        "iter_vars": w.iter_var_nodes,
        "operations": w.op_nodes,
        "root": root,
    });
    Ok(doc.to_string())
}

/// `tvm.ir.load_json(text)`: the object a [`save_json`] document
/// describes, with fresh variables, axes and operations.
pub fn load_json(text: &str) -> Result<JsonObject> {
    let doc: Json = serde_json::from_str(text).map_err(|e| {
        bad(format!(
            "the text is not JSON ({e}): pass what `save_json` wrote"
        ))
    })?;
    if doc.get("format").and_then(Json::as_str) != Some(FORMAT) {
        return Err(bad(format!(
            "the document is not one `save_json` wrote (its `format` is not `{FORMAT}`)"
        )));
    }
    if doc.get("version").and_then(Json::as_i64) != Some(VERSION) {
        return Err(bad(format!(
            "the document's version is not {VERSION}, the one this rangefinder reads"
        )));
    }
    let mut r = Reader::new(&doc)?;
    for (k, node) in array(&doc, "operations")?.iter().enumerate() {
        let op = r.op(node)?;
        debug_assert_eq!(r.ops.len(), k);
        r.ops.push(op);
    }
    let root = field(&doc, "root")?;
    if let Some(t) = root.get("tensor") {
        return Ok(JsonObject::Tensor(r.tensor(t)?));
    }
    if let Some(op) = root.get("operation") {
        return Ok(JsonObject::Operation(r.op_ref(op)?));
    }
    if let Some(s) = root.get("schedule") {
        return Ok(JsonObject::Schedule(Box::new(r.schedule(s)?)));
    }
    if let Some(f) = root.get("function") {
        let schedule = Box::new(r.schedule(field(f, "schedule")?)?);
        let tensors = array(f, "tensors")?
            .iter()
            .map(|t| r.tensor(t))
            .collect::<Result<Vec<_>>>()?;
        let sizes = array(f, "sizes")?
            .iter()
            .map(|v| r.var(v))
            .collect::<Result<Vec<_>>>()?;
        return Ok(JsonObject::Function {
            schedule,
            tensors,
            sizes,
        });
    }
    Err(bad(
        "the document's `root` is not a tensor, an operation, a schedule or a function",
    ))
}

fn bad(message: impl Into<String>) -> TeError {
    TeError::new(
        ErrorKind::InvalidDefinition,
        format!("load_json: {}", message.into()),
    )
}

fn unsupported(what: impl std::fmt::Display) -> TeError {
    TeError::new(
        ErrorKind::Unsupported,
        format!("save_json: {what} cannot be saved by rangefinder"),
    )
}

// ---------------------------------------------------------------- writing

#[derive(Default)]
struct Writer {
    vars: Vec<Var>,
    var_index: HashMap<u64, usize>,
    /// The variables renamed to their positions, for printing.
    var_keys: Vec<Var>,
    iter_var_index: HashMap<IterVar, usize>,
    iter_var_nodes: Vec<Json>,
    op_index: HashMap<OpId, usize>,
    op_nodes: Vec<Json>,
    /// The definitions a schedule holds, by identity: a stage whose work
    /// `cache_write` moved, or whose reads `cache_read` redirected, keeps
    /// its identity with a new definition, which is the one to save.
    current: HashMap<OpId, Operation>,
}

impl Writer {
    fn var(&mut self, v: &Var) -> usize {
        if let Some(&k) = self.var_index.get(&v.id()) {
            return k;
        }
        let k = self.vars.len();
        self.vars.push(v.clone());
        self.var_keys.push(Var::new(format!("v{k}")));
        self.var_index.insert(v.id(), k);
        k
    }

    fn expr(&mut self, e: &Expr) -> String {
        let mut vars = Vec::new();
        e.for_each_var(&mut |v| vars.push(v.clone()));
        for v in &vars {
            self.var(v);
        }
        let keyed = e.substitute(&mut |v| {
            self.var_index
                .get(&v.id())
                .map(|&k| self.var_keys[k].expr())
        });
        keyed.to_string()
    }

    fn iter_var(&mut self, iv: &IterVar) -> usize {
        if let Some(&k) = self.iter_var_index.get(iv) {
            return k;
        }
        let var = self.var(iv.var());
        let dom = iv
            .dom()
            .map(|r| json!([self.expr(&r.min), self.expr(&r.extent)]));
        let node = json!({
            "var": var,
            "dom": dom,
            "kind": match iv.kind() {
                IterKind::DataPar => "data_par",
                IterKind::Reduce => "reduce",
            },
            "thread": iv.thread_tag().map(|t| t.to_string()),
        });
        let k = self.iter_var_nodes.len();
        self.iter_var_index.insert(iv.clone(), k);
        self.iter_var_nodes.push(node);
        k
    }

    fn tensor(&mut self, t: &Tensor) -> Result<Json> {
        Ok(json!([self.op(t.op())?, t.value_index()]))
    }

    /// The position of `op`, writing it (after everything it reads) first
    /// when it is new. Dependencies are visited with an explicit stack:
    /// pipelines are as deep as they are long.
    fn op(&mut self, op: &Operation) -> Result<usize> {
        let mut stack = vec![(op.clone(), false)];
        while let Some((o, inputs_done)) = stack.pop() {
            let o = self.current.get(&o.id()).cloned().unwrap_or(o);
            if self.op_index.contains_key(&o.id()) {
                continue;
            }
            if !inputs_done {
                stack.push((o.clone(), true));
                for t in o.input_tensors() {
                    if !self.op_index.contains_key(&t.op().id()) {
                        stack.push((t.op().clone(), false));
                    }
                }
                continue;
            }
            let node = self.op_node(&o)?;
            self.op_index.insert(o.id(), self.op_nodes.len());
            self.op_nodes.push(node);
        }
        Ok(self.op_index[&op.id()])
    }

    fn op_node(&mut self, op: &Operation) -> Result<Json> {
        let mut node = Map::new();
        node.insert("name".into(), json!(op.name()));
        match op.kind() {
            OpKind::Placeholder => {
                let shape: Vec<String> = op.shape().iter().map(|d| self.expr(d)).collect();
                node.insert("kind".into(), json!("placeholder"));
                node.insert("shape".into(), json!(shape));
                node.insert("dtype".into(), json!(op.dtype().name()));
            }
            OpKind::Compute(_) => {
                let axis: Vec<usize> = op.axis().iter().map(|a| self.iter_var(a)).collect();
                let mut values = ValueTable::default();
                let mut bodies = Vec::new();
                for body in op.bodies() {
                    bodies.push(values.value(self, body)?);
                }
                node.insert("kind".into(), json!("compute"));
                node.insert("tag".into(), json!(op.tag()));
                node.insert("attrs".into(), self.attrs(op.attrs())?);
                node.insert("axis".into(), json!(axis));
                node.insert("values".into(), Json::Array(values.nodes));
                node.insert("bodies".into(), json!(bodies));
            }
            OpKind::Scan(scan) => {
                let tensors = |ts: &[Tensor], w: &mut Writer| -> Result<Json> {
                    ts.iter()
                        .map(|t| w.tensor(t))
                        .collect::<Result<Vec<_>>>()
                        .map(Json::Array)
                };
                node.insert("kind".into(), json!("scan"));
                node.insert("init".into(), tensors(&scan.init, self)?);
                node.insert("update".into(), tensors(&scan.update, self)?);
                node.insert("state".into(), tensors(&scan.state, self)?);
                node.insert("inputs".into(), tensors(&scan.inputs, self)?);
                let axes: Vec<usize> = std::iter::once(&scan.scan_axis)
                    .chain(&scan.spatial_axis)
                    .map(|a| self.iter_var(a))
                    .collect();
                node.insert("axes".into(), json!(axes));
            }
            OpKind::Extern(_) => {
                return Err(unsupported(format_args!(
                    "the extern or hybrid operation `{}`",
                    op.name()
                )))
            }
            OpKind::TensorCompute(_) => {
                return Err(unsupported(format_args!(
                    "the tensor-intrinsic operation `{}`",
                    op.name()
                )))
            }
        }
        Ok(Json::Object(node))
    }

    fn attrs(&mut self, attrs: &Attrs) -> Result<Json> {
        let mut out = Map::new();
        for (k, v) in attrs {
            out.insert(k.clone(), self.attr(v)?);
        }
        Ok(Json::Object(out))
    }

    fn attr(&mut self, v: &AttrValue) -> Result<Json> {
        Ok(match v {
            AttrValue::Int(i) => json!({"int": i}),
            AttrValue::Float(f) => json!({"float": f}),
            AttrValue::Str(s) => json!({"str": s}),
            AttrValue::None => json!({"none": null}),
            AttrValue::Expr(e) => json!({"expr": self.expr(e)}),
            AttrValue::Tensor(t) => json!({"tensor": self.tensor(t)?}),
            AttrValue::List(items) => json!({
                "list": items.iter().map(|x| self.attr(x)).collect::<Result<Vec<_>>>()?
            }),
        })
    }

    fn schedule(&mut self, s: &Schedule) -> Result<Json> {
        if s.groups.any_created() {
            return Err(unsupported("a schedule with stage groups (`create_group`)"));
        }
        self.current = s
            .stages()
            .iter()
            .map(|st| (st.op().id(), st.op().clone()))
            .collect();
        let outputs = s
            .outputs()
            .iter()
            .map(|op| self.op(op))
            .collect::<Result<Vec<_>>>()?;
        let mut stages = Vec::new();
        for st in s.stages() {
            if let Some((iv, _)) = st.tensorized() {
                return Err(unsupported(format_args!(
                    "the tensorized loop `{}` of `{}`",
                    iv.name(),
                    st.name()
                )));
            }
            if !s.layout_maps(st.op()).is_empty() {
                return Err(unsupported(format_args!(
                    "the layout transform of `{}`",
                    st.name()
                )));
            }
            let op = self.op(st.op())?;
            let roots = st.op().root_iter_vars().len();
            let all: Vec<usize> = st
                .all_iter_vars()
                .iter()
                .map(|iv| self.iter_var(iv))
                .collect();
            let relations: Vec<Json> = st.relations().iter().map(|r| self.relation(r)).collect();
            let leaves: Vec<usize> = st
                .leaf_iter_vars()
                .iter()
                .map(|iv| self.iter_var(iv))
                .collect();
            let attach = match st.attach() {
                Attach::Root => json!("root"),
                Attach::Inline => json!("inline"),
                Attach::At { parent, axis } => {
                    json!({"at": [self.op(parent)?, self.iter_var(axis)]})
                }
            };
            let mut threads = Vec::new();
            let mut annotations = Vec::new();
            for iv in st.all_iter_vars() {
                if let Some(t) = st.bound_thread(iv) {
                    let (iv, t) = (self.iter_var(iv), self.iter_var(t));
                    threads.push(json!([iv, t]));
                }
                if let Some(a) = st.annotation(iv) {
                    let kind = match a.kind {
                        ForKind::Parallel => Some("parallel"),
                        ForKind::Vectorized => Some("vectorize"),
                        ForKind::Unrolled => Some("unroll"),
                        _ => None,
                    };
                    let pragmas: Vec<Json> = a
                        .pragmas
                        .iter()
                        .map(|(k, v)| match v {
                            PragmaValue::Int(i) => json!([k, {"int": i}]),
                            PragmaValue::Str(s) => json!([k, {"str": s}]),
                        })
                        .collect();
                    annotations.push(json!([self.iter_var(iv), kind, pragmas]));
                }
            }
            let storage = st.storage_requests();
            let predicate = st.store_predicate().map(|p| self.expr(p));
            stages.push(json!({
                "op": op,
                "name": st.name(),
                "roots": &all[..roots.min(all.len())],
                "relations": relations,
                "leaves": leaves,
                "attach": attach,
                "scope": st.scope().map(|s| s.to_string()),
                "threads": threads,
                "annotations": annotations,
                "store_predicate": predicate,
                "dim_align": storage.dim_align,
                "double_buffer": storage.double_buffer,
            }));
        }
        Ok(json!({"outputs": outputs, "stages": stages}))
    }

    fn relation(&mut self, r: &Relation) -> Json {
        match r {
            Relation::Split {
                parent,
                outer,
                inner,
                by,
            } => {
                let (how, e) = match by {
                    SplitBy::Factor(e) => ("factor", e),
                    SplitBy::NParts(e) => ("nparts", e),
                };
                json!({"split": [
                    self.iter_var(parent),
                    self.iter_var(outer),
                    self.iter_var(inner),
                    how,
                    self.expr(e),
                ]})
            }
            Relation::Fuse {
                outer,
                inner,
                fused,
            } => {
                json!({"fuse": [self.iter_var(outer), self.iter_var(inner), self.iter_var(fused)]})
            }
            Relation::Singleton { iter } => json!({"singleton": self.iter_var(iter)}),
        }
    }
}

/// One operation's body values, children before parents.
#[derive(Default)]
struct ValueTable {
    nodes: Vec<Json>,
    /// Positions of the values written so far, by node identity: a value
    /// shared within a body is written once.
    index: HashMap<*const (), usize>,
}

impl ValueTable {
    fn value(&mut self, w: &mut Writer, v: &Value) -> Result<usize> {
        // Post-order with an explicit stack: a sum of a thousand terms is a
        // thousand levels deep.
        let mut stack = vec![(v.clone(), false)];
        while let Some((x, children_done)) = stack.pop() {
            if self.index.contains_key(&x.ptr()) {
                continue;
            }
            if !children_done {
                stack.push((x.clone(), true));
                x.for_each_operand(|c| {
                    if !self.index.contains_key(&c.ptr()) {
                        stack.push((c.clone(), false));
                    }
                });
                continue;
            }
            let node = self.node(w, &x)?;
            self.index.insert(x.ptr(), self.nodes.len());
            self.nodes.push(node);
        }
        Ok(self.index[&v.ptr()])
    }

    fn node(&mut self, w: &mut Writer, v: &Value) -> Result<Json> {
        let at = |c: &Value| self.index[&c.ptr()];
        Ok(match v.kind() {
            ValueKind::Float(f) => json!({"float": f}),
            ValueKind::Param(var, t) => json!({"param": [w.expr(&var.expr()), t.name()]}),
            ValueKind::Index(e) => json!({"index": w.expr(e)}),
            ValueKind::Load(t, idx) => {
                let idx: Vec<String> = idx.iter().map(|e| w.expr(e)).collect();
                json!({"load": [w.tensor(t)?, idx]})
            }
            ValueKind::Neg(a) => json!({"neg": at(a)}),
            ValueKind::Binary(op, a, b) => json!({"binary": [name_of(&BINARY, op), at(a), at(b)]}),
            ValueKind::Select(c, a, b) => json!({"select": [w.expr(c), at(a), at(b)]}),
            ValueKind::Reduce(r) => {
                let axes: Vec<usize> = r.axes.iter().map(|a| w.iter_var(a)).collect();
                json!({"reduce": {
                    "reducer": r.reducer.name(),
                    "source": at(&r.source),
                    "axes": axes,
                    "where": r.condition.as_ref().map(|c| w.expr(c)),
                }})
            }
            ValueKind::Call(f, args) => {
                json!({"call": [f.name(), args.iter().map(at).collect::<Vec<_>>()]})
            }
            ValueKind::Cmp(op, a, b) => json!({"cmp": [name_of(&CMP, op), at(a), at(b)]}),
            ValueKind::And(a, b) => json!({"and": [at(a), at(b)]}),
            ValueKind::Or(a, b) => json!({"or": [at(a), at(b)]}),
            ValueKind::Not(a) => json!({"not": at(a)}),
            ValueKind::Cast(t, a) => json!({"cast": [t.name(), at(a)]}),
            ValueKind::SelectValue(c, a, b) => json!({"select_value": [at(c), at(a), at(b)]}),
            ValueKind::Gather(t, idx) => {
                json!({"gather": [w.tensor(t)?, idx.iter().map(at).collect::<Vec<_>>()]})
            }
            ValueKind::CommReduce(_) => {
                return Err(unsupported("a reduction by `te.comm_reducer` over tuples"))
            }
        })
    }
}

const BINARY: [(BinaryOp, &str); 7] = [
    (BinaryOp::Add, "add"),
    (BinaryOp::Sub, "sub"),
    (BinaryOp::Mul, "mul"),
    (BinaryOp::Div, "div"),
    (BinaryOp::Min, "min"),
    (BinaryOp::Max, "max"),
    (BinaryOp::Mod, "mod"),
];

const CMP: [(CmpOp, &str); 6] = [
    (CmpOp::Eq, "eq"),
    (CmpOp::Ne, "ne"),
    (CmpOp::Lt, "lt"),
    (CmpOp::Le, "le"),
    (CmpOp::Gt, "gt"),
    (CmpOp::Ge, "ge"),
];

const REDUCERS: [Reducer; 4] = [Reducer::Sum, Reducer::Max, Reducer::Min, Reducer::Prod];

/// The name a table gives `op`.
fn name_of<T: PartialEq>(table: &[(T, &'static str)], op: &T) -> &'static str {
    table.iter().find(|(o, _)| o == op).map_or("?", |(_, n)| n)
}

/// The operator a table names `name`.
fn by_name<T: Copy>(table: &[(T, &str)], name: &str, what: &str) -> Result<T> {
    table
        .iter()
        .find(|(_, n)| *n == name)
        .map(|(o, _)| *o)
        .ok_or_else(|| bad(format!("`{name}` is not a {what}")))
}

// ---------------------------------------------------------------- reading

fn field<'a>(node: &'a Json, name: &str) -> Result<&'a Json> {
    node.get(name)
        .ok_or_else(|| bad(format!("a node has no `{name}`: {}", short(node))))
}

fn array<'a>(node: &'a Json, name: &str) -> Result<&'a [Json]> {
    field(node, name)?
        .as_array()
        .map(Vec::as_slice)
        .ok_or_else(|| bad(format!("`{name}` is not a list in {}", short(node))))
}

fn string<'a>(node: &'a Json, name: &str) -> Result<&'a str> {
    field(node, name)?
        .as_str()
        .ok_or_else(|| bad(format!("`{name}` is not a string in {}", short(node))))
}

fn index(j: &Json) -> Result<usize> {
    j.as_u64()
        .and_then(|k| usize::try_from(k).ok())
        .ok_or_else(|| bad(format!("expected a position, found {}", short(j))))
}

fn int(j: &Json) -> Result<i64> {
    j.as_i64()
        .ok_or_else(|| bad(format!("expected an integer, found {}", short(j))))
}

fn str_of(j: &Json) -> Result<&str> {
    j.as_str()
        .ok_or_else(|| bad(format!("expected a string, found {}", short(j))))
}

fn list(j: &Json) -> Result<&[Json]> {
    j.as_array()
        .map(Vec::as_slice)
        .ok_or_else(|| bad(format!("expected a list, found {}", short(j))))
}

/// A list of exactly `N` items.
fn tuple<const N: usize>(j: &Json) -> Result<&[Json; N]> {
    list(j)?
        .try_into()
        .map_err(|_| bad(format!("expected a list of {N}, found {}", short(j))))
}

/// The start of a node, for messages.
fn short(j: &Json) -> String {
    let text = j.to_string();
    match text.char_indices().nth(80) {
        Some((cut, _)) => format!("{}...", &text[..cut]),
        None => text,
    }
}

fn dtype(name: &str) -> Result<DataType> {
    name.parse()
        .map_err(|_| bad(format!("`{name}` is not a data type")))
}

struct Reader<'a> {
    vars: Vec<Var>,
    /// Each variable's key (`v3`), parsed into.
    scope: arith::Scope,
    iter_var_nodes: &'a [Json],
    iter_vars: Vec<Option<IterVar>>,
    ops: Vec<Operation>,
}

impl<'a> Reader<'a> {
    fn new(doc: &'a Json) -> Result<Reader<'a>> {
        let mut vars = Vec::new();
        let mut scope = arith::Scope::new();
        for (k, v) in array(doc, "vars")?.iter().enumerate() {
            vars.push(Var::new(str_of(v)?));
            scope.insert(Var::new(format!("v{k}")));
        }
        let iter_var_nodes = array(doc, "iter_vars")?;
        Ok(Reader {
            vars,
            scope,
            iter_var_nodes,
            iter_vars: vec![None; iter_var_nodes.len()],
            ops: Vec::new(),
        })
    }

    fn expr(&mut self, j: &Json) -> Result<Expr> {
        let text = str_of(j)?;
        let known = self.scope.vars().len();
        let keyed = arith::parse_in(text, &mut self.scope)
            .map_err(|e| bad(format!("the expression `{text}` does not parse: {e}")))?;
        if self.scope.vars().len() != known {
            self.scope = rebuild_scope(known);
            return Err(bad(format!(
                "the expression `{text}` uses a variable the document does not declare"
            )));
        }
        let vars = &self.vars;
        Ok(keyed.substitute(&mut |v| {
            v.name()
                .strip_prefix('v')
                .and_then(|k| k.parse::<usize>().ok())
                .and_then(|k| vars.get(k))
                .map(Var::expr)
        }))
    }

    fn var(&self, j: &Json) -> Result<Var> {
        let k = index(j)?;
        self.vars
            .get(k)
            .cloned()
            .ok_or_else(|| bad(format!("variable {k} is not declared")))
    }

    /// The iteration variable at position `j` as the document declares it
    /// (an axis of an operation or a thread axis).
    fn iter_var(&mut self, j: &Json) -> Result<IterVar> {
        let k = index(j)?;
        if let Some(Some(iv)) = self.iter_vars.get(k) {
            return Ok(iv.clone());
        }
        let node = self
            .iter_var_nodes
            .get(k)
            .ok_or_else(|| bad(format!("iteration variable {k} is not declared")))?;
        let var = self.var(field(node, "var")?)?;
        let dom = match field(node, "dom")? {
            Json::Null => None,
            d => {
                let [min, extent] = tuple::<2>(d)?;
                Some(Range::new(self.expr(min)?, self.expr(extent)?))
            }
        };
        let kind = match string(node, "kind")? {
            "data_par" => IterKind::DataPar,
            "reduce" => IterKind::Reduce,
            other => return Err(bad(format!("`{other}` is not an iteration kind"))),
        };
        let thread = match field(node, "thread")? {
            Json::Null => None,
            t => Some(ThreadTag::parse(str_of(t)?)?),
        };
        let iv = IterVar::from_parts(var, dom, kind, thread);
        self.iter_vars[k] = Some(iv.clone());
        Ok(iv)
    }

    /// Records that the iteration variable at position `j` is `iv`, made by
    /// loading an operation or replaying a schedule.
    fn define_iter_var(&mut self, j: &Json, iv: &IterVar) -> Result<()> {
        let k = index(j)?;
        match self.iter_vars.get_mut(k) {
            Some(slot @ None) => {
                *slot = Some(iv.clone());
                Ok(())
            }
            Some(Some(old)) if old == iv => Ok(()),
            Some(Some(_)) => Err(bad(format!(
                "iteration variable {k} is made twice: each split or fuse makes new loops"
            ))),
            None => Err(bad(format!("iteration variable {k} is not declared"))),
        }
    }

    /// An iteration variable that must already be defined.
    fn defined_iter_var(&self, j: &Json) -> Result<IterVar> {
        let k = index(j)?;
        self.iter_vars.get(k).cloned().flatten().ok_or_else(|| {
            bad(format!(
                "iteration variable {k} is used before a stage makes it"
            ))
        })
    }

    fn op_ref(&self, j: &Json) -> Result<Operation> {
        let k = index(j)?;
        self.ops
            .get(k)
            .cloned()
            .ok_or_else(|| bad(format!("operation {k} is used before it is defined")))
    }

    fn tensor(&self, j: &Json) -> Result<Tensor> {
        let [op, k] = tuple::<2>(j)?;
        let op = self.op_ref(op)?;
        let k = index(k)?;
        op.output_at(k)
            .ok_or_else(|| bad(format!("`{}` has no output {k}", op.name())))
    }

    fn op(&mut self, node: &Json) -> Result<Operation> {
        let name = string(node, "name")?;
        match string(node, "kind")? {
            "placeholder" => {
                let shape = array(node, "shape")?
                    .iter()
                    .map(|d| self.expr(d))
                    .collect::<Result<Vec<_>>>()?;
                let dtype = dtype(string(node, "dtype")?)?;
                Ok(crate::placeholder(shape, name, dtype)?.op().clone())
            }
            "compute" => {
                let axis = array(node, "axis")?
                    .iter()
                    .map(|a| self.iter_var(a))
                    .collect::<Result<Vec<_>>>()?;
                if let Some(a) = axis.iter().find(|a| a.dom().is_none()) {
                    return Err(bad(format!(
                        "the axis `{}` of `{name}` has no domain",
                        a.name()
                    )));
                }
                let values = self.values(array(node, "values")?)?;
                let bodies = array(node, "bodies")?
                    .iter()
                    .map(|b| {
                        let k = index(b)?;
                        values
                            .get(k)
                            .cloned()
                            .ok_or_else(|| bad(format!("value {k} is not defined")))
                    })
                    .collect::<Result<Vec<_>>>()?;
                let mut attrs = Attrs::new();
                let attr_nodes = field(node, "attrs")?
                    .as_object()
                    .ok_or_else(|| bad(format!("the attributes of `{name}` are not an object")))?;
                for (k, v) in attr_nodes {
                    attrs.insert(k.clone(), self.attr(v)?);
                }
                crate::operation::compute_op_on_axes(
                    axis,
                    bodies,
                    name,
                    string(node, "tag")?,
                    attrs,
                )
            }
            "scan" => {
                let tensors = |key: &str| {
                    array(node, key)?
                        .iter()
                        .map(|t| self.tensor(t))
                        .collect::<Result<Vec<_>>>()
                };
                let (init, update, state, inputs) = (
                    tensors("init")?,
                    tensors("update")?,
                    tensors("state")?,
                    tensors("inputs")?,
                );
                let op = crate::scan_states(&init, &update, &state, &inputs, name)?;
                let scan = crate::scan::scan_op(&op).expect("scan_states makes a scan");
                let made: Vec<IterVar> = std::iter::once(scan.scan_axis.clone())
                    .chain(scan.spatial_axis.iter().cloned())
                    .collect();
                let saved = array(node, "axes")?;
                if saved.len() != made.len() {
                    return Err(bad(format!(
                        "the scan `{name}` has {} axes, not {}",
                        made.len(),
                        saved.len()
                    )));
                }
                for (j, iv) in saved.iter().zip(&made) {
                    self.define_iter_var(j, iv)?;
                }
                Ok(op)
            }
            other => Err(bad(format!(
                "`{other}` is not a kind of operation rangefinder saves"
            ))),
        }
    }

    fn attr(&mut self, j: &Json) -> Result<AttrValue> {
        let obj = j.as_object().filter(|o| o.len() == 1).ok_or_else(|| {
            bad(format!(
                "an attribute is not a one-entry object: {}",
                short(j)
            ))
        })?;
        let (kind, v) = obj.iter().next().expect("one entry");
        Ok(match kind.as_str() {
            "int" => AttrValue::Int(int(v)?),
            "float" => AttrValue::Float(
                v.as_f64()
                    .ok_or_else(|| bad(format!("{} is not a number", short(v))))?,
            ),
            "str" => AttrValue::Str(str_of(v)?.to_string()),
            "none" => AttrValue::None,
            "expr" => AttrValue::Expr(self.expr(v)?),
            "tensor" => AttrValue::Tensor(self.tensor(v)?),
            "list" => AttrValue::List(
                list(v)?
                    .iter()
                    .map(|x| self.attr(x))
                    .collect::<Result<_>>()?,
            ),
            other => return Err(bad(format!("`{other}` is not a kind of attribute"))),
        })
    }

    /// One operation's value table: each node refers to nodes before it.
    fn values(&mut self, nodes: &[Json]) -> Result<Vec<Value>> {
        let mut out: Vec<Value> = Vec::with_capacity(nodes.len());
        for node in nodes {
            let v = self.value(node, &out)?;
            out.push(v);
        }
        Ok(out)
    }

    fn value(&mut self, node: &Json, done: &[Value]) -> Result<Value> {
        let at = |j: &Json| -> Result<Value> {
            let k = index(j)?;
            done.get(k)
                .cloned()
                .ok_or_else(|| bad(format!("value {k} is used before it is defined")))
        };
        let obj = node.as_object().filter(|o| o.len() == 1).ok_or_else(|| {
            bad(format!(
                "a value is not a one-entry object: {}",
                short(node)
            ))
        })?;
        let (kind, v) = obj.iter().next().expect("one entry");
        let kind = match kind.as_str() {
            "float" => ValueKind::Float(
                v.as_f64()
                    .ok_or_else(|| bad(format!("{} is not a number", short(v))))?,
            ),
            "index" => ValueKind::Index(self.expr(v)?),
            "param" => {
                let [var, t] = tuple::<2>(v)?;
                let e = self.expr(var)?;
                let var = e
                    .as_var()
                    .ok_or_else(|| bad(format!("the parameter {} is not a variable", short(var))))?
                    .clone();
                let t = dtype(str_of(t)?)?;
                if !t.is_float() {
                    return Err(bad(format!(
                        "the parameter `{var}` is of type {t}, not a float"
                    )));
                }
                ValueKind::Param(var, t)
            }
            "load" => {
                let [t, idx] = tuple::<2>(v)?;
                let idx = list(idx)?
                    .iter()
                    .map(|e| self.expr(e))
                    .collect::<Result<_>>()?;
                ValueKind::Load(self.tensor(t)?, idx)
            }
            "neg" => ValueKind::Neg(at(v)?),
            "binary" => {
                let [op, a, b] = tuple::<3>(v)?;
                let op = by_name(&BINARY, str_of(op)?, "binary operator")?;
                ValueKind::Binary(op, at(a)?, at(b)?)
            }
            "select" => {
                let [c, a, b] = tuple::<3>(v)?;
                ValueKind::Select(self.expr(c)?, at(a)?, at(b)?)
            }
            "reduce" => {
                let name = string(v, "reducer")?;
                let reducer = REDUCERS
                    .into_iter()
                    .find(|r| r.name() == name)
                    .ok_or_else(|| bad(format!("`{name}` is not a reducer")))?;
                let axes = array(v, "axes")?
                    .iter()
                    .map(|a| self.iter_var(a))
                    .collect::<Result<Vec<_>>>()?;
                let condition = match field(v, "where")? {
                    Json::Null => None,
                    c => Some(self.expr(c)?),
                };
                ValueKind::Reduce(Reduce {
                    reducer,
                    source: at(field(v, "source")?)?,
                    axes,
                    condition,
                })
            }
            "call" => {
                let [f, args] = tuple::<2>(v)?;
                let name = str_of(f)?;
                let f = tir::Intrinsic::from_name(name)
                    .ok_or_else(|| bad(format!("`{name}` is not an intrinsic")))?;
                ValueKind::Call(f, list(args)?.iter().map(at).collect::<Result<_>>()?)
            }
            "cmp" => {
                let [op, a, b] = tuple::<3>(v)?;
                let op = by_name(&CMP, str_of(op)?, "comparison")?;
                ValueKind::Cmp(op, at(a)?, at(b)?)
            }
            "and" => {
                let [a, b] = tuple::<2>(v)?;
                ValueKind::And(at(a)?, at(b)?)
            }
            "or" => {
                let [a, b] = tuple::<2>(v)?;
                ValueKind::Or(at(a)?, at(b)?)
            }
            "not" => ValueKind::Not(at(v)?),
            "cast" => {
                let [t, a] = tuple::<2>(v)?;
                ValueKind::Cast(dtype(str_of(t)?)?, at(a)?)
            }
            "select_value" => {
                let [c, a, b] = tuple::<3>(v)?;
                ValueKind::SelectValue(at(c)?, at(a)?, at(b)?)
            }
            "gather" => {
                let [t, idx] = tuple::<2>(v)?;
                ValueKind::Gather(
                    self.tensor(t)?,
                    list(idx)?.iter().map(at).collect::<Result<_>>()?,
                )
            }
            other => return Err(bad(format!("`{other}` is not a kind of value"))),
        };
        Ok(Value::new(kind))
    }

    fn schedule(&mut self, node: &Json) -> Result<Schedule> {
        let outputs = array(node, "outputs")?
            .iter()
            .map(|o| self.op_ref(o))
            .collect::<Result<Vec<_>>>()?;
        let mut s = Schedule::new(&outputs);
        let stages = array(node, "stages")?;
        let mut ops = Vec::with_capacity(stages.len());
        for st in stages {
            let op = self.op_ref(field(st, "op")?)?;
            let loaded = s.stage(&op).map_err(|_| {
                bad(format!(
                    "`{}` has a stage but is not read by the schedule's outputs",
                    op.name()
                ))
            })?;
            let roots = loaded.all_iter_vars().to_vec();
            let saved = array(st, "roots")?;
            if saved.len() != roots.len() {
                return Err(bad(format!(
                    "the stage of `{}` starts from {} loops, not {}",
                    op.name(),
                    roots.len(),
                    saved.len()
                )));
            }
            for (j, iv) in saved.iter().zip(&roots) {
                self.define_iter_var(j, iv)?;
            }
            ops.push(op);
        }
        let order = stages
            .iter()
            .zip(&ops)
            .map(|(st, op)| Ok((op.id(), string(st, "name")?.to_string())))
            .collect::<Result<Vec<_>>>()?;
        s.restore_stage_order(&order)?;
        // Loops first: every stage's splits and fuses in their order, then
        // its loop order; attachments refer to other stages' loops.
        for (st, op) in stages.iter().zip(&ops) {
            for r in array(st, "relations")? {
                self.replay_relation(&mut s, op, r)?;
            }
            let leaves = array(st, "leaves")?
                .iter()
                .map(|j| self.defined_iter_var(j))
                .collect::<Result<Vec<_>>>()?;
            if leaves.as_slice() != s.stage(op)?.leaf_iter_vars() {
                s.reorder(op, &leaves)?;
            }
        }
        for (st, op) in stages.iter().zip(&ops) {
            for pair in array(st, "threads")? {
                let [iv, t] = tuple::<2>(pair)?;
                let iv = self.defined_iter_var(iv)?;
                let t = self.iter_var(t)?;
                s.bind(op, &iv, &t)?;
            }
            for a in array(st, "annotations")? {
                let [iv, kind, pragmas] = tuple::<3>(a)?;
                let iv = self.defined_iter_var(iv)?;
                match kind.as_str() {
                    None => {}
                    Some("parallel") => s.parallel(op, &iv)?,
                    Some("vectorize") => s.vectorize(op, &iv)?,
                    Some("unroll") => s.unroll(op, &iv)?,
                    Some(other) => return Err(bad(format!("`{other}` is not a loop kind"))),
                }
                for p in list(pragmas)? {
                    let [key, value] = tuple::<2>(p)?;
                    let value = match (value.get("int"), value.get("str")) {
                        (Some(i), _) => PragmaValue::Int(int(i)?),
                        (_, Some(s)) => PragmaValue::Str(str_of(s)?.to_string()),
                        _ => return Err(bad(format!("{} is not a pragma value", short(value)))),
                    };
                    s.pragma(op, &iv, str_of(key)?, Some(value))?;
                }
            }
            match field(st, "attach")? {
                Json::String(a) if a == "root" => {
                    if !matches!(s.stage(op)?.attach(), Attach::Root) {
                        s.compute_root(op)?;
                    }
                }
                Json::String(a) if a == "inline" => s.compute_inline(op)?,
                at => {
                    let [parent, axis] = tuple::<2>(field(at, "at")?)?;
                    let parent = self.op_ref(parent)?;
                    let axis = self.defined_iter_var(axis)?;
                    let already = matches!(s.stage(op)?.attach(),
                        Attach::At { parent: p, axis: a } if *p == parent && *a == axis);
                    if !already {
                        s.compute_at(op, &parent, &axis)?;
                    }
                }
            }
            if let Json::String(scope) = field(st, "scope")? {
                s.set_scope(op, scope)?;
            }
            if let p @ Json::String(_) = field(st, "store_predicate")? {
                let p = self.expr(p)?;
                s.set_store_predicate(op, p)?;
            }
            for d in array(st, "dim_align")? {
                let [pos, factor, offset] = tuple::<3>(d)?;
                let pos = index(pos)?;
                let axis = op
                    .axis()
                    .get(pos)
                    .cloned()
                    .ok_or_else(|| bad(format!("`{}` has no axis {pos}", op.name())))?;
                s.storage_align(op, &axis, int(factor)?, int(offset)?)?;
            }
            if field(st, "double_buffer")?.as_bool() == Some(true) {
                s.double_buffer(op)?;
            }
        }
        Ok(s)
    }

    fn replay_relation(&mut self, s: &mut Schedule, op: &Operation, r: &Json) -> Result<()> {
        if let Some(split) = r.get("split") {
            let [parent, outer, inner, how, by] = tuple::<5>(split)?;
            let parent = self.defined_iter_var(parent)?;
            let by = self.expr(by)?;
            let (o, i) = match how.as_str() {
                Some("factor") => s.split(op, &parent, by)?,
                Some("nparts") => s.split_nparts(op, &parent, by)?,
                _ => return Err(bad(format!("{} is not `factor` or `nparts`", short(how)))),
            };
            self.define_iter_var(outer, &o)?;
            self.define_iter_var(inner, &i)?;
        } else if let Some(fuse) = r.get("fuse") {
            let [outer, inner, fused] = tuple::<3>(fuse)?;
            let (outer, inner) = (self.defined_iter_var(outer)?, self.defined_iter_var(inner)?);
            // The two loops were adjacent when they were fused; a later
            // reorder may have moved other loops, so put them together.
            if outer == inner {
                return Err(bad(format!("`{}` is fused with itself", outer.name())));
            }
            let leaves = s.stage(op)?.leaf_iter_vars().to_vec();
            let p = leaves.iter().position(|x| *x == outer);
            if let (Some(p), true) = (p, leaves.contains(&inner)) {
                if leaves.get(p + 1) != Some(&inner) {
                    let mut order: Vec<IterVar> =
                        leaves.iter().filter(|x| **x != inner).cloned().collect();
                    let at = order
                        .iter()
                        .position(|x| *x == outer)
                        .unwrap_or(order.len());
                    order.insert((at + 1).min(order.len()), inner.clone());
                    s.reorder(op, &order)?;
                }
            }
            let f = s.fuse(op, &outer, &inner)?;
            self.define_iter_var(fused, &f)?;
        } else if let Some(iter) = r.get("singleton") {
            let f = s.fuse_none(op)?;
            self.define_iter_var(iter, &f)?;
        } else {
            return Err(bad(format!(
                "{} is not a split, fuse or singleton",
                short(r)
            )));
        }
        Ok(())
    }
}

/// A scope of the keys `v0 .. v{n-1}` again, after a parse added a name.
fn rebuild_scope(n: usize) -> arith::Scope {
    let mut scope = arith::Scope::new();
    for k in 0..n {
        scope.insert(Var::new(format!("v{k}")));
    }
    scope
}
