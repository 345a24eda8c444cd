// The one-call API: onnxopt::optimize / optimizeFile / optimizeBytes, makePassManager and
// expandPipeline.

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "onnx/defs/parser.h"
#include "onnxopt/onnxopt.h"

namespace onnxopt {
namespace {

using ::testing::HasSubstr;

std::string readFile(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream bytes;
  bytes << in.rdbuf();
  return bytes.str();
}

onnx::ModelProto parse(const std::string& text) {
  onnx::ModelProto proto;
  const auto status = onnx::OnnxParser::Parse(proto, text.c_str());
  EXPECT_TRUE(status.IsOK()) << status.ErrorMessage();
  return proto;
}

// Two dead nodes (D1 -> D2) and an unused initializer next to a live Relu.
constexpr char kDeadNodes[] = R"(
<ir_version: 8, opset_import: ["" : 13]>
dead (float[N] X) => (float[N] Y) <float[3] W = {1, 2, 3}, float[2] Unused = {4, 5}> {
  Y = Relu(X)
  D1 = Neg(X)
  D2 = Abs(D1)
  Z = Add(Y, W)
}
)";

// Weights in initializers, a Constant's tensor attribute, and an If whose branches have their own
// initializer: everything the moving export must put back.
constexpr char kWeightsEverywhere[] = R"(
<ir_version: 8, opset_import: ["" : 13]>
weights (bool C, float[3] X) => (float[3] Y) <float[3] W = {1, 2, 3}> {
  K = Constant<value = float[3] {7, 8, 9}>()
  A = Add(X, W)
  B = Mul(A, K)
  Y = If(C) <then_branch = g1 () => (float[3] T) <float[3] V = {10, 11, 12}> {
      T = Add(B, V)
    }, else_branch = g2 () => (float[3] E) {
      E = Identity(B)
    }>
}
)";

