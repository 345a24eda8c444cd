#!/usr/bin/env bash
# Optimizes each model with onnx-opt and checks it against the original with ONNX Runtime on
# seeded random inputs. One line per model (PASS / FAIL: why / ORT-CANNOT-RUN: reason), then
# "N passed, M failed, K skipped". Exit 0 when nothing failed, 1 otherwise, 77 without node.
#
# Usage: run_equivalence.sh ONNX_OPT [-O<n>] [--passes=PIPELINE] [--target=NAME] [--strict] [--seed N]
#                           [--runs K] [--jobs J] [--keep-dir DIR] [--ort-level L] MODEL.onnx...
#   The pipeline defaults to -O1. --strict makes a model that
#   ORT cannot run a failure instead of a skip. --ort-level: ORT's graph optimization level
#   (disabled, the default, basic, extended or all). More in docs/equivalence.md.
set -euo pipefail
if (($# < 1)) || [[ "$1" == -h || "$1" == --help ]]; then
  sed -n '2,10p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'
  exit $(( $# < 1 ? 2 : 0 ))
fi
source "$(dirname "${BASH_SOURCE[0]}")/lib/env.sh"
onnx_opt="$1"
shift
exec node "$equivalence_dir/run.mjs" --onnx-opt "$onnx_opt" "$@"
