#pragma once

// libonnx's shape inference, as every onnx-opt caller runs it: on models that may be hostile.
//
// ONNX 1.12's inference of Expand, Reshape, ConstantOfShape and Resize takes the rank of its output
// from the length of the shape input when that input's values are unknown. A model whose shape
// input is a tensor of absurd length (Expand(x, s) with s of shape [1e18], itself inferred from a
// constant) then makes libonnx build a shape of 1e18 dims and exhaust memory. Through this
// function a node whose shape input is longer than kMaxRankFromShapeLength is left uninferred.

#include "onnx/onnx_pb.h"
#include "onnx/shape_inference/implementation.h"

namespace onnxopt::detail {

// onnx::shape_inference::InferShapes(model, ...) with the operator schemas of libonnx's registry,
// guarded as above. Throws what libonnx throws.
void inferShapesGuarded(onnx::ModelProto& model, const onnx::ShapeInferenceOptions& options);

}  // namespace onnxopt::detail
