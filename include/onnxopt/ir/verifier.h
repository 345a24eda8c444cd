#pragma once

#include "absl/status/status.h"
#include "onnxopt/export.h"
#include "onnxopt/ir/ir.h"

namespace onnxopt::ir {

// Checks the IR's invariants in every scope: use lists match operands and graph outputs, every
// operand is defined before its use (in this scope or an outer one), value names are unique per
// scope, nodes and values belong to the graph that lists them, and the node list is well linked.
// The first violation is returned, naming the node (name and op type) or value.
ONNXOPT_API absl::Status verify(const Model& model);

}  // namespace onnxopt::ir
