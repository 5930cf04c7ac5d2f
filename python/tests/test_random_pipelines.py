"""Random TE programs built from Python give exactly the report the command
gives for the same program printed as a script."""

import json
import random

import pytest

import rangefinder
from rangefinder.tvm import te

CASES = 40


class Program:
    """Builds a random pipeline through rangefinder.tvm and writes the same
    program as a script, step by step."""

    def __init__(self, rng):
        self.rng = rng
        self.lines = ["import tvm", "from tvm import te", ""]
        self.ns = {}

    def emit(self, line, value=None, name=None):
        self.lines.append(line)
        if name is not None:
            self.ns[name] = value
        return value

    def build(self):
        rng = self.rng
        n = rng.randint(4, 12)
        m = rng.randint(4, 12)
        a = self.emit(f'A = te.placeholder(({n}, {m}), name="A")', te.placeholder((n, m), name="A"), "A")
        tensors = [("A", a)]
        for k in range(rng.randint(1, 4)):
            name = f"S{k}"
            src_name, src = tensors[-1]
            dx, dy = rng.randint(0, 2), rng.randint(0, 2)
            rows, cols = n - (k + 1) * 2, m - (k + 1) * 2
            if rows < 1 or cols < 1:
                break
            if rng.random() < 0.3:
                r = te.reduce_axis((0, 3), name=f"r{k}")
                self.emit(f'r{k} = te.reduce_axis((0, 3), name="r{k}")', r, f"r{k}")
                t = te.compute((rows, cols), lambda i, j: te.sum(src[i + r, j + dy], axis=r), name=name)
                text = (f'{name} = te.compute(({rows}, {cols}), lambda i, j: '
                        f'te.sum({src_name}[i + r{k}, j + {dy}], axis=r{k}), name="{name}")')
            else:
                t = te.compute((rows, cols), lambda i, j: src[i + dx, j + dy] * 2.0 + src[i, j], name=name)
                text = (f'{name} = te.compute(({rows}, {cols}), lambda i, j: '
                        f'{src_name}[i + {dx}, j + {dy}] * 2.0 + {src_name}[i, j], name="{name}")')
            self.emit(text, t, name)
            tensors.append((name, t))
        out_name, out = tensors[-1]
        s = self.emit(f"s = te.create_schedule({out_name}.op)", te.create_schedule(out.op), "s")
        ax = out.op.axis
        xo, xi = s[out].split(ax[0], factor=rng.randint(2, 5))
        self.emit(f"xo, xi = s[{out_name}].split({out_name}.op.axis[0], factor={xi_factor(self, xo)})")
        axes = [("xo", xo), ("xi", xi), (f"{out_name}.op.axis[1]", ax[1])]
        if rng.random() < 0.5:
            fused = s[out].fuse(xi, ax[1])
            self.emit(f"fused = s[{out_name}].fuse(xi, {out_name}.op.axis[1])")
            axes = [("xo", xo), ("fused", fused)]
        # Producers last to first: a producer may go inside the loops its
        # consumer runs in, never inside loops its consumer is outside of.
        allowed = axes  # where the current stage's consumer lets it attach
        for name, t in reversed(tensors[1:-1]):
            choice = rng.random()
            if choice < 0.4 and allowed:
                at_name, at = rng.choice(allowed)
                s[t].compute_at(s[out], at)
                self.emit(f"s[{name}].compute_at(s[{out_name}], {at_name})")
                allowed = [(at_name, at)]
            elif choice < 0.6 and not t.op.reduce_axis:
                s[t].compute_inline()
                self.emit(f"s[{name}].compute_inline()")
            else:
                allowed = []
        args = [a, out]
        self.emit(f"print(tvm.lower(s, [A, {out_name}], simple_mode=True))")
        return s, args


def xi_factor(program, xo):
    # The factor used for the split just made: read back from the relation.
    s = program.ns["s"]
    for st in s.stages:
        for r in st.relations:
            if hasattr(r, "factor") and r.outer == xo:
                return r.factor.value
    raise AssertionError("split not found")


@pytest.mark.parametrize("seed", range(CASES))
def test_python_program_matches_its_script(seed, tmp_path, cli):
    program = Program(random.Random(seed))
    s, args = program.build()
    path = tmp_path / f"case{seed}.py"
    path.write_text("\n".join(program.lines) + "\n")
    expected = cli("te", path, "--run", "--json")
    assert expected.returncode == 0, expected.stderr
    assert rangefinder.report(s, args, run=True) == json.loads(expected.stdout)
