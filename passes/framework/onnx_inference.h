#pragma once

// libonnx's shape inference, as every onnx-opt caller runs it: on models that may be hostile.
//
// ONNX 1.12's inference of Expand, Reshape, ConstantOfShape and Resize takes the rank of its output
// from the length of the shape input when that input's values are unknown. A model whose shape
// input is a tensor of absurd length (Expand(x, s) with s of shape [1e18], itself inferred from a
// constant) then makes libonnx build a shape of 1e18 dims and exhaust memory. Its inference of
// Conv, ConvInteger, QLinearConv and the pools divides by each stride, so a stride of 0 kills the
// process (SIGFPE). Through this function such nodes are left uninferred: a shape input longer
// than kMaxRankFromShapeLength, a stride below 1.

#include "onnx/onnx_pb.h"
#include "onnx/shape_inference/implementation.h"

namespace onnxopt::detail {

// onnx::shape_inference::InferShapes(model, ...) with the operator schemas of libonnx's registry,
// guarded as above. Throws what libonnx throws.
void inferShapesGuarded(onnx::ModelProto& model, const onnx::ShapeInferenceOptions& options);

// libonnx 1.12 infers each subgraph with a copy of every type known in its enclosing scopes, so a
// model of thousands of If or Loop nodes costs their product (8,000 chained Ifs: 5 s). Past
// `max_copied` entries, the nodes of `graph` (a copy made for inference only) that would make
// libonnx copy more get their graph attributes renamed and emptied: libonnx reports that as an
// inference error of the node, ignored in error mode 0, and leaves its outputs untyped. Returns
// the number of such nodes. The oracle's budget: a copied type costs libonnx about 0.4 us.
constexpr size_t kMaxOuterTypesCopied = 1'000'000;
size_t skipSubgraphInferencePast(onnx::GraphProto& graph, size_t max_copied);

}  // namespace onnxopt::detail
