#include "onnxopt/rewrite/greedy_driver.h"

#include <algorithm>
#include <functional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "onnxopt/ir/printer.h"
#include "onnxopt/ir/serialization.h"
#include "test_models.h"
#include "gtest/gtest.h"
#include "onnxopt/ir/verifier.h"
#include "onnxopt/rewrite/rewriter.h"
#include "onnxopt/rewrite/shape_oracle.h"
#include "onnxopt/rewrite/tensor_util.h"

namespace onnxopt {
namespace {

using testing::findNode;
using testing::parseModel;
using testing::RecordVisits;

ir::Node* producerOf(const ir::Value* value) { return value ? value->producer() : nullptr; }

// Relu(x) -> a new Relu(x), forever.
class RecreateRelu final : public RewritePattern {
 public:
  RecreateRelu() : RewritePattern("recreate-relu", {"Relu"}) {}
  LogicalResult matchAndRewrite(const ir::Node& relu, PatternRewriter& rewriter) const override {
    if (failed(rewriter.match(relu))) return failure();
    ir::Node* copy = rewriter.createNode("Relu", {relu.input(0)}, {relu.output(0)->name()});
    rewriter.replaceNode(relu, {copy->output(0)});
    return success();
  }
};

// Relu(x) -> Relu(Relu(x)), forever: the graph grows by a node on every rewrite.
class DoubleRelu final : public RewritePattern {
 public:
  DoubleRelu() : RewritePattern("double-relu", {"Relu"}) {}
  LogicalResult matchAndRewrite(const ir::Node& relu, PatternRewriter& rewriter) const override {
    if (failed(rewriter.match(relu))) return failure();
    ir::Node* inner = rewriter.createNode("Relu", {relu.input(0)}, {"inner"});
    ir::Node* outer = rewriter.createNode("Relu", {inner->output(0)}, {relu.output(0)->name()});
    rewriter.replaceNode(relu, {outer->output(0)});
    return success();
  }
};

// Relu(Abs(Neg(x))) -> Sigmoid(x), absorbing Abs and Neg; with `erase_producers` it erases them
// itself instead of leaving them to the driver.
class FoldReluAbsNeg final : public RewritePattern {
 public:
  explicit FoldReluAbsNeg(bool erase_producers)
      : RewritePattern("fold-relu-abs-neg", {"Relu"}), erase_producers_(erase_producers) {}
  LogicalResult matchAndRewrite(const ir::Node& relu, PatternRewriter& rewriter) const override {
    ir::Node* abs = producerOf(relu.input(0));
    if (abs == nullptr || !abs->is("Abs")) return rewriter.notifyMatchFailure(relu, "no Abs");
    ir::Node* neg = producerOf(abs->input(0));
    if (neg == nullptr || !neg->is("Neg")) return rewriter.notifyMatchFailure(relu, "no Neg");
    if (failed(rewriter.match(relu, {abs, neg}))) return failure();
    ir::Node* sigmoid = rewriter.createNode("Sigmoid", {neg->input(0)}, {"folded"});
    rewriter.replaceNode(relu, {sigmoid->output(0)});
    if (erase_producers_) {
      rewriter.eraseNode(*abs);
      rewriter.eraseNode(*neg);
    }
    return success();
  }

 private:
  bool erase_producers_;
};

// Relu(x) -> Sigmoid(x), the new node named after `node_name_hint`.
class ReluToNamedSigmoid final : public RewritePattern {
 public:
  explicit ReluToNamedSigmoid(std::string node_name_hint)
      : RewritePattern("relu-to-named-sigmoid", {"Relu"}), hint_(std::move(node_name_hint)) {}
  LogicalResult matchAndRewrite(const ir::Node& relu, PatternRewriter& rewriter) const override {
    if (failed(rewriter.match(relu))) return failure();
    ir::Node* sigmoid =
        rewriter.createNode("Sigmoid", {relu.input(0)}, {relu.output(0)->name()}, "", hint_);
    rewriter.replaceNode(relu, {sigmoid->output(0)});
    return success();
  }

