#pragma once

#include <string>

#include "absl/strings/str_cat.h"
#include "onnxopt/ir/ir.h"

namespace onnxopt::detail {

// How errors and --debug lines name a node: `node 'gemm_3' (Gemm)`.
inline std::string describe(const ir::Node& node) {
  const std::string& domain = node.op().domain();
  return absl::StrCat("node '", node.name(), "' (", domain, domain.empty() ? "" : ".",
                      node.opType(), ")");
}

}  // namespace onnxopt::detail
