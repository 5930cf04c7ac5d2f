//! `cargo bench -p arith --bench memory`: what expressions cost in memory.
//!
//! Prints, from an allocator that counts bytes:
//!
//! * the bytes per distinct node (a chain of a million distinct sums, each
//!   node allocated once);
//! * the peak memory of an expression of a million nodes whose subtrees
//!   repeat (one index expression of 15 nodes, `(x * 4 + y) % 8 + (x * 4 +
//!   y) // 8`, built separately 62,500 times and summed): every copy is
//!   allocated again unless equal expressions are one node;
//! * the same expression built by cloning one copy (sharing by hand).
//!
//! These are the figures an interned representation of expressions is
//! measured against.

use arith::{Expr, Var};
use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

/// The system allocator, counting the bytes in use and their peak.
struct Counting;

static IN_USE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: forwarded unchanged to the system allocator.
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            let now = IN_USE.fetch_add(layout.size(), Ordering::Relaxed) + layout.size();
            PEAK.fetch_max(now, Ordering::Relaxed);
        }
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        IN_USE.fetch_sub(layout.size(), Ordering::Relaxed);
        // SAFETY: `ptr` came from `alloc` with this layout.
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// Bytes in use and the peak since the last reset.
fn measure<T>(build: impl FnOnce() -> T) -> (T, usize, usize) {
    let before = IN_USE.load(Ordering::Relaxed);
    PEAK.store(before, Ordering::Relaxed);
    let value = build();
    let after = IN_USE.load(Ordering::Relaxed);
    let peak = PEAK.load(Ordering::Relaxed);
    (value, after - before, peak - before)
}

/// `(x * 4 + y) % 8 + (x * 4 + y) // 8`, built anew: 15 nodes.
fn index_expr(x: &Var, y: &Var) -> Expr {
    let flat = || Expr::add(Expr::mul(x.expr(), Expr::int(4)), y.expr());
    Expr::add(
        Expr::floor_mod(flat(), Expr::int(8)),
        Expr::floor_div(flat(), Expr::int(8)),
    )
}

fn mib(bytes: usize) -> f64 {
    bytes as f64 / (1 << 20) as f64
}

fn main() {
    const NODES: usize = 1_000_000;

    // Distinct nodes: v0 + 1 + 2 + ... (each constant and sum is new).
    let v = Var::new("v");
    let (chain, kept, _) = measure(|| {
        let mut e = v.expr();
        for k in 1..(NODES / 2) as i64 {
            e = Expr::add(e, Expr::int(1_000 + k));
        }
        e
    });
    let nodes = chain.node_count();
    println!(
        "distinct nodes: {nodes} nodes, {:.1} MiB, {:.1} bytes per node",
        mib(kept),
        kept as f64 / nodes as f64
    );
    drop(chain);

    // Repeated subtrees, built separately.
    let (x, y) = (Var::new("x"), Var::new("y"));
    // 15 nodes a copy and one sum joining it: a million nodes in all.
    let copies = NODES / 16;
    let (sum, kept, peak) = measure(|| {
        let mut e = index_expr(&x, &y);
        for _ in 1..copies {
            e = Expr::add(e, index_expr(&x, &y));
        }
        e
    });
    println!(
        "a {}-node expression of {copies} equal subtrees built separately: {:.1} MiB kept, peak {:.1} MiB",
        sum.node_count(),
        mib(kept),
        mib(peak)
    );
    drop(sum);

    // The same, the subtree built once and shared by cloning.
    let (shared, kept, peak) = measure(|| {
        let one = index_expr(&x, &y);
        let mut e = one.clone();
        for _ in 1..copies {
            e = Expr::add(e, one.clone());
        }
        e
    });
    println!(
        "the same expression sharing one subtree: {:.1} MiB kept, peak {:.1} MiB",
        mib(kept),
        mib(peak)
    );
    drop(shared);
}
