//! Runs TE scripts written in the Python subset of TVM's TE examples.
