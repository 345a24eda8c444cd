#include <algorithm>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "onnxopt/ir/printer.h"
#include "onnxopt/ir/serialization.h"
#include "onnxopt/ir/text_reader.h"
#include "test_models.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "gtest/gtest.h"
#include "onnxopt/ir/verifier.h"
#include "onnxopt/pass/input_shapes.h"
#include "onnxopt/pass/pass_manager.h"
#include "onnxopt/pass/pass_registry.h"
#include "onnxopt/rewrite/pattern_pass.h"
#include "onnxopt/rewrite/rewriter.h"

namespace onnxopt {
namespace {

using testing::parseModel;

// Options of every type; changes nothing.
class OptionsPass final : public Pass {
 public:
  OptionsPass() : Pass("options-pass") {}
  absl::StatusOr<bool> run(ir::Model&, PassContext&) override { return false; }
  PassOption<bool> flag{*this, "flag", false, "a bool"};
  PassOption<int64_t> count{*this, "count", 3, "an int"};
  PassOption<std::string> label{*this, "label", "none", "a string"};
};

PassRegistry registryWithOptionsPass() {
  PassRegistry registry = PassRegistry::withBuiltinPasses();
  EXPECT_TRUE(registry
                  .registerPass({"options-pass", "test pass with options",
                                 [] { return std::make_unique<OptionsPass>(); }})
                  .ok());
  return registry;
}

std::string printParsed(const PassRegistry& registry, const std::string& text) {
  PassManager pass_manager;
  const absl::Status status = pass_manager.addPipeline(text, registry);
  EXPECT_TRUE(status.ok()) << status;
  return pass_manager.pipelineText();
}

absl::Status parseError(const PassRegistry& registry, const std::string& text) {
  return registry.parsePipeline(text).status();
}

TEST(PassRegistry, ListsTheBuiltinPasses) {
  const PassRegistry& registry = PassRegistry::global();
  const PassInfo* info = registry.lookup("eliminate-dead-nodes");
  ASSERT_NE(info, nullptr);
  EXPECT_FALSE(info->summary.empty());
  std::vector<std::string> names;
  for (const PassInfo* pass : registry.passes()) names.push_back(pass->name);
  EXPECT_TRUE(std::is_sorted(names.begin(), names.end())) << "listed by name";
}

TEST(PassRegistry, PipelineTextPrintsBackIdentically) {
  const PassRegistry registry = registryWithOptionsPass();
  for (const std::string text :
       {"", "eliminate-dead-nodes", "eliminate-dead-nodes{max-iterations=3}",
        "options-pass,eliminate-dead-nodes{max-iterations=3}",
        "options-pass{label=x,flag=true,count=-2},options-pass{count=7}"}) {
    EXPECT_EQ(printParsed(registry, text), text);
  }
  EXPECT_EQ(printParsed(registry, " options-pass { flag = false } , eliminate-dead-nodes "),
            "options-pass{flag=false},eliminate-dead-nodes");
}

TEST(PassRegistry, OptionsSetFromCodePrint) {
  OptionsPass pass;
  EXPECT_EQ(pass.pipelineText(), "options-pass");
  pass.count.setValue(5);
  EXPECT_EQ(pass.pipelineText(), "options-pass{count=5}");
  EXPECT_EQ(*pass.count, 5);
}

TEST(PassRegistry, ErrorsListWhatIsValid) {
  const PassRegistry registry = registryWithOptionsPass();
  const std::string unknown(parseError(registry, "eliminate-dead-nodez").message());
  EXPECT_EQ(unknown.rfind("pipeline 'eliminate-dead-nodez', column 1: unknown pass "
                          "'eliminate-dead-nodez'; valid passes: ", 0), 0u) << unknown;
  EXPECT_NE(unknown.find("eliminate-dead-nodes, "), std::string::npos) << unknown;
  EXPECT_NE(unknown.find("options-pass"), std::string::npos) << unknown;
  EXPECT_EQ(parseError(registry, "options-pass{colour=red}").message(),
            "pipeline 'options-pass{colour=red}', column 14: pass 'options-pass' has no option "
            "'colour'; valid options: flag (bool, default false), count (int, default 3), "
            "label (string, default none)");
  EXPECT_NE(parseError(registry, "options-pass{count=three}")
                .message()
                .find("option 'count' of pass 'options-pass': expected an integer, got 'three'"),
            std::string::npos);
  EXPECT_NE(parseError(registry, "options-pass{flag=1}").message().find("expected true or false"),
            std::string::npos);
  EXPECT_NE(parseError(registry, "options-pass{count=1").message().find("expected ',' or '}'"),
            std::string::npos);
  EXPECT_NE(parseError(registry, "options-pass,").message().find("expected a pass name"),
            std::string::npos);
  EXPECT_NE(parseError(registry, "options-pass options-pass").message().find("expected ','"),
            std::string::npos);
}

TEST(PassRegistry, RegistrationChecksNames) {
  PassRegistry registry = registryWithOptionsPass();
  auto factory = [] { return std::make_unique<OptionsPass>(); };
  EXPECT_EQ(registry.registerPass({"options-pass", "again", factory}).code(),
            absl::StatusCode::kAlreadyExists);
  EXPECT_EQ(registry.registerPass({"Bad Name", "", factory}).code(),
            absl::StatusCode::kInvalidArgument);
  // A factory whose pass has another name would print a pipeline that does not parse back.
  ASSERT_TRUE(registry.registerPass({"misnamed", "", factory}).ok());
  EXPECT_EQ(registry.createPass("misnamed").status().code(), absl::StatusCode::kInternal);
}

TEST(PassRegistry, NamedPipelines) {
  const PassRegistry& registry = PassRegistry::global();
  EXPECT_EQ(*registry.namedPipeline("O0"), "");
  // -O1 legalizes first and removes what the others left unused last; -O2 adds
  // fuse-parallel-matmuls and fuse-matmul-add-gemm's option.
  const std::string o1 = *registry.namedPipeline("O1");
  EXPECT_TRUE(absl::StartsWith(o1, "legalize-subgraph-outputs,")) << o1;
  EXPECT_TRUE(absl::EndsWith(o1, ",eliminate-dead-nodes")) << o1;
  EXPECT_EQ(*registry.namedPipeline("O2"),
            absl::StrReplaceAll(
                o1, {{"fuse-matmul-add-gemm,",
                      "fuse-parallel-matmuls,fuse-matmul-add-gemm{allow-reshape=true},"}}));
  for (const NamedPipeline& named : registry.namedPipelines()) {
    EXPECT_TRUE(registry.parsePipeline(named.pipeline).ok()) << named.name;
  }
  EXPECT_EQ(registry.namedPipeline("O3").status().message(),
            "no pipeline named 'O3'; known: O0, O1, O2");
}

TEST(PassRegistry, PipelineTextMayNameAPipeline) {
  const PassRegistry& registry = PassRegistry::global();
  absl::StatusOr<std::vector<std::unique_ptr<Pass>>> passes =
      registry.parsePipeline("eliminate-identity, -O1");
  ASSERT_TRUE(passes.ok()) << passes.status();
  ASSERT_EQ(passes->size(), 1 + registry.parsePipeline(*registry.namedPipeline("O1"))->size());
  EXPECT_EQ(passes->front()->name(), "eliminate-identity");
  EXPECT_EQ(passes->back()->name(), "eliminate-dead-nodes");
  EXPECT_EQ(registry.parsePipeline("-O3").status().message(),
            "pipeline '-O3', column 1: no pipeline named 'O3'; known: O0, O1, O2");
}

constexpr char kModel[] = R"(
<ir_version: 8, opset_import: ["" : 13]>
model (float[N] X) => (float[N] Y)
<float[1] unused = {1.0}>
{
  n = Neg(X)
  a = Abs(n)
  bad = Relu(a)
  Y = Relu(bad)
  dead = Exp(X)
}
)";

TEST(PassManager, RunsThePipelineWithStatistics) {
  auto model = parseModel(kModel);
  PassManagerOptions options;
  options.verify_each = true;
  PassManager pass_manager(options);
  ASSERT_TRUE(pass_manager.addPipeline("eliminate-dead-nodes").ok());
  absl::StatusOr<PipelineReport> report = pass_manager.run(*model);
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_TRUE(report->changed);
  ASSERT_EQ(report->runs.size(), 1u);
  const PassStatistics& statistics = report->runs[0].statistics;
  EXPECT_EQ(statistics.nodes_removed, 1);
  EXPECT_EQ(statistics.initializers_removed, 1);
  // One iteration, no re-check: the five nodes, and the Neg again, X's one reader left once the
  // dead Exp went (a pattern that wanted X read once might match now).
  EXPECT_EQ(statistics.nodes_visited, 6);
  const std::string table = formatPassStatistics(*report);
  EXPECT_NE(table.find("eliminate-dead-nodes"), std::string::npos) << table;
  EXPECT_NE(formatPassTimings(*report).find("total"), std::string::npos);
}

// Rewrites Relu(x) into Sigmoid(x) until it meets the node named "bad", where it fails.
class FailOnBadNode final : public RewritePattern {
 public:
  FailOnBadNode() : RewritePattern("fail-on-bad-node", {"Relu"}) {}
  LogicalResult matchAndRewrite(const ir::Node& relu, PatternRewriter& rewriter) const override {
    if (relu.name() == "bad") {
      return rewriter.emitError(relu, absl::InvalidArgumentError("cannot handle this node"));
    }
    if (failed(rewriter.match(relu))) return failure();
    ir::Node* sigmoid = rewriter.createNode("Sigmoid", {relu.input(0)}, {relu.output(0)->name()});
    rewriter.replaceNode(relu, {sigmoid->output(0)});
    return success();
  }
};

class FailingPass final : public PatternPass {
 public:
  FailingPass() : PatternPass("failing-pass") {}

