#!/usr/bin/env bash
# Instructions per node, counted by valgrind's callgrind: linearity measured without the caches,
# whose misses make time per node grow once a graph outgrows them (docs/performance.md). Two
# tables: the -O1 pipeline (PassManager::run, model loading excluded) on pass_benchmarks' three
# shapes, and load+verify+save (destruction included) next to protobuf's parse+serialize of
# ir_benchmarks' synthetic graphs.
#
#   benchmarks/count_instructions.sh [BUILD_DIR] [NODES...]
#   benchmarks/count_instructions.sh BUILD_DIR passes [PASS...]
#
# BUILD_DIR (default: build) must hold pass_benchmarks and ir_benchmarks. NODES default to 1000
# 10000 100000; a 1M-node model takes several minutes per row under valgrind. The second form
# counts each pass alone (BM_Pass, default: every pass) at 10k and 100k nodes of its motif's
# graph, PassManager::run (and so its final verify) included, and prints 100k / 10k.
set -euo pipefail

BUILD_DIR=${1:-build}
shift || true
MODE=graphs
if [[ ${1:-} == passes ]]; then
  MODE=passes
  shift
fi
NODES=("$@")
((${#NODES[@]})) || NODES=(1000 10000 100000)
PASS_BENCH=$BUILD_DIR/benchmarks/pass_benchmarks
IR_BENCH=$BUILD_DIR/benchmarks/ir_benchmarks
for exe in "$PASS_BENCH" "$IR_BENCH"; do
  [[ -x $exe ]] || { echo "missing $exe (build pass_benchmarks and ir_benchmarks)" >&2; exit 1; }
done
command -v valgrind >/dev/null || { echo "valgrind is not installed" >&2; exit 1; }

WORK=$(mktemp -d "${TMPDIR:-/tmp}/onnxopt-instructions.XXXXXX")
trap 'rm -rf "$WORK"' EXIT

# Prints the instructions callgrind collected in the given functions, per run and node. A run is
# a call of the first function: Google Benchmark calls a benchmark more than once while it sizes
# the iterations, and some loops make an untimed run first, so iteration counts would not do.
#   count LABEL NODES BENCHMARK FILTER FUNCTION...
count() {
  local label=$1 nodes=$2 bench=$3 filter=$4
  shift 4
  local toggles=()
  for function in "$@"; do toggles+=("--toggle-collect=$function*"); done
  valgrind --tool=callgrind --callgrind-out-file="$WORK/out" "${toggles[@]}" \
    "$bench" --benchmark_filter="$filter" --benchmark_min_time=0 >"$WORK/log" 2>&1
  python3 - "$WORK/out" "$1" "$label" "$nodes" <<'PY'
import re, sys

path, run_function, label, nodes = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
names, callee, runs, total = {}, None, 0, 0
for line in open(path):
    if line.startswith(("fn=", "cfn=")):
        # Names are compressed: "(id) name" the first time, "(id)" after.
        match = re.match(r"c?fn=\((\d+)\)(?: (.*))?", line.rstrip("\n"))
        if match.group(2) is not None:
            names[match.group(1)] = match.group(2)
        callee = names[match.group(1)] if line.startswith("cfn=") else None
    elif line.startswith("calls=") and callee is not None:
        if callee.startswith(run_function + "("):
            runs += int(line.split()[0][len("calls="):])
        callee = None
    elif line.startswith("summary:"):
        total = int(line.split()[1])
print(f"{label:28s} {nodes:10d} {total:16d} {runs:5d} {total // max(runs, 1) // nodes:12d}")
PY
}

header() { printf '%-28s %10s %16s %5s %12s\n' "$1" nodes instructions runs 'per node'; }

if [[ $MODE == passes ]]; then
  PASSES=("$@")
  if ((${#PASSES[@]} == 0)); then
    mapfile -t PASSES < <("$PASS_BENCH" --benchmark_list_tests=true \
      --benchmark_filter='^BM_Pass/.*/nodes:10000/' | cut -d/ -f2)
  fi
  printf '%-34s %14s %14s %10s\n' pass 'instr/node 10k' 'instr/node 100k' '100k / 10k'
  for pass in "${PASSES[@]}"; do
    per_node=()
    for nodes in 10000 100000; do
      line=$(ONNXOPT_BENCH_PASS_ITERATIONS=1 count "$pass" "$nodes" "$PASS_BENCH" \
        "^BM_Pass/$pass/nodes:$nodes/" 'onnxopt::bench::(anonymous namespace)::runPassOnce')
      per_node+=("$(awk '{print $NF}' <<<"$line")")
    done
    python3 -c 'import sys; a, b = map(int, sys.argv[2:]); print("%-34s %14d %14d %9.2fx" % (sys.argv[1], a, b, 10.0 * b / max(a, 1)))' \
      "$pass" "${per_node[@]}"
  done
  exit 0
fi

header 'pipeline (-O1)'
for shape in nothing_to_rewrite legacy matmul_add; do
  for nodes in "${NODES[@]}"; do
    count "$shape" "$nodes" "$PASS_BENCH" "^BM_PipelineOnly/$shape/nodes:$nodes/" \
      'onnxopt::PassManager::run'
  done
done
echo
header 'graph (ir_benchmarks)'
for nodes in "${NODES[@]}"; do
  count 'protobuf parse+serialize' "$nodes" "$IR_BENCH" "^BM_ProtobufFloor/nodes:$nodes/" \
    'onnxopt::bench::protobufFloorBytes'
  count 'load+verify+save' "$nodes" "$IR_BENCH" "^BM_LoadVerifySave/nodes:$nodes/" \
    'onnxopt::ir::loadModelFromBytes' 'onnxopt::ir::verify' 'onnxopt::ir::saveModelToBytes' \
    'onnxopt::ir::Model::~Model'
done
