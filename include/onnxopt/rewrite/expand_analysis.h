#pragma once

// What E = Expand(X, S) is, axis by axis, from X's shape and S's value (ShapeOracle::shapeValueOf
// follows a computed S through Shape/Gather/Unsqueeze/Concat), and the proof that a consumer
// broadcasting E with other operands computes the same reading X: the checks every pass that
// removes or reads around an Expand needs.

#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "onnxopt/export.h"
#include "onnxopt/ir/ir.h"
#include "onnxopt/rewrite/shape_oracle.h"

namespace onnxopt {

// One axis of E.
struct ExpandedDim {
  ir::Dim dim = ir::Dim::unknown();
  bool same_as_input = false;  // provably X's dim on this axis (X has the axis)
};

struct ExpandFacts {
  const ir::Node* expand = nullptr;
  ir::Value* input = nullptr;
  ir::Value* target = nullptr;
  std::optional<ir::Shape> input_shape;
  // E's axes, left to right; nullopt when E's rank is not known.
  std::optional<std::vector<ExpandedDim>> dims;
  // Set when the target is Shape(V) for a value V (whole range): E = broadcast(X, V's shape).
  const ir::Value* target_shape_of = nullptr;
  std::string why_unknown;  // why dims is nullopt
  absl::Status error;       // a malformed node met on the way: the pass fails with it
};

// The facts of an Expand with both inputs present.
ONNXOPT_API ExpandFacts analyzeExpand(const ir::Node& expand, ShapeOracle& shapes);

// Whether E is X: same rank and every axis provably X's.
ONNXOPT_API bool expandIsNop(const ExpandFacts& facts);

// V when `target` is Shape(V) over the whole range, else null: broadcast(V, target) is V.
ONNXOPT_API const ir::Value* shapeOfSource(const ir::Value* target);

// Whether `value`, as an operand broadcast with E, already has every axis E's target could add:
// broadcast(value, S) == value. True for E itself, for V when S = Shape(V), and for
// Expand(_, S') when S' is S or Shape(V') of the same V; "the same V" and "V" up to values of the
// same shape by definition (sameShapeByDefinition: Relu(V) for V).
ONNXOPT_API bool coversExpandTarget(const ir::Value* value, const ExpandFacts& facts);

// Another operand of a multidirectionally broadcasting consumer, as the proof sees it.
struct OtherOperand {
  std::optional<ir::Shape> shape;  // nullopt: rank unknown
  bool covers_target = false;
};

// Proves broadcast(X, others...) == broadcast(E, others...), axis by axis. Returns "" on
// success, the reason otherwise.
ONNXOPT_API std::string proveBroadcastAbsorbsExpand(const ExpandFacts& facts,
                                                    const std::vector<OtherOperand>& others);

}  // namespace onnxopt
