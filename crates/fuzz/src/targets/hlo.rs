//! `hlo`: HLO modules, generated (chains of elementwise, transpose,
//! reshape, reverse, broadcast, slice, concatenate and reduce over `f32`
//! arrays) or mutated from the example modules, parsed and analysed:
//! every instruction in both directions, and every computation to its
//! parameters in both directions.
//!
//! Oracle: no panic and no abort; errors are fine.

use super::{Failure, Target};
use crate::mutate::mutate;
use crate::rng::Rng;
use hlo::Query;

/// The HLO target.
pub struct HloTarget;

/// The example modules, the seeds of mutation.
const SEEDS: &[&str] = &[
    include_str!("../../../../examples/hlo/jax_attention.hlo"),
    include_str!("../../../../examples/hlo/jax_conv.hlo"),
    include_str!("../../../../examples/hlo/jax_layer_norm.hlo"),
    include_str!("../../../../examples/hlo/jax_reshape_transpose.hlo"),
    include_str!("../../../../examples/hlo/jax_softmax.hlo"),
    include_str!("../../../../examples/hlo/x01_broadcast.hlo"),
    include_str!("../../../../examples/hlo/x02_add.hlo"),
    include_str!("../../../../examples/hlo/x03_transpose.hlo"),
    include_str!("../../../../examples/hlo/x04_reverse.hlo"),
    include_str!("../../../../examples/hlo/x05_variadic_reduce.hlo"),
    include_str!("../../../../examples/hlo/x06_slice.hlo"),
    include_str!("../../../../examples/hlo/x07_reshape_collapse.hlo"),
    include_str!("../../../../examples/hlo/x08_reshape_expand.hlo"),
    include_str!("../../../../examples/hlo/x09_reshape_generic.hlo"),
    include_str!("../../../../examples/hlo/x10_reshape_subshapes.hlo"),
    include_str!("../../../../examples/hlo/x11_concatenate.hlo"),
    include_str!("../../../../examples/hlo/x12_dot.hlo"),
    include_str!("../../../../examples/hlo/x13_pad.hlo"),
    include_str!("../../../../examples/hlo/x14_reduce_window.hlo"),
    include_str!("../../../../examples/hlo/x15_fusion_add_transpose.hlo"),
    include_str!("../../../../examples/hlo/x16_fusion_transposes.hlo"),
    include_str!("../../../../examples/hlo/x17_softmax_fusion.hlo"),
    include_str!("../../../../examples/hlo/x18_reshape_chain.hlo"),
];

const TOKENS: &[&str] = &[
    "f32[]",
    "f32[0]",
    "f32[2,3]",
    "s32[]",
    "(f32[4], f32[4])",
    "dimensions={}",
    "dimensions={1,1}",
    "dimensions={0}",
    ", index=7",
    "parameter(0)",
    "bitcast()",
    "get-tuple-element(",
    "ROOT ",
    "fusion(",
    "kind=kLoop, calls=",
    "slice={[0:9:0]}",
    "{",
    "}",
    "\n",
    "9223372036854775807",
    "-1",
    "constant(99999999999)",
    "to_apply=",
    "reshape(",
    "transpose(",
];

fn shape_text(dims: &[i64]) -> String {
    let d: Vec<String> = dims.iter().map(|d| d.to_string()).collect();
    format!("f32[{}]", d.join(","))
}

fn list(v: &[usize]) -> String {
    let d: Vec<String> = v.iter().map(|d| d.to_string()).collect();
    d.join(",")
}

