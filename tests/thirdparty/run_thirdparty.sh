#!/usr/bin/env bash
# onnx-opt on the ONNX models of npm packages (packages.txt: background removal, PaddleOCR,
# Silero VAD): ONNX Runtime gives the optimized models' outputs equal to the originals' under
# -O1 and --target=ort (PaddleOCR also raised to opset 17), and -O1 folds the background-removal
# U-Net's shape computations as ONNX Runtime's basic level does. The packages (about 135 MB) are
# downloaded once into OUT_DIR.
# Exit 77 without node (as the equivalence tests).
#   run_thirdparty.sh ONNX_OPT OUT_DIR
set -euo pipefail
onnx_opt=$1
out=$2
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source "$here/../equivalence/lib/env.sh"

mapfile -t models < <(node "$here/fetch.mjs" "$out")
random_inputs=()
silero=()
paddle_ocr=()
for model in "${models[@]}"; do
  case "$(basename "$model")" in
    silero_vad_*.onnx) silero+=("$model") ;;
    ch_*_infer.onnx) paddle_ocr+=("$model") random_inputs+=("$model") ;;
    *) random_inputs+=("$model") ;;
  esac
done
for pipeline in -O1 --target=ort; do
  bash "$equivalence_dir/run_equivalence.sh" "$onnx_opt" "$pipeline" --strict --jobs 2 "${random_inputs[@]}"
done
# PaddleOCR's opset-9 models raised to 17: the Softmax adapter needs a rank only onnx-opt knows.
bash "$equivalence_dir/run_equivalence.sh" "$onnx_opt" --target=ort --onnx-opt-arg --target-opset=17 \
  --strict --jobs 2 "${paddle_ocr[@]}"

work=$(mktemp -d "${TMPDIR:-/tmp}/onnxopt-thirdparty.XXXXXX")
trap 'rm -rf "$work"' EXIT
for model in "${silero[@]}"; do
  "$onnx_opt" -O1 -q "$model" -o "$work/silero.onnx"
  node "$here/silero.mjs" "$model" "$work/silero.onnx"
done

summary=$("$onnx_opt" -O1 "$out/background_removal_medium.onnx" -o "$work/unet.onnx" 2>&1)
for op in Shape Slice; do
  if ! grep -q "op $op: 39 -> 0" <<<"$summary"; then
    echo "FAIL background_removal_medium.onnx: -O1 left $op nodes ORT's basic level folds:"
    echo "$summary"
    exit 1
  fi
done
echo "PASS background_removal_medium.onnx: -O1 folds its 39 Shape and 39 Slice nodes"