class TempDir {
 public:
  TempDir() {
    std::string pattern = (std::filesystem::temp_directory_path() / "onnxopt_api_XXXXXX").string();
    path_ = mkdtemp(pattern.data());
  }
  ~TempDir() { std::filesystem::remove_all(path_); }
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

std::filesystem::path legacyClassifier() {
  return std::filesystem::path(ONNXOPT_SOURCE_DIR) / "examples" / "legacy_classifier.onnx";
}

// A test pass: fails on the first Neg node, naming it, after changing nothing.
class FailOnNeg final : public Pass {
 public:
  FailOnNeg() : Pass("fail-on-neg") {}
  absl::StatusOr<bool> run(ir::Model& model, PassContext&) override {
    for (ir::Node& node : model.graph()) {
      if (node.is("Neg")) {
        return absl::FailedPreconditionError(
            absl::StrCat("node '", node.name(), "' (Neg): refusing to optimize it"));
      }
    }
    return false;
  }
};

// A test pass: adds initializer `<name>_alias` sharing the tensor of every initializer, in every
// graph.
class AliasInitializers final : public Pass {
 public:
  AliasInitializers() : Pass("alias-initializers") {}
  absl::StatusOr<bool> run(ir::Model& model, PassContext&) override {
    bool changed = false;
    ir::forEachGraph(model.graph(), [&](ir::Graph& graph) {
      for (ir::Value* value : graph.initializers()) {
        if (!value->isInitializer()) continue;
        graph.addInitializer(model.valueNames().fresh(value->name() + "_alias"),
                             value->initializer());
        changed = true;
      }
    });
    return changed;
  }
};

PassRegistry testRegistry() {
  PassRegistry registry = PassRegistry::withBuiltinPasses();
  EXPECT_TRUE(registry
                  .registerPass({"fail-on-neg", "fails on Neg",
                                 [] { return std::make_unique<FailOnNeg>(); }})
                  .ok());
  EXPECT_TRUE(registry
                  .registerPass({"alias-initializers", "shares tensors",
                                 [] { return std::make_unique<AliasInitializers>(); }})
                  .ok());
  return registry;
}

// ---- pipelines ----

TEST(ExpandPipeline, NamedPipelinesAndText) {
  const PassRegistry& registry = PassRegistry::global();
  for (const NamedPipeline& named : registry.namedPipelines()) {
    auto text = expandPipeline("-" + named.name);
    ASSERT_TRUE(text.ok()) << text.status();
    EXPECT_EQ(*text, named.pipeline);
  }
  auto text = expandPipeline("eliminate-dead-nodes{max-iterations=3}");
  ASSERT_TRUE(text.ok());
  EXPECT_EQ(*text, "eliminate-dead-nodes{max-iterations=3}");
  EXPECT_TRUE(isNamedPipeline("-O1"));
  EXPECT_FALSE(isNamedPipeline("eliminate-dead-nodes,-O1"));
  EXPECT_FALSE(isNamedPipeline(""));
}

TEST(ExpandPipeline, UnknownNamedPipelineListsTheValidOnes) {
  auto text = expandPipeline("-O9");
  ASSERT_FALSE(text.ok());
  EXPECT_EQ(text.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(text.status().message()), HasSubstr("'-O9'"));
  EXPECT_THAT(std::string(text.status().message()), HasSubstr("-O0, -O1, -O2"));
}

TEST(MakePassManager, BuildsTheNamedPipeline) {
  auto o1 = PassRegistry::global().namedPipeline("O1");
  ASSERT_TRUE(o1.ok());
  OptimizeOptions options;
  options.verify_each = true;
  options.fixed_point = true;
  auto manager = makePassManager("-O1", options);
  ASSERT_TRUE(manager.ok()) << manager.status();
  EXPECT_EQ(manager->pipelineText(), *o1);
  EXPECT_TRUE(manager->options().verify_each);
  EXPECT_TRUE(manager->options().fixed_point);
}

TEST(Optimize, UnknownPassIsAnErrorListingPassesAndLeavesTheModel) {
  onnx::ModelProto model = parse(kDeadNodes);
  const std::string before = model.SerializeAsString();
  absl::Status status = optimize(model, "eliminate-dead-nodes,no-such-pass");
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(status.message()), HasSubstr("unknown pass 'no-such-pass'"));
  EXPECT_THAT(std::string(status.message()), HasSubstr("column 22"));
  EXPECT_THAT(std::string(status.message()), HasSubstr("eliminate-dead-nodes"));
  EXPECT_EQ(model.SerializeAsString(), before);
}

TEST(Optimize, UnknownOptionIsAnErrorNamingIt) {
  onnx::ModelProto model = parse(kDeadNodes);
  absl::Status status = optimize(model, "eliminate-dead-nodes{no-such-option=1}");
  ASSERT_FALSE(status.ok());
  EXPECT_THAT(std::string(status.message()), HasSubstr("no-such-option"));
  EXPECT_THAT(std::string(status.message()), HasSubstr("max-iterations"));
  EXPECT_EQ(model.graph().node_size(), 4);
}

TEST(Optimize, MalformedPipelineText) {
  auto bytes = optimizeBytes("", "eliminate-dead-nodes{max-iterations=}");
  ASSERT_FALSE(bytes.ok());
  EXPECT_THAT(std::string(bytes.status().message()), HasSubstr("expected a value"));
}

// ---- statistics ----

