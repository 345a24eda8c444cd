// The verifier catches each kind of broken graph that the IR's API lets a careless pass build.

#include <gtest/gtest.h>

#include <string>

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
  expectRejected(*model, "in graph 'else_graph' of node '' (If): input 'T' is not defined");
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
  expectRejected(*model, "node '' (Add): input 'W' is not defined");
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

}  // namespace
}  // namespace onnxopt::ir