/// A generated module: one chain of ops from one parameter.
fn generate_module(rng: &mut Rng) -> String {
    let rank = 1 + rng.index(3);
    let mut dims: Vec<i64> = (0..rank)
        .map(|_| {
            let lo = if rng.chance(5) { 0 } else { 1 };
            rng.range(lo, 6)
        })
        .collect();
    let mut lines = vec![format!("  p0 = {} parameter(0)", shape_text(&dims))];
    let mut uses_add = false;
    let mut cur = "p0".to_string();
    let ops = 1 + rng.index(8);
    for k in 1..=ops {
        let name = format!("a{k}");
        let line = match rng.below(9) {
            0 => format!(
                "{} {}({cur})",
                shape_text(&dims),
                rng.pick(&["negate", "exponential", "abs"])
            ),
            1 => format!("{} add({cur}, {cur})", shape_text(&dims)),
            2 => {
                let mut perm: Vec<usize> = (0..dims.len()).collect();
                for i in (1..perm.len()).rev() {
                    perm.swap(i, rng.index(i + 1));
                }
                dims = perm.iter().map(|&p| dims[p]).collect();
                format!(
                    "{} transpose({cur}), dimensions={{{}}}",
                    shape_text(&dims),
                    list(&perm)
                )
            }
            3 => {
                // Collapse everything, or split the first dimension.
                let total: i64 = dims.iter().product();
                dims = if dims.len() > 1 || total % 2 != 0 || total == 0 {
                    vec![total]
                } else {
                    vec![2, total / 2]
                };
                format!("{} reshape({cur})", shape_text(&dims))
            }
            4 => {
                let d = rng.index(dims.len());
                format!("{} reverse({cur}), dimensions={{{d}}}", shape_text(&dims))
            }
            5 if dims.len() < 4 => {
                let extra = rng.range(1, 3);
                let old: Vec<usize> = (1..=dims.len()).collect();
                dims.insert(0, extra);
                format!(
                    "{} broadcast({cur}), dimensions={{{}}}",
                    shape_text(&dims),
                    list(&old)
                )
            }
            6 => {
                let mut specs = Vec::new();
                for d in dims.iter_mut() {
                    let lo = rng.range(0, *d / 2);
                    let stride = rng.range(1, 2);
                    specs.push(format!("[{lo}:{d}:{stride}]"));
                    *d = (*d - lo + stride - 1) / stride;
                }
                format!(
                    "{} slice({cur}), slice={{{}}}",
                    shape_text(&dims),
                    specs.join(", ")
                )
            }
            7 => {
                let d = rng.index(dims.len());
                dims[d] *= 2;
                format!(
                    "{} concatenate({cur}, {cur}), dimensions={{{d}}}",
                    shape_text(&dims)
                )
            }
            _ if dims.len() > 1 => {
                uses_add = true;
                let d = rng.index(dims.len());
                dims.remove(d);
                lines.push(format!("  z{k} = f32[] constant(0)"));
                format!(
                    "{} reduce({cur}, z{k}), dimensions={{{d}}}, to_apply=add",
                    shape_text(&dims)
                )
            }
            _ => format!("{} negate({cur})", shape_text(&dims)),
        };
        let root = if k == ops { "ROOT " } else { "" };
        lines.push(format!("  {root}{name} = {line}"));
        cur = name;
    }
    let add = if uses_add {
        "add {\n  x = f32[] parameter(0)\n  y = f32[] parameter(1)\n  ROOT s = f32[] add(x, y)\n}\n\n"
    } else {
        ""
    };
    format!(
        "HloModule fuzz\n\n{add}ENTRY main {{\n{}\n}}\n",
        lines.join("\n")
    )
}

/// Swaps, drops or duplicates whole lines, then edits bytes.
fn mutate_module(seed: &str, rng: &mut Rng) -> String {
    let mut lines: Vec<&str> = seed.lines().collect();
    for _ in 0..rng.below(3) {
        if lines.is_empty() {
            break;
        }
        let i = rng.index(lines.len());
        match rng.below(3) {
            0 => {
                lines.remove(i);
            }
            1 => lines.insert(i, lines[i]),
            _ => {
                let j = rng.index(lines.len());
                lines.swap(i, j);
            }
        }
    }
    let text = lines.join("\n");
    if rng.chance(80) {
        mutate(&text, TOKENS, rng)
    } else {
        text
    }
}

impl Target for HloTarget {
    fn name(&self) -> &'static str {
        "hlo"
    }

    fn extension(&self) -> &'static str {
        "hlo"
    }

    fn generate(&self, rng: &mut Rng) -> String {
        match rng.below(10) {
            0..=3 => generate_module(rng),
            4..=5 => {
                let m = generate_module(rng);
                mutate(&m, TOKENS, rng)
            }
            _ => {
                let seed = *rng.pick(SEEDS);
                mutate_module(seed, rng)
            }
        }
    }

    fn check(&self, input: &str) -> Result<bool, Failure> {
        let Ok(module) = hlo::parse_module(input) else {
            return Ok(false);
        };
        let mut queries = Vec::new();
        for comp in &module.computations {
            for inst in &comp.instructions {
                for input_to_output in [false, true] {
                    queries.push(Query {
                        instruction: Some(inst.name.clone()),
                        input_to_output,
                        ..Query::default()
                    });
                    if !inst.called.is_empty() {
                        queries.push(Query {
                            instruction: Some(inst.name.clone()),
                            input_to_output,
                            to_parameters: true,
                            ..Query::default()
                        });
                    }
                }
            }
        }
        for input_to_output in [false, true] {
            queries.push(Query {
                input_to_output,
                to_parameters: true,
                ..Query::default()
            });
        }
        for q in &queries {
            if let Ok(result) = hlo::analyze(&module, q) {
                // Printing is part of the answer.
                let _ = result.to_string();
            }
        }
        Ok(true)
    }
}