TEST(Optimize, ReturnsPerPassStatistics) {
  onnx::ModelProto model = parse(kDeadNodes);
  PipelineReport report;
  OptimizeOptions options;
  options.verify_each = true;
  options.report = &report;
  ASSERT_TRUE(optimize(model, "eliminate-dead-nodes", options).ok());
  ASSERT_EQ(report.runs.size(), 1u);
  EXPECT_EQ(report.runs[0].pass, "eliminate-dead-nodes");
  EXPECT_TRUE(report.runs[0].changed);
  EXPECT_TRUE(report.changed);
  EXPECT_EQ(report.runs[0].statistics.nodes_removed, 3);  // D1, D2, and Z (read by nothing)
  EXPECT_EQ(report.runs[0].statistics.initializers_removed, 2);
  EXPECT_EQ(report.rounds, 1);
  EXPECT_THAT(formatPassStatistics(report), HasSubstr("eliminate-dead-nodes"));
  // The caller's proto holds the result.
  ASSERT_EQ(model.graph().node_size(), 1);
  EXPECT_EQ(model.graph().node(0).op_type(), "Relu");
  EXPECT_EQ(model.graph().initializer_size(), 0);
  EXPECT_EQ(model.graph().output(0).name(), "Y");
}

TEST(Optimize, FixedPointRunsUntilNothingChanges) {
  onnx::ModelProto model = parse(kDeadNodes);
  PipelineReport report;
  OptimizeOptions options;
  options.fixed_point = true;
  options.report = &report;
  ASSERT_TRUE(optimize(model, "eliminate-dead-nodes", options).ok());
  EXPECT_EQ(report.rounds, 2);
  EXPECT_TRUE(report.reached_fixed_point);
  ASSERT_EQ(report.runs.size(), 2u);
  EXPECT_FALSE(report.runs[1].changed);
}

// As onnx-opt does: -O1 says "to a fixed point"; pipeline text runs once unless asked.
TEST(Optimize, NamedPipelinesRunToAFixedPoint) {
  onnx::ModelProto model = parse(kDeadNodes);
  PipelineReport report;
  OptimizeOptions options;
  options.report = &report;
  ASSERT_TRUE(optimize(model, "-O1", options).ok());
  EXPECT_TRUE(report.changed);
  EXPECT_EQ(report.rounds, 2) << "a second round confirms that nothing is left";
  EXPECT_TRUE(report.reached_fixed_point);
}

TEST(Optimize, DebugSinkReceivesLines) {
  onnx::ModelProto model = parse(kDeadNodes);
  int lines = 0;
  OptimizeOptions options;
  options.debug_sink = [&lines](absl::string_view) { ++lines; };
  ASSERT_TRUE(optimize(model, "eliminate-dead-nodes", options).ok());
  EXPECT_GE(lines, 0);  // whatever the pass says; the sink must be accepted and called safely
}

// ---- errors naming elements ----

TEST(Optimize, FailingPassNamesPassAndNodeAndLeavesAValidModel) {
  onnx::ModelProto model = parse(kDeadNodes);
  model.mutable_graph()->mutable_node(1)->set_name("the_neg");
  const PassRegistry registry = testRegistry();
  OptimizeOptions options;
  options.registry = &registry;
  PipelineReport report;
  options.report = &report;
  absl::Status status = optimize(model, "fail-on-neg", options);
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(status.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(std::string(status.message()), HasSubstr("pass 'fail-on-neg'"));
  EXPECT_THAT(std::string(status.message()), HasSubstr("node 'the_neg' (Neg)"));
  EXPECT_TRUE(report.runs.empty());
  // The model is given back, whole.
  EXPECT_EQ(model.graph().node_size(), 4);
  EXPECT_EQ(model.graph().initializer_size(), 2);
  EXPECT_EQ(model.graph().initializer(0).float_data_size() +
                static_cast<int>(model.graph().initializer(0).raw_data().size() / 4),
            3);
}

TEST(Optimize, InvalidModelNamesTheNode) {
  onnx::ModelProto model = parse(kDeadNodes);
  model.mutable_graph()->mutable_node(0)->set_name("relu_node");
  model.mutable_graph()->mutable_node(0)->set_input(0, "Missing");
  absl::Status status = optimize(model, "-O0");
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(status.message()), HasSubstr("relu_node"));
  EXPECT_THAT(std::string(status.message()), HasSubstr("Missing"));
}

