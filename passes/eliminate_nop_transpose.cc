// eliminate-nop-transpose: a Transpose whose perm is the identity is its input, so its readers
// read the input. Without a perm, Transpose reverses the axes: a no-op only for an input of known
// rank 0 or 1. Transpose is the same from opset 1 to 23 (later versions add types). See
// docs/passes/eliminate-nop-transpose.md.

#include <cstdint>
#include <optional>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "onnxopt/rewrite/operands.h"
#include "onnxopt/rewrite/match.h"
#include "onnxopt/rewrite/pattern_pass.h"
#include "onnxopt/rewrite/rewriter.h"
#include "onnxopt/rewrite/schema.h"

namespace onnxopt {
namespace {


class RemoveIdentityTranspose final : public RewritePattern {
 public:
  RemoveIdentityTranspose() : RewritePattern("remove-identity-transpose", {"Transpose", 1}) {}

  LogicalResult matchAndRewrite(const ir::Node& transpose, PatternRewriter& rewriter) const override {
    ir::Value* input = transpose.input(0);
    if (input == nullptr || transpose.output(0) == nullptr) return failure();
    absl::StatusOr<std::optional<std::vector<int64_t>>> perm = getInts(transpose, "perm");
    if (!perm.ok()) return rewriter.emitError(transpose, perm.status());
    if (*perm && !isIdentityPerm(**perm)) {
      return rewriter.notifyMatchFailure(transpose, [&] {
        return absl::StrCat("perm [", absl::StrJoin(**perm, ", "), "] moves axes");
      });
    }
    if (!*perm) {
      const std::optional<int64_t> rank = rewriter.shapes().inferredTypeOf(*input).rank();
      if (!rank || *rank > 1) {
        return rewriter.notifyMatchFailure(transpose, [&] {
          return absl::StrCat("no perm (the axes reversed) and the input's rank is ",
                              rank ? absl::StrCat(*rank) : "not known");
        });
      }
    }
    return forwardOperand(transpose, *input, rewriter);
  }
};

class EliminateNopTranspose final : public PatternPass {
 public:
  EliminateNopTranspose() : PatternPass("eliminate-nop-transpose") {}

 private:
  void populatePatterns(RewritePatternSet& patterns) const override {
    patterns.add<RemoveIdentityTranspose>();
  }
};

}  // namespace

std::unique_ptr<Pass> createEliminateNopTransposePass() {
  return std::make_unique<EliminateNopTranspose>();
}

}  // namespace onnxopt
