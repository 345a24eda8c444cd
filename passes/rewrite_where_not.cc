// rewrite-where-not: Where(Not(c), x, y) is Where(c, y, x): the Where reads c and its two value
// operands swap, and the Not goes once nothing else reads it. See docs/passes/rewrite-where-not.md.

#include "onnxopt/rewrite/match.h"
#include "onnxopt/rewrite/pattern_pass.h"
#include "onnxopt/rewrite/rewriter.h"

namespace onnxopt {
namespace {

class ReadConditionAroundNot final : public RewritePattern {
 public:
  // Where exists from opset 9 (16 adds bfloat16); Not's meaning never changed.
  ReadConditionAroundNot() : RewritePattern("read-condition-around-not", {"Where", 9}) {}

  LogicalResult matchAndRewrite(const ir::Node& where, PatternRewriter& rewriter) const override {
    const ir::Node* negation = producerOf(where.input(0), "Not");
    if (negation == nullptr || where.numInputs() != 3) return failure();
    ir::Value* condition = negation->input(0);
    ir::Value* when_true = where.input(1);
    ir::Value* when_false = where.input(2);
    if (condition == nullptr || when_true == nullptr || when_false == nullptr) return failure();
    if (failed(rewriter.match(where))) return failure();
    // Broadcasting makes the same output shape whichever operand is which.
    rewriter.setInput(where, 0, condition);
    rewriter.setInput(where, 1, when_false);
    rewriter.setInput(where, 2, when_true);
    if (!negation->output(0)->hasUses()) rewriter.eraseNode(*negation);
    return success();
  }
};

class RewriteWhereNot final : public PatternPass {
 public:
  RewriteWhereNot() : PatternPass("rewrite-where-not") {}

 private:
  void populatePatterns(RewritePatternSet& patterns) const override {
    patterns.add<ReadConditionAroundNot>();
  }
};

}  // namespace

std::unique_ptr<Pass> createRewriteWhereNotPass() { return std::make_unique<RewriteWhereNot>(); }

}  // namespace onnxopt
