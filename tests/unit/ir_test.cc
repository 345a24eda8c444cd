#include <algorithm>
#include <chrono>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "absl/strings/str_cat.h"

#include "onnxopt/ir/ir.h"
#include "onnxopt/pass/analysis.h"
#include "onnxopt/ir/serialization.h"
#include "onnxopt/ir/verifier.h"
#include "test_models.h"

namespace onnxopt::ir {
namespace {

using onnxopt::testing::parseModel;
using onnxopt::testing::parseProto;

constexpr char kChain[] = R"(
<ir_version: 8, opset_import: ["" : 13]>
chain (float[N,4] X) => (float[N,4] Y) {
  A = Relu(X)
  B = Neg(A)
  C = Abs(B)
  Y = Sigmoid(C)
}
)";

constexpr char kIfCapturingOuterValue[] = R"(
<ir_version: 8, opset_import: ["" : 13]>
captures (bool cond, float[2] X) => (float[2] Y) {
  A = Relu(X)
  Y = If(cond) <
    then_branch = then_graph () => (float[2] T) { T = Neg(A) },
    else_branch = else_graph () => (float[2] E) { E = Abs(A) }
  >
}
)";

std::vector<std::string> opTypes(const Graph& graph) {
  std::vector<std::string> ops;
  for (const Node& node : graph) ops.push_back(node.opType());
  return ops;
}

size_t countUses(const Value& value, const Node* user) {
  return std::count_if(value.uses().begin(), value.uses().end(),
                       [user](const Use& use) { return use.user() == user; });
}

// Counts live objects, and remembers the order they were destroyed in.
struct Tracked {
  Tracked(int id, std::vector<int>* destroyed) : id(id), destroyed(destroyed) {}
  ~Tracked() { destroyed->push_back(id); }
  int id;
  std::vector<int>* destroyed;
};

TEST(ObjectPoolTest, ObjectsKeepTheirAddressesAndAreDestroyedWithThePool) {
  std::vector<int> destroyed;
  {
    detail::ObjectPool<Tracked> pool;
    std::vector<Tracked*> made;
    for (int i = 0; i < 20000; ++i) made.push_back(pool.create(i, &destroyed));
    for (int i = 0; i < 20000; ++i) ASSERT_EQ(made[i]->id, i) << "moved or overwritten";
    int visited = 0;
    pool.forEach([&visited](Tracked& object) { EXPECT_EQ(object.id, visited++); });
    EXPECT_EQ(visited, 20000);
    EXPECT_TRUE(destroyed.empty());
  }
  ASSERT_EQ(destroyed.size(), 20000u);
  EXPECT_TRUE(std::is_sorted(destroyed.begin(), destroyed.end()));
}

// Ownership rides in the pointer's lowest bit. The sanitized build sees a heap message leaked or
// an arena message freed; here the pointers must come back unchanged through moves.
TEST(ProtoPtrTest, OwnsHeapMessagesAndBorrowsArenaOnesThroughMoves) {
  google::protobuf::Arena arena;
  auto* on_arena = newProto<onnx::ValueInfoProto>(&arena);
  auto* on_heap = newProto<onnx::ValueInfoProto>(nullptr);
  ProtoPtr<onnx::ValueInfoProto> borrowed(on_arena);
  ProtoPtr<onnx::ValueInfoProto> owned(on_heap);
  EXPECT_EQ(borrowed.get(), on_arena);
  EXPECT_EQ(owned.get(), on_heap);
  owned->set_name("kept");

  ProtoPtr<onnx::ValueInfoProto> moved(std::move(owned));
  EXPECT_TRUE(owned == nullptr);
  EXPECT_EQ(moved.get(), on_heap);
  EXPECT_EQ(moved->name(), "kept");
  moved = std::move(borrowed);  // deletes the heap message, borrows the arena one
  EXPECT_EQ(moved.get(), on_arena);
  EXPECT_TRUE(borrowed == nullptr);
  moved.reset(newProto<onnx::ValueInfoProto>(nullptr));  // leaves the arena message alone
  EXPECT_TRUE(moved != nullptr);
  EXPECT_NE(moved.get(), on_arena);
}

TEST(IrTest, ModelCountsItsGraphsAndForEachGraphFindsEverySubgraph) {
  auto visited = [](Graph& graph) {
    std::vector<const Graph*> graphs;
    forEachGraph(graph, [&graphs](Graph& g) { graphs.push_back(&g); });
    return graphs.size();
  };
  auto flat = parseModel(kChain);
  ASSERT_NE(flat, nullptr);
  EXPECT_EQ(flat->numGraphs(), 1u);
  EXPECT_EQ(visited(flat->graph()), 1u);

  auto nested = parseModel(kIfCapturingOuterValue);
  ASSERT_NE(nested, nullptr);
  EXPECT_EQ(nested->numGraphs(), 3u);
  EXPECT_EQ(visited(nested->graph()), 3u);
  Node* if_node = nested->graph().lastNode();
  ASSERT_TRUE(if_node->removeAttr("else_branch"));
  EXPECT_EQ(nested->numGraphs(), 2u);
  EXPECT_EQ(visited(nested->graph()), 2u);

  // A graph made on its own and attached later is found too.
  auto made = std::make_unique<Graph>(flat.get());
  EXPECT_EQ(flat->numGraphs(), 2u);
  Graph* made_graph = made.get();
  Attribute branch(onnx::AttributeProto{});
  branch.mutableProto().set_name("body");
  branch.mutableProto().set_type(onnx::AttributeProto::GRAPH);
  branch.mutableGraphs().push_back(std::move(made));
  flat->graph().firstNode()->setAttr(std::move(branch));
  std::vector<const Graph*> graphs;
  forEachGraph(flat->graph(), [&graphs](Graph& g) { graphs.push_back(&g); });
  ASSERT_EQ(graphs.size(), 2u);
  EXPECT_EQ(graphs[1], made_graph);
  ASSERT_TRUE(flat->graph().firstNode()->removeAttr("body"));
  EXPECT_EQ(flat->numGraphs(), 1u);
}

