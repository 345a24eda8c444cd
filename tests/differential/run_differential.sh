#!/usr/bin/env bash
# Differential test of the passes: generates a batch of random valid graphs, optimizes them and
# compares each with its original under ONNX Runtime (see README.md beside this script).
#
# Usage: run_differential.sh DIFF_DRIVER [--pipeline P | --each-pass] [--seed S] [--count N]
#                            [--jobs J] [--keep-dir DIR] [--fix-dims] [--target-opset N]
#   --pipeline P -O1 (default), -O2, target=ort, or pipeline text
#   --each-pass  every registered pass alone on every graph
#   --seed S     seed of the batch (default 1); graph i is the same for the same (S, i)
#   --count N    graphs in the batch (default 300)
#   --jobs J     parallel diff_driver and ORT processes (default 2)
#   --keep-dir D keep the models in D/models and the optimized ones in D/optimized
#   --fix-dims   fix each graph's symbolic dims (as --dim does) and its inputs' unnamed dims (as
#                --input-shape does) first, to one run's sizes
#   --target-opset N  raise each graph below opset N to N first, where ONNX 1.12's converter can
# Fails when a graph mismatches, onnx-opt fails on one, the generator makes an invalid one, or a
# pass that ran fired in no graph. Exit 77 (skip) only when node is missing.
set -euo pipefail
if (($# < 1)) || [[ "$1" == -h || "$1" == --help ]]; then
  sed -n '2,16p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'
  exit $(( $# < 1 ? 2 : 0 ))
fi
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source "$here/../equivalence/lib/env.sh"
driver="$1"
shift
seed=1 count=300 jobs=2 keep="" mode=(--pipeline -O1) fix_dims=() target_opset=()
while (($#)); do
  case "$1" in
    --seed) seed="$2"; shift 2 ;;
    --count) count="$2"; shift 2 ;;
    --jobs) jobs="$2"; shift 2 ;;
    --keep-dir) keep="$2"; shift 2 ;;
    --pipeline) mode=(--pipeline "$2"); shift 2 ;;
    --each-pass) mode=(--each-pass); shift ;;
    --fix-dims) fix_dims=(--fix-dims); shift ;;
    --target-opset) target_opset=(--target-opset "$2"); shift 2 ;;
    *) echo "run_differential.sh: unknown argument '$1'" >&2; exit 2 ;;
  esac
done
if [[ -n "$keep" ]]; then
  work="$keep"
  rm -rf "$work/models" "$work/optimized"
else
  work="$(mktemp -d "${TMPDIR:-/tmp}/onnxopt-differential.XXXXXX")"
  trap 'rm -rf "$work"' EXIT
fi
mkdir -p "$work/models" "$work/optimized"
start=$(date +%s%N)
generated=0
/usr/bin/python3 "$here/gen_graphs.py" --seed "$seed" --count "$count" --out "$work/models" || generated=$?
echo "generator: $(( ($(date +%s%N) - start) / 1000000 )) ms"
status=0
node "$here/run_differential.mjs" --driver "$driver" --models "$work/models" --work "$work/optimized" \
  --jobs "$jobs" "${mode[@]}" "${fix_dims[@]}" "${target_opset[@]}" --require-fires || status=$?
if ((generated != 0)); then
  echo "FAIL: the generator made invalid graphs (INVALID lines above)"
  exit 1
fi
exit "$status"
