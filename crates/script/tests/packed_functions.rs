//! Packed functions at run time: `tvm.register_func` functions called by
//! a built program's `call_packed`, the runtime library's
//! `tvm.contrib.cblas.matmul`, and `tvm.get_global_func`.

mod common;

const PACKED: &str = include_str!("programs/packed_functions.py");

use common::{error_message as error, run};

/// The registered function scales, the library multiplies (also
/// transposed), and the report's run of the last program, compared with
/// a direct evaluation, calls the library too.
#[test]
fn registered_and_library_functions_run_when_the_program_calls_them() {
    let r = run(PACKED);
    assert!(
        r.printed.starts_with(
            "[2.5, 5.0, 7.5, 10.0]\n\
             [[22.0, 11.0], [12.0, 10.0], [18.0, 12.0]]\n\
             [[12.0, 2.0, 8.0], [1.0, 0.0, 2.0]]\n"
        ),
        "{}",
        r.printed
    );
    common::run_checked(PACKED, 4, 1, 1e-6);
}

const EXTERN: &str = "import tvm\nfrom tvm import te\n\
    A = te.placeholder((3,), name='A')\n\
    B = te.extern(A.shape, [A], lambda ins, outs: tvm.tir.call_packed('NAME', ins[0], outs[0]), name='B')\n\
    s = te.create_schedule(B.op)\n\
    f = tvm.build(s, [A, B], 'llvm')\n\
    a = tvm.nd.array([1.0, 2.0, 3.0])\n\
    b = tvm.nd.array([0.0, 0.0, 0.0])\n";

#[test]
fn what_is_not_registered_or_fails_ends_the_run_with_its_error() {
    let e = error(&format!("{}f(a, b)\n", EXTERN.replace("NAME", "no.such")));
    assert!(
        e.contains("`no.such`") && e.contains("register_func"),
        "{e}"
    );
    // The function's own exception reaches the script, which may catch it.
    let raising = format!(
        "{}@tvm.register_func('bad.fn')\ndef bad(x, y):\n    raise ValueError('no')\n\
         try:\n    f(a, b)\nexcept ValueError:\n    print('caught')\n",
        EXTERN.replace("NAME", "bad.fn")
    );
    assert_eq!(run(&raising).printed, "caught\n");
    // An array must keep its number of elements.
    let shrinking = format!(
        "{}@tvm.register_func('shrink')\ndef shrink(x, y):\n    tvm.nd.array([1.0]).copyto(y)\n\
         f(a, b)\n",
        EXTERN.replace("NAME", "shrink")
    );
    assert!(error(&shrinking).contains("cannot copy an array of 1 elements into one of 3"));
}

#[test]
fn the_registry_answers_as_tvms_does() {
    let src = "import tvm\n\
        def one(x):\n    return x\n\
        tvm.register_func('my.f', one)\n\
        print(tvm.get_global_func('my.f')(5))\n\
        print(tvm.get_global_func('my.g', allow_missing=True))\n\
        print(tvm.get_global_func('tvm.contrib.cblas.matmul'))\n\
        tvm.register_func('my.f', one, override=True)\n";
    assert_eq!(
        run(src).printed,
        "5\nNone\n<PackedFunc tvm.contrib.cblas.matmul>\n"
    );
    let twice = "import tvm\ndef one(x):\n    return x\n\
        tvm.register_func('my.f', one)\ntvm.register_func('my.f', one)\n";
    assert!(error(twice).contains("already registered"));
    assert!(
        error("import tvm\ntvm.get_global_func('my.g')\n").contains("Cannot find global function")
    );
    // The library function called directly on arrays.
    let direct = "import tvm\n\
        mm = tvm.get_global_func('tvm.contrib.cblas.matmul')\n\
        c = tvm.nd.array([[0.0]])\n\
        mm(tvm.nd.array([[1.0, 2.0]]), tvm.nd.array([[3.0], [4.0]]), c, False, False)\n\
        print(c)\n\
        mm(tvm.nd.array([[1.0, 2.0]]), tvm.nd.array([[3.0], [4.0]]), tvm.nd.array([[0.0, 0.0]]), False, False)\n";
    let e = error(direct);
    assert!(e.contains("C has shape [1, 2], the product [1, 1]"), "{e}");
    assert_eq!(
        run(direct.rsplit_once("mm(").unwrap().0).printed,
        "[[11.0]]\n"
    );
}