 private:
  void populatePatterns(RewritePatternSet& patterns) const override {
    patterns.add<FailOnBadNode>();
  }
};

TEST(PassManager, AFailingPassNamesTheNodeAndLeavesAValidModel) {
  auto model = parseModel(R"(
<ir_version: 8, opset_import: ["" : 13]>
model (float[N] X) => (float[N] Y) {
  r = Relu(X)
  bad = Relu(r)
  Y = Exp(bad)
}
)");
  // Nodes from the text have no names: name the one that fails.
  testing::findNode(model->graph(), "bad")->setName("bad");
  PassManager pass_manager;
  pass_manager.addPass(std::make_unique<FailingPass>());
  absl::StatusOr<PipelineReport> report = pass_manager.run(*model);
  ASSERT_FALSE(report.ok());
  EXPECT_EQ(report.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(report.status().message(),
            "pass 'failing-pass': node 'bad' (Relu): cannot handle this node "
            "(pattern 'fail-on-bad-node')");
  // The rewrite before the failure is complete.
  EXPECT_TRUE(ir::verify(*model).ok());
  EXPECT_NE(ir::printModel(*model).find("r = Sigmoid(X)"), std::string::npos)
      << ir::printModel(*model);
}

// Corrupts the model behind the IR's back: erases a node whose output is still read.
class BreakingPass final : public Pass {
 public:
  BreakingPass() : Pass("breaking-pass") {}
  absl::StatusOr<bool> run(ir::Model& model, PassContext&) override {
    model.graph().eraseNode(model.graph().firstNode());
    return true;
  }
};

TEST(PassManager, VerifyEachNamesThePassThatBrokeTheModel) {
  auto model = parseModel(kModel);
  PassManagerOptions options;
  options.verify_each = true;
  PassManager pass_manager(options);
  pass_manager.addPass(std::make_unique<BreakingPass>());
  absl::StatusOr<PipelineReport> report = pass_manager.run(*model);
  ASSERT_FALSE(report.ok());
  EXPECT_NE(report.status().message().find("the model is invalid after pass 'breaking-pass'"),
            std::string::npos)
      << report.status();
}

// Changes the model in its first `changing_runs` runs.
class CountdownPass final : public Pass {
 public:
  explicit CountdownPass(int changing_runs) : Pass("countdown"), remaining_(changing_runs) {}
  // Renames the first node directly, without a rewriter, while it has changes left.
  absl::StatusOr<bool> run(ir::Model& model, PassContext&) override {
    if (remaining_-- <= 0) return false;
    model.graph().firstNode()->setName(model.nodeNames().fresh("countdown"));
    return true;
  }

 private:
  int remaining_;
};

TEST(PassManager, FixedPointRepeatsUntilNothingChanges) {
  auto model = parseModel(kModel);
  PassManagerOptions options;
  options.fixed_point = true;
  PassManager pass_manager(options);
  pass_manager.addPass(std::make_unique<CountdownPass>(2));
  absl::StatusOr<PipelineReport> report = pass_manager.run(*model);
  ASSERT_TRUE(report.ok());
  EXPECT_EQ(report->rounds, 3);
  EXPECT_TRUE(report->reached_fixed_point);
  EXPECT_TRUE(report->warnings.empty());
}

// Counts its runs; changes nothing.
class RunCounter final : public Pass {
 public:
  explicit RunCounter(int* runs) : Pass("run-counter"), runs_(runs) {}
  absl::StatusOr<bool> run(ir::Model&, PassContext&) override {
    ++*runs_;
    return false;
  }

 private:
  int* runs_;
};

// A pass is a function of the model: one that changed nothing is not run again on the model it
// left. The confirming round reruns the pass before the change, not the one after it.
TEST(PassManager, APassThatChangedNothingIsNotRerunOnAnUnchangedModel) {
  auto model = parseModel(kModel);
  PassManagerOptions options;
  options.fixed_point = true;
  PassManager pass_manager(options);
  int before = 0;
  int after = 0;
  pass_manager.addPass(std::make_unique<RunCounter>(&before));
  pass_manager.addPass(std::make_unique<CountdownPass>(1));
  pass_manager.addPass(std::make_unique<RunCounter>(&after));
  absl::StatusOr<PipelineReport> report = pass_manager.run(*model);
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_EQ(report->rounds, 2);
  EXPECT_EQ(before, 2);
  EXPECT_EQ(after, 1);
  EXPECT_EQ(report->runs.size(), 5u) << "skipped runs are not reported";
}

TEST(PassManager, FixedPointCapIsReported) {
  auto model = parseModel(kModel);
  PassManagerOptions options;
  options.fixed_point = true;
  options.max_fixed_point_rounds = 2;
  PassManager pass_manager(options);
  pass_manager.addPass(std::make_unique<CountdownPass>(5));
  absl::StatusOr<PipelineReport> report = pass_manager.run(*model);
  ASSERT_TRUE(report.ok());
  EXPECT_EQ(report->rounds, 2);
  EXPECT_FALSE(report->reached_fixed_point);
  ASSERT_EQ(report->warnings.size(), 1u);
  EXPECT_NE(report->warnings[0].find("after 2 rounds"), std::string::npos);

  pass_manager.options().require_convergence = true;
  EXPECT_EQ(pass_manager.run(*model).status().code(), absl::StatusCode::kResourceExhausted);
}

// A chain of 50 Relus ending in a Gemm whose weight is transposed: fuse-transpose-gemm folds the
// Transpose and touches the Gemm, nothing else.
std::string reluChainIntoTransposedGemm() {
  std::string text =
      "<ir_version: 8, opset_import: [\"\" : 13]>\n"
      "chain (float[N, 4] X) => (float[N, 4] Y) <float[4, 4] W = {1.0, 2.0, 3.0, 4.0, 5.0, 6.0, "
      "7.0, 8.0, 9.0, 10.0, 11.0, 12.0, 13.0, 14.0, 15.0, 16.0}> {\n";
  std::string previous = "X";
  for (int i = 0; i < 50; ++i) {
    text += "  r" + std::to_string(i) + " = Relu(" + previous + ")\n";
    previous = "r" + std::to_string(i);
  }
  text += "  Wt = Transpose<perm = [1, 0]>(W)\n  Y = Gemm(" + previous + ", Wt)\n}\n";
  return text;
}

// Runs `pipeline`, then `extra_pass` if given, to a fixed point on `model`.
absl::StatusOr<PipelineReport> runToFixedPoint(ir::Model& model, const std::string& pipeline,
                                               std::unique_ptr<Pass> extra_pass = nullptr) {
  PassManagerOptions options;
  options.fixed_point = true;
  PassManager pass_manager(options);
  if (absl::Status status = pass_manager.addPipeline(pipeline); !status.ok()) return status;
  if (extra_pass) pass_manager.addPass(std::move(extra_pass));
  return pass_manager.run(model);
}

int64_t initializersNamed(const ir::Model& model, absl::string_view name) {
  const std::vector<ir::Value*> initializers = model.graph().initializers();
  return std::count_if(initializers.begin(), initializers.end(),
                       [&](const ir::Value* initializer) { return initializer->name() == name; });
}

// Values an inlined branch moves out keep their declarations, whatever their kind: a sequence's
// was written as a tensor of no element type, which ONNX Runtime refuses to load. (The golden
// files' parser, libonnx's, reads no sequence declaration.)
TEST(PassManager, InlinedValuesKeepDeclarationsOfEveryKind) {
  absl::StatusOr<onnx::ModelProto> proto = ir::readModelText(R"(<ir_version: 8, opset_import: ["" : 13]>
g (float[2] X) => (float[2] Y) <
  bool c = {1},
  int64 zero = {0}
> {
  Y = If<then_branch = then_graph () => (float[2] t_out) <
    seq(float[2]) s,
    optional(float[2]) o
  > {
    s = SequenceConstruct(X)
    o = Optional(X)
    x = OptionalGetElement(o)
    t = SequenceAt(s, zero)
    t_out = Add(t, x)
  }, else_branch = else_graph () => (float[2] e_out) {
    e_out = Identity(X)
  }>(c)
}
)");
  ASSERT_TRUE(proto.ok()) << proto.status();
  absl::StatusOr<std::unique_ptr<ir::Model>> model = ir::importModel(*std::move(proto));
  ASSERT_TRUE(model.ok()) << model.status();
  absl::StatusOr<PipelineReport> report =
      runToFixedPoint(**model, "eliminate-if-constant-condition");
  ASSERT_TRUE(report.ok()) << report.status();
  const std::string printed = ir::printModel(**model);
  EXPECT_TRUE(absl::StrContains(printed, "seq(float[2]) s_1")) << printed;
  EXPECT_TRUE(absl::StrContains(printed, "optional(float[2]) o_1")) << printed;
  EXPECT_FALSE(absl::StrContains(printed, "undefined")) << printed;
}

// --dim fixes a symbol in every declaration that names it, those of sequences and optionals
// included: fixed in the tensors only, a sequence input would keep elements of N rows beside
// tensors of 3. M is named inside a sequence only.
TEST(FixDims, FixesSymbolsInsideSequenceAndOptionalDeclarations) {
  absl::StatusOr<onnx::ModelProto> proto = ir::readModelText(R"(<ir_version: 8, opset_import: ["" : 15]>
g (seq(float[N,2]) S, optional(float[N,2]) O, seq(float[M]) T, float[N,2] X) => (float[N,2] Y) <
  int64 zero = {0}
> {
  a = SequenceAt(S, zero)
  b = OptionalGetElement(O)
  c = Add(a, b)
  Y = Add(c, X)
}
)");
  ASSERT_TRUE(proto.ok()) << proto.status();
  absl::StatusOr<std::unique_ptr<ir::Model>> model = ir::importModel(*std::move(proto));
  ASSERT_TRUE(model.ok()) << model.status();
  const DimValue dims[] = {{"N", 3}, {"M", 5}};
  absl::StatusOr<std::vector<FixedDim>> fixed = fixDims(**model, {}, dims);
  ASSERT_TRUE(fixed.ok()) << fixed.status();
  EXPECT_EQ(formatFixedDims(*fixed), "N=3 (4 declarations), M=5 (1 declaration)");
  const std::string printed = ir::printModel(**model);
  EXPECT_TRUE(absl::StrContains(
      printed, "(seq(float[3,2]) S, optional(float[3,2]) O, seq(float[5]) T, float[3,2] X) => "
               "(float[3,2] Y)"))
      << printed;
}

// A LayerNorm whose scale is a Constant of sparse_value, which no pass reads as a constant: the
// fusion takes the normalization without the scale and leaves the Mul by it.
TEST(PassManager, LayerNormScaleOfASparseConstantStaysAMul) {
  onnx::ModelProto proto = testing::parseProto(R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[2,3,4] X) => (float[2,3,4] Y) <float eps = {1e-05}, float[4] B = {0.0, 0.0, 0.0, 0.0}> {
  m = ReduceMean<axes = [-1]>(X)
  d = Sub(X, m)
  p = Mul(d, d)
  v = ReduceMean<axes = [-1]>(p)
  ve = Add(v, eps)
  s = Sqrt(ve)
  n = Div(d, s)
  S = Constant<value = float[4] {1.0, 1.0, 1.0, 1.0}>()
  sc = Mul(n, S)
  Y = Add(sc, B)
}
)");
  onnx::NodeProto& constant = *proto.mutable_graph()->mutable_node(7);
  ASSERT_EQ(constant.op_type(), "Constant");
  onnx::AttributeProto& attribute = *constant.mutable_attribute(0);
  attribute.Clear();
  attribute.set_name("sparse_value");
  attribute.set_type(onnx::AttributeProto::SPARSE_TENSOR);
  onnx::SparseTensorProto& sparse = *attribute.mutable_sparse_tensor();
  sparse.add_dims(4);
  sparse.mutable_values()->set_data_type(onnx::TensorProto::FLOAT);
  sparse.mutable_values()->add_dims(2);
  sparse.mutable_values()->add_float_data(2.0f);
  sparse.mutable_values()->add_float_data(3.0f);
  sparse.mutable_indices()->set_data_type(onnx::TensorProto::INT64);
  sparse.mutable_indices()->add_dims(2);
  sparse.mutable_indices()->add_int64_data(0);
  sparse.mutable_indices()->add_int64_data(2);
  absl::StatusOr<std::unique_ptr<ir::Model>> model = ir::importModel(std::move(proto));
  ASSERT_TRUE(model.ok()) << model.status();
  absl::StatusOr<PipelineReport> report = runToFixedPoint(**model, "fuse-layer-norm");
  ASSERT_TRUE(report.ok()) << report.status();
  const std::string printed = ir::printModel(**model);
  EXPECT_TRUE(absl::StrContains(printed, "LayerNormalization")) << printed;
  EXPECT_TRUE(absl::StrContains(printed, "sc = Mul(")) << printed;
}

// A taken branch with a sparse initializer stays an If: inlineSubgraph() moves no sparse
// initializer (the golden files' parser reads none).
TEST(PassManager, TakenBranchWithASparseInitializerStaysAnIf) {
  onnx::ModelProto proto = testing::parseProto(R"(
<ir_version: 8, opset_import: ["" : 13]>
g (float[4] X) => (float[4] Y) <bool c = {1}> {
  Y = If(c) <then_branch = then_graph () => (float[4] t_out) {
      t_out = Add(X, W)
    }, else_branch = else_graph () => (float[4] e_out) {
      e_out = Abs(X)
    }>
}
)");
  onnx::GraphProto& then_graph = *proto.mutable_graph()->mutable_node(0)->mutable_attribute(0)->mutable_g();
  ASSERT_EQ(then_graph.name(), "then_graph");
  onnx::SparseTensorProto& sparse = *then_graph.add_sparse_initializer();
  sparse.add_dims(4);
  sparse.mutable_values()->set_name("W");
  sparse.mutable_values()->set_data_type(onnx::TensorProto::FLOAT);
  sparse.mutable_values()->add_dims(1);
  sparse.mutable_values()->add_float_data(2.0f);
  sparse.mutable_indices()->set_data_type(onnx::TensorProto::INT64);
  sparse.mutable_indices()->add_dims(1);
  sparse.mutable_indices()->add_int64_data(1);
  absl::StatusOr<std::unique_ptr<ir::Model>> model = ir::importModel(std::move(proto));
  ASSERT_TRUE(model.ok()) << model.status();
  absl::StatusOr<PipelineReport> report =
      runToFixedPoint(**model, "eliminate-if-constant-condition");
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_FALSE(report->runs[0].changed);
  const std::string printed = ir::printModel(**model);
  EXPECT_TRUE(absl::StrContains(printed, "Y = If<")) << printed;
}

TEST(PassManager, LaterRoundsOfferPatternPassesOnlyTheNodesTouchedSince) {
  auto model = parseModel(reluChainIntoTransposedGemm());
  absl::StatusOr<PipelineReport> report =
      runToFixedPoint(*model, "eliminate-dead-nodes,fuse-transpose-gemm");
  ASSERT_TRUE(report.ok()) << report.status();
  ASSERT_EQ(report->rounds, 2);
  ASSERT_EQ(report->runs.size(), 4u);
  EXPECT_EQ(report->runs[0].statistics.nodes_visited, 52);
  EXPECT_TRUE(report->runs[1].changed);
  // Round 2: eliminate-dead-nodes sees the Gemm that fuse-transpose-gemm rewrote, not the chain;
  // fuse-transpose-gemm sees nothing, as nothing changed after it reached its fixed point.
  EXPECT_EQ(report->runs[2].statistics.nodes_visited, 1);
  EXPECT_EQ(report->runs[3].statistics.nodes_visited, 0);
  EXPECT_FALSE(report->runs[2].changed || report->runs[3].changed);
  EXPECT_EQ(model->graph().numNodes(), 51u);
  EXPECT_EQ(model->graph().lastNode()->intAttr("transB", 0), 1);
}

// fold-shapes reads types: in round 2 it must see Gather(Shape(S)) again, two nodes below the
// Slice that fold-constants touched (its starts became a constant, and S's dim 0 known), though
// neither node was touched itself.
TEST(PassManager, LaterRoundsOfferPassesThatReadTypesTheNodesDownstreamOfAChange) {
  auto model = parseModel(R"(
<ir_version: 8, opset_import: ["" : 13]>
g (float[2,8] X) => (int64 D) <int64 start = {1}, int64[1] zero = {0}, int64[1] end = {4},
                                 int64[1] axis = {1}> {
  U = Unsqueeze(start, zero)
  S = Slice(X, U, end, axis)
  H = Shape(S)
  D = Gather(H, start)
}
)");
  absl::StatusOr<PipelineReport> report = runToFixedPoint(*model, "fold-shapes,fold-constants");
  ASSERT_TRUE(report.ok()) << report.status();
  for (const ir::Node& node : model->graph()) {
    EXPECT_NE(node.opType(), "Gather") << "Gather(Shape(S), 1) is S's known dim 3";
  }
}

// A weight whose last reader a rewrite erased goes at once, not at eliminate-dead-nodes: a fold
// never holds the old weight next to the new one. One still read stays.
TEST(PassManager, AnInitializerARewriteLeavesUnreadGoesWithIt) {
  auto model = parseModel(R"(
<ir_version: 8, opset_import: ["" : 13]>
g (float[2,2] X) => (float[2,2] Y, float[2,2] Z)
    <float[2,2] W = {1, 2, 3, 4}, float[2,2] V = {5, 6, 7, 8}> {
  T = Transpose(W)
  Y = MatMul(X, T)
  R = Transpose(V)
  Q = Add(R, X)
  Z = Mul(Q, V)
}
)");
  absl::StatusOr<PipelineReport> report = runToFixedPoint(*model, "fold-constants");
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_EQ(initializersNamed(*model, "W"), 0);
  EXPECT_EQ(initializersNamed(*model, "V"), 1) << "Mul still reads V";
  EXPECT_EQ(report->runs[0].statistics.initializers_removed, 1);
}

// A weight a rewrite stopped reading through setInput() goes at the rewrite's end too: a Conv
// fusion never holds the old weight next to the fused one (resnet18 in training mode: 45 MB).
// One another node still reads stays.
TEST(PassManager, AnInitializerARewriteRewiredAwayFromGoesAtItsEnd) {
  auto model = parseModel(R"(
<ir_version: 8, opset_import: ["" : 13]>
g (float[1,2,3,3] X) => (float[1,2,3,3] Y, float[1,2,3,3] Z)
    <float[2,2,1,1] W = {1, 2, 3, 4}, float[2,2,1,1] V = {5, 6, 7, 8},
     float[2,1,1] S = {2, 3}> {
  C = Conv(X, W)
  Y = Mul(C, S)
  D = Conv(X, V)
  E = Mul(D, S)
  Z = Add(E, V2)
  V2 = Conv(X, V)
}
)");
  absl::StatusOr<PipelineReport> report = runToFixedPoint(*model, "fuse-mul-into-conv");
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_EQ(initializersNamed(*model, "W"), 0);
  EXPECT_EQ(initializersNamed(*model, "V"), 1) << "the Conv making V2 still reads V";
}

// Later rounds find the touched main-graph nodes in the change journal; a touched subgraph node
// is not recorded there, and sends the next round back to offering every node.
TEST(PassManager, LaterRoundsFindNodesTouchedInsideSubgraphs) {
  auto model = parseModel(R"(
<ir_version: 8, opset_import: ["" : 13]>
branchy (bool C, float[2, 4] X) => (float[2, 4] Y) <float[4, 4] W = {1.0, 2.0, 3.0, 4.0, 5.0,
    6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0, 13.0, 14.0, 15.0, 16.0}> {
  r = Relu(X)
  Y = If(C) <then_branch = t () => (float[2, 4] a) {
                Wt = Transpose<perm = [1, 0]>(W)
                a = Gemm(r, Wt)
              },
              else_branch = e () => (float[2, 4] b) { b = Neg(r) }>
}
)");
  ASSERT_NE(model, nullptr);
  absl::StatusOr<PipelineReport> report =
      runToFixedPoint(*model, "eliminate-dead-nodes,fuse-transpose-gemm");
  ASSERT_TRUE(report.ok()) << report.status();
  ASSERT_EQ(report->rounds, 2);
  ASSERT_EQ(report->runs.size(), 4u);
  EXPECT_TRUE(report->runs[1].changed);
  EXPECT_EQ(report->runs[2].statistics.nodes_visited, 4) << "every node, the branches' too";
  EXPECT_EQ(report->runs[3].statistics.nodes_visited, 0)
      << "nothing changed after fuse-transpose-gemm converged";
}

TEST(PassManager, AChangeMadeWithoutTheRewriterMakesTheNextRoundVisitEveryNode) {
  auto model = parseModel(reluChainIntoTransposedGemm());
  absl::StatusOr<PipelineReport> report =
      runToFixedPoint(*model, "eliminate-dead-nodes", std::make_unique<CountdownPass>(1));
  ASSERT_TRUE(report.ok()) << report.status();
  ASSERT_EQ(report->rounds, 2);
  EXPECT_EQ(report->runs[0].statistics.nodes_visited, 52);
  EXPECT_EQ(report->runs[2].statistics.nodes_visited, 52)
      << "countdown changed the model without a rewriter: nothing says which nodes it touched";
}

std::vector<std::string> printedAfter(IrPrintingOptions printing) {
  std::vector<std::string> printed;
  printing.print = [&printed](const Pass& pass, int64_t, const ir::Model&) {
    printed.push_back(pass.name());
  };
  auto model = parseModel(kModel);
  PassManagerOptions options;
  options.print_ir = printing;
  PassManager pass_manager(options);
  pass_manager.addPass(std::make_unique<CountdownPass>(0));
  EXPECT_TRUE(pass_manager.addPipeline("eliminate-dead-nodes,eliminate-dead-nodes").ok());
  EXPECT_TRUE(pass_manager.run(*model).ok());
  return printed;
}

TEST(PassManager, PrintsTheIrAfterTheSelectedPasses) {
  using Names = std::vector<std::string>;
  IrPrintingOptions all;
  all.after_all = true;
  EXPECT_EQ(printedAfter(all),
            (Names{"countdown", "eliminate-dead-nodes", "eliminate-dead-nodes"}));
  IrPrintingOptions changed;
  changed.after_change = true;
  EXPECT_EQ(printedAfter(changed), (Names{"eliminate-dead-nodes"}));
  IrPrintingOptions named;
  named.after_passes = {"countdown"};
  EXPECT_EQ(printedAfter(named), (Names{"countdown"}));
  named.after_change = true;
  EXPECT_EQ(printedAfter(named), Names{});
}

// `text` with an update binding of `bound` in its training_info, after `pipeline`.
std::unique_ptr<ir::Model> runWithTrainingBinding(const std::string& text, const std::string& bound,
                                                  const std::string& pipeline) {
  onnx::ModelProto proto = testing::parseProto(text);
  auto* binding = proto.add_training_info()->add_update_binding();
  binding->set_key(bound);
  binding->set_value("W_new");
  absl::StatusOr<std::unique_ptr<ir::Model>> model = ir::importModel(std::move(proto));
  EXPECT_TRUE(model.ok()) << model.status();
  if (!model.ok()) return std::make_unique<ir::Model>();
  PassManager pass_manager;
  EXPECT_TRUE(pass_manager.addPipeline(pipeline).ok());
  EXPECT_TRUE(pass_manager.run(**model).ok());
  return *std::move(model);
}

std::vector<std::string> initializerNames(const ir::Model& model) {
  std::vector<std::string> names;
  for (const ir::Value* initializer : model.graph().initializers()) {
    names.push_back(initializer->name());
  }
  return names;
}

TEST(PassManager, EliminateDeadNodesKeepsInitializersTrainingInfoBinds) {
  const std::unique_ptr<ir::Model> model = runWithTrainingBinding(R"(
<ir_version: 8, opset_import: ["" : 13]>
m (float[2] X) => (float[2] Y) <float[2] W = {1.0, 2.0}, float[2] unused = {3.0, 4.0}> {
  Y = Relu(X)
}
)", "W", "eliminate-dead-nodes");
  EXPECT_EQ(initializerNames(*model), std::vector<std::string>{"W"})
      << "W is updated by training; unused goes";
}

// An initializer training binds (update or initialization binding) is updated by training: it
// neither reads through an equal initializer nor is read in place of one, whichever comes first.
TEST(PassManager, EliminateDuplicateInitializersKeepsInitializersTrainingInfoBinds) {
  for (const char* bound : {"W1", "W2"}) {
    const std::unique_ptr<ir::Model> model = runWithTrainingBinding(R"(
<ir_version: 8, opset_import: ["" : 13]>
m (float[2] X) => (float[2] Y, float[2] Z) <float[2] W1 = {1.0, 2.0}, float[2] W2 = {1.0, 2.0}> {
  Y = Add(X, W1)
  Z = Mul(X, W2)
}
)", bound, "eliminate-duplicate-initializers");
    EXPECT_EQ(initializerNames(*model), (std::vector<std::string>{"W1", "W2"}))
        << bound << " is updated by training";
    EXPECT_TRUE(absl::StrContains(ir::printModel(*model), "Z = Mul(X, W2)")) << bound;
  }
}

// Passes of one pipeline share one ShapeOracle, so ONNX shape inference runs at most once per
// round; a round that follows changes starts with a fresh one.
TEST(AnalysisManager, ShapesAreSharedWithinARoundAndRecomputedAfterChanges) {
  auto model = parseModel(reluChainIntoTransposedGemm());
  AnalysisManager analyses(*model);
  ChangeJournal journal(*model);
  analyses.shapes();
  absl::StatusOr<std::unique_ptr<Pass>> pass = PassRegistry::global().createPass("fuse-transpose-gemm");
  ASSERT_TRUE(pass.ok());
  PassContext context;
  context.setShared(&analyses, &journal);
  ASSERT_TRUE(*(*pass)->run(*model, context)) << "the pass rewrote the Gemm";
  analyses.shapes();
  EXPECT_EQ(analyses.shapeComputations(), 1) << "kept through the rewriter's changes";
  analyses.beginRound();
  analyses.shapes();
  EXPECT_EQ(analyses.shapeComputations(), 2) << "the model changed since: computed anew";
  analyses.beginRound();
  analyses.shapes();
  EXPECT_EQ(analyses.shapeComputations(), 2) << "nothing changed: kept";
}

// The main graph's op types, in order.
std::vector<std::string> opTypes(const ir::Graph& graph) {
  std::vector<std::string> ops;
  for (const ir::Node& node : graph) ops.push_back(node.opType());
  return ops;
}

// A Reshape whose shape folds has known dims, so the Shape read after it folds in the same
// round, and the next Reshape's shape with it: -O1 settles in one round and the round that
// confirms it, however many such steps the model chains (Swin-T has 15).
TEST(PassManager, O1FoldsAChainOfShapesComputedFromShapesInOneRound) {
  auto model = parseModel(R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[2,3,4] X, float[12] scale) => (float[?,?] Y)
<int64[1] zero = {0}, int64[1] one = {1}, int64[1] big = {100}, int64[1] minus_one = {-1}>
{
  s1 = Shape(X)
  d1 = Gather<axis = 0>(s1, zero)
  m1 = Mod(d1, big)
  c1 = Concat<axis = 0>(m1, minus_one)
  r1 = Reshape(X, c1)
  n1 = LayerNormalization(r1, scale)
  s2 = Shape(n1)
  d2 = Gather<axis = 0>(s2, one)
  m2 = Mod(d2, big)
  c2 = Concat<axis = 0>(m2, minus_one)
  r2 = Reshape(n1, c2)
  a2 = Relu(r2)
  s3 = Shape(a2)
  d3 = Gather<axis = 0>(s3, zero)
  m3 = Mod(d3, big)
  c3 = Concat<axis = 0>(minus_one, m3)
  Y = Reshape(a2, c3)
}
)");
  ASSERT_NE(model, nullptr);
  absl::StatusOr<PipelineReport> report =
      runToFixedPoint(*model, *PassRegistry::global().namedPipeline("O1"));
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_EQ(report->rounds, 2);
  EXPECT_EQ(opTypes(model->graph()), (std::vector<std::string>{"Reshape", "LayerNormalization",
                                                               "Reshape", "Relu", "Reshape"}));
}

