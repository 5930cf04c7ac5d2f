//! `rangefinder layout --shape S --map LAMBDA [--index I] [--inverse]
//! [--json] [--svg PATH]`: the transformed and physical shapes and indices
//! of a buffer under a layout transform, and its inverse and padding; with
//! `--svg`, a picture of the logical and physical buffers.

use crate::diagnostics;
use arith::{Expr, Scope};
use layout::{IndexMap, Layout, LayoutError};
use serde::Serialize;
use std::process::ExitCode;

/// Arguments of `rangefinder layout`.
#[derive(clap::Args)]
pub struct LayoutArgs {
    /// The logical shape, e.g. `16,64,64,128` or `M,N,P,Q`.
    #[arg(long, allow_hyphen_values = true)]
    pub shape: String,
    /// The transform, e.g. `lambda n, h, w, c: [n, c // 4, h, te.AXIS_SEPARATOR, w, c % 4]`.
    #[arg(long)]
    pub map: String,
    /// A logical index to map, e.g. `11,37,23,101`.
    #[arg(long, allow_hyphen_values = true)]
    pub index: Option<String>,
    /// Also print the inverse map and the padding predicate.
    #[arg(long)]
    pub inverse: bool,
    /// JSON output.
    #[arg(long)]
    pub json: bool,
    /// Also draw the logical and physical buffers as SVG to this path (`-`
    /// for standard output); needs constant extents.
    #[arg(long, value_name = "PATH")]
    pub svg: Option<std::path::PathBuf>,
}

/// Draws the picture of a map that is not injective on `shape`, when the
/// extents are constant and the layout crate finds the colliding pair.
fn collision_svg(path: &std::path::Path, map: &IndexMap, shape: &[Expr]) {
    let Some(dims) = shape.iter().map(Expr::as_int).collect::<Option<Vec<i64>>>() else {
        return;
    };
    let Some(c) = map.find_collision(shape) else {
        return;
    };
    let written = picture::collision_picture(map, &dims, &c)
        .and_then(|d| crate::output_file::write_output("the picture", path, &d.svg));
    if let Err(e) = written {
        eprintln!("error: {e}");
    }
}

fn report(arg: &str, text: &str, e: &LayoutError) -> ExitCode {
    diagnostics::report(arg, text, &e.message, e.span.clone())
}

/// `[a, b, c]` in the arith syntax.
fn list(v: &[Expr]) -> String {
    let items: Vec<String> = v.iter().map(|e| e.to_string()).collect();
    format!("[{}]", items.join(", "))
}

/// Serialises a list of expressions as integers when every entry is
/// constant, as expression strings otherwise.
fn json_list<S: serde::Serializer>(v: &[Expr], s: S) -> Result<S::Ok, S::Error> {
    match v.iter().map(|e| e.as_int()).collect::<Option<Vec<i64>>>() {
        Some(ints) => s.collect_seq(ints),
        None => s.collect_seq(v.iter().map(|e| e.to_string())),
    }
}

/// What `rangefinder layout --json` prints (keys in alphabetical order, as
/// the command has always printed them).
#[derive(Serialize)]
struct LayoutJson<'a> {
    bijective: bool,
    /// With `--inverse` only.
    #[serde(skip_serializing_if = "Option::is_none")]
    inverse: Option<&'a str>,
    #[serde(serialize_with = "json_list")]
    logical_index: &'a [Expr],
    #[serde(serialize_with = "json_list")]
    logical_shape: &'a [Expr],
    /// With `--inverse` only; `null` when every transformed index is reached.
    #[serde(skip_serializing_if = "Option::is_none")]
    padding_predicate: Option<Option<&'a str>>,
    #[serde(serialize_with = "json_list")]
    physical_index: &'a [Expr],
    #[serde(serialize_with = "json_list")]
    physical_shape: &'a [Expr],
    #[serde(serialize_with = "json_list")]
    transformed_index: &'a [Expr],
    #[serde(serialize_with = "json_list")]
    transformed_shape: &'a [Expr],
}

