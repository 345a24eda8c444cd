#!/usr/bin/env bash
# ONNX Runtime equivalence of onnx-opt -O1 (or the level or pipeline given) on every model
# export.py wrote into MODEL_DIR, or on those whose file name contains SUBSTRING
# (tests/equivalence/run_equivalence.sh, --strict: a model ORT cannot run fails).
# Usage: equivalence.sh ONNX_OPT MODEL_DIR [-O<n> | --passes=PIPELINE | --target=NAME]
#                       [--target-opset=N] [--ort-level=LEVEL] [--only SUBSTRING]
set -euo pipefail
usage() {
  echo "usage: equivalence.sh ONNX_OPT MODEL_DIR [-O<n> | --passes=PIPELINE | --target=NAME]" \
    "[--target-opset=N] [--ort-level=LEVEL] [--only SUBSTRING]" >&2
  exit 2
}
(($# >= 2)) || usage
onnx_opt="$1" model_dir="$2"
shift 2
level=-O1 only=""
extra=()
while (($# > 0)); do
  case "$1" in
    -O[0-9] | --passes=* | --target=*) level="$1" ;;
    --target-opset=*) extra+=(--onnx-opt-arg "$1") ;;
    --ort-level=*) extra+=(--ort-level "${1#*=}") ;;
    --only) (($# >= 2)) || usage; only="$2"; shift ;;
    *) usage ;;
  esac
  shift
done
shopt -s nullglob
models=("$model_dir"/*"$only"*.onnx)
if ((${#models[@]} == 0)); then
  echo "FAIL: no models${only:+ matching '$only'} in $model_dir (the realexports.export test writes them)"
  exit 1
fi
exec bash "$(dirname "${BASH_SOURCE[0]}")/../equivalence/run_equivalence.sh" "$onnx_opt" \
  "$level" "${extra[@]}" --jobs 2 --strict -- "${models[@]}"
