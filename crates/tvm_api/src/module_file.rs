//! Saving built modules and loading them back, as TVM's tutorials do:
//! `f.save(path)`, `f.export_library(path)`,
//! `tvm.contrib.cc.create_shared(output, objects)`,
//! `tvm.runtime.load_module(path)`, and the temporary directory they save
//! into (`tvm.contrib.utils.tempdir()`).
//!
//! rangefinder generates no machine code, so a saved module is a document
//! of its own: JSON of the format `rangefinder.module`, holding each
//! function's name, target, parameters and program (the schedule with its
//! arguments, as [`te::save_json`] writes a [`te::JsonObject::Function`]).
//! `create_shared` joins the functions of its objects into one document
//! and `load_module` reads it back into a module that runs as the built one
//! does, in this process or another. A file that is not such a document (a
//! shared library TVM compiled) is an error that says so.

use crate::args::{Args, Given};
use crate::build::Built;
use crate::error::{type_error, ApiError, ApiResult, ErrorClass};
use crate::object::Object;
use crate::value::Value;
use serde_json::{json, Value as Json};
use std::path::{Path, PathBuf};
use std::rc::Rc;

/// The document's format name and version, checked on loading.
const FORMAT: &str = "rangefinder.module";
const VERSION: i64 = 1;

/// `f.save(file_name, fmt="")` and `f.export_library(file_name, ...)`:
/// writes the module's document.
pub(crate) fn save(f: &Built, method: &str, args: Args) -> ApiResult<Value> {
    let params: &[&'static str] = if method == "save" {
        &["file_name", "fmt"]
    } else {
        &[
            "file_name",
            "fcompile",
            "addons",
            "workspace_dir",
            "options",
            "cc",
        ]
    };
    let a = args.bind(method, params)?;
    let path = path_arg(a.required("file_name")?)?;
    let function = f.to_json()?;
    write_document(&path, vec![function])?;
    Ok(Value::None)
}

/// `tvm.contrib.cc.create_shared(output, objects, options=None, cc=None,
/// cwd=None, ccache_env=None)`: the functions of every object, in order,
/// in one document at `output`.
pub(crate) fn create_shared(args: Args) -> ApiResult<Value> {
    let a = args.bind(
        "create_shared",
        &["output", "objects", "options", "cc", "cwd", "ccache_env"],
    )?;
    let output = path_arg(a.required("output")?)?;
    let objects = a.required("objects")?;
    let paths = match &objects.value {
        Value::Str(_) => vec![path_arg(objects)?],
        v => v
            .sequence()
            .ok_or_else(|| {
                type_error(
                    objects.place(),
                    "`objects` must be a path or a list of paths",
                )
            })?
            .into_iter()
            .map(|p| path_arg(&objects.item(p)))
            .collect::<ApiResult<_>>()?,
    };
    let mut functions = Vec::new();
    for p in &paths {
        functions.extend(read_document(p)?);
    }
    write_document(&output, functions)?;
    Ok(Value::None)
}

/// `tvm.runtime.load_module(path, fmt="")`: the module saved at `path`.
pub(crate) fn load_module(args: Args) -> ApiResult<Value> {
    let a = args.bind("load_module", &["path", "fmt"])?;
    let path = path_arg(a.required("path")?)?;
    let functions = read_document(&path)?;
    let [function] = <[Json; 1]>::try_from(functions).map_err(|all| {
        let names: Vec<&str> = all
            .iter()
            .filter_map(|f| f.get("name").and_then(Json::as_str))
            .collect();
        ApiError::not_supported(format!(
            "`{}` holds {} functions ({}): rangefinder loads a module of one function",
            path.display(),
            names.len(),
            names.join(", ")
        ))
    })?;
    let built = Built::from_json(&function).map_err(|message| {
        ApiError::new(
            ErrorClass::ValueError,
            format!(
                "`{}` is not a module rangefinder saved: {message}",
                path.display()
            ),
        )
    })?;
    Ok(Value::Object(Object::Built(Rc::new(built))))
}

fn path_arg(g: &Given) -> ApiResult<PathBuf> {
    match &g.value {
        Value::Str(s) => Ok(PathBuf::from(&**s)),
        other => Err(type_error(
            g.place(),
            format!("expected a path, found a {}", other.type_name()),
        )),
    }
}

fn io_error(what: &str, path: &Path, e: std::io::Error) -> ApiError {
    ApiError::new(
        ErrorClass::OSError,
        format!("cannot {what} `{}`: {e}", path.display()),
    )
}

fn write_document(path: &Path, functions: Vec<Json>) -> ApiResult<()> {
    let doc = json!({"format": FORMAT, "version": VERSION, "functions": functions});
    std::fs::write(path, doc.to_string()).map_err(|e| io_error("write", path, e))
}

/// The functions of the document at `path`.
fn read_document(path: &Path) -> ApiResult<Vec<Json>> {
    let bytes = std::fs::read(path).map_err(|e| io_error("read", path, e))?;
    let not_ours = |why: &str| {
        ApiError::new(
            ErrorClass::ValueError,
            format!(
                "`{}` is not a module rangefinder saved ({why}): rangefinder generates no \
                 machine code, and loads only what `f.save`, `f.export_library` or \
                 `cc.create_shared` wrote",
                path.display()
            ),
        )
    };
    if bytes.starts_with(b"\x7fELF") {
        return Err(not_ours("it is a compiled object or shared library"));
    }
    let doc: Json =
        serde_json::from_slice(&bytes).map_err(|_| not_ours("it is not a JSON document"))?;
    if doc.get("format").and_then(Json::as_str) != Some(FORMAT) {
        return Err(not_ours("its format is not `rangefinder.module`"));
    }
    if doc.get("version").and_then(Json::as_i64) != Some(VERSION) {
        return Err(not_ours(&format!("its version is not {VERSION}")));
    }
    match doc.get("functions") {
        Some(Json::Array(fs)) => Ok(fs.clone()),
        _ => Err(not_ours("it lists no functions")),
    }
}

