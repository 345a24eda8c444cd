#pragma once

#include <cstdint>
#include <string>

#include "onnx/onnx_pb.h"
#include "onnxopt/export.h"
#include "onnxopt/ir/ir.h"

namespace onnxopt::ir {

struct PrintOptions {
  // Tensors with more elements than this are printed as a summary, "{...}", which no reader
  // reads back (readModelText says to print in full). Unbounded, the text reads back to the
  // model (text_reader.h).
  int64_t max_initializer_elements = 64;
  // Node names, which the syntax has no place for, follow their node as a `# name` comment.
  bool node_names = true;
};

// Prints a model in the ONNX text syntax that onnx::OnnxParser reads: header, graph with
// initializers, nodes with domains and attributes of every kind, subgraphs indented, and
// model-local functions.
ONNXOPT_API std::string printModel(const onnx::ModelProto& model, const PrintOptions& options = {});
ONNXOPT_API std::string printModel(const Model& model, const PrintOptions& options = {});
ONNXOPT_API std::string printGraph(const onnx::GraphProto& graph, const PrintOptions& options = {});

}  // namespace onnxopt::ir
