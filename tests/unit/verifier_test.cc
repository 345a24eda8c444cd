// The verifier catches each kind of broken graph that the IR's API lets a careless pass build.

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "onnxopt/ir/ir.h"
#include "onnxopt/ir/verifier.h"
#include "test_models.h"

namespace onnxopt::ir {
namespace {

using onnxopt::testing::parseModel;

constexpr char kModel[] = R"(
<ir_version: 8, opset_import: ["" : 13]>
g (bool cond, float[2] X) => (float[2] Y) <float[2] W = {1, 2}> {
  A = Add(X, W)
  B = If(cond) <
    then_branch = then_graph () => (float[2] T) { T = Neg(A) },
    else_branch = else_graph () => (float[2] E) { E = Abs(A) }
  >
  Y = Relu(B)
}
)";

void expectRejected(const Model& model, const std::string& fragment) {
  absl::Status status = verify(model);
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.message().find(fragment), std::string::npos) << status.message();
}

TEST(VerifierTest, AcceptsAWellFormedModel) {
  auto model = parseModel(kModel);
  EXPECT_TRUE(verify(*model).ok()) << verify(*model);
}

TEST(VerifierTest, UseBeforeDefinition) {
  auto model = parseModel(kModel);
  Graph& graph = model->graph();
  Node* relu = graph.lastNode();
  graph.createNode("Exp", {relu->output(0)}, {"early"}, graph.firstNode())->setName("early_exp");
  expectRejected(*model, "node 'early_exp' (Exp): input 'Y' is not defined before the node");
}

TEST(VerifierTest, InnerValueReadFromTheOuterGraph) {
  auto model = parseModel(kModel);
  Graph& graph = model->graph();
  Node* if_node = graph.firstNode()->next();
  Value* inner = if_node->attr("then_branch")->graphs().front()->firstNode()->output(0);
  graph.lastNode()->setInput(0, inner);
  expectRejected(*model, "input 'T' is not defined before the node");
}

TEST(VerifierTest, DuplicateValueNames) {
  auto model = parseModel(kModel);
  Graph& graph = model->graph();
  graph.createNode("Exp", {graph.inputs()[1]}, {"A"}, graph.lastNode());
  expectRejected(*model, "value name 'A' is defined twice");
}

TEST(VerifierTest, DuplicateNamesFarApartInALargeGraph) {
  auto model = parseModel(kModel);
  Graph& graph = model->graph();
  Value* last = graph.inputs()[1];
  for (int i = 0; i < 5000; ++i) {
    last = graph.createNode("Exp", {last}, {"chain_" + std::to_string(i)}, graph.lastNode())
               ->output(0);
  }
  ASSERT_TRUE(verify(*model).ok()) << verify(*model);
  graph.createNode("Exp", {last}, {"chain_17"}, graph.lastNode());
  expectRejected(*model, "value name 'chain_17' is defined twice");
}

TEST(VerifierTest, ValueOfTheOtherBranch) {
  auto model = parseModel(kModel);
  Graph& graph = model->graph();
  Node* if_node = graph.firstNode()->next();
  Value* then_value = if_node->attr("then_branch")->graphs().front()->firstNode()->output(0);
  Graph& else_branch = *if_node->attr("else_branch")->graphs().front();
  else_branch.firstNode()->setInput(0, then_value);
  expectRejected(*model, "in graph 'else_graph' of node with output 'B' (If): input 'T' is not defined");
}

TEST(VerifierTest, ReadingTheOutputOfAnErasedNode) {
  auto model = parseModel(kModel);
  Graph& graph = model->graph();
  graph.eraseNode(graph.firstNode());  // A still has users
  expectRejected(*model, "input 'A' is not defined before the node");
}

TEST(VerifierTest, ReadingARemovedInitializer) {
  auto model = parseModel(kModel);
  Graph& graph = model->graph();
  graph.removeInitializer(graph.initializers()[0]);
  expectRejected(*model, "node with output 'A' (Add): input 'W' is not defined");
}