TEST(OptimizeBytes, NotAModel) {
  auto bytes = optimizeBytes("definitely not protobuf \xff\xff\xff", "-O1");
  ASSERT_FALSE(bytes.ok());
  EXPECT_THAT(std::string(bytes.status().message()), HasSubstr("not a valid ONNX model"));
}

// ---- -O0 is the identity ----

TEST(OptimizeBytes, O0AndEmptyPipelineGiveTheSameBytes) {
  const std::string input = readFile(legacyClassifier());
  ASSERT_FALSE(input.empty());
  for (const char* pipeline : {"-O0", ""}) {
    auto output = optimizeBytes(input, pipeline);
    ASSERT_TRUE(output.ok()) << output.status();
    EXPECT_TRUE(*output == input) << "pipeline '" << pipeline << "' changed the bytes";
  }
}

// The in-place call gives back the very same bytes too, across Debian's whole libonnx-testdata
// corpus (subgraphs, Constant tensors, external data, sparse initializers).
TEST(Optimize, O0InPlaceGivesTheSameBytesAcrossTheCorpus) {
  int models = 0;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(ONNXOPT_TESTDATA_DIR)) {
    if (!entry.is_regular_file() || entry.path().filename() != "model.onnx") continue;
    SCOPED_TRACE(entry.path().string());
    const std::string input = readFile(entry.path());
    onnx::ModelProto model;
    ASSERT_TRUE(model.ParseFromString(input));
    OptimizeOptions options;
    options.external_data_dir = entry.path().parent_path().string();
    absl::Status status = optimize(model, "-O0", options);
    ASSERT_TRUE(status.ok()) << status;
    ASSERT_TRUE(model.SerializeAsString() == input);
    ++models;
  }
  EXPECT_GT(models, 1000);
}

TEST(Optimize, InPlaceMovesTheWeightsInsteadOfCopyingThem) {
  onnx::ModelProto model;
  ASSERT_TRUE(model.ParseFromString(readFile(legacyClassifier())));
  const onnx::TensorProto* largest = nullptr;
  for (const onnx::TensorProto& tensor : model.graph().initializer()) {
    if (!largest || tensor.raw_data().size() > largest->raw_data().size()) largest = &tensor;
  }
  ASSERT_NE(largest, nullptr);
  ASSERT_GT(largest->raw_data().size(), 10000u);
  const std::string name = largest->name();
  const char* bytes = largest->raw_data().data();
  const std::string before = model.SerializeAsString();

  ASSERT_TRUE(optimize(model, "-O0").ok());
  EXPECT_EQ(model.SerializeAsString(), before);
  bool found = false;
  for (const onnx::TensorProto& tensor : model.graph().initializer()) {
    if (tensor.name() != name) continue;
    found = true;
    EXPECT_EQ(static_cast<const void*>(tensor.raw_data().data()), static_cast<const void*>(bytes))
        << "the weights were copied";
  }
  EXPECT_TRUE(found);
}

TEST(Optimize, WeightsInAttributesAndSubgraphsSurvive) {
  onnx::ModelProto model = parse(kWeightsEverywhere);
  const std::string before = model.SerializeAsString();
  OptimizeOptions options;
  options.verify_each = true;
  options.fixed_point = true;
  // -O1 but lift-constants, which makes the Constant an initializer (its own golden cases).
  ASSERT_TRUE(optimize(model,
                       "legalize-subgraph-outputs,fold-shapes,eliminate-nop-expand,"
                       "fuse-matmul-add-gemm,fuse-transpose-gemm,fold-constants,eliminate-dead-nodes",
                       options)
                  .ok());
  EXPECT_EQ(model.SerializeAsString(), before);  // nothing dead
}

