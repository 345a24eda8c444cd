// Subgraphs nested 10,000 deep, reaching the IR without protobuf's parser (whose recursion limit
// stops such a file long before): a ModelProto built in memory, the text syntax, and an IR built
// through the C++ API. Every entry point must refuse them with an error, never overflow the stack.

#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "onnx/defs/parser.h"
#include "onnxopt/ir/ir.h"
#include "onnxopt/ir/printer.h"
#include "onnxopt/ir/serialization.h"
#include "onnxopt/ir/verifier.h"
#include "onnxopt/onnxopt.h"
#include "onnxopt/pass/pass_manager.h"
#include "onnxopt/pass/pass_registry.h"

namespace onnxopt {
namespace {

constexpr int kDepth = 10000;

// X -> Wrap{body: Wrap{body: ... Identity ...}} -> Y, each level's body reading X from the
// outermost graph.
onnx::ModelProto deepModelProto(int depth) {
  onnx::ModelProto model;
  model.set_ir_version(8);
  model.add_opset_import()->set_version(13);
  onnx::GraphProto* graph = model.mutable_graph();
  graph->set_name("main");
  auto* input = graph->add_input();
  input->set_name("X");
  input->mutable_type()->mutable_tensor_type()->set_elem_type(onnx::TensorProto::FLOAT);
  graph->add_output()->set_name("Y");
  for (int level = 0; level < depth; ++level) {
    onnx::NodeProto* node = graph->add_node();
    node->set_name(absl::StrCat("wrap", level));
    node->set_op_type("Wrap");
    node->set_domain("test.nesting");
    node->add_output(level == 0 ? "Y" : absl::StrCat("out", level));
    onnx::AttributeProto* body = node->add_attribute();
    body->set_name("body");
    body->set_type(onnx::AttributeProto::GRAPH);
    graph = body->mutable_g();
    graph->set_name(absl::StrCat("level", level + 1));
    graph->add_output()->set_name(absl::StrCat("out", level + 1));
  }
  onnx::NodeProto* leaf = graph->add_node();
  leaf->set_op_type("Identity");
  leaf->add_input("X");
  leaf->add_output(absl::StrCat("out", depth));
  model.add_opset_import()->set_domain("test.nesting");
  model.mutable_opset_import(1)->set_version(1);
  return model;
}

// The same model, in the text syntax.
std::string deepModelText(int depth) {
  std::string text = "<ir_version: 8, opset_import: [\"\" : 13, \"test.nesting\" : 1]>\n"
                     "main (float X) => (float Y) {\n";
  for (int level = 0; level < depth; ++level) {
    absl::StrAppend(&text, level == 0 ? "Y" : absl::StrCat("out", level),
                    " = test.nesting.Wrap <body = level", level + 1, " () => (out", level + 1,
                    ") {\n");
  }
  absl::StrAppend(&text, "out", depth, " = Identity(X)\n");
  for (int level = 0; level < depth; ++level) absl::StrAppend(&text, "}>()\n");
  absl::StrAppend(&text, "}\n");
  return text;
}

void expectTooDeep(const absl::Status& status) {
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << status;
  EXPECT_NE(status.message().find("nested more than"), std::string::npos) << status;
}

TEST(DeepNesting, ProtoBuiltInMemoryIsRefusedByTheImporter) {
  auto model = ir::importModel(deepModelProto(kDepth));
  ASSERT_FALSE(model.ok());
  expectTooDeep(model.status());
  EXPECT_NE(model.status().message().find("wrap"), std::string::npos) << model.status();
}

TEST(DeepNesting, ProtoOfAllowedDepthImports) {
  auto model = ir::importModel(deepModelProto(ir::kMaxGraphNesting));
  ASSERT_TRUE(model.ok()) << model.status();
  EXPECT_TRUE(ir::verify(**model).ok());
}

// ONNX's own OnnxParser (libonnx) recurses once per level and overflows the stack itself on text
// nested 10,000 deep, before onnx-opt sees anything; onnx-opt reads no text, and its tests and
// examples only parse text they wrote. 1,000 levels are within what the parser survives.
TEST(DeepNesting, TextSyntaxIsRefusedByTheImporter) {
  constexpr int kTextDepth = 1000;
  onnx::ModelProto proto;
  const auto parsed = onnx::OnnxParser::Parse(proto, deepModelText(kTextDepth).c_str());
  ASSERT_TRUE(parsed.IsOK()) << parsed.ErrorMessage();
  auto model = ir::importModel(std::move(proto));
  ASSERT_FALSE(model.ok());
  expectTooDeep(model.status());
}

TEST(DeepNesting, PrinterOfProtoStopsAtTheLimit) {
  const std::string text = ir::printModel(deepModelProto(kDepth));
  EXPECT_NE(text.find("nested more than"), std::string::npos);
}

// An IR built through the C++ API: `depth` levels of Wrap nodes, each with a graph attribute.
std::unique_ptr<ir::Model> deepIr(int depth) {
  auto model = std::make_unique<ir::Model>();
  model->setOpsetVersion("", 13);
  ir::Graph* graph = &model->graph();
  ir::Value* x = graph->addInput("X", ir::Type());
  graph->addOutput(x);
  for (int level = 0; level < depth; ++level) {
    ir::Node* node = graph->createNode("Wrap", {}, {absl::StrCat("out", level)});
    node->setName(absl::StrCat("wrap", level));
    onnx::AttributeProto body;
    body.set_name("body");
    body.set_type(onnx::AttributeProto::GRAPH);
    node->setAttr(ir::Attribute(std::move(body)));
    auto& graphs = node->mutableAttributes().back().mutableGraphs();
    graphs.push_back(std::make_unique<ir::Graph>(model.get(), node));
    graph = graphs.back().get();
  }
  graph->createNode("Identity", {x}, {"leaf"});
  return model;
}

// Every entry point that walks it says no.
class DeepIrTest : public ::testing::Test {
 protected:
  void SetUp() override { model_ = deepIr(kDepth); }
  std::unique_ptr<ir::Model> model_;
};

TEST_F(DeepIrTest, VerifierRefusesIt) { expectTooDeep(ir::verify(*model_)); }

TEST_F(DeepIrTest, SavingRefusesIt) {
  expectTooDeep(ir::saveModelToBytes(*model_).status());
  expectTooDeep(ir::exportModel(*model_).status());
  expectTooDeep(ir::saveModelToFile(*model_, ::testing::TempDir() + "/deep.onnx"));
}

TEST_F(DeepIrTest, PrinterStopsAtTheLimit) {
  const std::string text = ir::printModel(*model_);
  EXPECT_NE(text.find("nested more than"), std::string::npos);
}

TEST_F(DeepIrTest, PassesRefuseIt) {
  expectTooDeep(optimizeModel(*model_, "-O1"));
  PassManager manager;
  ASSERT_TRUE(manager.addPipeline("eliminate-dead-nodes").ok());
  expectTooDeep(manager.run(*model_).status());
}

// Destroying graphs recursively takes a few stack frames per level: 100,000 levels would need
// more than the usual 8 MiB of stack.
TEST(DeepNesting, DestroyingAnIrDoesNotRecursePerLevel) { deepIr(100000).reset(); }

}  // namespace
}  // namespace onnxopt