TEST(VerifierTest, GraphOutputFromAnInnerScope) {
  auto model = parseModel(kModel);
  Graph& graph = model->graph();
  Node* if_node = graph.firstNode()->next();
  graph.setOutput(0, if_node->attr("else_branch")->graphs().front()->firstNode()->output(0));
  expectRejected(*model, "graph output 0 'E' is not defined in this graph");
}

TEST(VerifierTest, ErrorsInsideSubgraphsNameTheOwningNode) {
  auto model = parseModel(kModel);
  Graph& graph = model->graph();
  Node* if_node = graph.firstNode()->next();
  if_node->setName("branch");
  Graph& then_branch = *if_node->attr("then_branch")->graphs().front();
  then_branch.firstNode()->setInput(0, graph.lastNode()->output(0));
  expectRejected(*model, "in graph 'then_graph' of node 'branch' (If): input 'Y'");
}

// --- findUnrunnableSubgraphOutputs ---

using Kind = SubgraphOutputProblem::Kind;

Graph& branch(Node& node, const char* attribute) { return *node.attr(attribute)->graphs().front(); }

TEST(SubgraphOutputsTest, FindsNothingWithoutSubgraphs) {
  // The main graph returning its own input is fine.
  auto model = parseModel(R"(
<ir_version: 8, opset_import: ["" : 13]>
g (float[2] X) => (float[2] X, float[2] Y) { Y = Neg(X) }
)");
  EXPECT_TRUE(findUnrunnableSubgraphOutputs(*model).empty());
}

TEST(SubgraphOutputsTest, FindsNothingWhenBodiesComputeTheirOutputs) {
  // kModel's branches read an outer value and return what they compute from it; a body's own
  // initializer is defined in the body.
  auto model = parseModel(kModel);
  EXPECT_TRUE(findUnrunnableSubgraphOutputs(*model).empty());
  auto initializer_output = parseModel(R"(
<ir_version: 8, opset_import: ["" : 13]>
g (bool C, float[2] X) => (float[2] Y) {
  Y = If(C) <then_branch = t () => (float[2] k) <float[2] k = {1.0, 2.0}> { },
             else_branch = e () => (float[2] n) { n = Neg(X) }>
}
)");
  EXPECT_TRUE(findUnrunnableSubgraphOutputs(*initializer_output).empty());
}

TEST(SubgraphOutputsTest, NamesABranchReturningAnOuterValue) {
  auto model = parseModel(R"(
<ir_version: 8, opset_import: ["" : 13]>
g (bool C, float[2] X) => (float[2] Y) {
  Y = If(C) <then_branch = then_graph () => (float[2] X) { },
             else_branch = else_graph () => (float[2] n) { n = Neg(X) }>
}
)");
  ASSERT_TRUE(verify(*model).ok()) << "ONNX allows it: verify() must accept it";
  Node& if_node = *model->graph().firstNode();
  const std::vector<SubgraphOutputProblem> problems = findUnrunnableSubgraphOutputs(*model);
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_EQ(problems[0].subgraph, &branch(if_node, "then_branch"));
  EXPECT_EQ(problems[0].owner, &if_node);
  EXPECT_EQ(problems[0].output_index, 0u);
  EXPECT_EQ(problems[0].output_name, "X");
  EXPECT_EQ(problems[0].kind, Kind::kOuterScopeValue);
  EXPECT_EQ(describe(problems[0]),
            "output 0 'X' of graph 'then_graph' of node with output 'Y' (If) is an outer-scope "
            "value");
}

