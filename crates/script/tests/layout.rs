//! `s[T].transform_layout(fn)` in scripts: every spelling of the function
//! and of `AXIS_SEPARATOR`, the returned axes in later primitives, and
//! errors at the call.

use std::collections::HashMap;

const PRELUDE: &str = "import tvm\nfrom tvm import te\n\
A = te.placeholder((4, 8), name='A')\n\
B = te.compute((4, 8), lambda i, j: A[i, j] * 2, name='B')\n\
C = te.compute((4, 8), lambda i, j: B[i, j] + 1, name='C')\n\
s = te.create_schedule(C.op)\n";

fn lowered_and_checked(body: &str) -> String {
    let source = format!("{PRELUDE}{body}");
    let run = script::run(&source).unwrap_or_else(|e| panic!("{body}: {e}"));
    let target = run.target.expect("a schedule");
    let report = te::check(&target.schedule, &target.args, &HashMap::new(), 3).unwrap();
    assert!(report.is_clean(0.0), "{body}: {report:?}");
    te::lower(&target.schedule, &target.args)
        .unwrap()
        .to_string()
}

#[test]
fn spellings_of_the_map_and_the_separator() {
    for body in [
        "s[B].transform_layout(lambda i, j: [j // 4, i, te.AXIS_SEPARATOR, j % 4])\n",
        "s[B].transform_layout(lambda *idx: [idx[1] // 4, idx[0], tvm.te.AXIS_SEPARATOR, idx[1] % 4])\n",
        "def f(axes):\n    i, j = axes\n    return [j // 4, i, te.AXIS_SEPARATOR, j % 4]\ns[B].transform_layout(f)\n",
        "s[B].transform_layout(lambda i, j: (j // 4, i, te.AXIS_SEPARATOR, j % 4))\n",
    ] {
        let text = lowered_and_checked(body);
        assert!(text.contains("B[((j.outer*4) + i), j.inner]"), "{body}\n{text}");
    }
}

#[test]
fn returned_axes_take_split_reorder_fuse_and_compute_at() {
    let text = lowered_and_checked(
        "jo, i, ji = s[C].transform_layout(lambda i, j: [j // 4, i, j % 4])\n\
         io, ii = s[C].split(i, factor=2)\n\
         s[C].reorder(io, jo, ii, ji)\n\
         f = s[C].fuse(ii, ji)\n\
         s[B].compute_at(s[C], jo)\n\
         s[A].transform_layout(lambda i, j: [j, i])\n",
    );
    assert!(text.contains("for (i.outer, 0, 2)"), "{text}");
    assert!(text.contains("for (i.inner.j.inner.fused, 0, 8)"), "{text}");
    assert!(
        text.contains("C[(((j.outer*16) + (i.outer*8)) + i.inner.j.inner.fused)]"),
        "{text}"
    );
    assert!(
        text.contains("A[((((j.outer*16) + (j*4)) + (i.outer*2)) + i)]"),
        "{text}"
    );
}

#[test]
fn errors_point_at_the_call() {
    for (body, fragment) in [
        (
            "s[B].transform_layout(lambda i, j: [i + j])\n",
            "not injective",
        ),
        (
            "s[B].transform_layout(lambda i: [i])\n",
            "takes one parameter",
        ),
        (
            "s[B].transform_layout(lambda i, j, k: [i])\n",
            "takes 3 indices",
        ),
        (
            "s[B].transform_layout(lambda i, j: [j // 3, i, j % 3])\n",
            "pads",
        ),
        ("s[B].transform_layout(3)\n", "needs a lambda"),
        (
            "s[B].transform_layout(lambda i, j: [i, j < 2])\n",
            "is a condition, not an index",
        ),
        (
            "s[B].transform_layout(lambda i, j: [te.AXIS_SEPARATOR, i, j])\n",
            "separator",
        ),
    ] {
        let source = format!("{PRELUDE}{body}");
        let e = match script::run(&source) {
            Ok(_) => panic!("expected an error for {body}"),
            Err(e) => e,
        };
        assert_eq!(e.line, 7, "{body}: {}", e.message);
        assert!(e.message.contains(fragment), "{body}: {}", e.message);
    }
}

#[test]
fn two_transforms_of_a_placeholder_apply_in_order() {
    // A is 4 x 8 here: transposed (8 x 4), then packed by 2 (4 x 4 x 2):
    // A[i, j] lands at (j // 2) * 8 + i * 2 + j % 2.
    let source = format!(
        "{PRELUDE}s[A].transform_layout(lambda i, j: [j, i])\n\
         s[A].transform_layout(lambda a, b: [a // 2, b, a % 2])\n"
    );
    let run = script::run(&source).unwrap();
    let target = run.target.expect("a schedule");
    let report = te::check(&target.schedule, &target.args, &HashMap::new(), 3).unwrap();
    assert!(report.is_clean(0.0), "{report:?}");
    let a = target
        .args
        .iter()
        .find(|t| t.name() == "A")
        .expect("A is an argument");
    let map = target.schedule.layout(a.op()).unwrap().clone();
    let l = layout::Layout::new(vec![4.into(), 8.into()], Some(map)).unwrap();
    for i in 0..4 {
        for j in 0..8 {
            assert_eq!(
                l.physical_point(&[i, j]).unwrap(),
                [(j / 2) * 8 + i * 2 + j % 2]
            );
        }
    }
}
