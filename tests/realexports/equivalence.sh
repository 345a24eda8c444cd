#!/usr/bin/env bash
# ONNX Runtime equivalence of onnx-opt -O1 on every model export.py wrote into MODEL_DIR
# (tests/equivalence/run_equivalence.sh, --strict: a model ORT cannot run fails).
# Usage: equivalence.sh ONNX_OPT MODEL_DIR
set -euo pipefail
if (($# != 2)); then
  echo "usage: equivalence.sh ONNX_OPT MODEL_DIR" >&2
  exit 2
fi
shopt -s nullglob
models=("$2"/*.onnx)
if ((${#models[@]} == 0)); then
  echo "FAIL: no models in $2 (the realexports.export test writes them)"
  exit 1
fi
exec bash "$(dirname "${BASH_SOURCE[0]}")/../equivalence/run_equivalence.sh" "$1" \
  --jobs 2 --strict -- "${models[@]}"