TEST(IrTest, ChangeJournalFindsMainGraphNodesTouchedSinceAMark) {
  auto model = parseModel(kIfCapturingOuterValue);
  ASSERT_NE(model, nullptr);
  Graph& graph = model->graph();
  Node* relu = graph.firstNode();
  Node* if_node = graph.lastNode();
  Node* then_node = if_node->attr("then_branch")->graphs().front()->firstNode();
  onnxopt::ChangeJournal journal(*model);

  const onnxopt::ChangeJournal::Mark start = journal.mark();
  journal.touch(if_node);
  journal.touch(relu);
  journal.touch(if_node);
  EXPECT_EQ(*journal.touchedSince(start), (std::vector<Node*>{if_node, relu})) << "once each";
  const onnxopt::ChangeJournal::Mark second = journal.mark();
  EXPECT_EQ(*journal.touchedSince(second), std::vector<Node*>{});

  journal.touch(then_node);
  EXPECT_EQ(journal.touchedSince(second), nullptr) << "a subgraph node: revisit everything";
  const onnxopt::ChangeJournal::Mark third = journal.mark();
  graph.eraseNode(if_node);
  journal.touch(if_node);
  journal.touch(relu);
  EXPECT_EQ(*journal.touchedSince(third), std::vector<Node*>{relu}) << "erased nodes are left out";
}

// Every pass of a round asks for the same mark; the journal reads only what came since the last
// ask, and the answer is as if it read everything.
TEST(IrTest, ChangeJournalAskedAgainForAMarkAddsOnlyWhatCameSince) {
  auto model = parseModel(kChain);
  Graph& graph = model->graph();
  Node* first = graph.firstNode();
  Node* last = graph.lastNode();
  onnxopt::ChangeJournal journal(*model);
  const onnxopt::ChangeJournal::Mark start = journal.mark();
  journal.touch(first);
  EXPECT_EQ(*journal.touchedSince(start), std::vector<Node*>{first});
  journal.touch(last);
  journal.touch(first);
  EXPECT_EQ(*journal.touchedSince(start), (std::vector<Node*>{first, last})) << "once each";
  graph.eraseNode(last);
  EXPECT_EQ(*journal.touchedSince(start), std::vector<Node*>{first}) << "erased since the last ask";
  const onnxopt::ChangeJournal::Mark later = journal.mark();
  journal.touch(first);
  EXPECT_EQ(*journal.touchedSince(later), std::vector<Node*>{first}) << "another mark";
  EXPECT_EQ(*journal.touchedSince(start), std::vector<Node*>{first}) << "back to the first mark";
}

TEST(IrTest, ChangesNoOneRecordedAreUntracked) {
  auto model = parseModel(kChain);
  onnxopt::ChangeJournal journal(*model);
  EXPECT_FALSE(journal.hasUnaccountedChanges(*model));
  const onnxopt::ChangeJournal::Mark start = journal.mark();
  model->graph().firstNode()->setName("renamed");
  EXPECT_TRUE(journal.hasUnaccountedChanges(*model)) << "every IR change moves the count";
  journal.recordUntracked(*model);
  EXPECT_FALSE(journal.hasUnaccountedChanges(*model));
  EXPECT_EQ(journal.touchedSince(start), nullptr);
  const uint64_t before = model->modificationCount();
  size_t nodes = 0;
  forEachGraph(model->graph(), [&nodes](Graph& graph) { nodes += graph.numNodes(); });
  EXPECT_EQ(nodes, 4u);
  EXPECT_EQ(model->modificationCount(), before) << "walks change nothing";
}

TEST(IrTest, ImportKeepsOrderAndUses) {
  auto model = parseModel(kChain);
  Graph& graph = model->graph();
  EXPECT_EQ(opTypes(graph), (std::vector<std::string>{"Relu", "Neg", "Abs", "Sigmoid"}));
  EXPECT_EQ(graph.numNodes(), 4u);
  Value* x = graph.inputs()[0];
  ASSERT_EQ(x->uses().size(), 1u);
  EXPECT_EQ(x->uses()[0].user(), graph.firstNode());
  Value* y = graph.outputs()[0];
  ASSERT_TRUE(y->hasOneUse());
  EXPECT_TRUE(y->uses()[0].isGraphOutput()) << "a graph output counts as a use";
  EXPECT_TRUE(y->isGraphOutput());
  EXPECT_TRUE(verify(*model).ok());
}

TEST(IrTest, ErasingTheCurrentNodeDuringIterationIsSafe) {
  auto model = parseModel(kChain);
  Graph& graph = model->graph();
  std::vector<std::string> visited;
  for (Node& node : graph) {
    visited.push_back(node.opType());
    if (node.is("Neg") || node.is("Abs")) {
      node.output(0)->replaceAllUsesWith(node.input(0));
      graph.eraseNode(&node);
    }
  }
  EXPECT_EQ(visited, (std::vector<std::string>{"Relu", "Neg", "Abs", "Sigmoid"}));
  EXPECT_EQ(opTypes(graph), (std::vector<std::string>{"Relu", "Sigmoid"}));
  EXPECT_EQ(graph.numNodes(), 2u);
  EXPECT_TRUE(verify(*model).ok()) << verify(*model);
}

