//! numpy's one-dimensional arrays in `rangefinder te`'s interpreter, as
//! TOPI's `conv` computes with them: `tests/numpy/arrays.py` prints what
//! CPython with numpy prints for it (`arrays.out`, CPython's output). The
//! rest of numpy still says to run the script under CPython.

const ARRAYS: &str = include_str!("numpy/arrays.py");
const CPYTHON: &str = include_str!("numpy/arrays.out");

#[test]
fn arrays_compute_what_numpy_computes() {
    let run = script::run(ARRAYS).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(run.printed, CPYTHON);
}

#[test]
fn the_rest_of_numpy_needs_cpython() {
    for (source, what) in [
        (
            "import numpy as np\nx = np.zeros(3)\n",
            "`np.zeros(3)` needs CPython",
        ),
        (
            "import numpy as np\nx = np.array([[1, 2], [3, 4]])\n",
            "nested sequences (an array of several dimensions) needs CPython",
        ),
        (
            "import numpy as np\nx = np.array([1, 2], dtype='int64')\n",
            "an array of a given `dtype` needs CPython",
        ),
        (
            "import numpy as np\nx = np.array([1, 2]).sum()\n",
            "`ndarray.sum` needs CPython",
        ),
        (
            "import numpy as np\na = np.array([1, 2])\na[0] = [a]\n",
            "an array element that is a sequence needs CPython",
        ),
        (
            "from numpy import random\nx = random.uniform(size=3)\n",
            "`random.uniform` needs CPython",
        ),
    ] {
        let message = match script::run(source) {
            Ok(_) => panic!("expected an error for:\n{source}"),
            Err(e) => e.message,
        };
        assert!(message.contains(what), "`{message}` should say `{what}`");
    }
}

#[test]
fn views_of_views_with_huge_steps_do_not_overflow() {
    let run = script::run(
        "\
import numpy as np
a = np.array([1, 2, 3])
v = a[::2**62][::2**62][::-2**62]
v[0] = 9
print(a.tolist(), v.tolist(), a[::-1][::-1][1:].tolist())
",
    )
    .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(run.printed, "[9, 2, 3] [9] [2, 3]\n");
}

#[test]
fn topi_conv_layout_permutations_index_tensors() {
    // `filt.__getitem__(tuple(np.array([...])[perm]))`, as TOPI's `conv`
    // reads its kernel in any layout.
    let run = script::run(
        "\
import numpy as np
import tvm
from tvm import te
A = te.placeholder((2, 3, 4), name='A')
perm = np.argsort([2, 0, 1])
B = te.compute((3, 4, 2), lambda *i: A.__getitem__(tuple(np.array(list(i))[perm])) * 2, name='B')
print(B.op.body[0])
",
    )
    .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(run.printed.trim(), "A[i1, i2, i0] * 2");
}