 private:
  std::string hint_;
};

struct DriverRun {
  absl::StatusOr<GreedyRewriteResult> result;
  PassContext context;
  std::vector<std::string> debug_lines;
};

void runDriver(ir::Model& model, const RewritePatternSet& patterns, DriverRun& run,
               GreedyRewriteConfig config = {}) {
  run.context.setDebugSink(
      [&run](absl::string_view line) { run.debug_lines.push_back(std::string(line)); });
  run.result = GreedyRewriteDriver(patterns, config, run.context).run(model);
}

constexpr char kChain[] = R"(
<ir_version: 8, opset_import: ["" : 13]>
chain (float[N] X) => (float[N] Y) {
  n = Neg(X)
  a = Abs(n)
  Y = Relu(a)
}
)";

TEST(GreedyDriver, CyclingPatternReportsNonConvergence) {
  auto model = parseModel(kChain);
  RewritePatternSet patterns;
  patterns.add<RecreateRelu>();
  DriverRun run;
  runDriver(*model, patterns, run);
  ASSERT_TRUE(run.result.ok()) << run.result.status();
  EXPECT_FALSE(run.result->converged);
  EXPECT_TRUE(run.result->changed);
  EXPECT_NE(run.result->non_convergence.find("recreate-relu"), std::string::npos)
      << run.result->non_convergence;
  // Each iteration that hits its rewrite limit is followed by another, max-iterations in all.
  EXPECT_EQ(run.result->iterations, GreedyRewriteConfig().max_iterations);
  EXPECT_NE(run.result->non_convergence.find("rewrites in iteration 10"), std::string::npos)
      << run.result->non_convergence;
  ASSERT_EQ(run.context.warnings().size(), 1u);
  EXPECT_NE(run.context.warnings()[0].find("did not converge"), std::string::npos);
  EXPECT_TRUE(ir::verify(*model).ok());
}

// The rewrite limit comes from the model's size before the run: a pattern that grows the graph
// does not raise it (it grew 11-fold an iteration when each iteration counted the nodes anew).
TEST(GreedyDriver, AGrowingPatternIsStoppedAtALimitSetBeforeTheRun) {
  auto model = parseModel(kChain);
  RewritePatternSet patterns;
  patterns.add<DoubleRelu>();
  DriverRun run;
  runDriver(*model, patterns, run);
  ASSERT_TRUE(run.result.ok()) << run.result.status();
  EXPECT_FALSE(run.result->converged);
  const int64_t limit = 10 * 3 + 100;  // 3 nodes before the run
  EXPECT_NE(run.result->non_convergence.find(absl::StrCat("more than ", limit, " rewrites")),
            std::string::npos)
      << run.result->non_convergence;
  EXPECT_LE(model->graph().numNodes(), 3 + GreedyRewriteConfig().max_iterations * (limit + 1));
  EXPECT_TRUE(ir::verify(*model).ok());
}

TEST(GreedyDriver, MustConvergeModeFailsOnACycle) {
  auto model = parseModel(kChain);
  RewritePatternSet patterns;
  patterns.add<RecreateRelu>();
  DriverRun run;
  run.context.setRequireConvergence(true);
  runDriver(*model, patterns, run);
  ASSERT_FALSE(run.result.ok());
  EXPECT_EQ(run.result.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_TRUE(ir::verify(*model).ok());
}

TEST(GreedyDriver, StopsWhenTheWorklistDrainsUnlessAskedToConfirm) {
  auto model = parseModel(kChain);
  RewritePatternSet patterns;
  patterns.add<FoldReluAbsNeg>(false);
  DriverRun run;
  runDriver(*model, patterns, run);
  ASSERT_TRUE(run.result.ok()) << run.result.status();
  EXPECT_TRUE(run.result->converged);
  EXPECT_EQ(run.result->iterations, 1);
  EXPECT_EQ(model->graph().numNodes(), 1u);
}

constexpr char kNegRelu[] = R"(
<ir_version: 8, opset_import: ["" : 13]>
neg_relu (float[N] X) => (float[N] Y) {
  n = Neg(X)
  Y = Relu(n)
}
)";

TEST(GreedyDriver, CreatedNodesAreNamedAfterTheHintOrTheRootAndNeverClash) {
  for (const auto& [hint, expected] : std::vector<std::pair<std::string, std::string>>{
           {"fresh", "fresh"}, {"taken", "taken_1"}, {"", "act_1"}}) {
    auto model = parseModel(kNegRelu);
    findNode(model->graph(), "n")->setName("taken");
    findNode(model->graph(), "Y")->setName("act");
    RewritePatternSet patterns;
    patterns.add<ReluToNamedSigmoid>(hint);
    DriverRun run;
    runDriver(*model, patterns, run);
    ASSERT_TRUE(run.result.ok()) << run.result.status();
    const ir::Node* sigmoid = model->graph().lastNode();
    ASSERT_TRUE(sigmoid->is("Sigmoid"));
    EXPECT_EQ(sigmoid->name(), expected) << "hint '" << hint << "'";
    EXPECT_EQ(sigmoid->output(0)->name(), "Y");
  }
}

TEST(GreedyDriver, ReplacementTakesOverTheDeclarationInItsPlace) {
  onnx::ModelProto proto = testing::parseProto(R"(
<ir_version: 8, opset_import: ["" : 13]>
declared (float[N] X) => (float[N] Y) {
  n = Neg(X)
  r = Relu(n)
  Y = Abs(r)
}
)");
  for (const char* name : {"n", "r", "Y_before"}) {
    onnx::ValueInfoProto* info = proto.mutable_graph()->add_value_info();
    info->set_name(name);
    info->set_doc_string(std::string("about ") + name);
    ir::Type::tensor(onnx::TensorProto::FLOAT, ir::Shape{ir::Dim::symbolic("N")})
        .writeTo(info->mutable_type());
  }
  auto model = ir::importModel(std::move(proto));
  ASSERT_TRUE(model.ok()) << model.status();
  RewritePatternSet patterns;
  patterns.add<ReluToNamedSigmoid>("sigmoid");
  DriverRun run;
  runDriver(**model, patterns, run);
  ASSERT_TRUE(run.result.ok()) << run.result.status();

  const ir::Value* r = (*model)->graph().findValue("r");
  ASSERT_NE(r, nullptr);
  ASSERT_TRUE(r->producer()->is("Sigmoid"));
  ASSERT_NE(r->valueInfo(), nullptr);
  EXPECT_EQ(r->valueInfo()->doc_string(), "about r");
  auto saved = ir::exportModel(**model);
  ASSERT_TRUE(saved.ok()) << saved.status();
  std::vector<std::string> order;
  for (const auto& info : saved->graph().value_info()) order.push_back(info.name());
  EXPECT_EQ(order, (std::vector<std::string>{"n", "r", "Y_before"}));
}

// Relu(x) -> Sigmoid(x), the Sigmoid taking over the Relu's output value.
class ReluToSigmoidInPlace final : public RewritePattern {
 public:
  ReluToSigmoidInPlace() : RewritePattern("relu-to-sigmoid-in-place", {"Relu"}) {}
  LogicalResult matchAndRewrite(const ir::Node& relu, PatternRewriter& rewriter) const override {
    if (failed(rewriter.match(relu))) return failure();
    rewriter.replaceRootWithNewNode("Sigmoid", {relu.input(0)});
    return success();
  }
};

TEST(GreedyDriver, ANewNodeTakesOverTheRootsOutputValues) {
  onnx::ModelProto proto = testing::parseProto(R"(
<ir_version: 8, opset_import: ["" : 13]>
in_place (float[N] X) => (float[N] Y, float[N] Z) {
  r = Relu(X)
  Y = Abs(r)
  Z = Identity(r)
}
)");
  onnx::ValueInfoProto* info = proto.mutable_graph()->add_value_info();
  info->set_name("r");
  info->set_doc_string("about r");
  ir::Type::tensor(onnx::TensorProto::FLOAT, ir::Shape{ir::Dim::symbolic("N")})
      .writeTo(info->mutable_type());
  auto model = ir::importModel(std::move(proto));
  ASSERT_TRUE(model.ok()) << model.status();
  const ir::Value* r = (*model)->graph().findValue("r");
  const ir::Node* relu = r->producer();
  RewritePatternSet patterns;
  patterns.add<ReluToSigmoidInPlace>();
  DriverRun run;
  runDriver(**model, patterns, run);
  ASSERT_TRUE(run.result.ok()) << run.result.status();

  EXPECT_TRUE(relu->isErased());
  ASSERT_TRUE(r->producer()->is("Sigmoid")) << "the same value, now the Sigmoid's";
  EXPECT_EQ(r->producerOutputIndex(), 0u);
  EXPECT_EQ(r->name(), "r");
  EXPECT_EQ(r->uses().size(), 2u);
  ASSERT_NE(r->valueInfo(), nullptr);
  EXPECT_EQ(r->valueInfo()->doc_string(), "about r");
  EXPECT_TRUE(ir::verify(**model).ok()) << ir::verify(**model);
  // No fresh value name was taken: the first one asked for "r" is still "r_1".
  EXPECT_EQ((*model)->valueNames().fresh("r"), "r_1");
}

// The root goes in the same call: its replacement, named after it by default, keeps its name
// as it is ("/layer/Einsum", not "/layer/Einsum_1"); an unnamed root's gets the op type.
TEST(GreedyDriver, AReplacementTakesTheRootsNameAsItIs) {
  for (const std::string& root_name : {std::string("/layer/Relu"), std::string()}) {
    auto model = parseModel(kChain);
    ir::Node* relu = findNode(model->graph(), "Y");
    relu->setName(root_name);
    RewritePatternSet patterns;
    patterns.add<ReluToSigmoidInPlace>();
    DriverRun run;
    runDriver(*model, patterns, run);
    ASSERT_TRUE(run.result.ok()) << run.result.status();
    const ir::Node* sigmoid = model->graph().outputs()[0]->producer();
    ASSERT_TRUE(sigmoid->is("Sigmoid"));
    EXPECT_EQ(sigmoid->name(), root_name.empty() ? "Sigmoid" : root_name);
  }
}

// Relu(Neg(x)) -> Sigmoid(x) named after the Neg it absorbs; with `keep_neg`, the Sigmoid
// also reads the Neg, which then stays.
class FoldNegIntoSigmoid final : public RewritePattern {
 public:
  explicit FoldNegIntoSigmoid(bool keep_neg)
      : RewritePattern("fold-neg-into-sigmoid", {"Relu"}), keep_neg_(keep_neg) {}
  LogicalResult matchAndRewrite(const ir::Node& relu, PatternRewriter& rewriter) const override {
    const ir::Node* neg = relu.input(0)->producer();
    if (neg == nullptr || !neg->is("Neg") || failed(rewriter.match(relu, {neg}))) {
      return failure();
    }
    ir::Value* operand = keep_neg_ ? neg->output(0) : neg->input(0);
    rewriter.replaceRootWithNewNode("Sigmoid", {operand}, "", neg->name());
    return success();
  }

