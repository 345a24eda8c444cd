#pragma once

#include <string>

#include "absl/strings/str_cat.h"
#include "onnxopt/ir/ir.h"

namespace onnxopt::detail {

// How errors and --debug lines name a node: `node 'gemm_3' (Gemm)`.
inline std::string describe(const ir::Node& node) {
  return absl::StrCat("node '", node.name(), "' (",
                      node.domain().empty() || node.domain() == "ai.onnx"
                          ? std::string()
                          : absl::StrCat(node.domain(), "."),
                      node.opType(), ")");
}

}  // namespace onnxopt::detail
