//! Thread tags and storage scopes, and TVM's rule for when a producer must
//! cover every thread of a launch (`NeedRelax` and `InferStorageScope` in
//! TVM's `bound.cc`).
//!
//! rangefinder runs a bound loop as an ordinary sequential loop (a loop
//! bound to the thread axis of an enclosing loop reuses that loop's index);
//! the tags decide how much of a producer one iteration of its attach point
//! computes.

use crate::error::{Result, TeError};
use std::fmt;

/// The thread a loop is bound to (`te.thread_axis(tag)`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ThreadTag {
    /// `blockIdx.x`, `.y`, `.z` (dimension 0, 1, 2): rank 0.
    BlockIdx(u8),
    /// `threadIdx.x`, `.y`, `.z` (dimension 0, 1, 2): rank 1.
    ThreadIdx(u8),
    /// `vthread`: a virtual thread, rank 1 like `threadIdx`.
    VThread,
}

impl ThreadTag {
    /// Parses `blockIdx.x/y/z`, `threadIdx.x/y/z` or `vthread`.
    ///
    /// ```
    /// let t = te::ThreadTag::parse("threadIdx.y").unwrap();
    /// assert_eq!((t.rank(), t.to_string()), (1, "threadIdx.y".to_string()));
    /// assert!(te::ThreadTag::parse("warpIdx.x").is_err());
    /// ```
    pub fn parse(tag: &str) -> Result<ThreadTag> {
        let dim = |d: &str| match d {
            "x" => Some(0),
            "y" => Some(1),
            "z" => Some(2),
            _ => None,
        };
        let parsed = match tag.split_once('.') {
            Some(("blockIdx", d)) => dim(d).map(ThreadTag::BlockIdx),
            Some(("threadIdx", d)) => dim(d).map(ThreadTag::ThreadIdx),
            None if tag == "vthread" => Some(ThreadTag::VThread),
            _ => None,
        };
        parsed.ok_or_else(|| {
            TeError::schedule(format!(
                "unknown thread tag `{tag}`: use blockIdx.x/y/z, threadIdx.x/y/z or vthread"
            ))
        })
    }

    /// TVM's thread rank: 0 for blocks, 1 for threads and virtual threads.
    pub fn rank(self) -> u8 {
        match self {
            ThreadTag::BlockIdx(_) => 0,
            ThreadTag::ThreadIdx(_) | ThreadTag::VThread => 1,
        }
    }
}

impl fmt::Display for ThreadTag {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        const DIMS: [&str; 3] = ["x", "y", "z"];
        match self {
            ThreadTag::BlockIdx(d) => write!(f, "blockIdx.{}", DIMS[*d as usize]),
            ThreadTag::ThreadIdx(d) => write!(f, "threadIdx.{}", DIMS[*d as usize]),
            ThreadTag::VThread => f.write_str("vthread"),
        }
    }
}

/// Where a stage's storage lives (`s[t].set_scope(scope)`), from the widest
/// sharing to the narrowest.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum StorageScope {
    /// Seen by every block: rank 0.
    Global,
    /// Shared by the threads of a block: rank 1.
    Shared,
    /// Shared by the threads of a warp (`threadIdx.x`): rank 2.
    Warp,
    /// Private to a thread: rank 3.
    Local,
    /// A tensor core fragment (`wmma.matrix_a`, `wmma.matrix_b`,
    /// `wmma.accumulator`): ranks 4 to 6, relaxed over no thread, as TVM
    /// bounds them.
    Wmma(WmmaFragment),
}

/// Which operand of a tensor core multiply a fragment holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum WmmaFragment {
    /// `wmma.matrix_a`.
    MatrixA,
    /// `wmma.matrix_b`.
    MatrixB,
    /// `wmma.accumulator`.
    Accumulator,
}

impl StorageScope {
    /// Parses `global`, `shared`, `warp`, `local` or a tensor core
    /// fragment's scope (`wmma.matrix_a`).
    pub fn parse(scope: &str) -> Result<StorageScope> {
        Ok(match scope {
            "global" => StorageScope::Global,
            "shared" => StorageScope::Shared,
            "warp" => StorageScope::Warp,
            "local" => StorageScope::Local,
            "wmma.matrix_a" => StorageScope::Wmma(WmmaFragment::MatrixA),
            "wmma.matrix_b" => StorageScope::Wmma(WmmaFragment::MatrixB),
            "wmma.accumulator" => StorageScope::Wmma(WmmaFragment::Accumulator),
            _ => {
                return Err(TeError::schedule(format!(
                    "unknown storage scope `{scope}`: use global, shared, warp, local, \
                     wmma.matrix_a, wmma.matrix_b or wmma.accumulator"
                )))
            }
        })
    }

    /// TVM's storage rank: global 0, shared 1, warp 2, local 3, the
    /// tensor core fragments 4 to 6.
    pub fn rank(self) -> u8 {
        match self {
            StorageScope::Global => 0,
            StorageScope::Shared => 1,
            StorageScope::Warp => 2,
            StorageScope::Local => 3,
            StorageScope::Wmma(WmmaFragment::MatrixA) => 4,
            StorageScope::Wmma(WmmaFragment::MatrixB) => 5,
            StorageScope::Wmma(WmmaFragment::Accumulator) => 6,
        }
    }

    /// The scope of a stage without `set_scope`, from the threads it is
    /// nested in (TVM's `InferStorageScope`): inside a thread it is local,
    /// inside only blocks shared, else global.
    pub fn inferred<'a>(enclosing: impl IntoIterator<Item = &'a ThreadTag>) -> StorageScope {
        match enclosing.into_iter().map(|t| t.rank()).max() {
            None => StorageScope::Global,
            Some(0) => StorageScope::Shared,
            Some(_) => StorageScope::Local,
        }
    }

    /// Whether a producer in this scope, attached inside a loop bound to
    /// `tag`, must cover the loop's whole range rather than the current
    /// thread (TVM's `NeedRelax`): storage shared by those threads holds
    /// what all of them read. Warp storage is shared along `threadIdx.x`.
    ///
    /// ```
    /// use te::{StorageScope, ThreadTag};
    /// assert!(StorageScope::Shared.relaxes(ThreadTag::ThreadIdx(0)));
    /// assert!(!StorageScope::Local.relaxes(ThreadTag::ThreadIdx(0)));
    /// assert!(StorageScope::Warp.relaxes(ThreadTag::ThreadIdx(0)));
    /// assert!(!StorageScope::Warp.relaxes(ThreadTag::ThreadIdx(1)));
    /// // A tensor core fragment is bounded per thread, as local storage is.
    /// let fragment = StorageScope::parse("wmma.accumulator").unwrap();
    /// assert_eq!((fragment.rank(), fragment.to_string().as_str()), (6, "wmma.accumulator"));
    /// assert!(!fragment.relaxes(ThreadTag::ThreadIdx(0)));
    /// ```
    pub fn relaxes(self, tag: ThreadTag) -> bool {
        if self == StorageScope::Warp && tag == ThreadTag::ThreadIdx(0) {
            return true;
        }
        self.rank() <= tag.rank()
    }
}

impl fmt::Display for StorageScope {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            StorageScope::Global => "global",
            StorageScope::Shared => "shared",
            StorageScope::Warp => "warp",
            StorageScope::Local => "local",
            StorageScope::Wmma(WmmaFragment::MatrixA) => "wmma.matrix_a",
            StorageScope::Wmma(WmmaFragment::MatrixB) => "wmma.matrix_b",
            StorageScope::Wmma(WmmaFragment::Accumulator) => "wmma.accumulator",
        })
    }
}