 private:
  bool keep_neg_;
};

// A node named after a node the match absorbs takes its name as it is when the rewrite leaves
// that node dead (it goes at once); when the absorbed node stays, the new one gets a fresh name.
TEST(GreedyDriver, ANodeNamedAfterAnAbsorbedOneTakesItsNameOnlyIfItGoes) {
  for (const bool keep_neg : {false, true}) {
    auto model = parseModel(kNegRelu);
    findNode(model->graph(), "n")->setName("/layer/Neg");
    RewritePatternSet patterns;
    patterns.add<FoldNegIntoSigmoid>(keep_neg);
    DriverRun run;
    runDriver(*model, patterns, run);
    ASSERT_TRUE(run.result.ok()) << run.result.status();
    const ir::Node* sigmoid = model->graph().outputs()[0]->producer();
    ASSERT_TRUE(sigmoid->is("Sigmoid"));
    EXPECT_EQ(sigmoid->name(), keep_neg ? "/layer/Neg_1" : "/layer/Neg") << keep_neg;
    EXPECT_EQ(model->graph().numNodes(), keep_neg ? 2u : 1u);
    EXPECT_TRUE(ir::verify(*model).ok()) << ir::verify(*model);
    const bool announced =
        std::any_of(run.debug_lines.begin(), run.debug_lines.end(), [](const std::string& line) {
          return line.find("erased dead node '/layer/Neg' (Neg)") != std::string::npos;
        });
    EXPECT_EQ(announced, !keep_neg) << "--debug tells of the erased Neg";
  }
}

// Relu(x) -> Relu<tag=7>(x), once.
class TagRelu final : public RewritePattern {
 public:
  TagRelu() : RewritePattern("tag-relu", {"Relu"}) {}
  LogicalResult matchAndRewrite(const ir::Node& relu, PatternRewriter& rewriter) const override {
    if (relu.attr("tag") != nullptr) return rewriter.notifyMatchFailure(relu, "tagged");
    if (failed(rewriter.match(relu))) return failure();
    rewriter.setIntAttr(relu, "tag", 7);
    return success();
  }
};

TEST(GreedyDriver, IntAttributesAreMadeOnTheModelsArena) {
  const std::string bytes = testing::parseProto(kChain).SerializeAsString();
  auto on_arena = ir::loadModelFromBytes(bytes);
  ASSERT_TRUE(on_arena.ok()) << on_arena.status();
  ASSERT_NE((*on_arena)->arena(), nullptr);
  auto on_heap = parseModel(kChain);
  for (ir::Model* model : {on_arena->get(), on_heap.get()}) {
    RewritePatternSet patterns;
    patterns.add<TagRelu>();
    DriverRun run;
    runDriver(*model, patterns, run);
    ASSERT_TRUE(run.result.ok()) << run.result.status();
    const ir::Attribute* tag = findNode(model->graph(), "Y")->attr("tag");
    ASSERT_NE(tag, nullptr);
    EXPECT_EQ(tag->i(), 7);
    EXPECT_EQ(tag->proto().GetArena(), model->arena());
    auto saved = ir::exportModel(*model);
    ASSERT_TRUE(saved.ok()) << saved.status();
    EXPECT_EQ(saved->graph().node(2).attribute(0).i(), 7);
  }
}

TEST(GreedyDriver, OffersNodesInListOrderProducersFirst) {
  constexpr char kRelus[] = R"(
<ir_version: 8, opset_import: ["" : 13]>
relus (float[N] X, bool C) => (float[N] Y, float[N] Z) {
  a = Relu(X)
  b = Relu(a)
  Y = Relu(b)
  Z = If(C) <then_branch = t () => (float[N] t1) { t0 = Relu(a)  t1 = Relu(t0) },
             else_branch = e () => (float[N] e0) { e0 = Relu(b) }>
}
)";
  auto with_subgraphs = parseModel(kRelus);
  auto single_graph = parseModel(kChain);
  const std::vector<std::pair<ir::Model*, std::vector<std::string>>> cases = {
      {with_subgraphs.get(), {"a", "b", "Y", "t0", "t1", "e0"}},
      {single_graph.get(), {"Y"}}};
  for (const auto& [model, expected] : cases) {
    std::vector<std::string> visits;
    RewritePatternSet patterns;
    patterns.add<RecordVisits>("Relu", &visits);
    DriverRun run;
    runDriver(*model, patterns, run);
    ASSERT_TRUE(run.result.ok()) << run.result.status();
    EXPECT_EQ(visits, expected);
  }
  std::vector<std::string> visits;
  RewritePatternSet patterns;
  patterns.add<RecordVisits>("Neg", &visits);
  patterns.add<RecordVisits>("Abs", &visits);
  DriverRun run;
  runDriver(*single_graph, patterns, run);
  EXPECT_EQ(visits, (std::vector<std::string>{"n", "a"}));
}

