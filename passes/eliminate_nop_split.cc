// eliminate-nop-split: a Split into one output is its input. See docs/passes/eliminate-nop-split.md.

#include "onnxopt/rewrite/match.h"
#include "onnxopt/rewrite/pattern_pass.h"
#include "onnxopt/rewrite/rewriter.h"

namespace onnxopt {
namespace {

class ForwardUnsplitInput final : public RewritePattern {
 public:
  // At every version (1, 2, 11, 13, 18) the parts cover the whole axis: one part is the input.
  ForwardUnsplitInput() : RewritePattern("forward-unsplit-input", {"Split", 1}) {}

  LogicalResult matchAndRewrite(const ir::Node& split, PatternRewriter& rewriter) const override {
    if (split.numOutputs() != 1 || split.input(0) == nullptr) return failure();
    return forwardOperand(split, *split.input(0), rewriter);
  }
};

class EliminateNopSplit final : public PatternPass {
 public:
  EliminateNopSplit() : PatternPass("eliminate-nop-split") {}

 private:
  void populatePatterns(RewritePatternSet& patterns) const override {
    patterns.add<ForwardUnsplitInput>();
  }
};

}  // namespace

std::unique_ptr<Pass> createEliminateNopSplitPass() { return std::make_unique<EliminateNopSplit>(); }

}  // namespace onnxopt
