#pragma once

// onnx-opt's constant evaluator: computes a node's outputs from constant inputs, exactly as ONNX
// Runtime would, or declines. Passes that fold (fold-constants, fold-shapes, ...) call it; a
// kernel that does not implement an op, opset, type or attribute exactly declines rather than
// guess.

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "onnx/onnx_pb.h"
#include "onnxopt/export.h"
#include "onnxopt/ir/ir.h"

namespace onnxopt::eval {

inline constexpr int64_t kDefaultMaxOutputBytes = 64 << 20;

struct EvalLimits {
  // No output is allocated larger than this; judged from its dims before allocating, so an
  // absurd dim never allocates.
  int64_t max_output_bytes = kDefaultMaxOutputBytes;
};

// Whether the evaluator has a kernel for the node's op at the operator version its model's
// opset selects (default domain only). A cheap test before gathering inputs; evaluate() may
// still decline for a type, attribute or value the kernel does not handle.
ONNXOPT_API bool hasKernel(const ir::Node& node);

// The op types (default domain) the evaluator has a kernel for at some opset, sorted: every one
// deterministic (no random op has a kernel).
ONNXOPT_API std::vector<std::string> kernelOpTypes();

// The node's outputs, one TensorProto per output of the node, computed from `inputs` (one per
// node input, in order; nullptr for an omitted optional input). Inputs have inline data (as
// ConstantView::proto() gives). Outputs have no name; their data is in raw_data (string_data for
// strings).
//
// Errors, each naming the node (ir::describe) and the reason; a caller folding constants treats
// every error as "do not fold":
//   Unimplemented      no kernel for this op, version, element type or attribute value;
//   InvalidArgument    inputs the op rejects (data not matching dims, index out of range,
//                      Slice step 0, integer division by zero, an impossible Reshape, a Cast of
//                      NaN or an out-of-range value to an integer type);
//   ResourceExhausted  an output larger than limits.max_output_bytes.
ONNXOPT_API absl::StatusOr<std::vector<onnx::TensorProto>> evaluate(
    const ir::Node& node, absl::Span<const onnx::TensorProto* const> inputs,
    const EvalLimits& limits = {});

}  // namespace onnxopt::eval
