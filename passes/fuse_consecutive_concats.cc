// fuse-consecutive-concats: Concat(a, Concat(b, c), d) on one axis is Concat(a, b, c, d). Every
// operand that is a Concat on the outer one's axis, read by nothing but the outer one, is
// replaced by its operands, in place; it then goes. Axes are equal when they resolve to one
// axis: negative axes (opset 11 on) count from the back, so a negative and a non-negative one
// need the rank. Concat-1's axis defaults to 1; it is required from opset 4. See
// docs/passes/fuse-consecutive-concats.md.

#include <algorithm>
#include <cstdint>
#include <optional>
#include <vector>

#include "absl/status/statusor.h"
#include "onnxopt/rewrite/match.h"
#include "onnxopt/rewrite/pattern_pass.h"
#include "onnxopt/rewrite/rewriter.h"
#include "onnxopt/rewrite/schema.h"
#include "onnxopt/rewrite/shape_oracle.h"

namespace onnxopt {
namespace {

constexpr int64_t kNegativeAxisSince = 11;

absl::StatusOr<int64_t> axisOf(const ir::Node& concat) {
  absl::StatusOr<std::optional<int64_t>> axis = getInt(concat, "axis");
  if (!axis.ok()) return axis.status();
  return axis->value_or(1);
}

// The rank of the Concat's operands, from the first one whose rank is known.
std::optional<int64_t> operandRank(const ir::Node& concat, ShapeOracle& shapes) {
  for (const ir::Value* operand : concat.inputs()) {
    if (operand == nullptr) continue;
    const std::optional<ir::Shape>& shape = shapes.inferredTypeOf(*operand).shape();
    if (shape) return static_cast<int64_t>(shape->size());
  }
  return std::nullopt;
}

class FlattenConcatOperands final : public RewritePattern {
 public:
  FlattenConcatOperands() : RewritePattern("flatten-concat-operands", {"Concat", 1}) {}

  LogicalResult matchAndRewrite(const ir::Node& outer, PatternRewriter& rewriter) const override {
    std::vector<const ir::Node*> inners;
    for (const ir::Value* operand : outer.inputs()) {
      const ir::Node* inner = producerOf(operand, "Concat");
      if (inner != nullptr && inner->graph() == outer.graph() && inner->numInputs() > 0 &&
          onlyReadBy(*operand, {&outer}) &&
          std::find(inners.begin(), inners.end(), inner) == inners.end()) {
        inners.push_back(inner);
      }
    }
    if (inners.empty()) return failure();
    absl::StatusOr<int64_t> axis = axisOf(outer);
    if (!axis.ok()) return rewriter.emitError(outer, axis.status());
    const bool negative_allowed = rewriter.opsetVersion(outer).value_or(0) >= kNegativeAxisSince;
    if (*axis < 0 && !negative_allowed) {
      return rewriter.notifyMatchFailure(outer, "a negative axis before opset 11");
    }
    std::optional<int64_t> rank;
    std::vector<const ir::Node*> absorbed;
    for (const ir::Node* inner : inners) {
      absl::StatusOr<int64_t> inner_axis = axisOf(*inner);
      if (!inner_axis.ok()) return rewriter.emitError(*inner, inner_axis.status());
      if (*inner_axis < 0 && !negative_allowed) continue;
      bool same = *inner_axis == *axis;
      if (!same && (*inner_axis < 0) != (*axis < 0)) {
        if (!rank) rank = operandRank(outer, rewriter.shapes());
        if (!rank) rank = operandRank(*inner, rewriter.shapes());
        same = rank && (*inner_axis < 0 ? *inner_axis + *rank : *inner_axis) ==
                           (*axis < 0 ? *axis + *rank : *axis);
      }
      if (same) absorbed.push_back(inner);
    }
    if (absorbed.empty()) {
      return rewriter.notifyMatchFailure(
          outer, "no Concat operand read only by it concatenates on its axis (or the rank is not known)");
    }
    if (failed(rewriter.match(outer, absorbed))) return failure();
    std::vector<ir::Value*> operands;
    for (ir::Value* operand : outer.inputs()) {
      const ir::Node* producer = operand != nullptr ? operand->producer() : nullptr;
      if (producer != nullptr &&
          std::find(absorbed.begin(), absorbed.end(), producer) != absorbed.end()) {
        operands.insert(operands.end(), producer->inputs().begin(), producer->inputs().end());
      } else {
        operands.push_back(operand);
      }
    }
    for (size_t i = 0; i < operands.size(); ++i) {
      if (i >= outer.numInputs() || outer.input(i) != operands[i]) rewriter.setInput(outer, i, operands[i]);
    }
    return success();
  }
};

class FuseConsecutiveConcats final : public PatternPass {
 public:
  FuseConsecutiveConcats() : PatternPass("fuse-consecutive-concats") {}

 private:
  void populatePatterns(RewritePatternSet& patterns) const override {
    patterns.add<FlattenConcatOperands>();
  }
};

}  // namespace

std::unique_ptr<Pass> createFuseConsecutiveConcatsPass() {
  return std::make_unique<FuseConsecutiveConcats>();
}

}  // namespace onnxopt
