//! HLO text modules and their indexing maps (seed 002).
