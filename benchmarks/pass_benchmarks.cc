// The pass pipeline's cost against the held lines of docs/performance.md: a whole -O1 run (load,
// verify, optimize, save) within 1.5x a bare protobuf parse + serialize of the same model at 10k
// nodes, ten times the nodes at most twelve times the time, and the driver linear (time per node
// flat from 1k to 1M nodes, with nothing to rewrite and with everything to rewrite).

#include <sys/resource.h>
#include <time.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstdio>
#include <fstream>
#include <functional>
#include <iterator>
#include <map>
#include <memory>
#include <string>

#include <benchmark/benchmark.h>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "bench_util.h"
#include "google/protobuf/arena.h"
#include "onnx/defs/schema.h"
#include "onnxopt/ir/serialization.h"
#include "onnxopt/ir/verifier.h"
#include "onnxopt/pass/pass_manager.h"
#include "onnxopt/pass/pass_registry.h"
#include "synthetic_models.h"

namespace onnxopt::bench {
namespace {

// Minor page faults of this process so far: memory the allocator handed back to the system and
// took again costs one per page.
int64_t minorPageFaults() {
  struct rusage usage {};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<int64_t>(usage.ru_minflt);
}

const bool kHeapKeptWarm = [] {
  keepFreedMemory();
  return true;
}();

void countNsPerNode(benchmark::State& state) {
  state.counters["ns_per_node"] = benchmark::Counter(
      static_cast<double>(state.range(0)), benchmark::Counter::kIsIterationInvariantRate |
                                               benchmark::Counter::kInvert);
}

void countPageFaults(benchmark::State& state, int64_t faults_before) {
  state.counters["page_faults"] = benchmark::Counter(
      static_cast<double>(minorPageFaults() - faults_before), benchmark::Counter::kAvgIterations);
}

enum class Shape { kLegacyExport, kMatMulAddChain, kNothingToRewrite };

void addTensor(onnx::GraphProto* graph, const std::string& name, std::vector<int64_t> dims) {
  onnx::TensorProto* tensor = graph->add_initializer();
  tensor->set_name(name);
  tensor->set_data_type(onnx::TensorProto::FLOAT);
  int64_t count = 1;
  for (int64_t dim : dims) {
    tensor->add_dims(dim);
    count *= dim;
  }
  // Distinct bytes per tensor, as trained weights have: equal ones would give
  // eliminate-duplicate-initializers (and CSE after it) work no real export gives.
  std::string bytes(static_cast<size_t>(count) * 4, '\0');
  const size_t seed = std::hash<std::string>{}(name);
  for (size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<char>((seed >> (i % 8 * 8)) + i);
  tensor->set_raw_data(std::move(bytes));
}

onnx::NodeProto* addNode(onnx::GraphProto* graph, const std::string& op,
                         std::initializer_list<std::string> inputs, const std::string& output,
                         const std::string& name) {
  onnx::NodeProto* node = graph->add_node();
  node->set_op_type(op);
  node->set_name(name);
  for (const std::string& input : inputs) node->add_input(input);
  node->add_output(output);
  return node;
}

// Layers of four nodes each, 8 features wide, batch dim symbolic:
//  legacy export:    Transpose(W), Expand(b, [1,8]), Gemm, Relu      -> Gemm<transB>, Relu
//  MatMul+Add chain: Transpose(W), MatMul, Add(b), Relu              -> Gemm<transB>, Relu
//  nothing:          Gemm<transB>, Relu, Mul(scale), Sigmoid         -> unchanged
std::string makeModel(Shape shape, int64_t num_nodes) {
  onnx::ModelProto model;
  model.set_ir_version(8);
  model.add_opset_import()->set_version(13);
  onnx::GraphProto* graph = model.mutable_graph();
  graph->set_name("bench");
  onnx::ValueInfoProto* input = graph->add_input();
  input->set_name("x");
  auto* tensor_type = input->mutable_type()->mutable_tensor_type();
  tensor_type->set_elem_type(onnx::TensorProto::FLOAT);
  tensor_type->mutable_shape()->add_dim()->set_dim_param("N");
  tensor_type->mutable_shape()->add_dim()->set_dim_value(8);
  if (shape == Shape::kLegacyExport) {  // elsewhere unused: eliminate-dead-nodes would remove it
    onnx::TensorProto* target = graph->add_initializer();
    target->set_name("target");
    target->set_data_type(onnx::TensorProto::INT64);
    target->add_dims(2);
    target->add_int64_data(1);
    target->add_int64_data(8);
  }
  std::string x = "x";
  for (int64_t layer = 0; layer < num_nodes / 4; ++layer) {
    const std::string p = absl::StrCat("/layers.", layer, "/");
    const std::string w = absl::StrCat("layers.", layer, ".weight");
    const std::string b = absl::StrCat("layers.", layer, ".bias");
    addTensor(graph, w, {8, 8});
    addTensor(graph, b, {8});
    const std::string y = p + "Relu_output_0";
    switch (shape) {
      case Shape::kLegacyExport:
        addNode(graph, "Transpose", {w}, p + "wt", p + "Transpose");
        addNode(graph, "Expand", {b, "target"}, p + "bias", p + "Expand");
        addNode(graph, "Gemm", {x, p + "wt", p + "bias"}, p + "gemm", p + "Gemm");
        addNode(graph, "Relu", {p + "gemm"}, y, p + "Relu");
        break;
      case Shape::kMatMulAddChain:
        addNode(graph, "Transpose", {w}, p + "wt", p + "Transpose");
        addNode(graph, "MatMul", {x, p + "wt"}, p + "mm", p + "MatMul");
        addNode(graph, "Add", {p + "mm", b}, p + "add", p + "Add");
        addNode(graph, "Relu", {p + "add"}, y, p + "Relu");
        break;
      case Shape::kNothingToRewrite: {
        onnx::NodeProto* gemm = addNode(graph, "Gemm", {x, w, b}, p + "gemm", p + "Gemm");
        onnx::AttributeProto* trans_b = gemm->add_attribute();
        trans_b->set_name("transB");
        trans_b->set_type(onnx::AttributeProto::INT);
        trans_b->set_i(1);
        addNode(graph, "Relu", {p + "gemm"}, p + "relu", p + "Relu");
        addNode(graph, "Mul", {p + "relu", p + "relu"}, p + "mul", p + "Mul");
        addNode(graph, "Sigmoid", {p + "mul"}, y, p + "Sigmoid");
        break;
      }
    }
    x = y;
  }
  graph->add_output()->set_name(x);
  std::string bytes;
  model.SerializeToString(&bytes);
  return bytes;
}

const std::string& cachedModel(Shape shape, int64_t num_nodes) {
  static std::map<std::pair<Shape, int64_t>, std::string> cache;
  auto [it, inserted] = cache.try_emplace({shape, num_nodes});
  if (inserted) it->second = makeModel(shape, num_nodes);
  return it->second;
}

double seconds(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

PassManager makeO1() {
  PassManagerOptions options;
  options.fixed_point = true;
  PassManager manager(options);
  const absl::StatusOr<std::string> pipeline = PassRegistry::global().namedPipeline("O1");
  if (!pipeline.ok() || !manager.addPipeline(*pipeline).ok()) std::abort();
  return manager;
}

void fail(benchmark::State& state, const absl::Status& status) {
  state.SkipWithError(std::string(status.message()).c_str());
}

// The floor: protobuf's own parse + serialize of the same bytes.
void timeFloor(benchmark::State& state, const std::string& bytes) {
  const int64_t faults_before = minorPageFaults();
  for (auto _ : state) {
    const auto start = std::chrono::steady_clock::now();
    {
      onnx::ModelProto proto;
      proto.ParseFromString(bytes);
      std::string out;
      proto.SerializeToString(&out);
      benchmark::DoNotOptimize(out.data());
    }
    state.SetIterationTime(seconds(start));
  }
  countPageFaults(state, faults_before);
}

void BM_Floor(benchmark::State& state, Shape shape) {
  timeFloor(state, cachedModel(shape, state.range(0)));
  countNsPerNode(state);
}

// The floor as a loader on an arena pays it: the parse on an arena of 64 KiB blocks (as a
// Model's), serialize, free the arena. Not a target's denominator; it shows how much of the
// growth from 10k to 100k nodes any tool that parses the whole proto first cannot avoid.
void BM_ArenaFloor(benchmark::State& state, Shape shape) {
  const std::string& bytes = cachedModel(shape, state.range(0));
  for (auto _ : state) {
    const auto start = std::chrono::steady_clock::now();
    {
      google::protobuf::ArenaOptions options;
      options.start_block_size = 64 << 10;
      options.max_block_size = 64 << 10;
      google::protobuf::Arena arena(options);
      auto* proto = google::protobuf::Arena::CreateMessage<onnx::ModelProto>(&arena);
      proto->ParseFromString(bytes);
      std::string out;
      proto->SerializeToString(&out);
      benchmark::DoNotOptimize(out.data());
    }
    state.SetIterationTime(seconds(start));
  }
  countNsPerNode(state);
}

// What `onnx-opt -O1` does between reading and writing the file. The counters split the time
// into its phases (milliseconds per run), to show where a ratio to the floor comes from.
void timeWholeO1(benchmark::State& state, const std::string& bytes) {
  double load = 0, verify = 0, pipeline = 0, save = 0, destroy = 0;
  const int64_t faults_before = minorPageFaults();
  for (auto _ : state) {
    auto start = std::chrono::steady_clock::now();
    const auto run_start = start;
    auto lap = [&start](double& phase) {
      const auto now = std::chrono::steady_clock::now();
      phase += std::chrono::duration<double, std::milli>(now - start).count();
      start = now;
    };
    {
      auto model = ir::loadModelFromBytes(bytes);
      if (!model.ok()) return fail(state, model.status());
      lap(load);
      if (absl::Status status = ir::verify(**model); !status.ok()) return fail(state, status);
      lap(verify);
      PassManager manager = makeO1();
      auto report = manager.run(**model);
      if (!report.ok()) return fail(state, report.status());
      lap(pipeline);
      auto out = ir::saveModelToBytes(**model);
      if (!out.ok()) return fail(state, out.status());
      benchmark::DoNotOptimize(out->data());
      lap(save);
    }
    lap(destroy);
    state.SetIterationTime(seconds(run_start));
  }
  const auto per_run = benchmark::Counter::kAvgIterations;
  state.counters["load_ms"] = benchmark::Counter(load, per_run);
  state.counters["verify_ms"] = benchmark::Counter(verify, per_run);
  state.counters["pipeline_ms"] = benchmark::Counter(pipeline, per_run);
  state.counters["save_ms"] = benchmark::Counter(save, per_run);
  state.counters["destroy_ms"] = benchmark::Counter(destroy, per_run);
  countPageFaults(state, faults_before);
}

void BM_WholeO1(benchmark::State& state, Shape shape) {
  timeWholeO1(state, cachedModel(shape, state.range(0)));
  countNsPerNode(state);
}

// The pipeline alone (the driver's cost), model loading excluded.
void BM_PipelineOnly(benchmark::State& state, Shape shape) {
  const std::string& bytes = cachedModel(shape, state.range(0));
  for (auto _ : state) {
    auto model = ir::loadModelFromBytes(bytes);
    if (!model.ok()) return fail(state, model.status());
    PassManager manager = makeO1();
    const auto start = std::chrono::steady_clock::now();
    auto report = manager.run(**model);
    state.SetIterationTime(seconds(start));
    if (!report.ok()) return fail(state, report.status());
  }
  countNsPerNode(state);
}

void sizes(benchmark::internal::Benchmark* benchmark) {
  benchmark->ArgName("nodes")->UseManualTime()->Unit(benchmark::kMillisecond);
  for (int64_t nodes : {1000, 10000, 100000, 1000000}) benchmark->Arg(nodes);
}

// CPU time of this thread: unlike wall time, it does not count the time other jobs on a
// shared machine take the CPU from the benchmark.
double threadCpuSeconds() {
  timespec now{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
  return static_cast<double>(now.tv_sec) + static_cast<double>(now.tv_nsec) * 1e-9;
}

// One pass alone on a graph where it fires everywhere (its motif, synthetic_models.h), the
// model loaded outside the timed region. The time is CPU time: PassManager::run's, less that of
// one more ir::verify of its result (run verifies a changed model once at the end). Counters:
// ns_per_node, wall_ms (the pass's own wall time, PassRun::seconds), and changes_per_motif
// (rewrites, nodes and initializers removed, over the motif's copies): a pass that changes
// nothing is an error, so that a motif that stopped matching cannot pass as fast.
//
// The measured run is runPassOnce, which count_instructions.sh counts. Before it, the pass runs
// once on the 1k-node graph: one-time costs (libonnx registering its schemas on the first
// lookup, static tables) stay out of the figures.
[[gnu::noinline]] absl::StatusOr<PipelineReport> runPassOnce(PassManager& manager,
                                                             ir::Model& model) {
  return manager.run(model);
}

absl::Status warmUp(const std::string& pass) {
  auto model = ir::loadModelFromBytes(passMotifModel(pass, 1000).bytes);
  if (!model.ok()) return model.status();
  PassManager manager;
  if (absl::Status added = manager.addPipeline(pass); !added.ok()) return added;
  return manager.run(**model).status();
}

void BM_Pass(benchmark::State& state, const std::string& pass) {
  const MotifModel& motif = passMotifModel(pass, state.range(0));
  if (absl::Status warm = warmUp(pass); !warm.ok()) return fail(state, warm);
  int64_t changes = 0;
  double wall_seconds = 0;
  for (auto _ : state) {
    auto model = ir::loadModelFromBytes(motif.bytes);
    if (!model.ok()) return fail(state, model.status());
    PassManager manager;
    if (absl::Status added = manager.addPipeline(pass); !added.ok()) return fail(state, added);
    const double start = threadCpuSeconds();
    auto report = runPassOnce(manager, **model);
    const double ran = threadCpuSeconds();
    if (!report.ok()) return fail(state, report.status());
    if (absl::Status verified = ir::verify(**model); !verified.ok()) return fail(state, verified);
    const double verify_seconds = report->changed ? threadCpuSeconds() - ran : 0;
    state.SetIterationTime(std::max(0.0, ran - start - verify_seconds));
    changes = 0;
    for (const PassRun& run : report->runs) {
      wall_seconds += run.seconds;
      changes += run.statistics.nodes_rewritten + run.statistics.nodes_removed +
                 run.statistics.initializers_removed;
    }
  }
  if (changes == 0) return state.SkipWithError(("the motif of " + pass + " changed nothing").c_str());
  state.counters["ns_per_node"] = benchmark::Counter(
      static_cast<double>(motif.num_nodes),
      benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
  state.counters["wall_ms"] = benchmark::Counter(wall_seconds * 1e3, benchmark::Counter::kAvgIterations);
  state.counters["changes_per_motif"] =
      static_cast<double>(changes) / static_cast<double>(motif.copies);
}

// Every registered pass has a motif: a pass added without one fails the smoke test.
void BM_EveryPassHasAMotif(benchmark::State& state) {
  std::string missing;
  for (const PassInfo* info : PassRegistry::global().passes()) {
    bool found = false;
    for (const PassMotif& motif : passMotifs()) found = found || motif.pass == info->name;
    if (!found) missing += " " + info->name;
  }
  for (auto _ : state) {
  }
  if (!missing.empty()) state.SkipWithError(("passes without a motif:" + missing).c_str());
}
BENCHMARK(BM_EveryPassHasAMotif)->Arg(1000)->ArgName("nodes")->Iterations(1);

// Every pass at 10k and 100k nodes (issue 19), the folding passes also at 1M (issue 18), and
// all at 1k, once, for the smoke test. Fixed iteration counts: each iteration loads a model
// outside the timed region, which would cost a pass of 0.1 ms thousands of loads to fill
// Google Benchmark's minimum time. ONNXOPT_BENCH_PASS_ITERATIONS=N runs N at every size
// (count_instructions.sh sets 1).
const bool kPassBenchmarksRegistered = [] {
  std::vector<std::pair<int64_t, int64_t>> nodes_and_iterations = {
      {1000, 1}, {10000, 20}, {100000, 5}, {1000000, 2}};
  if (const char* fixed = std::getenv("ONNXOPT_BENCH_PASS_ITERATIONS"); fixed && *fixed) {
    for (auto& size : nodes_and_iterations) size.second = std::max<int64_t>(1, std::atoll(fixed));
  }
  for (const PassMotif& motif : passMotifs()) {
    const std::string pass = motif.pass;
    const bool folding = pass == "fold-constants" || pass == "fold-shapes";
    for (auto [nodes, iterations] : nodes_and_iterations) {
      if (nodes == 1000000 && !folding) continue;
      benchmark::RegisterBenchmark(("BM_Pass/" + pass).c_str(),
                                   [pass](benchmark::State& state) { BM_Pass(state, pass); })
          ->ArgName("nodes")
          ->Arg(nodes)
          ->Iterations(iterations)
          ->UseManualTime()
          ->Unit(benchmark::kMillisecond);
    }
  }
  return true;
}();

BENCHMARK_CAPTURE(BM_Floor, legacy, Shape::kLegacyExport)->Apply(sizes);
BENCHMARK_CAPTURE(BM_ArenaFloor, legacy, Shape::kLegacyExport)->Apply(sizes);
BENCHMARK_CAPTURE(BM_WholeO1, legacy, Shape::kLegacyExport)->Apply(sizes);
BENCHMARK_CAPTURE(BM_PipelineOnly, legacy, Shape::kLegacyExport)->Apply(sizes);
BENCHMARK_CAPTURE(BM_Floor, matmul_add, Shape::kMatMulAddChain)->Apply(sizes);
BENCHMARK_CAPTURE(BM_ArenaFloor, matmul_add, Shape::kMatMulAddChain)->Apply(sizes);
BENCHMARK_CAPTURE(BM_WholeO1, matmul_add, Shape::kMatMulAddChain)->Apply(sizes);
BENCHMARK_CAPTURE(BM_PipelineOnly, matmul_add, Shape::kMatMulAddChain)->Apply(sizes);
BENCHMARK_CAPTURE(BM_Floor, nothing_to_rewrite, Shape::kNothingToRewrite)->Apply(sizes);
BENCHMARK_CAPTURE(BM_WholeO1, nothing_to_rewrite, Shape::kNothingToRewrite)->Apply(sizes);
BENCHMARK_CAPTURE(BM_PipelineOnly, nothing_to_rewrite, Shape::kNothingToRewrite)->Apply(sizes);

// BM_Floor and BM_WholeO1 of each model file in ONNXOPT_BENCH_MODELS (paths separated by
// commas), so that users can measure their own models against the floor. False, having said
// why, when a file cannot be read.
bool registerModelFiles() {
  const char* models = std::getenv("ONNXOPT_BENCH_MODELS");
  if (models == nullptr) return true;
  for (absl::string_view path : absl::StrSplit(models, ',', absl::SkipEmpty())) {
    std::ifstream file{std::string(path), std::ios::binary};
    auto bytes = std::make_shared<std::string>(std::istreambuf_iterator<char>(file),
                                               std::istreambuf_iterator<char>());
    if (!file) {
      std::fprintf(stderr, "pass_benchmarks: ONNXOPT_BENCH_MODELS: cannot read %s\n",
                   std::string(path).c_str());
      return false;
    }
    const std::string name = absl::StrCat("file:", path);
    benchmark::RegisterBenchmark(("BM_Floor/" + name).c_str(),
                                 [bytes](benchmark::State& state) { timeFloor(state, *bytes); })
        ->UseManualTime()
        ->Unit(benchmark::kMillisecond);
    benchmark::RegisterBenchmark(("BM_WholeO1/" + name).c_str(),
                                 [bytes](benchmark::State& state) { timeWholeO1(state, *bytes); })
        ->UseManualTime()
        ->Unit(benchmark::kMillisecond);
  }
  return true;
}

// ONNX's operator schema registry is built on first use, once per process: ~40M instructions,
// four times a 10k-node -O1 run's own. Built before any run is timed or counted, it does not
// land in the first (count_instructions.sh counts a single run).
void buildSchemaRegistry() {
  if (onnx::OpSchemaRegistry::Schema("Gemm", 13, "") == nullptr) std::abort();
}

}  // namespace
}  // namespace onnxopt::bench

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  if (!onnxopt::bench::registerModelFiles()) return 2;
  onnxopt::bench::buildSchemaRegistry();
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
