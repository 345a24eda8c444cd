#pragma once

// What the activation fusions (fuse-gelu, fuse-hardswish, fuse-hardsigmoid) share: a matcher that
// walks an elementwise chain from its root, absorbing the nodes only the chain reads and reading
// one-element constants near the exact values of a formula; the readings of a Mul or Div as a
// product of three factors, two of them x and a constant; and Clip(x + 3, 0, 6) at every Clip
// opset. Header-only: passes/CMakeLists.txt compiles every .cc here as a pass.

#include <array>
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "onnx/onnx_pb.h"
#include "onnxopt/ir/ir.h"
#include "onnxopt/rewrite/constant.h"
#include "onnxopt/rewrite/match.h"
#include "onnxopt/rewrite/operands.h"
#include "onnxopt/rewrite/rewriter.h"
#include "onnxopt/rewrite/schema.h"
#include "onnxopt/rewrite/shape_oracle.h"

namespace onnxopt::activation_fusion {

// How far a constant may be from the exact value of the formula, relative to it: 1e-6 (the value
// written to 7 significant digits; torch's float constants are within 6e-8), or the rounding
// error of the constant's type where that is larger (sqrt(2) in float16 is 1.1e-4 off). Further
// off is another function, whose outputs the fused op would change: an Add of 3.00029 before
// Clip(0, 6) / 6 differs from HardSigmoid by 5e-5 everywhere, by all of its value near x = -3.
inline double relativeTolerance(int32_t elem_type) {
  switch (elem_type) {
    case onnx::TensorProto::FLOAT16:
      return 0x1p-11;
    case onnx::TensorProto::BFLOAT16:
      return 0x1p-8;
    default:
      return 1e-6;
  }
}

// Zero only matches zero (of either sign).
inline bool isNear(double value, double exact, int32_t elem_type) {
  return std::abs(value - exact) <= relativeTolerance(elem_type) * std::abs(exact);
}

inline std::string typeName(int32_t elem_type) {
  return elem_type == 0 ? std::string("unknown") : std::string(ir::elemTypeName(elem_type));
}

// Walks one candidate chain. Each check records why it failed; decline() reports the reasons (or
// the error a malformed constant gave). mark()/rewind() undo the records of an alternative that
// did not match, so that the next one starts clean.
class ChainMatcher {
 public:
  explicit ChainMatcher(PatternRewriter& rewriter) : rewriter_(rewriter) {}

  // The producer of `v` when it is an `op_type` whose output the chain alone reads (once):
  // recorded as absorbed. Null otherwise.
  const ir::Node* absorb(const ir::Value* v, absl::string_view op_type, absl::string_view what) {
    const ir::Node* node = producerOf(v, op_type);
    if (node == nullptr) {
      fail(absl::StrCat(what, " is not a ", op_type));
      return nullptr;
    }
    if (!hasSingleReader(*v)) {
      fail(absl::StrCat(what, " (", op_type, " '", v->name(), "') has another reader"));
      return nullptr;
    }
    absorbed_.push_back(node);
    return node;
  }

  // Records `node`, found and checked by the caller (its output read by the chain alone).
  void absorbNode(const ir::Node& node) { absorbed_.push_back(&node); }

  // The value of `v` when it is a constant of one element (of any rank; its shape is checked
  // against the input's by finish()). `same_type_as_input`: it is an operand of the input's type
  // (not Pow's exponent), which finish() checks.
  std::optional<double> constantValue(const ir::Value* v, absl::string_view what,
                                      bool same_type_as_input = true) {
    if (v == nullptr || !isConstant(*v)) {
      fail(absl::StrCat(what, " is not a constant"));
      return std::nullopt;
    }
    absl::StatusOr<std::optional<ConstantView>> read = readConstant(*v);
    if (!read.ok()) {
      if (error_.ok()) error_ = read.status();
      return std::nullopt;
    }
    if (!*read) {
      fail(absl::StrCat(what, " '", v->name(), "' is not readable here (sparse, segmented or too large)"));
      return std::nullopt;
    }
    if ((*read)->numElements() != 1) {
      fail(absl::StrCat(what, " '", v->name(), "' has ", (*read)->numElements(),
                        " elements, not one"));
      return std::nullopt;
    }
    std::optional<std::vector<double>> values = (*read)->asDoubles();
    if (!values) {
      fail(absl::StrCat(what, " '", v->name(), "' is not numeric"));
      return std::nullopt;
    }
    constants_.push_back({v, std::vector<int64_t>((*read)->dims().begin(), (*read)->dims().end()),
                          (*read)->elemType(), same_type_as_input});
    return values->front();
  }