TEST(IrTest, ErasingTheCurrentAndTheNextNodeSkipsBoth) {
  auto model = parseModel(kChain);
  Graph& graph = model->graph();
  std::vector<std::string> visited;
  for (Node& node : graph) {
    visited.push_back(node.opType());
    if (node.is("Relu")) {
      Node* neg = node.next();
      neg->output(0)->replaceAllUsesWith(node.input(0));
      graph.eraseNode(neg);
      node.output(0)->replaceAllUsesWith(node.input(0));
      graph.eraseNode(&node);
    }
  }
  EXPECT_EQ(visited, (std::vector<std::string>{"Relu", "Abs", "Sigmoid"}));
  EXPECT_TRUE(verify(*model).ok()) << verify(*model);
}

TEST(IrTest, SubgraphNodesHoldRealUsesOfOuterValues) {
  auto model = parseModel(kIfCapturingOuterValue);
  Graph& graph = model->graph();
  Node* relu = graph.firstNode();
  Node* if_node = relu->next();
  Value* a = relu->output(0);
  ASSERT_EQ(a->uses().size(), 2u) << "one use in each branch";
  for (const Use& use : a->uses()) {
    ASSERT_FALSE(use.isGraphOutput());
    EXPECT_EQ(use.user()->graph()->parentNode(), if_node);
  }
  EXPECT_TRUE(if_node->hasSubgraphs());
  EXPECT_EQ(if_node->attr("then_branch")->graphs().front()->parentGraph(), &graph);
}

TEST(IrTest, ReplaceAllUsesWithReachesIntoSubgraphs) {
  auto model = parseModel(kIfCapturingOuterValue);
  Graph& graph = model->graph();
  Value* x = graph.inputs()[1];
  Value* a = graph.firstNode()->output(0);
  a->replaceAllUsesWith(x);
  EXPECT_FALSE(a->hasUses());
  EXPECT_EQ(x->uses().size(), 3u);  // Relu, and one node in each branch
  Graph& then_branch = *graph.lastNode()->attr("then_branch")->graphs().front();
  EXPECT_EQ(then_branch.firstNode()->input(0), x);
  graph.eraseNode(graph.firstNode());
  EXPECT_TRUE(verify(*model).ok()) << verify(*model);
  auto saved = exportModel(*model);
  ASSERT_TRUE(saved.ok());
  EXPECT_EQ(saved->graph().node(0).attribute(0).g().node(0).input(0), "X");
}

// ONNX lets a body's inputs and initializers shadow outer names; the IR links by object, the
// saved model by name. A body input named W shadows the outer W, which the body does not read.
constexpr char kLoopInputShadowingOuterName[] = R"(
<ir_version: 8, opset_import: ["" : 13]>
shadows (float[2] X, float[2] W, int64 n) => (float[2] Y) {
  t = Constant<value = bool {1}>()
  a = Identity(W)
  Y = Loop<body = body (int64 i, bool cin, float[2] W) => (bool cout, float[2] ko) {
     cout = Identity(cin)
     ko = Add(W, a)
  }>(n, t, X)
}
)";

TEST(IrTest, ReadingAShadowedOuterValueRenamesTheShadow) {
  auto model = parseModel(kLoopInputShadowingOuterName);
  Graph& graph = model->graph();
  Value* w = graph.inputs()[1];
  Value* a = graph.findValue("a");
  Graph& body = *graph.lastNode()->attr("body")->graphs().front();
  Value* body_w = body.inputs()[2];
  ASSERT_EQ(body.shadowOf(*a), nullptr);
  EXPECT_EQ(body.shadowOf(*w), body_w);

  a->replaceAllUsesWith(w);
  EXPECT_NE(body_w->name(), "W") << "the body input took a fresh name";
  EXPECT_EQ(body.shadowOf(*w), nullptr);
  EXPECT_EQ(body.lastNode()->input(0), body_w);
  EXPECT_EQ(body.lastNode()->input(1), w);
  ASSERT_TRUE(verify(*model).ok()) << verify(*model);
  auto saved = exportModel(*model);
  ASSERT_TRUE(saved.ok());
  const onnx::GraphProto& saved_body = saved->graph().node(2).attribute(0).g();
  EXPECT_EQ(saved_body.input(2).name(), body_w->name());
  EXPECT_EQ(saved_body.node(1).input(0), body_w->name());
  EXPECT_EQ(saved_body.node(1).input(1), "W");
}

TEST(IrTest, RenamingAnOuterValueReadInABodyRenamesTheShadow) {
  auto model = parseModel(kLoopInputShadowingOuterName);
  Graph& graph = model->graph();
  Value* a = graph.findValue("a");
  Value* body_w = graph.lastNode()->attr("body")->graphs().front()->inputs()[2];
  a->setName("W2");
  EXPECT_EQ(body_w->name(), "W");
  graph.inputs()[1]->setName("old_W");
  a->setName("W");
  EXPECT_NE(body_w->name(), "W");
  EXPECT_TRUE(verify(*model).ok()) << verify(*model);
}