TEST(PassManager, DebugSinkHearsTheDriver) {
  auto model = parseModel(kModel);
  std::vector<std::string> lines;
  PassManagerOptions options;
  options.debug_sink = [&lines](absl::string_view line) { lines.push_back(std::string(line)); };
  PassManager pass_manager(options);
  ASSERT_TRUE(pass_manager.addPipeline("eliminate-dead-nodes").ok());
  ASSERT_TRUE(pass_manager.run(*model).ok());
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0], "erased dead node with output 'dead' (Exp)");
}

TEST(PassManager, ProgressSinkFollowsPassesAndTheDriver) {
  // A chain of 5000 Adds: the rewrite driver of eliminate-dead-nodes visits 5000 nodes a round.
  std::string text = "<ir_version: 8, opset_import: [\"\" : 13]>\nchain (float[2] X) => (float[2] Y) {\n";
  std::string previous = "X";
  for (int i = 0; i < 5000; ++i) {
    const std::string value = i == 4999 ? "Y" : "v" + std::to_string(i);
    text += "  " + value + " = Add(" + previous + ", " + previous + ")\n";
    previous = value;
  }
  text += "}\n";
  auto model = parseModel(text);
  struct Call {
    int64_t round;
    size_t position;
    size_t passes;
    std::string pass;
    int64_t nodes_visited;
  };
  std::vector<Call> calls;
  PassManagerOptions options;
  options.fixed_point = true;
  options.progress = [&calls](const PipelineProgress& at) {
    calls.push_back({at.round, at.position, at.passes, std::string(at.pass), at.nodes_visited});
  };
  PassManager pass_manager(options);
  // The second pass is offered the nodes of its root ops only: every node is an Add.
  ASSERT_TRUE(pass_manager.addPipeline("eliminate-dead-nodes,eliminate-nop-arithmetic").ok());
  absl::StatusOr<PipelineReport> report = pass_manager.run(*model);
  ASSERT_TRUE(report.ok()) << report.status();
  ASSERT_EQ(report->rounds, 1);
  int64_t visited = 0;
  for (const PassRun& run : report->runs) visited += run.statistics.nodes_visited;
  ASSERT_EQ(report->runs[0].statistics.nodes_visited, 5000);

  // Before each pass, at node 4096 of each pass, and at the end.
  ASSERT_EQ(calls.size(), 5u);
  const std::vector<std::tuple<size_t, std::string, int64_t>> expected = {
      {0, "eliminate-dead-nodes", 0},
      {0, "eliminate-dead-nodes", 4096},
      {1, "eliminate-nop-arithmetic", 5000},
      {1, "eliminate-nop-arithmetic", 5000 + 4096},
      {2, "", visited}};
  for (size_t i = 0; i < calls.size(); ++i) {
    EXPECT_EQ(calls[i].round, 1) << i;
    EXPECT_EQ(calls[i].passes, 2u) << i;
    EXPECT_EQ(std::make_tuple(calls[i].position, calls[i].pass, calls[i].nodes_visited),
              expected[i])
        << "call " << i;
  }
}

