// fuse-consecutive-unsqueezes: Unsqueeze(Unsqueeze(X, A1), A2) is Unsqueeze(X, A). A2 names axes
// of the output; A1 names axes of the middle, each of which sits in the output where the axes A2
// do not (axisSkipping). A is A2 and A1 so carried. The outer Unsqueeze reads X with A; the inner
// one stays for its other readers. Axes are an attribute before opset 13 and input 1 from then
// on, negative (counted against the output's rank) from opset 11; the rank of X is needed only
// to resolve negative axes. See docs/passes/fuse-consecutive-unsqueezes.md.

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

class ComposeUnsqueezes final : public RewritePattern {
 public:
  ComposeUnsqueezes() : RewritePattern("compose-unsqueezes", {"Unsqueeze", 1}) {}

  LogicalResult matchAndRewrite(const ir::Node& outer, PatternRewriter& rewriter) const override {
    const ir::Node* inner = producerOf(outer.input(0), "Unsqueeze");
    if (inner == nullptr || inner->input(0) == nullptr || outer.output(0) == nullptr) {
      return failure();
    }
    ir::Value* source = inner->input(0);
    absl::StatusOr<AxesOperand> a1 = readAxesOperand(*inner, kAxesInputSince);
    if (!a1.ok()) return rewriter.emitError(*inner, a1.status());
    absl::StatusOr<AxesOperand> a2 = readAxesOperand(outer, kAxesInputSince);
    if (!a2.ok()) return rewriter.emitError(outer, a2.status());
    if (!a1->values || !a2->values) {
      return rewriter.notifyMatchFailure(outer, "an axes operand is missing or not constant");
    }
    // An empty list inserts nothing; eliminating such an Unsqueeze is not this pass's business.
    if (a1->values->empty() || a2->values->empty()) {
      return rewriter.notifyMatchFailure(outer, "an axes list is empty");
    }
    std::optional<int64_t> middle_rank, output_rank;
    if (!allNonNegative(*a1->values) || !allNonNegative(*a2->values)) {
      if (rewriter.opsetVersion(outer).value_or(0) < kNegativeAxesSince) {
        return rewriter.notifyMatchFailure(outer, "negative axes before opset 11");
      }
      const std::optional<ir::Shape>& shape = rewriter.shapes().inferredTypeOf(*source).shape();
      if (!shape) return rewriter.notifyMatchFailure(outer, "negative axes, and X's rank is not known");
      middle_rank = static_cast<int64_t>(shape->size() + a1->values->size());
      output_rank = *middle_rank + static_cast<int64_t>(a2->values->size());
    }
    std::optional<std::vector<int64_t>> r1 = resolveAxes(*a1->values, middle_rank);
    std::optional<std::vector<int64_t>> r2 = resolveAxes(*a2->values, output_rank);
    if (!r1 || !r2) return rewriter.notifyMatchFailure(outer, "an axis is out of range or repeated");
    std::sort(r2->begin(), r2->end());
    std::vector<int64_t> composed = *r2;
    for (int64_t axis : *r1) composed.push_back(axisSkipping(axis, *r2));
    std::sort(composed.begin(), composed.end());
    if (failed(rewriter.match(outer))) return failure();
    rewriter.setInput(outer, 0, source);
    setAxesOperand(rewriter, outer, kAxesInputSince, composed);
    return success();
  }
};

class FuseConsecutiveUnsqueezes final : public PatternPass {
 public:
  FuseConsecutiveUnsqueezes() : PatternPass("fuse-consecutive-unsqueezes") {}

 private:
  void populatePatterns(RewritePatternSet& patterns) const override {
    patterns.add<ComposeUnsqueezes>();
  }
};

}  // namespace

std::unique_ptr<Pass> createFuseConsecutiveUnsqueezesPass() {
  return std::make_unique<FuseConsecutiveUnsqueezes>();
}

}  // namespace onnxopt
