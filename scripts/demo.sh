#!/usr/bin/env bash
# Sets up (Debian packages), builds, and runs onnx-opt on examples/legacy_classifier.onnx.
#   BUILD_DIR  build folder (default: build); the demo writes into $BUILD_DIR/demo/
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

bash scripts/setup.sh
bash scripts/build.sh

build_dir=${BUILD_DIR:-build}
tool="$build_dir/tools/onnx-opt/onnx-opt"
model=examples/legacy_classifier.onnx
out_dir="$build_dir/demo"
mkdir -p "$out_dir"
out="$out_dir/legacy_classifier.O0.onnx"
text="$out_dir/legacy_classifier.O0.txt"

echo
echo "== $("$tool" --version)"
echo "== $model: $(stat -c %s "$model") bytes"
echo "\$ $tool $model -O0 -o $out"
"$tool" "$model" -O0 -o "$out"
echo "   loaded, verified (ir::verify) and saved; no passes at -O0"
if cmp -s "$model" "$out"; then
  echo "   $out: $(stat -c %s "$out") bytes, identical to the input (an empty pipeline gives back the same bytes)"
else
  echo "   $out differs from the input" >&2
  exit 1
fi

echo
echo "\$ $tool $model -O0 --emit=text -o $text"
"$tool" "$model" -O0 --emit=text -o "$text"
echo "   the graph in ONNX text syntax (large initializers summarized), first lines:"
sed -n '1,40p' "$text" | cut -c1-120 | sed 's/^/   | /'
echo "   ... ($(wc -l <"$text") lines in $text)"

echo
echo "\$ $tool $model -o $out_dir/never.onnx --emit=xml   # a bad command line"
set +e
"$tool" "$model" -o "$out_dir/never.onnx" --emit=xml
echo "   exit code $?"
echo "\$ head -c 1000 $model | $tool - -o $out_dir/never.onnx   # a truncated model"
head -c 1000 "$model" | "$tool" - -o "$out_dir/never.onnx"
echo "   exit code $?, and no $out_dir/never.onnx: $(test -e "$out_dir/never.onnx" && echo 'EXISTS' || echo ok)"
set -e
