//! Tensor expressions, schedules, InferBound and lowering (seeds 000 and 003).
