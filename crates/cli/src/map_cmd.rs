//! `rangefinder map TEXT [--json]`: parse an XLA indexing map, simplify it
//! and print it in XLA's text form.

use indexing::IndexingMap;
use serde::Serialize;
use std::process::ExitCode;

/// Arguments of `rangefinder map`.
#[derive(clap::Args)]
pub struct MapArgs {
    /// The map in XLA's text form, e.g. `(d0) -> (d0 floordiv 8), domain: d0 in [0, 31]`.
    pub text: String,
    /// Print `{"input": ..., "simplified": ...}`.
    #[arg(long)]
    pub json: bool,
    /// Also draw one element of the dimensions and the results it reaches
    /// as SVG to PATH (`-`: standard output, instead of the map); the
    /// shapes are the ranges of the dimensions and of the results.
    #[arg(long, value_name = "PATH")]
    pub svg: Option<std::path::PathBuf>,
    /// The element to draw, `d0=V,d1=V` (or `--at dK=V` repeated); axes not
    /// given take their middle index.
    #[arg(long, value_name = "dK=V,..", requires = "svg")]
    pub at: Vec<String>,
}

/// Runs the subcommand: exit code 0 on success, 2 when the map does not
/// parse (the message points at the offending text). Expressions nest at
/// most 400 operations deep; long flat sums are fine.
pub fn run(args: MapArgs) -> ExitCode {
    let map = match IndexingMap::parse(&args.text) {
        Ok(m) => m,
        Err(e) => return crate::diagnostics::report("map", &args.text, &e.message, e.span),
    };
    let mut simplified = map.clone();
    simplified.simplify();
    if let Some(path) = &args.svg {
        let scene = picture::map_scene(&simplified, None);
        let at = if args.at.is_empty() {
            None
        } else {
            match picture::parse_at(&args.at, &scene.output_shape) {
                Ok(at) => Some(at),
                Err(e) => return crate::diagnostics::fail(format!("--at: {e}")),
            }
        };
        let drawing = match picture::map_picture(&scene, at.as_deref()) {
            Ok(d) => d,
            Err(e) => return crate::diagnostics::fail(e),
        };
        if let Err(e) = crate::output_file::write_output("the picture", path, &drawing.svg) {
            return crate::diagnostics::fail(e);
        }
        if path.as_os_str() == "-" {
            return ExitCode::SUCCESS;
        }
    }
    if args.json {
        let report = MapReport {
            input: map.to_string(),
            simplified: simplified.to_string(),
        };
        match serde_json::to_string(&report) {
            Ok(text) => crate::hlo_cmd::emit(&format!("{text}\n")),
            Err(e) => return crate::diagnostics::fail(format!("cannot write JSON: {e}")),
        }
    } else {
        crate::hlo_cmd::emit(&format!("{simplified}\n"));
    }
    ExitCode::SUCCESS
}

/// The JSON form of `rangefinder map`.
#[derive(Serialize)]
struct MapReport {
    /// The map as parsed, printed back.
    input: String,
    /// The simplified map.
    simplified: String,
}
