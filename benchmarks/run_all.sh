#!/usr/bin/env bash
# Runs the whole benchmark suite and prints the table docs/performance.md records.
#
#   benchmarks/run_all.sh [BUILD_DIR] [extra ir_benchmarks flags...]
#
# BUILD_DIR (default: build) must hold ir_benchmarks and peak_memory, built with
# CMAKE_BUILD_TYPE=Release. Generated models go to $ONNXOPT_BENCH_DIR (default: a new folder
# under ${TMPDIR:-/tmp}), about 6 GiB at peak; results (JSON and the peak-memory lines) go to
# $ONNXOPT_BENCH_RESULTS (default: <that folder>/results), which is kept.
# Sizes can be narrowed with ONNXOPT_BENCH_NODES / ONNXOPT_BENCH_BIG_MIB (see ir_benchmarks.cc)
# and ONNXOPT_PEAK_MIB (peak-memory model size in MiB, default 1024).
set -euo pipefail

BUILD_DIR=${1:-build}
shift || true
BENCH=$BUILD_DIR/benchmarks/ir_benchmarks
PEAK=$BUILD_DIR/benchmarks/peak_memory
for exe in "$BENCH" "$PEAK"; do
  [[ -x $exe ]] || { echo "missing $exe (build the ir_benchmarks and peak_memory targets)" >&2; exit 1; }
done

WORK=${ONNXOPT_BENCH_DIR:-$(mktemp -d "${TMPDIR:-/tmp}/onnxopt-bench-run.XXXXXX")}
mkdir -p "$WORK"
RESULTS=${ONNXOPT_BENCH_RESULTS:-$WORK/results}
mkdir -p "$RESULTS"
PEAK_MIB=${ONNXOPT_PEAK_MIB:-1024}
PEAK_DIR=$WORK/peak
mkdir -p "$PEAK_DIR"
trap 'rm -rf "$PEAK_DIR"' EXIT

{
  echo "date: $(date -u '+%Y-%m-%d %H:%M UTC')"
  echo "host: $(uname -srm), $(nproc) cores, $(awk '/MemTotal/ {printf "%.1f GiB", $2/1048576}' /proc/meminfo)"
  echo "cpu: $(awk -F': ' '/model name/ {print $2; exit}' /proc/cpuinfo)"
  repo=$(dirname "$0")/..
  dirty=$(git -C "$repo" status --porcelain 2>/dev/null | wc -l)
  echo "commit: $(git -C "$repo" rev-parse --short HEAD 2>/dev/null || echo unknown)$( ((dirty)) && echo "  + $dirty uncommitted or untracked paths")"
  echo "load average before the run: $(cut -d' ' -f1-3 /proc/loadavg)"
  echo "files: $WORK ($(df -T "$WORK" | awk 'NR==2 {print $2}'))"
} | tee "$RESULTS/machine.txt"

echo "== ir_benchmarks"
ONNXOPT_BENCH_DIR=$WORK "$BENCH" \
  --benchmark_out="$RESULTS/ir_benchmarks.json" --benchmark_out_format=json \
  --benchmark_counters_tabular=true "$@"

echo "== peak_memory (one process per scenario, ${PEAK_MIB} MiB of weights)"
: > "$RESULTS/peak_memory.txt"
"$PEAK" generate "$PEAK_DIR" "$PEAK_MIB" inline
"$PEAK" generate "$PEAK_DIR" "$PEAK_MIB" external
for scenario in copy floor loadsave loadsave-bytes; do
  "$PEAK" "$scenario" "$PEAK_DIR" "$PEAK_MIB" inline | tee -a "$RESULTS/peak_memory.txt"
done
for scenario in floor loadsave; do
  "$PEAK" "$scenario" "$PEAK_DIR" "$PEAK_MIB" external | tee -a "$RESULTS/peak_memory.txt"
done

echo "== summary"
python3 - "$RESULTS/ir_benchmarks.json" "$RESULTS/peak_memory.txt" <<'EOF'
import json, re, sys

