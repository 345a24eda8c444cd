// eliminate-idempotent-ops: f(f(X)) is f(X) for f in Relu, Floor, Ceil, Round and Sign, for every
// element type and value (NaN, infinities and -0.0 included: each maps its own results to
// themselves), so the outer node's readers read the inner node's output. The inner node stays
// for its other readers. Relu, Floor and Ceil from opset 1, Sign from 9, Round from 11; later
// versions add types only. See docs/passes/eliminate-idempotent-ops.md.

#include <cstdint>
#include <string>

#include "absl/strings/str_cat.h"
#include "onnxopt/rewrite/match.h"
#include "onnxopt/rewrite/pattern_pass.h"
#include "onnxopt/rewrite/rewriter.h"

namespace onnxopt {
namespace {

class ReadInnerOfIdempotentPair final : public RewritePattern {
 public:
  ReadInnerOfIdempotentPair(const std::string& op_type, int64_t since)
      : RewritePattern(absl::StrCat("read-inner-", op_type, "-of-", op_type), {op_type, since}) {}

  LogicalResult matchAndRewrite(const ir::Node& outer, PatternRewriter& rewriter) const override {
    if (producerOf(outer.input(0), outer.opType()) == nullptr) return failure();
    return forwardOperand(outer, *outer.input(0), rewriter);
  }
};

class EliminateIdempotentOps final : public PatternPass {
 public:
  EliminateIdempotentOps() : PatternPass("eliminate-idempotent-ops") {}

 private:
  void populatePatterns(RewritePatternSet& patterns) const override {
    patterns.add<ReadInnerOfIdempotentPair>("Relu", 1);
    patterns.add<ReadInnerOfIdempotentPair>("Floor", 1);
    patterns.add<ReadInnerOfIdempotentPair>("Ceil", 1);
    patterns.add<ReadInnerOfIdempotentPair>("Sign", 9);
    patterns.add<ReadInnerOfIdempotentPair>("Round", 11);
  }
};

}  // namespace

std::unique_ptr<Pass> createEliminateIdempotentOpsPass() {
  return std::make_unique<EliminateIdempotentOps>();
}

}  // namespace onnxopt
