// fuse-consecutive-transposes: Transpose(Transpose(X, p1), p2) is Transpose(X, p) with
// p[i] = p1[p2[i]] (output axis i is axis p2[i] of the middle, which is axis p1[p2[i]] of X).
// The outer Transpose reads X with p; when p is the identity its readers read X, and both go.
// The inner Transpose stays for its other readers. A missing perm reverses the axes, so it needs
// the rank: the other perm's length, or X's known rank. Transpose is the same from opset 1 to 23.
// See docs/passes/fuse-consecutive-transposes.md.

#include <cstdint>
#include <optional>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "onnxopt/ir/describe.h"
#include "onnxopt/rewrite/match.h"
#include "onnxopt/rewrite/operands.h"
#include "onnxopt/rewrite/pattern_pass.h"
#include "onnxopt/rewrite/rewriter.h"

namespace onnxopt {
namespace {

using ir::describe;

class ComposeTransposes final : public RewritePattern {
 public:
  ComposeTransposes() : RewritePattern("compose-transposes", {"Transpose", 1}) {}

  LogicalResult matchAndRewrite(const ir::Node& outer, PatternRewriter& rewriter) const override {
    const ir::Node* inner = producerOf(outer.input(0), "Transpose");
    const ir::Value* output = outer.output(0);
    if (inner == nullptr || inner->input(0) == nullptr || output == nullptr) return failure();
    ir::Value* source = inner->input(0);
    std::optional<int64_t> rank = rankFromPerm(outer);
    if (!rank) rank = rankFromPerm(*inner);
    if (!rank) rank = rewriter.shapes().inferredTypeOf(*source).rank();
    absl::StatusOr<std::optional<std::vector<int64_t>>> p1 = readTransposePerm(*inner, rank);
    if (!p1.ok()) return rewriter.emitError(*inner, p1.status());
    absl::StatusOr<std::optional<std::vector<int64_t>>> p2 = readTransposePerm(outer, rank);
    if (!p2.ok()) return rewriter.emitError(outer, p2.status());
    if (!*p1 || !*p2) {
      return rewriter.notifyMatchFailure(outer, "neither has a perm and the rank is not known");
    }
    if ((*p1)->size() != (*p2)->size()) {
      return rewriter.emitError(
          outer, absl::InvalidArgumentError(absl::StrCat(
                     describe(outer), " and ", describe(*inner), " permute ", (*p2)->size(),
                     " and ", (*p1)->size(), " axes of one tensor")));
    }
    const std::vector<int64_t> composed = composePerms(**p1, **p2);
    const bool identity = isIdentityPerm(composed);
    if (failed(rewriter.match(outer))) return failure();
    rewriter.setInput(outer, 0, source);
    rewriter.setAttr(outer, ir::Attribute::makeInts("perm", composed));
    if (identity && rewriter.canReplaceAnyUseWith(*output, *source)) {
      rewriter.replaceUsesWhereAllowed(*output, *source);
    }
    return success();
  }
};

class FuseConsecutiveTransposes final : public PatternPass {
 public:
  FuseConsecutiveTransposes() : PatternPass("fuse-consecutive-transposes") {}

 private:
  void populatePatterns(RewritePatternSet& patterns) const override {
    patterns.add<ComposeTransposes>();
  }
};

}  // namespace

std::unique_ptr<Pass> createFuseConsecutiveTransposesPass() {
  return std::make_unique<FuseConsecutiveTransposes>();
}

}  // namespace onnxopt
