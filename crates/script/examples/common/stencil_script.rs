//! The stencil chain as a TE script, the program `rangefinder te` is timed
//! on: the same chain as te's `stencil_phases` example, written in Python.

use std::fmt::Write as _;

/// `Sk[x, y] = S(k-1)[x, y] + S(k-1)[x + 1, y] + S(k-1)[x + 2, y + 1]` for
/// `k` in `1..=stages`, the last stage tiled 64x64 and every other stage
/// computed at its inner tile loop.
pub fn stencil_script(stages: usize) -> String {
    let (w, h) = (1024 + 2 * stages, 1024 + stages);
    let mut s = String::from("import tvm\nfrom tvm import te\n");
    let _ = writeln!(s, "S0 = te.placeholder(({w}, {h}), name=\"S0\")");
    for k in 1..=stages {
        let (w, h, p) = (w - 2 * k, h - k, k - 1);
        let _ = writeln!(
            s,
            "S{k} = te.compute(({w}, {h}), lambda x, y: S{p}[x, y] + S{p}[x + 1, y] + S{p}[x + 2, y + 1], name=\"S{k}\")"
        );
    }
    let n = stages;
    let _ = writeln!(s, "s = te.create_schedule(S{n}.op)");
    let _ = writeln!(
        s,
        "xo, yo, xi, yi = s[S{n}].tile(S{n}.op.axis[0], S{n}.op.axis[1], 64, 64)"
    );
    for k in 1..n {
        let _ = writeln!(s, "s[S{k}].compute_at(s[S{n}], yo)");
    }
    s
}