TEST(PassManager, LaterPassesAreOfferedOnlyTheNodesOfTheirRootOps) {
  // 3000 Relus and one Expand: the first pass walks every node and lists them by op; the second
  // (rooted at Expand) is offered only the Expand, and still removes it.
  std::string text = "<ir_version: 8, opset_import: [\"\" : 13]>\nchain (float[2] X) => (float[2] Y) {\n"
                     "  shape = Constant<value = int64[1] {2}>()\n  e = Expand(X, shape)\n";
  std::string previous = "e";
  for (int i = 0; i < 3000; ++i) {
    const std::string value = i == 2999 ? "Y" : "v" + std::to_string(i);
    text += "  " + value + " = Relu(" + previous + ")\n";
    previous = value;
  }
  text += "}\n";
  auto model = parseModel(text);
  PassManager pass_manager;
  ASSERT_TRUE(pass_manager.addPipeline("eliminate-dead-nodes,eliminate-nop-expand").ok());
  absl::StatusOr<PipelineReport> report = pass_manager.run(*model);
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_EQ(report->runs[0].statistics.nodes_visited, 3002);
  EXPECT_LT(report->runs[1].statistics.nodes_visited, 10);
  EXPECT_EQ(report->runs[1].statistics.nodes_rewritten, 1);
  EXPECT_EQ(model->graph().numNodes(), 3000u);
}

