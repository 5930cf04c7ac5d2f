//! Recursion as deep as an expression is long: the walkers of values,
//! statements and index expressions step through [`grow`], the core's
//! [`arith::stack::grow`], which continues on a heap-allocated stack segment
//! when the thread's stack runs low.

pub use arith::stack::grow;
