// eliminate-nop-concat: a Concat of one input is that input. See
// docs/passes/eliminate-nop-concat.md.

#include "onnxopt/rewrite/match.h"
#include "onnxopt/rewrite/pattern_pass.h"
#include "onnxopt/rewrite/rewriter.h"

namespace onnxopt {
namespace {

class ForwardSoleConcatInput final : public RewritePattern {
 public:
  // Every version (1, 4, 11, 13) concatenates along `axis`; one input gives itself.
  ForwardSoleConcatInput() : RewritePattern("forward-sole-concat-input", {"Concat", 1}) {}

  LogicalResult matchAndRewrite(const ir::Node& concat, PatternRewriter& rewriter) const override {
    if (concat.numInputs() != 1 || concat.input(0) == nullptr) return failure();
    return forwardOperand(concat, *concat.input(0), rewriter);
  }
};

class EliminateNopConcat final : public PatternPass {
 public:
  EliminateNopConcat() : PatternPass("eliminate-nop-concat") {}

 private:
  void populatePatterns(RewritePatternSet& patterns) const override {
    patterns.add<ForwardSoleConcatInput>();
  }
};

}  // namespace

std::unique_ptr<Pass> createEliminateNopConcatPass() { return std::make_unique<EliminateNopConcat>(); }

}  // namespace onnxopt
