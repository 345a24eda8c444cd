#!/usr/bin/env bash
# scripts/new-pass.sh makes a pass that compiles, a golden file and a docs page, and registers
# the pass once, before the named pipelines.
#   new_pass_test.sh SOURCE_DIR CXX
set -euo pipefail
source_dir=$1
cxx=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/passes" "$work/tests/passes" "$work/docs/passes"
cp "$source_dir/passes/passes.def" "$work/passes/"

ROOT_DIR=$work bash "$source_dir/scripts/new-pass.sh" fold-test-thing Relu >/dev/null
for f in passes/fold_test_thing.cc tests/passes/fold-test-thing.onnxtxt docs/passes/fold-test-thing.md; do
  [[ -s $work/$f ]] || { echo "FAIL: $f not created"; exit 1; }
done
[[ $(grep -c 'ONNXOPT_PASS("fold-test-thing", createFoldTestThingPass' "$work/passes/passes.def") == 1 ]] \
  || { echo "FAIL: not registered once"; exit 1; }
pass_line=$(grep -n 'fold-test-thing' "$work/passes/passes.def" | cut -d: -f1)
pipeline_line=$(grep -n '^ONNXOPT_PIPELINE' "$work/passes/passes.def" | head -1 | cut -d: -f1)
((pass_line < pipeline_line)) || { echo "FAIL: registered after the pipelines"; exit 1; }
"$cxx" -std=c++17 -fsyntax-only -DONNX_ML=1 -DONNX_NAMESPACE=onnx -I"$source_dir/include" \
  "$work/passes/fold_test_thing.cc" || { echo "FAIL: the generated pass does not compile"; exit 1; }
if ROOT_DIR=$work bash "$source_dir/scripts/new-pass.sh" fold-test-thing Relu 2>/dev/null; then
  echo "FAIL: a second run must refuse"
  exit 1
fi
echo "new-pass.sh: 1 passed, 0 failed"
