#!/usr/bin/env bash
# A model ONNX Runtime cannot run until onnx-opt repairs it. ORT must fail MODEL on the stored
# data of DATA_DIR with a message containing BEFORE_TEXT (it refuses to load it, or computes other
# outputs than the stored ones); after `onnx-opt -O1` it must load the result and compute the
# stored outputs. Exit 0 when both hold, 1 otherwise, 77 without node.
#
# Usage: run_repair.sh ONNX_OPT MODEL.onnx DATA_DIR BEFORE_TEXT
#   DATA_DIR holds test_data_set_N/{input,output}_K.pb, as ONNX's backend test data does.
set -euo pipefail
if (($# != 4)); then
  sed -n '2,8p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'
  exit 2
fi
source "$(dirname "${BASH_SOURCE[0]}")/lib/env.sh"
onnx_opt="$1" model="$2" data="$3" before_text="$4"
compare() { node "$equivalence_dir/compare.mjs" "$@" --expected-dir "$data" 2>&1; }

status=0
before="$(compare "$model")" || status=$?
# 1: ORT runs it but gets other outputs; 2: ORT refuses it. 0 would leave nothing to repair, and
# 3 is a broken harness.
if ((status != 1 && status != 2)) || [[ "$before" != *"$before_text"* ]]; then
  echo "FAIL $model: expected ORT to fail it with '$before_text', got (exit $status): $before"
  exit 1
fi
echo "before: $before"

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
if ! "$onnx_opt" -O1 "$model" -o "$tmp/repaired.onnx" 2>"$tmp/onnx-opt.txt"; then
  echo "FAIL $model: onnx-opt -O1 failed:"
  cat "$tmp/onnx-opt.txt"
  exit 1
fi
sed 's/^/onnx-opt: /' "$tmp/onnx-opt.txt"
if ! after="$(compare "$tmp/repaired.onnx")"; then
  echo "FAIL $model: after onnx-opt -O1: $after"
  exit 1
fi
echo "after: $after"
echo "PASS $model"
