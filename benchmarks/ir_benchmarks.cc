// Load, verify and save benchmarks, each next to the bare-protobuf floor measured in the same run.
//
//   ir_benchmarks                                  the whole suite (a few minutes)
//   ir_benchmarks --benchmark_filter='nodes:1000/'  the 1k-node cases only
//
// Every benchmark times exactly its region with a steady clock (manual time, wall clock), so
// setup (generating and caching models) is never counted; the process CPU time (user + system)
// of the same region is recorded too. Counters:
//   x_floor      wall time per iteration / the floor's, the floor being measured just before in
//                this process for the same model (or, when a filter skipped it, measured on the
//                spot, best of 3);
//   x_floor_cpu  the same ratio of CPU times: steadier when other jobs share the machine;
//   cpu_ms       CPU time per iteration;
//   ns_per_node, cpu_ns_per_node   time per iteration / nodes (synthetic graphs);
//   MiB_per_s    file bytes / wall time (big-weights models).
// Environment: ONNXOPT_BENCH_DIR (folder for generated files, default $TMPDIR or /tmp),
// ONNXOPT_BENCH_BIG_MIB (sizes of the big-weights models, default "64,256,1024"),
// ONNXOPT_BENCH_NODES (graph sizes, default "1000,10000,100000,1000000").

#include <benchmark/benchmark.h>
#include <time.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "bench_util.h"
#include "onnxopt/ir/ir.h"
#include "onnxopt/ir/serialization.h"
#include "onnxopt/ir/verifier.h"
#include "onnxopt/rewrite/node_check.h"
#include "synthetic_models.h"

