#pragma once

// Targets (`onnx-opt --target=NAME`): a pipeline for one kind of runtime, declared in
// passes/passes.def as a named pipeline plus passes, and for TensorRT a report of what in the
// optimized model it is known to reject or emulate (docs/targets.md).

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "onnxopt/export.h"
#include "onnxopt/ir/ir.h"
#include "onnxopt/pass/pass_registry.h"

namespace onnxopt {

// ONNXOPT_TARGET(name, base, passes, summary) of passes.def: the named pipeline `base` ("O1"),
// then `passes` (pipeline text, may be "").
struct Target {
  std::string name;
  std::string base;
  std::string passes;
  std::string summary;
};

// The targets of passes.def, in its order ("generic", the default, first).
ONNXOPT_API const std::vector<Target>& builtinTargets();
// The target called `name`; InvalidArgument listing the targets otherwise.
ONNXOPT_API absl::StatusOr<Target> findTarget(absl::string_view name);
// The pipeline text the target runs: its base pipeline's passes, then its own.
ONNXOPT_API absl::StatusOr<std::string> targetPipeline(
    const Target& target, const PassRegistry& registry = PassRegistry::global());

// What TensorRT's ONNX parser is known to reject or emulate, in an optimized model.
struct TensorRtFindings {
  // A main-graph input dim that is not a known size: `symbol` is its dim_param ("" when it has
  // none); `index` is -1 when the input's rank itself is unknown.
  struct DynamicDim {
    std::string input;
    int64_t index = 0;
    std::string symbol;
  };
  // An INT64 initializer with a value outside int32 (TensorRT casts INT64 weights to INT32):
  // the first such value.
  struct Int64Overflow {
    std::string name;
    int64_t value = 0;
  };
  std::vector<DynamicDim> dynamic_dims;
  int64_t int64_initializers = 0;  // all graphs
  std::vector<Int64Overflow> int64_overflows;
  // INT64 initializers whose values could not be read (external data that did not load).
  std::vector<std::string> int64_unread;
  // "domain.OpType" -> nodes, in order of first appearance: ops outside the ONNX domain ("" and
  // "ai.onnx"), ai.onnx.ml included.
  std::vector<std::pair<std::string, int64_t>> non_onnx_ops;
  // Main-graph inputs, outputs and value_info declared DOUBLE, and DOUBLE initializers of every
  // graph (TensorRT has no double).
  std::vector<std::string> double_tensors;
};

ONNXOPT_API TensorRtFindings checkTensorRt(ir::Model& model);

// What the target called `target` reports on the optimized model: checkTensorRt for
// "tensorrt"; nullopt for the targets that report nothing.
ONNXOPT_API std::optional<TensorRtFindings> checkForTarget(absl::string_view target,
                                                           ir::Model& model);

}  // namespace onnxopt
