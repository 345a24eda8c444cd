#!/usr/bin/env bash
# Runs check_fusions.py once onnxruntime-node is in place (tests/equivalence/lib/env.sh: exit
# 77 without node). Usage: run.sh ONNX_OPT PYTHON WORK_DIR [--only SUBSTRING]
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../equivalence/lib/env.sh"
onnx_opt="$1" python="$2" work_dir="$3"
shift 3
exec "$python" "$(dirname "${BASH_SOURCE[0]}")/check_fusions.py" "$onnx_opt" "$equivalence_dir/compare.mjs" \
  "$work_dir" "$@"