namespace onnxopt::bench {
namespace {

using Clock = std::chrono::steady_clock;

double secondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// CPU time of the process (user + system; the library and the benchmark are single-threaded).
// Ratios of CPU times are steadier than wall-clock ratios when other jobs share the machine.
double cpuSeconds() {
  struct timespec ts {};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

// Mean wall-clock and CPU seconds per iteration.
struct Timing {
  double wall = 0;
  double cpu = 0;
  bool ok() const { return wall > 0; }
};

std::vector<int64_t> parseList(const char* env, const char* fallback) {
  const char* text = std::getenv(env);
  if (!text || !*text) text = fallback;
  std::vector<int64_t> values;
  std::stringstream stream(text);
  std::string item;
  while (std::getline(stream, item, ',')) {
    if (!item.empty()) values.push_back(std::stoll(item));
  }
  return values;
}

// Per-iteration time of the floor for each model, as measured in this process.
std::map<std::string, Timing>& floorSeconds() {
  static std::map<std::string, Timing> floors;
  return floors;
}

// The floor for `key`; measured now (best of 3) if no floor benchmark ran for it.
Timing floorFor(const std::string& key, const std::function<std::string()>& floor) {
  auto it = floorSeconds().find(key);
  if (it != floorSeconds().end()) return it->second;
  Timing best{1e300, 1e300};
  for (int i = 0; i < 3; ++i) {
    Clock::time_point start = Clock::now();
    double cpu_start = cpuSeconds();
    std::string error = floor();
    if (!error.empty()) return Timing{};
    best.cpu = std::min(best.cpu, cpuSeconds() - cpu_start);
    best.wall = std::min(best.wall, secondsSince(start));
  }
  floorSeconds()[key] = best;
  return best;
}

// Runs `body` once per iteration, timing it; returns the mean per iteration (zero on error).
// One untimed run comes first, so that no timed one pays for faulting in memory the process
// never had (at 1M nodes, a second or more here), the floor's no more than the library's.
Timing timedLoop(benchmark::State& state, const std::function<std::string()>& body) {
  if (std::string error = body(); !error.empty()) {
    state.SkipWithError(error.c_str());
    return Timing{};
  }
  Timing total;
  for (auto _ : state) {
    Clock::time_point start = Clock::now();
    double cpu_start = cpuSeconds();
    std::string error = body();
    double cpu = cpuSeconds() - cpu_start;
    double seconds = secondsSince(start);
    if (!error.empty()) {
      state.SkipWithError(error.c_str());
      return Timing{};
    }
    state.SetIterationTime(seconds);
    total.wall += seconds;
    total.cpu += cpu;
  }
  if (state.iterations() == 0) return Timing{};
  const double n = static_cast<double>(state.iterations());
  state.counters["cpu_ms"] = total.cpu / n * 1e3;
  return Timing{total.wall / n, total.cpu / n};
}

// x_floor: wall-clock ratio; x_floor_cpu: CPU-time ratio.
void reportRatio(benchmark::State& state, const Timing& t, const Timing& floor) {
  if (!t.ok() || !floor.ok()) return;
  state.counters["x_floor"] = t.wall / floor.wall;
  if (floor.cpu > 0) state.counters["x_floor_cpu"] = t.cpu / floor.cpu;
}

// ------------------------------------------------------------------ synthetic graphs (N nodes)

std::string graphKey(int64_t nodes) { return "nodes:" + std::to_string(nodes); }

// Models loaded once per process, for the verify and save benchmarks.
std::map<int64_t, std::unique_ptr<ir::Model>>& modelCache() {
  static std::map<int64_t, std::unique_ptr<ir::Model>> models;
  return models;
}

ir::Model* cachedModel(int64_t nodes) {
  auto& slot = modelCache()[nodes];
  if (!slot) {
    auto model = ir::loadModelFromBytes(syntheticModelBytes(nodes));
    if (!model.ok()) return nullptr;
    slot = std::move(*model);
  }
  return slot.get();
}

void perNode(benchmark::State& state, int64_t nodes, const Timing& t) {
  state.SetItemsProcessed(state.iterations() * nodes);
  if (t.ok()) {
    state.counters["ns_per_node"] = t.wall * 1e9 / static_cast<double>(nodes);
    state.counters["cpu_ns_per_node"] = t.cpu * 1e9 / static_cast<double>(nodes);
  }
  state.counters["model_MiB"] =
      static_cast<double>(syntheticModelBytes(nodes).size()) / (1 << 20);
}

void BM_ProtobufFloor(benchmark::State& state) {
  const int64_t nodes = state.range(0);
  const std::string& bytes = syntheticModelBytes(nodes);
  Timing per_iteration = timedLoop(state, [&] { return protobufFloorBytes(bytes); });
  if (per_iteration.ok()) floorSeconds()[graphKey(nodes)] = per_iteration;
  perNode(state, nodes, per_iteration);
}

Timing graphFloor(int64_t nodes) {
  const std::string& bytes = syntheticModelBytes(nodes);
  return floorFor(graphKey(nodes), [&] { return protobufFloorBytes(bytes); });
}

void BM_Load(benchmark::State& state) {
  const int64_t nodes = state.range(0);
  const std::string& bytes = syntheticModelBytes(nodes);
  Timing floor = graphFloor(nodes);
  double free_seconds = 0;
  Timing total;
  ir::loadModelFromBytes(bytes).IgnoreError();  // untimed, as in timedLoop
  for (auto _ : state) {
    Clock::time_point start = Clock::now();
    double cpu_start = cpuSeconds();
    auto model = ir::loadModelFromBytes(bytes);
    double cpu = cpuSeconds() - cpu_start;
    double seconds = secondsSince(start);
    if (!model.ok()) {
      state.SkipWithError(std::string(model.status().message()).c_str());
      return;
    }
    state.SetIterationTime(seconds);
    total.wall += seconds;
    total.cpu += cpu;
    Clock::time_point free_start = Clock::now();
    model->reset();
    free_seconds += secondsSince(free_start);
  }
  const double n = static_cast<double>(state.iterations());
  Timing per_iteration{total.wall / n, total.cpu / n};
  state.counters["cpu_ms"] = per_iteration.cpu * 1e3;
  reportRatio(state, per_iteration, floor);
  perNode(state, nodes, per_iteration);
  // Destroying the model is not in the Load time; it is in LoadVerifySave (and in the floor).
  state.counters["free_ns_per_node"] =
      free_seconds * 1e9 / static_cast<double>(state.iterations()) / nodes;
}

void BM_Verify(benchmark::State& state) {
  const int64_t nodes = state.range(0);
  ir::Model* model = cachedModel(nodes);
  if (!model) {
    state.SkipWithError("load failed");
    return;
  }
  Timing floor = graphFloor(nodes);
  Timing per_iteration = timedLoop(state, [&]() -> std::string {
    absl::Status status = ir::verify(*model);
    return status.ok() ? "" : std::string(status.message());
  });
  reportRatio(state, per_iteration, floor);
  perNode(state, nodes, per_iteration);
}

// The node checks every load runs unless --no-check (checkModelNodes), against the same floor
// as verify: their cost next to loading's.
void BM_CheckNodes(benchmark::State& state) {
  const int64_t nodes = state.range(0);
  ir::Model* model = cachedModel(nodes);
  if (!model) {
    state.SkipWithError("load failed");
    return;
  }
  Timing floor = graphFloor(nodes);
  Timing per_iteration = timedLoop(state, [&]() -> std::string {
    absl::Status status = checkModelNodes(*model);
    return status.ok() ? "" : std::string(status.message());
  });
  reportRatio(state, per_iteration, floor);
  perNode(state, nodes, per_iteration);
}

void BM_Save(benchmark::State& state) {
  const int64_t nodes = state.range(0);
  ir::Model* model = cachedModel(nodes);
  if (!model) {
    state.SkipWithError("load failed");
    return;
  }
  const size_t input_size = syntheticModelBytes(nodes).size();
  Timing floor = graphFloor(nodes);
  Timing per_iteration = timedLoop(state, [&]() -> std::string {
    auto bytes = ir::saveModelToBytes(*model);
    if (!bytes.ok()) return std::string(bytes.status().message());
    if (bytes->size() != input_size) return "saved size differs from the input";
    return "";
  });
  reportRatio(state, per_iteration, floor);
  perNode(state, nodes, per_iteration);
  // The cached model's last user: its memory (1M nodes: gigabytes) goes back before
  // BM_LoadVerifySave loads its own, which would otherwise fault in as much fresh memory (2 to
  // 3 s at 1M nodes here). Anything that needs the model again reloads it.
  modelCache().erase(nodes);
}

void BM_LoadVerifySave(benchmark::State& state) {
  const int64_t nodes = state.range(0);
  const std::string& bytes = syntheticModelBytes(nodes);
  Timing floor = graphFloor(nodes);
  Timing per_iteration = timedLoop(state, [&]() -> std::string {
    auto model = ir::loadModelFromBytes(bytes);
    if (!model.ok()) return std::string(model.status().message());
    absl::Status status = ir::verify(**model);
    if (!status.ok()) return std::string(status.message());
    auto out = ir::saveModelToBytes(**model);
    if (!out.ok()) return std::string(out.status().message());
    return "";
  });
  reportRatio(state, per_iteration, floor);
  perNode(state, nodes, per_iteration);
}

// ------------------------------------------------------------------ big-weights models

struct BigCase {
  int64_t mib;
  bool external;
  std::string path() const {
    return writeBigWeightsModel(benchTempDir(), mib << 20, external);
  }
  std::string outPath() const {
    return benchTempDir() + "/out_" + bigWeightsModelName(mib << 20, external);
  }
  std::string key() const {
    return std::string(external ? "external" : "inline") + "/MiB:" + std::to_string(mib);
  }
};

// Sizes of the model file and, for external data, of its data file (whether or not a load+save
// touches it), and the throughput for inline models.
void bigCounters(benchmark::State& state, const BigCase& c, const Timing& per_iteration) {
  const std::string path = c.path();
  int64_t bytes = fileSize(path);
  int64_t data_bytes = 0;
  if (c.external) data_bytes = fileSize(path + ".data");
  // Bytes, printed with binary prefixes (Ki, Mi, Gi).
  state.counters["model_file_bytes"] = benchmark::Counter(
      static_cast<double>(bytes), benchmark::Counter::kDefaults, benchmark::Counter::kIs1024);
  if (c.external) {
    state.counters["data_file_bytes"] = benchmark::Counter(static_cast<double>(data_bytes),
                                                           benchmark::Counter::kDefaults,
                                                           benchmark::Counter::kIs1024);
  }
  if (per_iteration.ok() && !c.external) {
    state.counters["MiB_per_s"] = static_cast<double>(bytes) / (1 << 20) / per_iteration.wall;
  }
}

void removeOutputs(const BigCase& c) {
  std::error_code ec;
  std::filesystem::remove(c.outPath(), ec);
  std::filesystem::remove(c.outPath() + ".data", ec);
}

Timing bigFloor(const BigCase& c) {
  const std::string in = c.path();
  const std::string out = c.outPath();
  return floorFor(c.key(), [&] { return protobufFloorFile(in, out); });
}

void BM_FileCopy(benchmark::State& state, BigCase c) {
  const std::string in = c.path();
  const std::string out = c.outPath();
  Timing per_iteration = timedLoop(state, [&] { return copyFileThroughMemory(in, out); });
  reportRatio(state, per_iteration, bigFloor(c));
  bigCounters(state, c, per_iteration);
  removeOutputs(c);
}

void BM_ProtobufFloorFile(benchmark::State& state, BigCase c) {
  const std::string in = c.path();
  const std::string out = c.outPath();
  Timing per_iteration = timedLoop(state, [&] { return protobufFloorFile(in, out); });
  if (per_iteration.ok()) floorSeconds()[c.key()] = per_iteration;
  bigCounters(state, c, per_iteration);
  removeOutputs(c);
}

void BM_LoadSaveFile(benchmark::State& state, BigCase c) {
  const std::string in = c.path();
  const std::string out = c.outPath();
  Timing floor = bigFloor(c);
  Timing per_iteration = timedLoop(state, [&] { return libraryLoadSaveFile(in, out); });
  reportRatio(state, per_iteration, floor);
  bigCounters(state, c, per_iteration);
  removeOutputs(c);
}

// In memory: ParseFromString + SerializeToString against loadModelFromBytes + saveModelToBytes.
const std::string& bigBytes(const BigCase& c) {
  static std::map<std::string, std::string> cache;
  auto& slot = cache[c.key()];
  if (slot.empty()) slot = readFile(c.path());
  return slot;
}

void BM_ProtobufFloorBytes(benchmark::State& state, BigCase c) {
  const std::string& bytes = bigBytes(c);
  Timing per_iteration = timedLoop(state, [&] { return protobufFloorBytes(bytes); });
  if (per_iteration.ok()) floorSeconds()["bytes/" + c.key()] = per_iteration;
  bigCounters(state, c, per_iteration);
}

void BM_LoadSaveBytes(benchmark::State& state, BigCase c) {
  const std::string& bytes = bigBytes(c);
  Timing floor = floorFor("bytes/" + c.key(), [&] { return protobufFloorBytes(bytes); });
  Timing per_iteration = timedLoop(state, [&] { return libraryLoadSaveBytes(bytes); });
  reportRatio(state, per_iteration, floor);
  bigCounters(state, c, per_iteration);
}

// ------------------------------------------------------------------ registration

void registerAll() {
  // Graph sizes: floor, then each stage, then the whole, per size, so each ratio compares
  // measurements taken seconds apart.
  for (int64_t nodes : parseList("ONNXOPT_BENCH_NODES", "1000,10000,100000,1000000")) {
    auto configure = [nodes](benchmark::internal::Benchmark* b) {
      b->ArgName("nodes")->Arg(nodes)->UseManualTime()->Unit(benchmark::kMillisecond);
      if (nodes >= 1000000) {
        b->Iterations(1);
      } else if (nodes >= 100000) {
        b->Iterations(5);
      } else if (nodes >= 10000) {
        b->MinTime(1.0);
      }
      // 1k: default min time, so --benchmark_min_time governs the smoke test.
    };
    configure(benchmark::RegisterBenchmark("BM_ProtobufFloor", BM_ProtobufFloor));
    configure(benchmark::RegisterBenchmark("BM_Load", BM_Load));
    configure(benchmark::RegisterBenchmark("BM_Verify", BM_Verify));
    configure(benchmark::RegisterBenchmark("BM_CheckNodes", BM_CheckNodes));
    configure(benchmark::RegisterBenchmark("BM_Save", BM_Save));
    configure(benchmark::RegisterBenchmark("BM_LoadVerifySave", BM_LoadVerifySave));
  }

  // Big-weights models: inline (floor vs load+save, and the file-copy limit), then external.
  const std::vector<int64_t> sizes = parseList("ONNXOPT_BENCH_BIG_MIB", "64,256,1024");
  const int64_t largest = sizes.empty() ? 0 : *std::max_element(sizes.begin(), sizes.end());
  for (bool external : {false, true}) {
    for (int64_t mib : sizes) {
      BigCase c{mib, external};
      const std::string suffix = "/" + c.key();
      const int iterations = mib >= 1024 ? 2 : (mib >= 256 ? 3 : 5);
      auto configure = [&](benchmark::internal::Benchmark* b) {
        b->UseManualTime()->Unit(benchmark::kMillisecond);
        b->Iterations(external ? 10 : iterations);
      };
      configure(benchmark::RegisterBenchmark(("BM_ProtobufFloorFile" + suffix).c_str(),
                                             BM_ProtobufFloorFile, c));
      if (!external) {
        configure(benchmark::RegisterBenchmark(("BM_FileCopy" + suffix).c_str(), BM_FileCopy, c));
      }
      configure(benchmark::RegisterBenchmark(("BM_LoadSaveFile" + suffix).c_str(),
                                             BM_LoadSaveFile, c));
      if (!external && mib == largest) {
        configure(benchmark::RegisterBenchmark(("BM_ProtobufFloorBytes" + suffix).c_str(),
                                               BM_ProtobufFloorBytes, c));
        configure(benchmark::RegisterBenchmark(("BM_LoadSaveBytes" + suffix).c_str(),
                                               BM_LoadSaveBytes, c));
      }
    }
  }
}

}  // namespace
}  // namespace onnxopt::bench

int main(int argc, char** argv) {
  onnxopt::bench::keepFreedMemory();
  onnxopt::bench::registerAll();
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
