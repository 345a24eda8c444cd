#pragma once

// Builds IR models from ONNX's text syntax for tests, and patterns the tests share.

#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "onnx/defs/parser.h"
#include "onnxopt/ir/serialization.h"
#include "onnxopt/rewrite/pattern.h"
#include "onnxopt/rewrite/rewriter.h"

namespace onnxopt::testing {

inline onnx::ModelProto parseProto(const std::string& text) {
  onnx::ModelProto proto;
  const auto status = onnx::OnnxParser::Parse(proto, text.c_str());
  EXPECT_TRUE(status.IsOK()) << status.ErrorMessage() << "\n" << text;
  return proto;
}

// Fails the test on a parse or import error, and then returns an empty model (not null).
inline std::unique_ptr<ir::Model> parseModel(const std::string& text) {
  auto model = ir::importModel(parseProto(text));
  EXPECT_TRUE(model.ok()) << model.status();
  return model.ok() ? *std::move(model) : std::make_unique<ir::Model>();
}

// The node whose first output is named `output_name`, or null.
inline ir::Node* findNode(ir::Graph& graph, const std::string& output_name) {
  for (ir::Node& node : graph) {
    if (node.numOutputs() > 0 && node.output(0) && node.output(0)->name() == output_name) {
      return &node;
    }
  }
  return nullptr;
}

// Matches nothing; records the output name of every node of `op_type` it is offered.
class RecordVisits final : public RewritePattern {
 public:
  RecordVisits(const char* op_type, std::vector<std::string>* visits)
      : RewritePattern("record-visits", {op_type}), visits_(visits) {}
  LogicalResult matchAndRewrite(const ir::Node& node, PatternRewriter& rewriter) const override {
    visits_->push_back(node.output(0)->name());
    return rewriter.notifyMatchFailure(node, "records only");
  }

 private:
  std::vector<std::string>* visits_;
};

}  // namespace onnxopt::testing
