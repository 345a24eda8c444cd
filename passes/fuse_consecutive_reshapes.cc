// fuse-consecutive-reshapes: Reshape(V(X), S2) is Reshape(X, S2), where V is a Reshape, Flatten,
// Squeeze or Unsqueeze (each keeps X's elements in their order, in another shape), when no entry
// of S2 reads the intermediate shape: a 0 entry copies the intermediate's dim unless
// allowzero = 1 (opset 14 on), so every entry must be a known size other than 0 (-1 included: it
// reads only the element count, which both share) or allowzero be 1. A symbolic entry may be 0
// at run time, so it needs allowzero too. The outer Reshape then reads X; the inner node stays
// for its other readers. From opset 5 (the target was an attribute before). See
// docs/passes/fuse-consecutive-reshapes.md.

#include <cstdint>
#include <optional>
#include <string>

#include "absl/strings/str_cat.h"
#include "onnxopt/rewrite/match.h"
#include "onnxopt/rewrite/pattern_pass.h"
#include "onnxopt/rewrite/rewriter.h"
#include "onnxopt/rewrite/schema.h"
#include "onnxopt/rewrite/shape_oracle.h"

namespace onnxopt {
namespace {

class ReadAroundInnerView final : public RewritePattern {
 public:
  ReadAroundInnerView() : RewritePattern("read-around-inner-view", {"Reshape", 5}) {}

  LogicalResult matchAndRewrite(const ir::Node& outer, PatternRewriter& rewriter) const override {
    const ir::Node* inner = outer.input(0) != nullptr ? outer.input(0)->producer() : nullptr;
    if (inner == nullptr || !keepsElementOrder(*inner) || inner->input(0) == nullptr ||
        outer.input(1) == nullptr) {
      return failure();
    }
    absl::StatusOr<int64_t> allow_zero = rewriter.opsetVersion(outer).value_or(0) >= 14
                                             ? getIntOr(outer, "allowzero", 0)
                                             : absl::StatusOr<int64_t>(0);
    if (!allow_zero.ok()) return rewriter.emitError(outer, allow_zero.status());
    if (*allow_zero == 0) {
      absl::StatusOr<std::optional<ShapeValue>> target =
          rewriter.shapes().inferredShapeValueOf(*outer.input(1));
      if (!target.ok()) return rewriter.emitError(outer, target.status());
      if (!*target || (*target)->scalar) {
        return rewriter.notifyMatchFailure(outer, "the target shape is not known");
      }
      for (const ir::Dim& entry : (*target)->elems) {
        if (!entry.isKnown() || entry.value() == 0) {
          return rewriter.notifyMatchFailure(outer, [&] {
            return absl::StrCat("the target ", shapeText((*target)->elems),
                                " may copy a dim of the intermediate shape (a 0, or an entry not "
                                "known, without allowzero)");
          });
        }
      }
    }
    if (failed(rewriter.match(outer))) return failure();
    rewriter.setInput(outer, 0, inner->input(0));
    return success();
  }
};

class FuseConsecutiveReshapes final : public PatternPass {
 public:
  FuseConsecutiveReshapes() : PatternPass("fuse-consecutive-reshapes") {}

 private:
  void populatePatterns(RewritePatternSet& patterns) const override {
    patterns.add<ReadAroundInnerView>();
  }
};

}  // namespace

std::unique_ptr<Pass> createFuseConsecutiveReshapesPass() {
  return std::make_unique<FuseConsecutiveReshapes>();
}

}  // namespace onnxopt