// Reads the type of its root's operand, then declines: a pass whose patterns read types.
class RecordTypedNegOffers final : public RewritePattern {
 public:
  explicit RecordTypedNegOffers(std::vector<std::string>* offers)
      : RewritePattern("record-typed-neg-offers", {"Neg"}), offers_(offers) {}
  LogicalResult matchAndRewrite(const ir::Node& node, PatternRewriter& rewriter) const override {
    offers_->push_back(node.output(0)->name());
    rewriter.shapes().typeOf(*node.input(0));
    return failure();
  }

 private:
  std::vector<std::string>* offers_;
};

class RecordTypedNegOffersPass final : public PatternPass {
 public:
  explicit RecordTypedNegOffersPass(std::vector<std::string>* offers)
      : PatternPass("record-typed-neg-offers"), offers_(offers) {}

 private:
  void populatePatterns(RewritePatternSet& patterns) const override {
    patterns.add<RecordTypedNegOffers>(offers_);
  }
  std::vector<std::string>* offers_;
};

// A pass whose patterns read types resumes in round 2 from the nodes of its root operators (and
// those changed since they were listed), a superset of what a change may make match: not from
// the whole chain below the change, which it would otherwise walk in every round.
TEST(PassManager, LaterRoundsOfferPassesThatReadTypesTheirRootNodesNotTheChainBelowAChange) {
  std::string text = R"(
<ir_version: 8, opset_import: ["" : 13]>
g (float[N] X) => (float[N] Y) {
  k = Constant<value = float {1.0}>()
  b = Add(X, k)
  n = Neg(b)
)";
  std::string previous = "n";
  for (int i = 0; i < 200; ++i) {
    const std::string value = i == 199 ? "Y" : absl::StrCat("r", i);
    absl::StrAppend(&text, "  ", value, " = Relu(", previous, ")\n");
    previous = value;
  }
  auto model = parseModel(text + "}\n");
  ASSERT_NE(model, nullptr);
  std::vector<std::string> offers;
  PassManagerOptions options;
  options.fixed_point = true;
  PassManager pass_manager(options);
  pass_manager.addPass(std::make_unique<RecordTypedNegOffersPass>(&offers));
  ASSERT_TRUE(pass_manager.addPipeline("lift-constants").ok());
  absl::StatusOr<PipelineReport> report = pass_manager.run(*model);
  ASSERT_TRUE(report.ok()) << report.status();
  ASSERT_EQ(report->rounds, 2);
  ASSERT_EQ(report->runs.size(), 4u);
  EXPECT_TRUE(report->runs[1].changed) << "lift-constants changed the Add's operand";
  // Round 2: the Neg again (the Add's type may be better known), and none of the 200 Relus.
  EXPECT_EQ(report->runs[2].statistics.nodes_visited, 1);
  EXPECT_EQ(offers, (std::vector<std::string>{"n", "n"}));
}

