#!/usr/bin/env bash
# Runs every program of examples/te/programs unchanged, with `--run`,
# through both front ends: `rangefinder te FILE --run` (the embedded
# interpreter) and `python -m rangefinder.tvm FILE --run` (CPython, in the
# virtual environment scripts/test.sh builds). Prints one line per program
# (pass, or the first line of the error per front end), then the figures.
#
# A program that is refused (an API rangefinder does not have yet: exit 2)
# is counted, not failed. Exit code 1 when any run crashes (a panic, exit
# code 101, a signal, a time-out) or finds a wrong value (`--run` reports a
# mismatch: exit code 1, or a value check of the script fails); else 0.
#
# Usage: bash scripts/te_programs.sh [PROGRAM.py ...]
# Environment: RANGEFINDER_BIN (default target/debug/rangefinder, built if
# absent), RANGEFINDER_PYTHON (default target/python-venv/bin/python).
set -uo pipefail
cd "$(dirname "$0")/.."
root=$PWD

bin=${RANGEFINDER_BIN:-$root/target/debug/rangefinder}
if [ ! -x "$bin" ]; then
  cargo build -q -p cli || exit 1
fi
python=${RANGEFINDER_PYTHON:-$root/target/python-venv/bin/python}
have_python=1
if ! [ -x "$python" ] || ! "$python" -c "import rangefinder.tvm" 2>/dev/null; then
  have_python=0
  echo "note: $python cannot import rangefinder.tvm (run scripts/test.sh once); CPython is not measured"
fi

if [ $# -gt 0 ]; then
  programs=("$@")
else
  programs=(examples/te/programs/*.py)
fi
total=${#programs[@]}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# classify NAME CODE STDOUT STDERR: sets `verdict` (pass, refused, crash,
# wrong) and `why` (the first line that says what happened).
classify() {
  local code=$2 out=$3 err=$4
  why=""
  if [ "$code" -eq 0 ]; then
    verdict=pass
    return
  fi
  if [ "$code" -eq 124 ]; then
    verdict=crash
    why="timed out after 60 s"
  elif [ "$code" -eq 101 ] || [ "$code" -gt 128 ] || grep -q -e 'panicked at' -e 'PanicException' "$err"; then
    verdict=crash
    why=$(grep -m1 -e 'panicked at' -e 'PanicException' "$err")
    [ -n "$why" ] || why="killed by a signal (exit code $code)"
  elif [ "$code" -eq 1 ] && grep -q '^run (seed' "$out"; then
    verdict=wrong
    why="--run found a mismatch: $(grep -m1 -i -e 'mismatch' -e 'largest' "$out")"
  elif [ "$code" -eq 1 ]; then
    # Not a report: the interpreter itself failed (CPython exits 1 when
    # the module cannot be found or imported).
    verdict=crash
    why="exit code 1 without a report: $(grep -v '^\s*$' "$err" | tail -1)"
  elif grep -q -e 'Not equal to tolerance' -e 'Mismatched elements' "$err"; then
    verdict=wrong
    why="a value check failed: $(grep -m1 -e 'Not equal to tolerance' -e 'Mismatched elements' "$err")"
  else
    verdict=refused
    if grep -q '^Traceback' "$err"; then
      # CPython: the exception is the last line of the traceback.
      why=$(grep -v '^\s*$' "$err" | grep -v '^\s*[~^]*\s*$' | tail -1)
    else
      why=$(grep -v '^\s*$' "$err" | head -1)
    fi
  fi
}

te_pass=0
py_pass=0
bad=0
for f in "${programs[@]}"; do
  name=$(basename "$f")
  timeout 60 "$bin" te "$f" --run >"$tmp/te.out" 2>"$tmp/te.err"
  classify "$name" $? "$tmp/te.out" "$tmp/te.err"
  te_verdict=$verdict te_why=$why
  [ "$te_verdict" = pass ] && te_pass=$((te_pass + 1))
  [ "$te_verdict" = refused ] && echo "$te_why" | cut -c1-100 >>"$tmp/te.refused"
  if [ $have_python = 1 ]; then
    timeout 60 "$python" -m rangefinder.tvm "$f" --run >"$tmp/py.out" 2>"$tmp/py.err"
    classify "$name" $? "$tmp/py.out" "$tmp/py.err"
  else
    verdict=skipped why=""
  fi
  py_verdict=$verdict py_why=$why
  [ "$py_verdict" = pass ] && py_pass=$((py_pass + 1))
  [ "$py_verdict" = refused ] && echo "$py_why" | cut -c1-100 >>"$tmp/py.refused"
  line=$(printf '%-7s %-7s %s' "$te_verdict" "$py_verdict" "$name")
  [ -n "$te_why" ] && line="$line | te: $te_why"
  [ -n "$py_why" ] && line="$line | cpython: $py_why"
  echo "$line"
  for v in "$te_verdict" "$py_verdict"; do
    case $v in crash | wrong) bad=$((bad + 1)) ;; esac
  done
done

# What stops the refused programs, most common first.
for fe in te py; do
  if [ -s "$tmp/$fe.refused" ]; then
    [ $fe = te ] && echo "refused under rangefinder te, by first error:" || echo "refused under CPython, by first error:"
    sort "$tmp/$fe.refused" | uniq -c | sort -rn
  fi
done
if [ $have_python = 1 ]; then
  echo "$te_pass/$total run unchanged under rangefinder te with --run clean; $py_pass/$total under CPython"
else
  echo "$te_pass/$total run unchanged under rangefinder te with --run clean; CPython not measured"
fi
if [ $bad -gt 0 ]; then
  echo "$bad runs crashed or found a wrong value"
  exit 1
fi
exit 0