// Shape(x) of fully known dims -> a Constant.
class ShapeOfKnownDims final : public RewritePattern {
 public:
  ShapeOfKnownDims() : RewritePattern("shape-of-known-dims", {"Shape"}) {}
  LogicalResult matchAndRewrite(const ir::Node& shape, PatternRewriter& rewriter) const override {
    const std::optional<ir::Shape>& dims = rewriter.shapes().typeOf(*shape.input(0)).shape();
    std::vector<int64_t> sizes;
    for (const ir::Dim& dim : dims.value_or(ir::Shape{ir::Dim::unknown()})) {
      if (!dim.isKnown()) return rewriter.notifyMatchFailure(shape, "a dim is not known");
      sizes.push_back(dim.value());
    }
    if (failed(rewriter.match(shape))) return failure();
    ir::Node* constant = rewriter.replaceRootWithNewNode("Constant", {});
    rewriter.setAttr(*constant, ir::Attribute::makeTensor("value", makeInt64Tensor(sizes)));
    return success();
  }
};

// At a Neg of a Reshape to a graph input's shape: the Reshape reshapes to `target` instead.
class ReshapeToTarget final : public RewritePattern {
 public:
  ReshapeToTarget() : RewritePattern("reshape-to-target", {"Neg"}) {}
  LogicalResult matchAndRewrite(const ir::Node& neg, PatternRewriter& rewriter) const override {
    const ir::Node* reshape = producerOf(neg.input(0));
    if (reshape == nullptr || !reshape->input(1)->isGraphInput()) return failure();
    if (failed(rewriter.match(neg))) return failure();
    rewriter.setInput(*reshape, 1, reshape->graph()->findValue("target"));
    return success();
  }
};

// A change may tell more about types downstream than the changed node's users read: the nodes
// that read them are offered again, though the Shape was offered (and declined) before.
TEST(GreedyDriver, ReadersOfWhatAChangeMadeBetterKnownAreOfferedAgain) {
  auto model = parseModel(R"(
<ir_version: 8, opset_import: ["" : 13]>
g (float[2,3] X, int64[2] dynamic) => (int64[2] S, float[3,2] Y) <int64[2] target = {3, 2}> {
  R = Reshape(X, dynamic)
  T = Transpose(R)
  S = Shape(T)
  Y = Neg(R)
}
)");
  ASSERT_NE(model, nullptr);
  RewritePatternSet patterns;
  patterns.add<ShapeOfKnownDims>();
  patterns.add<ReshapeToTarget>();
  DriverRun run;
  run.context.setVerifyFixedPoint(true);
  runDriver(*model, patterns, run);
  ASSERT_TRUE(run.result.ok()) << run.result.status();
  const ir::Node* s = model->graph().findValue("S")->producer();
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(s->opType(), "Constant");
}

