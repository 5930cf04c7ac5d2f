//! Built modules saved to files and loaded back (`f.save`,
//! `f.export_library`, `cc.create_shared`, `tvm.runtime.load_module`,
//! `utils.tempdir()`): a loaded module runs as the built one does, in the
//! same run or a later one, and what is not a saved module is refused.

mod common;

const MODULE_FILES: &str = include_str!("programs/module_files.py");

use common::{error_message as error, run};

/// A fresh directory for one test, removed at the end.
struct Scratch(std::path::PathBuf);

impl Scratch {
    fn new(name: &str) -> Scratch {
        let p = std::env::temp_dir().join(format!(
            "rangefinder-module-files-{}-{name}",
            std::process::id()
        ));
        let _ = std::fs::remove_dir_all(&p);
        std::fs::create_dir_all(&p).unwrap();
        Scratch(p)
    }

    fn path(&self, file: &str) -> String {
        self.0.join(file).display().to_string()
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

#[test]
fn a_saved_module_loads_back_and_computes_what_the_built_one_computes() {
    let r = run(MODULE_FILES);
    assert!(
        r.printed.starts_with(
            "['myadd.o', 'myadd.so']\n[]\nmyadd [12.0, 24.0, 36.0, 48.0, 60.0, 72.0]\n\
             ['myadd.o', 'myadd.so', 'myadd_pack.so']\n"
        ),
        "{}",
        r.printed
    );
}

const BUILD: &str = "import tvm\nfrom tvm import te\n\
    n = te.var('n')\n\
    A = te.placeholder((n, 3), name='A')\n\
    U = te.placeholder((2,), name='U')\n\
    C = te.compute((n, 3), lambda i, j: A[i, j] + i * 10 + j, name='C')\n\
    s = te.create_schedule(C.op)\n\
    io, ii = s[C].split(C.op.axis[0], 2)\n\
    f = tvm.build(s, [A, U, C, n], 'llvm', name='shifted')\n";

/// A module saved by one run is loaded by another: nothing of the first
/// run is left but the file. The unused tensor and the size keep their
/// places among the parameters.
#[test]
fn a_module_saved_by_one_run_runs_in_another() {
    let dir = Scratch::new("two-runs");
    let lib = dir.path("shifted.so");
    run(&format!("{BUILD}f.export_library('{lib}')\n"));
    let r = run(&format!(
        "import tvm\n\
         f = tvm.runtime.load_module('{lib}')\n\
         a = tvm.nd.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 9.0]])\n\
         u = tvm.nd.array([0.0, 0.0])\n\
         c = tvm.nd.array([[0.0] * 3] * 3)\n\
         f(a, u, c, 3)\n\
         print(f.entry_name, c)\n"
    ));
    assert_eq!(
        r.printed,
        "shifted [[1.0, 3.0, 5.0], [14.0, 16.0, 18.0], [27.0, 29.0, 31.0]]\n"
    );
}

/// The temporary directory goes away with its object (or at `remove()`,
/// or at the end of a `with` block), with what was saved in it, unless it
/// is kept for debugging.
#[test]
fn a_temporary_directory_goes_away_with_what_was_saved_in_it() {
    let path_of = |src: &str| {
        let r = run(src);
        let path = r.printed.trim().to_owned();
        drop(r);
        std::path::PathBuf::from(path)
    };
    let saved = path_of(&format!(
        "{BUILD}from tvm.contrib import utils\n\
         t = utils.tempdir()\nf.save(t.relpath('m.o'))\nprint(t.temp_dir)\n"
    ));
    assert!(!saved.exists(), "{}", saved.display());
    let with_block = path_of(
        "from tvm.contrib import utils\n\
         with utils.tempdir() as t:\n    d = t.temp_dir\n\
         print(d)\n",
    );
    assert!(!with_block.exists(), "{}", with_block.display());
    let kept = path_of(
        "from tvm.contrib import utils\n\
         t = utils.tempdir(keep_for_debug=True)\nprint(t.temp_dir)\n",
    );
    assert!(kept.is_dir(), "{}", kept.display());
    std::fs::remove_dir_all(&kept).unwrap();
}

#[test]
fn files_that_are_not_saved_modules_are_refused_and_io_errors_are_os_errors() {
    let dir = Scratch::new("refused");
    let elf = dir.path("lib.so");
    std::fs::write(&elf, b"\x7fELF\x02\x01\x01").unwrap();
    let text = dir.path("notes.txt");
    std::fs::write(&text, "not a module").unwrap();
    let load = |p: &str| format!("import tvm\ntvm.runtime.load_module('{p}')\n");
    let e = error(&load(&elf));
    assert!(e.contains("compiled object or shared library"), "{e}");
    assert!(e.contains("generates no machine code"), "{e}");
    assert!(error(&load(&text)).contains("not a JSON document"));
    // Two functions in one library: one module of one function is loaded.
    let (a, b, lib) = (dir.path("a.o"), dir.path("b.o"), dir.path("ab.so"));
    let e = error(&format!(
        "{BUILD}from tvm.contrib import cc\nf.save('{a}')\nf.save('{b}')\n\
         cc.create_shared('{lib}', ['{a}', '{b}'])\ntvm.runtime.load_module('{lib}')\n"
    ));
    assert!(e.contains("holds 2 functions (shifted, shifted)"), "{e}");
    // A missing file is an `OSError`, which a script may catch.
    let missing = dir.path("missing.so");
    let r = run(&format!(
        "import tvm\ntry:\n    tvm.runtime.load_module('{missing}')\n\
         except OSError:\n    print('caught')\n"
    ));
    assert_eq!(r.printed, "caught\n");
    // A module for a GPU has device code rangefinder does not generate.
    let e = error(
        &BUILD
            .replace("'llvm'", "'cuda'")
            .replace("name='shifted')\n", "name='shifted')\nf.imported_modules\n"),
    );
    assert!(e.contains("generates no device code"), "{e}");
}
