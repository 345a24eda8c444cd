#pragma once

#include <string>

#include "absl/strings/str_cat.h"
#include "onnxopt/ir/ir.h"

namespace onnxopt::ir {

// How errors and --debug lines name a node: `node 'gemm_3' (Gemm)`. A node without a name is
// named by its first output, which ONNX requires to be unique: `node with output 'Y' (Gemm)`.
inline std::string describe(const Node& node) {
  const std::string& domain = node.op().domain();
  const std::string op = absl::StrCat(domain, domain.empty() ? "" : ".", node.opType());
  if (!node.name().empty()) return absl::StrCat("node '", node.name(), "' (", op, ")");
  for (const Value* output : node.outputs()) {
    if (output != nullptr) return absl::StrCat("node with output '", output->name(), "' (", op, ")");
  }
  return absl::StrCat("an unnamed ", op, " node without outputs");
}

}  // namespace onnxopt::ir