std::shared_ptr<Tensor> floatScalar(float value) {
  onnx::TensorProto proto;
  proto.set_data_type(onnx::TensorProto::FLOAT);
  proto.add_float_data(value);
  return std::make_shared<Tensor>(std::move(proto));
}

// A body with more inputs and initializers than Graph scans one by one looks names up in an
// index: every edit of those names must reach it.
TEST(IrTest, ShadowsInABodyOfManyInitializersAreFoundAfterEachEdit) {
  auto model = parseModel(kLoopInputShadowingOuterName);
  Graph& graph = model->graph();
  Value* w = graph.inputs()[1];
  Value* a = graph.findValue("a");
  Graph& body = *graph.lastNode()->attr("body")->graphs().front();
  std::vector<Value*> weights;
  for (int i = 0; i < 40; ++i) {
    weights.push_back(body.addInitializer(absl::StrCat("weight_", i), floatScalar(1.0f)));
  }
  Value* body_w = body.inputs()[2];
  EXPECT_EQ(body.shadowOf(*w), body_w);
  EXPECT_EQ(body.shadowOf(*a), nullptr);

  Value* added = body.addInitializer("a", floatScalar(2.0f));
  EXPECT_EQ(body.shadowOf(*a), added);
  added->setName("a_renamed");
  EXPECT_EQ(body.shadowOf(*a), nullptr);
  weights[0]->setName("a");
  EXPECT_EQ(body.shadowOf(*a), weights[0]);
  weights[0]->swapName(*weights[1]);
  EXPECT_EQ(body.shadowOf(*a), weights[1]);
  body.removeInitializer(weights[1]);
  EXPECT_EQ(body.shadowOf(*a), nullptr);
  body.removeInputs({body_w});
  EXPECT_EQ(body.shadowOf(*w), nullptr);
  Value* input = body.addInput("W", Type::tensor(onnx::TensorProto::FLOAT));
  EXPECT_EQ(body.shadowOf(*w), input);
}

// A branch that holds a model's weights and reads thousands of outer values (converters put
// whole networks inside an If): a scan of the branch's names per read would take minutes here.
TEST(IrTest, ABranchOfManyWeightsReadsOuterValuesInLinearTime) {
  auto model = parseModel(kIfCapturingOuterValue);
  Graph& graph = model->graph();
  Node* if_node = graph.lastNode();
  Graph& then_branch = *if_node->attr("then_branch")->graphs().front();
  constexpr int kReads = 100000;
  for (int i = 0; i < kReads; ++i) {
    Value* outer = graph.createNode("Relu", {graph.inputs()[1]}, {absl::StrCat("outer_", i)},
                                    if_node)->output(0);
    Value* weight = then_branch.addInitializer(absl::StrCat("weight_", i), floatScalar(1.0f));
    then_branch.createNode("Add", {outer, weight}, {absl::StrCat("sum_", i)});
  }
  EXPECT_TRUE(verify(*model).ok()) << verify(*model);
}

TEST(IrTest, VerifyRefusesAnOuterValueAShadowHides) {
  auto model = parseModel(kIfCapturingOuterValue);
  Graph& then_branch = *model->graph().lastNode()->attr("then_branch")->graphs().front();
  then_branch.addInitializer("A", floatScalar(1.0f));
  const absl::Status status = verify(*model);
  EXPECT_FALSE(status.ok());
  EXPECT_NE(status.message().find("'A' of an enclosing graph would be read as the initializer"),
            std::string::npos)
      << status;
}

TEST(IrTest, ReplaceAllUsesWithMovesGraphOutputs) {
  auto model = parseModel(kChain);
  Graph& graph = model->graph();
  Value* c = graph.lastNode()->input(0);
  Value* y = graph.outputs()[0];
  y->replaceAllUsesWith(c);
  EXPECT_EQ(graph.outputs()[0], c);
  EXPECT_TRUE(c->isGraphOutput());
  EXPECT_FALSE(y->hasUses());
}

TEST(IrTest, ErasingANodeWithSubgraphsDropsTheirUsesOfOuterValues) {
  auto model = parseModel(kIfCapturingOuterValue);
  Graph& graph = model->graph();
  Value* a = graph.firstNode()->output(0);
  Node* if_node = graph.lastNode();
  Value* x = graph.inputs()[1];
  if_node->output(0)->replaceAllUsesWith(x);
  graph.eraseNode(if_node);
  EXPECT_FALSE(a->hasUses());
  EXPECT_TRUE(verify(*model).ok()) << verify(*model);
}

TEST(IrTest, OmittedOptionalInputsAndOutputsStayOmitted) {
  auto model = parseModel(R"(
<ir_version: 8, opset_import: ["" : 13]>
optional (float[N,3,4] X, float[3] scale, float[3] bias) => (float[N,3,4] Y) {
  Y, , = LayerNormalization(X, scale, )
  Z = Clip(X, , bias)
}
)");
  Node* layer_norm = model->graph().firstNode();
  EXPECT_EQ(layer_norm->numInputs(), 3u);
  EXPECT_EQ(layer_norm->input(2), nullptr);
  EXPECT_EQ(layer_norm->numOutputs(), 3u);
  EXPECT_EQ(layer_norm->output(1), nullptr);
  Node* clip = layer_norm->next();
  EXPECT_EQ(clip->input(1), nullptr);
  auto saved = exportModel(*model);
  ASSERT_TRUE(saved.ok());
  EXPECT_EQ(saved->graph().node(0).input(2), "");
  EXPECT_EQ(saved->graph().node(0).output(2), "");
  EXPECT_EQ(saved->graph().node(1).input(1), "");
}

