#include "onnxopt/rewrite/operands.h"

#include <algorithm>
#include <tuple>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "onnxopt/ir/describe.h"
#include "onnxopt/rewrite/constant.h"
#include "onnxopt/rewrite/rewriter.h"
#include "onnxopt/rewrite/schema.h"
#include "onnxopt/rewrite/shape_oracle.h"
#include "onnxopt/rewrite/tensor_util.h"

namespace onnxopt {

absl::StatusOr<AxesOperand> readAxesOperand(const ir::Node& node, int64_t input_since,
                                            size_t input_index) {
  const std::optional<int64_t> opset = opsetOf(node);
  if (!opset) {
    return absl::FailedPreconditionError(
        absl::StrCat(ir::describe(node), ": its model imports no opset of its domain"));
  }
  AxesOperand operand;
  if (*opset < input_since) {
    absl::StatusOr<std::optional<std::vector<int64_t>>> axes = getInts(node, "axes");
    if (!axes.ok()) return axes.status();
    operand.given = axes->has_value();
    operand.values = std::move(*axes);
    return operand;
  }
  const ir::Value* input = node.input(input_index);
  if (input == nullptr) return operand;
  operand.given = true;
  absl::StatusOr<std::optional<std::vector<int64_t>>> axes = readConstantInts(*input);
  if (!axes.ok()) return axes.status();
  operand.values = std::move(*axes);
  return operand;
}

void setAxesOperand(PatternRewriter& rewriter, const ir::Node& node, int64_t input_since,
                    absl::Span<const int64_t> axes, size_t input_index) {
  if (opsetOf(node).value_or(input_since) < input_since) {
    rewriter.setAttr(node, ir::Attribute::makeInts("axes", axes));
    return;
  }
  const std::string hint =
      absl::StrCat(node.output(0) != nullptr ? node.output(0)->name() : node.name(), "_axes");
  rewriter.setInput(node, input_index, rewriter.createInitializer(hint, makeInt64Tensor(axes)));
}

std::optional<std::vector<int64_t>> resolveAxes(absl::Span<const int64_t> axes,
                                                std::optional<int64_t> rank) {
  std::vector<int64_t> resolved;
  resolved.reserve(axes.size());
  for (int64_t axis : axes) {
    if (rank ? axis < -*rank || axis >= *rank : axis < 0 || axis >= kMaxRankFromShapeLength) {
      return std::nullopt;
    }
    const int64_t from_front = axis < 0 ? axis + *rank : axis;
    if (std::find(resolved.begin(), resolved.end(), from_front) != resolved.end()) {
      return std::nullopt;
    }
    resolved.push_back(from_front);
  }
  return resolved;
}

std::optional<std::vector<int64_t>> resolveAxesSorted(absl::Span<const int64_t> axes,
                                                      std::optional<int64_t> rank) {
  std::optional<std::vector<int64_t>> resolved = resolveAxes(axes, rank);
  if (resolved) std::sort(resolved->begin(), resolved->end());
  return resolved;
}

bool allNonNegative(absl::Span<const int64_t> axes) {
  return std::all_of(axes.begin(), axes.end(), [](int64_t axis) { return axis >= 0; });
}

int64_t axisSkipping(int64_t index, absl::Span<const int64_t> sorted_axes) {
  int64_t position = index;
  for (int64_t axis : sorted_axes) {
    if (axis <= position) ++position;
  }
  return position;
}

absl::StatusOr<std::optional<SliceArguments>> readSliceArguments(const ir::Node& slice) {
  const std::optional<int64_t> opset = opsetOf(slice);
  if (!opset) {
    return absl::FailedPreconditionError(
        absl::StrCat(ir::describe(slice), ": its model imports no opset of its domain"));
  }
  SliceArguments arguments;
  bool has_axes = false, has_steps = false;
  if (*opset < 10) {
    for (auto [name, target, present] :
         {std::tuple{"starts", &arguments.starts, static_cast<bool*>(nullptr)},
          {"ends", &arguments.ends, nullptr},
          {"axes", &arguments.axes, &has_axes}}) {
      absl::StatusOr<std::optional<std::vector<int64_t>>> ints = getInts(slice, name);
      if (!ints.ok()) return ints.status();
      if (*ints) *target = std::move(**ints);
      if (present != nullptr) *present = ints->has_value();
    }
  } else {
    std::vector<int64_t>* targets[] = {&arguments.starts, &arguments.ends, &arguments.axes,
                                       &arguments.steps};
    bool* present[] = {nullptr, nullptr, &has_axes, &has_steps};
    for (size_t i = 0; i < 4; ++i) {
      const ir::Value* input = slice.input(i + 1);
      if (input == nullptr) continue;
      absl::StatusOr<std::optional<std::vector<int64_t>>> ints = readConstantInts(*input);
      if (!ints.ok()) return ints.status();
      if (!*ints) return std::nullopt;
      *targets[i] = std::move(**ints);
      if (present[i] != nullptr) *present[i] = true;
    }
  }
  const size_t count = arguments.starts.size();
  if (!has_axes) {
    for (size_t i = 0; i < count; ++i) arguments.axes.push_back(static_cast<int64_t>(i));
  }
  if (!has_steps) arguments.steps.assign(count, 1);
  if (arguments.ends.size() != count || arguments.axes.size() != count ||
      arguments.steps.size() != count) {
    return absl::InvalidArgumentError(
        absl::StrCat(ir::describe(slice), ": ", count, " starts, ", arguments.ends.size(),
                     " ends, ", arguments.axes.size(), " axes and ", arguments.steps.size(),
                     " steps"));
  }
  return arguments;
}

absl::StatusOr<ClipBounds> readClipBounds(const ir::Node& clip) {
  const std::optional<int64_t> opset = opsetOf(clip);
  if (!opset) {
    return absl::FailedPreconditionError(
        absl::StrCat(ir::describe(clip), ": its model imports no opset of its domain"));
  }
  ClipBounds bounds;
  const auto read = [&](ClipBound& bound, const char* attribute, size_t input) -> absl::Status {
    if (*opset < 11) {
      absl::StatusOr<std::optional<float>> value = getFloat(clip, attribute);
      if (!value.ok()) return value.status();
      bound.given = value->has_value();
      if (bound.given) bound.value = **value;
      return absl::OkStatus();
    }
    if (clip.input(input) == nullptr) return absl::OkStatus();
    bound.given = true;
    absl::StatusOr<std::optional<double>> value = readConstantScalar(*clip.input(input));
    if (!value.ok()) return value.status();
    bound.value = *value;
    return absl::OkStatus();
  };
  if (absl::Status status = read(bounds.min, "min", 1); !status.ok()) return status;
  if (absl::Status status = read(bounds.max, "max", 2); !status.ok()) return status;
  return bounds;
}

absl::StatusOr<GemmAttributes> readGemmAttributes(const ir::Node& gemm) {
  GemmAttributes attributes;
  absl::StatusOr<float> alpha = getFloatOr(gemm, "alpha", attributes.alpha);
  if (!alpha.ok()) return alpha.status();
  absl::StatusOr<float> beta = getFloatOr(gemm, "beta", attributes.beta);
  if (!beta.ok()) return beta.status();
  absl::StatusOr<int64_t> trans_a = getIntOr(gemm, "transA", 0);
  if (!trans_a.ok()) return trans_a.status();
  absl::StatusOr<int64_t> trans_b = getIntOr(gemm, "transB", 0);
  if (!trans_b.ok()) return trans_b.status();
  attributes.alpha = *alpha;
  attributes.beta = *beta;
  attributes.trans_a = *trans_a != 0;
  attributes.trans_b = *trans_b != 0;
  return attributes;
}

absl::StatusOr<int32_t> readCastTarget(const ir::Node& cast, ShapeOracle& shapes) {
  if (cast.opType() == "CastLike") {
    return cast.input(1) == nullptr ? 0 : shapes.inferredTypeOf(*cast.input(1)).elemType();
  }
  absl::StatusOr<std::optional<int64_t>> to = getInt(cast, "to");
  if (!to.ok()) return to.status();
  return ir::elemTypeFromAttribute(to->value_or(onnx::TensorProto::UNDEFINED));
}

absl::StatusOr<std::optional<std::vector<int64_t>>> readTransposePerm(
    const ir::Node& transpose, std::optional<int64_t> rank) {
  absl::StatusOr<std::optional<std::vector<int64_t>>> perm = getInts(transpose, "perm");
  if (!perm.ok()) return perm.status();
  if (!*perm) {
    if (!rank) return std::nullopt;
    std::vector<int64_t> reversed(static_cast<size_t>(*rank));
    for (int64_t i = 0; i < *rank; ++i) reversed[i] = *rank - 1 - i;
    return reversed;
  }
  if (!isPermutation(**perm)) {
    return absl::InvalidArgumentError(absl::StrCat(ir::describe(transpose), ": perm [",
                                                   absl::StrJoin(**perm, ", "),
                                                   "] is not a permutation"));
  }
  return perm;
}

bool isPermutation(absl::Span<const int64_t> perm) {
  std::vector<bool> seen(perm.size(), false);
  for (const int64_t axis : perm) {
    if (axis < 0 || axis >= static_cast<int64_t>(seen.size()) || seen[axis]) return false;
    seen[axis] = true;
  }
  return true;
}

std::vector<int64_t> composePerms(absl::Span<const int64_t> first,
                                  absl::Span<const int64_t> second) {
  std::vector<int64_t> composed(second.size());
  for (size_t i = 0; i < second.size(); ++i) composed[i] = first[second[i]];
  return composed;
}

bool isIdentityPerm(absl::Span<const int64_t> perm) {
  for (size_t i = 0; i < perm.size(); ++i) {
    if (perm[i] != static_cast<int64_t>(i)) return false;
  }
  return true;
}

std::optional<int64_t> rankFromPerm(const ir::Node& transpose) {
  const ir::Attribute* perm = transpose.attr("perm");
  if (perm == nullptr || perm->kind() != onnx::AttributeProto::INTS) return std::nullopt;
  return perm->ints().size();
}

}  // namespace onnxopt
