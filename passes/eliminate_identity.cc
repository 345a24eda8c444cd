// eliminate-identity: Y = Identity(X) is X, so every reader of Y reads X. The rewriter keeps the
// Identity where a graph output cannot take X (a main-graph output keeps its name; a body output
// stays a value of the body). See docs/passes/eliminate-identity.md.

#include "onnxopt/rewrite/match.h"
#include "onnxopt/rewrite/pattern_pass.h"
#include "onnxopt/rewrite/rewriter.h"

namespace onnxopt {
namespace {

class ForwardIdentityInput final : public RewritePattern {
 public:
  ForwardIdentityInput() : RewritePattern("forward-identity-input", {"Identity", 1}) {}

  LogicalResult matchAndRewrite(const ir::Node& identity, PatternRewriter& rewriter) const override {
    ir::Value* input = identity.input(0);
    if (input == nullptr) return failure();
    return forwardOperand(identity, *input, rewriter);
  }
};

class EliminateIdentity final : public PatternPass {
 public:
  EliminateIdentity() : PatternPass("eliminate-identity") {}

 private:
  void populatePatterns(RewritePatternSet& patterns) const override {
    patterns.add<ForwardIdentityInput>();
  }
};

}  // namespace

std::unique_ptr<Pass> createEliminateIdentityPass() { return std::make_unique<EliminateIdentity>(); }

}  // namespace onnxopt