TEST(IrTest, CreateNodeInsertsBeforeTheGivenNode) {
  auto model = parseModel(kChain);
  Graph& graph = model->graph();
  Node* neg = graph.firstNode()->next();
  const std::string name = model->valueNames().fresh("A");
  EXPECT_EQ(name, "A_1") << "A is taken";
  Node* exp = graph.createNode("Exp", {neg->input(0)}, {name}, neg);
  neg->setInput(0, exp->output(0));
  EXPECT_EQ(opTypes(graph), (std::vector<std::string>{"Relu", "Exp", "Neg", "Abs", "Sigmoid"}));
  EXPECT_TRUE(verify(*model).ok()) << verify(*model);
  graph.moveNodeBefore(exp, nullptr);
  EXPECT_FALSE(verify(*model).ok()) << "Exp now comes after its user";
}

TEST(IrTest, FreshNamesAvoidEveryScope) {
  auto model = parseModel(kIfCapturingOuterValue);
  NameTable& names = model->valueNames();
  EXPECT_TRUE(names.contains("T")) << "names inside subgraphs are seeded too";
  EXPECT_EQ(names.fresh("T"), "T_1");
  EXPECT_EQ(names.fresh("T"), "T_2");
  EXPECT_EQ(names.fresh("fresh"), "fresh");
  EXPECT_EQ(names.fresh("fresh"), "fresh_1");
}
TEST(IrTest, NodesCountTheirOutputsThatAreRead) {
  auto model = parseModel(kChain);
  Graph& graph = model->graph();
  Node* relu = graph.firstNode();
  Node* neg = relu->next();
  Node* sigmoid = graph.lastNode();
  EXPECT_TRUE(relu->hasUsedOutputs());
  EXPECT_TRUE(sigmoid->hasUsedOutputs()) << "Y is a graph output";
  Node* split = graph.createNode("Split", {relu->output(0)}, {"S0", "S1"}, neg);
  EXPECT_FALSE(split->hasUsedOutputs());
  neg->setInput(0, split->output(1));
  EXPECT_TRUE(split->hasUsedOutputs());
  EXPECT_TRUE(relu->hasUsedOutputs()) << "read by Split";
  split->output(1)->replaceAllUsesWith(split->output(0));
  EXPECT_TRUE(split->hasUsedOutputs());
  split->output(0)->replaceAllUsesWith(relu->output(0));
  EXPECT_FALSE(split->hasUsedOutputs());
  graph.setOutput(0, split->output(1));
  EXPECT_TRUE(split->hasUsedOutputs()) << "a graph output is read";
  EXPECT_FALSE(sigmoid->hasUsedOutputs());
  graph.eraseNode(sigmoid);
  EXPECT_TRUE(verify(*model).ok()) << verify(*model);
}

TEST(IrTest, NameTablesFollowNamesGivenAfterLoading) {
  auto model = parseModel(kChain);
  Graph& graph = model->graph();
  NameTable& values = model->valueNames();
  EXPECT_EQ(values.fresh("A"), "A_1");
  graph.addInput("A_2", Type::tensor(onnx::TensorProto::FLOAT, Shape{Dim::known(2)}));
  EXPECT_EQ(values.fresh("A"), "A_3") << "A_2 was given by addInput";
  Node* relu = graph.firstNode();
  relu->output(0)->setName("renamed");
  EXPECT_EQ(values.fresh("renamed"), "renamed_1");
  Node* made = graph.createNode("Abs", {relu->output(0)}, {"made"}, nullptr);
  EXPECT_EQ(values.fresh("made"), "made_1");
  made->setName("abs");
  EXPECT_EQ(model->nodeNames().fresh("abs"), "abs_1");
}

TEST(IrTest, VerifierStillCatchesANameGivenTwiceAfterLoading) {
  auto model = parseModel(kChain);
  Graph& graph = model->graph();
  Node* relu = graph.firstNode();
  const std::string fresh = model->valueNames().fresh("A");
  graph.createNode("Exp", {relu->output(0)}, {fresh}, nullptr);
  EXPECT_TRUE(verify(*model).ok()) << verify(*model);

  relu->next()->output(0)->setName("A");
  EXPECT_EQ(verify(*model).message(), "value name 'A' is defined twice");
  relu->next()->output(0)->setName("B2");
  EXPECT_TRUE(verify(*model).ok()) << verify(*model);

  graph.addInput(fresh, Type::tensor(onnx::TensorProto::FLOAT, Shape{Dim::known(2)}));
  EXPECT_EQ(verify(*model).message(), "value name '" + fresh + "' is defined twice");
}

TEST(IrTest, SiblingSubgraphsMayDefineTheSameName) {
  auto model = parseModel(R"(
<ir_version: 8, opset_import: ["" : 13]>
siblings (bool cond, float[2] X) => (float[2] Y) {
  Y = If(cond) <
    then_branch = then_graph () => (float[2] T) { L = Neg(X)  T = Abs(L) },
    else_branch = else_graph () => (float[2] E) { L = Relu(X)  E = Abs(L) }
  >
}
)");
  EXPECT_TRUE(verify(*model).ok()) << verify(*model);
  EXPECT_EQ(model->valueNames().fresh("L"), "L_1");
}

