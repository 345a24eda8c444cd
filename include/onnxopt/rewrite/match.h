#pragma once

// Small matchers patterns share: what produces a value, who reads it, and how --debug reasons
// print shapes.

#include <optional>
#include <string>

#include "absl/strings/string_view.h"
#include "onnxopt/export.h"
#include "onnxopt/ir/ir.h"

namespace onnxopt {

// The node producing `value` when it is an `op_type` of `domain` ("" is ONNX's), else null.
ONNXOPT_API const ir::Node* producerOf(const ir::Value* value, absl::string_view op_type,
                                       absl::string_view domain = "");

// Whether `value` is read exactly once, by a node: a rewrite may then absorb its producer.
ONNXOPT_API bool hasSingleReader(const ir::Value& value);

// "[N,4,?]" for a shape, "[rank unknown]" without one: for --debug reasons.
ONNXOPT_API std::string shapeText(const std::optional<ir::Shape>& shape);
ONNXOPT_API std::string dimText(const ir::Dim& dim);

}  // namespace onnxopt
