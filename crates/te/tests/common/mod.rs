//! Tensor intrinsics the te tests share.

use te::{compute_named, decl_tensor_intrin, placeholder, IntrinCalls, TensorIntrin};
use tir::DataType;

/// `z[i] = vx[i] + vy[i]` over `n` elements, called as `vadd`.
pub fn intrin_vadd(n: i64) -> TensorIntrin {
    let x = placeholder([n], "vx", DataType::Float32).unwrap();
    let y = placeholder([n], "vy", DataType::Float32).unwrap();
    let z = compute_named([n], &["i"], |i| x.at([&i[0]]) + y.at([&i[0]]), "z").unwrap();
    let calls = IntrinCalls::named(Some("vadd"), None, None);
    decl_tensor_intrin(z.op(), "vadd", calls).unwrap()
}