TEST(IrTest, NameTableTellsNamesApartAndGrows) {
  // Every byte of a name counts, whatever its length (the hash reads overlapping words).
  for (size_t length = 1; length <= 40; ++length) {
    const std::string name(length, 'a');
    for (size_t i = 0; i < length; ++i) {
      std::string other = name;
      other[i] = 'b';
      EXPECT_NE(NameTable::hashOf(name), NameTable::hashOf(other)) << length << " " << i;
    }
    EXPECT_NE(NameTable::hashOf(name), NameTable::hashOf(name + '\0'));
  }
  NameTable names;
  names.expect(4);
  for (int i = 0; i < 10000; ++i) names.reserve("v" + std::to_string(i));
  for (int i = 0; i < 10000; ++i) ASSERT_TRUE(names.contains("v" + std::to_string(i))) << i;
  EXPECT_FALSE(names.contains("v10000"));
  EXPECT_FALSE(names.contains(""));
  EXPECT_EQ(names.fresh("v1"), "v1_1");
  EXPECT_EQ(names.fresh("v10000"), "v10000");
  EXPECT_TRUE(names.contains("v10000"));
  EXPECT_EQ(names.fresh(""), "");
  EXPECT_EQ(names.fresh(""), "_1");
}

TEST(IrTest, NameTableTakesManyNamesAtOnce) {
  for (int count : {100, 50000}) {  // one at a time, and bucketed first
    NameTable names;
    names.reserve("w0");
    std::vector<uint64_t> hashes;
    for (int i = 0; i < count; ++i) hashes.push_back(NameTable::hashOf("w" + std::to_string(i)));
    hashes.push_back(NameTable::hashOf("w7"));
    EXPECT_EQ(names.reserveAll(hashes), 2u) << "w0 was there, and w7 comes twice";
    EXPECT_EQ(names.size(), static_cast<size_t>(count));
    for (int i = 0; i < count; ++i) ASSERT_TRUE(names.contains("w" + std::to_string(i))) << i;
    EXPECT_FALSE(names.contains("w" + std::to_string(count)));
    EXPECT_EQ(names.fresh("w1"), "w1_1");
  }
}

TEST(IrTest, NodesOutOfOrderAreSortedAndCyclesRejected) {
  onnx::ModelProto proto = parseProto(kChain);
  std::swap(*proto.mutable_graph()->mutable_node(0), *proto.mutable_graph()->mutable_node(3));
  auto model = importModel(std::move(proto));
  ASSERT_TRUE(model.ok()) << model.status();
  EXPECT_EQ(opTypes((*model)->graph()),
            (std::vector<std::string>{"Relu", "Neg", "Abs", "Sigmoid"}));

  onnx::ModelProto cyclic = parseProto(kChain);
  cyclic.mutable_graph()->mutable_node(0)->set_input(0, "C");
  cyclic.mutable_graph()->mutable_node(0)->set_name("first");
  auto rejected = importModel(std::move(cyclic));
  ASSERT_FALSE(rejected.ok());
  EXPECT_EQ(rejected.status().message(), "the graph has a cycle through node 'first' (Relu)");
}

TEST(IrTest, InitializersThatAreAlsoInputsAndRemoval) {
  onnx::ModelProto proto = parseProto(R"(
<ir_version: 8, opset_import: ["" : 13]>
g (float[2] X, float[2] W) => (float[2] Y) <float[2] W = {1, 2}, float[2] B = {3, 4}, float[2] U = {5, 6}> {
  T = Add(X, W)
  Y = Add(T, B)
}
)");
  auto model = importModel(std::move(proto));
  ASSERT_TRUE(model.ok()) << model.status();
  Graph& graph = (*model)->graph();
  Value* w = graph.inputs()[1];
  EXPECT_TRUE(w->isGraphInput());
  EXPECT_TRUE(w->isInitializer());
  ASSERT_EQ(graph.initializers().size(), 3u);
  Value* unused = graph.initializers()[2];
  EXPECT_FALSE(unused->hasUses());
  graph.removeInitializer(unused);
  ASSERT_EQ(graph.initializers().size(), 2u);
  EXPECT_EQ(graph.initializers()[1]->name(), "B");
  EXPECT_TRUE(verify(**model).ok());
  auto saved = exportModel(**model);
  ASSERT_TRUE(saved.ok());
  EXPECT_EQ(saved->graph().initializer_size(), 2);
  EXPECT_EQ(saved->graph().input_size(), 2);

  // No longer an input, W is an initializer of the type its tensor gives; removing it again, or
  // removing a value that never was an input, changes nothing.
  const uint64_t before = (*model)->modificationCount();
  graph.removeInputs({w});
  EXPECT_GT((*model)->modificationCount(), before);
  EXPECT_FALSE(w->isGraphInput());
  EXPECT_EQ(w->inputInfo(), nullptr);
  EXPECT_TRUE(w->isInitializer());
  EXPECT_EQ(w->type(), Type::tensor(onnx::TensorProto::FLOAT, Shape{Dim::known(2)}));
  const uint64_t after = (*model)->modificationCount();
  graph.removeInputs({w, graph.initializers()[1]});
  EXPECT_EQ((*model)->modificationCount(), after);
  ASSERT_EQ(graph.inputs().size(), 1u);
  EXPECT_EQ(graph.inputs()[0]->name(), "X");
  EXPECT_TRUE(verify(**model).ok());
  saved = exportModel(**model);
  ASSERT_TRUE(saved.ok());
  ASSERT_EQ(saved->graph().input_size(), 1);
  EXPECT_EQ(saved->graph().input(0).name(), "X");
  EXPECT_EQ(saved->graph().initializer_size(), 2);
}

