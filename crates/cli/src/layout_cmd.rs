//! `rangefinder layout --shape S --map LAMBDA [--index I] [--inverse]
//! [--json]`: the transformed and physical shapes and indices of a buffer
//! under a layout transform, and its inverse and padding.

use crate::diagnostics;
use arith::{Expr, Scope};
use layout::{IndexMap, Layout, LayoutError};
use serde_json::{json, Value};
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
}

fn report(arg: &str, text: &str, e: &LayoutError) -> ExitCode {
    diagnostics::report(arg, text, &e.message, e.span.clone())
}

/// `[a, b, c]` in the arith syntax.
fn list(v: &[Expr]) -> String {
    let items: Vec<String> = v.iter().map(|e| e.to_string()).collect();
    format!("[{}]", items.join(", "))
}

/// Integers when every entry is constant, expression strings otherwise.
fn json_list(v: &[Expr]) -> Value {
    match v.iter().map(|e| e.as_int()).collect::<Option<Vec<i64>>>() {
        Some(ints) => json!(ints),
        None => json!(v.iter().map(|e| e.to_string()).collect::<Vec<_>>()),
    }
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
        Err(e) => return report("--map", &args.map, &e),
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
        Err(e) => return report("--map", &args.map, &e),
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
        let mut out = json!({
            "logical_shape": json_list(l.logical_shape()),
            "transformed_shape": json_list(l.transformed_shape()),
            "physical_shape": json_list(l.physical_shape()),
            "logical_index": json_list(&logical),
            "transformed_index": json_list(&transformed),
            "physical_index": json_list(&physical),
            "bijective": l.is_bijective(),
        });
        if args.inverse {
            out["inverse"] = json!(inverse);
            out["padding_predicate"] = json!(padding);
        }
        println!("{out}");
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
    ExitCode::SUCCESS
}
