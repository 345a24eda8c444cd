#!/usr/bin/env bash
# Each pass alone at 10k and 100k nodes of a graph where it fires everywhere (BM_Pass in
# pass_benchmarks: CPU time), the folding passes also at 1M, then fold-constants' peak memory
# on a model of foldable weights; prints the tables docs/performance.md records. Instructions
# per node of the same runs: count_instructions.sh BUILD_DIR passes.
#
#   benchmarks/pass_linearity.sh [BUILD_DIR]
#
# BUILD_DIR (default: build) must hold pass_benchmarks and peak_memory (Release or
# RelWithDebInfo). ONNXOPT_PEAK_MIB sets the foldable model's size (default 1024; it needs
# about twice that in temporary files, under ${TMPDIR:-/tmp}). Results (JSON, peak lines) go to
# $ONNXOPT_BENCH_RESULTS (default: a new folder under ${TMPDIR:-/tmp}), which is kept.
set -euo pipefail

BUILD_DIR=${1:-build}
BENCH=$BUILD_DIR/benchmarks/pass_benchmarks
PEAK=$BUILD_DIR/benchmarks/peak_memory
for exe in "$BENCH" "$PEAK"; do
  [[ -x $exe ]] || { echo "missing $exe (build pass_benchmarks and peak_memory)" >&2; exit 1; }
done
RESULTS=${ONNXOPT_BENCH_RESULTS:-$(mktemp -d "${TMPDIR:-/tmp}/onnxopt-pass-linearity.XXXXXX")}
mkdir -p "$RESULTS"
PEAK_MIB=${ONNXOPT_PEAK_MIB:-1024}
PEAK_DIR=$(mktemp -d "${TMPDIR:-/tmp}/onnxopt-peak.XXXXXX")
trap 'rm -rf "$PEAK_DIR"' EXIT
echo "results: $RESULTS; load average before: $(cut -d' ' -f1-3 /proc/loadavg)"

"$BENCH" --benchmark_filter='^BM_Pass/.*/nodes:(10000|100000|1000000)/' \
  --benchmark_out="$RESULTS/pass_benchmarks.json" --benchmark_out_format=json >/dev/null

: > "$RESULTS/peak_memory.txt"
for layout in inline external; do
  "$PEAK" generate "$PEAK_DIR" "$PEAK_MIB" "foldable-$layout" >/dev/null
  "$PEAK" fold "$PEAK_DIR" "$PEAK_MIB" "foldable-$layout" | tee -a "$RESULTS/peak_memory.txt"
  rm -f "$PEAK_DIR"/big_foldable_*
done

python3 - "$RESULTS/pass_benchmarks.json" "$RESULTS/peak_memory.txt" <<'EOF'
import json, sys

runs = json.load(open(sys.argv[1]))["benchmarks"]
rows = {}
for r in runs:
    # "BM_Pass/fold-constants/nodes:10000/iterations:20/manual_time"
    parts = r["name"].split("/")
    pass_name, nodes = parts[1], int(parts[2].split(":")[1])
    rows.setdefault(pass_name, {})[nodes] = r

print("\n| pass | 10k ms | 100k ms | 100k / 10k | 1M / 100k | changes per motif |")
print("|---|---:|---:|---:|---:|---:|")
for name in sorted(rows):
    sizes = rows[name]
    def ms(n):
        r = sizes.get(n)
        return r["real_time"] if r and not r.get("error_occurred") else None
    def ratio(a, b):
        return "{:.1f}x".format(ms(b) / ms(a)) if ms(a) and ms(b) else "-"
    error = next((r["error_message"] for r in sizes.values() if r.get("error_occurred")), "")
    changes = sizes.get(10000, {}).get("changes_per_motif")
    print("| {} | {} | {} | {} | {} | {} |".format(
        name, "{:.2f}".format(ms(10000)) if ms(10000) else "-",
        "{:.2f}".format(ms(100000)) if ms(100000) else "-", ratio(10000, 100000),
        ratio(100000, 1000000), error or ("{:.2f}".format(changes) if changes else "-")))

print("\n| model | max RSS / (model + largest tensor) | max RSS / model |")
print("|---|---:|---:|")
for line in open(sys.argv[2]):
    f = dict(kv.split("=", 1) for kv in line.split())
    print("| {} ({} MiB) | {}x | {}x |".format(f["model"], f["file_MiB"], f["held_ratio"], f["ratio"]))
EOF
