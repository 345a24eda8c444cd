// fuse-consecutive-squeezes: Squeeze(Squeeze(X, A1), A2) is Squeeze(X, A). A1 names axes of X;
// A2 names axes of the middle, each of which is the axis of X that A1 skips (axisSkipping). A is
// A1 and A2 so carried. An outer Squeeze without axes removes every 1 the inner one left: it
// reads X directly, whatever the inner one's axes. An inner one without axes leaves no 1 for an
// outer one with axes to remove (the model fails at run time): declined. The outer Squeeze reads
// X; the inner one stays for its other readers. Axes are an attribute before opset 13 and input 1
// from then on, negative from opset 11 (counted against each Squeeze's input rank; X's rank is
// needed only then). See docs/passes/fuse-consecutive-squeezes.md.

#include <algorithm>
#include <cstdint>
#include <optional>
#include <vector>

#include "onnxopt/rewrite/match.h"
#include "onnxopt/rewrite/operands.h"
#include "onnxopt/rewrite/pattern_pass.h"
#include "onnxopt/rewrite/rewriter.h"
#include "onnxopt/rewrite/shape_oracle.h"

namespace onnxopt {
namespace {

constexpr int64_t kAxesInputSince = 13;
constexpr int64_t kNegativeAxesSince = 11;

class ComposeSqueezes final : public RewritePattern {
 public:
  ComposeSqueezes() : RewritePattern("compose-squeezes", {"Squeeze", 1}) {}

  LogicalResult matchAndRewrite(const ir::Node& outer, PatternRewriter& rewriter) const override {
    const ir::Node* inner = producerOf(outer.input(0), "Squeeze");
    if (inner == nullptr || inner->input(0) == nullptr || outer.output(0) == nullptr) {
      return failure();
    }
    ir::Value* source = inner->input(0);
    absl::StatusOr<AxesOperand> a2 = readAxesOperand(outer, kAxesInputSince);
    if (!a2.ok()) return rewriter.emitError(outer, a2.status());
    if (!a2->given) {
      if (failed(rewriter.match(outer))) return failure();
      rewriter.setInput(outer, 0, source);
      return success();
    }
    absl::StatusOr<AxesOperand> a1 = readAxesOperand(*inner, kAxesInputSince);
    if (!a1.ok()) return rewriter.emitError(*inner, a1.status());
    if (!a1->given) {
      return rewriter.notifyMatchFailure(
          outer, "the inner Squeeze has no axes: it leaves no 1 for the outer one's axes");
    }
    if (!a1->values || !a2->values) {
      return rewriter.notifyMatchFailure(outer, "an axes operand is not constant");
    }
    // ONNX does not say whether an empty list squeezes nothing or every 1.
    if (a1->values->empty() || a2->values->empty()) {
      return rewriter.notifyMatchFailure(outer, "an axes list is empty");
    }
    std::optional<int64_t> input_rank, middle_rank;
    if (!allNonNegative(*a1->values) || !allNonNegative(*a2->values)) {
      if (rewriter.opsetVersion(outer).value_or(0) < kNegativeAxesSince) {
        return rewriter.notifyMatchFailure(outer, "negative axes before opset 11");
      }
      const std::optional<ir::Shape>& shape = rewriter.shapes().inferredTypeOf(*source).shape();
      if (!shape) return rewriter.notifyMatchFailure(outer, "negative axes, and X's rank is not known");
      input_rank = static_cast<int64_t>(shape->size());
      middle_rank = *input_rank - static_cast<int64_t>(a1->values->size());
    }
    std::optional<std::vector<int64_t>> r1 = resolveAxesSorted(*a1->values, input_rank);
    std::optional<std::vector<int64_t>> r2 = resolveAxes(*a2->values, middle_rank);
    if (!r1 || !r2) return rewriter.notifyMatchFailure(outer, "an axis is out of range or repeated");
    std::vector<int64_t> composed = *r1;
    for (int64_t axis : *r2) composed.push_back(axisSkipping(axis, *r1));
    std::sort(composed.begin(), composed.end());
    if (failed(rewriter.match(outer))) return failure();
    rewriter.setInput(outer, 0, source);
    setAxesOperand(rewriter, outer, kAxesInputSince, composed);
    return success();
  }
};

class FuseConsecutiveSqueezes final : public PatternPass {
 public:
  FuseConsecutiveSqueezes() : PatternPass("fuse-consecutive-squeezes") {}

 private:
  void populatePatterns(RewritePatternSet& patterns) const override {
    patterns.add<ComposeSqueezes>();
  }
};

}  // namespace

std::unique_ptr<Pass> createFuseConsecutiveSqueezesPass() {
  return std::make_unique<FuseConsecutiveSqueezes>();
}

}  // namespace onnxopt
