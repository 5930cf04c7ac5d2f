//! `te`: TE scripts with random pipelines (one- or two-dimensional stencil
//! stages with offsets, reversals and strided reads, an optional
//! reduction) and random schedules (split by factor or parts, fuse,
//! reorder, compute_at, compute_inline, the input's `transform_layout`,
//! loops bound to GPU blocks and threads with producers fetched into
//! shared memory by the threads together, a reduction across threads),
//! run through the `script` front
//! end, bound inference, lowering and the checked run, as
//! `rangefinder te --run` does.
//!
//! Oracle: the lowered program, run by the interpreter, stays inside every
//! buffer and region and computes what the definitions say.

use super::{Failure, Target};
use crate::mutate::mutate;
use crate::rng::Rng;
use std::collections::HashMap;
use std::fmt::Write;

/// The TE target.
pub struct TeTarget;

/// The value of every symbolic size when run, as `rangefinder te --run`.
const RUN_SIZE: i64 = 7;

/// The first line of a mutated script.
const MUTATED: &str = "# mutated\n";

/// Largest difference still counted equal, as `rangefinder te --run`.
const TOLERANCE: f64 = 1e-4;

const TOKENS: &[&str] = &[
    "s[B].compute_inline()\n",
    "te.thread_axis(\"threadIdx.x\")",
    "\"shared\"",
    "n",
    " - 1",
    "(",
    ")",
    ", factor=0",
    ", nparts=2",
    "te.var(\"m\")",
    "[i, i]",
    "+ 1",
    "\n",
    "    ",
    ":",
    "lambda",
    "1e308",
    "9223372036854775807",
];

/// One axis extent of the first stage: a constant or the variable `n`.
fn extent(rng: &mut Rng, symbolic: bool) -> String {
    if symbolic {
        "n".to_string()
    } else {
        rng.range(2, 9).to_string()
    }
}

