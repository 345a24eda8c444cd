#!/usr/bin/env bash
# The kernel-vs-ONNX-Runtime test (CTest eval.kernels_vs_ort): writes every case with the
# generator, then checks them on ORT. usage: run_kernel_check.sh GENERATOR WORK_DIR [NAME_SUBSTRING]
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source "$here/../equivalence/lib/env.sh"
"$1" "$2" "${3:-}"
node "$here/check_kernels.mjs" "$2" "$here/ort_no_kernel.txt"
