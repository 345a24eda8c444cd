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

inline std::unique_ptr<ir::Model> parseModel(const std::string& text) {
  auto model = ir::importModel(parseProto(text));
  EXPECT_TRUE(model.ok()) << model.status();
  return model.ok() ? *std::move(model) : nullptr;
}

}  // namespace onnxopt::testing