TEST(GreedyDriver, IterationCapReportsNonConvergence) {
  auto model = parseModel(kChain);
  RewritePatternSet patterns;
  patterns.add<FoldReluAbsNeg>(false);
  DriverRun run;
  GreedyRewriteConfig config;
  config.max_iterations = 1;  // the rewrite happens, and no iteration is left to confirm it
  config.confirm_fixed_point = true;
  runDriver(*model, patterns, run, config);
  ASSERT_TRUE(run.result.ok());
  EXPECT_FALSE(run.result->converged);
  EXPECT_NE(run.result->non_convergence.find("still changing after 1 iterations"),
            std::string::npos);
}

TEST(GreedyDriver, ConvergesAndLeavesDeadProducersToTheDriver) {
  auto model = parseModel(kChain);
  RewritePatternSet patterns;
  patterns.add<FoldReluAbsNeg>(false);
  DriverRun run;
  GreedyRewriteConfig config;
  config.confirm_fixed_point = true;
  runDriver(*model, patterns, run, config);
  ASSERT_TRUE(run.result.ok()) << run.result.status();
  EXPECT_TRUE(run.result->converged);
  EXPECT_EQ(run.result->iterations, 2);
  EXPECT_TRUE(ir::verify(*model).ok());
  ASSERT_EQ(model->graph().numNodes(), 1u);
  // The replacement took over the graph output's name: the interface is unchanged.
  EXPECT_EQ(model->graph().firstNode()->opType(), "Sigmoid");
  EXPECT_EQ(model->graph().outputs()[0]->name(), "Y");
  EXPECT_EQ(run.context.statistics().nodes_rewritten, 1);
  EXPECT_EQ(run.context.statistics().nodes_removed, 3);  // Relu, then Abs and Neg as dead
}

TEST(GreedyDriver, PatternMayEraseTheVisitedNodeAndItsProducers) {
  auto model = parseModel(kChain);
  RewritePatternSet patterns;
  patterns.add<FoldReluAbsNeg>(true);
  DriverRun run;
  runDriver(*model, patterns, run);
  ASSERT_TRUE(run.result.ok()) << run.result.status();
  EXPECT_TRUE(run.result->converged);
  EXPECT_TRUE(ir::verify(*model).ok());
  EXPECT_EQ(model->graph().numNodes(), 1u);
  EXPECT_EQ(run.context.statistics().nodes_removed, 3);
}

// A node still queued (the dead siblings after the root) erased by a pattern is skipped.
TEST(GreedyDriver, PatternMayEraseNodesStillOnTheWorklist) {
  class EraseDeadSiblings final : public RewritePattern {
   public:
    EraseDeadSiblings() : RewritePattern("erase-dead-siblings", {"Relu"}) {}
    LogicalResult matchAndRewrite(const ir::Node& relu, PatternRewriter& rewriter) const override {
      ir::Node* dead_abs = relu.next();
      if (dead_abs == nullptr) return rewriter.notifyMatchFailure(relu, "nothing after it");
      ir::Node* dead_neg = dead_abs->next();
      if (failed(rewriter.match(relu))) return failure();
      rewriter.eraseNode(*dead_neg);
      rewriter.eraseNode(*dead_abs);
      return success();
    }
  };
  auto model = parseModel(R"(
<ir_version: 8, opset_import: ["" : 13]>
siblings (float[N] X) => (float[N] Y) {
  Y = Relu(X)
  a = Abs(X)
  b = Neg(X)
}
)");
  RewritePatternSet patterns;
  patterns.add<EraseDeadSiblings>();
  DriverRun run;
  runDriver(*model, patterns, run);
  ASSERT_TRUE(run.result.ok()) << run.result.status();
  EXPECT_TRUE(ir::verify(*model).ok());
  EXPECT_EQ(model->graph().numNodes(), 1u);
  EXPECT_EQ(run.context.statistics().nodes_removed, 2);
}

void expectBlocked(const std::string& text, const std::string& reason) {
  auto model = parseModel(text);
  const std::string before = ir::printModel(*model);
  RewritePatternSet patterns;
  patterns.add<FoldReluAbsNeg>(false);
  DriverRun run;
  runDriver(*model, patterns, run);
  ASSERT_TRUE(run.result.ok()) << run.result.status();
  EXPECT_FALSE(run.result->changed);
  EXPECT_TRUE(run.result->converged);
  EXPECT_EQ(ir::printModel(*model), before);
  EXPECT_EQ(run.context.statistics().nodes_matched, 1);
  EXPECT_EQ(run.context.statistics().nodes_rewritten, 0);
  bool reported = false;
  for (const std::string& line : run.debug_lines) {
    reported |= line.find(reason) != std::string::npos;
  }
  EXPECT_TRUE(reported) << "no debug line contains: " << reason;
}

TEST(GreedyDriver, IntermediateWithAnotherUserBlocksTheMatch) {
  expectBlocked(R"(
<ir_version: 8, opset_import: ["" : 13]>
other_user (float[N] X) => (float[N] Y, float[N] Z) {
  n = Neg(X)
  a = Abs(n)
  Y = Relu(a)
  Z = Exp(n)
}
)",
                "intermediate 'n' of node with output 'n' (Neg) is also read by node with output");
}