runs = json.load(open(sys.argv[1]))["benchmarks"]
by_name = {}
for r in runs:
    if r.get("run_type", "iteration") != "iteration" or r.get("error_occurred"):
        continue
    # "BM_Load/nodes:1000/manual_time" -> ("BM_Load", "nodes:1000")
    parts = r["name"].split("/")
    key = "/".join(p for p in parts[1:] if not p.startswith(("manual_time", "iterations:", "min_time:")))
    by_name[(parts[0], key)] = r

def ms(r):
    return r["real_time"] * {"ns": 1e-6, "us": 1e-3, "ms": 1.0, "s": 1e3}[r["time_unit"]]

def cell(bench, key, fmt="{:.2f}"):
    r = by_name.get((bench, key))
    return fmt.format(ms(r)) if r else "-"

def ratio(bench, key):
    # wall-clock ratio / CPU-time ratio
    r = by_name.get((bench, key))
    if not r or "x_floor" not in r:
        return "-"
    return "{:.2f}x / {:.2f}x".format(r["x_floor"], r.get("x_floor_cpu", float("nan")))

sizes = sorted({k for (b, k) in by_name if k.startswith("nodes:")}, key=lambda k: int(k.split(":")[1]))
print("\nSynthetic graphs (wall ms per iteration; ratios to the protobuf floor of the same run, wall / CPU)")
print("| nodes | floor ms | load ms | verify ms | save ms | load+verify+save ms | ratio | ns/node (l+v+s) | ns/node (floor) |")
print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
for k in sizes:
    lvs = by_name.get(("BM_LoadVerifySave", k))
    fl = by_name.get(("BM_ProtobufFloor", k))
    print("| {} | {} | {} ({}) | {} ({}) | {} ({}) | {} | {} | {} | {} |".format(
        k.split(":")[1], cell("BM_ProtobufFloor", k),
        cell("BM_Load", k), ratio("BM_Load", k),
        cell("BM_Verify", k), ratio("BM_Verify", k),
        cell("BM_Save", k), ratio("BM_Save", k),
        cell("BM_LoadVerifySave", k), ratio("BM_LoadVerifySave", k),
        "{:.0f}".format(lvs["ns_per_node"]) if lvs and "ns_per_node" in lvs else "-",
        "{:.0f}".format(fl["ns_per_node"]) if fl and "ns_per_node" in fl else "-"))

big = sorted({k for (b, k) in by_name if k.startswith(("inline/", "external/"))},
             key=lambda k: (k.startswith("external"), int(k.split(":")[1])))
print("\nBig-weights models, files (wall ms per iteration; ratios to the protobuf floor of the same run, wall / CPU)")
print("| model | floor ms | file copy ms (ratio) | load+save ms | ratio |")
print("|---|---:|---:|---:|---:|")
for k in big:
    print("| {} | {} | {} ({}) | {} | {} |".format(
        k, cell("BM_ProtobufFloorFile", k), cell("BM_FileCopy", k), ratio("BM_FileCopy", k),
        cell("BM_LoadSaveFile", k), ratio("BM_LoadSaveFile", k)))
for k in big:
    if ("BM_LoadSaveBytes", k) in by_name:
        print("\nIn memory, {}: ParseFromString+SerializeToString {} ms, loadModelFromBytes+saveModelToBytes {} ms ({})".format(
            k, cell("BM_ProtobufFloorBytes", k), cell("BM_LoadSaveBytes", k), ratio("BM_LoadSaveBytes", k)))

print("\nPeak memory (max RSS / file size, one process per scenario)")
print("| model | scenario | file MiB | max RSS MiB | ratio |")
print("|---|---|---:|---:|---:|")
for line in open(sys.argv[2]):
    f = dict(kv.split("=", 1) for kv in line.split())
    print("| {} | {} | {} | {} | {}x |".format(f["model"], f["scenario"], f["file_MiB"], f["max_rss_MiB"], f["ratio"]))
EOF