// Folds remove an initializer and add another, node after node: the list keeps its order, and an
// add does not walk the list each time (the 200,000 pairs below took minutes when every add after
// a removal compacted the list; they take a fraction of a second now).
TEST(IrTest, InitializersAddedBetweenRemovalsKeepOrderAndCostNoWalk) {
  auto model = importModel(parseProto(R"(
<ir_version: 8, opset_import: ["" : 13]>
g (float[2] X) => (float[2] Y) <float[2] A = {1, 2}, float[2] B = {3, 4}, float[2] C = {5, 6}> {
  Y = Add(X, C)
}
)"));
  ASSERT_TRUE(model.ok()) << model.status();
  Graph& graph = (*model)->graph();
  const std::shared_ptr<Tensor> tensor = graph.findValue("A")->initializer();
  graph.removeInitializer(graph.findValue("B"));
  graph.addInitializer("D", tensor);
  graph.removeInitializer(graph.findValue("A"));
  graph.addInitializer("E", tensor);
  std::vector<std::string> names;
  for (const Value* initializer : graph.initializers()) names.push_back(initializer->name());
  EXPECT_EQ(names, (std::vector<std::string>{"C", "D", "E"}));

  constexpr int kPairs = 200000;
  std::vector<Value*> added;
  for (int i = 0; i < kPairs; ++i) added.push_back(graph.addInitializer(absl::StrCat("k", i), tensor));
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < kPairs; ++i) {
    graph.removeInitializer(added[i]);
    added[i] = graph.addInitializer(absl::StrCat("r", i), tensor);
  }
  const std::chrono::duration<double> elapsed = std::chrono::steady_clock::now() - start;
  EXPECT_LT(elapsed.count(), 10.0) << "adding initializers between removals walks the list";
  ASSERT_EQ(graph.initializers().size(), static_cast<size_t>(3 + kPairs));
  EXPECT_EQ(graph.initializers()[3]->name(), "r0");
  EXPECT_EQ(graph.initializers().back()->name(), absl::StrCat("r", kPairs - 1));
  auto saved = exportModel(**model);
  ASSERT_TRUE(saved.ok()) << saved.status();
  EXPECT_EQ(saved->graph().initializer(1).name(), "D");
}

TEST(IrTest, TypesReadKnownSymbolicAndUnknownDims) {
  onnx::ModelProto proto = parseProto(R"(
<ir_version: 8, opset_import: ["" : 13]>
g (float[N,4,?] X) => (float[N,4,?] Y) { Y = Relu(X) }
)");
  auto model = importModel(std::move(proto));
  ASSERT_TRUE(model.ok());
  Type type = (*model)->graph().inputs()[0]->type();
  ASSERT_TRUE(type.isTensor());
  EXPECT_EQ(type.elemType(), onnx::TensorProto::FLOAT);
  ASSERT_EQ(type.rank(), 3);
  EXPECT_TRUE((*type.shape())[0].isSymbolic());
  EXPECT_EQ((*type.shape())[0].symbol(), "N");
  EXPECT_EQ((*type.shape())[1], Dim::known(4));
  EXPECT_TRUE((*type.shape())[2].isUnknown());
  EXPECT_FALSE((*type.shape())[2].provablyEquals(Dim::unknown()));

  Value* relu_out = (*model)->graph().firstNode()->output(0);
  EXPECT_FALSE(relu_out->type().isTensor()) << "no value_info for Y: the graph output has it";
  relu_out->setType(Type::tensor(onnx::TensorProto::FLOAT, Shape{Dim::known(2)}));
  EXPECT_EQ(relu_out->type().rank(), 1);
  auto saved = exportModel(**model);
  ASSERT_TRUE(saved.ok());
  ASSERT_EQ(saved->graph().value_info_size(), 1);
  EXPECT_EQ(saved->graph().value_info(0).name(), "Y");
}

// Exporters write -1 for a dynamic dim, and libonnx's inference passes a negative constant shape
// through: neither is a size.
TEST(IrTest, NegativeDimValueIsAnUnknownDim) {
  onnx::TypeProto proto;
  onnx::TypeProto::Tensor* tensor = proto.mutable_tensor_type();
  tensor->set_elem_type(onnx::TensorProto::FLOAT);
  tensor->mutable_shape()->add_dim()->set_dim_value(-1);
  tensor->mutable_shape()->add_dim()->set_dim_value(3);
  tensor->mutable_shape()->add_dim()->set_dim_value(std::numeric_limits<int64_t>::min());
  const Type type = Type::fromProto(proto);
  ASSERT_EQ(type.rank(), 3);
  EXPECT_TRUE((*type.shape())[0].isUnknown());
  EXPECT_EQ((*type.shape())[1], Dim::known(3));
  EXPECT_TRUE((*type.shape())[2].isUnknown());
}

