#!/usr/bin/env bash
# Optimizes every model of ONNX's backend test data (Debian's libonnx-testdata,
# /usr/share/libonnx-testdata/data/**/model.onnx) with onnx-opt, runs it with ONNX Runtime on
# its test_data_set_0 inputs and compares with the stored expected outputs and, tightly, with
# ORT's outputs for the original. Models ORT cannot run are listed with the reason; that set
# must equal ort_cannot_run.txt (a new one is a failure). Last line: "N passed, M failed,
# K skipped". Exit 0 when nothing failed, 1 otherwise, 77 without node.
#
# Usage: run_corpus.sh ONNX_OPT [-O<n>] [--passes=PIPELINE] [--jobs J] [--filter SUBSTRING]
#                      [--update-expectations] [--verbose] [--keep-dir DIR] [--data DIR]
set -euo pipefail
if (($# < 1)) || [[ "$1" == -h || "$1" == --help ]]; then
  sed -n '2,10p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'
  exit $(( $# < 1 ? 2 : 0 ))
fi
source "$(dirname "${BASH_SOURCE[0]}")/lib/env.sh"
onnx_opt="$1"
shift
exec node "$equivalence_dir/run.mjs" --corpus --onnx-opt "$onnx_opt" "$@"
