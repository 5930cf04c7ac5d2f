//! `te::check` (`--run`) on a padded 3x3 convolution in NCHW, as TOPI
//! writes it: a padding stage, then a sum over input channels and the
//! window. Measures the checking interpreter and the reference
//! evaluation together, in steps (loop iterations and stores) per second:
//! `cargo bench -p te --bench run_check`.

use arith::Expr;
use te::{compute_named, create_schedule, placeholder, reduce_axis, sum, Schedule, Tensor, Value};
use tir::DataType;

fn main() {
    divan::main();
}

/// `conv[n, f, y, x] = sum(pad[n, c, y + ry, x + rx] * w[f, c, ry, rx])`
/// over `channels` input and output channels of `size x size`.
fn conv(channels: i64, size: i64) -> (Schedule, Vec<Tensor>) {
    let data = placeholder([1, channels, size, size], "data", DataType::Float32).unwrap();
    let w = placeholder([channels, channels, 3, 3], "w", DataType::Float32).unwrap();
    let pad = compute_named(
        [1, channels, size + 2, size + 2],
        &["n", "c", "y", "x"],
        |i| {
            let inside = Expr::and(
                Expr::and(
                    Expr::ge(i[2].clone(), Expr::int(1)),
                    Expr::lt(i[2].clone(), Expr::int(size + 1)),
                ),
                Expr::and(
                    Expr::ge(i[3].clone(), Expr::int(1)),
                    Expr::lt(i[3].clone(), Expr::int(size + 1)),
                ),
            );
            let read = data.at([
                i[0].clone(),
                i[1].clone(),
                Expr::sub(i[2].clone(), Expr::int(1)),
                Expr::sub(i[3].clone(), Expr::int(1)),
            ]);
            Value::select(inside, read, Value::float(0.0))
        },
        "pad",
    )
    .unwrap();
    let rc = reduce_axis((0, channels), "rc");
    let ry = reduce_axis((0, 3), "ry");
    let rx = reduce_axis((0, 3), "rx");
    let out = compute_named(
        [1, channels, size, size],
        &["n", "f", "y", "x"],
        |i| {
            let p = pad.at([
                i[0].clone(),
                rc.expr(),
                Expr::add(i[2].clone(), ry.expr()),
                Expr::add(i[3].clone(), rx.expr()),
            ]);
            let k = w.at([i[1].clone(), rc.expr(), ry.expr(), rx.expr()]);
            sum(p * k, &[rc.clone(), ry.clone(), rx.clone()])
        },
        "conv",
    )
    .unwrap();
    let s = create_schedule(std::slice::from_ref(&out));
    (s, vec![data, w, out])
}

/// 16 channels of 28 x 28: about 3.8 million steps.
#[divan::bench(sample_count = 5)]
fn conv3x3_16x28x28(bencher: divan::Bencher) {
    let (s, args) = conv(16, 28);
    let sizes = Default::default();
    bencher.bench(|| te::check(&s, &args, &sizes, 0).unwrap());
}