TEST(Optimize, InitializersSharingATensorAreEachExported) {
  onnx::ModelProto model = parse(kWeightsEverywhere);
  const PassRegistry registry = testRegistry();
  OptimizeOptions options;
  options.registry = &registry;
  ASSERT_TRUE(optimize(model, "alias-initializers", options).ok());
  ASSERT_EQ(model.graph().initializer_size(), 2);
  const onnx::TensorProto& w = model.graph().initializer(0);
  const onnx::TensorProto& alias = model.graph().initializer(1);
  EXPECT_EQ(w.name(), "W");
  EXPECT_EQ(alias.name(), "W_alias");
  onnx::TensorProto renamed = alias;
  renamed.set_name("W");
  EXPECT_EQ(renamed.SerializeAsString(), w.SerializeAsString());
  // The If branch's initializer was aliased too.
  const onnx::GraphProto& then_branch = model.graph().node(3).attribute(0).g();
  ASSERT_EQ(then_branch.initializer_size(), 2);
  EXPECT_EQ(then_branch.initializer(1).name(), "V_alias");
  EXPECT_EQ(then_branch.initializer(1).float_data_size() + then_branch.initializer(1).raw_data().size(),
            then_branch.initializer(0).float_data_size() + then_branch.initializer(0).raw_data().size());
}

// ---- files ----

TEST(OptimizeFile, WritesTheOptimizedModel) {
  TempDir dir;
  const std::string input = (dir.path() / "in.onnx").string();
  const std::string output = (dir.path() / "out.onnx").string();
  {
    std::ofstream out(input, std::ios::binary);
    ASSERT_TRUE(parse(kDeadNodes).SerializeToOstream(&out));
  }
  PipelineReport report;
  OptimizeOptions options;
  options.report = &report;
  options.verify_each = true;
  ASSERT_TRUE(optimizeFile(input, output, "-O1", options).ok());
  onnx::ModelProto result;
  ASSERT_TRUE(result.ParseFromString(readFile(output)));
  EXPECT_EQ(result.graph().node_size(), 1);
  EXPECT_FALSE(report.runs.empty());
}

TEST(OptimizeFile, SameInputAndOutput) {
  TempDir dir;
  const std::string path = (dir.path() / "model.onnx").string();
  std::filesystem::copy_file(legacyClassifier(), path);
  ASSERT_TRUE(optimizeFile(path, path, "-O0").ok());
  EXPECT_EQ(readFile(path), readFile(legacyClassifier()));
}

TEST(OptimizeFile, ErrorsNameTheFileAndWriteNothing) {
  TempDir dir;
  const std::string missing = (dir.path() / "missing.onnx").string();
  const std::string output = (dir.path() / "out.onnx").string();
  absl::Status status = optimizeFile(missing, output, "-O1");
  ASSERT_FALSE(status.ok());
  EXPECT_THAT(std::string(status.message()), HasSubstr(missing));
  EXPECT_FALSE(std::filesystem::exists(output));

  // A failing pass: the error names the input, the pass and the node; no output.
  const std::string input = (dir.path() / "in.onnx").string();
  {
    onnx::ModelProto model = parse(kDeadNodes);
    model.mutable_graph()->mutable_node(1)->set_name("the_neg");
    std::ofstream out(input, std::ios::binary);
    ASSERT_TRUE(model.SerializeToOstream(&out));
  }
  const PassRegistry registry = testRegistry();
  OptimizeOptions options;
  options.registry = &registry;
  status = optimizeFile(input, output, "fail-on-neg", options);
  ASSERT_FALSE(status.ok());
  EXPECT_THAT(std::string(status.message()), HasSubstr(input));
  EXPECT_THAT(std::string(status.message()), HasSubstr("fail-on-neg"));
  EXPECT_THAT(std::string(status.message()), HasSubstr("node 'the_neg' (Neg)"));
  EXPECT_FALSE(std::filesystem::exists(output));
}

TEST(OptimizeFile, BadPipelineWritesNothing) {
  TempDir dir;
  const std::string output = (dir.path() / "out.onnx").string();
  absl::Status status = optimizeFile(legacyClassifier().string(), output, "-O7");
  ASSERT_FALSE(status.ok());
  EXPECT_FALSE(std::filesystem::exists(output));
}