class RecordOffersPass final : public PatternPass {
 public:
  RecordOffersPass(std::vector<std::string>* offers, const char* other_op = "Add")
      : PatternPass("record-offers"), offers_(offers), other_op_(other_op) {}

 private:
  void populatePatterns(RewritePatternSet& patterns) const override {
    patterns.add<testing::RecordVisits>("Relu", offers_);
    patterns.add<testing::RecordVisits>(other_op_, offers_);
  }
  std::vector<std::string>* offers_;
  const char* other_op_;
};

// A later pass is offered the nodes of its root ops and the nodes changed since they were listed
// in the graph's order, the changed among the others: a node comes after those it reads.
TEST(PassManager, LaterPassesAreOfferedTheChangedNodesInListOrder) {
  auto model = parseModel(R"(
<ir_version: 8, opset_import: ["" : 13]>
g (float[N] X) => (float[N] Y) {
  k = Constant<value = float {1.0}>()
  a = Relu(X)
  b = Add(a, k)
  c = Relu(b)
  d = Relu(c)
  e = Relu(d)
  Y = Relu(e)
}
)");
  ASSERT_NE(model, nullptr);
  std::vector<std::string> offers;
  PassManager pass_manager;
  ASSERT_TRUE(pass_manager.addPipeline("lift-constants").ok());
  pass_manager.addPass(std::make_unique<RecordOffersPass>(&offers));
  absl::StatusOr<PipelineReport> report = pass_manager.run(*model);
  ASSERT_TRUE(report.ok()) << report.status();
  ASSERT_EQ(report->runs[1].statistics.nodes_visited, 6) << "the listed nodes, not a new list";
  EXPECT_EQ(offers, (std::vector<std::string>{"a", "b", "c", "d", "e", "Y"}))
      << "lift-constants changed the Add's operand";

  // A node made since the listing comes right after the last listed node it reads.
  std::string text = R"(
<ir_version: 8, opset_import: ["" : 13]>
g (float[N,2] X) => (float[N,2] n12) <float[2,2] W = {1.0, 2.0, 3.0, 4.0}, float[2] B = {1.0, 2.0}> {
  p = Relu(X)
  a = Relu(p)
  m = MatMul(a, W)
  s = Add(m, B)
  n0 = Relu(s)
)";
  for (int i = 1; i <= 12; ++i) absl::StrAppend(&text, "  n", i, " = Neg(n", i - 1, ")\n");
  auto fused = parseModel(text + "}\n");
  ASSERT_NE(fused, nullptr);
  offers.clear();
  PassManager fusing;
  ASSERT_TRUE(fusing.addPipeline("fuse-matmul-add-gemm").ok());
  fusing.addPass(std::make_unique<RecordOffersPass>(&offers, "Gemm"));
  report = fusing.run(*fused);
  ASSERT_TRUE(report.ok()) << report.status();
  ASSERT_LT(report->runs[1].statistics.nodes_visited, 16) << "the listed nodes, not a new list";
  EXPECT_EQ(offers, (std::vector<std::string>{"p", "a", "s", "n0"}))
      << "the Gemm that took over the Add's output comes second";
}

