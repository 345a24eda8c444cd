#!/usr/bin/env bash
# Sets up (Debian packages), builds, and runs onnx-opt on examples/legacy_classifier.onnx.
#   BUILD_DIR  build folder (default: build); the demo writes into $BUILD_DIR/demo/
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

bash scripts/setup.sh
bash scripts/build.sh

build_dir=${BUILD_DIR:-build}
# The Python module, where Debian's /usr/bin/python3 imports it from (docs/python-api.md).
cmake --install "$build_dir" --component python --strip >/dev/null
tool="$build_dir/tools/onnx-opt/onnx-opt"
model=examples/legacy_classifier.onnx
out_dir="$build_dir/demo"
mkdir -p "$out_dir"
out="$out_dir/legacy_classifier.O1.onnx"
text="$out_dir/legacy_classifier.O1.txt"

echo
echo "== $("$tool" --version)"
echo "== $model: the legacy exporter form (a Transpose of every weight into Gemm's B, an Expand"
echo "   of every bias into Gemm's C)"
report="$out_dir/report.json"
echo "\$ $tool $model -o $out --pass-statistics --report=$report"
"$tool" "$model" -o "$out" --pass-statistics --report="$report"
echo "   the JSON report for CI (docs/report-schema.md), its model section:"
sed -n '/"model": {/,/^  },/p' "$report" | sed 's/^/   | /'

echo
echo "\$ node tests/equivalence/compare.mjs $model $out   # ONNX Runtime, before vs after"
node tests/equivalence/compare.mjs "$model" "$out"

echo
echo "\$ $tool $out -O0 --emit=text -o $text"
"$tool" "$out" -O0 --emit=text -o "$text" --quiet
echo "   the optimized graph in ONNX text syntax (large initializers summarised):"
grep -v '^ *float\[' "$text" | sed -n '1,30p' | cut -c1-120 | sed 's/^/   | /'

echo
echo "\$ $tool $model -o $out_dir/never.onnx --passes=no-such-pass   # a bad command line"
set +e
"$tool" "$model" -o "$out_dir/never.onnx" --passes=no-such-pass
echo "   exit code $?"
echo "\$ head -c 1000 $model | $tool - -o $out_dir/never.onnx   # a truncated model"
head -c 1000 "$model" | "$tool" - -o "$out_dir/never.onnx"
echo "   exit code $?, and no $out_dir/never.onnx: $(test -e "$out_dir/never.onnx" && echo 'EXISTS' || echo ok)"
set -e