TEST(IrTest, DimsCompareSymbolsByTextWhereverTheyWereMade) {
  std::vector<Dim> from_threads(8, Dim::unknown());
  std::vector<std::thread> threads;
  for (size_t i = 0; i < from_threads.size(); ++i) {
    threads.emplace_back([&from_threads, i] {
      from_threads[i] = Dim::symbolic(std::string("sequence_length_of_") + "thread_test");
    });
  }
  for (std::thread& thread : threads) thread.join();
  const Dim here = Dim::symbolic("sequence_length_of_thread_test");
  for (const Dim& dim : from_threads) {
    EXPECT_EQ(dim, here);
    EXPECT_TRUE(dim.provablyEquals(here));
    EXPECT_EQ(dim.symbol(), "sequence_length_of_thread_test");
  }
  EXPECT_NE(Dim::symbolic("N"), Dim::symbolic("M"));
  EXPECT_FALSE(Dim::symbolic("N").provablyEquals(Dim::symbolic("M")));
  EXPECT_FALSE(Dim::symbolic("N").provablyEquals(Dim::known(0)));
  EXPECT_FALSE(Dim::unknown().provablyEquals(Dim::unknown()));
  EXPECT_EQ(Dim::unknown(), Dim::unknown()) << "the same description, not the same size";
  EXPECT_EQ(Dim::symbolic("").kind(), Dim::Kind::kSymbolic);
  EXPECT_NE(Dim::symbolic(""), Dim::unknown());
  EXPECT_EQ(Dim::known(3).symbol(), "");
  EXPECT_EQ(Dim::unknown().kind(), Dim::Kind::kUnknown);
  EXPECT_TRUE(Dim::known(0).provablyEquals(Dim::known(0)));
  EXPECT_FALSE(Dim::known(0).provablyEquals(Dim::known(1)));
}

TEST(IrTest, AttributesReadAndWrite) {
  auto model = parseModel(R"(
<ir_version: 8, opset_import: ["" : 13]>
g (float[2,3] X) => (float[3,2] Y) { Y = Transpose<perm = [1, 0]>(X) }
)");
  Node* transpose = model->graph().firstNode();
  ASSERT_NE(transpose->attr("perm"), nullptr);
  EXPECT_EQ(transpose->attr("perm")->ints().size(), 2);
  EXPECT_EQ(transpose->intAttr("missing", 7), 7);
  transpose->setAttr(Attribute::makeInts("perm", {0, 1}));
  EXPECT_EQ(transpose->attributes().size(), 1u);
  EXPECT_EQ(transpose->attr("perm")->ints()[0], 0);
  EXPECT_TRUE(transpose->removeAttr("perm"));
  EXPECT_EQ(transpose->attr("perm"), nullptr);
}

TEST(IrTest, OpsetVersionTreatsAiOnnxAsTheDefaultDomain) {
  auto model = parseModel(kChain);
  EXPECT_EQ(model->opsetVersion(""), 13);
  EXPECT_EQ(model->opsetVersion("ai.onnx"), 13);
  EXPECT_EQ(model->opsetVersion("com.microsoft"), std::nullopt);
  EXPECT_TRUE(model->graph().firstNode()->is("Relu", "ai.onnx"));
}

TEST(IrTest, OpNameFollowsTheOpTypeAndDomain) {
  auto model = parseModel(kChain);
  Node* relu = model->graph().firstNode();
  EXPECT_EQ(&relu->op(), &OpName::of("Relu"));
  EXPECT_EQ(&relu->op(), &OpName::of("Relu", "ai.onnx"));
  EXPECT_EQ(relu->opKey(), OpName::of("Relu").key());
  EXPECT_NE(relu->opKey(), OpName::of("Neg").key());
  relu->setOpType("Elu");
  EXPECT_TRUE(relu->is(OpName::of("Elu")));
  EXPECT_EQ(relu->opType(), "Elu");
  EXPECT_EQ(relu->proto().op_type(), "Elu");
  relu->setDomain("com.example");
  EXPECT_TRUE(relu->is("Elu", "com.example"));
  EXPECT_FALSE(relu->is("Elu"));
  EXPECT_EQ(relu->op().domain(), "com.example");
  EXPECT_EQ(relu->proto().domain(), "com.example");
  relu->setDomain("ai.onnx");
  EXPECT_TRUE(relu->is(OpName::of("Elu")));
  EXPECT_EQ(relu->domain(), "ai.onnx");  // as the model spells it
  Node* made = model->graph().createNode("Abs", {relu->output(0)}, {"made"}, nullptr);
  EXPECT_TRUE(made->is("Abs"));
}

TEST(IrTest, OpNamesAreOnePerPairAcrossThreads) {
  // The domain/op boundary is part of the name: ("a", "bc") is not ("ab", "c").
  EXPECT_NE(&OpName::of("bc", "a"), &OpName::of("c", "ab"));
  EXPECT_NE(OpName::of("bc", "a").key(), OpName::of("c", "ab").key());
  EXPECT_EQ(OpName::of("bc", "a").opType(), "bc");
  constexpr int kThreads = 4;
  constexpr int kNames = 300;  // more than a thread's cache of recent names holds
  std::vector<std::vector<const OpName*>> seen(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([t, &seen] {
      for (int round = 0; round < 2; ++round) {
        for (int i = 0; i < kNames; ++i) {
          seen[t].push_back(&OpName::of(absl::StrCat("Op", i), "x.y"));
        }
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  for (int t = 0; t < kThreads; ++t) {
    for (int i = 0; i < 2 * kNames; ++i) {
      EXPECT_EQ(seen[t][i], &OpName::of(absl::StrCat("Op", i % kNames), "x.y"));
      EXPECT_EQ(seen[t][i]->opType(), absl::StrCat("Op", i % kNames));
    }
  }
  EXPECT_NE(OpName::of("Op1", "x.y").key(), OpName::of("Op2", "x.y").key());
}

}  // namespace
}  // namespace onnxopt::ir