// A later round offers a pass the readers of the nodes changed since it last ran too: a pattern
// rooted at the Conv looks at the Pad that feeds it, whose pads fold-constants made a constant
// after fuse-pad-into-conv had declined.
TEST(PassManager, LaterRoundsOfferTheReadersOfChangedNodes) {
  auto model = parseModel(R"(
<ir_version: 8, opset_import: ["" : 13]>
g (float[1,2,4,4] X, float[3,2,3,3] W) => (float[1,3,4,6] Y)
<int64[4] spatial = {0, 0, 1, 2}> {
  pads = Concat<axis = 0>(spatial, spatial)
  p = Pad(X, pads)
  Y = Conv(p, W)
}
)");
  ASSERT_NE(model, nullptr);
  ASSERT_TRUE(runToFixedPoint(*model, "fuse-pad-into-conv,fold-constants").ok());
  EXPECT_EQ(opTypes(model->graph()), std::vector<std::string>{"Conv"})
      << "the Pad folded into the Conv in round 2";
}

// A pattern that looks several producers up is offered again when a change that far up makes
// it match: fuse-gelu's final Mul, once eliminate-nop-expand made the Div four nodes up read X
// like the product does.
TEST(PassManager, LaterRoundsOfferDeepPatternsTheReadersAsFarDownAsTheyLook) {
  auto model = parseModel(R"(
<ir_version: 8, opset_import: ["" : 20]>
g (float[N] X) => (float[N] Y) <int64[1] one = {1}, float s = {1.4142135}, float o = {1.0}, float h = {0.5}> {
  e = Expand(X, one)
  d = Div(e, s)
  f = Erf(d)
  a = Add(f, o)
  m = Mul(X, a)
  Y = Mul(m, h)
}
)");
  ASSERT_NE(model, nullptr);
  ASSERT_TRUE(runToFixedPoint(*model, "fuse-gelu,eliminate-nop-expand").ok());
  EXPECT_EQ(opTypes(model->graph()), std::vector<std::string>{"Gelu"})
      << "the Gelu fused in round 2";
}

TEST(PassManager, PassTotalsSumRunsPerPass) {
  PipelineReport report;
  PassRun first;
  first.pass = "a";
  first.position = 0;
  first.changed = true;
  first.statistics.nodes_removed = 2;
  first.seconds = 0.5;
  PassRun second = first;
  second.round = 2;
  second.changed = false;
  second.statistics.nodes_removed = 1;
  PassRun other;
  other.pass = "b";
  other.position = 1;
  report.runs = {first, other, second};
  const std::vector<PassTotals> totals = passTotals(report);
  ASSERT_EQ(totals.size(), 2u);
  EXPECT_EQ(totals[0].pass, "a");
  EXPECT_EQ(totals[0].runs, 2);
  EXPECT_TRUE(totals[0].changed);
  EXPECT_EQ(totals[0].statistics.nodes_removed, 3);
  EXPECT_DOUBLE_EQ(totals[0].seconds, 1.0);
  EXPECT_EQ(totals[1].runs, 1);
  EXPECT_FALSE(totals[1].changed);
}

}  // namespace
}  // namespace onnxopt