/// `tvm.contrib.utils.tempdir()`: a fresh directory, removed (with what
/// was saved in it) when the object goes away, unless `keep_for_debug`.
pub struct TempDirectory {
    path: PathBuf,
    keep: bool,
}

impl Drop for TempDirectory {
    fn drop(&mut self) {
        if !self.keep {
            // As TVM's `__del__`: a directory already gone is not an error.
            let _ = std::fs::remove_dir_all(&self.path);
        }
    }
}

impl TempDirectory {
    /// The directory's path, as text.
    pub fn path_text(&self) -> String {
        self.path.display().to_string()
    }
}

/// `tvm.contrib.utils.tempdir(custom_path=None, keep_for_debug=None)`.
pub(crate) fn tempdir(args: Args) -> ApiResult<Value> {
    let a = args.bind("tempdir", &["custom_path", "keep_for_debug"])?;
    let keep = match a.get("keep_for_debug").map(|g| &g.value) {
        None | Some(Value::None) => false,
        Some(v) => crate::operators::truth(v)?,
    };
    let path = match a.get("custom_path").map(|g| (g, &g.value)) {
        None | Some((_, Value::None)) => fresh_directory()?,
        Some((g, _)) => {
            let p = path_arg(g)?;
            std::fs::create_dir(&p).map_err(|e| io_error("create the directory", &p, e))?;
            p
        }
    };
    Ok(Value::Object(Object::TempDirectory(Rc::new(
        TempDirectory { path, keep },
    ))))
}

/// A new directory under the system's temporary directory.
fn fresh_directory() -> ApiResult<PathBuf> {
    use std::sync::atomic::{AtomicU64, Ordering};
    static MADE: AtomicU64 = AtomicU64::new(0);
    let base = std::env::temp_dir();
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.subsec_nanos());
    // A name taken already (another process) is skipped, not reused.
    for _ in 0..64 {
        let n = MADE.fetch_add(1, Ordering::Relaxed);
        let p = base.join(format!(
            "rangefinder-tvm-{}-{nanos:x}-{n}",
            std::process::id()
        ));
        match std::fs::create_dir(&p) {
            Ok(()) => return Ok(p),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(io_error("create the directory", &p, e)),
        }
    }
    Err(ApiError::new(
        ErrorClass::OSError,
        format!(
            "cannot find a free name for a directory in `{}`",
            base.display()
        ),
    ))
}

/// `temp.attr` of a temporary directory.
pub(crate) fn tempdir_attribute(value: &Value, d: &TempDirectory, name: &str) -> Option<Value> {
    match name {
        "temp_dir" => Some(Value::str(&d.path_text())),
        "relpath" | "listdir" | "remove" => {
            let name = match name {
                "relpath" => "relpath",
                "listdir" => "listdir",
                _ => "remove",
            };
            Some(Value::Method(Rc::new(value.clone()), name))
        }
        _ => None,
    }
}

/// `temp.relpath(name)`, `temp.listdir()`, `temp.remove()`.
pub(crate) fn tempdir_method(d: &TempDirectory, name: &str, args: Args) -> ApiResult<Value> {
    match name {
        "relpath" => {
            let a = args.bind("relpath", &["name"])?;
            let n = a.required("name")?;
            let Value::Str(s) = &n.value else {
                return Err(type_error(
                    n.place(),
                    format!(
                        "`relpath` takes a file name, found a {}",
                        n.value.type_name()
                    ),
                ));
            };
            Ok(Value::str(&d.path.join(&**s).display().to_string()))
        }
        "listdir" => {
            args.bind("listdir", &[])?;
            let entries = std::fs::read_dir(&d.path).map_err(|e| io_error("list", &d.path, e))?;
            let mut names = Vec::new();
            for e in entries {
                let e = e.map_err(|e| io_error("list", &d.path, e))?;
                names.push(e.file_name().to_string_lossy().into_owned());
            }
            // `os.listdir` gives no order; a sorted list is one it may give.
            names.sort();
            Ok(Value::list(names.iter().map(|n| Value::str(n)).collect()))
        }
        _ => {
            args.bind("remove", &[])?;
            if d.path.exists() {
                std::fs::remove_dir_all(&d.path).map_err(|e| io_error("remove", &d.path, e))?;
            }
            Ok(Value::None)
        }
    }
}

/// `f.imported_modules`: the device modules a built module imports. A
/// module for a CPU target imports none; one for a GPU target would
/// import its device code, which rangefinder does not generate.
pub(crate) fn imported_modules(f: &Built) -> ApiResult<Value> {
    match f.target_kind() {
        "llvm" | "c" => Ok(Value::list(Vec::new())),
        kind => Err(ApiError::not_supported(format!(
            "the device module of a module built for `{kind}` (its {kind} source code) does \
             not exist: rangefinder generates no device code; print the program with \
             `tvm.lower(s, args)`"
        ))),
    }
}
