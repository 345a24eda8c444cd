#!/usr/bin/env bash
# A model whose outputs on chosen inputs (NaN, infinities, signed zeros: what random inputs never
# hold) are stored beside it: ONNX Runtime must compute the stored outputs for MODEL and for
# MODEL optimized by PIPELINE. Exit 0 when both do, 1 otherwise, 77 without node.
#
# Usage: run_expected.sh ONNX_OPT MODEL.onnx DATA_DIR PIPELINE_ARG...
#   DATA_DIR holds test_data_set_N/{input,output}_K.pb, as ONNX's backend test data does.
set -euo pipefail
if (($# < 4)); then
  sed -n '2,7p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'
  exit 2
fi
source "$(dirname "${BASH_SOURCE[0]}")/lib/env.sh"
onnx_opt="$1" model="$2" data="$3"
shift 3

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
if ! "$onnx_opt" "$@" "$model" -o "$tmp/optimized.onnx" 2>"$tmp/onnx-opt.txt"; then
  echo "FAIL $model: onnx-opt $* failed:"
  cat "$tmp/onnx-opt.txt"
  exit 1
fi
sed 's/^/onnx-opt: /' "$tmp/onnx-opt.txt"
if ! result="$(node "$equivalence_dir/compare.mjs" "$model" "$tmp/optimized.onnx" --expected-dir "$data" 2>&1)"; then
  echo "FAIL $model: $result"
  exit 1
fi
echo "$result"
echo "PASS $model"
