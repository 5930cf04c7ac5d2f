//! XLA-style indexing maps (seed 002).
