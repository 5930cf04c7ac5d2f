//! The loop IR, its printer and its checking interpreter.
