// eliminate-nop-flatten: Flatten makes its input (d0, ..., dn) the matrix (d0 x ... x d(axis-1),
// d(axis) x ... x dn); for an input of rank 2 that is the input itself when axis is 1, when axis
// is 0 and d0 is 1, or when axis is 2 and d1 is 1, so its readers read the input. See
// docs/passes/eliminate-nop-flatten.md.

#include <cstdint>

#include "absl/strings/str_cat.h"
#include "onnxopt/rewrite/match.h"
#include "onnxopt/rewrite/pattern_pass.h"
#include "onnxopt/rewrite/rewriter.h"
#include "onnxopt/rewrite/schema.h"
#include "onnxopt/rewrite/shape_oracle.h"

namespace onnxopt {
namespace {

class ForwardUnflattenedInput final : public RewritePattern {
 public:
  // Versions 1, 9, 11, 13, 21 and 23 differ in types, and in the axis from 11, which may then
  // count from the back (in [-r, r]); before 11 it is in [0, r].
  ForwardUnflattenedInput() : RewritePattern("forward-unflattened-input", {"Flatten", 1}) {}

  LogicalResult matchAndRewrite(const ir::Node& flatten, PatternRewriter& rewriter) const override {
    ir::Value* input = flatten.input(0);
    if (input == nullptr || flatten.output(0) == nullptr) return failure();
    absl::StatusOr<int64_t> axis = getIntOr(flatten, "axis", 1);
    if (!axis.ok()) return rewriter.emitError(flatten, axis.status());
    const std::optional<ir::Shape>& shape = rewriter.shapes().inferredTypeOf(*input).shape();
    if (!shape) return rewriter.notifyMatchFailure(flatten, "the input's rank is not known");
    if (shape->size() != 2) {
      return rewriter.notifyMatchFailure(flatten, [&] {
        return absl::StrCat("the input ", shapeText(shape), " is not of rank 2");
      });
    }
    int64_t normalized = *axis;
    if (normalized < 0 && rewriter.opsetVersion(flatten).value_or(0) >= 11) normalized += 2;
    if (normalized < 0 || normalized > 2) {
      return rewriter.notifyMatchFailure(flatten, [&] {
        return absl::StrCat("axis ", *axis, " is out of range at this opset");
      });
    }
    // The dim folded into a 1 on the other side must be 1 itself.
    if ((normalized == 0 && !isKnownOne((*shape)[0])) ||
        (normalized == 2 && !isKnownOne((*shape)[1]))) {
      return rewriter.notifyMatchFailure(flatten, [&] {
        return absl::StrCat("axis ", *axis, " makes ", shapeText(shape),
                            " another shape unless that dim is 1");
      });
    }
    return forwardOperand(flatten, *input, rewriter);
  }
};

class EliminateNopFlatten final : public PatternPass {
 public:
  EliminateNopFlatten() : PatternPass("eliminate-nop-flatten") {}

 private:
  void populatePatterns(RewritePatternSet& patterns) const override {
    patterns.add<ForwardUnflattenedInput>();
  }
};

}  // namespace

std::unique_ptr<Pass> createEliminateNopFlattenPass() {
  return std::make_unique<EliminateNopFlatten>();
}

}  // namespace onnxopt
