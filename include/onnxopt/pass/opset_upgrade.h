#pragma once

// Raising a model's default-domain opset (`--target-opset`) with ONNX 1.12's version converter,
// so that an export at opset 11-16 can take the fusions into ops of later opsets
// (LayerNormalization is opset 17). The converter works on protos; onnx-opt's IR goes through
// it by export and import, its weights moved aside rather than copied.

#include <cstdint>
#include <memory>

#include "absl/status/status.h"
#include "onnx/onnx_pb.h"
#include "onnxopt/export.h"
#include "onnxopt/ir/ir.h"

namespace onnxopt {

// The highest opset ONNX 1.12's version converter has adapters for.
inline constexpr int64_t kMaxTargetOpset = 17;

// InvalidArgument unless 1 <= target_opset <= kMaxTargetOpset: what can be checked before a
// model is read.
ONNXOPT_API absl::Status checkTargetOpset(int64_t target_opset);

// Raises the model's default-domain opset to `target_opset`, converting every node (subgraphs
// included) with ONNX's version converter, and the IR version to one that knows that opset.
// A model already at `target_opset` (or importing no default-domain opset) is left as it is.
// Errors, with the model unchanged:
//  - InvalidArgument: `target_opset` fails checkTargetOpset, or is below the model's opset
//    (the converter's downgrades are not offered);
//  - Unimplemented, naming the op and its node: the converter has no adapter for an op of the
//    model at one of the steps, does not know the op, or the node is outside the ONNX domain
//    (ONNX 1.12's converter would convert such a node as the ONNX op of the same name);
//  - Unimplemented, naming the node, where the converter's result would be wrong: a softmax over
//    a middle axis whose input has more than one dim not known (opset 12 -> 13 reshapes back to
//    them), a Pad below opset 11 with a pad value and an input of unknown type;
//  - Internal: the converter failed (an exception of ONNX's, its message kept).
// The model's declarations are legalized before the conversion (rewrite/declarations.h, as after
// a pipeline that changed a model): after the errors found only by converting, the model is as it
// came but for those.
ONNXOPT_API absl::Status upgradeOpset(onnx::ModelProto& model, int64_t target_opset);

// The same for a model in the IR: exported (raw weights moved, not copied), upgraded, imported
// again (external data resolves against the model's baseDir()). On success `model` is the
// upgraded model; on error it holds the model as it came.
ONNXOPT_API absl::Status upgradeOpset(std::unique_ptr<ir::Model>& model, int64_t target_opset);

}  // namespace onnxopt
