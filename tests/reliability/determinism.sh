#!/usr/bin/env bash
# Determinism: `onnx-opt -O1` twice, in two processes, on every model under the given folders
# must give byte-identical output (or fail the same way). absl's hash seed comes from a global's
# address, so each process hashes differently under ASLR; the second run also runs with ASLR off
# where the kernel allows it, so no two runs share a seed by accident. Extra onnx-opt arguments
# go after `--`.
#
# Usage: determinism.sh ONNX_OPT DIR... [-- ARG...]
set -euo pipefail
(($# >= 2)) || { sed -n '2,8p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 2; }
onnx_opt=$1
shift
dirs=()
while (($#)) && [[ $1 != -- ]]; do dirs+=("$1"); shift; done
(($#)) && shift
extra=("$@")

no_aslr=()
if setarch "$(uname -m)" -R true 2>/dev/null; then no_aslr=(setarch "$(uname -m)" -R); fi

work=$(mktemp -d "${TMPDIR:-/tmp}/onnxopt-determinism.XXXXXX")
trap 'rm -rf "$work"' EXIT

# Prints "same" or "DIFFERENT <model>: <why>" for one model.
check_one() {
  local model=$1 key
  key=$(printf '%s' "$model" | md5sum | cut -c1-16)
  local a="$work/$key.a.onnx" b="$work/$key.b.onnx" rc_a=0 rc_b=0
  "$onnx_opt" "$model" -O1 -q -o "$a" "${extra[@]}" 2>"$work/$key.a.err" || rc_a=$?
  "${no_aslr[@]}" "$onnx_opt" "$model" -O1 -q -o "$b" "${extra[@]}" 2>"$work/$key.b.err" || rc_b=$?
  if ((rc_a != rc_b)); then
    echo "DIFFERENT $model: exit $rc_a then $rc_b"
  elif ((rc_a != 0)); then
    if cmp -s "$work/$key.a.err" "$work/$key.b.err"; then echo same; else echo "DIFFERENT $model: error messages differ"; fi
  elif ! cmp -s "$a" "$b"; then
    echo "DIFFERENT $model: outputs differ ($(cmp "$a" "$b" 2>&1 | head -1))"
  else
    echo same
  fi
  rm -f "$a" "$b" "$work/$key.a.err" "$work/$key.b.err"
}
export -f check_one
export onnx_opt work
export no_aslr_text="${no_aslr[*]}"

mapfile -t models < <(find "${dirs[@]}" -name '*.onnx' -type f | sort)
((${#models[@]})) || { echo "no models under ${dirs[*]}" >&2; exit 1; }

results=$(printf '%s\0' "${models[@]}" |
  xargs -0 -n 1 -P "${JOBS:-2}" bash -c '
    no_aslr=($no_aslr_text); extra=('"$(printf '%q ' "${extra[@]}")"')
    check_one "$1"' _)
different=$(grep -c '^DIFFERENT' <<<"$results" || true)
grep '^DIFFERENT' <<<"$results" || true
echo "${#models[@]} models, $different not deterministic"
((different == 0))
