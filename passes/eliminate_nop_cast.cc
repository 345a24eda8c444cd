// eliminate-nop-cast: Cast(X, to = T) and CastLike(X, L) of an X already of type T (L's type) are
// X, so their readers read X. X's type must be known for sure: what follows from the graph's
// inputs, initializers and operators (ShapeOracle::inferredTypeOf), never a declaration of an
// intermediate value, which may be wrong. Cast from opset 6 (`to` was a string before), CastLike
// from 15; `saturate` (19) only matters for float8 targets, which a same-type Cast never
// converts. See docs/passes/eliminate-nop-cast.md.

#include <cstdint>
#include <optional>
#include <string>

#include "absl/strings/str_cat.h"
#include "onnxopt/rewrite/match.h"
#include "onnxopt/rewrite/operands.h"
#include "onnxopt/rewrite/pattern_pass.h"
#include "onnxopt/rewrite/rewriter.h"
#include "onnxopt/rewrite/schema.h"

namespace onnxopt {
namespace {

class RemoveSameTypeCast final : public RewritePattern {
 public:
  RemoveSameTypeCast(const std::string& op_type, int64_t since)
      : RewritePattern(absl::StrCat("remove-same-type-", op_type), {op_type, since}) {}

  LogicalResult matchAndRewrite(const ir::Node& cast, PatternRewriter& rewriter) const override {
    ir::Value* input = cast.input(0);
    if (input == nullptr || cast.output(0) == nullptr) return failure();
    ShapeOracle& shapes = rewriter.shapes();
    absl::StatusOr<int32_t> target = readCastTarget(cast, shapes);
    if (!target.ok()) return rewriter.emitError(cast, target.status());
    if (*target == 0) return rewriter.notifyMatchFailure(cast, "the target type is not known for sure");
    const int32_t source = shapes.inferredTypeOf(*input).elemType();
    if (source != *target) {
      return rewriter.notifyMatchFailure(cast, [&] {
        return absl::StrCat("the input is ", source == 0 ? "of a type not known for sure"
                                                         : ir::elemTypeName(source),
                            ", the target ", ir::elemTypeName(*target));
      });
    }
    return forwardOperand(cast, *input, rewriter);
  }
};

class EliminateNopCast final : public PatternPass {
 public:
  EliminateNopCast() : PatternPass("eliminate-nop-cast") {}

 private:
  void populatePatterns(RewritePatternSet& patterns) const override {
    patterns.add<RemoveSameTypeCast>("Cast", 6);
    patterns.add<RemoveSameTypeCast>("CastLike", 15);
  }
};

}  // namespace

std::unique_ptr<Pass> createEliminateNopCastPass() { return std::make_unique<EliminateNopCast>(); }

}  // namespace onnxopt
