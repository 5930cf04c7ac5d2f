//! Buffers: named, typed, shaped storage with an identity.

use crate::dtype::DataType;
use arith::Expr;
use std::fmt;
use std::hash::{Hash, Hasher};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

/// The identity of a [`Buffer`]: unique in the process.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct BufferId(pub u64);

static NEXT_BUFFER_ID: AtomicU64 = AtomicU64::new(1);

/// A logical N-dimensional buffer: name, element type, shape (sizes may be
/// symbolic) and an identity. Two buffers with the same name are different
/// buffers; a clone is the same buffer. Cloning is a pointer copy.
///
/// ```
/// use tir::{Buffer, DataType};
/// let n = arith::Var::new("n");
/// let a = Buffer::new("A", DataType::Float32, [n.expr(), arith::Expr::int(4)]);
/// assert_eq!(a.ndim(), 2);
/// assert_eq!(a.to_string(), "A");
/// assert_ne!(a, Buffer::new("A", DataType::Float32, [n.expr(), arith::Expr::int(4)]));
/// assert_eq!(a, a.clone());
/// ```
#[derive(Clone)]
pub struct Buffer(Arc<BufferData>);

#[derive(Clone)]
struct BufferData {
    id: BufferId,
    name: String,
    dtype: DataType,
    shape: Vec<Expr>,
    axis_separators: Vec<usize>,
    scope: String,
    attrs: Vec<(String, String)>,
}

impl Buffer {
    /// A fresh buffer in the `"global"` storage scope, without axis
    /// separators (it flattens to one physical dimension).
    pub fn new(
        name: impl Into<String>,
        dtype: DataType,
        shape: impl IntoIterator<Item = impl Into<Expr>>,
    ) -> Buffer {
        Buffer(Arc::new(BufferData {
            id: BufferId(NEXT_BUFFER_ID.fetch_add(1, Ordering::Relaxed)),
            name: name.into(),
            dtype,
            shape: shape.into_iter().map(Into::into).collect(),
            axis_separators: Vec::new(),
            scope: "global".to_string(),
            attrs: Vec::new(),
        }))
    }

    /// The same buffer (same identity) with axis separators: indices into
    /// the logical axes before which a new physical axis starts (TVM's
    /// `axis_separators`, seed 001). Meant for building, before the buffer
    /// is shared.
    pub fn with_axis_separators(self, separators: Vec<usize>) -> Buffer {
        let mut data = (*self.0).clone();
        data.axis_separators = separators;
        Buffer(Arc::new(data))
    }

    /// The same buffer (same identity) in another storage scope
    /// (`"global"`, `"shared"`, `"local"`).
    pub fn with_scope(self, scope: impl Into<String>) -> Buffer {
        let mut data = (*self.0).clone();
        data.scope = scope.into();
        Buffer(Arc::new(data))
    }

    /// The same buffer (same identity) with layout attributes printed
    /// above its allocation (`// attr [B] buffer_dim_align = ...`): what
    /// a schedule asked of its storage's layout, which changes no index.
    pub fn with_attrs(self, attrs: Vec<(String, String)>) -> Buffer {
        let mut data = (*self.0).clone();
        data.attrs = attrs;
        Buffer(Arc::new(data))
    }

    /// The layout attributes (see [`Buffer::with_attrs`]).
    pub fn attrs(&self) -> &[(String, String)] {
        &self.0.attrs
    }

    /// The identity.
    pub fn id(&self) -> BufferId {
        self.0.id
    }

    /// The name, as printed (not necessarily unique).
    pub fn name(&self) -> &str {
        &self.0.name
    }

    /// The element type.
    pub fn dtype(&self) -> DataType {
        self.0.dtype
    }

    /// The logical shape, one size per axis, row-major.
    pub fn shape(&self) -> &[Expr] {
        &self.0.shape
    }

    /// The number of axes.
    pub fn ndim(&self) -> usize {
        self.0.shape.len()
    }

    /// The axis separators (empty: one physical dimension).
    pub fn axis_separators(&self) -> &[usize] {
        &self.0.axis_separators
    }

    /// The storage scope, printed in `// attr [B] storage_scope = "global"`.
    pub fn scope(&self) -> &str {
        &self.0.scope
    }
}

impl PartialEq for Buffer {
    fn eq(&self, other: &Buffer) -> bool {
        self.0.id == other.0.id
    }
}
impl Eq for Buffer {}
impl Hash for Buffer {
    fn hash<H: Hasher>(&self, h: &mut H) {
        self.0.id.hash(h)
    }
}

impl fmt::Debug for Buffer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}[", self.name(), self.dtype())?;
        for (k, s) in self.shape().iter().enumerate() {
            if k > 0 {
                f.write_str(", ")?;
            }
            write!(f, "{s}")?;
        }
        f.write_str("]")
    }
}

impl fmt::Display for Buffer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}