// ---- targets (OptimizeOptions::target, as onnx-opt --target) ----

// A layer norm written out at opset 17 (fuse-layer-norm, which the ort and tensorrt targets run
// and -O1 does not, makes it one LayerNormalization), a dynamic batch N, an op of another
// domain and an INT64 weight outside int32: what the tensorrt target reports.
constexpr char kTargetModel[] = R"(
<ir_version: 8, opset_import: ["" : 17, "com.example" : 1]>
norm (float[N,3,4] X, int64[2] I) => (float[N,3,4] Y, float[N,3,4] T, int64[2] B)
<float two = {2.0}, float eps = {1e-05}, int64[2] big = {3, 4294967296}>
{
  m = ReduceMean<axes = [-1]>(X)
  d = Sub(X, m)
  p = Pow(d, two)
  v = ReduceMean<axes = [-1]>(p)
  ve = Add(v, eps)
  s = Sqrt(ve)
  Y = Div(d, s)
  T = com.example.Twice(X)
  B = Mul(I, big)
}
)";

int countOps(const onnx::ModelProto& model, const std::string& op_type) {
  int count = 0;
  for (const onnx::NodeProto& node : model.graph().node()) count += node.op_type() == op_type;
  return count;
}

TEST(MakePassManager, TargetBuildsItsPipeline) {
  for (const Target& target : builtinTargets()) {
    OptimizeOptions options;
    options.target = target.name;
    auto manager = makePassManager("-O1", options);
    ASSERT_TRUE(manager.ok()) << target.name << ": " << manager.status();
    EXPECT_EQ(manager->pipelineText(), *targetPipeline(target)) << target.name;
    EXPECT_TRUE(manager->options().fixed_point) << target.name;
  }
}

TEST(Optimize, TargetRunsItsPipeline) {
  for (const char* name : {"ort", "tensorrt"}) {
    onnx::ModelProto model = parse(kTargetModel);
    OptimizeOptions options;
    options.target = name;
    ASSERT_TRUE(optimize(model, "-O1", options).ok()) << name;
    EXPECT_EQ(countOps(model, "LayerNormalization"), 1) << name;
    EXPECT_EQ(countOps(model, "ReduceMean"), 0) << name;
  }
  onnx::ModelProto generic = parse(kTargetModel);
  OptimizeOptions options;
  options.target = "generic";
  ASSERT_TRUE(optimize(generic, "-O1", options).ok());
  EXPECT_EQ(countOps(generic, "LayerNormalization"), 0);
  EXPECT_EQ(countOps(generic, "ReduceMean"), 2);
}

TEST(Optimize, TargetTakesSkippedPasses) {
  onnx::ModelProto model = parse(kTargetModel);
  OptimizeOptions options;
  options.target = "ort";
  options.skip = {"fuse-layer-norm"};
  ASSERT_TRUE(optimize(model, "-O1", options).ok());
  EXPECT_EQ(countOps(model, "LayerNormalization"), 0);
}