TEST(GreedyDriver, IntermediateThatIsAGraphOutputBlocksTheMatch) {
  expectBlocked(R"(
<ir_version: 8, opset_import: ["" : 13]>
graph_output (float[N] X) => (float[N] Y, float[N] a) {
  n = Neg(X)
  a = Abs(n)
  Y = Relu(a)
}
)",
                "intermediate 'a' of node with output 'a' (Abs) is a graph output");
}

TEST(GreedyDriver, ReadsInsideSubgraphsAreUsersToo) {
  expectBlocked(R"(
<ir_version: 8, opset_import: ["" : 13]>
subgraph_user (bool C, float[N] X) => (float[N] Y, float[N] Z) {
  n = Neg(X)
  a = Abs(n)
  Y = Relu(a)
  Z = If(C) <then_branch = t () => (float[N] t_out) { t_out = Exp(n) },
             else_branch = e () => (float[N] e_out) { e_out = Identity(X) }>
}
)",
                "is also read by node with output");
}

TEST(GreedyDriver, RecursesIntoSubgraphs) {
  auto model = parseModel(R"(
<ir_version: 8, opset_import: ["" : 13]>
nested (bool C, float[N] X) => (float[N] Y) {
  Y = If(C) <then_branch = t () => (float[N] t_out) {
      n = Neg(X)
      a = Abs(n)
      t_out = Relu(a)
    }, else_branch = e () => (float[N] e_out) { e_out = Identity(X) }>
}
)");
  RewritePatternSet patterns;
  patterns.add<FoldReluAbsNeg>(false);
  DriverRun run;
  runDriver(*model, patterns, run);
  ASSERT_TRUE(run.result.ok()) << run.result.status();
  EXPECT_TRUE(ir::verify(*model).ok());
  const std::string printed = ir::printModel(*model);
  EXPECT_NE(printed.find("t_out = Sigmoid(X)"), std::string::npos) << printed;
  EXPECT_EQ(printed.find("Neg"), std::string::npos) << printed;
}

TEST(GreedyDriver, PatternsReadTheOpsetOfTheNodesDomain) {
  class RequireOpset13 final : public RewritePattern {
   public:
    RequireOpset13() : RewritePattern("require-opset-13", {"Relu"}) {}
    LogicalResult matchAndRewrite(const ir::Node& relu, PatternRewriter& rewriter) const override {
      if (rewriter.opsetVersion(relu) != 13) return rewriter.notifyMatchFailure(relu, "opset");
      return rewriter.notifyMatchFailure(relu, "saw opset 13");
    }
  };
  auto model = parseModel(kChain);
  RewritePatternSet patterns;
  patterns.add<RequireOpset13>();
  DriverRun run;
  runDriver(*model, patterns, run);
  ASSERT_TRUE(run.result.ok());
  ASSERT_FALSE(run.debug_lines.empty());
  EXPECT_NE(run.debug_lines[0].find("saw opset 13"), std::string::npos) << run.debug_lines[0];
}

// A rewrite erases its root: --debug names the node as it was, not the erased husk.
TEST(GreedyDriver, DebugNamesTheRewrittenNodeAsItWas) {
  auto model = parseModel(kChain);
  RewritePatternSet patterns;
  patterns.add<ReluToNamedSigmoid>("sigmoid");
  DriverRun run;
  runDriver(*model, patterns, run);
  ASSERT_TRUE(run.result.ok()) << run.result.status();
  ASSERT_FALSE(run.debug_lines.empty());
  EXPECT_NE(run.debug_lines[0].find("rewrote node with output 'Y' (Relu)"), std::string::npos)
      << run.debug_lines[0];
}

// A reason given as a callable is composed under --debug only.
TEST(GreedyDriver, LazyFailureReasonsAreComposedOnlyWhenKept) {
  class DeclineLazily final : public RewritePattern {
   public:
    explicit DeclineLazily(int* composed) : RewritePattern("decline-lazily", {"Relu"}), composed_(composed) {}
    LogicalResult matchAndRewrite(const ir::Node& relu, PatternRewriter& rewriter) const override {
      return rewriter.notifyMatchFailure(relu, [this] {
        ++*composed_;
        return std::string("composed on demand");
      });
    }

   private:
    int* composed_;
  };
  int composed = 0;
  RewritePatternSet patterns;
  patterns.add<DeclineLazily>(&composed);

  auto quiet_model = parseModel(kChain);
  PassContext quiet;
  ASSERT_TRUE(GreedyRewriteDriver(patterns, {}, quiet).run(*quiet_model).ok());
  EXPECT_EQ(composed, 0);

  auto model = parseModel(kChain);
  DriverRun run;
  runDriver(*model, patterns, run);
  ASSERT_TRUE(run.result.ok());
  EXPECT_EQ(composed, 1);
  ASSERT_EQ(run.debug_lines.size(), 1u);
  EXPECT_NE(run.debug_lines[0].find("no match: composed on demand"), std::string::npos)
      << run.debug_lines[0];
}

