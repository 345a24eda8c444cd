#pragma once

// Builds IR models from ONNX's text syntax for tests.

#include <memory>
#include <string>

#include <gtest/gtest.h>

#include "onnx/defs/parser.h"
#include "onnxopt/ir/serialization.h"

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

}  // namespace onnxopt::testing