fn generate_script(rng: &mut Rng) -> String {
    let symbolic = rng.chance(40);
    let rank = 1 + rng.index(2);
    // Symbolic pipelines are as long as constant ones: bound inference
    // stays near-linear in the number of stages on them (the `chain`
    // benchmark's `symbolic_nparts_chain`).
    let stages = 1 + rng.index(4);
    let mut out = String::from("import tvm\nfrom tvm import te\n\n");
    if symbolic {
        out.push_str("n = te.var(\"n\")\n");
    }
    // Extents as text; every stage shrinks each axis by its largest offset,
    // never below one element (`n` runs as 7).
    let mut ext: Vec<String> = (0..rank).map(|_| extent(rng, symbolic)).collect();
    let first_ext = ext.clone();
    let mut smallest = ext
        .iter()
        .map(|e| e.parse::<i64>().unwrap_or(RUN_SIZE))
        .min()
        .unwrap_or(1);
    let tuple = |e: &[String]| format!("({},)", e.join(", "));
    let axes = ["i", "j"];
    let _ = writeln!(out, "A = te.placeholder({}, name=\"A\")", tuple(&ext));
    let mut prev = "A".to_string();
    let mut names = vec![];
    for t in 0..stages {
        let name = format!("S{t}");
        let shrink = rng.range(0, 2).min(smallest - 1);
        smallest -= shrink;
        let new_ext: Vec<String> = ext
            .iter()
            .map(|e| {
                if shrink > 0 {
                    format!("{e} - {shrink}")
                } else {
                    e.clone()
                }
            })
            .collect();
        let terms = 1 + rng.index(3);
        let mut body = Vec::new();
        for _ in 0..terms {
            let idx: Vec<String> = (0..rank)
                .map(|d| {
                    let a = axes[d];
                    match rng.below(6) {
                        0 if shrink == 0 => format!("{} - 1 - {a}", ext[d]),
                        1 => format!("{a} // 2"),
                        _ => format!("{a} + {}", rng.range(0, shrink)),
                    }
                })
                .collect();
            body.push(format!("{prev}[{}]", idx.join(", ")));
        }
        let lambda_args = axes[..rank].join(", ");
        let _ = writeln!(
            out,
            "{name} = te.compute({}, lambda {lambda_args}: {} * {}.0, name=\"{name}\")",
            tuple(&new_ext),
            body.join(" + "),
            rng.range(1, 3)
        );
        ext = new_ext;
        names.push(name.clone());
        prev = name;
    }
    let mut out_name = prev.clone();
    if rng.chance(25) {
        let _ = writeln!(
            out,
            "k = te.reduce_axis((0, {}), name=\"k\")",
            ext[rank - 1]
        );
        let keep: Vec<String> = ext[..rank - 1].to_vec();
        let shape = if keep.is_empty() {
            "(1,)".to_string()
        } else {
            tuple(&keep)
        };
        let idx: Vec<String> = if rank == 1 {
            vec!["k".into()]
        } else {
            vec!["i".into(), "k".into()]
        };
        let _ = writeln!(
            out,
            "R = te.compute({shape}, lambda i: te.sum({prev}[{}], axis=k), name=\"R\")",
            idx.join(", ")
        );
        names.push("R".into());
        out_name = "R".into();
    }
    let _ = writeln!(out, "\ns = te.create_schedule({out_name}.op)");
    if rng.chance(25) {
        // The input stored in another layout (seed 001): splits that may
        // not divide, a transpose, a fusion, an axis separator.
        let f = rng.range(2, 4);
        let map = match (rank, rng.below(4)) {
            (1, 0) => "lambda i: [i]".to_string(),
            (1, _) => format!("lambda i: [i // {f}, i % {f}]"),
            (_, 0) => "lambda i, j: [j, i]".to_string(),
            (_, 1) => format!("lambda i, j: [i // {f}, j, i % {f}]"),
            (_, 2) => "lambda i, j: [i, te.AXIS_SEPARATOR, j]".to_string(),
            _ => format!(
                "lambda i, j: [(i * {e} + j) // {f}, (i * {e} + j) % {f}]",
                e = first_ext[1]
            ),
        };
        let _ = writeln!(out, "s[A].transform_layout({map})");
    }
    // The output's loops: maybe split, fuse or reorder; producers attach
    // to one of them, are inlined, or stay at the root.
    let mut leaves: Vec<String> = Vec::new();
    let out_rank = if out_name == "R" { 1 } else { rank };
    let mut outer: Vec<String> = (0..out_rank)
        .map(|d| format!("{out_name}.op.axis[{d}]"))
        .collect();
    if out_rank == 2 && rng.chance(30) {
        let _ = writeln!(out, "f = s[{out_name}].fuse({}, {})", outer[0], outer[1]);
        outer = vec!["f".into()];
    } else if out_name == "R" && rng.chance(30) {
        // A data loop fused with the reduction loop, in either order.
        if rng.chance(50) {
            let _ = writeln!(out, "f = s[R].fuse({}, k)", outer[0]);
        } else {
            let _ = writeln!(
                out,
                "s[R].reorder(k, {})\nf = s[R].fuse(k, {})",
                outer[0], outer[0]
            );
        }
        outer = vec!["f".into()];
    }
    if rng.chance(70) {
        let by = if rng.chance(70) {
            format!("factor={}", rng.range(1, 5))
        } else {
            format!("nparts={}", rng.range(1, 4))
        };
        let _ = writeln!(out, "xo, xi = s[{out_name}].split({}, {by})", outer[0]);
        leaves.push("xo".into());
        leaves.push("xi".into());
        if outer.len() == 2 && rng.chance(40) {
            let _ = writeln!(out, "s[{out_name}].reorder(xi, xo, {})", outer[1]);
        }
    } else {
        leaves.push(outer[0].clone());
    }
    // As a GPU kernel: the split output loops bound to blocks and threads,
    // or (for a reduction whose loops are not fused) the reduction bound to
    // threads; producers computed inside may be fetched into shared memory
    // by the threads together.
    let gpu = leaves.len() == 2 && rng.chance(30);
    if gpu {
        let _ = writeln!(
            out,
            "tx = te.thread_axis(\"threadIdx.x\")\ns[{out_name}].bind(xo, te.thread_axis(\"blockIdx.x\"))\ns[{out_name}].bind(xi, tx)"
        );
    } else if out_name == "R" && outer[0] != "f" && rng.chance(30) {
        let _ = writeln!(
            out,
            "ko, ki = s[R].split(k, factor={})\ns[R].bind(ki, te.thread_axis(\"threadIdx.x\"))",
            rng.range(1, 5)
        );
    }
    for p in names.iter().filter(|n| **n != out_name).rev() {
        match rng.below(4) {
            0 => {
                let _ = writeln!(out, "s[{p}].compute_inline()");
            }
            // At the root, sometimes stored in another layout.
            1 => {
                if rng.chance(40) {
                    let map = if rank == 2 {
                        "lambda i, j: [j, i]".to_string()
                    } else {
                        let f = rng.range(1, 3);
                        format!("lambda i: [i // {f}, i % {f}]")
                    };
                    let _ = writeln!(out, "s[{p}].transform_layout({map})");
                }
            }
            _ => {
                let split = rng.chance(40);
                if split {
                    let by = rng.range(2, 4);
                    let _ = writeln!(
                        out,
                        "po_{p}, pi_{p} = s[{p}].split({p}.op.axis[0], factor={by})"
                    );
                }
                let at = rng.pick(&leaves).clone();
                let _ = writeln!(out, "s[{p}].compute_at(s[{out_name}], {at})");
                if gpu && rng.chance(60) {
                    let _ = writeln!(out, "s[{p}].set_scope(\"shared\")");
                    let axis = if split {
                        format!("pi_{p}")
                    } else {
                        format!("{p}.op.axis[0]")
                    };
                    match rng.below(3) {
                        0 => {
                            let _ = writeln!(out, "s[{p}].bind({axis}, tx)");
                        }
                        1 => {
                            let _ = writeln!(
                                out,
                                "s[{p}].bind({axis}, te.thread_axis(\"threadIdx.x\"))"
                            );
                        }
                        _ => {}
                    }
                }
            }
        }
    }
    let _ = writeln!(
        out,
        "print(tvm.lower(s, [A, {out_name}], simple_mode=True))"
    );
    out
}

