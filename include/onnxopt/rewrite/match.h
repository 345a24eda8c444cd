#pragma once

// Small matchers patterns share: what produces a value, who reads it, dims as broadcasting
// aligns them, and how --debug reasons print shapes.

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "onnxopt/export.h"
#include "onnxopt/ir/ir.h"
#include "onnxopt/rewrite/pattern.h"

namespace onnxopt {

class PatternRewriter;

// The node producing `value` when it is an `op_type` of `domain` ("" is ONNX's), else null.
ONNXOPT_API const ir::Node* producerOf(const ir::Value* value, absl::string_view op_type,
                                       absl::string_view domain = "");

// Whether `value` is read exactly once, by a node: a rewrite may then absorb its producer.
ONNXOPT_API bool hasSingleReader(const ir::Value& value);

// Whether every use of `value` is an operand of one of `readers` (none is a graph output): a
// rewrite of those readers may then drop its producer. True for a value nothing reads.
ONNXOPT_API bool onlyReadBy(const ir::Value& value, absl::Span<const ir::Node* const> readers);

// The `op_type` node producing `root`'s first operand, when a rewrite of `root` may absorb it: it
// has its own first operand, and `root` is its only reader. Null otherwise; when only other
// readers (or a graph output) stand in the way, the decline is recorded.
ONNXOPT_API const ir::Node* absorbableProducer(const ir::Node& root, absl::string_view op_type,
                                               PatternRewriter& rewriter);

inline bool isKnownOne(const ir::Dim& dim) { return dim.isKnown() && dim.value() == 1; }
inline bool isKnownNotOne(const ir::Dim& dim) { return dim.isKnown() && dim.value() != 1; }
// Whether the shape is known and every dim is a known 1 (a scalar too): such a tensor
// broadcasts alike against any tensor of its rank or more, in any layout.
inline bool allKnownOnes(const std::optional<ir::Shape>& shape) {
  return shape && std::all_of(shape->begin(), shape->end(), isKnownOne);
}

// The rewrite of a node that passes `operand` through unchanged (same type, same shape, same
// elements as its output 0): its readers read `operand` wherever the model's interface allows
// (PatternRewriter::replaceUsesWhereAllowed; the node then goes when nothing reads it). Fails,
// with the reason recorded, when no reader may.
ONNXOPT_API LogicalResult forwardOperand(const ir::Node& node, ir::Value& operand,
                                         PatternRewriter& rewriter);

// Whether the node computes the same outputs every time it runs on the same inputs: an ONNX
// operator of the default domain other than the random ones (RandomNormal, RandomUniform, their
// Like forms, Multinomial, Bernoulli) and Dropout (random in training mode). Other domains are
// not known to be deterministic.
ONNXOPT_API bool isDeterministic(const ir::Node& node);

// Whether two nodes compute the same outputs from the same operands: the same op and domain,
// output count, inputs (the same values; omitted ones in the same places) and attributes
// whatever their order, compared exactly (floats by their bits: -0.0 is not 0.0; tensors and
// subgraphs by their serialized protos), doc strings aside. For deterministic nodes, equal means
// interchangeable.
ONNXOPT_API bool sameComputation(const ir::Node& a, const ir::Node& b);
// A hash of what sameComputation compares: equal for nodes it finds the same.
ONNXOPT_API size_t computationHash(const ir::Node& node);

// Whether the node (default domain) outputs its first input's elements in the same order, only
// in another shape: Reshape, Flatten, Squeeze, Unsqueeze, in every version.
ONNXOPT_API bool keepsElementOrder(const ir::Node& node);

// Whether the node (default domain) outputs only elements of its first input, selected,
// repeated or moved, computing none: the ops keepsElementOrder() names, and Identity,
// Transpose, Slice, Gather, Expand, Tile. A value all of whose elements are some bit pattern
// keeps it through them.
ONNXOPT_API bool onlyMovesElements(const ir::Node& node);

// Whether the node (default domain) computes each element of its one output from the element
// at the same index of its input 0 alone, whatever its attributes: the activations, the unary
// math functions, Cast, Not, IsNaN, IsInf, Identity, and Clip (whose bounds are scalars).
ONNXOPT_API bool isUnaryElementwise(const ir::Node& node);

// An operator of the default domain that computes each output element from the elements of its
// inputs at the same index, under numpy broadcasting, from opset `since` (before, it broadcast
// by legacy rules or not at all).
struct BroadcastingOp {
  absl::string_view op_type;
  int64_t since;
  bool gives_bool;  // comparisons and logical operators
};
ONNXOPT_API absl::Span<const BroadcastingOp> broadcastingOps();
// The node's entry in broadcastingOps(), or null.
ONNXOPT_API const BroadcastingOp* broadcastingOpOf(const ir::Node& node);

// The dim `i` places from the right (0: the last axis), if the shape is known and has it: how
// broadcasting aligns shapes.
inline std::optional<ir::Dim> dimFromRight(const std::optional<ir::Shape>& shape, size_t i) {
  if (!shape || i >= shape->size()) return std::nullopt;
  return (*shape)[shape->size() - 1 - i];
}

// The sizes of a fully known shape; nullopt when a dim is symbolic or unknown.
ONNXOPT_API std::optional<std::vector<int64_t>> knownSizes(const ir::Shape& shape);

// "[N,4,?]" for a shape, "[rank unknown]" without one: for --debug reasons.
ONNXOPT_API std::string shapeText(const std::optional<ir::Shape>& shape);
ONNXOPT_API std::string dimText(const ir::Dim& dim);

}  // namespace onnxopt