  // Whether `v` is a one-element constant near `exact` (isNear, in the constant's type).
  bool constantNear(const ir::Value* v, double exact, absl::string_view what,
                    bool same_type_as_input = true) {
    const size_t before = constants_.size();
    std::optional<double> value = constantValue(v, what, same_type_as_input);
    if (!value) return false;
    if (!isNear(*value, exact, constants_[before].elem_type)) {
      constants_.resize(before);
      fail(absl::StrCat(what, " '", v->name(), "' is ", *value, ", not ", exact));
      return false;
    }
    return true;
  }

  // The operand of the binary `node` that is not a one-element constant near `exact`, trying
  // operand 1 as the constant first, then operand 0 when `either_order`. Null when neither is.
  ir::Value* otherThanConstantNear(const ir::Node& node, double exact, absl::string_view what,
                                   bool either_order = true) {
    if (node.numInputs() != 2 || node.input(0) == nullptr || node.input(1) == nullptr) {
      fail(absl::StrCat(what, ": the ", node.opType(), " does not have two operands"));
      return nullptr;
    }
    bool any_constant = false;
    for (size_t constant_index : {size_t{1}, size_t{0}}) {
      if (constant_index == 0 && !either_order) break;
      if (!isConstant(*node.input(constant_index))) continue;
      any_constant = true;
      if (constantNear(node.input(constant_index), exact, what)) {
        return node.input(1 - constant_index);
      }
    }
    if (!any_constant) {
      fail(absl::StrCat(what, ": the ", node.opType(), " has no constant operand",
                        either_order ? "" : " 1"));
    }
    return nullptr;
  }

  // The last checks, once the input `x` is known: its element type (x's, or the constants' when
  // x's is not known) is one of `allowed`; every constant operand has that type; no constant can
  // broadcast the result bigger than x (a one-element constant of a rank above x's would).
  bool finish(const ir::Value& x, absl::Span<const int32_t> allowed, absl::string_view fused_op) {
    ShapeOracle& shapes = rewriter_.shapes();
    const ir::Type& x_type = shapes.inferredTypeOf(x);
    elem_type_ = x_type.elemType();
    for (const ConstantUse& constant : constants_) {
      if (!constant.same_type_as_input) continue;
      if (elem_type_ == 0) elem_type_ = constant.elem_type;
      if (constant.elem_type != elem_type_) {
        fail(absl::StrCat("constant '", constant.value->name(), "' is ",
                          typeName(constant.elem_type), ", the input ", typeName(elem_type_)));
        return false;
      }
    }
    bool allowed_type = false;
    for (int32_t type : allowed) allowed_type = allowed_type || type == elem_type_;
    if (!allowed_type) {
      fail(absl::StrCat("the element type ", typeName(elem_type_), " is not one ", fused_op,
                        " is fused for"));
      return false;
    }
    for (const ConstantUse& constant : constants_) {
      if (constant.dims.empty()) continue;
      if (!x_type.shape()) {
        fail(absl::StrCat("constant '", constant.value->name(), "' has rank ",
                          constant.dims.size(), " and the input's rank is not known"));
        return false;
      }
      ir::Shape c_shape;
      for (int64_t dim : constant.dims) c_shape.push_back(ir::Dim::known(dim));
      if (!broadcastsUnidirectionally(c_shape, *x_type.shape())) {
        fail(absl::StrCat("constant '", constant.value->name(), "' of shape ", shapeText(c_shape),
                          " broadcasts the input's ", shapeText(x_type.shape()), " bigger"));
        return false;
      }
    }
    return true;
  }

  void fail(std::string reason) { reasons_.push_back(std::move(reason)); }

  struct Mark {
    size_t absorbed;
    size_t constants;
  };
  Mark mark() const { return {absorbed_.size(), constants_.size()}; }
  // Forgets what was absorbed and read since `m`; the reasons stay for decline().
  void rewind(Mark m) {
    absorbed_.resize(m.absorbed);
    constants_.resize(m.constants);
  }

  // The error a malformed constant gave, or the reasons recorded, for `root`.
  LogicalResult decline(const ir::Node& root) {
    if (!error_.ok()) return rewriter_.emitError(root, error_);
    return rewriter_.notifyMatchFailure(root, [&] { return absl::StrJoin(reasons_, "; "); });
  }

  const std::vector<const ir::Node*>& absorbed() const { return absorbed_; }
  bool hasError() const { return !error_.ok(); }
  // The input's element type, set by finish().
  int32_t elemType() const { return elem_type_; }
  PatternRewriter& rewriter() { return rewriter_; }

 private:
  struct ConstantUse {
    const ir::Value* value;
    std::vector<int64_t> dims;
    int32_t elem_type;
    bool same_type_as_input;
  };