// Forwarding a graph input into a graph output would rename the model's interface.
TEST(GreedyDriver, ForwardingPatternsAskBeforeReplacingGraphOutputs) {
  class ForwardIdentity final : public RewritePattern {
   public:
    ForwardIdentity() : RewritePattern("forward-identity", {"Identity"}) {}
    LogicalResult matchAndRewrite(const ir::Node& identity, PatternRewriter& rewriter) const override {
      if (!rewriter.canReplaceAllUsesWith(*identity.output(0), *identity.input(0))) {
        return rewriter.notifyMatchFailure(identity, "would rename the interface");
      }
      if (failed(rewriter.match(identity))) return failure();
      rewriter.replaceNode(identity, {identity.input(0)});
      return success();
    }
  };
  auto model = parseModel(R"(
<ir_version: 8, opset_import: ["" : 13]>
forward (float[N] X) => (float[N] Y, float[N] Z) {
  Y = Identity(X)
  r = Relu(X)
  i = Identity(r)
  Z = Exp(i)
}
)");
  RewritePatternSet patterns;
  patterns.add<ForwardIdentity>();
  DriverRun run;
  runDriver(*model, patterns, run);
  ASSERT_TRUE(run.result.ok()) << run.result.status();
  EXPECT_TRUE(ir::verify(*model).ok());
  const std::string printed = ir::printModel(*model);
  EXPECT_NE(printed.find("Y = Identity(X)"), std::string::npos) << printed;
  EXPECT_NE(printed.find("Z = Exp(r)"), std::string::npos) << printed;
  EXPECT_EQ(run.context.statistics().nodes_rewritten, 1);
}

absl::Status runSinglePattern(std::unique_ptr<RewritePattern> pattern) {
  auto model = parseModel(kChain);
  RewritePatternSet patterns;
  patterns.add(std::move(pattern));
  DriverRun run;
  runDriver(*model, patterns, run);
  EXPECT_TRUE(ir::verify(*model).ok());
  return run.result.status();
}

TEST(GreedyDriver, SuccessWithoutAChangeBreaksTheContract) {
  class ClaimsSuccess final : public RewritePattern {
   public:
    ClaimsSuccess() : RewritePattern("claims-success", {"Relu"}) {}
    LogicalResult matchAndRewrite(const ir::Node&, PatternRewriter&) const override { return success(); }
  };
  const absl::Status status = runSinglePattern(std::make_unique<ClaimsSuccess>());
  EXPECT_EQ(status.code(), absl::StatusCode::kInternal);
  EXPECT_NE(status.message().find("pattern 'claims-success' reported success but changed nothing"),
            std::string::npos)
      << status;
  EXPECT_NE(status.message().find("(Relu)"), std::string::npos) << status;
}

TEST(GreedyDriver, ChangeReportedAsFailureBreaksTheContract) {
  class ChangesThenFails final : public RewritePattern {
   public:
    ChangesThenFails() : RewritePattern("changes-then-fails", {"Relu"}) {}
    LogicalResult matchAndRewrite(const ir::Node& relu, PatternRewriter& rewriter) const override {
      if (failed(rewriter.match(relu))) return failure();
      rewriter.setAttr(relu, ir::Attribute::makeInt("marker", 1));
      return failure();
    }
  };
  const absl::Status status = runSinglePattern(std::make_unique<ChangesThenFails>());
  EXPECT_NE(status.message().find("changed the IR but reported failure"), std::string::npos)
      << status;
}

TEST(GreedyDriver, ChangingWithoutAMatchBreaksTheContract) {
  class NoMatch final : public RewritePattern {
   public:
    NoMatch() : RewritePattern("no-match", {"Relu"}) {}
    LogicalResult matchAndRewrite(const ir::Node& relu, PatternRewriter& rewriter) const override {
      rewriter.setAttr(relu, ir::Attribute::makeInt("marker", 1));
      return success();
    }
  };
  const absl::Status status = runSinglePattern(std::make_unique<NoMatch>());
  EXPECT_NE(status.message().find("without a successful match()"), std::string::npos) << status;
}

// A pattern whose rewrite misuses the rewriter: `misuse` runs on Relu(Abs(Neg(x))) (kChain).
class MisusesTheRewriter final : public RewritePattern {
 public:
  using Misuse = std::function<void(const ir::Node& relu, PatternRewriter&)>;
  explicit MisusesTheRewriter(Misuse misuse)
      : RewritePattern("misuses-the-rewriter", {"Relu"}), misuse_(std::move(misuse)) {}
  LogicalResult matchAndRewrite(const ir::Node& relu, PatternRewriter& rewriter) const override {
    misuse_(relu, rewriter);
    return failure();
  }

 private:
  Misuse misuse_;
};

std::string misuseMessage(MisusesTheRewriter::Misuse misuse) {
  const absl::Status status =
      runSinglePattern(std::make_unique<MisusesTheRewriter>(std::move(misuse)));
  EXPECT_EQ(status.code(), absl::StatusCode::kInternal) << status;
  return std::string(status.message());
}

TEST(GreedyDriver, MisusesOfTheRewriterFailTheRunNamingThem) {
  auto abs_of = [](const ir::Node& relu) { return relu.input(0)->producer(); };
  EXPECT_NE(misuseMessage([&](const ir::Node& relu, PatternRewriter& rewriter) {
              (void)rewriter.match(*abs_of(relu));
            }).find("match() must be rooted at the node the driver offered"),
            std::string::npos);
  EXPECT_NE(misuseMessage([](const ir::Node& relu, PatternRewriter& rewriter) {
              (void)rewriter.match(relu, {&relu});
            }).find("lists a null, erased, repeated or root node as absorbed"),
            std::string::npos);
  EXPECT_NE(misuseMessage([&](const ir::Node& relu, PatternRewriter& rewriter) {
              const ir::Node* abs = abs_of(relu);
              (void)rewriter.match(relu, {abs, abs});
            }).find("lists a null, erased, repeated or root node as absorbed"),
            std::string::npos);
  EXPECT_NE(misuseMessage([&](const ir::Node& relu, PatternRewriter& rewriter) {
              if (succeeded(rewriter.match(relu, {abs_of(relu)}))) rewriter.eraseNode(*abs_of(relu));
            }).find("eraseNode() on a node whose output 'a' is still used"),
            std::string::npos);
  EXPECT_NE(misuseMessage([](const ir::Node& relu, PatternRewriter& rewriter) {
              if (succeeded(rewriter.match(relu))) rewriter.replaceNode(relu, {});
            }).find("replaceNode() got 0 replacements for 1 outputs"),
            std::string::npos);
  EXPECT_NE(misuseMessage([](const ir::Node& relu, PatternRewriter& rewriter) {
              if (succeeded(rewriter.match(relu))) rewriter.setInput(relu, 5, relu.input(0));
            }).find("setInput() at 5 past the end of 1 inputs"),
            std::string::npos);
}