TEST(Optimize, TensorRtTargetFindingsAreInTheReport) {
  onnx::ModelProto model = parse(kTargetModel);
  PipelineReport report;
  OptimizeOptions options;
  options.target = "tensorrt";
  options.report = &report;
  ASSERT_TRUE(optimize(model, "-O1", options).ok());
  ASSERT_TRUE(report.tensorrt.has_value());
  ASSERT_EQ(report.tensorrt->dynamic_dims.size(), 1u);
  EXPECT_EQ(report.tensorrt->dynamic_dims[0].input, "X");
  EXPECT_EQ(report.tensorrt->dynamic_dims[0].index, 0);
  EXPECT_EQ(report.tensorrt->dynamic_dims[0].symbol, "N");
  ASSERT_EQ(report.tensorrt->int64_overflows.size(), 1u);
  EXPECT_EQ(report.tensorrt->int64_overflows[0].name, "big");
  EXPECT_EQ(report.tensorrt->int64_overflows[0].value, 4294967296);
  ASSERT_EQ(report.tensorrt->non_onnx_ops.size(), 1u);
  EXPECT_EQ(report.tensorrt->non_onnx_ops[0].first, "com.example.Twice");

  // optimizeBytes() reports the same; the fixed dim is no longer dynamic.
  std::string bytes;
  ASSERT_TRUE(parse(kTargetModel).SerializeToString(&bytes));
  options.input_shapes = {{"X", {2, 3, 4}}};
  ASSERT_TRUE(optimizeBytes(bytes, "-O1", options).ok());
  ASSERT_TRUE(report.tensorrt.has_value());
  EXPECT_TRUE(report.tensorrt->dynamic_dims.empty());
  EXPECT_EQ(report.tensorrt->int64_overflows.size(), 1u);
}

TEST(Optimize, OnlyTheTensorRtTargetReportsFindings) {
  for (const std::optional<std::string>& target :
       {std::optional<std::string>(), std::optional<std::string>("generic"),
        std::optional<std::string>("ort")}) {
    onnx::ModelProto model = parse(kTargetModel);
    PipelineReport report;
    OptimizeOptions options;
    options.target = target;
    options.report = &report;
    ASSERT_TRUE(optimize(model, "-O1", options).ok()) << target.value_or("(none)");
    EXPECT_FALSE(report.tensorrt.has_value()) << target.value_or("(none)");
  }
}

TEST(Optimize, TargetErrorsLeaveTheModel) {
  const onnx::ModelProto original = parse(kTargetModel);
  struct Case {
    std::string target;
    std::string pipeline;
    std::vector<std::string> expected;
  };
  const std::vector<Case> cases = {
      {"tpu", "-O1", {"unknown target 'tpu'; valid targets: generic, ort, tensorrt"}},
      {"ort", "-O2", {"the target 'ort' is a pipeline of its own", "the pipeline '-O2'"}},
      {"generic", "eliminate-dead-nodes", {"pipeline 'eliminate-dead-nodes'"}},
  };
  for (const Case& c : cases) {
    onnx::ModelProto model = original;
    OptimizeOptions options;
    options.target = c.target;
    absl::Status status = optimize(model, c.pipeline, options);
    EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << c.target << ": " << status;
    for (const std::string& text : c.expected) {
      EXPECT_THAT(std::string(status.message()), HasSubstr(text));
    }
    EXPECT_EQ(model.SerializeAsString(), original.SerializeAsString()) << c.target;
  }
}

// ---- registration in the global registry, as out-of-tree code does ----

TEST(Registry, OutOfTreePassRunsThroughTheOneCallApi) {
  class CountNodes final : public Pass {
   public:
    CountNodes() : Pass("api-test-count-nodes") {}
    absl::StatusOr<bool> run(ir::Model& model, PassContext& context) override {
      context.statistics().nodes_visited += static_cast<int64_t>(model.graph().numNodes());
      return false;
    }
  };
  absl::Status registered = PassRegistry::global().registerPass(
      {"api-test-count-nodes", "counts nodes", [] { return std::make_unique<CountNodes>(); }});
  ASSERT_TRUE(registered.ok()) << registered;
  onnx::ModelProto model = parse(kDeadNodes);
  PipelineReport report;
  OptimizeOptions options;
  options.report = &report;
  ASSERT_TRUE(optimize(model, "api-test-count-nodes,eliminate-dead-nodes,api-test-count-nodes",
                       options)
                  .ok());
  ASSERT_EQ(report.runs.size(), 3u);
  EXPECT_EQ(report.runs[0].statistics.nodes_visited, 4);
  EXPECT_EQ(report.runs[2].statistics.nodes_visited, 1);
}

}  // namespace
}  // namespace onnxopt