  PatternRewriter& rewriter_;
  std::vector<const ir::Node*> absorbed_;
  std::vector<ConstantUse> constants_;
  std::vector<std::string> reasons_;
  absl::Status error_;
  int32_t elem_type_ = 0;
};

// One factor of a product: `value`, or its reciprocal when `divides` (the divisor of a Div).
struct Factor {
  ir::Value* value;
  bool divides;
};

// A reading of a Mul or Div root as the product of three factors: the root's two operands, one
// of which (`inner`, the root's only reader of it) is itself a Mul or Div of two.
struct ThreeFactors {
  std::array<Factor, 3> factors;
  const ir::Node* inner;
};

// Every such reading of `root`: a Mul's operand 0 or 1 can be the inner node, a Div's dividend
// only ((a / (b * c)) would put two factors in the divisor).
inline std::vector<ThreeFactors> threeFactorReadings(const ir::Node& root) {
  std::vector<ThreeFactors> readings;
  if (root.numInputs() != 2 || root.input(0) == nullptr || root.input(1) == nullptr) return readings;
  const bool root_divides = root.opType() == "Div";
  for (size_t i : {size_t{0}, size_t{1}}) {
    if (root_divides && i == 1) break;
    ir::Value* operand = root.input(i);
    const ir::Node* inner = producerOf(operand, "Mul");
    if (inner == nullptr) inner = producerOf(operand, "Div");
    if (inner == nullptr || inner->numInputs() != 2 || inner->input(0) == nullptr ||
        inner->input(1) == nullptr || !hasSingleReader(*operand)) {
      continue;
    }
    const Factor other{root.input(1 - i), root_divides};
    readings.push_back(
        {{Factor{inner->input(0), false}, Factor{inner->input(1), inner->opType() == "Div"}, other},
         inner});
  }
  return readings;
}

// x, when the two factors of `reading` other than factor `taken` are x and a constant near
// `multiplier` (or a divisor near `divisor`), x not a divisor. Null otherwise (reasons recorded,
// the constant named `constant_text`).
inline ir::Value* inputBesideConstantFactor(ChainMatcher& m, const ThreeFactors& reading, size_t taken,
                                            double multiplier, double divisor,
                                            absl::string_view constant_text) {
  const Factor& a = reading.factors[(taken + 1) % 3];
  const Factor& b = reading.factors[(taken + 2) % 3];
  for (const auto& [constant, input] : {std::pair{&a, &b}, std::pair{&b, &a}}) {
    if (input->divides || !isConstant(*constant->value)) continue;
    if (m.constantNear(constant->value, constant->divides ? divisor : multiplier,
                       constant->divides ? "the product's divisor" : "the product's constant")) {
      return input->value;
    }
  }
  m.fail(absl::StrCat("the other two factors are not x and ", constant_text));
  return nullptr;
}

// Whether the Clip `clip` has the bounds [lo, hi] (isNear in the input's type): attributes min
// and max up to opset 10, constant operands 1 and 2 from 11.
inline bool clipBoundsNear(ChainMatcher& m, const ir::Node& clip, double lo, double hi) {
  const std::optional<int64_t> opset = m.rewriter().opsetVersion(clip);
  if (opset && *opset < 11) {
    absl::StatusOr<ClipBounds> bounds = readClipBounds(clip);
    if (!bounds.ok()) {
      m.fail(std::string(bounds.status().message()));
      return false;
    }
    if (!bounds->min.given || !bounds->max.given) {
      m.fail("the Clip does not set both min and max");
      return false;
    }
    const double min = *bounds->min.value;
    const double max = *bounds->max.value;
    if (!isNear(min, lo, onnx::TensorProto::FLOAT) || !isNear(max, hi, onnx::TensorProto::FLOAT)) {
      m.fail(absl::StrCat("the Clip's bounds are [", min, ", ", max, "], not [", lo, ", ", hi, "]"));
      return false;
    }
    return true;
  }
  if (clip.input(1) == nullptr || clip.input(2) == nullptr) {
    m.fail("the Clip does not have both min and max");
    return false;
  }
  return m.constantNear(clip.input(1), lo, "the Clip's min") &&
         m.constantNear(clip.input(2), hi, "the Clip's max");
}

// x, when `v` is Clip(x + 3, 0, 6) (relu6(x + 3)) or Clip(Relu(x + 3), 0, 6), torch's export of
// F.relu6 (max(0, max(0, y)) is max(0, y), NaN included); Clip, Relu and Add absorbed.
inline ir::Value* relu6OfInputPlus3(ChainMatcher& m, const ir::Value* v) {
  const ir::Node* clip = m.absorb(v, "Clip", "the factor");
  if (clip == nullptr || !clipBoundsNear(m, *clip, 0, 6)) return nullptr;
  const ir::Value* clipped = clip->input(0);
  if (producerOf(clipped, "Relu") != nullptr) {
    const ir::Node* relu = m.absorb(clipped, "Relu", "the Clip's input");
    if (relu == nullptr) return nullptr;
    clipped = relu->input(0);
  }
  const ir::Node* add = m.absorb(clipped, "Add", "the Clip's input");
  if (add == nullptr) return nullptr;
  return m.otherThanConstantNear(*add, 3, "the Clip's input's addend");
}

}  // namespace onnxopt::activation_fusion