/// The block form of a program whose lowering was clean
/// (`te::create_prim_func`) computes the same values; operations it does
/// not take are skipped.
fn check_block_form(
    target: &script::Target,
    sizes: &HashMap<arith::Var, i64>,
) -> Result<bool, Failure> {
    match te::check_block_form(&target.schedule, &target.args, sizes, 0) {
        Ok(err) if err <= TOLERANCE => Ok(true),
        Ok(err) => Err(Failure::new(
            "block-form-mismatch",
            format!("the block form differs from the definitions by {err}"),
        )),
        Err(e) if e.kind == te::ErrorKind::Unsupported => Ok(true),
        Err(e) => Err(Failure::new("block-form-error", e.message)),
    }
}

impl Target for TeTarget {
    fn name(&self) -> &'static str {
        "te"
    }

    fn extension(&self) -> &'static str {
        "py"
    }

    fn generate(&self, rng: &mut Rng) -> String {
        let script = generate_script(rng);
        if rng.chance(15) {
            // Marked, because a mutated script may be wrong itself (read
            // outside a tensor): for those only crashes count.
            format!("{MUTATED}{}", mutate(&script, TOKENS, rng))
        } else {
            script
        }
    }

    fn check(&self, input: &str) -> Result<bool, Failure> {
        let Ok(run) = script::run(input) else {
            return Ok(false);
        };
        let Some(target) = run.target else {
            return Ok(false);
        };
        if te::report(&target.schedule, &target.args).is_err() {
            return Ok(false);
        }
        let sizes: HashMap<arith::Var, i64> = target
            .symbolic_sizes()
            .into_iter()
            .map(|v| (v, RUN_SIZE))
            .collect();
        let checked = te::check(&target.schedule, &target.args, &sizes, 0);
        if input.starts_with(MUTATED) {
            return Ok(checked.is_ok());
        }
        match checked {
            Ok(c) if c.is_clean(TOLERANCE) => check_block_form(&target, &sizes),
            Ok(c) if c.out_of_bounds > 0 => Err(Failure::new(
                "out-of-bounds",
                format!(
                    "{} accesses outside their buffer or region",
                    c.out_of_bounds
                ),
            )),
            Ok(c) => Err(Failure::new(
                "mismatch",
                format!(
                    "largest difference from the definitions: {}",
                    c.max_abs_error
                ),
            )),
            Err(e) if e.message.contains("overflow") || e.message.contains("division by zero") => {
                Err(Failure::new("run-overflow", e.message))
            }
            Err(e) => Err(Failure::new("run-error", e.message)),
        }
    }
}
