//! TVM objects: tensors, operations, iteration variables, element
//! expressions, schedules, stages, bound maps, namespaces and classes.

use crate::function::Class;
use arith::Expr;
use std::cell::RefCell;
use std::fmt;
use std::rc::Rc;

/// A schedule shared by every value that refers to it: Python schedules are
/// mutable objects, and `s[C].split(...)` changes `s`.
pub type ScheduleRef = Rc<RefCell<te::Schedule>>;

/// A TVM object held by a [`crate::Value`].
#[derive(Clone)]
pub enum Object {
    /// A `te.Tensor`.
    Tensor(te::Tensor),
    /// `T.op`.
    Op(te::Operation),
    /// An `IterVar` (a data-parallel or reduction axis, or a loop of a
    /// split or fuse).
    IterVar(te::IterVar),
    /// `te.thread_axis(tag)`: what `s[T].bind` binds a loop to.
    ThreadAxis(te::IterVar),
    /// An element expression: what a compute lambda returns.
    Element(te::Value),
    /// `A[i]` of a tensor with more dimensions, waiting for `[j]`
    /// (`A[i][j]` is `A[i, j]`).
    PartialLoad(te::Tensor, Vec<Expr>),
    /// A `Range` with `.min` and `.extent`.
    Range(arith::Range),
    /// A Python `bytes` literal (`b"avg"`: TOPI's `roi_align` compares its
    /// mode against one), compared by value.
    Bytes(Rc<[u8]>),
    /// A schedule.
    Schedule(ScheduleRef),
    /// `s[T]`: the stage of `T`'s operation in schedule `s`.
    Stage(ScheduleRef, te::Operation),
    /// What `InferBound` returns: indexable by iteration variables.
    Bounds(Rc<te::Bounds>),
    /// A split or fuse of a stage (`s[T].relations`).
    Relation(te::Relation),
    /// `te.AXIS_SEPARATOR`, in the result of a `transform_layout` function.
    AxisSeparator,
    /// A namespace such as `tvm`, `tvm.te` or `tvm.tir`, by its dotted path.
    Module(&'static str),
    /// A class, for `isinstance` and `except`.
    Class(Class),
    /// `te.tag_scope(tag)`: a context manager, and a decorator.
    TagScope(Rc<str>),
    /// A function decorated with `@te.tag_scope(tag)`: each call runs in
    /// the scope.
    Tagged(Rc<str>, Rc<crate::Value>),
    /// A function decorated with `@te.hybrid.script`: a call parses it
    /// into an operation.
    HybridFunction(Rc<crate::Value>),
    /// What `te.hybrid.build` returns: a hybrid function's source.
    HybridModule(Rc<crate::HybridModule>),
    /// A `tvm.target.Target`.
    Target(Rc<crate::target::Target>),
    /// `target.kind`: its `.name`.
    TargetKind(Rc<str>),
    /// A `tvm.nd.array`, shared: a built function writes into it.
    NDArray(crate::build::NDArrayRef),
    /// `tvm.cpu(0)`, `tvm.cuda(0)`: where arrays live (all run here).
    Device(&'static str, i64),
    /// What `tvm.build` returns: callable on arrays.
    Built(Rc<crate::build::Built>),
    /// What `tvm.register_func(name)` returns: the decorator registering
    /// its function under `name` (replacing one, with `override=True`).
    PackedRegistrar(Rc<str>, bool),
    /// A runtime library function rangefinder provides, as
    /// `tvm.get_global_func(name)` returns it.
    PackedFunc(Rc<str>),
    /// `tvm.contrib.utils.tempdir()`: a directory that goes away with it.
    TempDirectory(Rc<crate::module_file::TempDirectory>),
    /// `f.time_evaluator(...)`: callable like `f`, it times its runs.
    TimeEvaluator(Rc<crate::build::TimeEvaluator>),
    /// What a time evaluator gives: `.mean` and the other statistics.
    TimeResult(Rc<crate::build::TimeResult>),
    /// What `tvm.lower` returns; `mod["main"]` is the same program.
    Lowered(Rc<crate::lowered::LoweredModule>),
    /// A statement of a lowered program.
    Stmt(crate::lowered::StmtRef),
    /// A buffer of a lowered program (`store.buffer`).
    Buffer(tir::Buffer),
    /// A group of stages (`s.create_group(...)`), placed as one.
    Group(ScheduleRef, te::Group),
    /// `te.schedule.CreateReadGraph(roots)`: each operation's inputs.
    ReadGraph(Rc<te::ReadGraph>),
    /// A statement (`te.schedule.ScheduleOps`, `ib.get()`).
    IrStmt(Rc<tir::Stmt>),
    /// A buffer (`tvm.tir.decl_buffer`, the `ins` and `outs` of an
    /// extern's or an intrinsic's function), with its declared strides.
    DeclBuffer(tir::Buffer, Rc<[crate::Value]>),
    /// `tvm.tir.call_packed(...)` / `call_extern(...)`: a call of a
    /// function the program cannot look into.
    Call(Rc<tir::OpaqueCall>),
    /// `tvm.tir.ir_builder.create()`: the statements emitted so far.
    IrBuilder(Rc<RefCell<crate::ir_builder::IrBuilder>>),
    /// A `with` scope of an IR builder (`ib.for_range(...)`,
    /// `ib.if_scope(...)`, ...).
    IrScope(Rc<crate::ir_builder::Scope>),
    /// A buffer as an IR builder reads and writes it (`ib.buffer_ptr(b)`,
    /// `ib.allocate(...)`).
    BufferVar(Rc<crate::ir_builder::BufferVar>),
    /// `te.comm_reducer(fcombine, fidentity, name)`: called on a value or
    /// tuple with `axis=`, it reduces.
    Reducer(Rc<crate::ReducerDef>),
    /// `te.decl_tensor_intrin(...)`: what `s[C].tensorize` takes.
    TensorIntrin(te::TensorIntrin),
    /// A function registered with `autotvm.register_topi_compute` or
    /// `register_topi_schedule`, or the decorator that registers it.
    AutotvmTemplate(Rc<crate::autotvm::Template>),
    /// An AutoTVM configuration, `cfg` in a template.
    AutotvmConfig(crate::autotvm::ConfigRef),
    /// A knob's value (`SplitEntity`, `OtherOptionEntity`, ...).
    AutotvmEntity(crate::autotvm::EntityRef),
    /// A function made by `@tvm.target.generic_func`.
    GenericFunc(Rc<crate::generic_func::GenericFunc>),
    /// The decorator `generic.register(key)` returns.
    GenericRegistrar(Rc<crate::generic_func::Registrar>),
    /// `tvm.transform.PassContext(...)`: lowering options, a context
    /// manager.
    PassContext(Rc<crate::pass_context::PassContext>),
    /// A Python slice `start:stop` inside a tensor subscript.
    Slice(Option<Expr>, Option<Expr>),
    /// `A[i, 0:16]`: a region of a tensor, one range per dimension (TVM's
    /// `TensorSlice`).
    TensorSlice(te::Tensor, Rc<[arith::Range]>),
    /// `intrin(A[i, 0:16], ...)`: what a compute's lambda returns to make a
    /// tensor compute operation (TVM's `TensorIntrinCall`).
    IntrinCall(Rc<te::IntrinCall>),
    /// A name of a module TVM programs import but rangefinder does not
    /// provide (`tvm.contrib.cudnn.softmax`), by its dotted path: importing
    /// it succeeds, using it is an error.
    Unsupported(Rc<str>),
    /// `tvm.arith.Analyzer()`: `.simplify(e)`, `.can_prove(cond)`.
    Analyzer,
    /// `pytest.mark.<name>`, with or without its arguments.
    Mark(Rc<crate::test_marks::Mark>),
    /// A test function decorated with pytest's marks.
    MarkedTest(Rc<crate::test_marks::MarkedTest>),
    /// A `tvm.tir.StringImm` (a pragma's key): `.value`, `.dtype`.
    StringImm(Rc<str>),
    /// What a stage records about one of its loops
    /// (`s[T].iter_var_attrs[iv]`).
    IterVarAttr(Rc<IterVarAttr>),
    /// A TensorIR function in block form, or an object of its schedule.
    TensorIr(crate::tensor_ir::TirObject),
}

/// TVM's `IterVarAttr`: how a loop of a stage runs, its pragmas, its
/// thread and its tensor intrinsic.
#[derive(Debug)]
pub struct IterVarAttr {
    /// TVM's `IterVarType` as an integer (`IterVar.Vectorized`, ...).
    pub iter_type: i64,
    /// The thread the loop is bound to.
    pub bind_thread: Option<te::IterVar>,
    /// The keys of its pragmas, in order.
    pub pragma_keys: Vec<Rc<str>>,
    /// Their values.
    pub pragma_values: Vec<crate::Value>,
    /// The tensor intrinsic the loop is tensorized with.
    pub tensor_intrin: Option<te::TensorIntrin>,
}

impl Object {
    /// The Python-facing type name, for error messages.
    pub fn type_name(&self) -> &'static str {
        match self {
            Object::Tensor(_) => "Tensor",
            Object::Op(_) => "Operation",
            Object::IterVar(_) => "IterVar",
            Object::ThreadAxis(_) => "thread axis",
            Object::Element(_) => "tensor element expression",
            Object::PartialLoad(..) => "partially indexed tensor",
            Object::Range(_) => "Range",
            Object::Bytes(_) => "bytes",
            Object::Schedule(_) => "Schedule",
            Object::Stage(..) => "Stage",
            Object::Bounds(_) => "Map",
            Object::Relation(te::Relation::Split { .. }) => "Split",
            Object::Relation(te::Relation::Fuse { .. }) => "Fuse",
            Object::Relation(te::Relation::Singleton { .. }) => "Singleton",
            Object::AxisSeparator => "AXIS_SEPARATOR",
            Object::Module(_) => "module",
            Object::Class(_) => "builtin function",
            Object::TagScope(_) => "TagScope",
            Object::Tagged(..) | Object::HybridFunction(_) => "function",
            Object::HybridModule(_) => "HybridModule",
            Object::Target(_) => "Target",
            Object::TargetKind(_) => "TargetKind",
            Object::NDArray(_) => "NDArray",
            Object::Device(..) => "Device",
            Object::Built(_) => "Module",
            Object::TempDirectory(_) => "TempDirectory",
            Object::PackedRegistrar(..) => "function",
            Object::PackedFunc(_) => "PackedFunc",
            Object::TimeEvaluator(_) => "function",
            Object::TimeResult(_) => "ProfileResult",
            Object::Lowered(_) => "IRModule",
            Object::TensorIr(o) => o.type_name(),
            Object::Stmt(s) => s.class(),
            Object::Buffer(_) => "Buffer",
            Object::Group(..) => "Stage",
            Object::ReadGraph(_) => "Map",
            Object::IrStmt(_) => "Stmt",
            Object::DeclBuffer(..) => "Buffer",
            Object::Call(_) => "Call",
            Object::IrBuilder(_) => "IRBuilder",
            Object::IrScope(_) => "WithScope",
            Object::BufferVar(_) => "BufferVar",
            Object::Reducer(_) => "function",
            Object::TensorIntrin(_) => "TensorIntrin",
            Object::AutotvmTemplate(_) => "function",
            Object::GenericFunc(_) | Object::GenericRegistrar(_) => "function",
            Object::AutotvmConfig(_) => "FallbackConfigEntity",
            Object::AutotvmEntity(e) => match *e.borrow() {
                crate::autotvm::Entity::Split(_) => "SplitEntity",
                crate::autotvm::Entity::Other(_) => "OtherOptionEntity",
                crate::autotvm::Entity::Reorder(_) => "ReorderEntity",
                crate::autotvm::Entity::Annotate(_) => "AnnotateEntity",
            },
            Object::Slice(..) => "slice",
            Object::PassContext(_) => "PassContext",
            Object::TensorSlice(..) => "TensorSlice",
            Object::IntrinCall(_) => "TensorIntrinCall",
            Object::Mark(_) => "MarkDecorator",
            Object::Analyzer => "Analyzer",
            Object::Unsupported(_) => "unsupported TVM name",
            Object::MarkedTest(_) => "function",
            Object::StringImm(_) => "StringImm",
            Object::IterVarAttr(_) => "IterVarAttr",
        }
    }

    /// Python's `hash()` of the object, consistent with
    /// [`Object::same_as`]: a tensor, operation or stage by its operation,
    /// an iteration variable by its variable, a schedule by identity (other
    /// objects hash by kind).
    pub fn identity_hash(&self) -> u64 {
        use std::hash::{Hash, Hasher};
        let mut h = std::collections::hash_map::DefaultHasher::new();
        match self {
            Object::Tensor(t) => t.op().id().0.hash(&mut h),
            Object::Op(op) | Object::Stage(_, op) => op.id().0.hash(&mut h),
            Object::IterVar(iv) | Object::ThreadAxis(iv) => iv.var().id().hash(&mut h),
            Object::Schedule(s) => (Rc::as_ptr(s) as usize).hash(&mut h),
            Object::StringImm(s) => s.hash(&mut h),
            Object::Bytes(b) => b.hash(&mut h),
            other => other.type_name().hash(&mut h),
        }
        h.finish()
    }

    /// Python `is` / `==` on TVM objects: the same object.
    pub fn same_as(&self, other: &Object) -> bool {
        match (self, other) {
            (Object::Tensor(a), Object::Tensor(b)) => a == b,
            (Object::Op(a), Object::Op(b)) => a == b,
            (Object::IterVar(a), Object::IterVar(b)) => a == b,
            (Object::ThreadAxis(a), Object::ThreadAxis(b)) => a == b,
            (Object::Range(a), Object::Range(b)) => a == b,
            (Object::Bytes(a), Object::Bytes(b)) => a == b,
            (Object::Schedule(a), Object::Schedule(b)) => Rc::ptr_eq(a, b),
            (Object::Stage(s, a), Object::Stage(t, b)) => Rc::ptr_eq(s, t) && a == b,
            (Object::Bounds(a), Object::Bounds(b)) => Rc::ptr_eq(a, b),
            (Object::Module(a), Object::Module(b)) => a == b,
            (Object::Class(a), Object::Class(b)) => a == b,
            (Object::TagScope(a), Object::TagScope(b)) => Rc::ptr_eq(a, b),
            (Object::Tagged(_, a), Object::Tagged(_, b)) => Rc::ptr_eq(a, b),
            (Object::HybridFunction(a), Object::HybridFunction(b)) => Rc::ptr_eq(a, b),
            (Object::HybridModule(a), Object::HybridModule(b)) => Rc::ptr_eq(a, b),
            (Object::Target(a), Object::Target(b)) => Rc::ptr_eq(a, b),
            (Object::TargetKind(a), Object::TargetKind(b)) => a == b,
            (Object::NDArray(a), Object::NDArray(b)) => Rc::ptr_eq(a, b),
            (Object::Device(a, i), Object::Device(b, j)) => a == b && i == j,
            (Object::Built(a), Object::Built(b)) => Rc::ptr_eq(a, b),
            (Object::TempDirectory(a), Object::TempDirectory(b)) => Rc::ptr_eq(a, b),
            (Object::PackedRegistrar(a, x), Object::PackedRegistrar(b, y)) => a == b && x == y,
            (Object::PackedFunc(a), Object::PackedFunc(b)) => a == b,
            (Object::Lowered(a), Object::Lowered(b)) => Rc::ptr_eq(a, b),
            (Object::TensorIr(a), Object::TensorIr(b)) => a.same_as(b),
            (Object::Stmt(a), Object::Stmt(b)) => a.same_as(b),
            (Object::Buffer(a), Object::Buffer(b)) => a == b,
            (Object::Group(s, a), Object::Group(t, b)) => Rc::ptr_eq(s, t) && a == b,
            (Object::DeclBuffer(a, _), Object::DeclBuffer(b, _)) => a.id() == b.id(),
            (Object::Reducer(a), Object::Reducer(b)) => Rc::ptr_eq(a, b),
            (Object::Mark(a), Object::Mark(b)) => Rc::ptr_eq(a, b),
            (Object::Unsupported(a), Object::Unsupported(b)) => a == b,
            (Object::MarkedTest(a), Object::MarkedTest(b)) => Rc::ptr_eq(a, b),
            (Object::StringImm(a), Object::StringImm(b)) => a == b,
            (Object::TensorIntrin(a), Object::TensorIntrin(b)) => a == b,
            (Object::AutotvmTemplate(a), Object::AutotvmTemplate(b)) => Rc::ptr_eq(a, b),
            (Object::AutotvmConfig(a), Object::AutotvmConfig(b)) => Rc::ptr_eq(a, b),
            (Object::GenericFunc(a), Object::GenericFunc(b)) => Rc::ptr_eq(a, b),
            (Object::AutotvmEntity(a), Object::AutotvmEntity(b)) => Rc::ptr_eq(a, b),
            (Object::PassContext(a), Object::PassContext(b)) => Rc::ptr_eq(a, b),
            (Object::IterVarAttr(a), Object::IterVarAttr(b)) => Rc::ptr_eq(a, b),
            _ => false,
        }
    }
}

impl fmt::Display for Object {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Object::Tensor(t) => write!(
                f,
                "Tensor(shape={}, op.name={})",
                shape_text(t.shape()),
                t.name()
            ),
            Object::Op(op) => write!(f, "compute({})", op.name()),
            Object::IterVar(iv) => match iv.dom() {
                Some(d) => write!(f, "IterVar({}, {d})", iv.name()),
                None => write!(f, "IterVar({})", iv.name()),
            },
            Object::ThreadAxis(iv) => write!(f, "IterVar({})", iv.name()),
            Object::Element(v) => write!(f, "{v}"),
            Object::PartialLoad(t, idx) => write!(f, "{}[{}]", t.name(), shape_text(idx)),
            Object::Range(r) => write!(f, "range(min={}, ext={})", r.min, r.extent),
            Object::Bytes(b) => {
                // Python's `repr`: single quotes unless the bytes hold one
                // and no double quote.
                let quote = if b.contains(&b'\'') && !b.contains(&b'"') {
                    b'"'
                } else {
                    b'\''
                };
                write!(f, "b{}", quote as char)?;
                for &c in b.iter() {
                    match c {
                        b'\\' => f.write_str("\\\\")?,
                        c if c == quote => write!(f, "\\{}", c as char)?,
                        b'\n' => f.write_str("\\n")?,
                        b'\t' => f.write_str("\\t")?,
                        b'\r' => f.write_str("\\r")?,
                        0x20..=0x7e => write!(f, "{}", c as char)?,
                        _ => write!(f, "\\x{c:02x}")?,
                    }
                }
                write!(f, "{}", quote as char)
            }
            Object::Schedule(_) => f.write_str("Schedule"),
            Object::Stage(_, op) => write!(f, "stage({})", op.name()),
            Object::Bounds(_) => f.write_str("Map(IterVar -> Range)"),
            Object::Relation(te::Relation::Split {
                parent,
                outer,
                inner,
                ..
            }) => {
                write!(f, "split({parent}, {outer}, {inner})")
            }
            Object::Relation(te::Relation::Fuse {
                outer,
                inner,
                fused,
            }) => {
                write!(f, "fuse({outer}, {inner}, {fused})")
            }
            Object::Relation(te::Relation::Singleton { iter }) => write!(f, "singleton({iter})"),
            Object::AxisSeparator => f.write_str("AXIS_SEPARATOR"),
            Object::Module(path) => write!(f, "<module '{path}'>"),
            Object::Class(c) => write!(f, "<class '{}'>", c.name()),
            Object::TagScope(tag) => write!(f, "TagScope({tag:?})"),
            Object::Tagged(tag, func) => write!(f, "<function {func} tagged {tag:?}>"),
            Object::HybridFunction(func) => write!(f, "<hybrid function {func}>"),
            Object::HybridModule(m) => write!(f, "<HybridModule {}>", m.name),
            Object::Target(t) => write!(f, "{t}"),
            Object::TargetKind(name) => f.write_str(name),
            Object::NDArray(a) => write!(f, "{}", a.borrow().to_value()),
            Object::Device(kind, id) => write!(f, "{kind}({id})"),
            Object::Built(b) => write!(f, "Module({})", b.target_kind()),
            Object::TempDirectory(d) => write!(f, "TempDirectory({})", d.path_text()),
            Object::PackedRegistrar(name, _) => write!(f, "<register_func {name}>"),
            Object::PackedFunc(name) => write!(f, "<PackedFunc {name}>"),
            Object::TimeEvaluator(_) => f.write_str("<time evaluator>"),
            Object::TimeResult(r) => write!(f, "ProfileResult(results={:?})", r.results),
            Object::Lowered(m) => f.write_str(&m.text),
            Object::TensorIr(o) => write!(f, "{o}"),
            Object::Stmt(s) => write!(f, "{}", s.stmt()),
            Object::Buffer(b) => f.write_str(b.name()),
            Object::Group(..) => f.write_str("stage(group)"),
            Object::ReadGraph(g) => {
                write!(f, "Map(Operation -> Array<Tensor>, {} entries)", g.len())
            }
            Object::IrStmt(stmt) => write!(f, "{stmt}"),
            Object::DeclBuffer(b, _) => write!(f, "buffer({})", b.name()),
            Object::Call(c) => write!(f, "{c}"),
            Object::IrBuilder(_) => f.write_str("IRBuilder"),
            Object::IrScope(_) => f.write_str("WithScope"),
            Object::BufferVar(v) => write!(f, "{}", v.buffer().name()),
            Object::Reducer(r) => write!(f, "<function {}>", r.name()),
            Object::TensorIntrin(t) => write!(f, "TensorIntrin({})", t.name()),
            Object::AutotvmTemplate(_) => f.write_str("<function autotvm template>"),
            Object::GenericFunc(_) => f.write_str("<function generic_func>"),
            Object::GenericRegistrar(_) => f.write_str("<function register>"),
            Object::AutotvmConfig(_) => f.write_str("FallbackConfigEntity"),
            Object::AutotvmEntity(e) => write!(f, "{}", e.borrow()),
            Object::PassContext(c) => write!(f, "PassContext(opt_level={})", c.opt_level),
            Object::Slice(start, stop) => {
                let text =
                    |e: &Option<Expr>| e.as_ref().map_or("None".to_string(), Expr::to_string);
                write!(f, "slice({}, {}, None)", text(start), text(stop))
            }
            Object::TensorSlice(t, region) => {
                let dims: Vec<String> = region
                    .iter()
                    .map(|r| match r.extent.as_int() {
                        Some(1) => r.min.to_string(),
                        _ => format!("{}:{}", r.min, Expr::add(r.min.clone(), r.extent.clone())),
                    })
                    .collect();
                write!(f, "{}[{}]", t.name(), dims.join(", "))
            }
            Object::IntrinCall(c) => write!(f, "{}(...)", c.intrin.name()),
            Object::Mark(m) => write!(f, "MarkDecorator(name={:?})", m.name),
            Object::Analyzer => f.write_str("Analyzer"),
            Object::Unsupported(path) => write!(f, "<{path}: not supported by rangefinder>"),
            Object::MarkedTest(_) => f.write_str("<function marked for pytest>"),
            Object::StringImm(s) => write!(f, "{s:?}"),
            Object::IterVarAttr(a) => write!(f, "IterVarAttr(iter_type={})", a.iter_type),
        }
    }
}

fn shape_text(dims: &[Expr]) -> String {
    let parts: Vec<String> = dims.iter().map(|d| d.to_string()).collect();
    format!("[{}]", parts.join(", "))
}
