#pragma once

// Helpers shared by the pass framework tests.

#include <memory>
#include <string>

#include "gtest/gtest.h"
#include "onnx/defs/parser.h"
#include "onnxopt/ir/ir.h"
#include "onnxopt/ir/printer.h"
#include "onnxopt/ir/serialization.h"

namespace onnxopt::testing {

// A model from ONNX's text syntax; fails the test on a parse or import error.
inline std::unique_ptr<ir::Model> parseModel(const std::string& text) {
  onnx::ModelProto proto;
  const onnx::Common::Status parsed = onnx::OnnxParser::Parse(proto, text.c_str());
  EXPECT_TRUE(parsed.IsOK()) << parsed.ErrorMessage();
  auto model = ir::importModel(std::move(proto));
  EXPECT_TRUE(model.ok()) << model.status();
  return model.ok() ? *std::move(model) : std::make_unique<ir::Model>();
}

inline ir::Node* findNode(ir::Graph& graph, const std::string& output_name) {
  for (ir::Node& node : graph) {
    if (node.numOutputs() > 0 && node.output(0) && node.output(0)->name() == output_name) {
      return &node;
    }
  }
  return nullptr;
}

}  // namespace onnxopt::testing
