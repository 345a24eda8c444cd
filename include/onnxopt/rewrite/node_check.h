#pragma once

// The checks ONNX Runtime makes of each node when it loads a model, made by onnx-opt before it
// optimizes: a model ORT would refuse is reported, naming the node, instead of being rewritten.

#include "absl/status/status.h"
#include "onnxopt/export.h"
#include "onnxopt/ir/ir.h"

namespace onnxopt {

// Whether the node is well formed for its operator at the model's opset: every attribute is one
// the schema defines (unless the schema accepts any), of the kind it defines, required ones are
// there; the number of inputs and outputs is within the schema's range; a graph input or an
// initializer it reads has an element type the schema allows there; a Cast's `to` is an element
// type that Cast version produces; a Transpose perm is a
// permutation of its input's axes and an `axis` lies within its input's rank, where that rank is
// declared (a graph input or an initializer). OK when the schema is not known (an opset or
// domain onnx-opt has no schema for). InvalidArgument naming the node and what is wrong.
ONNXOPT_API absl::Status checkNode(const ir::Node& node);

// checkNode for the node, the producers of its operands up to `producer_hops` levels (a pattern
// whose RewritePattern::matchDepth() is n reads n levels up), and the readers of its outputs:
// the nodes a pattern rooted at it reads. The first error found. With --no-check the rewrite
// drivers offer no node that fails it to a pattern.
ONNXOPT_API absl::Status checkNodeNeighbourhood(const ir::Node& node, int producer_hops = 1);

// checkNode for every node of every graph of the model; the first error found.
ONNXOPT_API absl::Status checkModelNodes(const ir::Model& model);

}  // namespace onnxopt