TEST(GreedyDriver, ErasesNodesWithoutOutputs) {
  auto model = parseModel(kChain);
  ir::Graph& graph = model->graph();
  graph.createNode("Sink", {graph.inputs()[0]}, {}, nullptr, "com.example");
  RewritePatternSet no_patterns;
  DriverRun run;
  runDriver(*model, no_patterns, run);
  ASSERT_TRUE(run.result.ok());
  EXPECT_EQ(graph.numNodes(), 3u);
  EXPECT_EQ(findNode(graph, "Y")->opType(), "Relu");
}

// Abs(x) -> Relu(x) in place, then Relu nodes get a marker attribute and lose the `alpha` one:
// the driver revisits nodes changed in place.
TEST(GreedyDriver, InPlaceChangesRevisitTheNode) {
  class AbsToRelu final : public RewritePattern {
   public:
    AbsToRelu() : RewritePattern("abs-to-relu", {"Abs"}) {}
    LogicalResult matchAndRewrite(const ir::Node& abs, PatternRewriter& rewriter) const override {
      if (failed(rewriter.match(abs))) return failure();
      rewriter.modifyInPlace(abs, [](ir::Node& node) { node.setOpType("Relu"); });
      return success();
    }
  };
  class MarkRelu final : public RewritePattern {
   public:
    MarkRelu() : RewritePattern("mark-relu", {"Relu"}) {}
    LogicalResult matchAndRewrite(const ir::Node& relu, PatternRewriter& rewriter) const override {
      if (relu.attr("marked") != nullptr) return rewriter.notifyMatchFailure(relu, "marked");
      if (failed(rewriter.match(relu))) return failure();
      rewriter.setAttr(relu, ir::Attribute::makeInt("marked", 1));
      EXPECT_TRUE(rewriter.removeAttr(relu, "alpha"));
      return success();
    }
  };
  auto model = parseModel(R"(
<ir_version: 8, opset_import: ["" : 13]>
in_place (float[N] X) => (float[N] Y) {
  Y = Abs<alpha = 1.0>(X)
}
)");
  RewritePatternSet patterns;
  patterns.add<AbsToRelu>().add<MarkRelu>();
  DriverRun run;
  runDriver(*model, patterns, run);
  ASSERT_TRUE(run.result.ok()) << run.result.status();
  EXPECT_TRUE(run.result->converged);
  const std::string printed = ir::printModel(*model);
  EXPECT_NE(printed.find("Y = Relu<marked = 1>(X)"), std::string::npos) << printed;
  EXPECT_EQ(run.context.statistics().nodes_rewritten, 2);
}

// Operands changed with setInput (and appended) leave the old producer to the driver when dead.
TEST(GreedyDriver, SetInputReleasesTheOldProducer) {
  class BypassNeg final : public RewritePattern {
   public:
    BypassNeg() : RewritePattern("bypass-neg", {"Add"}) {}
    LogicalResult matchAndRewrite(const ir::Node& add, PatternRewriter& rewriter) const override {
      ir::Node* neg = producerOf(add.input(1));
      if (neg == nullptr || !neg->is("Neg")) return rewriter.notifyMatchFailure(add, "no Neg");
      if (failed(rewriter.match(add, {neg}))) return failure();
      rewriter.setInput(add, 1, neg->input(0));
      rewriter.setInput(add, 2, neg->input(0));
      return success();
    }
  };
  auto model = parseModel(R"(
<ir_version: 8, opset_import: ["" : 13]>
bypass (float[N] X) => (float[N] Y) {
  n = Neg(X)
  Y = Add(X, n)
}
)");
  RewritePatternSet patterns;
  patterns.add<BypassNeg>();
  DriverRun run;
  runDriver(*model, patterns, run);
  ASSERT_TRUE(run.result.ok()) << run.result.status();
  EXPECT_TRUE(ir::verify(*model).ok());
  const std::string printed = ir::printModel(*model);
  EXPECT_NE(printed.find("Y = Add(X, X, X)"), std::string::npos) << printed;
  EXPECT_EQ(printed.find("Neg"), std::string::npos) << printed;
}

// A quadratic driver would take minutes here; a linear one takes well under a second.
TEST(GreedyDriver, RemovesALongDeadChainInLinearTime) {
  auto model = parseModel(kChain);
  ir::Graph& graph = model->graph();
  ir::Value* previous = graph.inputs()[0];
  constexpr int kLength = 200000;
  for (int i = 0; i < kLength; ++i) {
    previous = graph.createNode("Neg", {previous}, {"dead_" + std::to_string(i)})->output(0);
  }
  RewritePatternSet no_patterns;
  DriverRun run;
  runDriver(*model, no_patterns, run);
  ASSERT_TRUE(run.result.ok());
  EXPECT_EQ(graph.numNodes(), 3u);
  EXPECT_EQ(run.context.statistics().nodes_removed, kLength);
}

}  // namespace
}  // namespace onnxopt