TEST(SubgraphOutputsTest, NamesALoopBodyReturningItsOwnInput) {
  auto model = parseModel(R"(
<ir_version: 8, opset_import: ["" : 13]>
g (int64 M, bool C, float[2] X) => (float[2] Y) {
  Y = Loop(M, C, X) <body = body (int64 i, bool c, float[2] v) => (bool c_out, float[2] v) {
    c_out = Identity(c)
  }>
}
)");
  ASSERT_TRUE(verify(*model).ok());
  Node& loop = *model->graph().firstNode();
  loop.setName("loop");
  const std::vector<SubgraphOutputProblem> problems = findUnrunnableSubgraphOutputs(*model);
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_EQ(problems[0].subgraph, &branch(loop, "body"));
  EXPECT_EQ(problems[0].output_index, 1u);
  EXPECT_EQ(problems[0].output_name, "v");
  EXPECT_EQ(problems[0].kind, Kind::kBodyInput);
  EXPECT_EQ(describe(problems[0]),
            "output 1 'v' of graph 'body' of node 'loop' (Loop) is the graph's own input");
}

TEST(SubgraphOutputsTest, WalksEveryDepthOuterGraphsFirst) {
  // The Loop body returns its own input; the If in it returns a value of the body (outer to the
  // branch) and one of the main graph, two scopes up.
  auto model = parseModel(R"(
<ir_version: 8, opset_import: ["" : 13]>
g (int64 M, bool C, float[2] X) => (float[2] Y, float[2] Z) {
  Y, Z = Loop(M, C, X, X) <body = body (int64 i, bool c, float[2] v, float[2] w) => (bool c_out, float[2] v, float[2] next) {
    c_out = Identity(c)
    doubled = Add(w, w)
    next = If(c) <then_branch = then_graph () => (float[2] doubled) { },
                  else_branch = else_graph () => (float[2] X) { }>
  }>
}
)");
  ASSERT_TRUE(verify(*model).ok());
  Graph& body = branch(*model->graph().firstNode(), "body");
  Node& if_node = *body.lastNode();
  const std::vector<SubgraphOutputProblem> problems = findUnrunnableSubgraphOutputs(*model);
  ASSERT_EQ(problems.size(), 3u);
  EXPECT_EQ(problems[0].subgraph, &body);
  EXPECT_EQ(problems[0].kind, Kind::kBodyInput);
  EXPECT_EQ(problems[1].subgraph, &branch(if_node, "then_branch"));
  EXPECT_EQ(problems[1].owner, &if_node);
  EXPECT_EQ(problems[1].output_name, "doubled");
  EXPECT_EQ(problems[1].kind, Kind::kOuterScopeValue);
  EXPECT_EQ(problems[2].subgraph, &branch(if_node, "else_branch"));
  EXPECT_EQ(problems[2].output_name, "X");
  EXPECT_EQ(problems[2].kind, Kind::kOuterScopeValue);
}

TEST(SubgraphOutputsTest, SeesAnOutputARewriteMadeOuter) {
  // What a naive Identity elimination does: the branch's Identity goes, its output's readers
  // (the branch output) read the outer value instead.
  auto model = parseModel(R"(
<ir_version: 8, opset_import: ["" : 13]>
g (bool C, float[2] X) => (float[2] Y) {
  Y = If(C) <then_branch = then_graph () => (float[2] t) { t = Identity(X) },
             else_branch = else_graph () => (float[2] n) { n = Neg(X) }>
}
)");
  ASSERT_TRUE(findUnrunnableSubgraphOutputs(*model).empty());
  Graph& then_branch = branch(*model->graph().firstNode(), "then_branch");
  Node* identity = then_branch.firstNode();
  identity->output(0)->replaceAllUsesWith(identity->input(0));
  then_branch.eraseNode(identity);
  ASSERT_TRUE(verify(*model).ok());
  const std::vector<SubgraphOutputProblem> problems = findUnrunnableSubgraphOutputs(*model);
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_EQ(problems[0].output_name, "X");
  EXPECT_EQ(problems[0].kind, Kind::kOuterScopeValue);
}

}  // namespace
}  // namespace onnxopt::ir