/// Runs the subcommand: exit code 0 on success, 2 on bad input (the
/// message points into the argument at fault).
pub fn run(args: LayoutArgs) -> ExitCode {
    let mut scope = Scope::new();
    let shape = match layout::parse_shape(&args.shape, &mut scope) {
        Ok(s) => s,
        Err(e) => return report("--shape", &args.shape, &e),
    };
    let map = match IndexMap::parse_with(&args.map, &scope) {
        Ok(m) => m,
        Err(e) => return report("--map", &args.map, &e),
    };
    let l = match Layout::new(shape.clone(), Some(map.clone())) {
        Ok(l) => l,
        Err(e) => {
            if let (Some(path), layout::ErrorKind::NotInjective) = (&args.svg, &e.kind) {
                collision_svg(path, &map, &shape);
            }
            return report("--map", &args.map, &e);
        }
    };
    let logical: Vec<Expr> = match &args.index {
        Some(text) => match layout::parse_index(text, &shape) {
            Ok(p) => {
                if let Some((message, span)) = layout::index_beyond_shape(text, &p, &shape) {
                    diagnostics::warn("--index", text, &message, span);
                }
                p.into_iter().map(Expr::int).collect()
            }
            Err(e) => return report("--index", text, &e),
        },
        None => map.initial_indices().iter().map(|v| v.expr()).collect(),
    };
    let indices = l
        .transformed_index(&logical)
        .and_then(|t| Ok((l.flatten(&t)?, t)));
    let (physical, transformed) = match indices {
        Ok(x) => x,
        // The map was analysed on the shape: what fails here (an index
        // whose physical offset overflows) is the given index's doing.
        Err(e) => match &args.index {
            Some(text) if e.span.is_none() => {
                return report("--index", text, &e.at(Some(0..text.len())))
            }
            _ => return report("--map", &args.map, &e),
        },
    };
    let inverse = l.inverse().map(|m| m.to_string()).unwrap_or_default();
    let padding = l.padding_predicate().map(|p| {
        let params: Vec<&str> = l
            .inverse()
            .map(|m| m.initial_indices().iter().map(|v| v.name()).collect())
            .unwrap_or_default();
        format!("lambda {}: {p}", params.join(", "))
    });
    if args.json {
        let out = LayoutJson {
            bijective: l.is_bijective(),
            inverse: args.inverse.then_some(inverse.as_str()),
            logical_index: &logical,
            logical_shape: l.logical_shape(),
            padding_predicate: args.inverse.then_some(padding.as_deref()),
            physical_index: &physical,
            physical_shape: l.physical_shape(),
            transformed_index: &transformed,
            transformed_shape: l.transformed_shape(),
        };
        match serde_json::to_string(&out) {
            Ok(text) => println!("{text}"),
            Err(e) => return diagnostics::fail(format!("cannot write JSON: {e}")),
        }
    } else {
        println!("logical shape:     {}", list(l.logical_shape()));
        println!("transformed shape: {}", list(l.transformed_shape()));
        println!("physical shape:    {}", list(l.physical_shape()));
        println!("bijective:         {}", l.is_bijective());
        println!("logical index:     {}", list(&logical));
        println!("transformed index: {}", list(&transformed));
        println!("physical index:    {}", list(&physical));
        if args.inverse {
            println!("inverse:           {inverse}");
            println!(
                "padding predicate: {}",
                padding
                    .as_deref()
                    .unwrap_or("none (every transformed index is reached)")
            );
        }
    }
    if let Some(path) = &args.svg {
        let written = picture::layout_picture(&l)
            .and_then(|d| crate::output_file::write_output("the picture", path, &d.svg));
        if let Err(e) = written {
            return diagnostics::fail(e);
        }
    }
    ExitCode::SUCCESS
}
